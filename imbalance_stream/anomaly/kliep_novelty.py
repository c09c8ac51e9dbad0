"""KLIEP as a novelty detector."""

from __future__ import annotations

from imbalance_stream.density_ratio import KLIEP
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import EstimatorNovelty

__all__ = ["KLIEPNovelty"]


@preset("sigma", "n_centres", "n_folds", WINDOWS, "reselect_every")
@shared_parameter_docs
class KLIEPNovelty(Preset, EstimatorNovelty):
    """KLIEP novelty detection: the inlier score ``w(x) = p_R(x) / p_T(x)`` by likelihood.

    At a refresh, KLIEP (Algorithms 2 and 3) models the ratio of the reference density to the
    test density as ``w(x) = sum_l alpha_l k(x, c_l)`` with ``n_centres`` centres from the
    reference window, maximising the reference's log-likelihood of ``w`` under the normalisation
    ``mean_T w = 1``, the width chosen by likelihood cross-validation; the score is ``-log w(x)``.

    Parameters
    ----------
    %(sigma_likelihood)s
    n_centres
        Number of basis centres drawn from the reference window (100 in the thesis).
    n_folds
        Folds of the likelihood cross-validation.
    %(novelty_mode)s
    %(novelty_windows)s
    %(seed_likelihood)s
    %(reselect_every)s
        selection.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.anomaly import KLIEPNovelty
    >>> from imbalance_stream.metrics import ExactROCAUC
    >>> detector = KLIEPNovelty(mode="stream", n_reference=200, n_test=50, refresh_every=50,
    ...                         seed=0)
    >>> auc = ExactROCAUC()
    >>> for x, y in datasets.Shuttle().take(1000):
    ...     auc.update(y, detector.score_one(x))
    ...     detector.learn_one(x)
    >>> auc
    ExactROCAUC: 81.88%

    References
    ----------
    Sugiyama, M., Suzuki, T., Nakajima, S., Kashima, H., von Bünau, P. and Kawanabe, M. (2008).
    Direct importance estimation for covariate shift adaptation. Annals of the Institute of
    Statistical Mathematics 60(4).

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.3, Algorithms 2 and 3.

    """

    ESTIMATOR = KLIEP

    @classmethod
    def _unit_test_params(cls):
        # windows small enough that the checks' first samples already refresh: they then
        # exercise the solved detector, not only the warm-up (which scores 0 unread)
        yield {"mode": "stream", "n_reference": 20, "n_test": 10, "refresh_every": 10, "seed": 1}
        yield {
            "sigma": 50.0,
            "n_centres": 20,
            "mode": "stream",
            "n_reference": 16,
            "n_test": 8,
            "refresh_every": 8,
            "seed": 2,
        }
