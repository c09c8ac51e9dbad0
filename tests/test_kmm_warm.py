"""The warm-started KMM solver (proximal steps, each an active-set solve by conjugate gradients):
its jitted kernels against a plain numpy twin, and its solutions against reference solves of the
same programme (Huang et al., 2007; Miao, 2015, eq. 3.14): ``min 1/2 b'Kb - k'b`` over
``0 <= b <= B``, ``|mean(b) - 1| <= epsilon``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_density_ratio import kmm_reference, project_reference, two_gaussians

from imbalance_stream._numba import kmm as kernels
from imbalance_stream.density_ratio import kmm_solvers
from imbalance_stream.density_ratio.gaussian import gaussian_gram
from imbalance_stream.density_ratio.kmm_solvers import (
    PROXIMAL_WEIGHT,
    largest_eigenvalue,
    row_sum_bound,
    solve_kmm,
    solve_kmm_warm,
    tolerance_scale,
)

# ----------------------------------------------------------------------------------------------
# plain numpy twins of the jitted kernels, step for step


def mapping_residual_reference(beta, gradient, step, upper, low, high):
    return np.abs(beta - project_reference(beta - step * gradient, upper, low, high)).max() / step


def face_solve_reference(K, rho, rhs, free, x, equality, tol, max_products):
    """Conjugate gradients on ``(K + rho I)_FF x_F = rhs_F``; projected onto ``sum = const``."""
    F = np.flatnonzero(free)
    if F.size == 0:
        return 0
    H = K[np.ix_(F, F)] + rho * np.eye(F.size)

    def project(v):
        return v - v.mean() if equality else v

    r = project(rhs[F] - H @ x[F])
    p = r.copy()
    products = 1
    while np.abs(r).max() > tol and products < max_products:
        q = H @ p
        products += 1
        curvature = p @ q
        if not curvature > 0.0:
            break
        alpha = (r @ r) / curvature
        x[F] += alpha * p
        new_r = project(r - alpha * q)
        p = new_r + (new_r @ new_r) / (r @ r) * p
        r = new_r
    return products


def active_set_reference(K, rho, c, upper, low, high, x, curvature, slack, max_sets, max_products):
    """Primal-dual active sets on ``min 1/2 x'(K + rho I)x - c'x`` over the box and the slab."""
    H = K + rho * np.eye(len(x))
    reach = slack / curvature
    g = H @ x - c
    at_zero, at_upper = (x <= 0) & (g > 0), (x >= upper) & (g < 0)
    slab = 1 if x.sum() >= high else (-1 if x.sum() <= low else 0)
    products = 1
    for _ in range(max_sets):
        free = ~(at_zero | at_upper)
        x[at_zero], x[at_upper] = 0.0, upper
        fixed = np.where(at_upper, upper, 0.0)
        rhs = c - K @ fixed if at_upper.any() else c.copy()
        products += int(at_upper.any())
        if slab != 0 and free.any():
            bound = high if slab == 1 else low
            x[free] += (bound - upper * at_upper.sum() - x[free].sum()) / free.sum()
        products += face_solve_reference(
            K, rho, rhs, free, x, slab != 0, 0.2 * slack, max_products - products
        )
        g = H @ x - c
        products += 1
        nu = -g[free].mean() if slab != 0 and free.any() else 0.0
        g = g + nu
        new_zero = np.where(at_zero, g > -slack, free & (x < -reach))
        new_upper = np.where(at_upper, g < slack, free & (x > upper + reach))
        total = x.sum()
        if slab == 1:
            new_slab = 1 if nu + curvature * (total - high) > -slack else 0
        elif slab == -1:
            new_slab = -1 if -nu + curvature * (low - total) > -slack else 0
        else:
            new_slab = 1 if total > high + reach else (-1 if total < low - reach else 0)
        if (new_zero == at_zero).all() and (new_upper == at_upper).all() and new_slab == slab:
            return True, products
        at_zero, at_upper, slab = new_zero, new_upper, new_slab
        if products >= max_products:
            break
    return False, products


def proximal_reference(K, k, upper, low, high, beta, step, tol, rho, max_products, max_steps):
    """Proximal steps ``min f(b) + rho/2 ||b - beta||^2``, each solved by active sets."""
    gradient = K @ beta - k
    products = 1
    residual = mapping_residual_reference(beta, gradient, step, upper, low, high)
    for _ in range(max_steps):
        if residual <= tol or products >= max_products:
            break
        x = beta.copy()
        settled, taken = active_set_reference(
            K,
            rho,
            k + rho * beta,
            upper,
            low,
            high,
            x,
            1.0 / step,
            0.5 * tol,
            kernels.MAX_SETS,
            max_products - products,
        )
        products += taken
        if not settled:
            break
        beta[:] = project_reference(x, upper, low, high)
        gradient = K @ beta - k
        products += 1
        residual = mapping_residual_reference(beta, gradient, step, upper, low, high)
    return residual <= tol, products, residual


# ----------------------------------------------------------------------------------------------
# programmes


def programme(seed, m, n=None, d=2, sigma=1.0, upper=1000.0, epsilon=None, duplicates=False):
    """``(K, k, upper, low, high)`` of a KMM programme on two Gaussian samples."""
    source, target = two_gaussians(seed, m=m, n=n or m, d=d)
    if duplicates:  # an exactly singular Gram matrix
        source[: m // 2] = source[0]
    K = gaussian_gram(source, source, sigma)
    k = (m / len(target)) * gaussian_gram(source, target, sigma).sum(1)
    epsilon = (np.sqrt(m) - 1) / np.sqrt(m) if epsilon is None else epsilon
    low, high = max(m * (1 - epsilon), 0.0), m * (1 + epsilon)
    return K, k, upper, low, high, epsilon


def objective(K, k, b):
    return 0.5 * b @ K @ b - k @ b


# ----------------------------------------------------------------------------------------------
# the kernels against their twins


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    m=st.integers(1, 40),
    step=st.floats(1e-3, 10.0),
    upper=st.floats(0.5, 20.0),
    fractions=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
)
def test_mapping_residual_matches_numpy(seed, m, step, upper, fractions):
    rng = np.random.default_rng(seed)
    low, high = sorted(f * m * upper for f in fractions)
    beta = kernels.project_box_slab(rng.uniform(-1, upper + 1, m), upper, low, high, np.empty(m))
    gradient = rng.normal(0.0, 3.0, m)
    residual = kernels.mapping_residual(beta, gradient, step, upper, low, high, *np.empty((2, m)))
    expected = mapping_residual_reference(beta, gradient, step, upper, low, high)
    assert residual == pytest.approx(expected, rel=1e-9, abs=1e-7 * max(1.0, upper) / step)


@pytest.mark.parametrize(
    "seed, m, sigma, upper, epsilon",
    [
        (0, 40, 0.5, 1000.0, None),  # the re-weighter's slack: the slab never binds
        (1, 60, 0.4, 1000.0, 1e-10),  # the detectors' slab: an equality
        (3, 50, 0.5, 3.0, 0.01),  # weights at the upper bound too
        (5, 50, 0.5, 2.0, 0.3),
        (3, 30, 0.3, 1000.0, 0.3),
    ],
)
def test_proximal_solve_matches_its_numpy_twin(seed, m, sigma, upper, epsilon):
    """On well-conditioned programmes (narrow kernels), whose minimiser the tolerance pins
    down, the two reach the same weights; the wide kernels' flat programmes are the next
    test's."""
    K, k, upper, low, high, _ = programme(seed, m, sigma=sigma, upper=upper, epsilon=epsilon)
    step = 1.0 / row_sum_bound(K)
    tol = 1e-8 * tolerance_scale(k)
    start = np.random.default_rng(seed).uniform(0.0, 2.0, m)
    start = kernels.project_box_slab(start, upper, low, high, np.empty(m))
    jitted, twin = start.copy(), start.copy()
    arguments = (step, tol, PROXIMAL_WEIGHT * tol, 20000, 50)
    converged, products, residual = kernels.kmm_proximal_solve(
        K, k, upper, low, high, jitted, *arguments
    )
    expected = proximal_reference(K, k, upper, low, high, twin, *arguments)
    assert converged and expected[0]
    assert residual <= tol and expected[2] <= tol
    np.testing.assert_allclose(jitted, twin, atol=1e-6)
    # the same steps; BLAS's products round differently from numpy's (the twin adds rho I
    # inside its product), and conjugate gradients on an ill-conditioned face end some
    # iterations apart
    assert abs(products - expected[1]) <= 0.25 * expected[1]


@pytest.mark.parametrize("epsilon", [None, 1e-10])
def test_proximal_solve_and_its_twin_agree_on_a_flat_programme(epsilon):
    """A wide kernel: both meet the tolerance, at objectives as close as it allows."""
    K, k, upper, low, high, _ = programme(7, 80, sigma=3.0, epsilon=epsilon)
    step = 1.0 / row_sum_bound(K)
    tol = 1e-6 * tolerance_scale(k)
    jitted, twin = np.ones(80), np.ones(80)
    kmm_ones = kernels.project_box_slab(np.ones(80), upper, low, high, np.empty(80))
    jitted[:], twin[:] = kmm_ones, kmm_ones
    arguments = (step, tol, PROXIMAL_WEIGHT * tol, 20000, 50)
    assert kernels.kmm_proximal_solve(K, k, upper, low, high, jitted, *arguments)[0]
    assert proximal_reference(K, k, upper, low, high, twin, *arguments)[0]
    for b, other in ((jitted, twin), (twin, jitted)):
        largest, projected, curvature_term = certified_gap(K, k, b, upper, low, high, step)
        gap = objective(K, k, b) - objective(K, k, other)
        assert gap <= largest * np.abs(other - projected).sum() + curvature_term + 1e-9


# ----------------------------------------------------------------------------------------------
# the solutions against reference solves


def certified_gap(K, k, b, upper, low, high, step):
    """An upper bound of ``f(b) - f(x)`` over every feasible ``x``, by the gradient mapping ``G``
    at ``b``, ``b+ = P(b - step g)``: ``f(x) >= f(b) + g'(x - b+) + g'(b+ - b)``, and the
    projection's optimality gives ``g'(x - b+) >= G'(x - b+)``, so
    ``f(b) - f(x) <= max|G| ||x - b+||_1 + step g'G``. Returns ``(max|G|, b+, step g'G)``."""
    g = K @ b - k
    projected = project_reference(b - step * g, upper, low, high)
    G = (b - projected) / step
    return np.abs(G).max(), projected, step * (g @ G)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    m=st.integers(2, 40),
    d=st.integers(1, 3),
    sigma=st.floats(0.1, 8.0),
    upper=st.sampled_from([1.0, 2.5, 1000.0]),
    epsilon=st.sampled_from([1e-10, 0.05, 0.5, None]),
    tol=st.sampled_from([1e-4, 1e-6]),
    start_kind=st.sampled_from(["ones", "uniform", "wild"]),
    duplicates=st.booleans(),
)
def test_warm_solve_holds_the_constraints_and_the_tolerance(
    seed, m, d, sigma, upper, epsilon, tol, start_kind, duplicates
):
    K, k, upper, low, high, epsilon = programme(
        seed, m, d=d, sigma=sigma, upper=upper, epsilon=epsilon, duplicates=duplicates
    )
    rng = np.random.default_rng(seed)
    start = {
        "ones": np.ones(m),
        "uniform": rng.uniform(0.0, 3.0, m),
        "wild": rng.normal(0.0, 50.0, m),  # far outside the feasible set
    }[start_kind]
    b, products, residual = solve_kmm_warm(K, k, upper, epsilon, tol, 50_000, start)
    absolute = tol * tolerance_scale(k)
    # the constraints, exactly: the box to the bit, the slab to the sum's rounding
    assert b.min() >= 0.0 and b.max() <= upper
    assert low - 1e-12 * m <= b.sum() <= high + 1e-12 * m
    # the tolerance, at the solver's step and at the first-order solver's (1 / lambda_max)
    assert residual <= absolute
    step = 1.0 / largest_eigenvalue(K)
    largest, projected, curvature_term = certified_gap(K, k, b, upper, low, high, step)
    assert largest <= absolute * (1 + 1e-9)
    # not worse than a reference solve by more than the tolerance allows
    reference, _, _ = solve_kmm(K, k, upper, epsilon, 1e-10, 200_000)
    slack = 1e-10 * max(1.0, abs(objective(K, k, reference)))
    bound = largest * np.abs(reference - projected).sum() + curvature_term + slack
    assert objective(K, k, b) - objective(K, k, reference) <= bound


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("epsilon", [1e-10, 0.3])
def test_warm_solve_reaches_the_general_qp_solution(seed, epsilon):
    K, k, upper, low, high, _ = programme(seed, 25, n=30, upper=50.0, epsilon=epsilon)
    start = np.random.default_rng(seed).uniform(0.0, 2.0, 25)
    beta, products, residual = solve_kmm_warm(K, k, 50.0, epsilon, 1e-10, 50000, start)
    reference = kmm_reference(K, k, 50.0, low, high)
    assert residual <= 1e-10 * tolerance_scale(k)
    f_reference = objective(K, k, reference)
    assert objective(K, k, beta) <= f_reference + 1e-8 * abs(f_reference)
    assert abs(beta.sum() - 25) <= 25 * epsilon + 1e-8
    assert beta.min() >= 0 and beta.max() <= 50.0


def test_warm_solve_starting_at_the_solution_returns_it():
    K, k, upper, _, _, epsilon = programme(4, 60)
    cold, _, _ = solve_kmm(K, k, upper, epsilon, 1e-6, 50_000)
    warm, products, residual = solve_kmm_warm(K, k, upper, epsilon, 1e-6, 50_000, cold)
    if residual <= 1e-6 * tolerance_scale(k) and products == 1:  # met at the start
        np.testing.assert_array_equal(warm, cold)
    assert residual <= 1e-6 * tolerance_scale(k)


def test_warm_solve_hands_over_to_the_first_order_solver(monkeypatch):
    """With no proximal step allowed, FISTA solves from the start, with the products left."""
    K, k, upper, low, high, epsilon = programme(5, 40)
    monkeypatch.setattr(kmm_solvers, "MAX_PROXIMAL_STEPS", 0)
    b, products, residual = solve_kmm_warm(K, k, upper, epsilon, 1e-6, 50_000, np.ones(40))
    assert products > 1 and residual <= 1e-6 * tolerance_scale(k)
    assert b.min() >= 0.0 and low <= b.sum() <= high


def test_warm_solve_keeps_to_max_iter():
    K, k, upper, _, _, epsilon = programme(6, 80, sigma=2.0)
    b, products, residual = solve_kmm_warm(K, k, upper, epsilon, 1e-9, 5, np.ones(80))
    assert products <= 8  # the cap, and the last products of the step that reached it
    assert residual > 1e-9 * tolerance_scale(k)  # stopped short, as FISTA does at max_iter
    assert b.min() >= 0.0 and b.max() <= upper


def test_warm_solve_refuses_an_infeasible_programme():
    with pytest.raises(ValueError, match="infeasible"):
        solve_kmm_warm(np.eye(3), np.ones(3), 0.5, 1e-10, 1e-6, 100, np.ones(3))


def test_row_sum_bound_is_at_least_the_largest_eigenvalue():
    for seed, sigma in [(0, 0.3), (1, 1.0), (2, 10.0)]:
        K, *_ = programme(seed, 50, sigma=sigma)
        assert row_sum_bound(K) >= np.linalg.eigvalsh(K)[-1]
