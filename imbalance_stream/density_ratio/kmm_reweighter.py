"""Kernel mean matching as a stream re-weighter."""

from __future__ import annotations

from .kmm import KMM
from .reweighter import EstimatorReweighter
from .windowed import WINDOWS, Preset, preset, shared_parameter_docs

__all__ = ["KMMReweighter"]


@preset("sigma", "B", "epsilon", "tol", "max_iter", WINDOWS, "reselect_every")
@shared_parameter_docs
class KMMReweighter(Preset, EstimatorReweighter):
    """Importance weights by kernel mean matching (Algorithm 1) on a source and a target window.

    At a refresh, KMM (eq. 3.14) finds weights ``b`` on the source window that make its weighted
    mean in a Gaussian kernel's feature space match the target window's:
    ``min 1/2 b'Kb - k'b`` over ``0 <= b_i <= B``, ``|mean(b) - 1| <= epsilon``. The solution
    exists at the source points: ``weight_one`` of a point that was in the source window at the
    refresh returns its solved weight, and any other point gets the solution smoothed over the
    source window, its own weight counted as 0 (D-DR-2). Weights are then normalised to mean 1
    over the source window (D-DR-13) and clipped at ``clip`` if given.

    Cost. A refresh computes the source window's Gram matrix and its kernel sums against the
    target window, then solves the programme. A refresh that holds the width starts from the
    last solution and solves by proximal active-set steps (``KMM.fit``'s warm solver): on 500
    source rows of River's SEA against 200 target rows, about 400 products with the 500 x 500
    Gram matrix (at most about 950), some 20 ms. A refresh that selects the width, the first
    and every ``reselect_every``-th, solves from 1 by the batch estimator's first-order solver,
    number for number: about 2,300 iterations of two such products, and an eigenvalue solve,
    some 0.2 s, so ``reselect_every=1`` costs several times the default.

    Parameters
    ----------
    %(sigma_median)s
    %(B)s
    epsilon
        Normalisation slack; None gives ``(sqrt(m) - 1) / sqrt(m)`` for ``m`` source points
        (Chapters 4 and 6).
    %(kmm_solver_limits)s
    %(n_source)s
    %(reweighter_windows)s
    %(seed_median)s
    %(reselect_every_warm)s

    Examples
    --------

    Phishing pages: the first 300 as labelled history, the next 200 as today's unlabelled
    traffic; the history is weighted towards today's pages:

    >>> from river import datasets
    >>> from imbalance_stream.density_ratio import KMMReweighter
    >>> data = list(datasets.Phishing())
    >>> reweighter = KMMReweighter()
    >>> for x, y in data[:300]:
    ...     reweighter.learn_source_one(x, y)
    >>> for x, _ in data[300:500]:
    ...     reweighter.learn_target_one(x)
    >>> reweighter.refresh()
    True
    >>> weights = [reweighter.weight_one(x) for x, _ in data[:300]]
    >>> round(sum(weights) / len(weights), 6)
    1.0
    >>> round(min(weights), 3), round(max(weights), 3)
    (0.0, 14.033)

    %(references_huang_2007)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Algorithm 1 and Section 3.3.1.

    """

    ESTIMATOR = KMM
    TRANSDUCTIVE = True

    @classmethod
    def _unit_test_params(cls):
        yield {"n_source": 100, "n_target": 50, "refresh_every": 50}
        yield {"sigma": 2.0, "B": 20.0, "n_source": 60, "n_target": 40, "clip": 5.0}
        # the median width held, warm starts at every refresh after the first
        yield {"n_source": 40, "n_target": 20, "refresh_every": 10, "reselect_every": None}
