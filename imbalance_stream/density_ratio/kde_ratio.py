"""The two-step ratio of two kernel density estimates."""

from __future__ import annotations

import numpy as np

from imbalance_stream.base.validation import check_int, check_real, check_seed

from .bandwidths import SIGMA_FACTORS, median_distance
from .base import DensityRatioEstimator
from .gaussian import gaussian_exponent, sq_distances

__all__ = ["KDERatio", "kde_log_density", "kde_sigma"]


def kde_log_density(reference: np.ndarray, X: np.ndarray, sigma: float) -> np.ndarray:
    """``log p(x)`` of the Gaussian kernel density estimate on ``reference`` (eq. 3.11), by
    log-sum-exp so that points far from every reference point keep a finite value."""
    d = reference.shape[1]
    exponent = gaussian_exponent(sq_distances(X, reference), sigma)
    # log-sum-exp with the largest term factored out; scipy.special.logsumexp computes the same
    # but costs about 100 us a call in argument handling, which dominated a detector's score_one
    peak = exponent.max(axis=1)
    log_sum = peak + np.log(np.exp(exponent - peak[:, None]).sum(axis=1))
    return log_sum - np.log(reference.shape[0]) - 0.5 * d * np.log(2.0 * np.pi * sigma * sigma)


def kde_sigma(
    X: np.ndarray, n_folds: int, seed: int | None, factors: np.ndarray | None = None
) -> tuple[float, np.ndarray]:
    """The width maximising the ``n_folds``-fold held-out log-likelihood (eq. 3.12), over
    ``factors`` times the median distance. Returns ``(sigma, scores)``."""
    rng = np.random.default_rng(seed)
    sigmas = median_distance(X, seed) * np.asarray(SIGMA_FACTORS if factors is None else factors)
    folds = rng.permutation(X.shape[0]) % max(min(n_folds, X.shape[0]), 1)
    scores = np.zeros(len(sigmas))
    if X.shape[0] < 2:
        return float(sigmas[-1]), scores
    for fold in np.unique(folds):
        train, held_out = X[folds != fold], X[folds == fold]
        for position, sigma in enumerate(sigmas):
            scores[position] += kde_log_density(train, held_out, sigma).sum()
    return float(sigmas[int(np.argmax(scores))]), scores


class KDERatio(DensityRatioEstimator):
    """The two-step density ratio: a kernel density estimate of each sample, then their quotient.

    ``w(x) = p_target(x) / p_source(x)`` with each density a Gaussian kernel density estimate
    (eq. 3.11) whose width is chosen by likelihood cross-validation (eq. 3.12). The thesis uses it
    as the two-step baseline of Chapter 6, and the same density estimate, on the reference data,
    as the KDE novelty baseline of Chapter 5.

    Parameters
    ----------
    sigma_source, sigma_target
        Widths of the two estimates; None chooses each by cross-validation over
        ``sigma_factors`` times that sample's median distance.
    n_folds
        Folds of the likelihood cross-validation (10 in the thesis).
    sigma_factors
        Width candidates as multiples of the median distance (default ``logspace(-3, 1, 9)``).
    seed
        Seed of the folds and the median subsample.

    Examples
    --------

    A target that is the source's positive half, as a selection would leave it: the ratio is 2
    there and 0 on the other half, each density at the width its own sample chose:

    >>> import numpy as np
    >>> from imbalance_stream.density_ratio import KDERatio
    >>> source = np.random.default_rng(0).normal(size=(400, 1))
    >>> ratio = KDERatio(seed=0).fit(source, source[source[:, 0] > 0])
    >>> round(ratio.sigma_source_, 3), round(ratio.sigma_target_, 3)
    (0.299, 0.167)
    >>> ratio.weight([[-1.0], [1.0]]).round(1)
    array([0. , 2.1])

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.1, eqs. 3.11-3.12.

    """

    def __init__(
        self,
        sigma_source: float | None = None,
        sigma_target: float | None = None,
        n_folds: int = 10,
        sigma_factors: tuple | None = None,
        seed: int | None = None,
    ):
        self.sigma_source = check_real(
            "sigma_source", sigma_source, low=0.0, low_open=True, optional=True
        )
        self.sigma_target = check_real(
            "sigma_target", sigma_target, low=0.0, low_open=True, optional=True
        )
        self.n_folds = check_int("n_folds", n_folds, low=2)
        self.sigma_factors = sigma_factors
        self.seed = check_seed(seed)

    def _fit(self, source: np.ndarray, target: np.ndarray) -> None:
        factors = None if self.sigma_factors is None else np.asarray(self.sigma_factors)
        self.sigma_source_ = (
            self.sigma_source
            if self.sigma_source is not None
            else kde_sigma(source, self.n_folds, self.seed, factors)[0]
        )
        self.sigma_target_ = (
            self.sigma_target
            if self.sigma_target is not None
            else kde_sigma(target, self.n_folds, self.seed, factors)[0]
        )
        self._source, self._target = source, target

    def _weight(self, X: np.ndarray) -> np.ndarray:
        log_ratio = kde_log_density(self._target, X, self.sigma_target_) - kde_log_density(
            self._source, X, self.sigma_source_
        )
        return np.exp(np.minimum(log_ratio, 700.0))

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"sigma_source": 1.0, "sigma_target": 0.5}
