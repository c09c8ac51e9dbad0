"""Shared state of the first-order linear baselines of the ACOG paper (its section 4.1)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba.linear import sparse_dot
from imbalance_stream.base import BinaryClassifier, grow_vector

__all__ = ["FirstOrderLinear"]


class FirstOrderLinear(BinaryClassifier):
    """A weight vector ``w`` (numpy, grown with the feature space, new weights 0), the score
    ``w.x``, the rule "positive when ``w.x >= 0``" (ties to the rare class, D-ACOG-2) and the
    logistic probability ``1 / (1 + exp(-w.x))`` (the paper defines none, D-ACOG-23). Subclasses
    implement ``_learn`` with a kernel of :mod:`imbalance_stream._numba.first_order`."""

    def __init__(self, positive=True, intercept: bool = False):
        super().__init__(positive=positive, intercept=intercept)
        self.intercept = intercept
        self._weights = np.zeros(0)
        self.n_updates = 0
        if intercept:
            self._grow(len(self._features))

    def _grow(self, n_features):
        self._weights = grow_vector(self._weights, n_features, 0.0)

    def _decision(self, indices, values):
        if not len(indices):
            return 0.0
        return sparse_dot(self._weights, indices, values)

    def _proba(self, indices, values):
        return kernels.logistic(self._decision(indices, values))

    @property
    def weights(self) -> dict:
        """The weight of every feature seen, by name (the bias is ``intercept_``)."""
        return self._features.to_dict(self._weights)

    @property
    def intercept_(self) -> float:
        return float(self._weights[0]) if self.intercept else 0.0
