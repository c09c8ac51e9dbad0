"""Kernel learners: KOIL and its multiple-kernel version (seed 000), the budget kernel baselines
and, as they land, the LASVM family (seed 003)."""

from .forgetron import Forgetron
from .koil import KOIL
from .koil_mkl import KOILMKL
from .norma import NORMA
from .projectron import Projectron, ProjectronPlusPlus
from .rbp import RBP

__all__ = [
    "KOIL",
    "KOILMKL",
    "NORMA",
    "RBP",
    "Forgetron",
    "Projectron",
    "ProjectronPlusPlus",
]
