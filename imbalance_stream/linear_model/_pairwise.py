"""Shared state of the pairwise AUC learners of seed 000 (OAM_seq, OPAUC)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba.linear import sparse_dot
from imbalance_stream.base import BinaryClassifier

__all__ = ["PairwiseAUCLinear"]


class PairwiseAUCLinear(BinaryClassifier):
    """A weight vector ``w`` (numpy, grown by the subclass's ``_grow``), the score ``w.x``, the
    logistic probability of that score, and the number of samples learned per class (``_count``,
    keyed by the inner sign). Subclasses keep what they need of the opposite class and implement
    ``_learn`` with a kernel of :mod:`imbalance_stream._numba.auc`."""

    def __init__(self, positive=True):
        super().__init__(positive=positive)
        self._w = np.zeros(0)
        self._count = {1.0: 0, -1.0: 0}

    @property
    def n_positive(self) -> int:
        return self._count[1.0]

    @property
    def n_negative(self) -> int:
        return self._count[-1.0]

    def _decision(self, indices, values):
        if not len(indices):
            return 0.0
        return sparse_dot(self._w, indices, values)

    def _proba(self, indices, values):
        score = self._decision(indices, values)
        return 0.5 * (1.0 + math.tanh(0.5 * score))  # the logistic function, overflow-free

    @property
    def weights(self) -> dict:
        """The weight of every feature seen, by name."""
        return self._features.to_dict(self._w)
