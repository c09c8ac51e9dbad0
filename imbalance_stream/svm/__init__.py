"""Support vector machines: the batch and incremental proximal SVMs of seed 001 (LPSVM, the
weighted LPSVM, IncLPSVM and DCIL-IncLPSVM, binary and one-vs-rest multi-class) and the online
SVMs of seed 003 (LASVM; LASVM-G, LASVM-NC, LASVM-I and FULL SVM).

The kernel learners that lived here before 0.2 are in :mod:`imbalance_stream.kernel`; their old
names still import from here, with a ``DeprecationWarning``, until 0.3.
"""

from imbalance_stream.base.deprecation import deprecated_aliases

from .dcil_inclpsvm import DCILIncLPSVM
from .full_svm import FullSVM
from .inclpsvm import IncLPSVM
from .lasvm import LASVM
from .lasvm_g import LASVMG
from .lasvm_i import LASVMI
from .lasvm_nc import LASVMNC
from .lpsvm import LPSVM, WeightedLPSVM, class_weights, lpsvm_solution, wlpsvm_solution
from .multiclass_dcil_inclpsvm import MulticlassDCILIncLPSVM
from .multiclass_inclpsvm import MulticlassIncLPSVM

__all__ = [
    "LASVM",
    "LASVMG",
    "LASVMI",
    "LASVMNC",
    "LPSVM",
    "DCILIncLPSVM",
    "FullSVM",
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
