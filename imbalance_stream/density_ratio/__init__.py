"""Density-ratio estimation: ``w(x) = p_target(x) / p_source(x)`` from two samples.

The batch estimators of Miao (2015), Chapter 3, with scikit-learn's habits (``fit(X_source,
X_target)`` returns the estimator, ``weight(X)`` gives the ratio), usable on arrays on their own:

* :class:`KMM`: kernel mean matching (Algorithm 1), weights at the source points;
* :class:`AutoKMM`: KMM with its width chosen by the J score (Chapter 6, Algorithm 10);
* :class:`KLIEP`: KL importance estimation with likelihood cross-validation (Algorithms 2-3);
* :class:`ULSIF`: least-squares importance fitting with closed-form leave-one-out (Algorithm 4);
* :class:`KDERatio`: the two-step ratio of kernel density estimates (eqs. 3.11-3.12);
* :class:`IWLSPC`: the importance-weighted least-squares probabilistic classifier that the
  thesis trains on the weighted samples (Section 3.3.1), with importance-weighted
  cross-validation;
* :class:`DDR`: the discriminative density ratio of Chapter 4, class-wise weights with the prior
  ratio fitted on a labelled source and an unlabelled target (Algorithms 6-8), with
  :class:`WeightedTSVM` (Algorithm 5) as its learner for DDR-TSVM (Algorithm 7).

The re-weighters carry them onto a stream (River's vocabulary, feature dicts): a source window
of labelled samples and a target window of current unlabelled ones, refreshed by the batch
method, give each labelled sample its weight ``p_target(x) / p_source(x)``
(:class:`Reweighter`; :class:`KMMReweighter`, :class:`KLIEPReweighter`,
:class:`ULSIFReweighter`; :class:`DDRReweighter`, class-wise with the prior ratio and one
window per class), and :class:`ImportanceWeighted` trains any River classifier on the
weighted samples.

Gaussian kernels are written ``exp(-||a - b||^2 / (2 sigma^2))`` throughout. The streaming
detectors built on them are in :mod:`imbalance_stream.anomaly`.
"""

from .auto_kmm import AutoKMM
from .base import DensityRatioEstimator, NotFitted
from .ddr import DDR
from .ddr_reweighter import DDRReweighter
from .importance_weighted import ImportanceWeighted
from .iwlspc import IWLSPC
from .kde_ratio import KDERatio
from .kliep import KLIEP
from .kliep_reweighter import KLIEPReweighter
from .kmm import KMM
from .kmm_reweighter import KMMReweighter
from .reweighter import EstimatorReweighter, Reweighter
from .tsvm import WeightedTSVM
from .ulsif import ULSIF
from .ulsif_reweighter import ULSIFReweighter

__all__ = [
    "DDR",
    "IWLSPC",
    "KLIEP",
    "KMM",
    "ULSIF",
    "AutoKMM",
    "DDRReweighter",
    "DensityRatioEstimator",
    "EstimatorReweighter",
    "ImportanceWeighted",
    "KDERatio",
    "KLIEPReweighter",
    "KMMReweighter",
    "NotFitted",
    "Reweighter",
    "ULSIFReweighter",
    "WeightedTSVM",
]
