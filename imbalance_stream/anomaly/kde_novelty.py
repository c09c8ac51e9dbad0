"""The kernel density baseline of the novelty experiments."""

from __future__ import annotations

import numpy as np

from imbalance_stream.density_ratio import KLIEP
from imbalance_stream.density_ratio.base import FOLDS, WIDTH
from imbalance_stream.density_ratio.kde_ratio import kde_log_density, kde_sigma
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import DensityRatioNovelty

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
    %(novelty_mode)s
    %(novelty_windows)s
    seed
        Seed of the folds and the median subsample.
    %(reselect_every)s
        selection.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.anomaly import KDENovelty
    >>> from imbalance_stream.metrics import ExactROCAUC
    >>> detector = KDENovelty(mode="stream", n_reference=200, n_test=50, refresh_every=50,
    ...                       seed=0)
    >>> auc = ExactROCAUC()
    >>> for x, y in datasets.Shuttle().take(1000):
    ...     auc.update(y, detector.score_one(x))
    ...     detector.learn_one(x)
    >>> auc
    ExactROCAUC: 83.78%

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
        # windows small enough that the checks' first samples already refresh: they then
        # exercise the solved detector, not only the warm-up (which scores 0 unread)
        yield {"mode": "stream", "n_reference": 20, "n_test": 10, "refresh_every": 10, "seed": 1}
        yield {
            "sigma": 50.0,
            "mode": "stream",
            "n_reference": 16,
            "n_test": 8,
            "refresh_every": 8,
        }
