"""Kernels of the density-ratio estimators: the KMM quadratic programme and the per-sample steps.

Everything here works on dense float64 arrays. The Gaussian kernel is written in the thesis's
convention ``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))`` and passed as ``gamma = 1 / (2 sigma^2)``;
the locally adaptive kernel of locKMM (eq. 5.7) is ``exp(-||a - b||^2 / (2 s_a s_b))``, with ``s``
each point's distance to its k-th nearest neighbour.

* :func:`project_box_slab` and :func:`kmm_solve`: the KMM programme (eq. 3.14, and eq. 5.3 in the
  novelty direction) ``min 1/2 b'Kb - k'b`` over ``{0 <= b <= B, low <= sum b <= high}``, by
  accelerated projected gradient (FISTA with adaptive restart); the projection onto the box and
  slab finds the slab's multiplier by bisection.
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
    "kmm_solve",
    "kth_smallest",
    "local_gaussian_sum",
    "project_box_slab",
    "rank_one_update",
    "ulsif_loocv_scores",
]


@njit(cache=True)
def _clipped_sum(v, shift, upper):
    total = 0.0
    for i in range(v.shape[0]):
        value = v[i] - shift
        if value > upper:
            value = upper
        elif value < 0.0:
            value = 0.0
        total += value
    return total


@njit(cache=True)
def project_box_slab(v, upper, low, high, out):
    """Euclidean projection of ``v`` onto ``{0 <= b_i <= upper, low <= sum b <= high}``.

    The projection is ``clip(v - tau, 0, upper)`` with ``tau = 0`` if the clipped sum already lies
    in ``[low, high]``, else the ``tau`` that puts the sum on the violated side (the KKT conditions
    of the projection; ``sum clip(v - tau, 0, upper)`` is non-increasing in ``tau``, so bisection
    finds it). Requires ``0 <= low <= high`` and ``low <= n * upper``. Returns ``out``.
    """
    n = v.shape[0]
    total = _clipped_sum(v, 0.0, upper)
    tau = 0.0
    if total < low or total > high:
        target = high if total > high else low
        lo = v[0]
        hi = v[0]
        for i in range(n):
            lo = min(lo, v[i])
            hi = max(hi, v[i])
        lo -= upper  # sum at lo is n * upper >= target
        # sum at hi is 0 <= target
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if mid <= lo or mid >= hi:
                break
            if _clipped_sum(v, mid, upper) > target:
                lo = mid
            else:
                hi = mid
        tau = 0.5 * (lo + hi)
    for i in range(n):
        value = v[i] - tau
        out[i] = upper if value > upper else (0.0 if value < 0.0 else value)
    return out


@njit(cache=True)
def kmm_solve(K, k, upper, low, high, beta, step, tol, max_iter):
    """Minimise ``1/2 b'Kb - k'b`` over ``{0 <= b <= upper, low <= sum b <= high}`` in place.

    FISTA (Beck and Teboulle, 2009) from the feasible starting point ``beta`` with step ``step``
    (``1 / lambda_max(K)``), restarting the momentum whenever the objective would rise
    (O'Donoghue and Candes, 2015), which keeps it monotone on the near-singular Gram matrices of
    Gaussian kernels. Stops when the gradient mapping ``(y - P(y - step g)) / step`` is below
    ``tol`` in every coordinate. Returns ``(iterations, residual)``; ``beta`` holds the solution.
    """
    n = beta.shape[0]
    y = beta.copy()
    previous = beta.copy()
    candidate = np.empty(n)
    trial = np.empty(n)
    t = 1.0
    residual = np.inf
    Kb = K @ beta
    objective = 0.5 * (beta @ Kb) - k @ beta
    iteration = 0
    for iteration in range(1, max_iter + 1):  # noqa: B007 (returned after the loop)
        gradient = K @ y - k
        for i in range(n):
            trial[i] = y[i] - step * gradient[i]
        project_box_slab(trial, upper, low, high, candidate)
        residual = 0.0
        for i in range(n):
            residual = max(residual, abs(y[i] - candidate[i]) / step)
        Kc = K @ candidate
        new_objective = 0.5 * (candidate @ Kc) - k @ candidate
        if new_objective > objective and t > 1.0:
            # momentum overshot: restart from the last iterate without it
            t = 1.0
            y[:] = previous
            continue
        t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        momentum = (t - 1.0) / t_next
        for i in range(n):
            y[i] = candidate[i] + momentum * (candidate[i] - previous[i])
            previous[i] = candidate[i]
        t = t_next
        objective = new_objective
        if residual <= tol:
            break
    beta[:] = previous
    return iteration, residual


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


#: ``log`` of the smallest normal double: a kernel value below it would be subnormal.
SMALLEST_NORMAL_EXPONENT = math.log(2.2250738585072014e-308)


@njit(cache=True)
def gaussian_of_squared_distances(d2, gamma, out):
    """``out = exp(-gamma * d2)`` elementwise (C-contiguous 2-d arrays), values that would be
    subnormal (below about ``2.2e-308``) written as 0: computing them costs ten times a normal
    value and no sum of kernel values can tell them from 0."""
    for i in range(d2.shape[0]):
        for j in range(d2.shape[1]):
            exponent = -gamma * d2[i, j]
            # exp of the clamped exponent stays on libm's fast path even where the compiler
            # evaluates both sides of the choice
            value = math.exp(max(exponent, SMALLEST_NORMAL_EXPONENT))
            out[i, j] = value if exponent >= SMALLEST_NORMAL_EXPONENT else 0.0


@njit(cache=True)
def ulsif_loocv_scores(
    eigenvalues, QT, PT_de, PT_nu, q_h, XT_de, XT_nu, n_de, n_nu, lambdas, out, identity_basis
):
    """Closed-form leave-one-out scores of uLSIF, one per ridge in ``lambdas``, into ``out``.

    Kanamori, Hido and Sugiyama (2009, Section 3.3) in the eigenbasis of ``H = Q diag(e) Q'``:
    ``PT_de``, ``PT_nu`` are the held-out basis columns turned into that basis (``(Q' X)'``,
    ``n_min x b``), ``XT_de``, ``XT_nu`` the same columns untransformed (``n_min x b``), ``q_h``
    is ``Q' h`` and ``QT`` is ``Q'``. Everything but the product that maps back from the eigenbasis
    is fused into passes over the rows (one held-out pair each); that product is one BLAS call,
    skipped when ``identity_basis`` says ``Q = I`` (``H`` taken as 0).
    """
    n_min, b = PT_de.shape
    D = np.empty(b)
    Y = np.empty((n_min, b))
    shrink = (n_de - 1.0) / n_de
    scale = (n_de - 1.0) / (n_de * (n_nu - 1.0))
    for position in range(lambdas.shape[0]):
        ridge = lambdas[position] * shrink
        for k in range(b):
            D[k] = 1.0 / (eigenvalues[k] + ridge)
        for i in range(n_min):
            # n - x_i' C^-1 x_i, h' C^-1 x_i and x'_i C^-1 x_i of the closed form
            tmp = float(n_de)
            c0 = 0.0
            c1 = 0.0
            for k in range(b):
                dp = D[k] * PT_de[i, k]
                tmp -= PT_de[i, k] * dp
                c0 += q_h[k] * dp
                c1 += PT_nu[i, k] * dp
            coefficient = (n_nu * c0 - c1) / tmp
            for k in range(b):
                Y[i, k] = D[k] * (n_nu * q_h[k] - PT_nu[i, k] + PT_de[i, k] * coefficient)
        # back from the eigenbasis: row i is column i of n_nu B0 - B1
        M = Y if identity_basis else Y @ QT
        sum_sq_de = 0.0
        sum_nu = 0.0
        for i in range(n_min):
            w_de = 0.0
            w_nu = 0.0
            for k in range(b):
                a = scale * M[i, k]
                if a > 0.0:
                    w_de += XT_de[i, k] * a
                    w_nu += XT_nu[i, k] * a
            sum_sq_de += w_de * w_de
            sum_nu += w_nu
        out[position] = sum_sq_de / (2.0 * n_min) - sum_nu / n_min
