"""The Gaussian kernel of the density-ratio methods, written once.

Every density-ratio estimator, detector and re-weighter of the package uses the thesis's
convention, ``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))`` (eq. 3.10), and takes the width
``sigma``. The jitted kernel (:func:`gaussian_of_distances`, :func:`gaussian_gram`) is written
with the coefficient ``gamma = 1 / (2 sigma^2)``, derived from ``sigma`` only by
:func:`gaussian_gamma`; :func:`gaussian_exponent` is the kernel's logarithm in plain numpy (the
kernel density estimates sum it by log-sum-exp) and :func:`gaussian_reference` the kernel in plain
numpy, which the tests hold the jitted kernel to. :func:`local_gram` is locKMM's locally adaptive
kernel (eq. 5.7), one width per point.
"""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba.density_ratio import gaussian_of_squared_distances

__all__ = [
    "gaussian_exponent",
    "gaussian_gamma",
    "gaussian_gram",
    "gaussian_of_distances",
    "gaussian_reference",
    "local_gram",
    "sq_distances",
]


def sq_distances(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Squared Euclidean distances between the rows of ``A`` and ``B`` (BLAS, clipped at 0)."""
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * (A @ B.T)
    return np.maximum(d2, 0.0, out=d2)


def gaussian_gamma(sigma: float) -> float:
    """The coefficient ``gamma = 1 / (2 sigma^2)`` of the kernel ``exp(-gamma ||a - b||^2)``
    of width ``sigma``: the one place where the two conventions meet."""
    return 1.0 / (2.0 * sigma * sigma)


def gaussian_exponent(d2: np.ndarray, sigma: float) -> np.ndarray:
    """The log of the Gaussian kernel, ``-d2 / (2 sigma^2)``, from squared distances ``d2``."""
    return -d2 / (2.0 * sigma * sigma)


def gaussian_reference(d2: np.ndarray, sigma: float) -> np.ndarray:
    """The Gaussian kernel of eq. 3.10 from squared distances ``d2`` in plain numpy: what
    :func:`gaussian_of_distances` computes in one jitted pass (to a few units in the last place,
    values below the smallest normal double written there as 0)."""
    return np.exp(gaussian_exponent(d2, sigma))


def gaussian_gram(A: np.ndarray, B: np.ndarray, sigma: float) -> np.ndarray:
    """``exp(-||a - b||^2 / (2 sigma^2))`` for every row pair (eq. 3.10)."""
    return gaussian_of_distances(sq_distances(A, B), sigma)


def gaussian_of_distances(d2: np.ndarray, sigma: float) -> np.ndarray:
    """The Gaussian kernel of eq. 3.10 from squared distances ``d2``: a width search computes the
    distances once and the kernel once per candidate width."""
    d2 = np.ascontiguousarray(d2, dtype=np.float64)
    flat = d2.reshape(1, -1)  # one compiled kernel whatever the shape
    out = np.empty_like(flat)
    gaussian_of_squared_distances(flat, gaussian_gamma(sigma), out)
    return out.reshape(d2.shape)


def local_gram(A: np.ndarray, s_a: np.ndarray, B: np.ndarray, s_b: np.ndarray) -> np.ndarray:
    """The locally adaptive kernel ``exp(-||a - b||^2 / (2 s_a s_b))`` for every row pair
    (eq. 5.7), ``s`` being each point's distance to its k-th nearest neighbour."""
    return np.exp(-sq_distances(A, B) / (2.0 * np.outer(s_a, s_b)))
