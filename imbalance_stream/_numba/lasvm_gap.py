"""The steps of the chapter 6 family of LASVM (Ertekin 2009, sections 6.1-6.4: LASVM-G, -NC, -I
and FULL SVM) on the members of :mod:`.lasvm`: no bias, single-coordinate PROCESS and REPROCESS
driven by the duality gap, the Ramp's boxes and filter, and CLEAN."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .lasvm import (
    COUNT,
    EPS_CURVATURE,
    expansion,
    fresh_row,
    insert_member,
    kernel_value,
    member_row,
    remove_member,
)

__all__ = [
    "ADMITTED",
    "ADMITTED_FLAT",
    "RAMP_I",
    "RAMP_NC",
    "RAMP_NONE",
    "SKIPPED",
    "clean",
    "duality_gap",
    "finish_gap",
    "gap_target",
    "learn_gap",
    "n_support",
    "reprocess_gap",
]

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
    alpha, grad, lower, upper, diag = model.alpha, model.grad, model.lower, model.upper, model.diag
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
    alpha, grad, lower, upper = model.alpha, model.grad, model.lower, model.upper
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
def _gap_step(e, k):
    """The single-coordinate step on member ``k``; returns whether alpha changed."""
    line = member_row(e, k)
    return _single_step(e.model, e.cache.lines, e.ints[COUNT], k, line)


@njit(cache=True)
def reprocess_gap(e, tau):
    """REPROCESS of LASVM-G (:func:`_gap_and_choice`'s member): no step unless it violates by
    more than ``tau``. Returns whether a step was taken. Nothing is removed."""
    k = _gap_and_choice(e.model, e.ints[COUNT], tau)[1]
    return k >= 0 and _gap_step(e, k)


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
    grad, lower, upper, label = model.grad, model.lower, model.upper, model.label
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
    alpha = model.alpha
    total = 0
    for s in range(count):
        if alpha[s] != 0.0:
            total += 1
    return total


@njit(cache=True)
def learn_gap(state, x, y, c_y, floor, ramp, s, min_sv, tau, arrival, max_steps):
    """One online iteration of the chapter 6 family on ``x`` of class ``y`` and cost ``c_y``:
    the filter or the Ramp box from ``z = y f(x)`` (``ramp``, sections 6.2-6.3), the gap target
    (6.3), PROCESS (always admits; eq. 6.5 gradient), then REPROCESS while the gap (6.4,
    corrected) exceeds ``max(floor, target)``, at most ``max_steps`` times (D-LASVM-12).
    Returns ``(status, reprocess steps, whether the cap stopped the loop, z)``: ``z`` is the
    sample's ``y f(x)`` before it was learned, which places it on the Ramp (Table 6.1's
    bookkeeping is the caller's; the sample, when admitted, is member ``ints[COUNT] - 1``)."""
    e = expansion(state)
    sqnorm_x = fresh_row(e, x)
    model, qrow = e.model, e.qrow
    count = e.ints[COUNT]
    alpha = model.alpha
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
    diag_value = kernel_value(e.kind, e.gamma, sqnorm_x, sqnorm_x, sqnorm_x)
    k = insert_member(e, x, sqnorm_x, y, bounds, diag_value, arrival)
    _single_step(model, e.cache.lines, k + 1, k, e.cache.row_of[k])
    steps = 0
    while True:
        # the gap and REPROCESS's member come from one pass over the members (one step costs
        # O(members), and a sample can take hundreds of steps)
        gap, j = _gap_and_choice(model, e.ints[COUNT], tau)
        if gap <= threshold:
            break
        if steps >= max_steps:
            return (ADMITTED_FLAT if beta > 0.0 else ADMITTED), steps, True, z
        if j < 0 or not _gap_step(e, j):
            break
        steps += 1
    return (ADMITTED_FLAT if beta > 0.0 else ADMITTED), steps, False, z


@njit(cache=True)
def finish_gap(state, tau, max_iter):
    """REPROCESS of the chapter 6 family until no coordinate violates by more than ``tau`` (at
    most ``max_iter`` steps, < 0: no limit); returns the steps taken."""
    e = expansion(state)
    steps = 0
    while max_iter < 0 or steps < max_iter:
        if not reprocess_gap(e, tau):
            break
        steps += 1
    return steps


@njit(cache=True)
def clean(state, keep, tags, removed):
    """CLEAN of chapter 6 (D-LASVM-13): when more than ``keep`` members have alpha = 0, keep the
    ``keep`` of smallest |g| (ties: the most recent, by the arrival time in the key slot) and
    remove the others. Returns the number removed.

    ``tags`` holds a small non-negative integer per member slot that the caller attached to the
    member (Table 6.1's Ramp region at admission): it moves with its member, as the member
    arrays do, and ``removed[tag]`` counts each removed member under its tag. Nothing here reads
    a tag otherwise, so the tags change no result."""
    e = expansion(state)
    alpha, grad, keys = e.model.alpha, e.model.grad, e.model.key
    ints = e.ints
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
        remove_member(e, slot)
    return doomed.shape[0]
