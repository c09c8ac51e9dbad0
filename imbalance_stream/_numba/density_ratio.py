"""Kernels of the density-ratio estimators' per-sample steps (the KMM programme's are in
:mod:`imbalance_stream._numba.kmm`).

Everything here works on dense float64 arrays. The Gaussian kernel is written in the thesis's
convention ``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))`` and passed as ``gamma = 1 / (2 sigma^2)``;
the locally adaptive kernel of locKMM (eq. 5.7) is ``exp(-||a - b||^2 / (2 s_a s_b))``, with ``s``
each point's distance to its k-th nearest neighbour.

* :func:`local_gaussian_sum`, :func:`kth_smallest`: the fused passes of one query against a
  window (squared distances, kernel values and their weighted sum in one loop), locKMM's
  per-sample score.
* :func:`rank_one_update`: the sliding-window update of a scatter matrix ``S += a a' - r r'``
  (uLSIF's statistics between refreshes, Algorithm 4).
* :func:`kliep_ascent`: Algorithm 2's projected gradient ascent at one step size.
* :func:`ulsif_loocv_scores`: uLSIF's closed-form leave-one-out score over a grid of ridges
  (Algorithm 4's model selection).
* :func:`gaussian_of_squared_distances`: the Gaussian kernel of a matrix of squared distances, in
  one pass (no temporary for the scaled exponent).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = [
    "gaussian_of_squared_distances",
    "kliep_ascent",
    "kth_smallest",
    "local_gaussian_sum",
    "rank_one_update",
    "ulsif_loocv_scores",
]


@njit(cache=True)
def _squared_distance(a, b):
    total = 0.0
    for j in range(b.shape[0]):
        diff = a[j] - b[j]
        total += diff * diff
    return total


@njit(cache=True)
def local_gaussian_sum(X, count, x, s_x, s, weights, skip):
    """``sum_{i < count, i != skip} w_i exp(-||X_i - x||^2 / (2 s_x s_i))`` (eq. 5.7). O(count d).

    ``weights`` of length 0 means every weight is 1; ``skip = -1`` skips nothing.
    """
    unweighted = weights.shape[0] == 0
    total = 0.0
    for i in range(count):
        if i == skip:
            continue
        value = math.exp(-_squared_distance(X[i], x) / (2.0 * s_x * s[i]))
        total += value if unweighted else weights[i] * value
    return total


@njit(cache=True)
def kth_smallest(X, count, x, k, skip, scratch):
    """Distance from ``x`` to its ``k``-th nearest row among ``X[:count]`` other than ``skip``.

    The squared distances go to ``scratch`` and ``np.partition`` selects the k-th in O(count).
    With fewer than ``k`` other rows, the farthest of them; 0 with none.
    """
    m = 0
    for i in range(count):
        if i == skip:
            continue
        scratch[m] = _squared_distance(X[i], x)
        m += 1
    if m == 0:
        return 0.0
    rank = min(k, m) - 1
    return math.sqrt(np.partition(scratch[:m], rank)[rank])


@njit(cache=True)
def kliep_ascent(A, xi, alpha, step, max_iter):
    """Algorithm 2's iterations at one step size, accepted only while the objective rises.

    Each iteration: ``alpha += step A'(1 / (A alpha))``, then the projection of Algorithm 2
    (``alpha += (1 - xi'alpha) xi / xi'xi``, ``alpha = max(0, alpha)``, ``alpha /= xi'alpha``).
    The objective is ``mean(log(A alpha))``; an iteration that does not increase it is undone
    and ends the loop, as Sugiyama's reference implementation does before trying a smaller step.
    Returns the final objective; ``alpha`` is updated in place.
    """
    b = alpha.shape[0]
    xi_norm2 = xi @ xi
    if not xi_norm2 > 0.0:  # every basis function vanishes on the denominator sample
        return -np.inf
    fitted = A @ alpha
    objective = np.mean(np.log(np.maximum(fitted, 1e-300)))
    candidate = np.empty(b)
    for _ in range(max_iter):
        inverse = 1.0 / np.maximum(fitted, 1e-300)
        gradient = A.T @ inverse
        for l in range(b):
            candidate[l] = alpha[l] + step * gradient[l]
        correction = (1.0 - xi @ candidate) / xi_norm2
        for l in range(b):
            candidate[l] = max(0.0, candidate[l] + correction * xi[l])
        mass = xi @ candidate
        if not mass > 0.0:
            break
        for l in range(b):
            candidate[l] /= mass
        new_fitted = A @ candidate
        new_objective = np.mean(np.log(np.maximum(new_fitted, 1e-300)))
        if not (new_objective > objective and math.isfinite(new_objective)):
            break  # no ascent, or a step so large that the fit overflowed
        alpha[:] = candidate
        fitted = new_fitted
        objective = new_objective
    return objective


@njit(cache=True)
def rank_one_update(S, added, removed):
    """``S += a a' - r r'`` in place, ``a`` = ``added``; ``removed`` of length 0 adds only.
    O(b^2)."""
    b = added.shape[0]
    has_removed = removed.shape[0] > 0
    for i in range(b):
        for j in range(b):
            delta = added[i] * added[j]
            if has_removed:
                delta -= removed[i] * removed[j]
            S[i, j] += delta


@njit(cache=True)
def cholesky_rank_one(L, x, sign, work):
    """``L L' + sign x x'`` refactored in place in O(b^2), ``L`` lower triangular with a positive
    diagonal, ``sign`` +1 (update) or -1 (downdate); ``work`` (length b) is overwritten. Returns
    False when a downdate would leave the matrix not positive definite (``L`` is then partly
    changed: refactor from the matrix itself). The LINPACK rotations (``dchud``/``dchdd``)."""
    b = x.shape[0]
    for i in range(b):
        work[i] = x[i]
    for k in range(b):
        diagonal = L[k, k]
        squared = diagonal * diagonal + sign * work[k] * work[k]
        if not squared > 0.0:
            return False
        r = math.sqrt(squared)
        c = r / diagonal
        s = work[k] / diagonal
        L[k, k] = r
        for i in range(k + 1, b):
            L[i, k] = (L[i, k] + sign * s * work[i]) / c
            work[i] = c * work[i] - s * L[i, k]
    return True


@njit(cache=True)
def cholesky_solve(L, h, out):
    """``out = (L L')^-1 h`` by forward and back substitution, ``L`` lower triangular. O(b^2)."""
    b = h.shape[0]
    for i in range(b):
        total = h[i]
        for j in range(i):
            total -= L[i, j] * out[j]
        out[i] = total / L[i, i]
    for i in range(b - 1, -1, -1):
        total = out[i]
        for j in range(i + 1, b):
            total -= L[j, i] * out[j]
        out[i] = total / L[i, i]


#: ``log`` of the smallest normal double: a kernel value below it would be subnormal.
SMALLEST_NORMAL_EXPONENT = math.log(2.2250738585072014e-308)


@njit(cache=True)
def gaussian_of_squared_distances(d2, gamma, out):
    """``out = exp(-gamma * d2)`` elementwise (C-contiguous 2-d arrays), values that would be
    subnormal (below about ``2.2e-308``) written as 0: computing them costs ten times a normal
    value and no sum of kernel values can tell them from 0."""
    # Distances beyond the cutoff (with a margin for its rounding) skip exp, whose libm slow
    # path for underflow is most of the cost at the narrow widths where almost every value
    # vanishes; comparing distances, not exponents, keeps the compiler from evaluating exp on
    # both sides of the choice.
    cutoff = SMALLEST_NORMAL_EXPONENT / -gamma * (1.0 + 1e-12) if gamma > 0.0 else math.inf
    for i in range(d2.shape[0]):
        for j in range(d2.shape[1]):
            if d2[i, j] > cutoff:
                out[i, j] = 0.0
            else:
                exponent = -gamma * d2[i, j]
                value = math.exp(max(exponent, SMALLEST_NORMAL_EXPONENT))
                out[i, j] = value if exponent >= SMALLEST_NORMAL_EXPONENT else 0.0


@njit(cache=True)
def ulsif_loocv_scores(e, Q, P_de, P_nu, q_h, X_de, X_nu, h, n_de, n_nu, lambdas, out):
    """Closed-form leave-one-out scores of uLSIF, one per ridge in ``lambdas``, into ``out``.

    Kanamori, Hido and Sugiyama (2009, Section 3.3), with ``(H + l I)^-1`` split as
    ``I / l + Q diag(1 / (e + l) - 1 / l) Q'`` over the ``r`` eigenpairs ``(e, Q)`` of ``H``
    that the ridge can tell from 0 (``r`` may be 0: ``H`` taken as 0); the other directions
    of the basis space are the identity part. ``X_de``, ``X_nu`` are the held-out basis
    columns (``b x n_min``), ``h`` the numerator mean, and ``P_de = Q' X_de``,
    ``P_nu = Q' X_nu``, ``q_h = Q' h`` the same in the kept eigenbasis (``r x n_min``, ``r``).
    Every loop runs over the held-out pairs innermost, one accumulator per pair, so the
    compiler vectorises it across pairs while each pair's sums keep their order over the
    basis. Each ridge costs one ``b x r x n_min`` product, which maps the eigen part back.
    """
    b, n_min = X_de.shape
    r = e.shape[0]
    # x_i' x_i, h' x_i and x'_i x_i (numerator column times denominator column), which the
    # identity part needs at every ridge
    sq_de = np.zeros(n_min)
    h_de = np.zeros(n_min)
    nu_de = np.zeros(n_min)
    for k in range(b):
        for i in range(n_min):
            sq_de[i] += X_de[k, i] * X_de[k, i]
            h_de[i] += h[k] * X_de[k, i]
            nu_de[i] += X_nu[k, i] * X_de[k, i]
    shift = np.empty(r)  # 1 / (e + l) - 1 / l, without the cancellation
    W = np.empty((r, n_min))
    M = np.zeros((b, n_min))
    remaining = np.empty(n_min)  # n - x_i' C^-1 x_i
    h_term = np.empty(n_min)  # h' C^-1 x_i
    nu_term = np.empty(n_min)  # x'_i C^-1 x_i
    w_de = np.empty(n_min)
    w_nu = np.empty(n_min)
    shrink = (n_de - 1.0) / n_de
    scale = (n_de - 1.0) / (n_de * (n_nu - 1.0))
    for position in range(lambdas.shape[0]):
        ridge = lambdas[position] * shrink
        inverse = 1.0 / ridge
        for k in range(r):
            shift[k] = -e[k] / (ridge * (e[k] + ridge))
        for i in range(n_min):
            remaining[i] = n_de - inverse * sq_de[i]
            h_term[i] = inverse * h_de[i]
            nu_term[i] = inverse * nu_de[i]
        for k in range(r):
            for i in range(n_min):
                sp = shift[k] * P_de[k, i]
                remaining[i] -= P_de[k, i] * sp
                h_term[i] += q_h[k] * sp
                nu_term[i] += P_nu[k, i] * sp
        for i in range(n_min):
            h_term[i] = (n_nu * h_term[i] - nu_term[i]) / remaining[i]  # the pair's coefficient
        if r > 0:
            for k in range(r):
                for i in range(n_min):
                    W[k, i] = shift[k] * (n_nu * q_h[k] - P_nu[k, i] + P_de[k, i] * h_term[i])
            np.dot(Q, W, M)  # the eigen part of column i of n_nu B0 - B1, back in the basis
        w_de[:] = 0.0
        w_nu[:] = 0.0
        for k in range(b):
            for i in range(n_min):
                # column i of n_nu B0 - B1 is the identity part plus the eigen part; then the
                # clipping max(0, .) of the closed form (basis values are >= 0, so a clipped
                # entry adds an exact 0)
                identity = inverse * (n_nu * h[k] - X_nu[k, i] + X_de[k, i] * h_term[i])
                a = max(scale * (identity + M[k, i]), 0.0)
                w_de[i] += X_de[k, i] * a
                w_nu[i] += X_nu[k, i] * a
        sum_sq_de = 0.0
        sum_nu = 0.0
        for i in range(n_min):
            sum_sq_de += w_de[i] * w_de[i]
            sum_nu += w_nu[i]
        out[position] = sum_sq_de / (2.0 * n_min) - sum_nu / n_min
