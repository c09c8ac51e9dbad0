"""Kernels of the incremental proximal SVMs (seed 001): rank-one updates of the scatter statistics.

Every sample z (a sparse vector whose column 0 is the constant 1) changes a class statistic
``M_c = sum_i z_i z_i'`` by ``+- z z'``. With s nonzeros that is s^2 multiply-adds on the
touched rows and columns only, so a sparse sample of a wide space costs O(s^2), a dense one
O(d^2). Both triangles are written, so the solver can read the matrix as it is. The assembly
kernels build a class pair's linear system ``(A, r)`` in one pass over the statistics: in a
prequential stream that runs once per sample, and in numpy it allocated three temporaries.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["assemble_one_vs_rest", "assemble_system", "scatter_update", "scatter_update_pair"]


@njit(cache=True)
def scatter_update(matrix, indices, values, scale):
    """``matrix[idx, idx] += scale * v v'`` for a sparse ``v`` given by ``(indices, values)``."""
    for a in range(indices.shape[0]):
        row = indices[a]
        weighted = scale * values[a]
        for b in range(indices.shape[0]):
            matrix[row, indices[b]] += weighted * values[b]


@njit(cache=True)
def scatter_update_pair(first, second, indices, values, scale):
    """The same update applied to two matrices (a class statistic and the global one)."""
    for a in range(indices.shape[0]):
        row = indices[a]
        weighted = scale * values[a]
        for b in range(indices.shape[0]):
            column = indices[b]
            term = weighted * values[b]
            first[row, column] += term
            second[row, column] += term


@njit(cache=True)
def assemble_system(first, second, n, a, b, ridge):
    """``A = a first + b second + ridge I`` and ``r = a first[:, 0] - b second[:, 0]`` on the
    leading ``n`` x ``n`` block: the weighted LPSVM system of two class statistics, in one pass."""
    A = np.empty((n, n))
    r = np.empty(n)
    for i in range(n):
        for j in range(n):
            A[i, j] = a * first[i, j] + b * second[i, j]
        A[i, i] += ridge
        r[i] = a * first[i, 0] - b * second[i, 0]
    return A, r


@njit(cache=True)
def assemble_one_vs_rest(own, total, n, a, b, ridge):
    """The same system with ``second = total - own`` (class j against the rest), without forming
    the difference as a temporary."""
    A = np.empty((n, n))
    r = np.empty(n)
    for i in range(n):
        for j in range(n):
            A[i, j] = a * own[i, j] + b * (total[i, j] - own[i, j])
        A[i, i] += ridge
        r[i] = a * own[i, 0] - b * (total[i, 0] - own[i, 0])
    return A, r
