"""The KOIL step (the thesis's Algorithms 1-3, eqs. 3.9, 3.10, 3.18) with a cached Gram matrix
and incremental scores.

State of one KOIL learner, a :class:`KOILState` (all arrays owned by the estimator, updated in
place), with its hyper-parameters in a :class:`KOILParams`; every step function takes the two
bundles, so their fields are listed once, here:

* ``X`` (capacity x width): stored vectors of both classes in one pool of slots;
* ``beta`` (capacity): weights up to a global scale, ``alpha_i = scale * beta_i``, so the
  ``(1 - eta)`` decay of every weight at every step is one multiplication (D-KOIL-7);
* ``h`` (capacity): scores of the stored vectors up to the same scale,
  ``f(x_i) = scale * h_i = scale * sum_j beta_j G[j, i]``, kept up to date incrementally;
* ``G`` (capacity x capacity): the Gram cache over the slots in use, or a 0 x 0 array to compute
  the few rows a step needs on the fly (the unbounded policy, whose pool grows without limit);
* ``members`` (2 x capacity, int64): the slots of the positive buffer (row 0) and of the negative
  buffer (row 1), in buffer-position order (the FIFO ring order);
* ``ints`` (int64): ``[slots in use, count+, count-, head+, head-, seen+, seen-, steps since the
  last exact refresh]``; ``floats``: ``[scale]``.

With the cache a step costs one kernel row, O(n d), plus O(n k) for the score updates of the k
selected pairs, against O(n^2 d) for recomputing every opposite score from scratch. The scores are
recomputed exactly from ``G`` and ``beta`` every ``n`` steps (O(n) amortised) to stop round-off
drift, and the scale is folded back into ``beta`` before it underflows.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from . import budget as B
from .kernels import argmax_over, kernel, kernel_row, sq_distance_row

#: The smooth loss moves a weight by ``2 eta C`` times the pair's hinge value (eq. 3.18), which
#: feeds back into the next hinge values: with a large ``eta C`` the weights grow without bound
#: until the scores overflow. Each hinge value entering the smooth move (and the reported loss)
#: is clipped here, as the authors' code clips it (``project_bound``); a clipped move is a hinge
#: move of step ``2 eta C 1e6``, so the weights stay bounded by ``O(C k 1e6)`` (D-KOIL-27).
SMOOTH_HINGE_CLIP = 1e6

__all__ = [
    "COUNT",
    "HEAD",
    "LEARNED",
    "NO_UNDO",
    "N_INTS",
    "REFUSED",
    "SCALE",
    "SEEN",
    "SINCE",
    "USED",
    "KOILParams",
    "KOILState",
    "koil_learn",
    "koil_predict",
    "koil_restore",
    "koil_score",
    "koil_step",
    "refresh_scores",
    "step_finite",
    "undo_size",
]

#: Layout of the ``ints`` state vector: slots in use; stored vectors of class 0 (positive) and 1
#: (negative) at ``COUNT + cls``; each buffer's head at ``HEAD + cls``; samples seen of each class
#: at ``SEEN + cls``; steps since the scores were last refreshed. ``N_INTS`` is its length.
USED, COUNT, HEAD, SEEN, SINCE = 0, 1, 3, 5, 7
N_INTS = 8
#: Index in ``floats`` of the common scale of the weights (``beta`` holds them unscaled).
SCALE = 0
_SMALL_SCALE = 1e-100
#: What :func:`koil_learn` returns: the sample was learned; it was refused (the step's result
#: was not finite, and everything it wrote was put back); nothing was done (``undo`` of the
#: wrong size).
LEARNED, REFUSED, NO_UNDO = 1, 0, -1


class KOILState(NamedTuple):
    """The arrays of one KOIL learner (the module docstring), read and written in place."""

    X: np.ndarray
    beta: np.ndarray
    h: np.ndarray
    G: np.ndarray
    members: np.ndarray
    ints: np.ndarray
    floats: np.ndarray


class KOILParams(NamedTuple):
    """The hyper-parameters of a KOIL step (:func:`koil_step`)."""

    kind: int
    gamma: float
    degree: float
    coef0: float
    C: float
    eta: float
    decay: float
    k: int
    budget: int
    policy: int
    smooth: bool
    knn_first: bool
    euclidean: bool


@njit(cache=True)
def undo_size(width, gram, capacity):
    """Length of the ``undo`` record of :func:`koil_learn` over a pool of ``capacity`` slots,
    ``width`` columns and a ``gram`` square Gram cache: ``[slot, X[slot], G[slot]]`` then copies
    of ``beta``, ``h``, ``members``, ``ints`` and ``floats``."""
    return 1 + width + gram + 4 * capacity + N_INTS + 1


@njit(cache=True)
def _gram_row(s, p, n, slot, scratch):
    """Row ``slot`` of the Gram matrix over the ``n`` slots in use: cached, or computed."""
    if s.G.shape[0] > 0:
        return s.G[slot]
    return kernel_row(p.kind, s.X, n, s.X[slot], p.gamma, p.degree, p.coef0, scratch)


@njit(cache=True)
def refresh_scores(s, p):
    """Exact ``h = G beta`` over the slots in use, and the scale folded into ``beta`` and ``h``
    when it gets small. O(n^2) with the cache, O(n^2 d) without."""
    beta, h, ints, floats = s.beta, s.h, s.ints, s.floats
    n = ints[USED]
    scratch = np.empty(n)
    for i in range(n):
        row = _gram_row(s, p, n, i, scratch)
        total = 0.0
        for j in range(n):
            total += beta[j] * row[j]
        h[i] = total
    scale = floats[0]
    if scale < _SMALL_SCALE:
        for i in range(n):
            beta[i] *= scale
            h[i] *= scale
        floats[0] = 1.0
    ints[SINCE] = 0


@njit(cache=True)
def koil_score(X, beta, ints, floats, x, kind, gamma, degree, coef0):
    """``f(x) = sum_i alpha_i k(x_i, x)`` over the stored vectors of both buffers."""
    total = 0.0
    for i in range(ints[USED]):
        if beta[i] != 0.0:
            total += beta[i] * kernel(kind, x, X[i], gamma, degree, coef0)
    return floats[0] * total


@njit(cache=True)
def _scatter(indices, values, width):
    """The dense vector of ``width`` columns of a sparse sample (``FeatureSpace.dense``)."""
    x = np.zeros(width)
    for j in range(indices.shape[0]):
        x[indices[j]] = values[j]
    return x


@njit(cache=True)
def koil_predict(X, beta, ints, floats, indices, values, kind, gamma, degree, coef0, row):
    """:func:`koil_score` of the sparse sample ``(indices, values)``, scattered here, keeping its
    kernel row in ``row`` (entries ``[0, n)``, ``n`` the slots in use) for the step on the same
    sample; NaN, and nothing computed, if ``row`` has fewer than ``n + 1`` entries."""
    n = ints[USED]
    if row.shape[0] <= n:
        return np.nan
    x = _scatter(indices, values, X.shape[1])
    total = 0.0
    for i in range(n):
        value = kernel(kind, x, X[i], gamma, degree, coef0)
        row[i] = value
        if beta[i] != 0.0:
            total += beta[i] * value
    return floats[0] * total


@njit(cache=True)
def _nearest(values, slots, count, k, taken, out):
    """Write into ``out`` the positions (< count) of the ``k`` largest ``values[slots[p]]``, the
    earlier position first on ties; return how many were written (``min(k, count)``)."""
    m = min(k, count)
    for p in range(count):
        taken[p] = False
    for t in range(m):
        best = -1
        best_value = 0.0
        for p in range(count):
            if not taken[p]:
                value = values[slots[p]]
                if best < 0 or value > best_value:
                    best = p
                    best_value = value
        taken[best] = True
        out[t] = best
    return m


@njit(cache=True)
def _add_row(h, n, coefficient, row):
    """``h[:n] += coefficient * row[:n]``."""
    for i in range(n):
        h[i] += coefficient * row[i]


# Element loops below, not slice assignments: numba's slice assignment compiles a shape-mismatch
# error path that formats strings, about 1.5 s of CPU on a cold first learn_one
# (benchmarks/README.md, "4. First use"). The rollback record ``undo`` (:func:`undo_size`) is
# ``[slot, X[slot], G[slot], beta, h, members[0], members[1], ints, floats]``.


@njit(cache=True)
def _save_slot(s, slot, undo):
    """Keep in ``undo`` what storing into ``slot`` overwrites, for a rollback: ``[slot, X[slot],
    G[slot]]`` (the cached Gram matrix is symmetric, so its row is also its column). An empty
    ``undo`` keeps nothing."""
    if undo.shape[0] == 0:
        return
    undo[0] = slot
    width = s.X.shape[1]
    for j in range(width):
        undo[1 + j] = s.X[slot, j]
    for j in range(s.G.shape[0]):
        undo[1 + width + j] = s.G[slot, j]


@njit(cache=True)
def _save_small(s, undo):
    """Copy the O(capacity) arrays (``beta``, ``h``, ``members``, ``ints``, ``floats``) into
    ``undo`` after its slot record."""
    offset = 1 + s.X.shape[1] + s.G.shape[0]
    capacity = s.beta.shape[0]
    for j in range(capacity):
        undo[offset + j] = s.beta[j]
        undo[offset + capacity + j] = s.h[j]
        undo[offset + 2 * capacity + j] = s.members[0, j]
        undo[offset + 3 * capacity + j] = s.members[1, j]
    offset += 4 * capacity
    for j in range(N_INTS):
        undo[offset + j] = s.ints[j]
    undo[offset + N_INTS] = s.floats[SCALE]


@njit(cache=True)
def _restore(s, undo):
    """Put back everything :func:`_save_slot` (if it saved a slot, ``undo[0] >= 0``) and
    :func:`_save_small` kept in ``undo``."""
    X, G = s.X, s.G
    width = X.shape[1]
    slot = int(undo[0])
    if slot >= 0:
        for j in range(width):
            X[slot, j] = undo[1 + j]
        for j in range(G.shape[0]):
            G[slot, j] = undo[1 + width + j]
            G[j, slot] = undo[1 + width + j]
    offset = 1 + width + G.shape[0]
    capacity = s.beta.shape[0]
    for j in range(capacity):
        s.beta[j] = undo[offset + j]
        s.h[j] = undo[offset + capacity + j]
        s.members[0, j] = int(undo[offset + 2 * capacity + j])
        s.members[1, j] = int(undo[offset + 3 * capacity + j])
    offset += 4 * capacity
    for j in range(N_INTS):
        s.ints[j] = int(undo[offset + j])
    s.floats[SCALE] = undo[offset + N_INTS]


@njit(cache=True)
def step_finite(s, undo):
    """Whether everything a KOIL step may write is finite: the weights, the scores, the scale
    and, if it stored a vector (``undo[0] >= 0``), that vector and its Gram row."""
    for array in (s.beta, s.h, s.floats):
        for value in array:
            if not np.isfinite(value):
                return False
    slot = int(undo[0])
    if slot >= 0:
        for value in s.X[slot]:
            if not np.isfinite(value):
                return False
        if s.G.shape[0] > 0:
            for value in s.G[slot]:
                if not np.isfinite(value):
                    return False
    return True


@njit(cache=True)
def _store(s, n, n_rows, slot, x, new_beta, krow, self_value, undo):
    """Write ``x`` with weight ``new_beta`` into ``slot`` (a fresh one, ``n_rows = n + 1``, or an
    overwritten one, ``n_rows = n``): ``krow`` holds ``k(x, .)`` over the ``n`` rows in use before,
    and gets ``k(x, x)`` at ``slot``; the scores ``h`` of the other rows gain ``new_beta k(x, .)``,
    ``h[slot]`` is recomputed in full, and the cached Gram row and column are replaced (what they
    held is kept in ``undo`` first, :func:`_save_slot`)."""
    X, beta, h, G = s.X, s.beta, s.h, s.G
    _save_slot(s, slot, undo)
    for j in range(X.shape[1]):  # element loop: see _save_slot
        X[slot, j] = x[j] if j < x.shape[0] else 0.0
    beta[slot] = new_beta
    krow[slot] = self_value
    _add_row(h, n, new_beta, krow)
    total = 0.0
    for j in range(n_rows):
        total += beta[j] * krow[j]
    h[slot] = total
    if G.shape[0] > 0:
        for j in range(n_rows):
            G[slot, j] = krow[j]
            G[j, slot] = krow[j]


@njit(cache=True)
def _score_and_similarity(s, p, n, scale, x, row):
    """Step 1: ``f_t(x_t)`` with the weights before this step's decay, the kernel row of ``x_t``
    over the ``n`` slots in use (one spare entry), and the similarity used to pick neighbours.
    A ``row`` of more than ``n`` entries is that kernel row already computed
    (:func:`koil_predict`) and is used (and overwritten) as it is; an empty one is computed."""
    if row.shape[0] > n:
        krow = row
    else:
        krow = np.empty(n + 1)
        kernel_row(p.kind, s.X, n, x, p.gamma, p.degree, p.coef0, krow)
    total = 0.0
    for i in range(n):
        total += s.beta[i] * krow[i]
    if p.euclidean:
        similarity = np.empty(n + 1)
        sq_distance_row(s.X, n, x, similarity)
        for i in range(n):
            similarity[i] = -similarity[i]
    else:
        similarity = krow  # read before krow is modified by the storage step
    return scale * total, krow, similarity


@njit(cache=True)
def _select_pairs(h, opposite, n_opp, scale, y, f_t, similarity, k, knn_first):
    """Step 2: the pairwise hinge values with every opposite vector, and the selected set V
    (positions into ``opposite``); returns ``(losses, selected, n_selected, n_violators)``."""
    losses = np.empty(max(n_opp, 1))
    n_violators = 0
    for q in range(n_opp):
        value = 1.0 - y * (f_t - scale * h[opposite[q]])
        losses[q] = value
        if value > 0.0:
            n_violators += 1
    taken = np.empty(max(n_opp, 1), dtype=np.bool_)
    picked = np.empty(max(n_opp, 1), dtype=np.int64)
    selected = np.empty(max(n_opp, 1), dtype=np.int64)
    n_selected = 0
    if knn_first:
        m = _nearest(similarity, opposite, n_opp, k, taken, picked)
        for t in range(m):
            if losses[picked[t]] > 0.0:
                selected[n_selected] = picked[t]
                n_selected += 1
    else:
        violator_slots = np.empty(max(n_violators, 1), dtype=np.int64)
        violator_positions = np.empty(max(n_violators, 1), dtype=np.int64)
        v = 0
        for q in range(n_opp):
            if losses[q] > 0.0:
                violator_slots[v] = opposite[q]
                violator_positions[v] = q
                v += 1
        m = _nearest(similarity, violator_slots, n_violators, k, taken, picked)
        for t in range(m):
            selected[t] = violator_positions[picked[t]]
        n_selected = m
    return losses, selected, n_selected, n_violators


@njit(cache=True)
def _update_selected(s, p, n, opposite, losses, selected, n_selected, step, scale, scratch):
    """Step 4 (after a normal round): the selected opposite vectors move by ``step`` (or twice the
    hinge value times it, when ``smooth``); returns ``(alpha_t, loss)``."""
    smooth = p.smooth
    alpha_t = 0.0
    loss = 0.0
    for t in range(n_selected):
        value = losses[selected[t]]
        if smooth and value > SMOOTH_HINGE_CLIP:
            value = SMOOTH_HINGE_CLIP  # D-KOIL-27
        slot = opposite[selected[t]]
        change = 2.0 * step * value if smooth else step
        loss += value * value if smooth else value
        alpha_t += change
        s.beta[slot] -= change / scale
        row = _gram_row(s, p, n, slot, scratch)
        _add_row(s.h, n, -change / scale, row)
    return alpha_t, loss


@njit(cache=True)
def _compensate(s, p, n, same, n_same, similarity, weight, scratch):
    """RS++ / FIFO++ (Algorithm 3): the weight of the removed vector goes to the most similar
    vector of the buffer ``same`` (its first ``n_same`` slots)."""
    c = same[argmax_over(similarity, same, n_same)]
    s.beta[c] += weight
    row = _gram_row(s, p, n, c, scratch)
    _add_row(s.h, n, weight, row)


@njit(cache=True)
def _place(s, p, n, cls, x, new_beta, krow, similarity, u_accept, u_slot, scratch, undo):
    """Step 5: ``x`` (weight ``new_beta``) enters the buffer of its class by ``policy``: into a
    fresh slot, over a stored vector, or not at all; RS++ and FIFO++ move the removed vector's
    weight onto the most similar one left (Algorithm 3)."""
    ints = s.ints
    same = s.members[cls]
    n_same = ints[COUNT + cls]
    head = ints[HEAD + cls]
    seen = ints[SEEN + cls]
    position = B.place(p.policy, n_same, head, p.budget, seen, u_accept, u_slot)
    self_value = kernel(p.kind, x, x, p.gamma, p.degree, p.coef0)
    if position == n_same:  # append into a fresh slot
        slot = n
        same[position] = slot
        ints[COUNT + cls] = n_same + 1
        ints[USED] = n + 1
        _store(s, n, n + 1, slot, x, new_beta, krow, self_value, undo)
    elif position == B.DROP:  # x itself is the removed vector
        if B.compensates(p.policy):
            _compensate(s, p, n, same, n_same, similarity, new_beta, scratch)
    else:  # x overwrites the vector at ``position``
        slot = same[position]
        removed_beta = s.beta[slot]
        removed_row = np.empty(n)  # k(x_removed, .) before the overwrite
        row = _gram_row(s, p, n, slot, scratch)
        for j in range(n):
            removed_row[j] = row[j]
        _add_row(s.h, n, -removed_beta, removed_row)
        removed_row[slot] = krow[slot]  # the slot now holds x: k(x_removed, x)
        if p.euclidean:
            removed_similarity = np.empty(n)
            sq_distance_row(s.X, n, s.X[slot], removed_similarity)
            for j in range(n):
                removed_similarity[j] = -removed_similarity[j]
            removed_similarity[slot] = similarity[slot]  # -||x_removed - x||^2
        else:
            removed_similarity = removed_row
        _store(s, n, n, slot, x, new_beta, krow, self_value, undo)
        ints[HEAD + cls] = B.advance_head(p.policy, position, n_same, head, p.budget)
        if B.compensates(p.policy):
            # the most similar vector of the buffer after the replacement (it may be x)
            _compensate(s, p, n, same, n_same, removed_similarity, removed_beta, scratch)


@njit(cache=True)
def koil_step(s, p, x, y, u_accept, u_slot, undo, row):
    """One KOIL trial on ``(x, y)``, ``y`` in {+1, -1} (Algorithms 1-3, eqs. 3.9, 3.10, 3.18),
    on the state ``s`` (:class:`KOILState`) with the hyper-parameters ``p`` (:class:`KOILParams`).

    ``p.eta`` is the gradient step and ``p.decay`` the factor applied to every weight first
    (``1 - eta`` for KOIL, 1 for the un-regularised multiple-kernel step of eqs. 4.2/4.3).
    ``p.smooth`` selects the squared pairwise hinge; ``p.knn_first`` the neighbour mode of eq. 3.9
    (take the k most similar opposite vectors, then keep the violators) instead of Algorithm 2's,
    the default (take the violators, then keep the k most similar; D-KOIL-1). Similarity, for
    the neighbours and the compensation target, is the kernel value, or with ``p.euclidean`` minus
    the squared Euclidean distance (D-KOIL-18). The storage must have a free slot.
    ``u_accept`` and ``u_slot`` are the reservoir's two uniforms.

    ``undo`` (float64, at least ``1 + width + G.shape[0]`` entries, or empty) receives what the
    step overwrites in ``X`` and ``G`` (:func:`_save_slot`; ``undo[0]`` stays -1 when nothing is
    stored). ``row``: the kernel row of ``x`` if already computed (:func:`koil_predict`), else
    empty.

    Returns ``(alpha_t, loss)``: the weight given to ``x`` (0 means not stored) and the
    un-regularised pairwise loss of the selected pairs without ``C`` (sum of the hinge values, or
    of their squares when ``smooth``; 0 on the bootstrap rounds), which the Hedge weights use.
    """
    ints = s.ints
    if undo.shape[0] > 0:
        undo[0] = -1.0
    cls = 0 if y > 0 else 1
    opp = 1 - cls
    ints[SEEN + cls] += 1
    n = ints[USED]
    n_opp = ints[COUNT + opp]
    scale = s.floats[SCALE]

    f_t, krow, similarity = _score_and_similarity(s, p, n, scale, x, row)
    opposite = s.members[opp]
    losses, selected, n_selected, n_violators = _select_pairs(
        s.h, opposite, n_opp, scale, y, f_t, similarity, p.k, p.knn_first
    )

    # 3. decay of every weight (and so of every score): lazy, through the scale
    scale *= p.decay
    s.floats[SCALE] = scale

    step = p.eta * p.C * y
    scratch = np.empty(n + 1)
    if n_opp == 0 or (ints[COUNT + cls] == 0 and n_violators == 0):
        # bootstrap (D-KOIL-2): eq. 3.10 would give 0 and nothing would start
        alpha_t, loss = step, 0.0
    else:
        alpha_t, loss = _update_selected(
            s, p, n, opposite, losses, selected, n_selected, step, scale, scratch
        )

    ints[SINCE] += 1
    if alpha_t != 0.0:  # D-KOIL-3: a zero weight is not stored, nothing is drawn
        _place(s, p, n, cls, x, alpha_t / scale, krow, similarity, u_accept, u_slot, scratch, undo)
    if ints[SINCE] >= ints[USED] or scale < _SMALL_SCALE:
        refresh_scores(s, p)
    return alpha_t, loss


@njit(cache=True)
def koil_restore(s, undo):
    """Put back the state :func:`koil_learn` saved in ``undo`` before its step: for a caller
    whose step raised instead of returning. Nothing if it saved nothing (``undo[0]`` still
    below -1, as the caller set it before the call)."""
    if undo.shape[0] > 0 and undo[0] >= -1.0:
        _restore(s, undo)


@njit(cache=True)
def koil_learn(
    X,
    beta,
    h,
    G,
    members,
    ints,
    floats,
    indices,
    values,
    y,
    u_accept,
    u_slot,
    kind,
    gamma,
    degree,
    coef0,
    C,
    eta,
    decay,
    k,
    budget,
    policy,
    smooth,
    knn_first,
    euclidean,
    undo,
    row,
):
    """The estimator's one jitted call per sample: the sparse sample ``(indices, values)``
    scattered over the columns, then :func:`koil_step` on the arrays of :class:`KOILState` with
    the fields of :class:`KOILParams` (given one by one, in their order: numba types a bundle of
    scalars passed from Python through a slower path than separate scalars), as a transaction.

    Before the step, ``undo`` (:func:`undo_size` entries) receives the O(capacity) arrays, and
    the step keeps there the stored vector and Gram row it overwrites. If the step leaves a value
    that is not finite (an overflow), everything it wrote is put back from ``undo`` and the call
    returns ``REFUSED``: the state is then exactly as before; else ``LEARNED``. A step that
    raises leaves ``undo`` for :func:`koil_restore`. An ``undo`` of another size than
    :func:`undo_size`'s changes nothing and returns ``NO_UNDO``."""
    if undo.shape[0] != undo_size(X.shape[1], G.shape[0], X.shape[0]):
        return NO_UNDO
    s = KOILState(X, beta, h, G, members, ints, floats)
    p = KOILParams(
        kind, gamma, degree, coef0, C, eta, decay, k, budget, policy, smooth, knn_first, euclidean
    )
    _save_small(s, undo)
    undo[0] = -1.0  # saved, no slot overwritten yet
    x = _scatter(indices, values, X.shape[1])
    koil_step(s, p, x, y, u_accept, u_slot, undo, row)
    if step_finite(s, undo):
        return LEARNED
    _restore(s, undo)
    return REFUSED
