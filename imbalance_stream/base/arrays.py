"""Growing numpy state with amortised doubling.

Estimators keep their state in preallocated arrays whose capacity doubles when the feature space
outgrows it, so that a stream whose features appear one by one costs O(d) amortised copies. The
padding holds the prior (0 for a mean, the identity for a covariance), which is exact for models
whose earlier samples had 0 in the new coordinates.
"""

from __future__ import annotations

import numpy as np

__all__ = ["capacity_for", "grow_matrix", "grow_vector"]


def capacity_for(current: int, needed: int) -> int:
    """Smallest power-of-two multiple of ``current`` (at least 8) that holds ``needed``."""
    capacity = max(current, 8)
    while capacity < needed:
        capacity *= 2
    return capacity


def grow_vector(vector: np.ndarray, needed: int, fill: float = 0.0) -> np.ndarray:
    """Return ``vector`` if it holds ``needed`` entries, else a larger copy padded with ``fill``."""
    if needed <= vector.shape[0]:
        return vector
    out = np.full(capacity_for(vector.shape[0], needed), fill, dtype=vector.dtype)
    out[: vector.shape[0]] = vector
    return out


def grow_matrix(matrix: np.ndarray, needed: int, diagonal: float = 1.0) -> np.ndarray:
    """Grow a square matrix; the new block is ``diagonal`` times the identity, cross terms 0."""
    size = matrix.shape[0]
    if needed <= size:
        return matrix
    capacity = capacity_for(size, needed)
    out = np.zeros((capacity, capacity), dtype=matrix.dtype)
    out[:size, :size] = matrix
    new = np.arange(size, capacity)
    out[new, new] = diagonal
    return out
