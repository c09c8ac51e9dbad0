"""Kernel mean matching with its width chosen by the J score (Algorithm 10)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream.base.validation import check_int, check_real, check_seed

from .bandwidths import median_distance
from .base import DensityRatioEstimator
from .gaussian import gaussian_gram, gaussian_reference, sq_distances
from .kmm_solvers import smoothed_weight, solve_kmm

__all__ = ["SIGMA_GRID", "AutoKMM", "j_score", "rls_loo"]

#: The width grid of Chapter 6, as multiples of the median distance: 0.1 to 3 in steps of 0.1,
#: then 4 to 10 in steps of 1 (37 candidates).
SIGMA_GRID = np.concatenate([np.round(np.arange(1, 31) * 0.1, 10), np.arange(4.0, 11.0)])

#: Ridge candidates of the regression that carries each candidate's weights to the target points
#: (chosen by closed-form leave-one-out, D-DR-15).
RLS_LAMBDAS = np.logspace(-6, 1, 8)


def rls_loo(K: np.ndarray, targets: np.ndarray, lambdas: np.ndarray) -> tuple[np.ndarray, float]:
    """Kernel ridge regression ``alpha = (K + lambda I)^-1 targets`` with the ridge of smallest
    leave-one-out error, ``mean((e_i / (1 - H_ii))^2)`` with ``H = K (K + lambda I)^-1``, from one
    eigendecomposition of ``K``. Returns ``(alpha, lambda)``."""
    eigenvalues, Q = np.linalg.eigh(K)
    eigenvalues = np.maximum(eigenvalues, 0.0)  # K is positive semi-definite; drop round-off
    projected = Q.T @ targets
    best = (np.inf, float(lambdas[0]))
    for ridge in lambdas:
        shrink = eigenvalues / (eigenvalues + ridge)
        fitted = Q @ (shrink * projected)
        leverage = (Q * Q) @ shrink
        loo = (targets - fitted) / np.maximum(1.0 - leverage, 1e-12)
        error = float(np.mean(loo * loo))
        if error < best[0]:
            best = (error, float(ridge))
    ridge = best[1]
    return Q @ (projected / (eigenvalues + ridge)), ridge


def j_score(beta_source: np.ndarray, beta_target: np.ndarray) -> float:
    """Eq. 6.10, ``mean_source beta^2 - 2 mean_target beta``: the part of the expected squared
    error of a ratio estimate that depends on it (lower is better)."""
    return float(np.mean(beta_source**2) - 2.0 * np.mean(beta_target))


def _candidate(args) -> tuple[np.ndarray, float]:
    """One width of Algorithm 10: the KMM solution at the source points and its J score (a
    module-level function, so that processes can run it)."""
    D_ss, D_st, sigma, B, epsilon, tol, max_iter, lambdas = args
    m, n = D_st.shape
    K = gaussian_reference(D_ss, sigma)
    k = (m / n) * gaussian_reference(D_st, sigma).sum(1)
    beta, _, _ = solve_kmm(K, k, B, epsilon, tol, max_iter)
    mean = float(beta.mean())
    if not mean > 0.0:
        return beta, math.inf
    scaled = beta / mean  # J is not scale-invariant: every candidate at mean 1 (D-DR-16)
    alpha, _ = rls_loo(K, scaled, lambdas)
    at_target = gaussian_reference(D_st.T, sigma) @ alpha
    # a ratio is not negative, and a value above every weight it was fitted on is extrapolation
    # (a near-interpolating fit of a spiky solution swings far off it between the points)
    at_target = np.clip(at_target, 0.0, float(scaled.max()))
    return beta, j_score(scaled, at_target)


class AutoKMM(DensityRatioEstimator):
    """Kernel mean matching with the Gaussian width chosen by the J score (Algorithm 10).

    KMM (Algorithm 1) has no out-of-sample function, so its width cannot be cross-validated;
    Chapter 6 chooses it instead by an estimate of the expected squared error against the true
    ratio. For each candidate width ``sigma`` of a grid (default ``[0.1:0.1:3, 4:1:10]`` times the
    median pairwise distance over source and target), KMM is solved, its weights are carried to
    the target points by regularised least-squares regression on the source points, and the
    candidate is scored by eq. 6.10,

    ``J = (1/n_s) sum_source beta^2 - (2/n_t) sum_target beta``;

    the width of smallest ``J`` is kept. Every candidate's weights are rescaled to mean 1 before
    ``J`` and the regression (D-DR-16); the regression is Gaussian kernel ridge regression at the
    candidate's width, its ridge chosen by closed-form leave-one-out (D-DR-15). The candidates
    share one matrix of squared distances, and with ``n_jobs`` their programmes are solved in
    parallel processes.

    Parameters
    ----------
    sigma_factors
        The width grid, as multiples of the median distance (default :data:`SIGMA_GRID`); with
        ``median=False``, in the data's own units.
    median
        Whether ``sigma_factors`` multiply the median distance (Chapter 6.3.2's benchmarks) or
        are widths themselves (the synthetic cases of Chapter 6.3.1).
    B
        Upper bound of each weight (1000 in the thesis).
    epsilon
        Normalisation slack; None gives ``(sqrt(m) - 1) / sqrt(m)`` for ``m`` source points.
    tol
        Stopping tolerance of the solver, relative to the largest ``|k_i|``.
    max_iter
        Iteration cap of the solver.
    n_jobs
        Processes solving the candidates (None or 1: one after the other; -1: every core).
    seed
        Seed of the subsample that estimates the median distance on large sets.

    Attributes
    ----------
    weights_
        The KMM solution of the chosen width at the source points.
    sigma_
        The chosen width.
    sigmas_
        Every candidate width.
    j_scores_
        The J score of each candidate.
    candidate_weights_
        Each candidate's solution at the source points, one row per width.

    Examples
    --------

    The first case of Table 6.1: the source ``N(0, 1)``, the target ``N(1, 1)``:

    >>> import numpy as np
    >>> from imbalance_stream.density_ratio import AutoKMM
    >>> rng = np.random.default_rng(0)
    >>> source = rng.normal(0.0, 1.0, size=(200, 1))
    >>> target = rng.normal(1.0, 1.0, size=(1000, 1))
    >>> kmm = AutoKMM(sigma_factors=(0.3, 1.0, 3.0, 10.0), median=False).fit(source, target)
    >>> kmm.j_scores_.round(2)
    array([ 2.27, 31.19,  4.53, -2.29])
    >>> kmm.sigma_
    10.0
    >>> truth = np.exp(source[:, 0] - 0.5)  # N(1, 1) / N(0, 1)
    >>> bool(np.corrcoef(kmm.weights_, truth)[0, 1] > 0.9)
    True

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Chapter 6, eqs. 6.5-6.10 and Algorithm 10.

    """

    def __init__(
        self,
        sigma_factors: tuple | None = None,
        median: bool = True,
        B: float = 1000.0,
        epsilon: float | None = None,
        tol: float = 1e-6,
        max_iter: int = 20000,
        n_jobs: int | None = None,
        seed: int | None = None,
    ):
        self.sigma_factors = sigma_factors
        self.median = median
        self.B = check_real("B", B, low=0.0, low_open=True)
        self.epsilon = check_real("epsilon", epsilon, low=0.0, optional=True)
        self.tol = check_real("tol", tol, low=0.0, low_open=True)
        self.max_iter = check_int("max_iter", max_iter, low=1)
        self.n_jobs = n_jobs
        self.seed = check_seed(seed)

    def _fit(self, source: np.ndarray, target: np.ndarray) -> None:
        m = source.shape[0]
        factors = np.asarray(
            self.sigma_factors if self.sigma_factors is not None else SIGMA_GRID, dtype=np.float64
        )
        scale = median_distance(np.vstack([source, target]), self.seed) if self.median else 1.0
        self.sigmas_ = factors * scale
        epsilon = self.epsilon if self.epsilon is not None else (math.sqrt(m) - 1) / math.sqrt(m)
        D_ss, D_st = sq_distances(source, source), sq_distances(source, target)
        tasks = [  # a process receives each task pickled: the transpose is taken there
            (D_ss, D_st, float(s), self.B, epsilon, self.tol, self.max_iter, RLS_LAMBDAS)
            for s in self.sigmas_
        ]
        results = self._map(tasks)
        self.candidate_weights_ = np.array([beta for beta, _ in results])
        self.j_scores_ = np.array([score for _, score in results])
        best = int(np.argmin(self.j_scores_))
        self.sigma_ = float(self.sigmas_[best])
        self.weights_ = self.candidate_weights_[best]
        self._source = source

    def _map(self, tasks: list) -> list:
        from imbalance_stream.parallel import map_cells

        return map_cells(_candidate, tasks, n_jobs=self.n_jobs)

    def _weight(self, X: np.ndarray) -> np.ndarray:
        return smoothed_weight(gaussian_gram(X, self._source, self.sigma_), self.weights_)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"sigma_factors": (0.5, 1.0, 2.0), "B": 50.0, "n_jobs": 2}
