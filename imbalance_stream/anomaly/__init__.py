"""Novelty and anomaly detectors on River's ``AnomalyDetector`` protocol.

The density-ratio detectors of Chapter 5 of Miao (2015) compare a reference sample of normal
behaviour with the data to screen through the ratio of their densities: :class:`KMMNovelty`,
:class:`LocKMMNovelty` (locally adaptive kernels, Algorithm 9), :class:`ULSIFNovelty`,
:class:`KLIEPNovelty`, and the kernel-density baseline :class:`KDENovelty`. All share the windows,
the two operating modes and the refresh of :class:`DensityRatioNovelty`.
"""

from .base import DensityRatioNovelty
from .kde_novelty import KDENovelty
from .kliep_novelty import KLIEPNovelty
from .kmm_novelty import KMMNovelty
from .lockmm_novelty import LocKMMNovelty
from .ulsif_novelty import ULSIFNovelty

__all__ = [
    "DensityRatioNovelty",
    "KDENovelty",
    "KLIEPNovelty",
    "KMMNovelty",
    "LocKMMNovelty",
    "ULSIFNovelty",
]
