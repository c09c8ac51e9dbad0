"""LASVM's optimiser: the signed-alpha box QP solved online by PROCESS and REPROCESS.

Ertekin (2009), chapter 3 (after Bordes, Ertekin, Weston and Bottou, JMLR 2005). The problem is
eq. 2.21 with the gradient of eq. 2.25:

    max W(alpha) = sum_i alpha_i y_i - 1/2 sum_ij alpha_i alpha_j K_ij
    s.t. sum_i alpha_i = 0,  A_i <= alpha_i <= B_i,   g_k = y_k - sum_i alpha_i K_ik

with ``A_i = min(0, C_i y_i)`` and ``B_i = max(0, C_i y_i)``. The expansion members (the set S of
section 3.2.1) live in *slots* ``0 .. count-1`` of a set of arrays passed around as one
:class:`Expansion` (named tuples, which numba reads by name):

* ``store`` (:class:`Store`): each member's sparse vector, the slice ``start[s] : start[s] +
  nnz[s]`` of the flat ``indices`` / ``values`` arrays, and its squared norm. An RBF value
  ``exp(-gamma (|a|^2 + |b|^2 - 2 a.b))`` then costs O(nnz) of one vector (the other is scattered
  into a dense scratch vector ``work``), not O(d).
* ``model`` (:class:`Model`): alpha_s, g_s, A_s, B_s, y_s, K_ss and the member's index in a
  stored dataset (``key``, -1 for a streamed example), which lets an offline pass over a dataset
  skip the examples already in the expansion (``in_expansion[key]``).
* ``cache`` (:class:`Cache`): an LRU cache of kernel rows. ``lines[l, :line_len[l]]`` holds
  ``K(member line_owner[l], member s)`` for the leading slots ``s``; ``row_of[s]`` is the line of
  member ``s`` or -1; the least recently used line is recycled when none is free. A row is
  extended lazily when members were appended after it. Rows are float32, as in LIBSVM; what the
  steps compute from them is float64 (D-LASVM-52).
* ``ints``: the counters (see the ``COUNT`` ... ``GARBAGE`` slots), ``scalars``: b and delta;
  ``work`` a dense scratch vector (all zeros between calls), ``qrow`` the query's kernel row.

The kernels called from Python (:func:`learn`, :func:`learn_stored`, :func:`finish`,
:func:`decision`, and those of :mod:`.lasvm_gap`) take the state as the same fields in plain
tuples and name them with :func:`expansion`: numba's dispatcher types a plain tuple of arrays in
C, but a heterogeneous named one in Python, at some 25 microseconds a call.

Members are removed by moving the last slot into the hole (O(1) in the arrays, O(lines) in the
cache, whose rows keep the valid prefix). Every kernel value between two distinct vectors that
is computed (fresh rows and cache misses) is counted in ``ints[N_KERNEL]`` (D-LASVM-7). The
chapter 6 family's steps (no bias, the duality gap) are in :mod:`.lasvm_gap`.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from .kernels import LINEAR, RBF

__all__ = [
    "BIAS",
    "COUNT",
    "DELTA",
    "EPS_CURVATURE",
    "FLAT_USED",
    "GARBAGE",
    "LINEAR",
    "NEW_KEY",
    "N_KERNEL",
    "RBF",
    "TICK",
    "Cache",
    "Expansion",
    "Model",
    "Store",
    "compact_store",
    "decision",
    "expansion",
    "extremes",
    "finish",
    "fresh_row",
    "insert_member",
    "kernel_value",
    "learn",
    "learn_stored",
    "member_row",
    "process",
    "query_row",
    "remove_member",
    "reprocess",
]


class Store(NamedTuple):
    """The members' sparse vectors: ``indices`` / ``values`` flat, a member's slice from
    ``start`` of ``nnz`` entries, and its squared norm."""

    indices: np.ndarray
    values: np.ndarray
    start: np.ndarray
    nnz: np.ndarray
    sqnorm: np.ndarray


class Model(NamedTuple):
    """The members' alpha_s, g_s, A_s, B_s, y_s, K_ss and dataset key (float64 each)."""

    alpha: np.ndarray
    grad: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    label: np.ndarray
    diag: np.ndarray
    key: np.ndarray


class Cache(NamedTuple):
    """The LRU cache of kernel rows (float32 ``lines``)."""

    lines: np.ndarray
    line_len: np.ndarray
    line_owner: np.ndarray
    line_stamp: np.ndarray
    row_of: np.ndarray


class Expansion(NamedTuple):
    """Everything a step reads or writes: the kernel (``kind``, ``gamma``), the members, the
    cache, the counters, b and delta, and the two scratch vectors."""

    kind: int
    gamma: float
    store: Store
    model: Model
    cache: Cache
    ints: np.ndarray
    scalars: np.ndarray
    work: np.ndarray
    qrow: np.ndarray


@njit(cache=True)
def expansion(state):
    """The :class:`Expansion` of ``state``, its fields in plain tuples (see the module's
    docstring)."""
    kind, gamma, store, model, cache, ints, scalars, work, qrow = state
    return Expansion(
        kind, gamma, Store(*store), Model(*model), Cache(*cache), ints, scalars, work, qrow
    )


# slots of ``ints``
COUNT = 0  # members in the expansion
FLAT_USED = 1  # entries of the flat sparse store in use (including garbage)
N_KERNEL = 2  # kernel values computed so far
TICK = 3  # clock of the LRU cache
GARBAGE = 4  # entries of the flat store that belong to removed members

# slots of ``scalars``
BIAS = 0  # b of eq. 3.1
DELTA = 1  # delta of eq. 3.1

#: Key of the member being learned by :func:`learn` (a streamed member's key is -1).
NEW_KEY = -2.0

#: Curvatures below this take the bound-limited step (the Newton step of eq. 2.24 is undefined;
#: D-LASVM-4).
EPS_CURVATURE = 1e-12


@njit(cache=True)
def kernel_value(kind, gamma, dot, sq_a, sq_b):
    """The kernel from a dot product and two squared norms (RBF or linear)."""
    if kind == RBF:
        distance = sq_a + sq_b - 2.0 * dot
        if distance < 0.0:  # rounding of the expansion, for (nearly) equal vectors
            distance = 0.0
        return math.exp(-gamma * distance)
    return dot


@njit(cache=True)
def _member_dot(store, s, dense):
    """``x_s . dense`` over the nonzeros of member ``s``: O(nnz_s)."""
    indices, values, start, nnz, _ = store
    total = 0.0
    for p in range(start[s], start[s] + nnz[s]):
        total += values[p] * dense[indices[p]]
    return total


@njit(cache=True)
def _scatter(store, s, dense, clear):
    """Write member ``s`` into the dense scratch vector, or reset those entries to 0."""
    indices, values, start, nnz, _ = store
    for p in range(start[s], start[s] + nnz[s]):
        dense[indices[p]] = 0.0 if clear else values[p]


@njit(cache=True)
def query_row(kind, gamma, store, count, dense, sq, out):
    """``out[s] = K(x, x_s)`` for every member, ``x`` given dense with squared norm ``sq``."""
    sqnorm = store[4]
    for s in range(count):
        out[s] = kernel_value(kind, gamma, _member_dot(store, s, dense), sq, sqnorm[s])


# ---- the kernel cache ---------------------------------------------------------------------------


@njit(cache=True)
def _take_line(cache):
    """A free line, else the least recently used one (its member loses its row)."""
    lines, line_len, line_owner, line_stamp, row_of = cache
    best = -1
    for line in range(lines.shape[0]):
        if line_owner[line] < 0:
            best = line
            break
        if best < 0 or line_stamp[line] < line_stamp[best]:
            best = line
    if line_owner[best] >= 0:
        row_of[line_owner[best]] = -1
        line_owner[best] = -1
    line_len[best] = 0
    return best


@njit(cache=True)
def member_row(e, slot):
    """The cache line holding ``K(x_slot, x_s)`` for every member ``s``, computing what is
    missing (a new line, or the members appended since the line was filled)."""
    lines, line_len, line_owner, line_stamp, row_of = e.cache
    ints, store, work = e.ints, e.store, e.work
    count = ints[COUNT]
    line = row_of[slot]
    if line < 0:
        line = _take_line(e.cache)
        line_owner[line] = slot
        row_of[slot] = line
    filled = line_len[line]
    if filled < count:
        diag = e.model.diag
        sqnorm = store.sqnorm
        row = lines[line]
        _scatter(store, slot, work, False)
        for s in range(filled, count):
            if s == slot:
                row[s] = diag[slot]
            else:
                row[s] = kernel_value(
                    e.kind, e.gamma, _member_dot(store, s, work), sqnorm[slot], sqnorm[s]
                )
                ints[N_KERNEL] += 1
        _scatter(store, slot, work, True)
        line_len[line] = count
    ints[TICK] += 1
    line_stamp[line] = ints[TICK]
    return line


# ---- members ------------------------------------------------------------------------------------


@njit(cache=True)
def insert_member(e, x, sq, y, bounds, diag_value, key):
    """Append the query as member ``count`` with alpha 0 and gradient ``y - sum alpha K`` (the
    query's kernel row is ``e.qrow``); its fresh kernel row becomes its cache line and extends
    every line that covered all members."""
    flat_indices, flat_values, start, nnz, sqnorm = e.store
    alpha, grad, low, up, label, diag, keys = e.model
    lines, line_len, line_owner, line_stamp, row_of = e.cache
    ints, qrow = e.ints, e.qrow
    indices, values = x
    count = ints[COUNT]
    used = ints[FLAT_USED]
    n = indices.shape[0]
    # Element loops, not slice assignments, for a shorter cold compile (see koil._save_slot).
    for p in range(n):
        flat_indices[used + p] = indices[p]
        flat_values[used + p] = values[p]
    start[count] = used
    nnz[count] = n
    sqnorm[count] = sq
    ints[FLAT_USED] = used + n
    gradient = y
    for s in range(count):
        gradient -= alpha[s] * qrow[s]
    alpha[count] = 0.0
    grad[count] = gradient
    low[count] = bounds[0]
    up[count] = bounds[1]
    label[count] = y
    diag[count] = diag_value
    keys[count] = key
    for line in range(lines.shape[0]):  # the new column of the rows that are complete
        owner = line_owner[line]
        if owner >= 0 and line_len[line] == count:
            lines[line, count] = qrow[owner]
            line_len[line] = count + 1
    ints[COUNT] = count + 1
    line = _take_line(e.cache)
    for j in range(count):
        lines[line, j] = qrow[j]
    lines[line, count] = diag_value
    line_len[line] = count + 1
    line_owner[line] = count
    row_of[count] = line
    ints[TICK] += 1
    line_stamp[line] = ints[TICK]
    return count


@njit(cache=True)
def remove_member(e, slot):
    """Remove member ``slot``: the last member moves into its slot, its cache line is freed, and
    every cached row keeps only the prefix that is still valid."""
    _, _, start, nnz, sqnorm = e.store
    lines, line_len, line_owner, line_stamp, row_of = e.cache
    ints, model = e.ints, e.model
    last = ints[COUNT] - 1
    ints[GARBAGE] += nnz[slot]
    if row_of[slot] >= 0:
        line_owner[row_of[slot]] = -1
        line_len[row_of[slot]] = 0
        row_of[slot] = -1
    for line in range(lines.shape[0]):
        if line_owner[line] < 0:
            continue
        if line_len[line] > last:
            lines[line, slot] = lines[line, last]
            line_len[line] = last
        elif line_len[line] > slot:
            line_len[line] = slot
    start[slot] = start[last]
    nnz[slot] = nnz[last]
    sqnorm[slot] = sqnorm[last]
    for array in model:
        array[slot] = array[last]
        array[last] = 0.0
    row_of[slot] = row_of[last]
    if row_of[slot] >= 0:
        line_owner[row_of[slot]] = slot
    row_of[last] = -1
    ints[COUNT] = last


@njit(cache=True)
def compact_store(store, ints):
    """Close the gaps that removed members left in the flat sparse store, in place."""
    flat_indices, flat_values, start, nnz, _ = store
    count = ints[COUNT]
    order = np.argsort(start[:count])
    used = 0
    for k in range(count):
        s = order[k]
        begin = start[s]
        for p in range(nnz[s]):
            flat_indices[used + p] = flat_indices[begin + p]
            flat_values[used + p] = flat_values[begin + p]
        start[s] = used
        used += nnz[s]
    ints[FLAT_USED] = used
    ints[GARBAGE] = 0


# ---- the optimisation steps ---------------------------------------------------------------------


@njit(cache=True)
def extremes(model, count):
    """``(i, g_max, j, g_min)`` of eq. 3.1: the largest gradient among members with
    alpha < B and the smallest among those with alpha > A (first index on ties; -1 if none)."""
    alpha, grad, lower, upper = model.alpha, model.grad, model.lower, model.upper
    i = -1
    j = -1
    g_max = 0.0
    g_min = 0.0
    for s in range(count):
        g = grad[s]
        if alpha[s] < upper[s] and (i < 0 or g > g_max):
            i = s
            g_max = g
        if alpha[s] > lower[s] and (j < 0 or g < g_min):
            j = s
            g_min = g
    return i, g_max, j, g_min


@njit(cache=True)
def _pair_step(model, lines, count, i, j, line_i, line_j):
    """The direction search along ``u = e_i - e_j`` (eqs. 2.22-2.24): the Newton step clipped to
    the box, ``alpha_i += lambda``, ``alpha_j -= lambda``, ``g_s -= lambda (K_is - K_js)``.
    A coefficient that reaches its bound is set to the bound exactly."""
    alpha, grad, lower, upper, diag = model.alpha, model.grad, model.lower, model.upper, model.diag
    row_i = lines[line_i]
    row_j = lines[line_j]
    room_i = upper[i] - alpha[i]
    room_j = alpha[j] - lower[j]
    step = min(room_i, room_j)
    curvature = diag[i] + diag[j] - 2.0 * row_i[j]
    if curvature > EPS_CURVATURE:
        step = min(step, (grad[i] - grad[j]) / curvature)
    alpha[i] = upper[i] if step == room_i else alpha[i] + step
    alpha[j] = lower[j] if step == room_j else alpha[j] - step
    for s in range(count):  # the difference in float64: the rows are float32 (D-LASVM-52)
        grad[s] -= step * (np.float64(row_i[s]) - np.float64(row_j[s]))


@njit(cache=True)
def fresh_row(e, x):
    """``qrow[s] = K(x, x_s)`` for every member (the S fresh kernel values of PROCESS, counted)
    and the squared norm of ``x``."""
    indices, values = x
    ints, work = e.ints, e.work
    count = ints[COUNT]
    sqnorm_x = 0.0
    for p in range(indices.shape[0]):
        work[indices[p]] = values[p]
        sqnorm_x += values[p] * values[p]
    query_row(e.kind, e.gamma, e.store, count, work, sqnorm_x, e.qrow)
    for p in range(indices.shape[0]):
        work[indices[p]] = 0.0
    ints[N_KERNEL] += count
    return sqnorm_x


@njit(cache=True)
def process(e, x, y, bounds, key):
    """PROCESS of section 3.2.1 on a new example; returns 0 when it is left out, 1 when it joins
    the expansion without a partner (only one class there yet), 2 after a step.

    The partner is the member of extreme gradient (``j = argmin g`` for y = +1, ``i = argmax g``
    for y = -1). The example is left out unless it makes a violating pair with tolerance 0, the
    reference implementation's rule (D-LASVM-1); with no partner at all it joins with alpha = 0,
    so that a stream that starts with one class can bootstrap (D-LASVM-2).
    """
    sqnorm_x = fresh_row(e, x)
    count = e.ints[COUNT]
    alpha, qrow = e.model.alpha, e.qrow
    gradient = y
    for s in range(count):
        gradient -= alpha[s] * qrow[s]
    i, g_max, j, g_min = extremes(e.model, count)
    partner = j if y > 0.0 else i
    if partner >= 0:
        gap = gradient - g_min if y > 0.0 else g_max - gradient
        if gap <= 0.0:
            return 0
    diag_value = kernel_value(e.kind, e.gamma, sqnorm_x, sqnorm_x, sqnorm_x)
    k = insert_member(e, x, sqnorm_x, y, bounds, diag_value, key)
    if partner < 0:
        return 1
    line_k = member_row(e, k)
    line_p = member_row(e, partner)
    if y > 0.0:
        _pair_step(e.model, e.cache.lines, k + 1, k, partner, line_k, line_p)
    else:
        _pair_step(e.model, e.cache.lines, k + 1, partner, k, line_p, line_k)
    return 2


@njit(cache=True)
def reprocess(e, tau, in_expansion):
    """REPROCESS of section 3.2.1; returns whether a step was taken.

    A step on the maximal tau-violating pair, then the blatant non support vectors (alpha = 0,
    y = -1 with g >= g_max, y = +1 with g <= g_min) leave the expansion, and b and delta are set
    by eq. 3.1. A rule whose extreme does not exist (one class only) removes nothing, and b and
    delta then come from the extreme that exists (D-LASVM-2, D-LASVM-3). A removed member with
    a dataset key is marked out of ``in_expansion``.
    """
    model = e.model
    count = e.ints[COUNT]
    i, g_max, j, g_min = extremes(model, count)
    stepped = False
    if i >= 0 and j >= 0 and g_max - g_min > tau:
        line_i = member_row(e, i)
        line_j = member_row(e, j)
        _pair_step(model, e.cache.lines, count, i, j, line_i, line_j)
        stepped = True
        i, g_max, j, g_min = extremes(model, count)
    alpha, grad, label, keys = model.alpha, model.grad, model.label, model.key
    for s in range(count - 1, -1, -1):  # from the end: the member moved in was already seen
        if alpha[s] != 0.0:
            continue
        if (label[s] < 0.0 and i >= 0 and grad[s] >= g_max) or (
            label[s] > 0.0 and j >= 0 and grad[s] <= g_min
        ):
            if keys[s] >= 0.0:
                in_expansion[int(keys[s])] = False
            remove_member(e, s)
    _set_bias(e.scalars, i, g_max, j, g_min)
    return stepped


@njit(cache=True)
def _set_bias(scalars, i, g_max, j, g_min):
    """b and delta of eq. 3.1 (D-LASVM-3 when a side is empty)."""
    if i >= 0 and j >= 0:
        scalars[BIAS] = 0.5 * (g_max + g_min)
        scalars[DELTA] = g_max - g_min
    elif i >= 0:
        scalars[BIAS] = g_max
        scalars[DELTA] = 0.0
    elif j >= 0:
        scalars[BIAS] = g_min
        scalars[DELTA] = 0.0
    else:
        scalars[BIAS] = 0.0
        scalars[DELTA] = 0.0


@njit(cache=True)
def learn(state, x, y, bounds, tau):
    """One online iteration of LASVM (section 3.2.1) on a streamed example ``x = (indices,
    values)`` of class ``y`` with box ``bounds = (A, B)``: PROCESS, then REPROCESS once.
    Returns PROCESS's status and the example's alpha after the REPROCESS (0 when it is not in
    the expansion), which tells whether it "became a support vector" (chapter 5)."""
    e = expansion(state)
    keys = e.model.key
    status = process(e, x, y, bounds, NEW_KEY)
    reprocess(e, tau, np.zeros(0, np.bool_))
    alpha_new = 0.0
    for s in range(e.ints[COUNT]):  # the new member, wherever an eviction moved it
        if keys[s] == NEW_KEY:
            alpha_new = e.model.alpha[s]
            keys[s] = -1.0
    return status, alpha_new


@njit(cache=True)
def learn_stored(state, x, y, bounds, key, tau, in_expansion):
    """One online iteration on example ``key`` of a stored dataset: PROCESS bails out when it
    is already in the expansion (step 1 of PROCESS), then REPROCESS once."""
    e = expansion(state)
    status = 0
    if not in_expansion[key]:
        status = process(e, x, y, bounds, float(key))
        in_expansion[key] = status > 0
    reprocess(e, tau, in_expansion)
    return status


@njit(cache=True)
def finish(state, tau, max_iter, in_expansion):
    """Finishing (section 3.2.1, step 3): REPROCESS until delta <= tau, at most ``max_iter``
    steps (< 0: no limit). Returns the number of steps taken."""
    e = expansion(state)
    steps = 0
    while max_iter < 0 or steps < max_iter:
        if not reprocess(e, tau, in_expansion):
            break
        steps += 1
        if e.scalars[DELTA] <= tau:
            break
    return steps


@njit(cache=True)
def decision(state, indices, values):
    """``sum_s alpha_s K(x_s, x) + b`` over the members with alpha != 0 (eq. 2.15)."""
    e = expansion(state)
    alpha, store, work = e.model.alpha, e.store, e.work
    sqnorm = store.sqnorm
    sqnorm_x = 0.0
    for p in range(indices.shape[0]):
        work[indices[p]] = values[p]
        sqnorm_x += values[p] * values[p]
    total = e.scalars[BIAS]
    for s in range(e.ints[COUNT]):
        if alpha[s] != 0.0:
            dot = _member_dot(store, s, work)
            total += alpha[s] * kernel_value(e.kind, e.gamma, dot, sqnorm_x, sqnorm[s])
    for p in range(indices.shape[0]):
        work[indices[p]] = 0.0
    return total
