"""Kernel mean matching as a novelty detector."""

from __future__ import annotations

from imbalance_stream.density_ratio import KMM
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import EstimatorNovelty, interior_point_test_params, stream_test_params

__all__ = ["KMMNovelty"]


@preset(
    "sigma", "B", "epsilon", "tol", "max_iter", WINDOWS, "solver", "reselect_every", epsilon=1e-10
)
@shared_parameter_docs
class KMMNovelty(Preset, EstimatorNovelty):
    """KMM novelty detection: the test window re-weighted to match the reference (eq. 5.3).

    At a refresh, kernel mean matching (Algorithm 1) finds weights ``r`` on the test points that
    make the weighted test sample match the reference sample in the Gaussian kernel's feature
    space: ``min 1/2 r'Kr - k'r`` over ``0 <= r <= B``, ``|mean(r) - 1| <= epsilon``, with ``K`` the
    test Gram matrix and ``k_i = (n_T / n_R) sum_j k(t_i, r_j)``. A test point that no reference
    point resembles gets a small weight; the score is ``-log r``. Test points whose weight is 0
    keep the order an interior-point solver gives them, by the multiplier of their bound
    (``KMM.central_weights_``, D-DR-51), instead of tying. A point that was not in the test
    window gets the solution smoothed over the test window, its own weight counted as 0
    (D-DR-2): near the solution's value among similar test points, 0 far from all of them.

    Parameters
    ----------
    %(sigma_median)s
    %(B)s
    epsilon
        Normalisation slack (``1e-10`` in Chapter 5); None gives ``(sqrt(m) - 1) / sqrt(m)`` for
        ``m`` test points, as :class:`~imbalance_stream.density_ratio.KMM`.
    %(kmm_solver_limits)s
    %(novelty_windows)s
    %(seed_median)s
    solver
        ``"fista"`` or ``"interior-point"`` (cvxopt), as in
        :class:`~imbalance_stream.density_ratio.KMM`.
    %(reselect_every_warm)s

    Examples
    --------

    A stream of space-shuttle sensor readings with rare abnormal states, scored before learning:

    >>> from river import datasets
    >>> from imbalance_stream.anomaly import KMMNovelty
    >>> from imbalance_stream.metrics import ExactROCAUC
    >>> detector = KMMNovelty(mode="stream", n_reference=200, n_test=50, refresh_every=50)
    >>> auc = ExactROCAUC()
    >>> for x, y in datasets.Shuttle().take(1000):
    ...     auc.update(y, detector.score_one(x))
    ...     detector.learn_one(x)
    >>> auc
    ExactROCAUC: 90.36%

    %(references_huang_2007)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 5.2, eq. 5.3.

    """

    ESTIMATOR = KMM
    TRANSDUCTIVE = True

    @classmethod
    def _unit_test_params(cls):
        yield from stream_test_params({}, {"sigma": 50.0})
        yield from interior_point_test_params()  # with the optional qp extra only
