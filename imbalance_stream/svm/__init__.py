"""Support vector machines: the batch and incremental proximal SVMs of seed 001 (LPSVM, the
weighted LPSVM, IncLPSVM and DCIL-IncLPSVM, binary and one-vs-rest multi-class) and, as it lands,
the LASVM family of seed 003.

The kernel learners that lived here before 0.2 are in :mod:`imbalance_stream.kernel`; their old
names still import from here, with a ``DeprecationWarning``, until 0.3.
"""

from imbalance_stream.base.deprecation import deprecated_aliases

from .dcil_inclpsvm import DCILIncLPSVM
from .inclpsvm import IncLPSVM
from .lasvm import LASVM
from .lpsvm import LPSVM, WeightedLPSVM, class_weights, lpsvm_solution, wlpsvm_solution
from .multiclass_dcil_inclpsvm import MulticlassDCILIncLPSVM
from .multiclass_inclpsvm import MulticlassIncLPSVM

__all__ = [
    "LASVM",
    "LPSVM",
    "DCILIncLPSVM",
    "IncLPSVM",
    "MulticlassDCILIncLPSVM",
    "MulticlassIncLPSVM",
    "WeightedLPSVM",
    "class_weights",
    "lpsvm_solution",
    "wlpsvm_solution",
]

__getattr__ = deprecated_aliases(
    __name__,
    {
        "McIncLPSVM": "imbalance_stream.svm:MulticlassIncLPSVM",
        **{
            name: f"imbalance_stream.kernel:{name}"
            for name in (
                "KOIL",
                "KOILMKL",
                "NORMA",
                "RBP",
                "Forgetron",
                "Projectron",
                "ProjectronPlusPlus",
            )
        },
    },
)
