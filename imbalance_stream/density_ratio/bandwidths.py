"""Widths of the Gaussian kernel: the candidate grids, the median distance and the k-th-neighbour
widths of locKMM."""

from __future__ import annotations

import numpy as np
from scipy.spatial import distance

from .gaussian import sq_distances

__all__ = [
    "LAMBDA_GRID",
    "SIGMA_FACTORS",
    "floor_bandwidths",
    "knn_bandwidths",
    "median_distance",
]

#: Candidate Gaussian widths, as multiples of the median distance, for the cross-validated
#: estimators (KLIEP, uLSIF, KDE): Sugiyama's reference code uses ``logspace(-3, 1, 9)``, written
#: for data of unit scale; multiplying by the median distance makes it scale-free (D-DR-3).
SIGMA_FACTORS = np.logspace(-3, 1, 9)

#: Ridge candidates of uLSIF's leave-one-out selection (the reference code's
#: ``logspace(-3, 1, 9)``).
LAMBDA_GRID = np.logspace(-3, 1, 9)


def median_distance(X: np.ndarray, seed: int | None, max_points: int = 5000) -> float:
    """The median of the pairwise distances between the rows of ``X`` (the "median heuristic").

    Over at most ``max_points`` rows drawn without replacement with ``seed``, so that the cost
    stays bounded on large sets; at least ``1e-12`` so that a window of duplicates has a width.
    """
    if X.shape[0] > max_points:
        rows = np.random.default_rng(seed).choice(X.shape[0], max_points, replace=False)
        X = X[rows]
    if X.shape[0] < 2:
        return 1.0
    d2 = distance.pdist(X, "sqeuclidean")  # each pair once, without an n x n matrix
    middle = d2.shape[0] // 2
    d2.partition(middle)  # in place: np.median would copy the n^2 / 2 values first
    median = d2[middle] if d2.shape[0] % 2 else 0.5 * (d2[middle] + d2[:middle].max())
    return max(float(np.sqrt(median)), 1e-12)


def knn_bandwidths(P: np.ndarray, k: int, block: int = 512) -> np.ndarray:
    """Each row's distance to its ``k``-th nearest other row of ``P`` (eq. 5.7's ``s_i``).

    The point itself is excluded (D-DR-5). A distance of 0 (``k`` or more exact duplicates, common
    in Spambase) is floored at ``1e-12`` times the median bandwidth, so the local kernel never
    divides by zero (D-DR-6). Blocks of rows keep the memory at ``block x n``.
    """
    n = P.shape[0]
    rank = min(k, n - 1)
    out = np.zeros(n)
    if rank < 1:
        return np.ones(n)
    for start in range(0, n, block):
        stop = min(start + block, n)
        d2 = sq_distances(P[start:stop], P)
        d2[np.arange(stop - start), np.arange(start, stop)] = np.inf  # not its own neighbour
        out[start:stop] = np.sqrt(np.partition(d2, rank - 1, axis=1)[:, rank - 1])
    return floor_bandwidths(out)


def floor_bandwidths(s: np.ndarray) -> np.ndarray:
    """``s`` with zeros raised to ``1e-12`` times the median positive value (D-DR-6)."""
    positive = s[s > 0]
    floor = 1e-12 * (float(np.median(positive)) if positive.size else 1.0)
    return np.maximum(s, floor)
