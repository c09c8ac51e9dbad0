"""Linear online learners: the ACOG family (seed 002) and, as they land, its baselines and the
incremental proximal SVMs of seed 001."""

from .acog import ACOG
from .dcil_inclpsvm import DCILIncLPSVM
from .dcil_multiclass import MulticlassDCILIncLPSVM
from .inclpsvm import IncLPSVM
from .mc_inclpsvm import McIncLPSVM
from .lpsvm import LPSVM, WeightedLPSVM, class_weights, lpsvm_solution, wlpsvm_solution
from .oam import OAMSeq
from .opauc import OPAUC
from .sacog import SACOG

__all__ = [
    "ACOG",
    "DCILIncLPSVM",
    "IncLPSVM",
    "LPSVM",
    "McIncLPSVM",
    "MulticlassDCILIncLPSVM",
    "OAMSeq",
    "OPAUC",
    "SACOG",
    "WeightedLPSVM",
    "class_weights",
    "lpsvm_solution",
    "wlpsvm_solution",
]
