"""KLIEP as a novelty detector."""

from __future__ import annotations

from imbalance_stream.density_ratio import KLIEP
from imbalance_stream.density_ratio.windowed import WINDOWS, Preset, preset, shared_parameter_docs

from .base import EstimatorNovelty, stream_test_params

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
    %(n_centres_reference)s
    %(n_folds_likelihood)s
    %(novelty_windows)s
    %(seed_likelihood)s
    %(reselect_every)s

    Examples
    --------

    A stream of image segments in which grass, unseen until then, appears at step 1000 (5 % of
    the samples from there on): scored before learning, the grass segments rank above the rest.

    >>> from river import datasets
    >>> from imbalance_stream.anomaly import KLIEPNovelty
    >>> from imbalance_stream.datasets import NoveltyStream
    >>> from imbalance_stream.metrics import ExactROCAUC
    >>> stream = NoveltyStream(datasets.ImageSegments(), emerging="grass", emerge_at=1000,
    ...                        novelty_rate=0.05, seed=1)
    >>> detector = KLIEPNovelty(mode="stream", n_reference=200, n_test=50, seed=0)
    >>> auc = ExactROCAUC()
    >>> for t, (x, is_novel) in enumerate(stream):
    ...     score = detector.score_one(x)
    ...     if t >= 1000:
    ...         auc.update(is_novel, score)
    ...     detector.learn_one(x)
    >>> auc
    ExactROCAUC: 70.02%

    %(references_sugiyama_2008)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.3, Algorithms 2 and 3.

    """

    ESTIMATOR = KLIEP

    @classmethod
    def _unit_test_params(cls):
        yield from stream_test_params({"seed": 1}, {"sigma": 50.0, "n_centres": 20, "seed": 2})
