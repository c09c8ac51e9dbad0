"""Kernel online learners with a budget on the stored vectors: KOIL and its multiple-kernel
version (seed 000, Hu et al. 2015) and the budget kernel baselines the KOIL thesis compares with
(NORMA, RBP, the Forgetron, the Projectrons), and the averaged kernel perceptron AVGPERC, the
baseline of LASVM's chapter 3 (seed 003)."""

from .averaged_perceptron import AveragedKernelPerceptron
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
    "AveragedKernelPerceptron",
    "Forgetron",
    "Projectron",
    "ProjectronPlusPlus",
]
