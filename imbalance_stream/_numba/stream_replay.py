"""The array runners of :mod:`imbalance_stream._numba.stream` (see its docstring for their
contract): test-then-train over the rows of a CSR stream, one jitted loop per family, each row
read by the encoders of :mod:`~imbalance_stream._numba.stream_rows` and learned by the round of
:mod:`~imbalance_stream._numba.stream_rounds` that the steps runners take too.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .linear import REFUSED, UPDATED, sparse_dot
from .sketch import sacog_step, sketch_scratch, sparse_sacog_score_into, sparse_sacog_step
from .stream_rounds import (
    IN_USE,
    NAMED,
    SPOILT,
    acog_round,
    baseline_step,
    margin_slope,
    sketch_round_finite,
    uncount,
)
from .stream_rows import (
    FAITHFUL,
    FIRST_NEGATIVE,
    N_NAMES,
    N_STATE,
    N_UPDATES,
    csr_row,
    first_learned,
    in_turn,
    known_row,
    row_buffers,
    row_to_learn,
    uncommit,
)

__all__ = ["replay_acog", "replay_baseline", "replay_sacog"]


@njit(cache=True)
def replay_acog(
    start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
    mean, full, cov, variance, loss_one, rho, laplace, counts, eta, gamma, predictions,
):  # fmt: skip
    """Replay the rows from ``start`` through ACOG, full covariance (``full=True``: ``cov`` is
    the covariance, ``variance`` unused) or diagonal (``variance`` is the diagonal, ``cov``
    unused): the contract of the module's array runners. ``mean`` holds the columns the state
    may use without growing. Returns the row it stopped at."""
    idx, val = row_buffers(indptr, start, signs.shape[0])
    capacity = mean.shape[0]
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    n_updates = 0
    stop = signs.shape[0]
    for t in range(start, signs.shape[0]):
        x, v = csr_row(indptr, indices, values, t)
        y = signs[t]
        n, n_new = n_state, -1  # (no name committed)
        if faithful and n_state and not brings[t]:  # the row is its own encoding
            predictions[t] = 1 if sparse_dot(mean, x, v) >= 0.0 else -1
            if x.shape[0] == 0:  # an empty sample: learn_one learns nothing
                continue
        else:  # encoded as predict_one and learn_one encode it, through colmap
            m = known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            predictions[t] = 1 if sparse_dot(mean, idx[:m], val[:m]) >= 0.0 else -1
            m, n_new = row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                stop = t
                break
            if m == 0:
                continue
            faithful = faithful and in_turn(colmap, new_names, sizes, n_new)
            x, v, n = idx[:m], val[:m], max(n_state, sizes[N_NAMES])
        updated = acog_round(
            mean, full, cov, variance, n, x, v, y, loss_one, rho, laplace, counts, eta, gamma
        )
        if updated == REFUSED:  # skipped, nothing of it kept: its names come later, if at all
            uncount(counts, y)
            if n_new >= 0:
                uncommit(colmap, new_names, sizes, n_new)
            faithful = faithful and not brings[t]
            continue
        n_state = n
        n_updates += updated
        first_negative = first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    sizes[N_UPDATES] += n_updates
    return stop


@njit(cache=True)
def replay_baseline(
    kind, start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
    weights, cov, r, rho, laplace, counts, eta, C, tau_negative, predictions,
):  # fmt: skip
    """Replay the rows from ``start`` through one of the baselines with the step its ``_learn``
    takes, each learning step the transaction of
    :func:`~imbalance_stream._numba.stream_steps.steps_baseline`: the contract of the module's
    array runners.

    ``weights`` is the weight vector (AROW: the mean, with ``cov`` its full covariance and ``r``
    its regularisation; the others pass an empty ``cov``), holding the columns the state may use
    without growing (AROW's covariance grows with its mean: the same capacity);
    ``rho``/``laplace``/``counts`` the cost ratio of the cost-sensitive ones (PAUM, COG, CPA_PB);
    ``eta``, ``C``, ``tau_negative`` their hyper-parameters. Returns the row it stopped at.
    """
    idx, val = row_buffers(indptr, start, signs.shape[0])
    saved = np.empty(idx.shape[0], dtype=np.float64)
    capacity = weights.shape[0]
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    n_updates = 0
    stop = signs.shape[0]
    for t in range(start, signs.shape[0]):
        x, v = csr_row(indptr, indices, values, t)
        y = signs[t]
        n_new = -1  # (no name committed)
        if faithful and n_state and not brings[t]:  # the row is its own encoding
            predictions[t] = 1 if sparse_dot(weights, x, v) >= 0.0 else -1
            if x.shape[0] == 0:  # an empty sample: learn_one learns nothing
                continue
        else:  # encoded as predict_one and learn_one encode it, through colmap
            m = known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            predictions[t] = 1 if sparse_dot(weights, idx[:m], val[:m]) >= 0.0 else -1
            m, n_new = row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                stop = t
                break
            if m == 0:
                continue
            faithful = faithful and in_turn(colmap, new_names, sizes, n_new)
            x, v = idx[:m], val[:m]
        # the transaction of steps_baseline (written out here and there: a call, or an inlined
        # one, that takes the arrays costs about what a first-order step costs)
        m = x.shape[0]
        for k in range(m):
            saved[k] = weights[x[k]]
        positives, negatives = counts[0], counts[1]
        updated = baseline_step(
            kind, weights, cov, sizes[N_NAMES], x, v, y, rho, laplace, counts, eta, C,
            tau_negative, r,
        )  # fmt: skip
        if updated == UPDATED:  # (a step that does not update writes nothing)
            bad = 0
            for k in range(m):
                bad += not math.isfinite(weights[x[k]])
            if bad:
                updated = REFUSED
        if updated == REFUSED:  # skipped, nothing of it kept: its names come later, if at all
            for k in range(m):
                weights[x[k]] = saved[k]
            counts[0], counts[1] = positives, negatives
            if n_new >= 0:
                uncommit(colmap, new_names, sizes, n_new)
            faithful = faithful and not brings[t]
            continue
        n_state = max(n_state, sizes[N_NAMES])
        n_updates += updated == UPDATED
        first_negative = first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    sizes[N_UPDATES] += n_updates
    return stop


@njit(cache=True)
def replay_sacog(
    start, stop, indptr, indices, values, brings, signs, colmap, new_names, sizes, capacity,
    layout, sparse_form, weights, offsets, basis, transform, gram, eigen, rounds, loss_one, rho,
    laplace, counts, eta, gamma, oja_step, on_loss_only, rebase_threshold, predictions,
):  # fmt: skip
    """Replay the rows ``start .. stop - 1`` through SACOG, dense (``sparse_form=False``:
    ``weights`` is the mean, ``basis`` V) or sparse (``weights`` = w, ``offsets`` = b, ``basis``
    = Z, ``transform`` = F, ``gram`` = K), with the rounds of ``learn_one`` and its check of the
    state (:func:`sketch_round_finite`): the contract of the module's array runners,
    ``capacity`` and ``layout`` those of
    :func:`~imbalance_stream._numba.stream_steps.steps_sacog`. Returns the row it stopped at:
    ``stop``, a row whose learning needs the state to grow first, or one whose round left a
    value not finite (``layout[SPOILT]``: its prediction written, the state to be put back by
    the caller, as copying the state before each round would cost more than the round of the
    sparse form).

    A row is learned with its prediction's score (and ``Z x``) when it is its own encoding,
    which is what the round computes first; one scratch allocation serves every row.
    """
    idx, val = row_buffers(indptr, start, stop)
    scratch = sketch_scratch(basis.shape[0])
    projected = scratch[2 * basis.shape[0] + 1]  # Z x of the sparse form's score
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    in_use, named = layout[IN_USE], layout[NAMED]
    n_updates = 0
    end = stop
    for t in range(start, stop):
        x, v = csr_row(indptr, indices, values, t)
        y = signs[t]
        n, grows = in_use, False
        if faithful and n_state and not brings[t]:  # the row is its own encoding
            if x.shape[0] == 0:  # score 0; an empty sample: learn_one learns nothing
                predictions[t] = 1
                continue
            if sparse_form:
                score = sparse_sacog_score_into(weights, offsets, basis, x, v, projected)
            else:
                score = sparse_dot(weights, x, v)
            predictions[t] = 1 if score >= 0.0 else -1
        else:  # encoded as predict_one and learn_one encode it, through colmap
            m = known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            score = 0.0  # (as _decision gives when nothing is known)
            if m and in_use:
                if sparse_form:
                    score = sparse_sacog_score_into(
                        weights, offsets, basis, idx[:m], val[:m], projected
                    )
                else:
                    score = sparse_dot(weights, idx[:m], val[:m])
            predictions[t] = 1 if score >= 0.0 else -1
            m, n_new = row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                end = t
                break
            if m == 0:
                continue
            faithful = faithful and in_turn(colmap, new_names, sizes, n_new)
            grows = sizes[N_NAMES] > n_state  # _grow: the new features' columns are zero columns
            if grows:
                n = max(in_use, sizes[N_NAMES])
            x, v = idx[:m], val[:m]
            if sparse_form:  # the score (and Z x) of the round's first lines
                score = sparse_sacog_score_into(weights, offsets, basis, x, v, projected)
            else:
                score = sparse_dot(weights, x, v)
        # learn_one's round, as the steps runner takes it (written out: a call with two dozen
        # arguments costs a tenth of a round of the sparse form)
        margin, slope = margin_slope(y, rho, laplace, counts, loss_one)
        sketched = rounds[0]
        if sparse_form:
            updated = sparse_sacog_step(
                weights, offsets, basis, transform, gram, eigen, rounds, n, x, v, y, margin,
                slope, eta, gamma, oja_step, on_loss_only, rebase_threshold, projected, score,
                scratch,
            )  # fmt: skip
        else:
            updated = sacog_step(
                weights, basis, eigen, rounds, n, x, v, y, margin, slope, eta, gamma, oja_step,
                on_loss_only, score, scratch,
            )  # fmt: skip
        # a round that took no sketch step (sketch_on_loss_only, no loss) wrote nothing
        if rounds[0] != sketched and not sketch_round_finite(
            sparse_form, weights, offsets, basis, transform, gram, eigen, n, x
        ):
            layout[SPOILT] = 1  # the caller puts the state back (and the names)
            end = t
            break
        if grows:
            n_state = named = sizes[N_NAMES]
            in_use = n
        n_updates += updated
        first_negative = first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    layout[IN_USE], layout[NAMED] = in_use, named
    sizes[N_UPDATES] += n_updates
    return end
