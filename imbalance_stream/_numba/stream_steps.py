"""The steps runners of :mod:`imbalance_stream._numba.stream` (see its docstring): dense rows in
any order of predictions and learning steps, as ``predict_proba_one`` / ``predict_one`` and
``learn_one`` run them one after the other, one jitted loop per family, with the encoders of
:mod:`~imbalance_stream._numba.stream_rows` and the rounds of
:mod:`~imbalance_stream._numba.stream_rounds` that the array runners take too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .first_order import logistic
from .linear import (
    REFUSED,
    UPDATED,
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
from .stream_rounds import (
    AROW,
    IN_USE,
    NAMED,
    SPOILT,
    acog_round,
    baseline_step,
    margin_slope,
    sketch_round_finite,
    uncount,
)
from .stream_rows import N_NAMES, N_STATE, N_UPDATES, known_row, row_to_learn, uncommit

__all__ = ["steps_acog", "steps_baseline", "steps_sacog"]


@njit(cache=True)
def steps_acog(
    rows, learn, signs, colmap, new_names, sizes, intercept, mean, full, cov, variance, loss_one,
    rho, laplace, counts, eta, gamma, decisions, probas,
):  # fmt: skip
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
            m = known_row(columns, rows[t], colmap, intercept, idx, val)[0] if sizes[N_STATE] else 0
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
        m, n_new = row_to_learn(
            columns, rows[t], colmap, new_names, sizes, intercept, idx, val, capacity
        )
        if m == 0:  # an empty sample: learn_one learns nothing
            continue
        if m < 0:  # the state must grow first: the caller grows it
            return t
        n = max(sizes[N_STATE], sizes[N_NAMES])
        y = signs[t]
        updated = acog_round(
            mean, full, cov, variance, n, idx[:m], val[:m], y,
            loss_one, rho, laplace, counts, eta, gamma,
        )  # fmt: skip
        if updated == REFUSED:  # nothing of it kept (it wrote nothing), nor the names it brought
            uncount(counts, y)
            uncommit(colmap, new_names, sizes, n_new)
            return t
        sizes[N_STATE] = n
        sizes[N_UPDATES] += updated
    return rows.shape[0]


@njit(cache=True)
def steps_baseline(
    kind, rows, learn, signs, colmap, new_names, sizes, intercept, weights, cov, r, rho, laplace,
    counts, eta, C, tau_negative, decisions, probas,
):  # fmt: skip
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
                m = known_row(columns, rows[t], colmap, intercept, idx, val)[0]
            score = sparse_dot(weights, idx[:m], val[:m]) if m else 0.0
            decisions[t] = score
            if kind == AROW:  # the probit of the Gaussian weights (1/2 for an empty row)
                probas[t] = proba_full(weights, cov, idx[:m], val[:m])
            else:
                probas[t] = logistic(score)
            continue
        m, n_new = row_to_learn(
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
        updated = baseline_step(
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
            uncommit(colmap, new_names, sizes, n_new)
            return t
        sizes[N_STATE] = max(sizes[N_STATE], sizes[N_NAMES])
        sizes[N_UPDATES] += updated == UPDATED
    return rows.shape[0]


@njit(cache=True)
def steps_sacog(
    rows, learn, signs, colmap, new_names, sizes, intercept, capacity, layout, sparse_form, weights,
    offsets, basis, transform, gram, eigen, rounds, loss_one, rho, laplace, counts, eta, gamma,
    oja_step, on_loss_only, rebase_threshold, decisions, probas,
):  # fmt: skip
    """Run SACOG, dense (``sparse_form=False``: ``weights`` is the mean, ``basis`` V) or sparse
    (``weights`` = w, ``offsets`` = b, ``basis`` = Z, ``transform`` = F, ``gram`` = K), through a
    schedule of steps, as ``predict_proba_one`` / ``predict_one`` and ``learn_one`` would run
    them one after the other: the contract of :func:`steps_acog`, with the step kernels of
    :class:`~imbalance_stream.linear_model.SACOG`.

    ``layout`` holds the columns in use and those given to a feature (``IN_USE``, ``NAMED`` of
    :mod:`~imbalance_stream._numba.stream_rounds`). A learning step whose names reach past
    ``capacity`` columns stops the run for the caller to grow the state (``sizes[GROW_TO]``),
    as ``learn_one``'s ``_grow`` would: the
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
                m = known_row(columns, rows[t], colmap, intercept, idx, val)[0]
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
        m = row_to_learn(columns, rows[t], colmap, new_names, sizes, intercept, idx, val, capacity)[
            0
        ]
        if m == 0:  # an empty sample: learn_one learns nothing
            continue
        if m < 0:  # the state must grow first: the caller grows it
            return t
        in_use, named = layout[IN_USE], layout[NAMED]
        if sizes[N_NAMES] > sizes[N_STATE]:  # _grow: the new features' columns are zero columns
            named = sizes[N_NAMES]
            in_use = max(in_use, named)
        y = signs[t]
        margin, slope = margin_slope(y, rho, laplace, counts, loss_one)
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
