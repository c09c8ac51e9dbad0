"""LASVM's optimiser: the signed-alpha box QP solved online by PROCESS and REPROCESS.

Ertekin (2009), chapter 3 (after Bordes, Ertekin, Weston and Bottou, JMLR 2005). The problem is
eq. 2.21 with the gradient of eq. 2.25:

    max W(alpha) = sum_i alpha_i y_i - 1/2 sum_ij alpha_i alpha_j K_ij
    s.t. sum_i alpha_i = 0,  A_i <= alpha_i <= B_i,   g_k = y_k - sum_i alpha_i K_ik

with ``A_i = min(0, C_i y_i)`` and ``B_i = max(0, C_i y_i)``. The expansion members (the set S of
section 3.2.1) live in *slots* ``0 .. count-1`` of a set of arrays passed around as tuples:

* ``store = (indices, values, start, nnz, sqnorm)``: each member's sparse vector, the slice
  ``start[s] : start[s] + nnz[s]`` of the flat ``indices`` / ``values`` arrays, and its squared
  norm. An RBF value ``exp(-gamma (|a|^2 + |b|^2 - 2 a.b))`` then costs O(nnz) of one vector (the
  other is scattered into a dense scratch vector ``work``), not O(d).
* ``model = (alpha, grad, lower, upper, label, diag, key)``: alpha_s, g_s, A_s, B_s, y_s, K_ss
  and the member's index in a stored dataset (-1 for a streamed example), which lets an offline
  pass over a dataset skip the examples already in the expansion (``in_expansion[key]``).
* ``cache = (lines, line_len, line_owner, line_stamp, row_of)``: an LRU cache of kernel rows.
  ``lines[l, :line_len[l]]`` holds ``K(member line_owner[l], member s)`` for the leading slots
  ``s``; ``row_of[s]`` is the line of member ``s`` or -1; the least recently used line is
  recycled when none is free. A row is extended lazily when members were appended after it.
  Rows are float32, as in LIBSVM; what the steps compute from them is float64 (D-LASVM-52).
* ``ints``: the counters (see the ``COUNT`` ... ``GARBAGE`` slots), ``scalars``: b and delta.

Members are removed by moving the last slot into the hole (O(1) in the arrays, O(lines) in the
cache, whose rows keep the valid prefix). Every kernel value between two distinct vectors that
is computed (fresh rows and cache misses) is counted in ``ints[N_KERNEL]`` (D-LASVM-7).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .kernels import LINEAR, RBF

__all__ = [
    "ADMITTED",
    "ADMITTED_FLAT",
    "BIAS",
    "COUNT",
    "DELTA",
    "FLAT_USED",
    "GARBAGE",
    "LINEAR",
    "NEW_KEY",
    "N_KERNEL",
    "RAMP_I",
    "RAMP_NC",
    "RAMP_NONE",
    "RBF",
    "SKIPPED",
    "TICK",
    "clean",
    "compact_store",
    "decision",
    "duality_gap",
    "extremes",
    "finish",
    "finish_gap",
    "gap_target",
    "kernel_value",
    "learn",
    "learn_gap",
    "learn_stored",
    "member_row",
    "n_support",
    "process",
    "query_row",
    "remove_member",
    "reprocess",
    "reprocess_gap",
]

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
def _take_line(cache, ints):
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
def member_row(kind, gamma, store, model, cache, ints, slot, work):
    """The cache line holding ``K(x_slot, x_s)`` for every member ``s``, computing what is
    missing (a new line, or the members appended since the line was filled)."""
    lines, line_len, line_owner, line_stamp, row_of = cache
    count = ints[COUNT]
    line = row_of[slot]
    if line < 0:
        line = _take_line(cache, ints)
        line_owner[line] = slot
        row_of[slot] = line
    filled = line_len[line]
    if filled < count:
        diag = model[5]
        sqnorm = store[4]
        row = lines[line]
        _scatter(store, slot, work, False)
        for s in range(filled, count):
            if s == slot:
                row[s] = diag[slot]
            else:
                row[s] = kernel_value(
                    kind, gamma, _member_dot(store, s, work), sqnorm[slot], sqnorm[s]
                )
                ints[N_KERNEL] += 1
        _scatter(store, slot, work, True)
        line_len[line] = count
    ints[TICK] += 1
    line_stamp[line] = ints[TICK]
    return line


# ---- members ------------------------------------------------------------------------------------


@njit(cache=True)
def _insert_member(store, model, cache, ints, x, sq, y, bounds, diag_value, key, qrow):
    """Append the query as member ``count`` with alpha 0 and gradient ``y - sum alpha K``; its
    fresh kernel row becomes its cache line and extends every line that covered all members."""
    flat_indices, flat_values, start, nnz, sqnorm = store
    alpha, grad, low, up, label, diag, keys = model
    lines, line_len, line_owner, line_stamp, row_of = cache
    indices, values = x
    count = ints[COUNT]
    used = ints[FLAT_USED]
    n = indices.shape[0]
    # Element loops, not slice assignments, for a shorter cold compile (see koil.save_slot).
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
    line = _take_line(cache, ints)
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
def remove_member(store, model, cache, ints, slot):
    """Remove member ``slot``: the last member moves into its slot, its cache line is freed, and
    every cached row keeps only the prefix that is still valid."""
    _, _, start, nnz, sqnorm = store
    lines, line_len, line_owner, line_stamp, row_of = cache
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
    alpha, grad, lower, upper = model[0], model[1], model[2], model[3]
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
    alpha, grad, lower, upper, diag = model[0], model[1], model[2], model[3], model[5]
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
def _fresh_row(kind, gamma, store, ints, x, work, qrow):
    """``qrow[s] = K(x, x_s)`` for every member (the S fresh kernel values of PROCESS, counted)
    and the squared norm of ``x``."""
    indices, values = x
    count = ints[COUNT]
    sqnorm_x = 0.0
    for p in range(indices.shape[0]):
        work[indices[p]] = values[p]
        sqnorm_x += values[p] * values[p]
    query_row(kind, gamma, store, count, work, sqnorm_x, qrow)
    for p in range(indices.shape[0]):
        work[indices[p]] = 0.0
    ints[N_KERNEL] += count
    return sqnorm_x


@njit(cache=True)
def process(kind, gamma, store, model, cache, ints, x, y, bounds, key, work, qrow):
    """PROCESS of section 3.2.1 on a new example; returns 0 when it is left out, 1 when it joins
    the expansion without a partner (only one class there yet), 2 after a step.

    The partner is the member of extreme gradient (``j = argmin g`` for y = +1, ``i = argmax g``
    for y = -1). The example is left out unless it makes a violating pair with tolerance 0, the
    reference implementation's rule (D-LASVM-1); with no partner at all it joins with alpha = 0,
    so that a stream that starts with one class can bootstrap (D-LASVM-2).
    """
    sqnorm_x = _fresh_row(kind, gamma, store, ints, x, work, qrow)
    count = ints[COUNT]
    alpha = model[0]
    gradient = y
    for s in range(count):
        gradient -= alpha[s] * qrow[s]
    i, g_max, j, g_min = extremes(model, count)
    partner = j if y > 0.0 else i
    if partner >= 0:
        gap = gradient - g_min if y > 0.0 else g_max - gradient
        if gap <= 0.0:
            return 0
    diag_value = kernel_value(kind, gamma, sqnorm_x, sqnorm_x, sqnorm_x)
    k = _insert_member(store, model, cache, ints, x, sqnorm_x, y, bounds, diag_value, key, qrow)
    if partner < 0:
        return 1
    line_k = member_row(kind, gamma, store, model, cache, ints, k, work)
    line_p = member_row(kind, gamma, store, model, cache, ints, partner, work)
    if y > 0.0:
        _pair_step(model, cache[0], k + 1, k, partner, line_k, line_p)
    else:
        _pair_step(model, cache[0], k + 1, partner, k, line_p, line_k)
    return 2


@njit(cache=True)
def reprocess(kind, gamma, store, model, cache, ints, scalars, tau, work, in_expansion):
    """REPROCESS of section 3.2.1; returns whether a step was taken.

    A step on the maximal tau-violating pair, then the blatant non support vectors (alpha = 0,
    y = -1 with g >= g_max, y = +1 with g <= g_min) leave the expansion, and b and delta are set
    by eq. 3.1. A rule whose extreme does not exist (one class only) removes nothing, and b and
    delta then come from the extreme that exists (D-LASVM-2, D-LASVM-3). A removed member with
    a dataset key is marked out of ``in_expansion``.
    """
    count = ints[COUNT]
    i, g_max, j, g_min = extremes(model, count)
    stepped = False
    if i >= 0 and j >= 0 and g_max - g_min > tau:
        line_i = member_row(kind, gamma, store, model, cache, ints, i, work)
        line_j = member_row(kind, gamma, store, model, cache, ints, j, work)
        _pair_step(model, cache[0], count, i, j, line_i, line_j)
        stepped = True
        i, g_max, j, g_min = extremes(model, count)
    alpha, grad, label, keys = model[0], model[1], model[4], model[6]
    for s in range(count - 1, -1, -1):  # from the end: the member moved in was already seen
        if alpha[s] != 0.0:
            continue
        if (label[s] < 0.0 and i >= 0 and grad[s] >= g_max) or (
            label[s] > 0.0 and j >= 0 and grad[s] <= g_min
        ):
            if keys[s] >= 0.0:
                in_expansion[int(keys[s])] = False
            remove_member(store, model, cache, ints, s)
    _set_bias(scalars, i, g_max, j, g_min)
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
def learn(kind, gamma, store, model, cache, ints, scalars, x, y, bounds, tau, work, qrow):
    """One online iteration of LASVM (section 3.2.1) on a streamed example ``x = (indices,
    values)`` of class ``y`` with box ``bounds = (A, B)``: PROCESS, then REPROCESS once.
    Returns PROCESS's status and the example's alpha after the REPROCESS (0 when it is not in
    the expansion), which tells whether it "became a support vector" (chapter 5)."""
    keys = model[6]
    status = process(kind, gamma, store, model, cache, ints, x, y, bounds, NEW_KEY, work, qrow)
    reprocess(kind, gamma, store, model, cache, ints, scalars, tau, work, np.zeros(0, np.bool_))
    alpha_new = 0.0
    for s in range(ints[COUNT]):  # the new member, wherever an eviction moved it
        if keys[s] == NEW_KEY:
            alpha_new = model[0][s]
            keys[s] = -1.0
    return status, alpha_new


@njit(cache=True)
def learn_stored(
    kind,
    gamma,
    store,
    model,
    cache,
    ints,
    scalars,
    x,
    y,
    bounds,
    key,
    tau,
    work,
    qrow,
    in_expansion,
):
    """One online iteration on example ``key`` of a stored dataset: PROCESS bails out when it
    is already in the expansion (step 1 of PROCESS), then REPROCESS once."""
    status = 0
    if not in_expansion[key]:
        status = process(
            kind, gamma, store, model, cache, ints, x, y, bounds, float(key), work, qrow
        )
        in_expansion[key] = status > 0
    reprocess(kind, gamma, store, model, cache, ints, scalars, tau, work, in_expansion)
    return status


@njit(cache=True)
def finish(kind, gamma, store, model, cache, ints, scalars, tau, max_iter, work, in_expansion):
    """Finishing (section 3.2.1, step 3): REPROCESS until delta <= tau, at most ``max_iter``
    steps (< 0: no limit). Returns the number of steps taken."""
    steps = 0
    while max_iter < 0 or steps < max_iter:
        if not reprocess(kind, gamma, store, model, cache, ints, scalars, tau, work, in_expansion):
            break
        steps += 1
        if scalars[DELTA] <= tau:
            break
    return steps


@njit(cache=True)
def decision(kind, gamma, store, model, count, indices, values, bias, work):
    """``sum_s alpha_s K(x_s, x) + b`` over the members with alpha != 0 (eq. 2.15)."""
    alpha = model[0]
    sqnorm = store[4]
    sqnorm_x = 0.0
    for p in range(indices.shape[0]):
        work[indices[p]] = values[p]
        sqnorm_x += values[p] * values[p]
    total = bias
    for s in range(count):
        if alpha[s] != 0.0:
            dot = _member_dot(store, s, work)
            total += alpha[s] * kernel_value(kind, gamma, dot, sqnorm_x, sqnorm[s])
    for p in range(indices.shape[0]):
        work[indices[p]] = 0.0
    return total


# ---- chapter 6: no bias, single-coordinate steps (LASVM-G, -NC, -I, FULL SVM) -------------------

#: Ramp modes of :func:`learn_gap`.
RAMP_NONE = 0  # LASVM-G and FULL SVM: every example is admitted with the hinge box
RAMP_NC = 1  # LASVM-NC: an example with y f(x) < s (once #SV > S) gets the shifted box (6.13)
RAMP_I = 2  # LASVM-I: skips an example with y f(x) > 1 or < s (section 6.3, D-LASVM-16)

#: Status codes of :func:`learn_gap`.
SKIPPED = 0
ADMITTED = 1
ADMITTED_FLAT = 2  # LASVM-NC: admitted with beta = C (left flat part of the Ramp)


@njit(cache=True)
def _single_step(model, lines, count, k, line_k):
    """The corrected single-coordinate direction search of LASVM-G (chapter 6, PROCESS step 2 and
    REPROCESS steps 4-5 with the selected k; D-LASVM-9): ``lambda = g_k / K_kk`` clipped to
    ``[A_k - alpha_k, B_k - alpha_k]``, ``alpha_k += lambda``, ``g_s -= lambda K_ks``. Returns
    whether alpha changed."""
    alpha, grad, lower, upper, diag = model[0], model[1], model[2], model[3], model[5]
    g = grad[k]
    low = lower[k] - alpha[k]
    high = upper[k] - alpha[k]
    step = high if g >= 0.0 else low
    if diag[k] > EPS_CURVATURE:
        newton = g / diag[k]
        step = min(high, newton) if g >= 0.0 else max(low, newton)
    if step == 0.0:
        return False
    alpha[k] = upper[k] if step == high else lower[k] if step == low else alpha[k] + step
    row = lines[line_k]
    for s in range(count):
        grad[s] -= step * row[s]
    return True


@njit(cache=True)
def _gap_and_choice(model, count, tau):
    """One pass over the members for the gap-driven loop: the gap of eq. 6.4 as corrected
    (D-LASVM-10), ``sum_s max(A_s g_s, B_s g_s) - alpha_s g_s`` (each term >= 0, all 0 at the KKT
    point), and the member REPROCESS of LASVM-G would step on (chapter 6, corrected as D-LASVM-9):
    among the members whose gradient points into the box, the one of largest |g| on the side that
    dominates, or -1 when it violates by no more than ``tau``."""
    alpha, grad, lower, upper = model[0], model[1], model[2], model[3]
    total = 0.0
    i_min = -1
    i_max = -1
    g_min = 0.0
    g_max = 0.0
    for s in range(count):
        g = grad[s]
        total += max(lower[s] * g, upper[s] * g) - alpha[s] * g
        if alpha[s] > lower[s] and g < g_min:
            i_min = s
            g_min = g
        if alpha[s] < upper[s] and g > g_max:
            i_max = s
            g_max = g
    k = i_min if g_min + g_max < 0.0 else i_max
    if k >= 0 and (
        (grad[k] < 0.0 and g_max - grad[k] < tau) or (grad[k] >= 0.0 and grad[k] - g_min < tau)
    ):
        k = -1
    return total, k


@njit(cache=True)
def _gap_step(kind, gamma, store, model, cache, ints, k, work):
    """The single-coordinate step on member ``k``; returns whether alpha changed."""
    line = member_row(kind, gamma, store, model, cache, ints, k, work)
    return _single_step(model, cache[0], ints[COUNT], k, line)


@njit(cache=True)
def reprocess_gap(kind, gamma, store, model, cache, ints, tau, work):
    """REPROCESS of LASVM-G (:func:`_gap_and_choice`'s member): no step unless it violates by
    more than ``tau``. Returns whether a step was taken. Nothing is removed."""
    k = _gap_and_choice(model, ints[COUNT], tau)[1]
    return k >= 0 and _gap_step(kind, gamma, store, model, cache, ints, k, work)


@njit(cache=True)
def duality_gap(model, count):
    """The gap of eq. 6.4 as corrected (D-LASVM-10), :func:`_gap_and_choice`'s first value."""
    return _gap_and_choice(model, count, 0.0)[0]


@njit(cache=True)
def gap_target(model, count):
    """The gap target of eq. 6.3, ``sqrt(max(0, sum h^2 - (sum h)^2 / l))`` with ``h_s = C_s y_s
    g_s`` over the ``l`` members (D-LASVM-11); ``C_s = B_s - A_s``, the width of the box, which
    is the class's C for the shifted boxes of LASVM-NC as well."""
    if count == 0:
        return 0.0
    grad, lower, upper, label = model[1], model[2], model[3], model[4]
    total = 0.0
    squares = 0.0
    for s in range(count):
        h = (upper[s] - lower[s]) * label[s] * grad[s]
        total += h
        squares += h * h
    return math.sqrt(max(0.0, squares - total * total / count))


@njit(cache=True)
def n_support(model, count):
    """Members with alpha != 0."""
    alpha = model[0]
    total = 0
    for s in range(count):
        if alpha[s] != 0.0:
            total += 1
    return total


@njit(cache=True)
def learn_gap(
    kind,
    gamma,
    store,
    model,
    cache,
    ints,
    x,
    y,
    c_y,
    floor,
    ramp,
    s,
    min_sv,
    tau,
    arrival,
    max_steps,
    work,
    qrow,
):
    """One online iteration of the chapter 6 family on ``x`` of class ``y`` and cost ``c_y``:
    the filter or the Ramp box from ``z = y f(x)`` (``ramp``, sections 6.2-6.3), the gap target
    (6.3), PROCESS (always admits; eq. 6.5 gradient), then REPROCESS while the gap (6.4,
    corrected) exceeds ``max(floor, target)``, at most ``max_steps`` times (D-LASVM-12).
    Returns ``(status, reprocess steps, whether the cap stopped the loop, z)``: ``z`` is the
    sample's ``y f(x)`` before it was learned, which places it on the Ramp (Table 6.1's
    bookkeeping is the caller's; the sample, when admitted, is member ``ints[COUNT] - 1``)."""
    sqnorm_x = _fresh_row(kind, gamma, store, ints, x, work, qrow)
    count = ints[COUNT]
    alpha = model[0]
    f = 0.0
    for t in range(count):
        f += alpha[t] * qrow[t]
    z = y * f
    if ramp == RAMP_I and (z > 1.0 or z < s):
        return SKIPPED, 0, False, z
    beta = 0.0
    if ramp == RAMP_NC and z < s and n_support(model, count) > min_sv:
        beta = c_y
    bounds = (min(0.0, c_y * y) - beta * y, max(0.0, c_y * y) - beta * y)  # eq. 6.13
    threshold = max(floor, gap_target(model, count))
    diag_value = kernel_value(kind, gamma, sqnorm_x, sqnorm_x, sqnorm_x)
    k = _insert_member(store, model, cache, ints, x, sqnorm_x, y, bounds, diag_value, arrival, qrow)
    _single_step(model, cache[0], k + 1, k, cache[4][k])
    steps = 0
    while True:
        # the gap and REPROCESS's member come from one pass over the members (one step costs
        # O(members), and a sample can take hundreds of steps)
        gap, j = _gap_and_choice(model, ints[COUNT], tau)
        if gap <= threshold:
            break
        if steps >= max_steps:
            return (ADMITTED_FLAT if beta > 0.0 else ADMITTED), steps, True, z
        if j < 0 or not _gap_step(kind, gamma, store, model, cache, ints, j, work):
            break
        steps += 1
    return (ADMITTED_FLAT if beta > 0.0 else ADMITTED), steps, False, z


@njit(cache=True)
def finish_gap(kind, gamma, store, model, cache, ints, tau, max_iter, work):
    """REPROCESS of the chapter 6 family until no coordinate violates by more than ``tau`` (at
    most ``max_iter`` steps, < 0: no limit); returns the steps taken."""
    steps = 0
    while max_iter < 0 or steps < max_iter:
        if not reprocess_gap(kind, gamma, store, model, cache, ints, tau, work):
            break
        steps += 1
    return steps


@njit(cache=True)
def clean(store, model, cache, ints, keep, tags, removed):
    """CLEAN of chapter 6 (D-LASVM-13): when more than ``keep`` members have alpha = 0, keep the
    ``keep`` of smallest |g| (ties: the most recent, by the arrival time in the key slot) and
    remove the others. Returns the number removed.

    ``tags`` holds a small non-negative integer per member slot that the caller attached to the
    member (Table 6.1's Ramp region at admission): it moves with its member, as the member
    arrays do, and ``removed[tag]`` counts each removed member under its tag. Nothing here reads
    a tag otherwise, so the tags change no result."""
    alpha, grad, keys = model[0], model[1], model[6]
    count = ints[COUNT]
    zero = np.empty(count, np.int64)
    n_zero = 0
    for s in range(count):
        if alpha[s] == 0.0:
            zero[n_zero] = s
            n_zero += 1
    if n_zero <= keep:
        return 0
    zero = zero[:n_zero]
    by_recency = zero[np.argsort(-keys[zero], kind="mergesort")]
    ranked = by_recency[np.argsort(np.abs(grad[by_recency]), kind="mergesort")]
    doomed = np.sort(ranked[keep:])
    for t in range(doomed.shape[0] - 1, -1, -1):  # from the end: the moved members stay valid
        slot = doomed[t]
        last = ints[COUNT] - 1
        removed[tags[slot]] += 1
        tags[slot] = tags[last]  # the last member moves into the hole, its tag with it
        tags[last] = 0
        remove_member(store, model, cache, ints, slot)
    return doomed.shape[0]
