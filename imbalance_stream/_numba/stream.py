"""Whole-stream runners: test-then-train over a CSR array, and schedules of steps, in jitted loops.

The array runners (``replay_acog``, ``replay_baseline``, ``replay_sacog``) replay rows ``t = start
.. T-1`` of a CSR matrix (``indptr``, ``indices``, ``values``: no explicit zeros, and the constant
feature, column 0, appended to every row of a model with an intercept) with labels ``signs`` in
{+1.0, -1.0}. For every row they predict with the current state (``+1`` when the score is
``>= 0``: ties go to the rare class), write the prediction, then learn the row with the **same**
step kernel, and the same check of what it wrote, that ``learn_one`` runs, so that the array path
and the dict path do the same arithmetic in the same order. A row is encoded as ``predict_one``
and ``learn_one`` encode its dict (its nonzero values in column order, then the constant feature),
and a learned row commits the names it brings as ``learn_one`` does, in ``new_names`` (in the order
committed) and ``sizes`` (the counters :data:`N_NAMES` ...), for the caller to commit to the
feature space.

The columns of ``indices`` are *provisional*: the model's column of each name committed when the
run starts, and for the others the column each would get if the names were committed in order of
first appearance, as they are unless a step that brings names is refused; ``colmap`` gives the
model column of each provisional column (-1: not committed), and ``brings[t]`` says whether a name
appears first in row ``t``. While every committed name has its provisional column
(``sizes[FAITHFUL]``), a row that brings no name is its own encoding, read as it stands, without a
look-up per value; any other row is encoded through ``colmap``.

A step ``learn_one`` refuses (an overflow: ``NumericalError``, the model unchanged) keeps nothing
here either, neither its values, nor its label count, nor its names: the loop goes on with the
next row, as a loop of ``predict_one`` and ``learn_one`` that catches the error goes on
(``sizes[FIRST_NEGATIVE]`` is the first row whose negative label was learned, which
``learn_one`` would have adopted then). A runner returns the row it stopped at: the end, or a row
whose learning needs the state to grow past its arrays, which the caller learns with
``learn_one`` before it runs the rest (for SACOG, also a row whose round left a value not finite:
its caller puts the state back, :meth:`~imbalance_stream.linear_model.SACOG._kept_unless_spoilt`).

An empty row is predicted (score 0, so +1) and not learned, as ``learn_one({}, y)`` is a no-op.
The cost ratio is either fixed (``laplace=False``) or the Laplace estimate ``(t_n + 1) / (t_p + 1)``
with the current label counted first; ``counts = [t_p, t_n]`` is read and updated in place.

The steps runners (``steps_acog``, ``steps_baseline``, ``steps_sacog``) run dense rows in any order
of predictions and learning steps, with the same encoders of a row (:func:`_known_row`,
:func:`_row_to_learn`), the same step kernels, and the same check and rollback of a learning step
as the array runners (for SACOG, :func:`sketch_round_finite`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .cost import hinge_margin_slope_jit, laplace_ratio_jit
from .first_order import (
    additive_step,
    cost_sensitive_pa_step,
    logistic,
    passive_aggressive_step,
    romma_step,
)
from .guard import count_not_finite
from .linear import (
    NO_UPDATE,
    REFUSED,
    UPDATED,
    acog_diag_step,
    acog_full_step,
    arow_full_step,
    gaussian_weight_proba,
    proba_diag,
    proba_full,
    sparse_dot,
)
from .sketch import (
    sacog_step,
    sketch_scratch,
    sketch_variance,
    sparse_sacog_score_into,
    sparse_sacog_step,
    sparse_sketch_variance,
)

__all__ = [
    "first_positions",
    "replay_acog",
    "replay_baseline",
    "replay_sacog",
    "sketch_round_finite",
    "steps_acog",
    "steps_baseline",
    "steps_sacog",
]

#: What :func:`first_positions` gives a column that never occurs.
NEVER = np.iinfo(np.int64).max


@njit(cache=True)
def first_positions(indices, n_columns):
    """For each of ``n_columns`` columns, the first position in the CSR column indices
    ``indices`` (int64) where it occurs, :data:`NEVER` if none: where each feature of a stream
    first appears, in one pass."""
    first = np.full(n_columns, NEVER, dtype=np.int64)
    for position in range(indices.shape[0]):
        column = indices[position]
        if first[column] == NEVER:
            first[column] = position
    return first


@njit(cache=True)
def _count_rho(y, rho, laplace, counts):
    """Count the label, then return the cost ratio in force (Laplace estimate or fixed)."""
    if y > 0:
        counts[0] += 1
    else:
        counts[1] += 1
    if laplace:
        return laplace_ratio_jit(counts[0], counts[1])
    return rho


@njit(cache=True)
def _margin_slope(y, rho, laplace, counts, loss_one):
    """Count the label, then return ``(margin, slope)`` of the cost-sensitive hinge loss."""
    return hinge_margin_slope_jit(y, _count_rho(y, rho, laplace, counts), loss_one)


@njit(cache=True)
def _row(indptr, indices, values, t):
    """Row ``t`` of the CSR stream as ``(indices, values)`` views."""
    start = indptr[t]
    stop = indptr[t + 1]
    return indices[start:stop], values[start:stop]


@njit(cache=True)
def _row_buffers(indptr, start, stop):
    """Room for the encoding of any of the rows ``start .. stop - 1``: ``(indices, values)`` as
    long as the longest row, plus the constant feature."""
    width = 1
    for t in range(start, stop):
        width = max(width, indptr[t + 1] - indptr[t] + 1)
    return np.empty(width, dtype=np.int64), np.empty(width, dtype=np.float64)


#: Where the runners keep their counters in ``sizes``: the feature names committed, the columns
#: the state covers, the entries of ``new_names``, the update rounds, the size the state must
#: grow to before the step the run stopped at (0: none), and, for the array runners only, the
#: first row whose negative label was learned (-1: none yet) and whether every name committed
#: has its provisional column (1) or not (0; see the module's docstring).
N_NAMES, N_STATE, N_NEW, N_UPDATES, GROW_TO, FIRST_NEGATIVE, FAITHFUL = range(7)


@njit(cache=True, inline="always")
def _known_row(columns, row, colmap, intercept, idx, val):
    """The encoding ``predict_one`` gives a row whose nonzero values ``row[k]`` are of the
    features of columns ``columns[k]``: its values of committed names in that order, then the
    constant feature. Returns how many entries it wrote, and whether it dropped none (every name
    committed: the row's encoding for ``learn_one`` too)."""
    m = 0
    complete = True
    for k in range(row.shape[0]):
        value = row[k]
        if value != 0.0:
            column = colmap[columns[k]]
            if column >= 0:
                idx[m] = column
                val[m] = value
                m += 1
            else:
                complete = False
    if intercept:
        idx[m] = 0
        val[m] = 1.0
        m += 1
    return m, complete


@njit(cache=True, inline="always")
def _learned_row(columns, row, colmap, new_names, sizes, intercept, idx, val):
    """The encoding ``learn_one`` gives a row (as :func:`_known_row` reads it): its nonzero
    values in order, a name not yet committed taking the next column (committed here,
    tentatively: the caller takes it back with :func:`_uncommit`), then the constant feature;
    returns the number of entries."""
    m = 0
    for k in range(row.shape[0]):
        value = row[k]
        if value != 0.0:
            j = columns[k]
            if colmap[j] < 0:
                colmap[j] = sizes[N_NAMES]
                sizes[N_NAMES] += 1
                new_names[sizes[N_NEW]] = j
                sizes[N_NEW] += 1
            idx[m] = colmap[j]
            val[m] = value
            m += 1
    if intercept:  # never empty then: learn_one learns the constant feature alone
        idx[m] = 0
        val[m] = 1.0
        m += 1
    return m


@njit(cache=True, inline="always")
def _row_to_learn(columns, row, colmap, new_names, sizes, intercept, idx, val, capacity):
    """``(m, n_new)``: the encoding ``learn_one`` gives ``row`` (:func:`_learned_row`, its new
    names committed) and the entries of ``new_names`` before it; ``m`` is 0 for an empty row,
    -1 when the state (``capacity`` columns) must grow first: its names are then taken back and
    ``sizes[GROW_TO]`` says how large, for the caller to grow it and run the step again."""
    n_new = sizes[N_NEW]
    m = _learned_row(columns, row, colmap, new_names, sizes, intercept, idx, val)
    if m and sizes[N_NAMES] > capacity:
        sizes[GROW_TO] = sizes[N_NAMES]
        _uncommit(colmap, new_names, sizes, n_new)
        return -1, n_new
    return m, n_new


@njit(cache=True, inline="always")
def _uncommit(colmap, new_names, sizes, n_new):
    """Take back the names committed since ``sizes[N_NEW]`` was ``n_new``."""
    while sizes[N_NEW] > n_new:
        sizes[N_NEW] -= 1
        colmap[new_names[sizes[N_NEW]]] = -1
        sizes[N_NAMES] -= 1


@njit(cache=True, inline="always")
def _first_learned(first_negative, y, t):
    """The first row whose negative label was learned, row ``t`` of label ``y`` being learned:
    where ``learn_one`` would adopt the negative label."""
    return t if y < 0 and first_negative < 0 else first_negative


@njit(cache=True, inline="always")
def _in_turn(colmap, new_names, sizes, n_new):
    """Whether every name committed since ``sizes[N_NEW]`` was ``n_new`` took its provisional
    column (it does unless the names of a refused step come later)."""
    for k in range(n_new, sizes[N_NEW]):
        column = new_names[k]
        if colmap[column] != column:
            return False
    return True


def empty_predictions(n_rows: int) -> np.ndarray:
    """The int8 output buffer the runners fill with +1 / -1."""
    return np.zeros(n_rows, dtype=np.int8)


#: The empty matrix or vector passed for the state a runner does not use.
NO_MATRIX = np.zeros((0, 0))
NO_VECTOR = np.zeros(0)


# ---- ACOG ----------------------------------------------------------------------------------------


@njit(cache=True)
def _acog_round(
    mean, full, cov, variance, n, indices, values, y, loss_one, rho, laplace, counts, eta, gamma
):
    """Count the label ``y``, then one ACOG round on the row ``(indices, values)`` with the full
    covariance ``cov`` over the leading ``n`` columns (``full``) or the diagonal ``variance``;
    returns the step kernel's ``UPDATED``, ``NO_UPDATE`` or ``REFUSED`` (the count stays: the
    caller decides)."""
    margin, slope = _margin_slope(y, rho, laplace, counts, loss_one)
    if full:
        return acog_full_step(mean, cov, n, indices, values, y, margin, slope, eta, gamma)
    return acog_diag_step(mean, variance, indices, values, y, margin, slope, eta, gamma)


@njit(cache=True, inline="always")
def _uncount(counts, y):
    """Take back the count of a label ``y`` whose round was refused (``learn_one`` keeps nothing
    of it)."""
    counts[0 if y > 0 else 1] -= 1


@njit(cache=True)
def replay_acog(
    start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
    mean, full, cov, variance, loss_one, rho, laplace, counts, eta, gamma, predictions,
):  # fmt: skip
    """Replay the rows from ``start`` through ACOG, full covariance (``full=True``: ``cov`` is
    the covariance, ``variance`` unused) or diagonal (``variance`` is the diagonal, ``cov``
    unused): the contract of the module's array runners. ``mean`` holds the columns the state
    may use without growing. Returns the row it stopped at."""
    idx, val = _row_buffers(indptr, start, signs.shape[0])
    capacity = mean.shape[0]
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    n_updates = 0
    stop = signs.shape[0]
    for t in range(start, signs.shape[0]):
        x, v = _row(indptr, indices, values, t)
        y = signs[t]
        n, n_new = n_state, -1  # (no name committed)
        if faithful and n_state and not brings[t]:  # the row is its own encoding
            predictions[t] = 1 if sparse_dot(mean, x, v) >= 0.0 else -1
            if x.shape[0] == 0:  # an empty sample: learn_one learns nothing
                continue
        else:  # encoded as predict_one and learn_one encode it, through colmap
            m = _known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            predictions[t] = 1 if sparse_dot(mean, idx[:m], val[:m]) >= 0.0 else -1
            m, n_new = _row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                stop = t
                break
            if m == 0:
                continue
            faithful = faithful and _in_turn(colmap, new_names, sizes, n_new)
            x, v, n = idx[:m], val[:m], max(n_state, sizes[N_NAMES])
        updated = _acog_round(
            mean, full, cov, variance, n, x, v, y, loss_one, rho, laplace, counts, eta, gamma
        )
        if updated == REFUSED:  # skipped, nothing of it kept: its names come later, if at all
            _uncount(counts, y)
            if n_new >= 0:
                _uncommit(colmap, new_names, sizes, n_new)
            faithful = faithful and not brings[t]
            continue
        n_state = n
        n_updates += updated
        first_negative = _first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    sizes[N_UPDATES] += n_updates
    return stop


@njit(cache=True)
def steps_acog(
    rows,
    learn,
    signs,
    colmap,
    new_names,
    sizes,
    intercept,
    mean,
    full,
    cov,
    variance,
    loss_one,
    rho,
    laplace,
    counts,
    eta,
    gamma,
    decisions,
    probas,
):
    """Run ACOG through a schedule of steps, as ``predict_proba_one`` / ``predict_one`` and
    ``learn_one`` would run them one after the other, in one call.

    Step ``t`` uses the dense row ``rows[t]`` (column ``j`` is the feature whose model column is
    ``colmap[j]``, -1 for a name not committed yet): when ``learn[t]``, ACOG learns it with label
    ``signs[t]``, committing the names it brings (their columns in ``colmap``, their ``j`` in
    ``new_names``); otherwise ``decisions[t]`` and ``probas[t]`` get the decision and the
    probability the dict path gives. ``sizes`` holds the counters (``N_NAMES`` ...). Returns
    the number of steps run: fewer than ``len(rows)`` when a step needs a larger state (then
    ``sizes[GROW_TO]`` says how large; the caller grows it as ``learn_one`` would and runs the
    rest) or when the step refuses (an overflow: nothing of it is kept, as ``learn_one`` keeps
    nothing before raising).
    """
    idx = np.empty(rows.shape[1] + 1, dtype=np.int64)
    val = np.empty(rows.shape[1] + 1, dtype=np.float64)
    columns = np.arange(rows.shape[1])
    capacity = mean.shape[0]
    for t in range(rows.shape[0]):
        if not learn[t]:
            m = (
                _known_row(columns, rows[t], colmap, intercept, idx, val)[0]
                if sizes[N_STATE]
                else 0
            )
            if m == 0:  # nothing the model knows: score 0, probability 1/2
                decisions[t] = 0.0
                probas[t] = 0.5
                continue
            decisions[t] = sparse_dot(mean, idx[:m], val[:m])
            if full:
                probas[t] = proba_full(mean, cov, idx[:m], val[:m])
            else:
                probas[t] = proba_diag(mean, variance, idx[:m], val[:m])
            continue
        m, n_new = _row_to_learn(
            columns, rows[t], colmap, new_names, sizes, intercept, idx, val, capacity
        )
        if m == 0:  # an empty sample: learn_one learns nothing
            continue
        if m < 0:  # the state must grow first: the caller grows it
            return t
        n = max(sizes[N_STATE], sizes[N_NAMES])
        y = signs[t]
        updated = _acog_round(
            mean, full, cov, variance, n, idx[:m], val[:m], y,
            loss_one, rho, laplace, counts, eta, gamma,
        )  # fmt: skip
        if updated == REFUSED:  # nothing of it kept (it wrote nothing), nor the names it brought
            _uncount(counts, y)
            _uncommit(colmap, new_names, sizes, n_new)
            return t
        sizes[N_STATE] = n
        sizes[N_UPDATES] += updated
    return rows.shape[0]


# ---- the first-order and AROW baselines of seed 002 ----------------------------------------------

#: ``kind`` codes of the baselines' runners
PERCEPTRON, PAUM, COG_I, COG_II, PA, CPA, ROMMA, AROW, CPAML = range(9)


@njit(cache=True)
def _baseline_step(
    kind, weights, cov, n, indices, values, y, rho, laplace, counts, eta, C, tau_negative, r
):
    """One step of a baseline on the row ``(indices, values)`` with label ``y``, as its
    ``_learn`` takes it (the cost-sensitive ones count the label first); returns ``UPDATED``,
    ``NO_UPDATE`` or ``REFUSED`` (AROW and ROMMA, on an overflow: nothing written)."""
    if kind == PERCEPTRON:
        updated = additive_step(weights, indices, values, y, 0.0, y < 0, 1.0)
    elif kind == PAUM:
        rho_t = _count_rho(y, rho, laplace, counts)
        margin = rho_t if y > 0 else tau_negative
        updated = additive_step(weights, indices, values, y, margin, True, eta)
    elif kind == COG_I or kind == COG_II:
        margin, slope = _margin_slope(y, rho, laplace, counts, kind == COG_I)
        updated = additive_step(weights, indices, values, y, margin, False, eta * slope)
    elif kind == PA:
        updated = passive_aggressive_step(weights, indices, values, y, 1.0, False, 1.0, C)
    elif kind == CPA or kind == CPAML:
        rho_t = _count_rho(y, rho, laplace, counts)
        updated = cost_sensitive_pa_step(
            weights, indices, values, y, rho_t if y > 0 else 1.0, kind == CPAML
        )
    elif kind == ROMMA:
        return romma_step(weights, n, indices, values, y)
    else:
        return arow_full_step(weights, cov, n, indices, values, y, r)
    return UPDATED if updated else NO_UPDATE


@njit(cache=True)
def replay_baseline(
    kind, start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
    weights, cov, r, rho, laplace, counts, eta, C, tau_negative, predictions,
):  # fmt: skip
    """Replay the rows from ``start`` through one of the baselines with the step its ``_learn``
    takes, each learning step the transaction of :func:`steps_baseline`: the contract of the
    module's array runners.

    ``weights`` is the weight vector (AROW: the mean, with ``cov`` its full covariance and ``r``
    its regularisation; the others pass an empty ``cov``), holding the columns the state may use
    without growing (AROW's covariance grows with its mean: the same capacity);
    ``rho``/``laplace``/``counts`` the cost ratio of the cost-sensitive ones (PAUM, COG, CPA_PB);
    ``eta``, ``C``, ``tau_negative`` their hyper-parameters. Returns the row it stopped at.
    """
    idx, val = _row_buffers(indptr, start, signs.shape[0])
    saved = np.empty(idx.shape[0], dtype=np.float64)
    capacity = weights.shape[0]
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    n_updates = 0
    stop = signs.shape[0]
    for t in range(start, signs.shape[0]):
        x, v = _row(indptr, indices, values, t)
        y = signs[t]
        n_new = -1  # (no name committed)
        if faithful and n_state and not brings[t]:  # the row is its own encoding
            predictions[t] = 1 if sparse_dot(weights, x, v) >= 0.0 else -1
            if x.shape[0] == 0:  # an empty sample: learn_one learns nothing
                continue
        else:  # encoded as predict_one and learn_one encode it, through colmap
            m = _known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            predictions[t] = 1 if sparse_dot(weights, idx[:m], val[:m]) >= 0.0 else -1
            m, n_new = _row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                stop = t
                break
            if m == 0:
                continue
            faithful = faithful and _in_turn(colmap, new_names, sizes, n_new)
            x, v = idx[:m], val[:m]
        # the transaction of steps_baseline (written out here and there: a call, or an inlined
        # one, that takes the arrays costs about what a first-order step costs)
        m = x.shape[0]
        for k in range(m):
            saved[k] = weights[x[k]]
        positives, negatives = counts[0], counts[1]
        updated = _baseline_step(
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
                _uncommit(colmap, new_names, sizes, n_new)
            faithful = faithful and not brings[t]
            continue
        n_state = max(n_state, sizes[N_NAMES])
        n_updates += updated == UPDATED
        first_negative = _first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    sizes[N_UPDATES] += n_updates
    return stop


@njit(cache=True)
def steps_baseline(
    kind,
    rows,
    learn,
    signs,
    colmap,
    new_names,
    sizes,
    intercept,
    weights,
    cov,
    r,
    rho,
    laplace,
    counts,
    eta,
    C,
    tau_negative,
    decisions,
    probas,
):
    """Run a baseline through a schedule of steps, as ``predict_proba_one`` / ``predict_one`` and
    ``learn_one`` would run them one after the other: the contract of :func:`steps_acog`.

    ``weights`` is the weight vector (AROW: the mean, with ``cov`` its full covariance and ``r``
    its regularisation; the others pass an empty ``cov``). A learning step is a transaction as
    ``learn_one``'s: the weights it touches and the label counts are put back, and the run stops
    there, when the step refuses (AROW's or ROMMA's overflow) or leaves one of those weights not
    finite. AROW's step writes the whole mean and covariance, but it checks every value it would
    write and writes none of them unless all are finite (``REFUSED`` otherwise), so for it the
    put-back is a no-op and its refusal is the only one."""
    idx = np.empty(rows.shape[1] + 1, dtype=np.int64)
    val = np.empty(rows.shape[1] + 1, dtype=np.float64)
    saved = np.empty(rows.shape[1] + 1, dtype=np.float64)
    columns = np.arange(rows.shape[1])
    capacity = weights.shape[0]  # AROW's covariance grows with its mean: the same capacity
    for t in range(rows.shape[0]):
        if not learn[t]:
            m = 0
            if sizes[N_STATE]:
                m = _known_row(columns, rows[t], colmap, intercept, idx, val)[0]
            score = sparse_dot(weights, idx[:m], val[:m]) if m else 0.0
            decisions[t] = score
            if kind == AROW:  # the probit of the Gaussian weights (1/2 for an empty row)
                probas[t] = proba_full(weights, cov, idx[:m], val[:m])
            else:
                probas[t] = logistic(score)
            continue
        m, n_new = _row_to_learn(
            columns, rows[t], colmap, new_names, sizes, intercept, idx, val, capacity
        )
        if m == 0:  # an empty sample: learn_one learns nothing
            continue
        if m < 0:  # the state must grow first: the caller grows it
            return t
        for k in range(m):
            saved[k] = weights[idx[k]]
        positives, negatives = counts[0], counts[1]
        # ``n``: the names committed, this step's included (``len(self._features)`` of AROW's
        # and ROMMA's ``_learn``)
        updated = _baseline_step(
            kind, weights, cov, sizes[N_NAMES], idx[:m], val[:m], signs[t],
            rho, laplace, counts, eta, C, tau_negative, r,
        )  # fmt: skip
        finite = updated != REFUSED
        for k in range(m):
            finite = finite and np.isfinite(weights[idx[k]])
        if not finite:  # learn_one's rollback: nothing of the step is kept
            for k in range(m):
                weights[idx[k]] = saved[k]
            counts[0], counts[1] = positives, negatives
            _uncommit(colmap, new_names, sizes, n_new)
            return t
        sizes[N_STATE] = max(sizes[N_STATE], sizes[N_NAMES])
        sizes[N_UPDATES] += updated == UPDATED
    return rows.shape[0]


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
    ``capacity`` and ``layout`` those of :func:`steps_sacog`. Returns the row it stopped at:
    ``stop``, a row whose learning needs the state to grow first, or one whose round left a
    value not finite (``layout[SPOILT]``: its prediction written, the state to be put back by
    the caller, as copying the state before each round would cost more than the round of the
    sparse form).

    A row is learned with its prediction's score (and ``Z x``) when it is its own encoding,
    which is what the round computes first; one scratch allocation serves every row.
    """
    idx, val = _row_buffers(indptr, start, stop)
    scratch = sketch_scratch(basis.shape[0])
    projected = scratch[2 * basis.shape[0] + 1]  # Z x of the sparse form's score
    # the counters the rows that bring no name change, kept here, stored at the end
    n_state, faithful, first_negative = sizes[N_STATE], sizes[FAITHFUL] != 0, sizes[FIRST_NEGATIVE]
    in_use, named = layout[IN_USE], layout[NAMED]
    n_updates = 0
    end = stop
    for t in range(start, stop):
        x, v = _row(indptr, indices, values, t)
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
            m = _known_row(x, v, colmap, False, idx, val)[0] if n_state else 0
            score = 0.0  # (as _decision gives when nothing is known)
            if m and in_use:
                if sparse_form:
                    score = sparse_sacog_score_into(
                        weights, offsets, basis, idx[:m], val[:m], projected
                    )
                else:
                    score = sparse_dot(weights, idx[:m], val[:m])
            predictions[t] = 1 if score >= 0.0 else -1
            m, n_new = _row_to_learn(x, v, colmap, new_names, sizes, False, idx, val, capacity)
            if m < 0:  # the state must grow first: the caller learns this row
                end = t
                break
            if m == 0:
                continue
            faithful = faithful and _in_turn(colmap, new_names, sizes, n_new)
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
        margin, slope = _margin_slope(y, rho, laplace, counts, loss_one)
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
        first_negative = _first_learned(first_negative, y, t)
    sizes[N_STATE], sizes[FAITHFUL], sizes[FIRST_NEGATIVE] = n_state, faithful, first_negative
    layout[IN_USE], layout[NAMED] = in_use, named
    sizes[N_UPDATES] += n_updates
    return end


@njit(cache=True)
def steps_sacog(
    rows,
    learn,
    signs,
    colmap,
    new_names,
    sizes,
    intercept,
    capacity,
    layout,
    sparse_form,
    weights,
    offsets,
    basis,
    transform,
    gram,
    eigen,
    rounds,
    loss_one,
    rho,
    laplace,
    counts,
    eta,
    gamma,
    oja_step,
    on_loss_only,
    rebase_threshold,
    decisions,
    probas,
):
    """Run SACOG, dense (``sparse_form=False``: ``weights`` is the mean, ``basis`` V) or sparse
    (``weights`` = w, ``offsets`` = b, ``basis`` = Z, ``transform`` = F, ``gram`` = K), through a
    schedule of steps, as ``predict_proba_one`` / ``predict_one`` and ``learn_one`` would run
    them one after the other: the contract of :func:`steps_acog`, with the step kernels of
    :class:`~imbalance_stream.linear_model.SACOG`.

    ``layout`` holds the columns in use and those given to a feature (:data:`IN_USE`,
    :data:`NAMED`). A learning step whose names reach past ``capacity`` columns stops the run for
    the caller to grow the state (``sizes[GROW_TO]``), as ``learn_one``'s ``_grow`` would: the
    caller passes the arrays' capacity once the sketch is drawn and no spare column of it waits
    for a feature, after which a new feature is a zero column, here; before that, the columns
    the state covers, so that each step bringing a feature stops the run (where that feature's
    column goes depends on the names, which only the caller has). A learning step is a
    transaction as ``learn_one``'s, whose check of the whole state is here
    :func:`sketch_round_finite`: when the round leaves a value not finite, the run stops there
    with ``layout[SPOILT] = 1``, and the caller puts the state back as it was before the step
    (a round writes in place, and copying the state before each would cost more than the round
    of the sparse form).
    """
    idx = np.empty(rows.shape[1] + 1, dtype=np.int64)
    val = np.empty(rows.shape[1] + 1, dtype=np.float64)
    columns = np.arange(rows.shape[1])
    scratch = sketch_scratch(basis.shape[0])
    projected = scratch[2 * basis.shape[0] + 1]  # Z x of the sparse form's score
    for t in range(rows.shape[0]):
        if not learn[t]:
            m = 0
            if sizes[N_STATE]:
                m = _known_row(columns, rows[t], colmap, intercept, idx, val)[0]
            if m == 0 or layout[IN_USE] == 0:  # nothing the model knows: score 0, probability 1/2
                decisions[t] = 0.0
                probas[t] = 0.5
                continue
            if sparse_form:
                score = sparse_sacog_score_into(
                    weights, offsets, basis, idx[:m], val[:m], projected
                )
                variance = sparse_sketch_variance(basis, transform, eigen, rounds, idx[:m], val[:m])
            else:
                score = sparse_dot(weights, idx[:m], val[:m])
                variance = sketch_variance(basis, eigen, rounds, idx[:m], val[:m])
            decisions[t] = score
            probas[t] = gaussian_weight_proba(score, variance)
            continue
        m = _row_to_learn(
            columns, rows[t], colmap, new_names, sizes, intercept, idx, val, capacity
        )[0]
        if m == 0:  # an empty sample: learn_one learns nothing
            continue
        if m < 0:  # the state must grow first: the caller grows it
            return t
        in_use, named = layout[IN_USE], layout[NAMED]
        if sizes[N_NAMES] > sizes[N_STATE]:  # _grow: the new features' columns are zero columns
            named = sizes[N_NAMES]
            in_use = max(in_use, named)
        y = signs[t]
        margin, slope = _margin_slope(y, rho, laplace, counts, loss_one)
        sketched = rounds[0]
        # the score (and Z x) of the round's first lines, computed as they compute them
        if sparse_form:
            score = sparse_sacog_score_into(weights, offsets, basis, idx[:m], val[:m], projected)
            updated = sparse_sacog_step(
                weights, offsets, basis, transform, gram, eigen, rounds, in_use, idx[:m], val[:m],
                y, margin, slope, eta, gamma, oja_step, on_loss_only, rebase_threshold,
                projected, score, scratch,
            )  # fmt: skip
        else:
            score = sparse_dot(weights, idx[:m], val[:m])
            updated = sacog_step(
                weights, basis, eigen, rounds, in_use, idx[:m], val[:m], y, margin, slope,
                eta, gamma, oja_step, on_loss_only, score, scratch,
            )  # fmt: skip
        # a round that took no sketch step (sketch_on_loss_only, no loss) wrote nothing
        if rounds[0] != sketched and not sketch_round_finite(
            sparse_form, weights, offsets, basis, transform, gram, eigen, in_use, idx[:m]
        ):
            layout[SPOILT] = 1
            return t
        sizes[N_STATE] = max(sizes[N_STATE], sizes[N_NAMES])
        layout[IN_USE], layout[NAMED] = in_use, named
        sizes[N_UPDATES] += updated
    return rows.shape[0]
