"""Kernels of the linear online AUC learners: OPAUC's per-class moment updates and gradient step,
OAM's sequential passive-aggressive pass over a buffer of opposite-class samples.

Every function works on the leading ``n`` coordinates of dense float64 arrays that the estimator
owns (capacity may exceed ``n``), and updates them in place.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["oam_seq_pass", "opauc_gradient_step", "opauc_moments_update"]


@njit(cache=True)
def opauc_moments_update(count, mean, cov, n, x):
    """Add ``x`` to a class's running mean and covariance; return the new count.

    With ``T`` the count after adding ``x``, ``c`` the old mean and ``c'`` the new one:
    ``c' = c + (x - c) / T`` and
    ``Gamma <- Gamma + (x x' - Gamma - c c') / T + c c' - c' c''``, which keeps ``Gamma`` the
    (biased) covariance ``mean(x x') - c' c''`` of the samples seen (Gao et al. 2013, the authors'
    reference code). O(n^2).
    """
    total = count + 1
    inv = 1.0 / total
    old = mean[:n].copy()
    for i in range(n):
        mean[i] = old[i] + (x[i] - old[i]) * inv
    for i in range(n):
        for j in range(n):
            old_outer = old[i] * old[j]
            cov[i, j] += (x[i] * x[j] - cov[i, j] - old_outer) * inv + old_outer - mean[i] * mean[j]
    return total


@njit(cache=True)
def opauc_gradient_step(w, n, x, sign, opposite_mean, opposite_cov, eta, lam):
    """One OPAUC gradient step against the opposite class's moments.

    Gradient of the square pairwise loss averaged over the opposite class (plus ``lam/2 |w|^2``):
    ``g = lam w - y (x - c) + (x - c)(x - c)' w + Gamma w`` with ``c``, ``Gamma`` the opposite
    class's mean and covariance and ``y`` the sign of ``x``; then ``w <- w - eta_t g`` with the
    step bounded by the curvature of the step's quadratic (D-KOIL-28):
    ``eta_t = min(eta, 1 / (lam + |x - c|^2 + trace(Gamma)))``, which is ``eta`` on scaled data
    and keeps the step from amplifying ``w`` on unscaled data. O(n^2).
    """
    diff = np.empty(n)
    curvature = lam
    for i in range(n):
        diff[i] = x[i] - opposite_mean[i]
        curvature += diff[i] * diff[i] + opposite_cov[i, i]
    if curvature * eta > 1.0:
        eta = 1.0 / curvature
    projection = 0.0
    for i in range(n):
        projection += diff[i] * w[i]
    gradient = np.empty(n)
    for i in range(n):
        cov_w = 0.0
        row = opposite_cov[i]
        for j in range(n):
            cov_w += row[j] * w[j]
        gradient[i] = lam * w[i] - sign * diff[i] + diff[i] * projection + cov_w
    for i in range(n):
        w[i] -= eta * gradient[i]


@njit(cache=True)
def oam_seq_pass(w, n, x, sign, buffer, n_buffered, c_t):
    """OAM's sequential update: one passive-aggressive step per buffered opposite sample.

    For each buffered ``b`` in order: ``loss = max(0, 1 - y w.(x - b))``; if positive,
    ``w <- w + min(c_t / 2, loss / |x - b|^2) y (x - b)`` (Zhao et al. 2011, Algorithm 3).
    Pairs with ``x == b`` carry no direction and are skipped. Returns the number of steps taken.
    """
    steps = 0
    diff = np.empty(n)
    for k in range(n_buffered):
        row = buffer[k]
        margin = 0.0
        norm2 = 0.0
        for i in range(n):
            d = x[i] - row[i]
            diff[i] = d
            margin += w[i] * d
            norm2 += d * d
        loss = 1.0 - sign * margin
        if loss <= 0.0 or norm2 == 0.0:
            continue
        tau = min(0.5 * c_t, loss / norm2)
        for i in range(n):
            w[i] += tau * sign * diff[i]
        steps += 1
    return steps
