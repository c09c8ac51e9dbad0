"""Density-ratio estimation: ``w(x) = p_target(x) / p_source(x)`` from two samples.

The batch estimators of Miao (2015), Chapter 3, with scikit-learn's habits (``fit(X_source,
X_target)`` returns the estimator, ``weight(X)`` gives the ratio), usable on arrays on their own:

* :class:`KMM`: kernel mean matching (Algorithm 1), weights at the source points;
* :class:`KLIEP`: KL importance estimation with likelihood cross-validation (Algorithms 2-3);
* :class:`ULSIF`: least-squares importance fitting with closed-form leave-one-out (Algorithm 4);
* :class:`KDERatio`: the two-step ratio of kernel density estimates (eqs. 3.11-3.12);
* :class:`IWLSPC`: the importance-weighted least-squares probabilistic classifier that the
  thesis trains on the weighted samples (Section 3.3.1), with importance-weighted
  cross-validation.

Gaussian kernels are written ``exp(-||a - b||^2 / (2 sigma^2))`` throughout. The streaming
detectors built on them are in :mod:`imbalance_stream.anomaly`.
"""

from .base import DensityRatioEstimator, NotFitted
from .ddr import DDR
from .iwlspc import IWLSPC
from .kde_ratio import KDERatio
from .kliep import KLIEP
from .kmm import KMM
from .tsvm import WeightedTSVM
from .ulsif import ULSIF

__all__ = [
    "DDR",
    "DensityRatioEstimator",
    "IWLSPC",
    "KDERatio",
    "KLIEP",
    "KMM",
    "NotFitted",
    "ULSIF",
    "WeightedTSVM",
]
