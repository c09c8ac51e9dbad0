"""Kernel mean matching as a novelty detector."""

from __future__ import annotations

from imbalance_stream.density_ratio import KMM
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import EstimatorNovelty, interior_point_test_params

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
    sigma
        Gaussian width in the ``exp(-||a - b||^2 / (2 sigma^2))`` convention; None takes the median
        pairwise distance of the windows at each refresh (the thesis's choice for KMM).
    B
        Upper bound of each weight (1000 in the thesis).
    epsilon
        Normalisation slack (``1e-10`` in Chapter 5); None gives ``(sqrt(m) - 1) / sqrt(m)`` for
        ``m`` test points, as :class:`~imbalance_stream.density_ratio.KMM`.
    tol
        Stopping tolerance of the solver (see ``solver``).
    max_iter
        Iteration cap of the solver.
    mode
        ``"two-sample"``: ``learn_one`` takes normal data, ``observe_one`` the data to screen.
        ``"stream"``: one stream through ``learn_one``, the recent ``n_test`` points against the
        ``n_reference`` before them. See
        :class:`~imbalance_stream.anomaly.base.DensityRatioNovelty`.
    %(novelty_windows)s
    seed
        Seed of the subsample that estimates the median distance on large windows.
    solver
        ``"fista"`` or ``"interior-point"`` (cvxopt), as in
        :class:`~imbalance_stream.density_ratio.KMM`.
    %(reselect_every)s
        width and start the solver from the last solution at the test points still held.

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

    References
    ----------
    Huang, J., Smola, A. J., Gretton, A., Borgwardt, K. M. and Schölkopf, B. (2007). Correcting
    sample selection bias by unlabeled data. NIPS 19.

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 5.2, eq. 5.3.

    """

    ESTIMATOR = KMM
    TRANSDUCTIVE = True

    @classmethod
    def _unit_test_params(cls):
        # windows small enough that the checks' first samples already refresh: they then
        # exercise the solved detector, not only the warm-up (which scores 0 unread)
        yield {"mode": "stream", "n_reference": 20, "n_test": 10, "refresh_every": 10}
        yield {
            "sigma": 50.0,
            "mode": "stream",
            "n_reference": 16,
            "n_test": 8,
            "refresh_every": 8,
        }
        yield from interior_point_test_params()  # with the optional qp extra only
