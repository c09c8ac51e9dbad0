"""Kernels of the KMM quadratic programme (eq. 3.14, and eq. 5.3 in the novelty direction):
``min 1/2 b'Kb - k'b`` over ``{0 <= b <= B, low <= sum b <= high}``.

* :func:`project_box_slab` and :func:`kmm_solve`: by accelerated projected gradient (FISTA with
  adaptive restart); the projection onto the box and slab finds the slab's multiplier by
  bisection.
* :func:`kmm_proximal_solve`: the same programme from a warm start, by proximal steps, each an
  exact solve by primal-dual active sets with conjugate gradients on the free weights;
  :func:`mapping_residual`, the gradient mapping both solvers stop on.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["kmm_proximal_solve", "kmm_solve", "mapping_residual", "project_box_slab"]


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
def kmm_solve(K, k, upper, low, high, beta, step, tol, max_iter, one_product=False):
    """Minimise ``1/2 b'Kb - k'b`` over ``{0 <= b <= upper, low <= sum b <= high}`` in place.

    FISTA (Beck and Teboulle, 2009) from the feasible starting point ``beta`` with step ``step``
    (``1 / lambda_max(K)``), restarting the momentum whenever the objective would rise
    (O'Donoghue and Candes, 2015), which keeps it monotone on the near-singular Gram matrices of
    Gaussian kernels. Stops when the gradient mapping ``(y - P(y - step g)) / step`` is below
    ``tol`` in every coordinate. Returns ``(iterations, residual)``; ``beta`` holds the solution.

    ``one_product``: ``K y`` is carried from the products ``K b`` of the iterates (``y`` is a
    combination of the last two), so that each iteration takes one product with ``K`` instead
    of two; the same iterates in exact arithmetic, not bit for bit.
    """
    n = beta.shape[0]
    y = beta.copy()
    previous = beta.copy()
    candidate = np.empty(n)
    trial = np.empty(n)
    t = 1.0
    residual = np.inf
    Kb = K @ beta
    Ky = Kb.copy()  # K y, carried when one_product
    objective = 0.5 * (beta @ Kb) - k @ beta
    iteration = 0
    for iteration in range(1, max_iter + 1):  # noqa: B007 (returned after the loop)
        gradient = Ky - k if one_product else K @ y - k
        residual = mapping_residual(y, gradient, step, upper, low, high, trial, candidate)
        Kc = K @ candidate
        new_objective = 0.5 * (candidate @ Kc) - k @ candidate
        if new_objective > objective and t > 1.0:
            # momentum overshot: restart from the last iterate without it
            t = 1.0
            y[:] = previous
            Ky[:] = Kb
            continue
        t_next = 0.5 * (1.0 + math.sqrt(1.0 + 4.0 * t * t))
        momentum = (t - 1.0) / t_next
        for i in range(n):
            y[i] = candidate[i] + momentum * (candidate[i] - previous[i])
            previous[i] = candidate[i]
            if one_product:
                Ky[i] = Kc[i] + momentum * (Kc[i] - Kb[i])
                Kb[i] = Kc[i]
        t = t_next
        objective = new_objective
        if residual <= tol:
            break
    beta[:] = previous
    return iteration, residual


@njit(cache=True)
def mapping_residual(beta, gradient, step, upper, low, high, trial, out):
    """``max_i |beta_i - P(beta - step g)_i| / step``: the largest coordinate of the gradient
    mapping at ``beta`` (P the projection of :func:`project_box_slab`): the stopping test of
    :func:`kmm_proximal_solve`, the one :func:`kmm_solve` makes at its extrapolated point.
    ``trial`` and ``out`` are scratch."""
    n = beta.shape[0]
    for i in range(n):
        trial[i] = beta[i] - step * gradient[i]
    project_box_slab(trial, upper, low, high, out)
    residual = 0.0
    for i in range(n):
        residual = max(residual, abs(beta[i] - out[i]) / step)
    return residual


@njit(cache=True)
def _face_solve(K, rho, rhs, free, x, equality, tol, max_products, p, q, r):
    """Conjugate gradients (Hestenes and Stiefel, 1952) on ``(K + rho I)_FF x_F = rhs_F``, ``F``
    the coordinates where ``free`` is set, from ``x_F``; with ``equality`` the directions keep
    ``sum(x_F)`` (projected conjugate gradients: each residual has its mean over ``F`` removed).
    Stops when every residual coordinate is at most ``tol``, after ``max_products`` products
    with ``K``, or at a direction without curvature. Returns the products taken."""
    n = x.shape[0]
    n_free = 0
    for i in range(n):
        p[i] = x[i] if free[i] else 0.0
        n_free += free[i]
    if n_free == 0:
        return 0
    np.dot(K, p, q)
    products = 1
    for i in range(n):
        r[i] = rhs[i] - q[i] - rho * x[i] if free[i] else 0.0
    squared, largest = _residual_norms(r, free, n_free, equality)
    for i in range(n):
        p[i] = r[i]
    while largest > tol and products < max_products:
        np.dot(K, p, q)  # p is 0 off F: q_F = K_FF p_F
        products += 1
        curvature = 0.0
        for i in range(n):
            if free[i]:
                q[i] += rho * p[i]
                curvature += p[i] * q[i]
        if not curvature > 0.0:  # p vanished to round-off
            break
        alpha = squared / curvature
        for i in range(n):
            if free[i]:
                x[i] += alpha * p[i]
                r[i] -= alpha * q[i]
        new_squared, largest = _residual_norms(r, free, n_free, equality)
        ratio = new_squared / squared
        squared = new_squared
        for i in range(n):
            p[i] = r[i] + ratio * p[i] if free[i] else 0.0
    return products


@njit(cache=True)
def _residual_norms(r, free, n_free, equality):
    """``(|r|^2, max_i |r_i|)`` of the residual ``r`` of :func:`_face_solve`, after the
    projection of ``r_F`` (:func:`_remove_mean`) when the directions keep the sum."""
    if equality:
        _remove_mean(r, free, n_free)
    squared = 0.0
    largest = 0.0
    for i in range(r.shape[0]):
        squared += r[i] * r[i]
        largest = max(largest, abs(r[i]))
    return squared, largest


@njit(cache=True)
def _remove_mean(v, free, n_free):
    """``v_F -= mean(v_F)`` in place: the projection onto the directions that keep the sum."""
    mean = 0.0
    for i in range(v.shape[0]):
        if free[i]:
            mean += v[i]
    mean /= n_free
    for i in range(v.shape[0]):
        if free[i]:
            v[i] -= mean


#: Status of a weight in the active-set solve of :func:`kmm_proximal_solve`.
FREE, AT_ZERO, AT_UPPER = 0, 1, 2

#: Passes of the active-set solve of one proximal step before :func:`kmm_proximal_solve` gives
#: up. On the windowed re-weighter's programmes the sets settle in 2 to 6; whole exchanges of
#: the sets may cycle on a matrix that is not an M-matrix (a Gaussian Gram matrix is none), and
#: when they do, more passes seldom help.
MAX_SETS = 12


@njit(cache=True)
def _active_set_solve(K, rho, c, upper, low, high, x, curvature, slack, max_sets, max_products):
    """``min 1/2 x'(K + rho I)x - c'x`` over ``{0 <= x <= upper, low <= sum x <= high}`` in
    place from the feasible ``x``, by primal-dual active sets (Hintermueller, Ito and Kunisch,
    2003): each pass fixes the weights predicted at a bound, solves the programme on the others
    as an equality (with the slab's bound, when the slab is predicted active) by
    :func:`_face_solve`, and predicts again: a free weight whose solution breaks a bound goes
    to it, a weight at a bound whose multiplier has the wrong sign is freed, and the slab
    likewise. A prediction changes only on a violation above ``slack`` (a multiplier, or a
    weight's move that shifts a gradient by ``slack`` at ``curvature``, a bound of ``K``'s
    largest eigenvalue): the face solve is accurate to ``0.2 x slack``, and a weight left
    within it of its bound is put there by the caller's projection. Stops when no prediction
    changes, ``x`` then meeting the programme's KKT conditions to ``slack``. Returns
    ``(settled, products)``; unsettled after ``max_sets`` passes or ``max_products`` products
    with ``K``."""
    n = x.shape[0]
    status = np.zeros(n, dtype=np.int8)
    free = np.zeros(n, dtype=np.bool_)
    reach = slack / curvature  # a weight's move that changes a gradient by at most slack
    gradient = np.empty(n)
    rhs = np.empty(n)
    fixed = np.empty(n)
    p = np.empty(n)
    q = np.empty(n)
    r = np.empty(n)
    np.dot(K, x, gradient)
    products = 1
    total = 0.0
    for i in range(n):
        g = gradient[i] + rho * x[i] - c[i]
        if x[i] <= 0.0 and g > 0.0:
            status[i] = AT_ZERO
        elif x[i] >= upper and g < 0.0:
            status[i] = AT_UPPER
        total += x[i]
    slab = 1 if total >= high else (-1 if total <= low else 0)
    for _ in range(max_sets):
        n_free = 0
        n_upper = 0
        free_total = 0.0
        for i in range(n):
            free[i] = status[i] == FREE
            if status[i] == AT_ZERO:
                x[i] = 0.0
            elif status[i] == AT_UPPER:
                x[i] = upper
                n_upper += 1
            else:
                n_free += 1
                free_total += x[i]
            fixed[i] = upper if status[i] == AT_UPPER else 0.0
        for i in range(n):
            rhs[i] = c[i]
        if n_upper > 0:  # the weights at the upper bound move the free ones' right-hand side
            np.dot(K, fixed, gradient)
            products += 1
            for i in range(n):
                rhs[i] -= gradient[i]
        if slab != 0 and n_free > 0:  # a start on the slab's bound, which the face solve keeps
            shift = ((high if slab == 1 else low) - upper * n_upper - free_total) / n_free
            for i in range(n):
                if free[i]:
                    x[i] += shift
        products += _face_solve(
            K, rho, rhs, free, x, slab != 0, 0.2 * slack, max_products - products, p, q, r
        )
        np.dot(K, x, gradient)
        products += 1
        free_gradient = 0.0
        total = 0.0
        for i in range(n):
            gradient[i] += rho * x[i] - c[i]
            if free[i]:
                free_gradient += gradient[i]
            total += x[i]
        # the slab's multiplier: the free weights' gradient is -nu at a solution on the face
        nu = -free_gradient / n_free if slab != 0 and n_free > 0 else 0.0
        # the predictions that change: each a weight (or the slab) whose solution breaks its
        # bound, or whose multiplier has the wrong sign
        n_changes = 0
        for i in range(n):
            g = gradient[i] + nu
            if status[i] == AT_ZERO:
                new = AT_ZERO if g > -slack else FREE
            elif status[i] == AT_UPPER:
                new = AT_UPPER if g < slack else FREE
            else:
                new = AT_ZERO if x[i] < -reach else (AT_UPPER if x[i] > upper + reach else FREE)
            if new != status[i]:
                n_changes += 1
                status[i] = new
        if slab == 1:
            new_slab = 1 if nu + curvature * (total - high) > -slack else 0
        elif slab == -1:
            new_slab = -1 if -nu + curvature * (low - total) > -slack else 0
        else:
            new_slab = 1 if total > high + reach else (-1 if total < low - reach else 0)
        if new_slab != slab:
            n_changes += 1
        if n_changes == 0:
            return True, products
        slab = new_slab
        if products >= max_products:
            break
    return False, products


@njit(cache=True)
def kmm_proximal_solve(K, k, upper, low, high, beta, step, tol, rho, max_products, max_steps):
    """Minimise ``1/2 b'Kb - k'b`` over ``{0 <= b <= upper, low <= sum b <= high}`` in place, from
    the feasible ``beta``, by the proximal point method (Rockafellar, 1976): each step solves
    ``min 1/2 b'Kb - k'b + rho/2 ||b - beta||^2`` over the same set exactly
    (:func:`_active_set_solve`) and moves ``beta`` there (projected onto the set, against
    round-off). The added term makes each step's programme strongly convex, so conjugate
    gradients converge on it in about as many products as ``K`` has eigenvalues above ``rho``,
    and keeps the step near ``beta`` along the directions in which the programme is flat.

    Stops when the gradient mapping of step ``step`` is below ``tol`` in every coordinate (the
    test of :func:`kmm_solve`; ``1 / step`` is also the curvature of the active-set solve's
    slack). Returns ``(converged, products, residual)``: not converged when a step's active
    sets did not settle within :data:`MAX_SETS` passes, after ``max_steps`` steps or after
    ``max_products`` products with ``K``, ``beta`` then holding the last step's point.
    """
    n = beta.shape[0]
    gradient = np.empty(n)
    trial = np.empty(n)
    projected = np.empty(n)
    c = np.empty(n)
    x = beta.copy()
    np.dot(K, beta, gradient)
    products = 1
    for i in range(n):
        gradient[i] -= k[i]
    residual = mapping_residual(beta, gradient, step, upper, low, high, trial, projected)
    for _ in range(max_steps):
        if residual <= tol or products >= max_products:
            break
        for i in range(n):
            c[i] = k[i] + rho * beta[i]
            x[i] = beta[i]
        settled, taken = _active_set_solve(
            K, rho, c, upper, low, high, x, 1.0 / step, 0.5 * tol, MAX_SETS, max_products - products
        )
        products += taken
        if not settled:
            break
        project_box_slab(x, upper, low, high, beta)
        np.dot(K, beta, gradient)
        products += 1
        for i in range(n):
            gradient[i] -= k[i]
        residual = mapping_residual(beta, gradient, step, upper, low, high, trial, projected)
    return residual <= tol, products, residual
