"""Kernels of the incremental proximal SVMs (seed 001): rank-one updates of the scatter statistics.

Every sample z (a sparse vector whose column 0 is the constant 1) changes a class statistic
``M_c = sum_i z_i z_i'`` by ``+- z z'``. With s nonzeros that is s^2 multiply-adds on the
touched rows and columns only, so a sparse sample of a wide space costs O(s^2), a dense one
O(d^2). Both triangles are written, so the solver can read the matrix as it is.
"""

from __future__ import annotations

from numba import njit

__all__ = ["scatter_update", "scatter_update_pair"]


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
