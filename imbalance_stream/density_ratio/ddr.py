"""The discriminative density ratio (DDR): class-wise matching with the prior ratio."""

from __future__ import annotations

import copy
import inspect

import numpy as np
from river import base

from imbalance_stream.base.deprecation import renamed_attribute, renamed_parameters
from imbalance_stream.base.validation import (
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_seed,
)

from .bandwidths import LAMBDA_GRID, SIGMA_FACTORS, median_distance
from .base import NotFitted, as_matrix
from .gaussian import gaussian_gram
from .iwlspc import IWLSPC
from .ulsif import ulsif_alpha, ulsif_loocv

__all__ = [
    "DDR",
    "classwise_quasi_ulsif",
    "learner_losses",
    "mutual_information",
    "prior_ratio",
]


def prior_ratio(codes: np.ndarray, posterior: np.ndarray) -> np.ndarray:
    """``gamma(c) = mean_target p(c|x') / freq_source(c)`` for every class (eq. 4.15).

    ``codes`` are the source labels as column indices of ``posterior`` (the current model's
    class posteriors at the target rows). A class absent from the source gets 0 (no source row
    carries it, so its ratio is never used).
    """
    n_classes = posterior.shape[1]
    frequency = np.bincount(codes, minlength=n_classes) / len(codes)
    target_prior = posterior.mean(0)
    return np.where(frequency > 0, target_prior / np.where(frequency > 0, frequency, 1.0), 0.0)


def mutual_information(posterior: np.ndarray) -> float:
    """``H(mean_j p(y|x'_j)) - mean_j H(p(y|x'_j))``: eq. 4.22 with the sign that makes it the
    mutual information between inputs and predicted labels (D-DR-30). High when the predictions
    are confident and their marginal balanced."""
    p = np.clip(posterior, 0.0, 1.0)

    def entropy(rows: np.ndarray) -> np.ndarray:
        return -(rows * np.log(np.where(rows > 0, rows, 1.0))).sum(-1)

    return float(entropy(p.mean(0)) - entropy(p).mean())


def learner_losses(model, X: np.ndarray, codes: np.ndarray, loss: str) -> np.ndarray:
    """The loss ``L(x_i, y_i, h)`` of each source row under the fitted ``model`` (eq. 4.17).

    ``"posterior"``: ``1 - p(y_i|x_i)``, bounded in [0, 1] for any probabilistic learner;
    ``"hinge"``: ``max(0, 1 - s_i f(x_i))`` on a binary learner's decision values ``f``, with
    ``s_i = +1`` for the second class of ``classes_`` (D-DR-31).
    """
    if loss == "hinge":
        signs = np.where(codes == 1, 1.0, -1.0)
        return np.maximum(0.0, 1.0 - signs * np.asarray(model.decision_function(X)).ravel())
    proba = np.asarray(model.predict_proba(X))
    return 1.0 - proba[np.arange(len(codes)), codes]


@renamed_parameters(lambda_="ridge")
def classwise_quasi_ulsif(
    source: np.ndarray,
    codes: np.ndarray,
    target: np.ndarray,
    posterior: np.ndarray,
    losses: np.ndarray,
    *,
    sigma: float,
    ridge: float,
    loss_scale: float,
    centres: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, list]:
    """One weight block of the DDR problem with the model fixed (Algorithm 6).

    For each class ``c`` the ratio ``beta(x, c) = sum_l alpha_l k(x, x_l)`` (eq. 4.18) solves
    ``alpha = max(0, (H + lambda I)^-1 q)`` (eq. 4.21) with ``H`` the mean of ``phi phi'`` over the
    class-``c`` source rows (eq. 4.19) and the linear term of eq. 4.20 written with the kernel
    factor the gradient of eq. 4.17 carries (D-DR-33):

    ``q_l = sum_j p(c|x'_j) k(x'_j, x_l) / P_c - s gamma(c) sum_{i: y_i=c} L_i k(x_i, x_l)``,

    ``P_c = sum_j p(c|x'_j)`` and ``s = loss_scale = c1 / lambda1``. The ``centres`` ``x_l`` are
    target rows shared by the classes (D-DR-32). Returns the source weights
    ``w_i = gamma(y_i) beta(x_i, y_i)`` (step 3), ``gamma`` (eq. 4.15) and, per class, the
    ``(centres, alpha)`` pair (``None`` where the class has no source row or no target mass, whose
    ``beta`` is then 1, D-DR-34).
    """
    gamma = prior_ratio(codes, posterior)
    weights = np.empty(len(codes))
    models: list = []
    for c in range(posterior.shape[1]):
        members = np.flatnonzero(codes == c)
        soft = posterior[:, c]
        if len(members) == 0 or not soft.sum() > 0:
            weights[members] = gamma[c]
            models.append(None)
            continue
        phi_source = gaussian_gram(source[members], centres, sigma)
        H = phi_source.T @ phi_source / len(members)
        q = soft @ gaussian_gram(target, centres, sigma) / soft.sum()
        q -= loss_scale * gamma[c] * (losses[members] @ phi_source)
        alpha = ulsif_alpha(H, q, ridge)
        weights[members] = gamma[c] * (phi_source @ alpha)
        models.append((centres, alpha))
    return weights, gamma, models


def _fit_learner(template, X, y, weights, target):
    """A fresh copy of ``template`` fitted on ``(X, y)`` with ``weights``; a learner whose ``fit``
    takes ``X_unlabelled`` (the transductive SVM) or ``X_centres`` (iwLSPC) gets the target."""
    model = copy.deepcopy(template)
    parameters = inspect.signature(model.fit).parameters
    extra = {}
    if "X_unlabelled" in parameters:
        extra["X_unlabelled"] = target
    if "X_centres" in parameters:
        extra["X_centres"] = target
    return model.fit(X, y, sample_weight=weights, **extra)


class DDR(base.Base):
    """Discriminative density ratio: class-wise importance weights with the prior ratio.

    Miao (2015), Chapter 4. A labelled source ``(X, y)`` and an unlabelled target ``X'`` may
    differ in both the inputs and the class prior. DDR weighs each source sample by
    ``w(x, y) = gamma(y) beta(x, y)`` (eq. 4.7): the prior ratio ``gamma(y) = p'(y) / p(y)``
    (eq. 4.15) times the class-conditional ratio ``beta(x, y) = p'(x|y) / p(x|y)``. The target's
    labels are unknown, so both come from the current classifier's posteriors on the target, and
    the classifier is in turn trained with the weights: a block coordinate update (eqs.
    4.12-4.13) between the weighted learner and the class-wise quasi-uLSIF of Algorithm 6, from
    all-one weights, until ``(1/n) ||w(t+1) - w(t)|| < tol`` or ``max_iter``.

    With ``early_stopping`` (DDR-ES, Algorithm 8) the iterate whose classifier has the largest
    mutual information between target inputs and predicted labels (eq. 4.22, corrected sign) is
    kept: the classifier and the weights it was trained with are rolled back to that iteration.
    Without it the last iterate is kept, which with the transductive learner
    :class:`WeightedTSVM` is DDR-TSVM (Algorithm 7).

    Parameters
    ----------
    learner
        The weighted classifier, any object with ``fit(X, y, sample_weight=...)``,
        ``predict_proba`` and ``classes_`` (scikit-learn's protocol); a fresh deep copy is fitted
        at each iteration. None uses :class:`IWLSPC` (Table 4.4's learner).
    lambda1
        Trade-off of the class-wise discrepancy (eq. 4.11; 1 in the thesis).
    c1
        Cost of the weighted training loss (eq. 4.14; 1, LIBSVM's default ``C``). The loss term of
        eq. 4.20 is scaled by ``c1 / lambda1``.
    loss
        ``"posterior"`` (``1 - p(y|x)``) or ``"hinge"`` (binary learners with
        ``decision_function``), the ``L`` of eq. 4.17 (D-DR-31).
    early_stopping
        Keep the iterate of largest mutual information (DDR-ES) instead of the last.
    tol
        Convergence threshold on ``(1/n) ||w(t+1) - w(t)||_2`` (D-DR-35).
    max_iter
        Most block-coordinate iterations.
    n_centres
        Kernel centres ``x_l`` of eq. 4.18, target rows shared by the classes (at most the
        target's size).
    sigma, ridge
        Width and ridge (``lambda`` of eq. 4.21) of the class-wise ratios; None chooses each by
        the closed-form leave-one-out score of plain uLSIF between the source and the target
        (D-DR-35). The old spelling ``lambda_`` still works until 0.4, with a
        ``DeprecationWarning``.
    seed
        Seed of the centres, the leave-one-out shuffles and the median subsample, and of the
        default learner (``IWLSPC(seed=seed)``); a learner you pass keeps its own ``seed``, so
        give it one for a reproducible fit.

    Attributes
    ----------
    classes_
        The labels, in the order of the posteriors' columns.
    weights_
        ``gamma(y_i) beta(x_i, y_i)`` at the source rows, of the kept iterate.
    gamma_
        The prior ratio of each class, of the kept iterate.
    model_
        The classifier of the kept iterate.
    mi_, delta_w_
        Mutual information of each iteration's classifier on the target, and the weight change
        ``(1/n) ||w(t+1) - w(t)||`` after it.
    best_iteration_
        Index (from 0) of the kept iterate.

    Examples
    --------

    Breast-cancer diagnoses whose labelled sample kept 30 % of the benign cases (class 1) and
    90 % of the malignant ones (class 0); the test half is unlabelled:

    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from imbalance_stream.density_ratio import DDR
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = 2 * (X - X.min(0)) / (X.max(0) - X.min(0)) - 1
    >>> rng = np.random.default_rng(0)
    >>> order = rng.permutation(len(y))
    >>> test, pool = order[:284], order[284:]
    >>> biased = pool[rng.random(len(pool)) < np.where(y[pool] == 1, 0.3, 0.9)]
    >>> ddr = DDR(seed=0).fit(X[biased], y[biased], X[test])
    >>> bool(ddr.gamma_[1] > 1 > ddr.gamma_[0])   # class 1 was under-sampled in the source
    True
    >>> float(np.mean(ddr.predict(X[test]) == y[test])) > 0.9
    True

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 4.2-4.3, Algorithms 6-8.

    """

    @renamed_parameters(lambda_="ridge")
    def __init__(
        self,
        learner=None,
        lambda1: float = 1.0,
        c1: float = 1.0,
        loss: str = "posterior",
        early_stopping: bool = True,
        tol: float = 1e-3,
        max_iter: int = 20,
        n_centres: int = 100,
        sigma: float | None = None,
        ridge: float | None = None,
        seed: int | None = None,
    ):
        self.learner = learner
        self.lambda1 = check_real("lambda1", lambda1, low=0.0, low_open=True)
        self.c1 = check_real("c1", c1, low=0.0)
        self.loss = check_choice("loss", loss, ("posterior", "hinge"))
        self.early_stopping = check_bool("early_stopping", early_stopping)
        self.tol = check_real("tol", tol, low=0.0)
        self.max_iter = check_int("max_iter", max_iter, low=1)
        self.n_centres = check_int("n_centres", n_centres, low=1)
        self.sigma = check_real("sigma", sigma, low=0.0, low_open=True, optional=True)
        self.ridge = check_real("ridge", ridge, low=0.0, optional=True)
        self.seed = check_seed(seed)

    lambda_chosen_ = renamed_attribute("lambda_chosen_", "ridge_")

    def fit(self, X_source, y_source, X_target):
        """Fit on the labelled source and the unlabelled target; returns ``self``."""
        source = as_matrix(X_source, "X_source")
        target = as_matrix(X_target, "X_target", source.shape[1])
        labels = np.asarray(y_source)
        if labels.ndim != 1 or len(labels) != source.shape[0]:
            raise ValueError(
                f"y_source must hold one label per row of X_source ({source.shape[0]}), "
                f"got shape {labels.shape}"
            )
        self.classes_, codes = np.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y_source needs two classes or more, got {list(self.classes_)}")
        if self.loss == "hinge" and len(self.classes_) != 2:
            raise ValueError("loss='hinge' needs a binary problem")
        rng = np.random.default_rng(self.seed)
        b = min(self.n_centres, target.shape[0])
        self.centres_ = target[rng.choice(target.shape[0], b, replace=False)]
        self.sigma_, self.ridge_ = self._width_and_ridge(source, target, rng)
        self.n_features_in_ = source.shape[1]
        self._bcu(source, labels, codes, target)
        return self

    def _width_and_ridge(self, source, target, rng) -> tuple[float, float]:
        """The closed-form leave-one-out choice of plain uLSIF (Algorithm 4) between the whole
        source and target, made once for every class and iteration (D-DR-35)."""
        if self.sigma is not None and self.ridge is not None:
            return self.sigma, self.ridge
        sigmas = (
            np.array([self.sigma])
            if self.sigma is not None
            else median_distance(np.vstack([source, target]), self.seed) * SIGMA_FACTORS
        )
        lambdas = np.array([self.ridge]) if self.ridge is not None else LAMBDA_GRID
        centres = self.centres_
        de, nu = source[rng.permutation(len(source))], target[rng.permutation(len(target))]
        scores = np.array(
            [
                ulsif_loocv(gaussian_gram(centres, de, s), gaussian_gram(centres, nu, s), lambdas)
                for s in sigmas
            ]
        )
        row, column = np.unravel_index(int(np.argmin(scores)), scores.shape)
        return float(sigmas[row]), float(lambdas[column])

    def _bcu(self, source, labels, codes, target) -> None:
        """Algorithms 7 and 8: alternate the weighted learner and Algorithm 6."""
        template = self.learner if self.learner is not None else IWLSPC(seed=self.seed)
        weights = np.ones(len(codes))
        # the ratios that gave ``weights``: none yet (beta = 1, gamma = 1)
        gamma, ratios = np.ones(len(self.classes_)), [None] * len(self.classes_)
        snapshots: list = []
        self.mi_, self.delta_w_ = [], []
        for _ in range(self.max_iter):
            model = _fit_learner(template, source, labels, weights, target)
            posterior = self._aligned_posterior(model, target)
            self.mi_.append(mutual_information(posterior))
            snapshots.append((model, weights, gamma, ratios))
            new_weights, gamma, ratios = classwise_quasi_ulsif(
                source,
                codes,
                target,
                posterior,
                learner_losses(model, source, codes, self.loss),
                sigma=self.sigma_,
                ridge=self.ridge_,
                loss_scale=self.c1 / self.lambda1,
                centres=self.centres_,
            )
            change = float(np.linalg.norm(new_weights - weights)) / len(codes)
            self.delta_w_.append(change)
            if not (np.bincount(codes, weights=new_weights) > 0).all():
                break  # a class weighed to nothing: no learner can be trained on it (D-DR-35)
            weights = new_weights
            if change < self.tol:
                break
        # the kept iterate: the classifier, the weights it was trained with and the ratios that
        # gave those weights (which ``weight`` extends to new rows)
        last = len(self.mi_) - 1
        self.best_iteration_ = int(np.argmax(self.mi_)) if self.early_stopping else last
        self.model_, self.weights_, self.gamma_, self._ratios = snapshots[self.best_iteration_]
        self.n_iter_ = len(self.mi_)

    def _aligned_posterior(self, model, X: np.ndarray) -> np.ndarray:
        """``model.predict_proba`` with its columns in the order of ``classes_``."""
        proba = np.asarray(model.predict_proba(X), dtype=np.float64)
        columns = np.searchsorted(self.classes_, np.asarray(model.classes_))
        aligned = np.zeros((X.shape[0], len(self.classes_)))
        aligned[:, columns] = proba
        return aligned

    # ---- using the fit ------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise NotFitted("DDR must be fitted before it weighs or predicts")

    def weight(self, X, y) -> np.ndarray:
        """``gamma(y) beta(x, y)`` at labelled rows (eq. 4.7), from the kept iterate's ratios; at
        the source rows it equals ``weights_``. An unseen label raises a ValueError naming it."""
        self._check_fitted()
        X = as_matrix(X, "X", self.n_features_in_)
        labels = np.asarray(y)
        if labels.shape != (X.shape[0],):
            raise ValueError(f"y must hold one label per row of X ({X.shape[0]})")
        unseen = sorted({str(v) for v in labels} - {str(v) for v in self.classes_})
        if unseen:
            raise ValueError(f"unseen label(s) {unseen}; the fit had {list(self.classes_)}")
        codes = np.searchsorted(self.classes_, labels)
        out = np.empty(X.shape[0])
        for c, ratio in enumerate(self._ratios):
            rows = codes == c
            if ratio is None:
                out[rows] = self.gamma_[c]
            else:
                centres, alpha = ratio
                out[rows] = self.gamma_[c] * (gaussian_gram(X[rows], centres, self.sigma_) @ alpha)
        return out

    def predict_proba(self, X) -> np.ndarray:
        """The kept classifier's posteriors, columns in the order of ``classes_``."""
        self._check_fitted()
        return self._aligned_posterior(self.model_, as_matrix(X, "X", self.n_features_in_))

    def predict(self, X) -> np.ndarray:
        """The label of largest posterior under the kept classifier: the posteriors DDR estimates
        the prior ratio and the mutual information from, as LIBSVM labels with ``-b 1``; an SVM's
        own sign can disagree with them (D-DR-41)."""
        return self.classes_[self.predict_proba(X).argmax(1)]

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"early_stopping": False, "sigma": 1.0, "ridge": 0.1, "n_centres": 20, "seed": 2}
