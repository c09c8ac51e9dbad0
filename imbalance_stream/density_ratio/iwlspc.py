"""The importance-weighted least-squares probabilistic classifier."""

from __future__ import annotations

import numpy as np
from river import base

from imbalance_stream.base.deprecation import renamed_attribute, renamed_parameters
from imbalance_stream.base.validation import check_int, check_real, check_seed

from .bandwidths import median_distance
from .base import NotFitted, as_matrix
from .gaussian import gaussian_gram

__all__ = ["IWLSPC", "lspc_fit", "lspc_path", "lspc_posterior"]

#: Width candidates of the importance-weighted cross-validation, as multiples of the median
#: distance: a classifier's useful widths lie around the data's scale (D-DR-12).
SIGMA_FACTORS = np.logspace(-1, 1, 9)

#: Ridge candidates of the importance-weighted cross-validation (D-DR-12).
LAMBDA_GRID = np.logspace(-3, 1, 9)


@renamed_parameters(lambda_="ridge")
def lspc_fit(phi: np.ndarray, Y: np.ndarray, weights: np.ndarray, ridge: float) -> np.ndarray:
    """Every class's coefficients at once: ``(phi' W phi + lambda I)^-1 phi' W Y``, ``lambda``
    the ``ridge``.

    The minimiser of ``sum_i w_i (q(y|x_i) - 1[y_i = y])^2 + lambda ||theta_y||^2`` for each class
    (the per-class least-squares fit of Hachiya et al., 2012), with ``phi`` the basis functions at
    the samples (``n x b``), ``Y`` the one-hot labels (``n x c``) and ``W = diag(weights)``.
    """
    return lspc_path(phi, Y, weights, [ridge])[0]


def lspc_path(phi: np.ndarray, Y: np.ndarray, weights: np.ndarray, lambdas) -> list[np.ndarray]:
    """:func:`lspc_fit` for each ridge of ``lambdas``, from one eigendecomposition of
    ``phi' W phi``: ``theta(lambda) = Q diag(1 / (e + lambda)) Q' phi' W Y``."""
    weighted = phi * weights[:, None]
    eigenvalues, Q = np.linalg.eigh(phi.T @ weighted)
    eigenvalues = np.maximum(eigenvalues, 0.0)  # positive semi-definite; drop round-off
    projected = Q.T @ (weighted.T @ Y)
    return [Q @ (projected / (eigenvalues + ridge)[:, None]) for ridge in lambdas]


def lspc_posterior(scores: np.ndarray) -> np.ndarray:
    """``max(0, q) / sum_y max(0, q)`` per row; a row with no positive score is uniform
    (D-DR-11)."""
    clipped = np.maximum(scores, 0.0)
    total = clipped.sum(1, keepdims=True)
    uniform = np.full_like(clipped, 1.0 / clipped.shape[1])
    return np.where(total > 0.0, clipped / np.where(total > 0.0, total, 1.0), uniform)


class IWLSPC(base.Base):
    """Importance-weighted least-squares probabilistic classifier (iwLSPC), batch.

    The learner of Miao (2015), Tables 4.4 and 6.3 (Hachiya et al., 2012). Each class ``y`` gets a
    Gaussian-basis linear model ``q(y|x) = sum_l theta_{y,l} k(x, c_l)`` fitted to the class
    indicator by importance-weighted regularised least squares (Section 3.3.1),

    ``theta_y = argmin sum_i w_i (q(y|x_i) - 1[y_i = y])^2 + lambda ||theta_y||^2``,

    solved in closed form for every class at once (:func:`lspc_fit`). The posterior is
    ``p(y|x) = max(0, q(y|x)) / sum_y' max(0, q(y'|x))``. The width and the ridge, when not given,
    are chosen by importance-weighted cross-validation (Sugiyama et al., 2007): each fold's
    misclassifications are weighted by the samples' importance, ``(1/|F|) sum_{i in F} w_i
    1[h(x_i) != y_i]``, with the weighted squared error breaking ties (D-DR-12).

    The thesis samples the ``n_centres`` basis centres from the test data: pass the test inputs as
    ``X_centres`` to ``fit``; without them the centres are drawn from the training inputs.

    Parameters
    ----------
    sigma
        Gaussian width, ``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))``; None chooses it by
        importance-weighted cross-validation over ``sigma_factors`` times the median pairwise
        distance of the training inputs.
    ridge
        The ridge ``lambda``; None chooses it by importance-weighted cross-validation over
        ``lambda_grid``. The old spelling ``lambda_`` still works until 0.4, with a
        ``DeprecationWarning``.
    n_centres
        Number of basis centres (100 in the thesis).
    n_folds
        Folds of the cross-validation (5 in the thesis).
    sigma_factors
        Width candidates as multiples of the median distance (default ``logspace(-1, 1, 9)``).
    lambda_grid
        Ridge candidates (default ``logspace(-3, 1, 9)``).
    seed
        Seed of the centres, the folds and the median subsample.

    Attributes
    ----------
    classes_
        The labels, in the order of ``predict_proba``'s columns.
    centres_
        The basis centres.
    theta_
        Coefficients, one column per class.
    sigma_, ridge_
        The width and ridge used.
    cv_error_
        Cross-validated weighted error of every ``(sigma, lambda)`` candidate, rows by sigma.

    Examples
    --------

    Breast-cancer diagnoses (scikit-learn's bundled copy of wdbc), trained on a biased half:

    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from imbalance_stream.density_ratio import IWLSPC
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = (X - X.mean(0)) / X.std(0)
    >>> rng = np.random.default_rng(0)
    >>> test = rng.random(len(y)) < 0.5
    >>> model = IWLSPC(seed=0).fit(X[~test], y[~test], X_centres=X[test])
    >>> round(float((model.predict(X[test]) == y[test]).mean()), 3)
    0.961
    >>> model.predict_proba(X[test][:2]).sum(1)
    array([1., 1.])

    References
    ----------
    Hachiya, H., Sugiyama, M. and Ueda, N. (2012). Importance-weighted least-squares probabilistic
    classifier for covariate shift adaptation with application to human activity recognition.
    Neurocomputing, 80, 93-101.

    Sugiyama, M., Krauledat, M. and Müller, K.-R. (2007). Covariate shift adaptation by importance
    weighted cross validation. Journal of Machine Learning Research, 8, 985-1005.

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.3.1; Sections 4.4.2 and 6.3.2.

    """

    @renamed_parameters(lambda_="ridge")
    def __init__(
        self,
        sigma: float | None = None,
        ridge: float | None = None,
        n_centres: int = 100,
        n_folds: int = 5,
        sigma_factors: tuple | None = None,
        lambda_grid: tuple | None = None,
        seed: int | None = None,
    ):
        self.sigma = check_real("sigma", sigma, low=0.0, low_open=True, optional=True)
        self.ridge = check_real("ridge", ridge, low=0.0, optional=True)
        self.n_centres = check_int("n_centres", n_centres, low=1)
        self.n_folds = check_int("n_folds", n_folds, low=2)
        self.sigma_factors = sigma_factors
        self.lambda_grid = lambda_grid
        self.seed = check_seed(seed)

    # ---- fitting ------------------------------------------------------------------------------

    lambda_chosen_ = renamed_attribute("lambda_chosen_", "ridge_")

    def fit(self, X, y, sample_weight=None, X_centres=None):
        """Fit on inputs ``X``, labels ``y`` and importance weights ``sample_weight`` (default 1);
        the basis centres are drawn from ``X_centres`` (the test inputs, in the thesis) or ``X``.
        Returns ``self``."""
        X = as_matrix(X, "X")
        labels = np.asarray(y)
        if labels.ndim != 1 or len(labels) != X.shape[0]:
            raise ValueError(
                f"y must hold one label per row of X ({X.shape[0]}), got shape {labels.shape}"
            )
        weights = self._check_weights(sample_weight, X.shape[0])
        pool = X if X_centres is None else as_matrix(X_centres, "X_centres", X.shape[1])
        self.classes_, codes = np.unique(labels, return_inverse=True)
        Y = np.eye(len(self.classes_))[codes]
        rng = np.random.default_rng(self.seed)
        b = min(self.n_centres, pool.shape[0])
        self.centres_ = pool[rng.choice(pool.shape[0], b, replace=False)]
        sigmas, lambdas = self._grids(X)
        folds = rng.permutation(X.shape[0]) % self.n_folds
        self.cv_error_ = np.full((len(sigmas), len(lambdas)), np.inf)
        if len(sigmas) * len(lambdas) > 1:
            for row, sigma in enumerate(sigmas):
                phi = gaussian_gram(X, self.centres_, sigma)
                self.cv_error_[row] = self._iwcv(phi, Y, weights, folds, lambdas)
        # lexicographic: the weighted error first, then the weighted squared error
        best = np.unravel_index(int(np.argmin(self.cv_error_)), self.cv_error_.shape)
        self.sigma_ = float(sigmas[best[0]])
        self.ridge_ = float(lambdas[best[1]])
        phi = gaussian_gram(X, self.centres_, self.sigma_)
        self.theta_ = lspc_fit(phi, Y, weights, self.ridge_)
        self.n_features_in_ = X.shape[1]
        return self

    @staticmethod
    def _check_weights(sample_weight, n: int) -> np.ndarray:
        if sample_weight is None:
            return np.ones(n)
        weights = np.asarray(sample_weight, dtype=np.float64).ravel()
        if weights.shape != (n,):
            raise ValueError(f"sample_weight must hold {n} values, got {weights.shape[0]}")
        if not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError("sample_weight must be finite and non-negative")
        return weights

    def _grids(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.sigma is not None:
            sigmas = np.array([self.sigma])
        else:
            factors = self.sigma_factors if self.sigma_factors is not None else SIGMA_FACTORS
            sigmas = median_distance(X, self.seed) * np.asarray(factors, dtype=np.float64)
        if self.ridge is not None:
            lambdas = np.array([self.ridge])
        else:
            lambdas = np.asarray(
                self.lambda_grid if self.lambda_grid is not None else LAMBDA_GRID, dtype=np.float64
            )
        return sigmas, lambdas

    def _iwcv(self, phi, Y, weights, folds, lambdas) -> np.ndarray:
        """Importance-weighted cross-validated error of each ridge at one width.

        The score is the weighted misclassification rate plus ``1e-6`` times the weighted squared
        error, so that equal error counts (frequent on small sets) go to the better fit."""
        errors = np.zeros(len(lambdas))
        for fold in range(self.n_folds):
            held = folds == fold
            if not held.any() or held.all():
                continue
            w_held = weights[held]
            path = lspc_path(phi[~held], Y[~held], weights[~held], lambdas)
            for position, theta in enumerate(path):
                scores = phi[held] @ theta
                wrong = scores.argmax(1) != Y[held].argmax(1)
                squared = ((lspc_posterior(scores) - Y[held]) ** 2).sum(1)
                errors[position] += (w_held @ wrong + 1e-6 * (w_held @ squared)) / held.sum()
        return errors / self.n_folds

    # ---- predicting ---------------------------------------------------------------------------

    def _scores(self, X) -> np.ndarray:
        if not hasattr(self, "theta_"):
            raise NotFitted("IWLSPC must be fitted before it predicts")
        X = as_matrix(X, "X", self.n_features_in_)
        return gaussian_gram(X, self.centres_, self.sigma_) @ self.theta_

    def predict_proba(self, X) -> np.ndarray:
        """The posterior of each class (columns in the order of ``classes_``) at each row."""
        return lspc_posterior(self._scores(X))

    def predict(self, X) -> np.ndarray:
        """The label of largest ``q(y|x)`` at each row."""
        scores = self._scores(X)
        return self.classes_[scores.argmax(1)]

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"sigma": 1.0, "ridge": 0.1, "n_centres": 20, "seed": 2}
