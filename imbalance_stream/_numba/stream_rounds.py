"""One learning round of each family, as its ``learn_one`` takes it, shared by the array runners
(:mod:`~imbalance_stream._numba.stream_replay`) and the steps runners
(:mod:`~imbalance_stream._numba.stream_steps`) of :mod:`imbalance_stream._numba.stream`: the label
count and the cost ratio in force, ACOG's round, the baselines' steps (by ``kind``), and the check
of what a SACOG round wrote.
"""

from __future__ import annotations

import math

from numba import njit

from .cost import hinge_margin_slope_jit, laplace_ratio_jit
from .first_order import (
    additive_step,
    cost_sensitive_pa_step,
    passive_aggressive_step,
    romma_step,
)
from .guard import count_not_finite
from .linear import (
    NO_UPDATE,
    UPDATED,
    acog_diag_step,
    acog_full_step,
    arow_full_step,
)

__all__ = [
    "AROW",
    "COG_I",
    "COG_II",
    "CPA",
    "CPAML",
    "IN_USE",
    "NAMED",
    "PA",
    "PAUM",
    "PERCEPTRON",
    "ROMMA",
    "SPOILT",
    "acog_round",
    "baseline_step",
    "count_rho",
    "margin_slope",
    "sketch_round_finite",
    "uncount",
]


@njit(cache=True)
def count_rho(y, rho, laplace, counts):
    """Count the label, then return the cost ratio in force (Laplace estimate or fixed)."""
    if y > 0:
        counts[0] += 1
    else:
        counts[1] += 1
    if laplace:
        return laplace_ratio_jit(counts[0], counts[1])
    return rho


@njit(cache=True)
def margin_slope(y, rho, laplace, counts, loss_one):
    """Count the label, then return ``(margin, slope)`` of the cost-sensitive hinge loss."""
    return hinge_margin_slope_jit(y, count_rho(y, rho, laplace, counts), loss_one)


# ---- ACOG ----------------------------------------------------------------------------------------


@njit(cache=True)
def acog_round(
    mean, full, cov, variance, n, indices, values, y, loss_one, rho, laplace, counts, eta, gamma
):
    """Count the label ``y``, then one ACOG round on the row ``(indices, values)`` with the full
    covariance ``cov`` over the leading ``n`` columns (``full``) or the diagonal ``variance``;
    returns the step kernel's ``UPDATED``, ``NO_UPDATE`` or ``REFUSED`` (the count stays: the
    caller decides)."""
    margin, slope = margin_slope(y, rho, laplace, counts, loss_one)
    if full:
        return acog_full_step(mean, cov, n, indices, values, y, margin, slope, eta, gamma)
    return acog_diag_step(mean, variance, indices, values, y, margin, slope, eta, gamma)


@njit(cache=True, inline="always")
def uncount(counts, y):
    """Take back the count of a label ``y`` whose round was refused (``learn_one`` keeps nothing
    of it)."""
    counts[0 if y > 0 else 1] -= 1


# ---- the first-order and AROW baselines of seed 002 ----------------------------------------------

#: ``kind`` codes of the baselines' runners
PERCEPTRON, PAUM, COG_I, COG_II, PA, CPA, ROMMA, AROW, CPAML = range(9)


@njit(cache=True)
def baseline_step(
    kind, weights, cov, n, indices, values, y, rho, laplace, counts, eta, C, tau_negative, r
):
    """One step of a baseline on the row ``(indices, values)`` with label ``y``, as its
    ``_learn`` takes it (the cost-sensitive ones count the label first); returns ``UPDATED``,
    ``NO_UPDATE`` or ``REFUSED`` (AROW and ROMMA, on an overflow: nothing written)."""
    if kind == PERCEPTRON:
        updated = additive_step(weights, indices, values, y, 0.0, y < 0, 1.0)
    elif kind == PAUM:
        rho_t = count_rho(y, rho, laplace, counts)
        margin = rho_t if y > 0 else tau_negative
        updated = additive_step(weights, indices, values, y, margin, True, eta)
    elif kind == COG_I or kind == COG_II:
        margin, slope = margin_slope(y, rho, laplace, counts, kind == COG_I)
        updated = additive_step(weights, indices, values, y, margin, False, eta * slope)
    elif kind == PA:
        updated = passive_aggressive_step(weights, indices, values, y, 1.0, False, 1.0, C)
    elif kind == CPA or kind == CPAML:
        rho_t = count_rho(y, rho, laplace, counts)
        updated = cost_sensitive_pa_step(
            weights, indices, values, y, rho_t if y > 0 else 1.0, kind == CPAML
        )
    elif kind == ROMMA:
        return romma_step(weights, n, indices, values, y)
    else:
        return arow_full_step(weights, cov, n, indices, values, y, r)
    return UPDATED if updated else NO_UPDATE


# ---- SACOG (seed 002, Algorithms 2-6) ---------------------------------------------------------

#: Where the SACOG runners keep SACOG's own counters in ``layout``: the columns in use (the
#: ``n`` of its rounds), the columns already given to a feature, and whether the step the run
#: stopped at left values not finite in the state (1) or wrote nothing (0).
IN_USE, NAMED, SPOILT = range(3)


@njit(cache=True)
def sketch_round_finite(sparse_form, mean, offsets, basis, transform, gram, eigen, n, indices):
    """Whether every value a SACOG round may have written is finite: the m-vectors, the m x m
    matrices, and the mean and the directions over the ``n`` columns in use (a dense round
    re-orthonormalises them all and moves the mean along them; a sparse one that re-based did
    too), or only at the row's columns ``indices`` for a sparse round that did not re-base (a
    re-basing leaves ``F`` the identity, which a round's ``F`` otherwise hardly ever is: then
    the columns in use are checked, as if it had). The rest of the state was finite before the
    round and the round left it untouched, so this is ``learn_one``'s check of the whole state
    at the cost of what the round wrote (a dense round writes no ``b``, ``F`` or ``K``: they are
    not read). The columns in use are counted in loops the compiler
    vectorises (:func:`~imbalance_stream._numba.guard.count_not_finite`); the few other values
    in plain loops, written out (a call, or a view for the bit count, costs more than they
    do)."""
    m = basis.shape[0]
    bad = 0
    identity = True
    for i in range(m):
        bad += not math.isfinite(eigen[i])
        if sparse_form:  # the dense form has no b, F or K (its caller may pass empty ones)
            bad += not math.isfinite(offsets[i])
            for a in range(m):
                bad += not math.isfinite(transform[i, a])
                bad += not math.isfinite(gram[i, a])
                identity = identity and transform[i, a] == (1.0 if i == a else 0.0)
    if bad:
        return False
    if sparse_form and not identity:
        for k in range(indices.shape[0]):
            j = indices[k]
            bad += not math.isfinite(mean[j])
            for i in range(m):
                bad += not math.isfinite(basis[i, j])
        return bad == 0
    bad = count_not_finite(mean, n)
    for i in range(m):
        bad += count_not_finite(basis[i], n)
    return bad == 0
