"""How the whole-stream runners of :mod:`imbalance_stream._numba.stream` read a row: where each
column first appears, the rows of a CSR stream, the counters they keep in ``sizes``, and the
encoders that give a row the encoding ``predict_one`` and ``learn_one`` give its dict (committing,
and taking back, the names a learned row brings). Shared by the array runners
(:mod:`~imbalance_stream._numba.stream_replay`) and the steps runners
(:mod:`~imbalance_stream._numba.stream_steps`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "FAITHFUL",
    "FIRST_NEGATIVE",
    "GROW_TO",
    "NEVER",
    "NO_MATRIX",
    "NO_VECTOR",
    "N_NAMES",
    "N_NEW",
    "N_STATE",
    "N_UPDATES",
    "csr_row",
    "empty_predictions",
    "first_learned",
    "first_positions",
    "in_turn",
    "known_row",
    "learned_row",
    "row_buffers",
    "row_to_learn",
    "uncommit",
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
def csr_row(indptr, indices, values, t):
    """Row ``t`` of the CSR stream as ``(indices, values)`` views."""
    start = indptr[t]
    stop = indptr[t + 1]
    return indices[start:stop], values[start:stop]


@njit(cache=True)
def row_buffers(indptr, start, stop):
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
#: has its provisional column (1) or not (0; see :mod:`imbalance_stream._numba.stream`).
N_NAMES, N_STATE, N_NEW, N_UPDATES, GROW_TO, FIRST_NEGATIVE, FAITHFUL = range(7)


@njit(cache=True, inline="always")
def known_row(columns, row, colmap, intercept, idx, val):
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
def learned_row(columns, row, colmap, new_names, sizes, intercept, idx, val):
    """The encoding ``learn_one`` gives a row (as :func:`known_row` reads it): its nonzero
    values in order, a name not yet committed taking the next column (committed here,
    tentatively: the caller takes it back with :func:`uncommit`), then the constant feature;
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
def row_to_learn(columns, row, colmap, new_names, sizes, intercept, idx, val, capacity):
    """``(m, n_new)``: the encoding ``learn_one`` gives ``row`` (:func:`learned_row`, its new
    names committed) and the entries of ``new_names`` before it; ``m`` is 0 for an empty row,
    -1 when the state (``capacity`` columns) must grow first: its names are then taken back and
    ``sizes[GROW_TO]`` says how large, for the caller to grow it and run the step again."""
    n_new = sizes[N_NEW]
    m = learned_row(columns, row, colmap, new_names, sizes, intercept, idx, val)
    if m and sizes[N_NAMES] > capacity:
        sizes[GROW_TO] = sizes[N_NAMES]
        uncommit(colmap, new_names, sizes, n_new)
        return -1, n_new
    return m, n_new


@njit(cache=True, inline="always")
def uncommit(colmap, new_names, sizes, n_new):
    """Take back the names committed since ``sizes[N_NEW]`` was ``n_new``."""
    while sizes[N_NEW] > n_new:
        sizes[N_NEW] -= 1
        colmap[new_names[sizes[N_NEW]]] = -1
        sizes[N_NAMES] -= 1


@njit(cache=True, inline="always")
def first_learned(first_negative, y, t):
    """The first row whose negative label was learned, row ``t`` of label ``y`` being learned:
    where ``learn_one`` would adopt the negative label."""
    return t if y < 0 and first_negative < 0 else first_negative


@njit(cache=True, inline="always")
def in_turn(colmap, new_names, sizes, n_new):
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
