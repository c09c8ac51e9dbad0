"""Kullback-Leibler importance estimation."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba.density_ratio import kliep_ascent

from ._docs import cite_papers
from .bandwidths import SIGMA_FACTORS, median_distance
from .base import COUNT, FOLDS, SEED, WIDTH, DensityRatioEstimator, checked_init
from .gaussian import gaussian_gram, gaussian_of_distances, sq_distances

__all__ = ["KLIEP", "kliep_fit"]

#: Step sizes tried in turn, each for at most 100 accepted iterations, as in Sugiyama's reference
#: implementation of Algorithm 2.
STEPS = 10.0 ** np.arange(3, -4, -1)


def kliep_fit(A: np.ndarray, xi: np.ndarray, max_iter: int = 100) -> np.ndarray:
    """Algorithm 2 from ``alpha = 1``: the ascent of :func:`kliep_ascent` at each step of
    :data:`STEPS`. ``A`` is ``n x b`` (basis functions at the numerator sample), ``xi`` the mean
    basis function over the denominator sample. Returns ``alpha``."""
    alpha = np.ones(A.shape[1])
    mass = xi @ alpha
    if not mass > 1e-150:
        # the basis vanishes on the denominator sample (a width far too small): no ratio can
        # meet the normalisation, and the zero model scores lowest in cross-validation
        return np.zeros(A.shape[1])
    alpha /= mass
    A = np.ascontiguousarray(A)
    for step in STEPS:
        kliep_ascent(A, xi, alpha, float(step), max_iter)
    return alpha


@cite_papers
class KLIEP(DensityRatioEstimator):
    """KLIEP: the density ratio that minimises the KL divergence to the target, with likelihood
    cross-validation of the kernel width.

    The ratio is ``w(x) = sum_l alpha_l k(x, c_l)`` with ``b`` centres from the target (numerator)
    sample, fitted by maximising ``sum_j log w(x'_j)`` over the target subject to
    ``(1/m) sum_i w(x_i) = 1`` over the source and ``alpha >= 0`` (eqs. 3.21-3.22 with the
    ``1/m`` of Algorithm 2, D-DR-4), by the projected gradient ascent of Algorithm 2. The width
    is chosen by likelihood cross-validation over the target (Algorithm 3).

    Parameters
    ----------
    sigma
        Gaussian width; None chooses it by ``n_folds``-fold likelihood cross-validation over
        ``sigma_factors`` times the median distance of the pooled samples.
    n_centres
        Number of centres ``b`` (at most the target's size).
    n_folds
        Folds of the likelihood cross-validation (5 in Chapter 4, 10 in Chapter 6).
    sigma_factors
        Width candidates as multiples of the median distance (default ``logspace(-3, 1, 9)``).
    seed
        Seed of the centres, the folds and the median subsample.

    Attributes
    ----------
    alpha_, centres_, sigma_
        The fitted expansion.
    lcv_
        Cross-validated log-likelihood of every width candidate.

    Examples
    --------

    A target narrower than the source and shifted to the right; the width is the best of nine
    multiples of the median distance by likelihood cross-validation:

    >>> import numpy as np
    >>> from imbalance_stream.density_ratio import KLIEP
    >>> rng = np.random.default_rng(0)
    >>> ratio = KLIEP(seed=0).fit(rng.normal(0.0, 1.0, (300, 1)), rng.normal(1.0, 0.5, (300, 1)))
    >>> len(ratio.lcv_), round(ratio.sigma_, 3)
    (9, 0.085)
    >>> ratio.weight([[-1.0], [0.0], [1.0]]).round(2)
    array([0.07, 0.21, 3.79])

    %(references_sugiyama_2008)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.3, Algorithms 2 and 3.

    """

    sigma: float | None
    n_centres: int
    n_folds: int
    sigma_factors: tuple | None
    seed: int | None

    @checked_init
    def __init__(
        self,
        sigma: float | None = None,
        n_centres: int = 100,
        n_folds: int = 5,
        sigma_factors: tuple | None = None,
        seed: int | None = None,
    ): ...  # each parameter checked by its rule and set (checked_init)

    PARAMETER_RULES = {"sigma": WIDTH, "n_centres": COUNT, "n_folds": FOLDS, "seed": SEED}
    SELECTED = {"sigma": "sigma_"}

    def _fit(self, source: np.ndarray, target: np.ndarray) -> None:
        rng = np.random.default_rng(self.seed)
        b = min(self.n_centres, target.shape[0])
        self.centres_ = target[rng.choice(target.shape[0], b, replace=False)]
        if self.sigma is not None:
            sigmas = np.array([self.sigma])
        else:
            factors = self.sigma_factors if self.sigma_factors is not None else SIGMA_FACTORS
            sigmas = median_distance(np.vstack([source, target]), self.seed) * np.asarray(factors)
        self.lcv_ = np.full(len(sigmas), -np.inf)
        if len(sigmas) > 1:
            folds = rng.permutation(target.shape[0]) % min(self.n_folds, target.shape[0])
            splits = _fold_distances(source, target, folds, b, rng)
            for position, sigma in enumerate(sigmas):
                self.lcv_[position] = _likelihood_cv(splits, sigma)
        self.sigma_ = float(sigmas[int(np.argmax(self.lcv_))])
        A = gaussian_gram(target, self.centres_, self.sigma_)
        xi = gaussian_gram(source, self.centres_, self.sigma_).mean(0)
        self.alpha_ = kliep_fit(A, xi)

    def _weight(self, X: np.ndarray) -> np.ndarray:
        return gaussian_gram(X, self.centres_, self.sigma_) @ self.alpha_

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"sigma": 1.0, "n_centres": 20, "seed": 2}


def _fold_distances(source, target, folds, b, rng) -> list:
    """The squared distances each fold of Algorithm 3 needs, computed once for every width: the
    target rows the fold fits on, its held-out rows and the source, each to the fold's centres.

    Algorithm 3 fits KLIEP on the target without the held-out fold, and Algorithm 2 draws that
    fit's ``b`` centres from the sample it is given, so a held-out point is never a centre. (Were
    it one, its held-out likelihood would grow without bound as the width shrinks: with no more
    target points than centres, every point is a centre and the cross-validation would choose a
    width that gives the ratio 0 almost everywhere.)
    """
    splits = []
    for fold in np.unique(folds):
        fitted = np.flatnonzero(folds != fold)
        centres = target[rng.choice(fitted, min(b, fitted.size), replace=False)]
        splits.append(
            (
                sq_distances(target[fitted], centres),
                sq_distances(target[folds == fold], centres),
                sq_distances(source, centres),
            )
        )
    return splits


def _likelihood_cv(splits: list, sigma: float) -> float:
    """Algorithm 3 at one width: the sum over folds of the held-out mean log-ratio."""
    total = 0.0
    for fitted, held_out, source in splits:
        alpha = kliep_fit(
            gaussian_of_distances(fitted, sigma), gaussian_of_distances(source, sigma).mean(0)
        )
        ratio = gaussian_of_distances(held_out, sigma) @ alpha
        total += float(np.mean(np.log(np.maximum(ratio, 1e-300))))
    return total
