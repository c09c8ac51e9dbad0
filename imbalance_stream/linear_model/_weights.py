"""The score and the weights by name of the linear models that keep one weight vector: the
first-order baselines' ``w``, and the mean ``mu`` of ACOG's and AROW's weight distribution."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba.linear import sparse_dot
from imbalance_stream.base import BinaryClassifier

__all__ = ["WeightVector"]


class WeightVector(BinaryClassifier):
    """``w.x`` over the vector :meth:`_weight_vector` gives (0 for an empty sample), and that
    vector by feature name, the constant feature's weight being ``intercept_``."""

    def _weight_vector(self) -> np.ndarray:
        """The weights (``mu`` for a model with a weight distribution), one per column."""
        raise NotImplementedError

    def _decision(self, indices, values):
        if not len(indices):
            return 0.0
        return sparse_dot(self._weight_vector(), indices, values)

    @property
    def weights(self) -> dict:
        """The weight of every feature seen, by name (the mean weight for ACOG and AROW; the
        bias is ``intercept_``)."""
        return self._features.to_dict(self._weight_vector())

    @property
    def intercept_(self) -> float:
        weights = self._weight_vector()
        return float(weights[0]) if self.intercept and len(weights) else 0.0
