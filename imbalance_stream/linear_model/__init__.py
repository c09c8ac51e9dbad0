"""Linear online learners: the ACOG family (seed 002) with the first- and second-order baselines
its paper compares with, and the linear online AUC learners (OAM, OPAUC) of the KOIL thesis.

The proximal SVMs that lived here before 0.2 are in :mod:`imbalance_stream.svm`, and ``CPAPB``
is now :class:`CPA` (one class for both of the paper's cost-sensitive PA rules); the old names
still import from here, with a ``DeprecationWarning``, until 0.3.
"""

from imbalance_stream.base.deprecation import deprecated_aliases

from .acog import ACOG
from .arow import AROW
from .cog import COG
from .cpa import CPA
from .oam import OAMSeq
from .opauc import OPAUC
from .pa import PA
from .paum import PAUM
from .perceptron import Perceptron
from .romma import ROMMA
from .sacog import SACOG

__all__ = [
    "ACOG",
    "AROW",
    "COG",
    "CPA",
    "OPAUC",
    "PA",
    "PAUM",
    "ROMMA",
    "SACOG",
    "OAMSeq",
    "Perceptron",
]

__getattr__ = deprecated_aliases(
    __name__,
    {
        "CPAPB": "imbalance_stream.linear_model:CPA",
        "McIncLPSVM": "imbalance_stream.svm:MulticlassIncLPSVM",
        **{
            name: f"imbalance_stream.svm:{name}"
            for name in (
                "LPSVM",
                "WeightedLPSVM",
                "IncLPSVM",
                "DCILIncLPSVM",
                "MulticlassDCILIncLPSVM",
                "class_weights",
                "lpsvm_solution",
                "wlpsvm_solution",
            )
        },
    },
)
