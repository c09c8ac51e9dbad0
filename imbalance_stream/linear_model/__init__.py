"""Linear online learners: the ACOG family (seed 002) and, as they land, its baselines and the
incremental proximal SVMs of seed 001."""

from .acog import ACOG
from .arow import AROW
from .cog import COG
from .cpa_pb import CPAPB
from .dcil_inclpsvm import DCILIncLPSVM
from .dcil_multiclass import MulticlassDCILIncLPSVM
from .inclpsvm import IncLPSVM
from .lpsvm import LPSVM, WeightedLPSVM, class_weights, lpsvm_solution, wlpsvm_solution
from .mc_inclpsvm import McIncLPSVM
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
    "CPAPB",
    "LPSVM",
    "OPAUC",
    "PA",
    "PAUM",
    "ROMMA",
    "SACOG",
    "DCILIncLPSVM",
    "IncLPSVM",
    "McIncLPSVM",
    "MulticlassDCILIncLPSVM",
    "OAMSeq",
    "Perceptron",
    "WeightedLPSVM",
    "class_weights",
    "lpsvm_solution",
    "wlpsvm_solution",
]
