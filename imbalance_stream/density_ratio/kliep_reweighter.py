"""KLIEP as a stream re-weighter."""

from __future__ import annotations

from .kliep import KLIEP
from .reweighter import EstimatorReweighter
from .windowed import WINDOWS, Preset, preset, shared_parameter_docs

__all__ = ["KLIEPReweighter"]


@preset("sigma", "n_centres", "n_folds", WINDOWS, "reselect_every")
@shared_parameter_docs
class KLIEPReweighter(Preset, EstimatorReweighter):
    """Importance weights by KLIEP (Algorithms 2-3) on a source and a target window.

    At a refresh, KLIEP models the ratio as ``w(x) = sum_l alpha_l k(x, c_l)`` with ``n_centres``
    centres drawn from the target window, maximises the target's log-likelihood under the
    normalisation ``mean_source w = 1`` (eqs. 3.19-3.22), and chooses the width by likelihood
    cross-validation (Algorithm 3). ``weight_one`` is ``w(x)`` at any point, normalised to mean 1
    over the source window (D-DR-13) and clipped at ``clip`` if given.

    Parameters
    ----------
    %(sigma_likelihood)s
    %(n_centres_target)s
    %(n_folds_likelihood)s
    %(n_source)s
    %(reweighter_windows)s
    %(seed_likelihood)s
    %(reselect_every)s

    Examples
    --------

    River's bananas, where the labelled history kept every point of the left half of the plane
    (feature ``"1"`` below 0) but one in four of the right half, and the unlabelled present
    comes from all of it: the history's points on the right are weighted up, on the left down.

    >>> from river import datasets
    >>> from imbalance_stream.density_ratio import KLIEPReweighter
    >>> data = list(datasets.Bananas())
    >>> reweighter = KLIEPReweighter(seed=0)
    >>> for i, (x, y) in enumerate(data[:600]):
    ...     if x["1"] < 0 or i % 4 == 0:
    ...         reweighter.learn_source_one(x, y)
    >>> for x, _ in data[600:900]:
    ...     reweighter.learn_target_one(x)
    >>> reweighter.refresh()
    True
    >>> left, right = {"1": -1.0, "2": 0.0}, {"1": 1.0, "2": 0.0}
    >>> round(reweighter.weight_one(left), 2), round(reweighter.weight_one(right), 2)
    (0.71, 2.88)

    %(references_sugiyama_2008)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Algorithms 2-3 and Section 3.3.1.

    """

    ESTIMATOR = KLIEP

    @classmethod
    def _unit_test_params(cls):
        yield {"n_source": 100, "n_target": 50, "refresh_every": 50, "seed": 1}
        yield {"sigma": 2.0, "n_centres": 20, "n_source": 60, "n_target": 40, "clip": 5.0}
