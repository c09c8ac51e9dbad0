"""The cost-ratio rules of the cost-sensitive learners of seed 002, written once.

Each rule is a plain function, called as it is by the estimators' ``learn_one`` (no dispatch cost
on the dict path), and compiled from the same source for the jitted replay loops
(:mod:`imbalance_stream._numba.stream`), so the two paths cannot drift apart.
"""

from __future__ import annotations

from numba import njit

__all__ = ["hinge_margin_slope", "hinge_margin_slope_jit", "laplace_ratio", "laplace_ratio_jit"]


def laplace_ratio(n_positive, n_negative):
    """The Laplace estimate ``(t_n + 1) / (t_p + 1)`` of the class ratio Tn/Tp (ACOG paper,
    Section IV: the "sum" setting), from the counts including the current label."""
    return (n_negative + 1.0) / (n_positive + 1.0)


def hinge_margin_slope(y, rho, loss_one):
    """``(margin, slope)`` of the cost-sensitive hinge loss ``slope * max(0, margin - y w.x)``:
    loss I puts ``rho_y`` in the margin, loss II in the slope, with ``rho_y = rho`` for the
    positive label (``y > 0``) and 1 for the negative one (ACOG paper, Eqs. (4) and (5))."""
    rho_y = rho if y > 0 else 1.0
    if loss_one:
        return rho_y, 1.0
    return 1.0, rho_y


laplace_ratio_jit = njit(cache=True)(laplace_ratio)
hinge_margin_slope_jit = njit(cache=True)(hinge_margin_slope)
