"""Kernel mean matching."""

from __future__ import annotations

import functools
import math

import numpy as np

from imbalance_stream.base.validation import check_real

from ._docs import cite_papers
from .bandwidths import median_distance
from .base import COUNT, SEED, WIDTH, DensityRatioEstimator, checked_init
from .gaussian import gaussian_gram
from .kmm_solvers import (
    central_path_weights,
    check_kmm_solver,
    smoothed_weight,
    solve_kmm,
    solve_kmm_warm,
)

__all__ = ["KMM"]


@cite_papers
class KMM(DensityRatioEstimator):
    """Kernel mean matching: source weights that match the target's kernel mean.

    KMM (Huang et al., 2007; Miao, 2015, Algorithm 1) weighs the source points so that their
    weighted mean in the feature space of a Gaussian kernel equals the target's mean, by the
    quadratic programme of eq. 3.14:

    ``min_b 1/2 b'Kb - k'b``  subject to  ``0 <= b_i <= B`` and ``|mean(b) - 1| <= epsilon``,

    with ``K_ij = k(x_i, x_j)`` over the source and ``k_i = (m/n) sum_j k(x_i, x'_j)`` against the
    target (eqs. 3.15-3.16). It is transductive: the solution, ``weights_``, exists at the source
    points it was fitted on. ``weight(X)`` extends it to new points by kernel smoothing over the
    source, each new point counted in with weight 0 (nothing has been matched to it yet):
    ``sum_j k(x, x_j) b_j / (1 + sum_j k(x, x_j))`` (D-DR-2). It follows the solution where the
    source is dense and falls to 0 far from it. (The exact minimisation of the programme over one
    new coordinate would be the alternative; it measures the residual mismatch at ``x``, which is
    near 0 both in well-matched regions and far from all data, so it does not rank points.)

    The programme is solved by accelerated projected gradient (FISTA with restart) to a gradient
    mapping below ``tol``, or, with ``solver="interior-point"``, by cvxopt's primal-dual
    interior-point method (the thesis's kind of solver; the optional ``qp`` extra);
    ``tests/test_density_ratio.py`` checks both against a general QP solver. The programme is
    ill-conditioned on large sets, and weights near the optimum in objective value can still rank
    the points differently: to rank by them, solve tightly (the interior-point solver reaches
    ``tol = 1e-9`` on a few thousand points in seconds, where the first-order solver needs
    minutes for ``1e-6``).

    Parameters
    ----------
    sigma
        Gaussian width, ``k(a, b) = exp(-||a - b||^2 / (2 sigma^2))``; None takes the median
        pairwise distance over the pooled source and target (Chapter 6's KMM(med)).
    B
        Upper bound of each weight (1000 in every experiment of the thesis).
    epsilon
        Normalisation slack; None gives ``(sqrt(m) - 1) / sqrt(m)`` for ``m`` source points, the
        value of Huang et al. used in Chapters 4 and 6 (Chapter 3 misprints it, D-DR-1).
        Chapter 5's novelty detectors use ``1e-10``.
    tol
        Stopping tolerance of the solver: for ``"fista"`` the gradient mapping relative to the
        largest ``|k_i|``, for ``"interior-point"`` the relative duality gap and infeasibility.
    max_iter
        Iteration cap of the solver.
    seed
        Seed of the subsample that estimates the median distance on large sets.
    solver
        ``"fista"`` (jitted, no extra dependency) or ``"interior-point"`` (needs cvxopt:
        ``pip install 'imbalance-stream[qp]'``).

    Attributes
    ----------
    weights_
        The solution at the source points.
    central_weights_
        ``weights_`` with each weight at the bound 0 replaced by the small positive value an
        interior-point solver would report there (``mu / z_i``, ``z_i`` its multiplier), below
        every positive weight: the zero weights keep the order of their multipliers (D-DR-51).
        What :class:`~imbalance_stream.anomaly.KMMNovelty` ranks by.
    sigma_
        The width used.
    n_iter_
        Solver iterations (of a warm start's solve, its products with ``K``).

    Examples
    --------

    >>> import numpy as np
    >>> from imbalance_stream.density_ratio import KMM
    >>> rng = np.random.default_rng(0)
    >>> source = rng.normal(0.0, 1.0, size=(200, 1))
    >>> target = rng.normal(1.0, 0.5, size=(300, 1))
    >>> kmm = KMM().fit(source, target)
    >>> near, far = kmm.weights_[np.abs(source[:, 0] - 1) < .3], kmm.weights_[source[:, 0] < -1]
    >>> bool(near.mean() > 1 > far.mean())
    True
    >>> round(float(kmm.weights_.mean()), 2)
    1.0

    %(references_huang_2007)s

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 3.2.2, Algorithm 1.

    """

    sigma: float | None
    B: float
    epsilon: float | None
    tol: float
    max_iter: int
    seed: int | None
    solver: str

    @checked_init
    def __init__(
        self,
        sigma: float | None = None,
        B: float = 1000.0,
        epsilon: float | None = None,
        tol: float = 1e-6,
        max_iter: int = 20000,
        seed: int | None = None,
        solver: str = "fista",
    ): ...  # each parameter checked by its rule and set (checked_init)

    PARAMETER_RULES = {
        "sigma": WIDTH,
        "B": functools.partial(check_real, low=1.0),  # below 1, a mean of 1 is out of reach
        "epsilon": functools.partial(check_real, low=0.0, optional=True),
        "tol": functools.partial(check_real, low=0.0, low_open=True),
        "max_iter": COUNT,
        "seed": SEED,
        "solver": lambda name, value: check_kmm_solver(value),
    }
    SELECTED = {"sigma": "sigma_"}
    WARM_START = True

    def fit(self, X_source, X_target, start=None):
        """Fit on a source (denominator) and a target (numerator) sample; returns ``self``.

        ``start``, one weight per source row, is a warm start from an earlier solution, as the
        windowed detectors and re-weighters give between selections: the programme is then solved
        from there (projected onto the feasible set first, so any start is valid) by the proximal
        active-set solver of
        :func:`~imbalance_stream.density_ratio.kmm_solvers.solve_kmm_warm`, to the first-order
        solver's tolerance, ``n_iter_`` counting its products with ``K``. It reaches a minimiser
        as good to that tolerance, not the first-order solver's point: the programme is flat
        along many directions. The interior-point solver ignores ``start``. Without it the fit
        is the one described above, number for number.
        """
        self._start = None if start is None else np.asarray(start, dtype=np.float64)
        if self._start is not None and self._start.shape != (np.shape(X_source)[0],):
            raise ValueError(
                f"start must hold one weight per source row ({np.shape(X_source)[0]}), got "
                f"shape {self._start.shape}"
            )
        try:
            return super().fit(X_source, X_target)
        finally:
            del self._start  # not kept: a fitted KMM pickles as one fitted without a start

    def _fit(self, source: np.ndarray, target: np.ndarray) -> None:
        m, n = source.shape[0], target.shape[0]
        self.sigma_ = (
            self.sigma
            if self.sigma is not None
            else median_distance(np.vstack([source, target]), self.seed)
        )
        epsilon = self.epsilon if self.epsilon is not None else (math.sqrt(m) - 1) / math.sqrt(m)
        K = gaussian_gram(source, source, self.sigma_)
        k = (m / n) * gaussian_gram(source, target, self.sigma_).sum(1)
        start = getattr(self, "_start", None)  # set by fit for this fit only
        if start is not None and self.solver == "fista":
            self.weights_, self.n_iter_, self.residual_ = solve_kmm_warm(
                K, k, self.B, epsilon, self.tol, self.max_iter, start
            )
        else:
            self.weights_, self.n_iter_, self.residual_ = solve_kmm(
                K, k, self.B, epsilon, self.tol, self.max_iter, solver=self.solver
            )
        self.central_weights_ = central_path_weights(K, k, self.weights_, self.tol)
        self._source = source

    def _weight(self, X: np.ndarray) -> np.ndarray:
        return smoothed_weight(gaussian_gram(X, self._source, self.sigma_), self.weights_)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"sigma": 0.5, "epsilon": 1e-10}
