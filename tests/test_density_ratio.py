"""The batch density-ratio estimators and their jitted kernels, each against a plain reference."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import optimize
from scipy.stats import multivariate_normal, spearmanr

from imbalance_stream._numba import density_ratio as kernels
from imbalance_stream._numba import kmm as kmm_kernels
from imbalance_stream.base.transaction import NumericalError
from imbalance_stream.density_ratio import KLIEP, KMM, ULSIF, KDERatio, NotFitted
from imbalance_stream.density_ratio.bandwidths import knn_bandwidths, median_distance
from imbalance_stream.density_ratio.gaussian import (
    gaussian_gram,
    gaussian_of_distances,
    gaussian_reference,
    sq_distances,
)
from imbalance_stream.density_ratio.kde_ratio import kde_log_density
from imbalance_stream.density_ratio.kliep import kliep_fit
from imbalance_stream.density_ratio.kmm_solvers import (
    CENTRAL_PATH_MARGIN,
    central_path_weights,
    largest_eigenvalue,
    solve_kmm,
)
from imbalance_stream.density_ratio.ulsif import (
    NEGLIGIBLE_EIGENVALUE,
    kept_eigenpairs,
    ulsif_alpha,
    ulsif_loocv,
)

# ----------------------------------------------------------------------------------------------
# plain numpy references of the jitted kernels


def project_reference(v, upper, low, high):
    """Projection onto the box and slab by root finding on the slab's multiplier."""

    def clipped_sum(tau):
        return np.clip(v - tau, 0.0, upper).sum()

    total = clipped_sum(0.0)
    if low <= total <= high:
        return np.clip(v, 0.0, upper)
    target = high if total > high else low
    # At these multipliers every coordinate is at upper (resp. 0); a target on that edge (low = n *
    # upper) can differ from the rounded sum by an ulp, and then there is no sign change to find.
    all_upper, all_zero = v.min() - upper - 1.0, v.max() + 1.0
    for edge in (all_upper, all_zero):
        if np.isclose(clipped_sum(edge), target, rtol=1e-14, atol=0.0):
            return np.clip(v - edge, 0.0, upper)
    tau = optimize.brentq(lambda t: clipped_sum(t) - target, all_upper, all_zero, xtol=1e-14)
    return np.clip(v - tau, 0.0, upper)


def kmm_reference(K, k, upper, low, high):
    """The KMM programme by SLSQP, a general-purpose constrained solver."""
    m = K.shape[0]
    result = optimize.minimize(
        lambda b: 0.5 * b @ K @ b - k @ b,
        np.full(m, low / m if low > 0 else 1.0),
        jac=lambda b: K @ b - k,
        bounds=[(0.0, upper)] * m,
        constraints=[
            {"type": "ineq", "fun": lambda b: b.sum() - low, "jac": lambda b: np.ones(m)},
            {"type": "ineq", "fun": lambda b: high - b.sum(), "jac": lambda b: -np.ones(m)},
        ],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 2000},
    )
    return result.x


def kliep_ascent_reference(A, xi, alpha, step, max_iter):
    alpha = alpha.copy()
    objective = np.mean(np.log(np.maximum(A @ alpha, 1e-300)))
    for _ in range(max_iter):
        candidate = alpha + step * A.T @ (1.0 / np.maximum(A @ alpha, 1e-300))
        candidate = np.maximum(0.0, candidate + (1.0 - xi @ candidate) * xi / (xi @ xi))
        if not xi @ candidate > 0:
            break
        candidate /= xi @ candidate
        new_objective = np.mean(np.log(np.maximum(A @ candidate, 1e-300)))
        if not new_objective > objective:
            break
        alpha, objective = candidate, new_objective
    return alpha, objective


def ulsif_loocv_reference(phi_de, phi_nu, lambda_):
    """Leave-one-out by refitting without each pair (equal sample sizes)."""
    n = phi_de.shape[1]
    scores = []
    for i in range(n):
        keep = np.arange(n) != i
        H = phi_de[:, keep] @ phi_de[:, keep].T / (n - 1)
        h = phi_nu[:, keep].mean(1)
        alpha = np.maximum(0.0, np.linalg.solve(H + lambda_ * np.eye(H.shape[0]), h))
        scores.append(0.5 * (phi_de[:, i] @ alpha) ** 2 - phi_nu[:, i] @ alpha)
    return float(np.mean(scores))


def two_gaussians(seed, m=120, n=150, d=2):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 1.0, size=(m, d)), rng.normal(0.7, 0.6, size=(n, d))


# ----------------------------------------------------------------------------------------------
# kernels against references


@settings(max_examples=60, deadline=None)
@given(
    v=hnp.arrays(np.float64, st.integers(1, 30), elements=st.floats(-50, 50)),
    upper=st.floats(0.1, 20.0),
    fractions=st.tuples(st.floats(0.0, 1.0), st.floats(0.0, 1.0)),
)
@example(v=np.zeros(6), upper=0.9980867785395131, fractions=(1.0, 1.0))  # low = n * upper
def test_projection_matches_root_finding_and_is_feasible(v, upper, fractions):
    n = v.shape[0]
    low, high = sorted(f * n * upper for f in fractions)
    out = kmm_kernels.project_box_slab(v, upper, low, high, np.empty(n))
    expected = project_reference(v, upper, low, high)
    assert np.all(out >= 0.0) and np.all(out <= upper)
    assert low - 1e-6 * n * upper <= out.sum() <= high + 1e-6 * n * upper
    np.testing.assert_allclose(out, expected, atol=1e-7 * max(1.0, upper))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("epsilon", [1e-10, 0.3])
def test_kmm_solver_reaches_the_general_qp_solution(seed, epsilon):
    source, target = two_gaussians(seed, m=25, n=30)
    K = gaussian_gram(source, source, 1.0)
    k = (25 / 30) * gaussian_gram(source, target, 1.0).sum(1)
    beta, iterations, residual = solve_kmm(K, k, 50.0, epsilon, 1e-10, 50000)
    reference = kmm_reference(K, k, 50.0, 25 * (1 - epsilon), 25 * (1 + epsilon))

    def objective(b):
        return 0.5 * b @ K @ b - k @ b

    assert residual <= 1e-10 * max(1.0, np.abs(k).max())
    assert objective(beta) <= objective(reference) + 1e-8 * abs(objective(reference))
    assert abs(beta.sum() - 25) <= 25 * epsilon + 1e-8
    assert beta.min() >= 0 and beta.max() <= 50.0


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("epsilon", [1e-10, 0.3])
def test_interior_point_kmm_reaches_the_general_qp_solution(seed, epsilon):
    pytest.importorskip("cvxopt")
    source, target = two_gaussians(seed, m=25, n=30)
    K = gaussian_gram(source, source, 1.0)
    k = (25 / 30) * gaussian_gram(source, target, 1.0).sum(1)
    beta, iterations, residual = solve_kmm(K, k, 50.0, epsilon, 1e-10, 200, solver="interior-point")
    reference = kmm_reference(K, k, 50.0, 25 * (1 - epsilon), 25 * (1 + epsilon))

    def objective(b):
        return 0.5 * b @ K @ b - k @ b

    assert 0 < iterations < 200 and residual <= 1e-10
    assert objective(beta) <= objective(reference) + 1e-8 * abs(objective(reference))
    # a slab no wider than tol is solved as the equality mean = 1
    assert abs(beta.sum() - 25) <= 25 * max(epsilon, 1e-10) + 1e-8
    assert beta.min() >= 0 and beta.max() <= 50.0


def test_interior_point_kmm_keeps_the_zero_weights_positive_and_below_the_others():
    """Where the first-order solution has weights at the bound 0, the interior-point solver's
    are small positive values below every other weight, ranked much as
    :func:`central_path_weights` ranks them (D-DR-51)."""
    pytest.importorskip("cvxopt")
    rng = np.random.default_rng(3)
    source = np.vstack([rng.normal(size=(40, 2)), rng.normal(4.0, 0.7, size=(15, 2))])
    target = rng.normal(size=(50, 2))
    K = gaussian_gram(source, source, 1.0)
    k = (55 / 50) * gaussian_gram(source, target, 1.0).sum(1)
    first_order, _, _ = solve_kmm(K, k, 1000.0, 1e-10, 1e-10, 200_000)
    at_zero = first_order <= 0.0
    assert at_zero.sum() >= 5  # the far cluster is matched by nothing
    interior, _, _ = solve_kmm(K, k, 1000.0, 1e-10, 1e-10, 200, solver="interior-point")
    assert (interior > 0).all()
    assert interior[at_zero].max() < interior[~at_zero].min()
    central = central_path_weights(K, k, first_order, 1e-10)
    assert spearmanr(interior[at_zero], central[at_zero])[0] > 0.5


def test_interior_point_kmm_without_cvxopt_fails_when_built(monkeypatch):
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "cvxopt" else real_find_spec(name, *a),
    )
    with pytest.raises(ImportError, match=r"pip install 'imbalance-stream\[qp\]'"):
        KMM(solver="interior-point")
    assert KMM().solver == "fista"


def test_interior_point_kmm_that_stops_short_raises(monkeypatch):
    cvxopt = pytest.importorskip("cvxopt")

    def singular(*args, **kwargs):
        return {
            "status": "unknown",
            "iterations": 3,
            "x": cvxopt.matrix(1.0, (3, 1)),
            "relative gap": 0.5,
            "primal infeasibility": 0.0,
            "dual infeasibility": None,
        }

    monkeypatch.setattr(cvxopt.solvers, "qp", singular)
    with pytest.raises(NumericalError, match=r"stopped at iteration 3, relative gap 5.0e-01"):
        solve_kmm(np.eye(3), np.ones(3), 10.0, 1e-10, 1e-9, 100, solver="interior-point")


def test_kmm_warm_start_is_projected_onto_the_feasible_set():
    source, target = two_gaussians(5, m=20, n=20)
    K = gaussian_gram(source, source, 1.0)
    k = gaussian_gram(source, target, 1.0).sum(1)
    cold = solve_kmm(K, k, 10.0, 1e-10, 1e-10, 50000)[0]
    warm = solve_kmm(K, k, 10.0, 1e-10, 1e-10, 50000, start=np.full(20, 1e6))[0]
    np.testing.assert_allclose(warm, cold, atol=1e-6)


def test_kmm_refuses_an_infeasible_programme():
    with pytest.raises(ValueError, match="infeasible"):
        solve_kmm(np.eye(3), np.ones(3), 0.5, 1e-10, 1e-6, 100)


@pytest.mark.parametrize("m", [30, 700])
def test_largest_eigenvalue_matches_the_full_spectrum(m):
    X = np.random.default_rng(m).normal(size=(m, 3))
    K = gaussian_gram(X, X, 1.0)
    assert largest_eigenvalue(K) == pytest.approx(np.linalg.eigvalsh(K)[-1], rel=1e-5)
    assert largest_eigenvalue(K) >= np.linalg.eigvalsh(K)[-1]


def test_local_gaussian_sums_and_kth_neighbour_match_numpy():
    rng = np.random.default_rng(1)
    X, x = rng.normal(size=(40, 4)), rng.normal(size=4)
    weights, s = rng.uniform(size=40), rng.uniform(0.5, 2.0, size=40)
    d2 = ((X - x) ** 2).sum(1)
    keep = np.arange(40) != 7
    assert kernels.local_gaussian_sum(X, 40, x, 0.8, s, weights, 7) == pytest.approx(
        (weights * np.exp(-d2 / (2 * 0.8 * s)))[keep].sum(), rel=1e-12
    )
    assert kernels.local_gaussian_sum(X, 25, x, 0.8, s, np.empty(0), -1) == pytest.approx(
        np.exp(-d2[:25] / (2 * 0.8 * s[:25])).sum(), rel=1e-12
    )
    assert kernels.local_gaussian_sum(X, 40, x, 0.8, s, weights, -1) == pytest.approx(
        (weights * np.exp(-d2 / (2 * 0.8 * s))).sum(), rel=1e-12
    )
    scratch = np.empty(40)
    assert kernels.kth_smallest(X, 40, x, 7, 3, scratch) == pytest.approx(
        np.sqrt(np.sort(d2[np.arange(40) != 3])[6]), rel=1e-12
    )
    assert kernels.kth_smallest(X, 2, x, 7, -1, scratch) == pytest.approx(np.sqrt(d2[:2].max()))


def test_knn_bandwidths_exclude_the_point_and_floor_duplicates():
    rng = np.random.default_rng(2)
    P = np.vstack([rng.normal(size=(30, 2)), np.zeros((9, 2))])  # nine duplicates of the origin
    s = knn_bandwidths(P, 7, block=8)
    d = np.sqrt(sq_distances(P, P))
    np.fill_diagonal(d, np.inf)
    expected = np.sort(d, axis=1)[:, 6]
    positive = expected > 0
    np.testing.assert_allclose(s[positive], expected[positive], rtol=1e-6, atol=1e-7)
    assert np.all(s[~positive] > 0) and np.all(s[~positive] < 1e-9)


@pytest.mark.parametrize("step", [1e-3, 1.0, 100.0])
def test_kliep_ascent_matches_numpy(step):
    rng = np.random.default_rng(3)
    A = rng.uniform(0.01, 1.0, size=(30, 8))
    xi = rng.uniform(0.1, 1.0, size=8)
    alpha = np.ones(8) / (xi @ np.ones(8))
    expected, expected_objective = kliep_ascent_reference(A, xi, alpha, step, 100)
    objective = kernels.kliep_ascent(A, xi, alpha, step, 100)
    np.testing.assert_allclose(alpha, expected, rtol=1e-10, atol=1e-12)
    assert objective == pytest.approx(expected_objective, rel=1e-12)


@pytest.mark.parametrize("lambda_", [1e-3, 0.1, 1.0])
def test_ulsif_closed_form_loocv_equals_refitting(lambda_):
    rng = np.random.default_rng(4)
    phi_de, phi_nu = rng.uniform(size=(6, 25)), rng.uniform(size=(6, 25))
    closed = ulsif_loocv(phi_de, phi_nu, np.array([lambda_]))[0]
    assert closed == pytest.approx(ulsif_loocv_reference(phi_de, phi_nu, lambda_), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    d2=hnp.arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(1, 9)), elements=st.floats(0.0, 1e4)
    ),
    gamma=st.floats(1e-3, 1e3),
)
def test_gaussian_kernel_matches_numpy_and_flushes_only_subnormals(d2, gamma):
    out = np.empty_like(d2)
    kernels.gaussian_of_squared_distances(d2, gamma, out)
    expected = np.exp(-gamma * d2)
    normal = expected >= np.finfo(float).tiny
    np.testing.assert_allclose(out[normal], expected[normal], rtol=1e-14)
    assert (out[~normal] == 0.0).all()
    assert gaussian_of_distances(d2, 1.0 / np.sqrt(2.0 * gamma)).shape == d2.shape


@settings(max_examples=40, deadline=None)
@given(
    d2=hnp.arrays(
        np.float64, st.tuples(st.integers(1, 6), st.integers(1, 9)), elements=st.floats(0.0, 1e4)
    ),
    sigma=st.floats(1e-2, 1e2),
)
def test_jitted_gaussian_of_a_width_agrees_with_its_numpy_reference(d2, sigma):
    """The jitted kernel at width ``sigma`` (through ``gamma = 1 / (2 sigma^2)``) against the plain
    numpy kernel of eq. 3.10: a few units in the last place of the exponent apart, subnormal
    values written 0."""
    jitted, reference = gaussian_of_distances(d2, sigma), gaussian_reference(d2, sigma)
    normal = reference >= 4.0 * np.finfo(float).tiny
    # exp(-a) carries the rounding of its argument a times over: its relative error is about
    # a units in the last place, and a reaches 700 before the result turns subnormal
    exponent = d2[normal] / (2.0 * sigma**2)
    np.testing.assert_array_less(
        np.abs(jitted[normal] - reference[normal]),
        8.0 * np.finfo(float).eps * (1.0 + exponent) * reference[normal],
    )
    assert (jitted[~normal] <= 4.0 * np.finfo(float).tiny).all()
    A, B = (
        np.random.default_rng(0).normal(size=(5, 3)),
        np.random.default_rng(1).normal(size=(4, 3)),
    )
    gram, expected = gaussian_gram(A, B, sigma), gaussian_reference(sq_distances(A, B), sigma)
    normal = expected >= 4.0 * np.finfo(float).tiny  # (a subnormal value is written 0, as above)
    np.testing.assert_allclose(gram[normal], expected[normal], rtol=1e-13)
    assert (gram[~normal] <= 4.0 * np.finfo(float).tiny).all()


@pytest.mark.parametrize("sigma", [0.02, 3.0])
def test_ulsif_loocv_with_a_negligible_H_equals_refitting(sigma):
    """A narrow width makes every basis function vanish at the source points: H is taken as 0,
    with no eigenbasis, and the score still equals refitting without each pair."""
    source, target = two_gaussians(7, m=30, n=30, d=3)
    phi_de = gaussian_gram(target[:8], source, sigma)
    phi_nu = gaussian_gram(target[:8], target, sigma)
    lambdas = np.array([1e-3, 0.1, 1.0])
    negligible = (phi_de**2).sum() / 30 <= NEGLIGIBLE_EIGENVALUE * 1e-3 * 29 / 30
    assert negligible == (sigma == 0.02)
    assert (len(kept_eigenpairs(phi_de, lambdas)[0]) == 0) == negligible
    for score, lam in zip(ulsif_loocv(phi_de, phi_nu, lambdas), lambdas):
        reference = ulsif_loocv_reference(phi_de, phi_nu, lam)
        assert score == pytest.approx(reference, rel=1e-9, abs=1e-12)


def test_ulsif_loocv_with_a_rank_deficient_H_equals_refitting():
    """Repeated basis functions make H singular: the eigen-directions of its zero eigenvalues
    enter through the identity part alone, and the score still equals refitting."""
    source, target = two_gaussians(8, m=30, n=30, d=2)
    centres = np.repeat(target[:4], 3, axis=0)  # 12 basis functions, rank 4
    phi_de = gaussian_gram(centres, source, 1.5)
    phi_nu = gaussian_gram(centres, target, 1.5)
    eigenvalues = np.linalg.eigvalsh(phi_de @ phi_de.T / 30)
    assert (eigenvalues <= 12 * np.finfo(float).eps * eigenvalues[-1]).sum() == 8
    lambdas = np.array([1e-3, 0.1, 1.0])
    kept, Q = kept_eigenpairs(phi_de, lambdas)
    assert len(kept) == 4 and Q.shape == (12, 4)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    for score, lam in zip(ulsif_loocv(phi_de, phi_nu, lambdas), lambdas):
        assert score == pytest.approx(ulsif_loocv_reference(phi_de, phi_nu, lam), rel=1e-9)


def test_gaussian_kernel_flushes_exactly_at_the_subnormal_boundary():
    """Distances around the cutoff, one rounding step apart, are kept or flushed by the exponent
    itself, not by the cutoff's rounding."""
    gamma = 0.37
    boundary = math.log(np.finfo(float).tiny) / -gamma
    d2 = np.array([[boundary * (1.0 + step * 1e-15) for step in range(-8, 9)]])
    out = np.empty_like(d2)
    kernels.gaussian_of_squared_distances(d2, gamma, out)
    normal = -gamma * d2 >= math.log(np.finfo(float).tiny)
    assert normal.any() and (~normal).any()
    np.testing.assert_allclose(out[normal], np.exp(-gamma * d2[normal]), rtol=1e-14)
    assert (out[~normal] == 0.0).all()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), shift=st.floats(1.0, 6.0))
def test_central_path_weights_keep_the_zero_weights_in_the_order_of_their_multipliers(seed, shift):
    """D-DR-51: positive weights unchanged; each zero weight becomes a positive value below all
    of them, larger for a smaller gradient (multiplier), as on an interior-point central path."""
    rng = np.random.default_rng(seed)
    source = np.vstack([rng.normal(size=(25, 2)), rng.normal(shift, 0.5, size=(10, 2))])
    target = rng.normal(size=(30, 2))
    K = gaussian_gram(source, source, 1.0)
    k = (35 / 30) * gaussian_gram(source, target, 1.0).sum(1)
    weights, _, _ = solve_kmm(K, k, 1000.0, 1e-10, 1e-8, 100_000)
    central = central_path_weights(K, k, weights, 1e-8)
    positive = weights > 0
    np.testing.assert_array_equal(central[positive], weights[positive])
    if positive.all():
        assert central is weights
        return
    replaced, gradient = central[~positive], (K @ weights - k)[~positive]
    assert (replaced > 0).all()
    assert replaced.max() <= CENTRAL_PATH_MARGIN * weights[positive].min() * (1 + 1e-12)
    order = np.argsort(gradient, kind="stable")
    assert (np.diff(replaced[order]) <= 0).all()
    strictly = np.diff(gradient[order]) > 0
    assert (np.diff(replaced[order])[strictly] < 0).all()


def test_central_path_weights_are_mu_over_the_shifted_multipliers():
    K = np.eye(4)
    k = np.array([2.0, 1.0, -1.0, -3.0])
    weights = np.array([2.0, 1.0, 0.0, 0.0])  # gradients at the zeros: 1 and 3
    central = central_path_weights(K, k, weights, 1e-6)
    floor = 1e-6 * 3.0
    mu = CENTRAL_PATH_MARGIN * 1.0 * floor
    np.testing.assert_allclose(central, [2.0, 1.0, mu / floor, mu / (2.0 + floor)], rtol=1e-15)


def test_ulsif_alpha_is_the_clipped_ridge_solution():
    rng = np.random.default_rng(5)
    F = rng.normal(size=(5, 40))
    H, h = F @ F.T / 40, rng.normal(size=5)
    expected = np.maximum(0.0, np.linalg.solve(H + 0.2 * np.eye(5), h))
    np.testing.assert_allclose(ulsif_alpha(H, h, 0.2), expected, rtol=1e-10)


def test_kde_log_density_is_the_mean_of_gaussian_densities():
    rng = np.random.default_rng(6)
    reference, X = rng.normal(size=(20, 3)), rng.normal(size=(5, 3))
    expected = np.log(
        [np.mean([multivariate_normal(r, 0.49 * np.eye(3)).pdf(x) for r in reference]) for x in X]
    )
    np.testing.assert_allclose(kde_log_density(reference, X, 0.7), expected, rtol=1e-10)


def test_kde_log_density_stays_finite_far_from_the_reference():
    reference = np.zeros((3, 2))
    far = kde_log_density(reference, np.array([[1e6, 0.0]]), 1.0)[0]
    assert np.isfinite(far) and far == pytest.approx(-0.5e12 - np.log(2 * np.pi), rel=1e-12)


@pytest.mark.parametrize("n", [2, 3, 4, 7, 30])
def test_median_distance_is_the_root_of_numpys_median_squared_distance(n):
    X = np.random.default_rng(n).normal(size=(n, 3))
    squared = [np.sum((X[i] - X[j]) ** 2) for i in range(n) for j in range(i + 1, n)]
    assert median_distance(X, 0) == pytest.approx(np.sqrt(np.median(squared)), rel=1e-12)


def test_median_distance_of_a_small_set():
    X = np.array([[0.0], [1.0], [3.0]])
    assert median_distance(X, 0) == pytest.approx(2.0)
    assert median_distance(np.zeros((4, 2)), 0) == pytest.approx(1e-12)


# ----------------------------------------------------------------------------------------------
# the estimators


def true_log_ratio(X):
    """log p_target / p_source of :func:`two_gaussians` (d = 2)."""
    target = multivariate_normal(np.full(2, 0.7), 0.36 * np.eye(2))
    source = multivariate_normal(np.zeros(2), np.eye(2))
    return target.logpdf(X) - source.logpdf(X)


@pytest.mark.parametrize(
    "estimator",
    [KMM(), KLIEP(seed=0), ULSIF(seed=0), KDERatio(seed=0)],
    ids=lambda e: type(e).__name__,
)
def test_each_estimator_ranks_the_source_like_the_true_ratio(estimator):
    source, target = two_gaussians(7, m=300, n=300)
    estimator.fit(source, target)
    # KMM is transductive: its answer is the weights at the source points it was fitted on
    weights = estimator.weights_ if isinstance(estimator, KMM) else estimator.weight(source)
    assert spearmanr(weights, true_log_ratio(source))[0] > 0.7


def test_kmm_weights_meet_the_constraints_and_extend_by_smoothing():
    source, target = two_gaussians(9, m=80, n=100)
    kmm = KMM(sigma=1.0, B=20.0, epsilon=0.01, tol=1e-10, max_iter=100000).fit(source, target)
    assert kmm.weights_.min() >= 0 and kmm.weights_.max() <= 20.0
    assert abs(kmm.weights_.mean() - 1.0) <= 0.01 + 1e-9
    new = np.array([[0.5, 0.5], [40.0, 40.0]])
    G = np.exp(-((new[:, None, :] - source[None]) ** 2).sum(2) / 2.0)
    np.testing.assert_allclose(kmm.weight(new), G @ kmm.weights_ / (1 + G.sum(1)), rtol=1e-12)
    assert kmm.weight(new)[1] == 0.0  # far from every source point


def test_kliep_with_a_vanishing_basis_gives_the_zero_model_not_nan():
    A = np.random.default_rng(13).uniform(size=(10, 4))
    alpha = kliep_fit(A, np.full(4, 1e-200))
    np.testing.assert_array_equal(alpha, np.zeros(4))
    source, target = two_gaussians(13, m=30, n=30)
    tiny = KLIEP(sigma=1e-4, seed=0).fit(source, target)  # every kernel value underflows
    assert np.isfinite(tiny.weight(source)).all()


def test_kliep_weights_average_one_over_the_source():
    source, target = two_gaussians(10)
    kliep = KLIEP(seed=0).fit(source, target)
    assert kliep.weight(source).mean() == pytest.approx(1.0, rel=1e-6)
    assert np.all(kliep.alpha_ >= 0)


@pytest.mark.parametrize("n_target", [40, 100])
def test_kliep_cross_validation_never_holds_out_a_centre(n_target):
    """With no more target points than centres every target point is a centre; Algorithm 3
    fits each fold with centres drawn from the rows it fits on, so a held-out point is not one
    and the width is not driven to 0 (the ratio 0 almost everywhere). Same law on both sides:
    the true ratio is 1."""
    rng = np.random.default_rng(0)
    source, target = rng.normal(size=(200, 3)), rng.normal(size=(n_target, 3))
    kliep = KLIEP(n_centres=100, seed=0).fit(source, target)
    median = float(np.median(np.sqrt(sq_distances(source, source))))
    assert kliep.sigma_ > 0.3 * median
    w = kliep.weight(source)
    assert np.all(w > 0.1) and w.max() < 3.0


def test_ulsif_selects_from_its_grid_and_is_seeded():
    source, target = two_gaussians(11)
    a, b = ULSIF(seed=3).fit(source, target), ULSIF(seed=3).fit(source, target)
    np.testing.assert_array_equal(a.alpha_, b.alpha_)
    assert np.isfinite(a.loocv_).all()
    assert a.loocv_.min() == a.loocv_[np.unravel_index(np.argmin(a.loocv_), a.loocv_.shape)]


@pytest.mark.parametrize("estimator", [KMM, KLIEP, ULSIF, KDERatio])
def test_bad_arrays_are_refused_with_a_message(estimator):
    model = estimator()
    with pytest.raises(NotFitted):
        model.weight([[0.0, 1.0]])
    with pytest.raises(ValueError, match="X_source has a non-finite value at row 1"):
        model.fit([[0.0, 1.0], [np.nan, 1.0]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="X_target has 3 features"):
        model.fit([[0.0, 1.0]], [[0.0, 1.0, 2.0]])
    with pytest.raises(ValueError, match="must be a 2-D array of real numbers"):
        model.fit([["a", "b"]], [[0.0, 1.0]])
    with pytest.raises(ValueError, match="X_target has the value 1e\\+200 at row 0, column 1"):
        model.fit([[0.0, 1.0]], [[0.0, 1e200]])  # its squared distances would overflow
    source, target = two_gaussians(12, m=30, n=30)
    model.fit(source, target)
    with pytest.raises(ValueError, match="X has 1 features, the fit had 2"):
        model.weight([[0.0]])
