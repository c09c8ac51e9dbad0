"""Finiteness checks and sparse saves for transactional updates
(:mod:`imbalance_stream.base.transaction`): one pass, no temporary array, which matters on the
per-sample path where numpy's own ``np.isfinite(a).all()`` costs more than a first-order update.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "EXPONENT_BITS",
    "all_finite",
    "all_finite_six",
    "count_not_finite",
    "finite_at",
    "gather",
]

#: The exponent bits of a float64: all set for an infinity or a NaN, and only then.
EXPONENT_BITS = np.int64(0x7FF0000000000000)


@njit(cache=True)
def all_finite(array):
    """Whether every entry of the float64 array ``array`` (any shape) is finite."""
    for value in array.ravel():  # a view of a contiguous array
        if not math.isfinite(value):
            return False
    return True


@njit(cache=True)
def count_not_finite(values, n):
    """How many of the first ``n`` entries of the contiguous float64 vector ``values`` are not
    finite: their bit patterns counted for an all-ones exponent, a loop without a branch that
    the compiler vectorises (a floating-point test in a loop is not, without fastmath, and
    stopping at the first bad entry costs more than it saves where the usual answer is none)."""
    bits = values.view(np.int64)
    bad = 0
    for k in range(n):
        bad += (bits[k] & EXPONENT_BITS) == EXPONENT_BITS
    return bad


@njit(cache=True)
def all_finite_six(a, b, c, d, e, f):
    """Whether every entry of each of six float64 arrays (any shapes) is finite: one call into
    compiled code for a state of six arrays, instead of one per array."""
    return (
        all_finite(a)
        and all_finite(b)
        and all_finite(c)
        and all_finite(d)
        and all_finite(e)
        and all_finite(f)
    )


@njit(cache=True)
def finite_at(vector, indices):
    """Whether ``vector[indices]`` is finite everywhere."""
    for i in indices:
        if not math.isfinite(vector[i]):
            return False
    return True


@njit(cache=True)
def gather(vector, indices):
    """``vector[indices]`` for the ``indices`` within ``vector``, and those indices."""
    n = 0
    for i in indices:
        if i < vector.shape[0]:
            n += 1
    kept = np.empty(n, dtype=np.int64)
    values = np.empty(n)
    n = 0
    for i in indices:
        if i < vector.shape[0]:
            kept[n] = i
            values[n] = vector[i]
            n += 1
    return kept, values
