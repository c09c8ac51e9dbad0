"""Finiteness checks and sparse saves for transactional updates
(:mod:`imbalance_stream.base.transaction`): one pass, no temporary array, which matters on the
per-sample path where numpy's own ``np.isfinite(a).all()`` costs more than a first-order update.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["all_finite", "all_finite_six", "finite_at", "gather"]


@njit(cache=True)
def all_finite(array):
    """Whether every entry of the float64 array ``array`` (any shape) is finite."""
    for value in array.ravel():  # a view of a contiguous array
        if not math.isfinite(value):
            return False
    return True


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
