"""The KMM programme (eq. 3.14) and its solvers: the jitted first-order solver, the jitted
proximal active-set solver of the warm starts, cvxopt's interior-point solver, the central-path
order of the zero weights and the smoothing that extends a transductive solution to new points."""

from __future__ import annotations

import importlib.util

import numpy as np
from scipy import linalg
from scipy.sparse import linalg as sparse_linalg

from imbalance_stream._numba.kmm import (
    kmm_proximal_solve,
    kmm_solve,
    project_box_slab,
)
from imbalance_stream.base.transaction import NumericalError
from imbalance_stream.base.validation import check_choice

__all__ = [
    "KMM_SOLVERS",
    "MAX_PROXIMAL_STEPS",
    "PROXIMAL_WEIGHT",
    "central_path_weights",
    "check_kmm_solver",
    "interior_point_available",
    "largest_eigenvalue",
    "row_sum_bound",
    "smoothed_weight",
    "solve_kmm",
    "solve_kmm_interior",
    "solve_kmm_warm",
    "tolerance_scale",
]


#: The solvers of the KMM programme: the package's own jitted first-order solver, and an
#: interior-point solver (cvxopt's, the optional ``qp`` extra), the kind the thesis used.
KMM_SOLVERS = ("fista", "interior-point")

_CVXOPT_MISSING = "solver='interior-point' needs cvxopt: pip install 'imbalance-stream[qp]'"


def interior_point_available() -> bool:
    """Whether ``solver="interior-point"`` can run here (cvxopt, the optional ``qp`` extra)."""
    return importlib.util.find_spec("cvxopt") is not None


def check_kmm_solver(solver) -> str:
    """``solver`` if it is one of :data:`KMM_SOLVERS` and can run here, else raise (when a model
    is built, not at its first refresh)."""
    solver = check_choice("solver", solver, KMM_SOLVERS)
    if solver == "interior-point" and not interior_point_available():
        raise ImportError(_CVXOPT_MISSING)
    return solver


def tolerance_scale(k: np.ndarray) -> float:
    """``max(1, max |k_i|)``: the size of KMM's linear term, against which each solver's
    tolerance is measured (so ``tol`` is relative for large ``k``, absolute for small)."""
    return max(1.0, float(np.abs(k).max()))


def _slab(m: int, upper: float, epsilon: float) -> tuple[float, float]:
    """The bounds ``low <= sum(b) <= high`` of ``|mean(b) - 1| <= epsilon`` over ``m`` weights;
    raises if no weight vector in ``[0, upper]`` meets them."""
    low = max(m * (1.0 - epsilon), 0.0)
    high = m * (1.0 + epsilon)
    if low > m * upper:
        raise ValueError(f"infeasible KMM programme: mean 1 - {epsilon} needs B >= that")
    return low, high


def solve_kmm(
    K: np.ndarray,
    k: np.ndarray,
    upper: float,
    epsilon: float,
    tol: float,
    max_iter: int,
    start: np.ndarray | None = None,
    solver: str = "fista",
) -> tuple[np.ndarray, int, float]:
    """The KMM programme (eq. 3.14): ``min 1/2 b'Kb - k'b`` over ``0 <= b <= upper`` and
    ``|mean(b) - 1| <= epsilon``. Returns ``(b, iterations, residual)``.

    ``solver="fista"``: accelerated projected gradient with restart, step ``1 / lambda_max(K)``
    (:func:`largest_eigenvalue`), to a gradient mapping below ``tol x max(1, max |k_i|)``.
    ``start`` (default all ones, which is feasible) is projected onto the feasible set first, so
    any start is valid. ``solver="interior-point"``: :func:`solve_kmm_interior` (``start``
    unused). A warm start from an earlier solution has its own solver, :func:`solve_kmm_warm`.
    """
    m = K.shape[0]
    low, high = _slab(m, upper, epsilon)
    if solver == "interior-point":
        return solve_kmm_interior(K, k, upper, low, high, tol, max_iter)
    step = 1.0 / max(largest_eigenvalue(K), 1e-12)
    beta = np.ones(m) if start is None else np.array(start, dtype=np.float64)
    beta = project_box_slab(beta.copy(), upper, low, high, np.empty(m))
    scale = tolerance_scale(k)
    iterations, residual = kmm_solve(
        np.ascontiguousarray(K),
        np.ascontiguousarray(k),
        upper,
        low,
        high,
        beta,
        step,
        tol * scale,
        max_iter,
        False,
    )
    return beta, int(iterations), float(residual)


#: The weight ``rho`` of the proximal term of :func:`solve_kmm_warm`, in units of the solver's
#: absolute tolerance ``tol x max(1, max |k_i|)``. A step from ``beta`` to ``b`` leaves the
#: gradient ``rho (beta - b)`` on the weights off the bounds, so at 2 a step that moves no
#: weight by more than half a unit already meets the tolerance (in the windowed re-weighter's
#: loop, 2 or 3 steps a refresh); a smaller weight takes fewer steps but longer conjugate
#: gradient runs, as ``K + rho I`` is more ill-conditioned.
PROXIMAL_WEIGHT = 2.0

#: Proximal steps of :func:`solve_kmm_warm` before the first-order solver takes over.
MAX_PROXIMAL_STEPS = 50


def row_sum_bound(K: np.ndarray) -> float:
    """``max_i sum_j |K_ij|``, an upper bound of ``lambda_max(K)`` (Gershgorin's circles) in
    one pass over ``K``, raised by 1e-6 relative as :func:`largest_eigenvalue` is."""
    return float(np.abs(K).sum(1).max()) * (1.0 + 1e-6)


def solve_kmm_warm(
    K: np.ndarray,
    k: np.ndarray,
    upper: float,
    epsilon: float,
    tol: float,
    max_iter: int,
    start: np.ndarray,
) -> tuple[np.ndarray, int, float]:
    """The KMM programme of :func:`solve_kmm` from ``start`` (projected onto the feasible set
    first), by the proximal point method with an exact active-set solve of each step
    (:func:`~imbalance_stream._numba.kmm.kmm_proximal_solve`). Returns ``(b,
    products, residual)``: the products with ``K`` it took (the first-order solver takes one
    an iteration), and the gradient mapping it stopped at.

    The stopping test is the first-order solver's, ``tol x max(1, max |k_i|)`` on every
    coordinate of the gradient mapping, at the step ``1 / row_sum_bound(K)``: no larger than
    ``1 / lambda_max(K)``, so the test differs from the first-order solver's only at weights
    within a step of a bound, where it is the stricter (``tests/test_kmm_warm.py`` also holds
    the solutions to the test at ``1 / lambda_max(K)``), and the step takes one pass over
    ``K`` where the eigenvalue takes a LAPACK or ARPACK solve. The solution is another point
    than the first-order solver's from the same start, of as low an objective to that
    tolerance: Gaussian Gram matrices have eigenvalues down to round-off, so the programme is
    flat along many directions and its minimisers to a tolerance form a wide set (on the
    windowed re-weighter's 500-row windows of SEA, weights up to about 0.7 apart, objectives
    within 4e-8 relative). Where a step's active sets do not settle (whole exchanges of the
    sets may cycle, as they do on programmes with many weights at ``upper``) or the steps run
    out, the first-order solver goes on from the last step's point with the products left.
    """
    m = K.shape[0]
    low, high = _slab(m, upper, epsilon)
    K = np.ascontiguousarray(K, dtype=np.float64)
    k = np.ascontiguousarray(k, dtype=np.float64)
    step = 1.0 / max(row_sum_bound(K), 1e-12)
    beta = np.array(start, dtype=np.float64)
    beta = project_box_slab(beta.copy(), upper, low, high, np.empty(m))
    absolute = tol * tolerance_scale(k)
    converged, products, residual = kmm_proximal_solve(
        K,
        k,
        upper,
        low,
        high,
        beta,
        step,
        absolute,
        PROXIMAL_WEIGHT * absolute,
        max_iter,
        MAX_PROXIMAL_STEPS,
    )
    if not converged and products < max_iter:
        iterations, residual = kmm_solve(
            K, k, upper, low, high, beta, step, absolute, max_iter - products, True
        )
        products += iterations
    return beta, int(products), float(residual)


def solve_kmm_interior(
    K: np.ndarray,
    k: np.ndarray,
    upper: float,
    low: float,
    high: float,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, int, float]:
    """The KMM programme of :func:`solve_kmm`, ``low <= sum(b) <= high`` being its normalisation
    slab, by a primal-dual interior-point method (cvxopt's ``qp``), the kind of solver the thesis
    used (MATLAB's ``quadprog``, interior-point-convex). Returns ``(b, iterations, residual)``,
    the residual being the largest of the relative duality gap and the primal and dual
    infeasibilities at the end.

    ``tol`` is the relative gap and the feasibility tolerance (cvxopt's ``reltol`` and
    ``feastol``; ``abstol`` is ``tol x max(1, max |k_i|)``). A slab ``|mean(b) - 1| <= epsilon``
    no wider than ``tol`` (Chapter 5's ``1e-10``) is solved as the equality ``mean(b) = 1``:
    two nearly coincident inequalities leave an interior-point method no interior to follow.
    The iterates stay strictly inside the box, so a weight the programme drives to 0 ends as a
    small positive value, below the weights it keeps positive, in about the order of its bound's
    multiplier (``s_i z_i`` is near, not equal to, ``mu`` at the last iterate;
    :func:`central_path_weights` takes that order exactly). A solve that stops short of
    ``tol`` (cvxopt's KKT system turned singular) raises :class:`NumericalError`; one that runs
    out of ``max_iter`` returns its last iterate, as the first-order solver does.
    """
    try:
        from cvxopt import matrix, solvers, sparse, spmatrix
    except ImportError:
        raise ImportError(_CVXOPT_MISSING) from None
    m = K.shape[0]
    rows = list(range(2 * m))
    box = spmatrix([-1.0] * m + [1.0] * m, rows, list(range(m)) * 2)  # -b <= 0, b <= upper
    bounds = np.concatenate([np.zeros(m), np.full(m, float(upper))])
    options = {
        "show_progress": False,
        "abstol": tol * tolerance_scale(k),
        "reltol": tol,
        "feastol": tol,
        "maxiters": max_iter,
    }
    P, q = matrix(np.ascontiguousarray(K, dtype=np.float64)), matrix(-np.asarray(k, float))
    if high - low <= 2.0 * tol * m:  # epsilon <= tol
        G, h = box, matrix(bounds)
        A, b = matrix(1.0, (1, m)), matrix(float(m))
    else:
        slab = spmatrix([1.0] * m + [-1.0] * m, [0] * m + [1] * m, list(range(m)) * 2)
        G = sparse([box, slab])  # sum(b) <= high, -sum(b) <= -low
        h = matrix(np.concatenate([bounds, [high, -low]]))
        A = b = None
    try:
        solution = solvers.qp(P, q, G, h, A, b, options=options)
    except (ArithmeticError, ValueError) as error:
        raise NumericalError(f"the interior-point KMM solve failed ({error})") from None
    residual = max(
        float(solution[name] or 0.0)
        for name in ("relative gap", "primal infeasibility", "dual infeasibility")
    )
    iterations = int(solution["iterations"])
    if solution["status"] != "optimal" and iterations < max_iter:
        # cvxopt stops early, with its last iterate, when its KKT system becomes singular: that
        # iterate can be far from the optimum, so it is not returned as a solution
        raise NumericalError(
            f"the interior-point KMM solve stopped at iteration {iterations}, relative gap "
            f"{residual:.1e}, short of tol={tol:g}: use a larger tol, or solver='fista'"
        )
    return np.clip(np.array(solution["x"]).ravel(), 0.0, upper), iterations, residual


#: How far below the smallest positive weight the replaced zero weights of
#: :func:`central_path_weights` stay.
CENTRAL_PATH_MARGIN = 1e-3


def central_path_weights(
    K: np.ndarray, k: np.ndarray, weights: np.ndarray, tol: float
) -> np.ndarray:
    """The KMM solution with every weight at the bound 0 replaced by a small positive value in
    the order an interior-point solver keeps there, so that those points stay ranked (D-DR-51).

    On the central path of an interior-point method a weight at its lower bound is
    ``r_i = mu / z_i``, with ``z_i`` the multiplier of ``r_i >= 0``: the programme's gradient
    ``g_i = (K r - k)_i`` plus the normalisation's multiplier, which is the same for every
    ``i``. Here ``z_i = g_i - min g + floor`` over the zero weights, ``floor`` the solver's
    tolerance ``tol x max(1, max |k_i|)``, so the largest multiplier gives the smallest
    weight; ``mu`` puts every replaced value at most ``CENTRAL_PATH_MARGIN`` times the smallest
    positive weight. The other weights are returned unchanged. A first-order solver lands
    exactly on the bound, where the thesis's interior-point solver stays just inside it:
    without this every such point has the ratio 0 and ties with all the others.
    """
    at_zero = weights <= 0.0
    if not at_zero.any() or at_zero.all():
        return weights
    gradient = (K @ weights - k)[at_zero]
    floor = tol * tolerance_scale(k)
    multipliers = gradient - gradient.min() + floor
    mu = CENTRAL_PATH_MARGIN * float(weights[~at_zero].min()) * floor
    central = weights.copy()
    central[at_zero] = mu / multipliers
    return central


def largest_eigenvalue(K: np.ndarray) -> float:
    """``lambda_max`` of a symmetric matrix: LAPACK below 500 rows, Lanczos (ARPACK) above, where
    a full reduction would cost O(m^3) for one number. Raised by 1e-6 relative, so that a step of
    its inverse never exceeds ``1 / lambda_max``."""
    m = K.shape[0]
    if m < 500:
        value = float(linalg.eigvalsh(K, subset_by_index=[m - 1, m - 1])[0])
    else:
        start = np.full(m, 1.0 / np.sqrt(m))  # a fixed start: the same step on every run
        value = float(sparse_linalg.eigsh(K, k=1, which="LA", v0=start, tol=1e-8)[0][0])
    return value * (1.0 + 1e-6)


def smoothed_weight(G: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A transductive solution extended to new points (D-DR-2): ``G @ w / (1 + G.sum(1))``.

    ``G`` holds the kernel values between the new points (rows) and the points that carry the
    ``weights`` (columns); the ``1`` is the new point's own kernel value, its weight counted as 0.
    """
    return (G @ weights) / (1.0 + G.sum(1))
