"""uLSIF as a novelty detector (the inlier-based outlier score of Hido et al.)."""

from __future__ import annotations

import numpy as np
from scipy.linalg import lapack

from imbalance_stream._numba.density_ratio import cholesky_rank_one, cholesky_solve, rank_one_update
from imbalance_stream.density_ratio import ULSIF
from imbalance_stream.density_ratio.gaussian import gaussian_gram
from imbalance_stream.density_ratio.ulsif import ulsif_alpha
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import TEST_WINDOWS, EstimatorNovelty, stream_test_params

__all__ = ["ULSIFNovelty"]


@preset("sigma", "ridge", "n_centres", WINDOWS, "reselect_every", renamed={"lambda_": "ridge"})
@shared_parameter_docs
class ULSIFNovelty(Preset, EstimatorNovelty):
    """uLSIF novelty detection: the inlier score ``w(x) = p_R(x) / p_T(x)`` fitted in closed form.

    At a refresh, uLSIF (eqs. 3.24-3.28, with the leave-one-out choice of ``sigma`` and
    ``lambda`` of Algorithm 4) models the ratio of the reference density to the test density as
    ``w(x) = sum_l alpha_l k(x, c_l)`` with ``n_centres`` centres drawn from the reference window,
    as Hido et al. (2011) do for inlier-based outlier detection; the score is ``-log w(x)``, so a
    point far from the reference data (``w = 0``) scores highest and a point where the test data
    are denser than the reference scores above a normal one. Scoring costs ``O(n_centres d)``.

    Between refreshes the fit follows the windows exactly, with the centres, ``sigma`` and
    ``lambda`` of the last refresh: the statistics of eq. 3.28, ``h`` (the mean basis vector
    over the reference) and ``H`` (the mean outer product over the test window), are updated
    with each point that enters or leaves a window (a rank-one change of ``H``, jitted) and
    ``alpha`` is solved again once per sample. While the test window is full the Cholesky factor
    of its ridged scatter follows by one rank-one update and one downdate, ``O(n_centres^2)``; it
    is rebuilt (``O(n_centres^3)``) after a refresh and while the window grows.

    Parameters
    ----------
    %(sigma_leave_one_out)s
    %(ridge)s
    %(n_centres_reference)s
    %(novelty_windows)s
    %(seed_leave_one_out)s
    %(reselect_every)s

    Examples
    --------

    Space-shuttle sensor readings with rare abnormal states, flagged by River's quantile filter
    above the 98th percentile of the scores so far (the filter keeps flagged readings from the
    detector):

    >>> from river import anomaly, datasets
    >>> from imbalance_stream.anomaly import ULSIFNovelty
    >>> detector = anomaly.QuantileFilter(
    ...     ULSIFNovelty(mode="stream", n_reference=200, n_test=50, seed=0), q=0.98
    ... )
    >>> flagged = []
    >>> for x, abnormal in datasets.Shuttle().take(1000):
    ...     if detector.classify(detector.score_one(x)):
    ...         flagged.append(abnormal)
    ...     detector.learn_one(x)
    >>> len(flagged), sum(flagged)
    (38, 20)

    References
    ----------
    Hido, S., Tsuboi, Y., Kashima, H., Sugiyama, M. and Kanamori, T. (2011). Statistical outlier
    detection using direct density ratio estimation. Knowledge and Information Systems 26(2).

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.4 and Algorithm 4.

    """

    ESTIMATOR = ULSIF

    def _solve(self, reference: np.ndarray, test: np.ndarray) -> np.ndarray:
        values = super()._solve(reference, test)
        fitted = self.estimator_
        self._reference_sum = self._phi(reference).sum(0)
        phi_test = self._phi(test)
        self._test_scatter = phi_test.T @ phi_test
        self._factor = None  # of the ridged scatter: built at the first sample after a refresh
        self._alpha = fitted.alpha_.copy()
        return values

    def _phi(self, X: np.ndarray) -> np.ndarray:
        """The basis functions at the rows of ``X`` (a vector is one row)."""
        return gaussian_gram(np.atleast_2d(X), self.estimator_.centres_, self.estimator_.sigma_)

    def _window_changed(self, is_reference, added, removed) -> None:
        if removed is None:
            phi_added, phi_removed = self._phi(added)[0], np.empty(0)
        else:  # both rows in one kernel call
            phi_added, phi_removed = self._phi(np.vstack([added, removed]))
        if is_reference:
            self._reference_sum += phi_added
            if removed is not None:
                self._reference_sum -= phi_removed
        else:
            rank_one_update(self._test_scatter, phi_added, phi_removed)
            # A full test window keeps its size, so the ridge n lambda too: the Cholesky factor
            # of S + n lambda I follows the two rank-one changes in O(b^2). A window that grows
            # changes the ridge, and a downdate that fails to round-off, rebuild it instead.
            factor = self._factor
            if factor is not None and removed is not None:
                work = np.empty_like(phi_added)
                if not (
                    cholesky_rank_one(factor, phi_added, 1.0, work)
                    and cholesky_rank_one(factor, phi_removed, -1.0, work)
                ):
                    self._factor = None
            else:
                self._factor = None

    def _windows_settled(self) -> None:
        # alpha = (H + lambda I)^-1 h with H = S / n (eq. 3.28) is n (S + n lambda I)^-1 h
        n, ridge = len(self._test), self.estimator_.ridge_
        h = self._reference_sum / len(self._reference)
        if self._factor is None:
            ridged = self._test_scatter + (n * ridge) * np.eye(h.shape[0])
            factor, info = lapack.dpotrf(ridged, lower=True, clean=True)
            if info != 0:  # round-off made it indefinite: the general solve
                self._alpha = ulsif_alpha(self._test_scatter / n, h, ridge)
                return
            self._factor = factor
        alpha = np.empty_like(h)
        cholesky_solve(self._factor, n * h, alpha)
        self._alpha = np.maximum(alpha, 0.0)

    def _inlier(self, vector: np.ndarray) -> float:
        return float(self._phi(vector)[0] @ self._alpha)

    @classmethod
    def _unit_test_params(cls):
        fixed = {"sigma": 50.0, "ridge": 0.1, "n_centres": 20, "seed": 2}
        yield from stream_test_params({"seed": 1}, fixed)
        # the width and ridge held after the first refresh, chosen again every 2
        yield {**TEST_WINDOWS, "refresh_every": 5, "seed": 3, "reselect_every": 2}
