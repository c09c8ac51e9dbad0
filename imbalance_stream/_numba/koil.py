"""The KOIL step (the thesis's Algorithms 1-3, eqs. 3.9, 3.10, 3.18) with a cached Gram matrix
and incremental scores.

State of one KOIL learner (all arrays owned by the estimator, updated in place):

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
    "N_INTS",
    "SCALE",
    "SEEN",
    "SINCE",
    "USED",
    "koil_mkl_score",
    "koil_mkl_step",
    "koil_score",
    "koil_score_row",
    "koil_step",
    "koil_step_checked",
    "refresh_scores",
    "restore_slot",
    "save_slot",
    "step_finite",
]

#: Layout of the ``ints`` state vector: slots in use; stored vectors of class 0 (positive) and 1
#: (negative) at ``COUNT + cls``; each buffer's head at ``HEAD + cls``; samples seen of each class
#: at ``SEEN + cls``; steps since the scores were last refreshed. ``N_INTS`` is its length.
USED, COUNT, HEAD, SEEN, SINCE = 0, 1, 3, 5, 7
N_INTS = 8
#: Index in ``floats`` of the common scale of the weights (``beta`` holds them unscaled).
SCALE = 0
_SMALL_SCALE = 1e-100


@njit(cache=True)
def _gram_row(G, cached, kind, X, n, slot, gamma, degree, coef0, scratch):
    """Row ``slot`` of the Gram matrix over the ``n`` slots in use: cached, or computed."""
    if cached:
        return G[slot]
    return kernel_row(kind, X, n, X[slot], gamma, degree, coef0, scratch)


@njit(cache=True)
def refresh_scores(X, beta, h, G, ints, floats, kind, gamma, degree, coef0):
    """Exact ``h = G beta`` over the slots in use, and the scale folded into ``beta`` and ``h``
    when it gets small. O(n^2) with the cache, O(n^2 d) without."""
    n = ints[USED]
    cached = G.shape[0] > 0
    scratch = np.empty(n)
    for i in range(n):
        row = _gram_row(G, cached, kind, X, n, i, gamma, degree, coef0, scratch)
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
def koil_score_row(X, beta, ints, floats, x, kind, gamma, degree, coef0):
    """:func:`koil_score` (the same sum, the same value) and the kernel row it went through,
    ``k(x_i, x)`` for every slot in use plus one spare entry: the row a step on the same ``x``
    starts from if nothing changed in between (:func:`koil_step_checked`)."""
    n = ints[USED]
    row = np.empty(n + 1)
    total = 0.0
    for i in range(n):
        value = kernel(kind, x, X[i], gamma, degree, coef0)
        row[i] = value
        if beta[i] != 0.0:
            total += beta[i] * value
    return floats[0] * total, row


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


@njit(cache=True)
def save_slot(X, G, slot, undo):
    """Keep in ``undo`` what storing into ``slot`` overwrites, for a rollback: ``[slot, X[slot],
    G[slot]]`` (the cached Gram matrix is symmetric, so its row is also its column). An empty
    ``undo`` keeps nothing."""
    if undo.shape[0] == 0:
        return
    width = X.shape[1]
    undo[0] = slot
    # Element loops, not slice assignments: numba's slice assignment compiles a shape-mismatch
    # error path that formats strings, about 1.5 s of CPU on a cold first learn_one
    # (benchmarks/README.md, "4. First use").
    for j in range(width):
        undo[1 + j] = X[slot, j]
    for j in range(G.shape[0]):
        undo[1 + width + j] = G[slot, j]


@njit(cache=True)
def restore_slot(X, G, undo):
    """Undo :func:`save_slot`'s slot, if one was saved (``undo[0] >= 0``)."""
    slot = int(undo[0])
    if slot < 0:
        return
    width = X.shape[1]
    for j in range(width):
        X[slot, j] = undo[1 + j]
    for j in range(G.shape[0]):
        G[slot, j] = undo[1 + width + j]
        G[j, slot] = undo[1 + width + j]


@njit(cache=True)
def step_finite(beta, h, floats, X, G, undo):
    """Whether everything a KOIL step may write is finite: the weights, the scores, the scale
    and, if it stored a vector (``undo[0] >= 0``), that vector and its Gram row."""
    for array in (beta, h, floats):
        for value in array:
            if not np.isfinite(value):
                return False
    slot = int(undo[0])
    if slot >= 0:
        for value in X[slot]:
            if not np.isfinite(value):
                return False
        if G.shape[0] > 0:
            for value in G[slot]:
                if not np.isfinite(value):
                    return False
    return True


@njit(cache=True)
def _store(X, beta, h, G, cached, n, n_rows, slot, x, new_beta, krow, self_value, undo):
    """Write ``x`` with weight ``new_beta`` into ``slot`` (a fresh one, ``n_rows = n + 1``, or an
    overwritten one, ``n_rows = n``): ``krow`` holds ``k(x, .)`` over the ``n`` rows in use before,
    and gets ``k(x, x)`` at ``slot``; the scores ``h`` of the other rows gain ``new_beta k(x, .)``,
    ``h[slot]`` is recomputed in full, and the cached Gram row and column are replaced (what they
    held is kept in ``undo`` first, :func:`save_slot`)."""
    save_slot(X, G, slot, undo)
    for j in range(X.shape[1]):  # element loop: see save_slot
        X[slot, j] = x[j] if j < x.shape[0] else 0.0
    beta[slot] = new_beta
    krow[slot] = self_value
    _add_row(h, n, new_beta, krow)
    total = 0.0
    for j in range(n_rows):
        total += beta[j] * krow[j]
    h[slot] = total
    if cached:
        for j in range(n_rows):
            G[slot, j] = krow[j]
            G[j, slot] = krow[j]


@njit(cache=True)
def _score_and_similarity(X, beta, n, scale, x, kind, gamma, degree, coef0, euclidean, row):
    """Step 1: ``f_t(x_t)`` with the weights before this step's decay, the kernel row of ``x_t``
    over the ``n`` slots in use (one spare entry), and the similarity used to pick neighbours.
    A ``row`` of more than ``n`` entries is that kernel row already computed
    (:func:`koil_score_row`) and is used (and overwritten) as it is; an empty one is computed."""
    if row.shape[0] > n:
        krow = row
    else:
        krow = np.empty(n + 1)
        kernel_row(kind, X, n, x, gamma, degree, coef0, krow)
    total = 0.0
    for i in range(n):
        total += beta[i] * krow[i]
    if euclidean:
        similarity = np.empty(n + 1)
        sq_distance_row(X, n, x, similarity)
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
    for p in range(n_opp):
        value = 1.0 - y * (f_t - scale * h[opposite[p]])
        losses[p] = value
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
        q = 0
        for p in range(n_opp):
            if losses[p] > 0.0:
                violator_slots[q] = opposite[p]
                violator_positions[q] = p
                q += 1
        m = _nearest(similarity, violator_slots, n_violators, k, taken, picked)
        for t in range(m):
            selected[t] = violator_positions[picked[t]]
        n_selected = m
    return losses, selected, n_selected, n_violators


@njit(cache=True)
def _update_selected(
    X,
    beta,
    h,
    G,
    cached,
    n,
    opposite,
    losses,
    selected,
    n_selected,
    step,
    scale,
    smooth,
    kind,
    gamma,
    degree,
    coef0,
    scratch,
):
    """Step 4 (after a normal round): the selected opposite vectors move by ``step`` (or twice the
    hinge value times it, when ``smooth``); returns ``(alpha_t, loss)``."""
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
        beta[slot] -= change / scale
        row = _gram_row(G, cached, kind, X, n, slot, gamma, degree, coef0, scratch)
        _add_row(h, n, -change / scale, row)
    return alpha_t, loss


@njit(cache=True)
def _place(
    X,
    beta,
    h,
    G,
    members,
    ints,
    cached,
    n,
    cls,
    x,
    new_beta,
    krow,
    similarity,
    seen,
    u_accept,
    u_slot,
    kind,
    gamma,
    degree,
    coef0,
    budget,
    policy,
    euclidean,
    scratch,
    undo,
):
    """Step 5: ``x`` (weight ``new_beta``) enters the buffer of its class by ``policy``: into a
    fresh slot, over a stored vector, or not at all; RS++ and FIFO++ move the removed vector's
    weight onto the most similar one left (Algorithm 3)."""
    same = members[cls]
    n_same = ints[COUNT + cls]
    head = ints[HEAD + cls]
    position = B.place(policy, n_same, head, budget, seen, u_accept, u_slot)
    self_value = kernel(kind, x, x, gamma, degree, coef0)
    if position == n_same:  # append into a fresh slot
        slot = n
        same[position] = slot
        ints[COUNT + cls] = n_same + 1
        ints[USED] = n + 1
        _store(X, beta, h, G, cached, n, n + 1, slot, x, new_beta, krow, self_value, undo)
    elif position == B.DROP:  # x itself is the removed vector
        if B.compensates(policy):
            c = same[argmax_over(similarity, same, n_same)]
            beta[c] += new_beta
            row = _gram_row(G, cached, kind, X, n, c, gamma, degree, coef0, scratch)
            _add_row(h, n, new_beta, row)
    else:  # x overwrites the vector at ``position``
        slot = same[position]
        removed_beta = beta[slot]
        removed_row = np.empty(n)  # k(x_removed, .) before the overwrite
        row = _gram_row(G, cached, kind, X, n, slot, gamma, degree, coef0, scratch)
        for j in range(n):
            removed_row[j] = row[j]
        _add_row(h, n, -removed_beta, removed_row)
        removed_row[slot] = krow[slot]  # the slot now holds x: k(x_removed, x)
        if euclidean:
            removed_similarity = np.empty(n)
            sq_distance_row(X, n, X[slot], removed_similarity)
            for j in range(n):
                removed_similarity[j] = -removed_similarity[j]
            removed_similarity[slot] = similarity[slot]  # -||x_removed - x||^2
        else:
            removed_similarity = removed_row
        _store(X, beta, h, G, cached, n, n, slot, x, new_beta, krow, self_value, undo)
        ints[HEAD + cls] = B.advance_head(policy, position, n_same, head, budget)
        if B.compensates(policy):
            # the most similar vector of the buffer after the replacement (it may be x)
            c = same[argmax_over(removed_similarity, same, n_same)]
            beta[c] += removed_beta
            row = _gram_row(G, cached, kind, X, n, c, gamma, degree, coef0, scratch)
            _add_row(h, n, removed_beta, row)


@njit(cache=True)
def _koil_step(
    X,
    beta,
    h,
    G,
    members,
    ints,
    floats,
    x,
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
    """:func:`koil_step`, starting from the kernel row ``row`` of ``x`` when it is given
    (:func:`_score_and_similarity`)."""
    if undo.shape[0] > 0:
        undo[0] = -1.0
    cls = 0 if y > 0 else 1
    opp = 1 - cls
    ints[SEEN + cls] += 1
    n = ints[USED]
    n_opp = ints[COUNT + opp]
    cached = G.shape[0] > 0
    scale = floats[SCALE]

    f_t, krow, similarity = _score_and_similarity(
        X, beta, n, scale, x, kind, gamma, degree, coef0, euclidean, row
    )
    opposite = members[opp]
    losses, selected, n_selected, n_violators = _select_pairs(
        h, opposite, n_opp, scale, y, f_t, similarity, k, knn_first
    )

    # 3. decay of every weight (and so of every score): lazy, through the scale
    scale *= decay
    floats[SCALE] = scale

    step = eta * C * y
    scratch = np.empty(n + 1)
    if n_opp == 0 or (ints[COUNT + cls] == 0 and n_violators == 0):
        # bootstrap (D-KOIL-2): eq. 3.10 would give 0 and nothing would start
        alpha_t, loss = step, 0.0
    else:
        alpha_t, loss = _update_selected(
            X,
            beta,
            h,
            G,
            cached,
            n,
            opposite,
            losses,
            selected,
            n_selected,
            step,
            scale,
            smooth,
            kind,
            gamma,
            degree,
            coef0,
            scratch,
        )

    ints[SINCE] += 1
    if alpha_t != 0.0:  # D-KOIL-3: a zero weight is not stored, nothing is drawn
        _place(
            X,
            beta,
            h,
            G,
            members,
            ints,
            cached,
            n,
            cls,
            x,
            alpha_t / scale,
            krow,
            similarity,
            ints[SEEN + cls],
            u_accept,
            u_slot,
            kind,
            gamma,
            degree,
            coef0,
            budget,
            policy,
            euclidean,
            scratch,
            undo,
        )
    if ints[SINCE] >= ints[USED] or scale < _SMALL_SCALE:
        refresh_scores(X, beta, h, G, ints, floats, kind, gamma, degree, coef0)
    return alpha_t, loss


@njit(cache=True)
def koil_step(
    X,
    beta,
    h,
    G,
    members,
    ints,
    floats,
    x,
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
):
    """One KOIL trial on ``(x, y)``, ``y`` in {+1, -1} (Algorithms 1-3, eqs. 3.9, 3.10, 3.18).

    ``eta`` is the gradient step and ``decay`` the factor applied to every weight first
    (``1 - eta`` for KOIL, 1 for the un-regularised multiple-kernel step of eqs. 4.2/4.3).
    ``smooth`` selects the squared pairwise hinge; ``knn_first`` the neighbour mode of eq. 3.9
    (take the k most similar opposite vectors, then keep the violators) instead of Algorithm 2's,
    the default (take the violators, then keep the k most similar; D-KOIL-1). Similarity, for
    the neighbours and the compensation target, is the kernel value, or with ``euclidean`` minus
    the squared Euclidean distance (D-KOIL-18). The storage must have a free slot.

    ``undo`` (float64, ``1 + width + capacity`` entries, or empty) receives what the step
    overwrites in ``X`` and ``G`` (:func:`save_slot`; ``undo[0]`` stays -1 when nothing is
    stored), so that a transaction need not copy them.

    Returns ``(alpha_t, loss)``: the weight given to ``x`` (0 means not stored) and the
    un-regularised pairwise loss of the selected pairs without ``C`` (sum of the hinge values, or
    of their squares when ``smooth``; 0 on the bootstrap rounds), which the Hedge weights use.
    """
    return _koil_step(
        X,
        beta,
        h,
        G,
        members,
        ints,
        floats,
        x,
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
        np.empty(0),
    )


@njit(cache=True)
def koil_step_checked(
    X,
    beta,
    h,
    G,
    members,
    ints,
    floats,
    x,
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
    """:func:`koil_step`, then :func:`step_finite` on what it may have written: whether the
    state is still finite after the step (if not, the caller rolls the step back with what
    ``undo`` and its own copies hold). One compiled call instead of two on the per-sample path;
    ``undo`` must not be empty; ``row`` is the kernel row of ``x`` if already computed
    (:func:`koil_score_row`), or empty."""
    _koil_step(
        X,
        beta,
        h,
        G,
        members,
        ints,
        floats,
        x,
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
    )
    return step_finite(beta, h, floats, X, G, undo)


@njit(cache=True)
def koil_mkl_step(
    X,
    beta,
    h,
    G,
    members,
    ints,
    floats,
    x,
    y,
    selected,
    uniforms,
    kinds,
    gammas,
    degrees,
    coef0s,
    C,
    eta,
    k,
    budget,
    policy,
    smooth,
    knn_first,
    euclidean,
    losses,
):
    """The classifier part of one multiple-kernel KOIL trial (Algorithm 4): for every kernel
    ``l`` with ``selected[l]``, the un-regularised step (eqs. 4.2/4.3, no decay) of learner ``l``
    on its own slice of the stacked state; its loss goes to ``losses[l]`` (0 if not selected).
    KOIL-MKL's transactions copy the state, so no step keeps an undo."""
    no_undo = np.empty(0)
    for l in range(kinds.shape[0]):
        losses[l] = 0.0
        if selected[l]:
            _, losses[l] = koil_step(
                X[l],
                beta[l],
                h[l],
                G[l],
                members[l],
                ints[l],
                floats[l],
                x,
                y,
                uniforms[l, 0],
                uniforms[l, 1],
                kinds[l],
                gammas[l],
                degrees[l],
                coef0s[l],
                C,
                eta,
                1.0,
                k,
                budget,
                policy,
                smooth,
                knn_first,
                euclidean,
                no_undo,
            )


@njit(cache=True)
def koil_mkl_score(X, beta, ints, floats, x, kinds, gammas, degrees, coef0s, q, sign_vote):
    """``sum_l q_l f_l(x)``, or with ``sign_vote`` the thesis's ``sum_l q_l sign(f_l(x))``
    (eq. 4.1); kernels with ``q_l == 0`` are skipped."""
    total = 0.0
    for l in range(kinds.shape[0]):
        if q[l] == 0.0:
            continue
        score = koil_score(
            X[l], beta[l], ints[l], floats[l], x, kinds[l], gammas[l], degrees[l], coef0s[l]
        )
        if sign_vote:
            score = 1.0 if score > 0.0 else (-1.0 if score < 0.0 else 0.0)
        total += q[l] * score
    return total
