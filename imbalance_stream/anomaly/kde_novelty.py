"""The kernel density baseline of the novelty experiments."""

from __future__ import annotations

import numpy as np

from imbalance_stream.density_ratio import KLIEP
from imbalance_stream.density_ratio.base import FOLDS, WIDTH
from imbalance_stream.density_ratio.kde_ratio import kde_log_density, kde_sigma
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import DensityRatioNovelty, stream_test_params

__all__ = ["KDENovelty"]


@preset("sigma", "n_folds", WINDOWS, "reselect_every", like=KLIEP, n_folds=10)
@shared_parameter_docs
class KDENovelty(Preset, DensityRatioNovelty):
    """Novelty by a Gaussian kernel density estimate of the reference data: score ``-log p_R(x)``.

    The baseline of Chapter 5 (eq. 3.11 on the reference window alone): the test window plays no
    part in the score, only in the windows' bookkeeping, so the detector works in both modes like
    the ratio detectors. The width is chosen at each refresh by likelihood cross-validation over
    the reference window (eq. 3.12) unless given, at the first refresh and every
    ``reselect_every`` refreshes. Log densities are computed by log-sum-exp, so a
    point far from every reference point keeps a finite, very high score.

    Parameters
    ----------
    %(sigma_likelihood)s
    n_folds
        Folds of the likelihood cross-validation (10 in the thesis).
    %(novelty_windows)s
    seed
        Seed of the folds and the median subsample.
    %(reselect_every)s

    Examples
    --------

    Two hundred normal readings, then twenty to screen with one far from them at position 7: the
    score is minus the log density of the normal readings alone.

    >>> import random
    >>> from imbalance_stream.anomaly import KDENovelty
    >>> rng = random.Random(0)
    >>> detector = KDENovelty(seed=0)
    >>> for _ in range(200):
    ...     detector.learn_one({"a": rng.gauss(0, 1), "b": rng.gauss(0, 1)})
    >>> screened = [{"a": rng.gauss(0, 1), "b": rng.gauss(0, 1)} for _ in range(20)]
    >>> screened[7] = {"a": 3.0, "b": -3.0}
    >>> for x in screened:
    ...     detector.observe_one(x)
    >>> detector.refresh()
    True
    >>> scores = [detector.score_one(x) for x in screened]
    >>> max(range(20), key=scores.__getitem__), round(scores[7], 1), round(detector.sigma_, 3)
    (7, 9.7, 0.529)

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Sections 3.2.1 and 5.4.

    """

    def _set_own_params(self, sigma: float | None, n_folds: int) -> None:
        self.sigma = WIDTH("sigma", sigma)
        self.n_folds = FOLDS("n_folds", n_folds)

    def _solve(self, reference: np.ndarray, test: np.ndarray) -> np.ndarray:
        held = self._ratio._held_selection()
        selected: dict | None = None
        if self.sigma is not None:
            self.sigma_ = self.sigma
        elif held is not None:
            self.sigma_ = held["sigma"]
        else:
            self.sigma_ = kde_sigma(reference, self.n_folds, self.seed)[0]
        if held is None:
            selected = {} if self.sigma is not None else {"sigma": self.sigma_}
        self._ratio._selection_done(selected)
        self._reference_rows = reference
        return kde_log_density(reference, test, self.sigma_)

    def _inlier(self, vector: np.ndarray) -> float:
        return float(kde_log_density(self._reference_rows, vector[None, :], self.sigma_)[0])

    def _score(self, inlier: float) -> float:
        return -inlier  # the inlier value is already a log density

    @classmethod
    def _unit_test_params(cls):
        yield from stream_test_params({"seed": 1}, {"sigma": 50.0})
