"""Locally adaptive kernel mean matching as a novelty detector (Algorithm 9)."""

from __future__ import annotations

import numpy as np
from scipy import linalg

from imbalance_stream._numba.density_ratio import kth_smallest, local_gaussian_sum
from imbalance_stream.base.validation import check_int, check_real
from imbalance_stream.density_ratio import KMM
from imbalance_stream.density_ratio.bandwidths import knn_bandwidths
from imbalance_stream.density_ratio.gaussian import local_gram
from imbalance_stream.density_ratio.kmm_solvers import (
    central_path_weights,
    solve_kmm,
)
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import DensityRatioNovelty, interior_point_test_params, stream_test_params

__all__ = ["LocKMMNovelty"]


@preset(
    "k",
    "B",
    "epsilon",
    "epsilon_shift",
    "tol",
    "max_iter",
    WINDOWS,
    "solver",
    like=KMM,
    k=7,
    epsilon=1e-10,
    epsilon_shift=1e-10,
)
@shared_parameter_docs
class LocKMMNovelty(Preset, DensityRatioNovelty):
    """locKMM: kernel mean matching with a locally adaptive Gaussian kernel (Algorithm 9).

    Each point of the pooled windows gets its own width ``s_i``, its distance to its ``k``-th
    nearest other point (D-DR-5), and the kernel between two points is
    ``exp(-||a - b||^2 / (2 s_a s_b))`` (eq. 5.7): wide in sparse regions, narrow in dense ones, so
    a small cluster of novelties inside the normal data's range is still resolved. That kernel
    matrix need not be positive semi-definite; Algorithm 9 shifts its diagonal by
    ``delta = max(0, -lambda_min)`` plus ``epsilon_shift`` before solving the KMM programme of
    eq. 5.3 (weights ``r`` on the test points, ``0 <= r <= B``, ``|mean(r) - 1| <= epsilon``).
    The score is ``-log r``; test points whose weight is 0 are ordered by the multiplier of
    their bound, as an interior-point solver orders them (D-DR-51). A point that was not in the
    test window gets its width from the windows, then the solution smoothed over the test window
    with its own weight counted as 0 (D-DR-2), in one jitted pass over the windows.

    Parameters
    ----------
    k
        Neighbour rank of the local widths (7 in the thesis).
    %(B)s
    epsilon
        Normalisation slack (``1e-10``).
    epsilon_shift
        Added to the diagonal shift so that the shifted matrix is strictly positive definite
        (kept apart from ``epsilon``, D-DR-7).
    %(kmm_solver_limits)s
    %(novelty_windows)s
    seed
        Unused (locKMM makes no random choice); kept so that every detector takes the same
        arguments.
    solver
        ``"fista"`` or ``"interior-point"`` (cvxopt; the thesis solved locKMM with an
        interior-point method), as in :class:`~imbalance_stream.density_ratio.KMM`.

    Attributes
    ----------
    shift_
        The diagonal shift ``delta`` of the last refresh.
    weights_
        The solution of the last refresh at the test window's points, in the window's order
        (zero weights as the programme gives them, not ordered).

    Examples
    --------

    The thesis's two-sample setting: normal data through ``learn_one``, the data to screen
    through ``observe_one``, then one exact solve:

    >>> from river import datasets
    >>> from imbalance_stream.anomaly import LocKMMNovelty
    >>> from imbalance_stream.metrics.batch import roc_auc
    >>> stream = list(datasets.Shuttle().take(1500))
    >>> detector = LocKMMNovelty()
    >>> for x, y in stream[:1000]:
    ...     if not y:
    ...         detector.learn_one(x)
    >>> for x, _ in stream[1000:]:
    ...     detector.observe_one(x)
    >>> detector.refresh()
    True
    >>> scores = [detector.score_one(x) for x, _ in stream[1000:]]
    >>> round(roc_auc(scores, [y for _, y in stream[1000:]]), 3)
    0.743

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 5.3, eq. 5.7 and Algorithm 9.

    """

    TRANSDUCTIVE = True

    def _set_own_params(self, k, B, epsilon, epsilon_shift, tol, max_iter, solver) -> None:
        self.k = check_int("k", k, low=1)
        # KMM's rules for the settings of its programme (B below 1 puts mean(r) = 1 out of reach)
        checked = KMM.check_params(B=B, tol=tol, max_iter=max_iter, solver=solver)
        self.B, self.tol, self.max_iter = checked["B"], checked["tol"], checked["max_iter"]
        self.solver = checked["solver"]
        self.epsilon = check_real("epsilon", epsilon, low=0.0)
        self.epsilon_shift = check_real("epsilon_shift", epsilon_shift, low=0.0)

    def _solve(self, reference: np.ndarray, test: np.ndarray) -> np.ndarray:
        pooled = np.vstack([reference, test])
        widths = self._local_widths(pooled, reference_size=len(reference))
        s_reference, s_test = widths[: len(reference)], widths[len(reference) :]
        K = local_gram(test, s_test, test, s_test)
        k = (len(test) / len(reference)) * local_gram(test, s_test, reference, s_reference).sum(1)
        smallest = float(linalg.eigvalsh(K, subset_by_index=[0, 0])[0])
        self.shift_ = max(0.0, -smallest)
        K[np.diag_indices_from(K)] += self.shift_ + self.epsilon_shift
        weights, self.n_iter_, self.residual_ = solve_kmm(
            K, k, self.B, self.epsilon, self.tol, self.max_iter, solver=self.solver
        )
        self._pooled, self._widths = pooled, widths
        self._test_rows, self._test_widths, self.weights_ = test, s_test, weights
        self._width_floor = float(widths.min())
        # the observed points' zero weights in the order of their multipliers (D-DR-51); new
        # points are smoothed over the solution itself
        return central_path_weights(K, k, weights, self.tol)

    def _local_widths(self, pooled: np.ndarray, reference_size: int) -> np.ndarray:
        """Eq. 5.7's ``s_i`` of the pooled windows (reference rows first): each point's
        distance to its ``k``-th nearest other point of the pool (D-DR-5)."""
        return knn_bandwidths(pooled, self.k)

    def _inlier(self, vector: np.ndarray) -> float:
        pooled = self._pooled
        width = kth_smallest(pooled, len(pooled), vector, self.k, -1, np.empty(len(pooled)))
        width = max(width, self._width_floor)
        test, s_test = self._test_rows, self._test_widths
        matched = local_gaussian_sum(test, len(test), vector, width, s_test, self.weights_, -1)
        mass = local_gaussian_sum(test, len(test), vector, width, s_test, np.empty(0), -1)
        return matched / (1.0 + mass)

    @classmethod
    def _unit_test_params(cls):
        yield from stream_test_params({}, {"k": 3})
        yield from interior_point_test_params()  # with the optional qp extra only
