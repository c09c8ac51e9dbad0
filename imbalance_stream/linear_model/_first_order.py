"""Shared state of the first-order linear baselines of the ACOG paper (its section 4.1)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import guard, stream
from imbalance_stream.base import grow_vector

from ._weights import WeightVector

__all__ = ["FirstOrderLinear"]


class FirstOrderLinear(WeightVector):
    """A weight vector ``w`` (numpy, grown with the feature space, new weights 0), the score
    ``w.x``, the rule "positive when ``w.x >= 0``" (ties to the rare class, D-ACOG-2) and the
    logistic probability ``1 / (1 + exp(-w.x))`` (the paper defines none, D-ACOG-23). Subclasses
    implement ``_learn`` with a kernel of :mod:`imbalance_stream._numba.first_order`."""

    def __init__(self, positive=True, intercept: bool = False):
        super().__init__(positive=positive, intercept=intercept)
        self._weights = np.zeros(0)
        self.n_updates = 0
        if intercept:
            self._grow(len(self._features))

    def _grow(self, n_features):
        self._weights = grow_vector(self._weights, n_features, 0.0)

    def _weight_vector(self) -> np.ndarray:
        return self._weights

    # ---- transactions: an update touches only the weights of the sample's features ------------

    def _snapshot(self, indices):
        """The scalars, and the weights of ``indices`` (O(nnz), not O(d)): growth replaces the
        array, so the old one needs no more than that."""
        return vars(self).copy(), *guard.gather(self._weights, indices)

    def _restore(self, snapshot):
        state, present, saved = snapshot
        vars(self).clear()
        vars(self).update(state)
        self._weights[present] = saved

    def _state_finite(self, indices):
        return bool(guard.finite_at(self._weights, indices))

    # ---- the array path: the replay loop with the step ``_learn`` takes ----------------------

    #: Which step of :func:`~imbalance_stream._numba.stream.replay_baseline` (and
    #: ``steps_baseline``) ``_learn`` takes.
    _replay_kind: int

    def _replay_parameters(self) -> tuple[float, float, float]:
        """``(eta, C, tau_negative)`` of the step, for the replay loop (1, inf, 1 where unused)."""
        return 1.0, math.inf, 1.0

    def _cost_state(self) -> tuple[float, bool, np.ndarray]:
        """No cost ratio (the cost-sensitive subclasses take theirs from ``CostRatio``)."""
        return 1.0, False, np.zeros(2, dtype=np.int64)

    def _store_cost_state(self, counts: np.ndarray) -> None:
        pass

    def _replay_kernel(
        self, start, indptr, indices, values, brings, signs, colmap, new_names, sizes, predictions
    ):
        """The array path (:meth:`~imbalance_stream.base.BinaryClassifier.replay_rows`):
        :func:`~imbalance_stream._numba.stream.replay_baseline` with the step ``_learn``
        takes."""
        rho, laplace, counts = self._cost_state()
        eta, C, tau_negative = self._replay_parameters()
        sizes[stream.N_UPDATES] = 0
        stop = stream.replay_baseline(
            self._replay_kind, start, indptr, indices, values, brings, signs, colmap, new_names,
            sizes, self._weights, stream.NO_MATRIX, 1.0, rho, laplace, counts, eta, C,
            tau_negative, predictions,
        )  # fmt: skip
        self._store_cost_state(counts)
        self.n_updates += int(sizes[stream.N_UPDATES])
        return stop

    def _steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas):
        """The steps path (:meth:`~imbalance_stream.base.BinaryClassifier.run_steps`):
        :func:`~imbalance_stream._numba.stream.steps_baseline` with the step ``_learn`` takes."""
        rho, laplace, counts = self._cost_state()
        eta, C, tau_negative = self._replay_parameters()
        sizes[stream.N_UPDATES] = 0
        ran = stream.steps_baseline(
            self._replay_kind, rows, learn, signs, colmap, new_names, sizes, self.intercept,
            self._weights, stream.NO_MATRIX, 1.0, rho, laplace, counts, eta, C, tau_negative,
            decisions, probas,
        )  # fmt: skip
        self._store_cost_state(counts)
        self.n_updates += int(sizes[stream.N_UPDATES])
        return ran

    def _proba(self, indices, values):
        return kernels.logistic(self._decision(indices, values))
