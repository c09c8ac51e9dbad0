"""KLIEP as a stream re-weighter."""

from __future__ import annotations

from imbalance_stream.base.windows import RESELECT_EVERY

from .kliep import KLIEP
from .reweighter import EstimatorReweighter
from .windowed import shared_parameter_docs

__all__ = ["KLIEPReweighter"]


@shared_parameter_docs
class KLIEPReweighter(EstimatorReweighter):
    """Importance weights by KLIEP (Algorithms 2-3) on a source and a target window.

    At a refresh, KLIEP models the ratio as ``w(x) = sum_l alpha_l k(x, c_l)`` with ``n_centres``
    centres drawn from the target window, maximises the target's log-likelihood under the
    normalisation ``mean_source w = 1`` (eqs. 3.19-3.22), and chooses the width by likelihood
    cross-validation (Algorithm 3). ``weight_one`` is ``w(x)`` at any point, normalised to mean 1
    over the source window (D-DR-13) and clipped at ``clip`` if given.

    Parameters
    ----------
    sigma
        Gaussian width; None chooses it by likelihood cross-validation over the median distance
        times ``logspace(-3, 1, 9)``.
    n_centres
        Number of centres drawn from the target window.
    n_folds
        Folds of the likelihood cross-validation.
    %(n_source)s
    %(reweighter_windows)s
    seed
        Seed of the centres, the folds and the median subsample.
    %(reselect_every)s
        selection.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.density_ratio import KLIEPReweighter
    >>> data = list(datasets.Phishing())
    >>> reweighter = KLIEPReweighter(seed=0)
    >>> for x, y in data[:300]:
    ...     reweighter.learn_source_one(x, y)
    >>> for x, _ in data[300:500]:
    ...     reweighter.learn_target_one(x)
    >>> reweighter.refresh()
    True
    >>> weights = [reweighter.weight_one(x) for x, _ in data[:300]]
    >>> round(sum(weights) / len(weights), 6)
    1.0

    References
    ----------
    Sugiyama, M., Suzuki, T., Nakajima, S., Kashima, H., von Bünau, P. and Kawanabe, M. (2008).
    Direct importance estimation for covariate shift adaptation. Annals of the Institute of
    Statistical Mathematics, 60(4), 699-746.

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Algorithms 2-3 and Section 3.3.1.

    """

    ESTIMATOR = KLIEP

    def __init__(
        self,
        sigma: float | None = None,
        n_centres: int = 100,
        n_folds: int = 5,
        n_source: int | None = None,
        n_target: int | None = None,
        refresh_every: int | None = None,
        clip: float | None = None,
        seed: int | None = None,
        reselect_every: int | None = RESELECT_EVERY,
    ):
        super().__init__(n_source, n_target, refresh_every, clip, seed, reselect_every)
        self._set_estimator_params(sigma=sigma, n_centres=n_centres, n_folds=n_folds)

    @classmethod
    def _unit_test_params(cls):
        yield {"n_source": 100, "n_target": 50, "refresh_every": 50, "seed": 1}
        yield {"sigma": 2.0, "n_centres": 20, "n_source": 60, "n_target": 40, "clip": 5.0}
