"""Unconstrained least-squares importance fitting."""

from __future__ import annotations

import functools

import numpy as np
from scipy.linalg import lapack

from imbalance_stream._numba.density_ratio import ulsif_loocv_scores
from imbalance_stream.base.deprecation import renamed_attribute, renamed_parameters
from imbalance_stream.base.validation import check_real

from ._docs import cite_papers
from .bandwidths import LAMBDA_GRID, SIGMA_FACTORS, median_distance
from .base import COUNT, SEED, WIDTH, DensityRatioEstimator, checked_init
from .gaussian import gaussian_gram, gaussian_of_distances, sq_distances

__all__ = ["ULSIF", "kept_eigenpairs", "ulsif_alpha", "ulsif_loocv"]

#: A trace of ``H`` at most this fraction of the smallest ridge counts as ``H = 0``.
NEGLIGIBLE_EIGENVALUE = 1e-14


@renamed_parameters(lambda_="ridge")
def ulsif_alpha(H: np.ndarray, h: np.ndarray, ridge: float) -> np.ndarray:
    """``max(0, (H + lambda I)^-1 h)`` (eq. 3.28), ``lambda`` the ``ridge``, by Cholesky (``H`` is
    positive semi-definite)."""
    ridged = H + ridge * np.eye(H.shape[0])
    # LAPACK's potrf/potrs directly: scipy's cho_factor/cho_solve wrappers cost more than the
    # factorisation itself at b = 100, and a streaming detector solves once per sample
    factor, info = lapack.dpotrf(ridged, lower=False, clean=False, overwrite_a=False)
    if info == 0:
        alpha, info = lapack.dpotrs(factor, h, lower=False)
    if info != 0:  # round-off made H + lambda I indefinite
        alpha = np.linalg.lstsq(ridged, h, rcond=None)[0]
    return np.maximum(alpha, 0.0)


def kept_eigenpairs(phi_de: np.ndarray, lambdas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The eigenpairs of ``H = phi_de phi_de' / m`` that a ridge in ``lambdas`` can tell from 0,
    as ``(eigenvalues, Q)`` with ``Q`` ``b x r`` (``r`` may be 0).

    An eigen-direction whose eigenvalue is negligible against the smallest ridge, or below the
    eigendecomposition's own error (LAPACK's backward error is of order b x machine epsilon x
    the largest eigenvalue), enters the leave-one-out through the identity part ``1 / ridge``
    alone. ``trace(H)`` bounds every eigenvalue: when it is negligible (a narrow width, where
    the basis functions vanish at the source points) no eigendecomposition is needed.
    """
    b, m = phi_de.shape
    negligible = NEGLIGIBLE_EIGENVALUE * float(np.min(lambdas)) * (m - 1.0) / m
    if np.einsum("ij,ij->", phi_de, phi_de) / m <= negligible:
        return np.zeros(0), np.zeros((b, 0))
    eigenvalues, Q = np.linalg.eigh(phi_de @ phi_de.T / m)
    error = b * np.finfo(float).eps * eigenvalues[-1]
    kept = eigenvalues > max(negligible, error)
    return eigenvalues[kept], np.ascontiguousarray(Q[:, kept])


def ulsif_loocv(phi_de: np.ndarray, phi_nu: np.ndarray, lambdas: np.ndarray) -> np.ndarray:
    """Leave-one-out squared-loss score of uLSIF for each ridge in ``lambdas`` (lower is better).

    The closed form of Kanamori, Hido and Sugiyama (2009, Section 3.3): ``phi_de`` (``b x m``)
    and ``phi_nu`` (``b x n``) are the basis functions at the denominator and numerator samples,
    already shuffled; the first ``min(m, n)`` of each are held out in pairs.
    """
    n_de = phi_de.shape[1]
    n_nu = phi_nu.shape[1]
    n_min = min(n_de, n_nu)
    # the kernel runs over the held-out pairs innermost: each matrix goes in as b x n_min
    X_de = np.ascontiguousarray(phi_de[:, :n_min])
    X_nu = np.ascontiguousarray(phi_nu[:, :n_min])
    h = phi_nu.mean(1)
    lambdas = np.ascontiguousarray(lambdas, dtype=np.float64)
    scores = np.empty(len(lambdas))
    eigenvalues, Q = kept_eigenpairs(phi_de, lambdas)
    QT = Q.T
    ulsif_loocv_scores(
        eigenvalues, Q, QT @ X_de, QT @ X_nu, QT @ h, X_de, X_nu, h, n_de, n_nu, lambdas, scores
    )
    return scores


@cite_papers
class ULSIF(DensityRatioEstimator):
    """uLSIF: the density ratio as a Gaussian expansion fitted by least squares in closed form.

    The ratio is modelled as ``w(x) = sum_l alpha_l k(x, c_l)`` with ``b`` centres ``c_l`` drawn
    from the target (numerator) sample, and fitted by minimising the regularised squared error
    of eqs. 3.24-3.27: ``alpha = max(0, (H + lambda I)^-1 h)`` (eq. 3.28), with
    ``H = mean_source phi phi'`` and ``h = mean_target phi``. The width and the ridge are chosen by
    the closed-form leave-one-out score of Kanamori et al. (2009) over a grid (Algorithm 4).

    Parameters
    ----------
    sigma
        Gaussian width; None chooses it by leave-one-out over ``sigma_factors`` times the median
        pairwise distance of the pooled samples.
    ridge
        The ridge ``lambda`` of eq. 3.28; None chooses it by leave-one-out over ``lambda_grid``.
        The old spelling ``lambda_`` still works until 0.4, with a ``DeprecationWarning``.
    n_centres
        Number of centres ``b`` (at most the target's size).
    sigma_factors
        Width candidates as multiples of the median distance (default ``logspace(-3, 1, 9)``).
    lambda_grid
        Ridge candidates (default ``logspace(-3, 1, 9)``).
    seed
        Seed of the centres, the shuffles of the leave-one-out pairs and the median subsample.

    Attributes
    ----------
    alpha_
        Coefficients of the centres.
    centres_
        The centres.
    sigma_, ridge_
        The width and ridge used: chosen by the leave-one-out, or ``sigma`` and ``ridge`` when
        given (``ridge`` itself stays the parameter, None when it was chosen).
    loocv_
        Leave-one-out score of every ``(sigma, lambda)`` candidate, rows by sigma.

    Examples
    --------

    A target narrower than the source and shifted to the right; the width and the ridge are
    chosen together, the best of a 9 x 9 grid by the closed-form leave-one-out score:

    >>> import numpy as np
    >>> from imbalance_stream.density_ratio import ULSIF
    >>> rng = np.random.default_rng(0)
    >>> source, target = rng.normal(0.0, 1.0, (500, 1)), rng.normal(1.0, 0.5, (500, 1))
    >>> ratio = ULSIF(seed=0).fit(source, target)
    >>> ratio.loocv_.shape, round(ratio.sigma_, 3), round(ratio.ridge_, 3)
    ((9, 9), 0.26, 0.316)
    >>> ratio.weight([[-1.0], [1.0]]).round(2)
    array([0.  , 3.26])

    %(references_kanamori_2009)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.4, Algorithm 4.

    """

    sigma: float | None
    ridge: float | None
    n_centres: int
    sigma_factors: tuple | None
    lambda_grid: tuple | None
    seed: int | None

    @renamed_parameters(lambda_="ridge")
    @checked_init
    def __init__(
        self,
        sigma: float | None = None,
        ridge: float | None = None,
        n_centres: int = 100,
        sigma_factors: tuple | None = None,
        lambda_grid: tuple | None = None,
        seed: int | None = None,
    ): ...  # each parameter checked by its rule and set (checked_init)

    PARAMETER_RULES = {
        "sigma": WIDTH,
        "ridge": functools.partial(check_real, low=0.0, optional=True),
        "n_centres": COUNT,
        "seed": SEED,
    }
    SELECTED = {"sigma": "sigma_", "ridge": "ridge_"}

    lambda_chosen_ = renamed_attribute("lambda_chosen_", "ridge_")

    def _fit(self, source: np.ndarray, target: np.ndarray) -> None:
        rng = np.random.default_rng(self.seed)
        b = min(self.n_centres, target.shape[0])
        self.centres_ = target[rng.choice(target.shape[0], b, replace=False)]
        sigmas = (
            [self.sigma]
            if self.sigma is not None
            else median_distance(np.vstack([source, target]), self.seed)
            * np.asarray(self.sigma_factors if self.sigma_factors is not None else SIGMA_FACTORS)
        )
        lambdas = np.asarray(
            [self.ridge]
            if self.ridge is not None
            else (self.lambda_grid if self.lambda_grid is not None else LAMBDA_GRID)
        )
        # The leave-one-out pairs are the first rows of each shuffled sample; the distances to
        # the centres do not depend on the width, so they are computed once for the whole grid.
        d2_de = sq_distances(self.centres_, source[rng.permutation(source.shape[0])])
        d2_nu = sq_distances(self.centres_, target[rng.permutation(target.shape[0])])
        self.loocv_ = np.full((len(sigmas), len(lambdas)), np.inf)
        if len(sigmas) * len(lambdas) > 1:
            if min(source.shape[0], target.shape[0]) < 2:
                raise ValueError(
                    "uLSIF's leave-one-out choice of sigma and ridge needs at least 2 rows in "
                    f"each sample (got {source.shape[0]} and {target.shape[0]}); give sigma and "
                    "ridge to fit on fewer"
                )
            for row, sigma in enumerate(sigmas):
                self.loocv_[row] = ulsif_loocv(
                    gaussian_of_distances(d2_de, sigma),
                    gaussian_of_distances(d2_nu, sigma),
                    lambdas,
                )
        best_row, best_column = (
            int(i) for i in np.unravel_index(int(np.argmin(self.loocv_)), self.loocv_.shape)
        )
        self.sigma_, self.ridge_ = float(sigmas[best_row]), float(lambdas[best_column])
        # H and h are means over the samples, so the shuffled order gives the same statistics
        phi_de = gaussian_of_distances(d2_de, self.sigma_)
        H = phi_de @ phi_de.T / source.shape[0]
        h = gaussian_of_distances(d2_nu, self.sigma_).mean(1)
        self.alpha_ = ulsif_alpha(H, h, self.ridge_)

    def _weight(self, X: np.ndarray) -> np.ndarray:
        return gaussian_gram(X, self.centres_, self.sigma_) @ self.alpha_

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"sigma": 1.0, "ridge": 0.1, "n_centres": 20, "seed": 2}
