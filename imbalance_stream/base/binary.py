"""Base class of every binary classifier in the package.

A subclass implements four array-level methods; this class owns the River protocol around them:
label handling, the feature space, validation before any state change, and the documented
treatment of empty samples.
"""

from __future__ import annotations

import abc

import numpy as np
from river import base

from .features import FeatureSpace
from .validation import check_bool

__all__ = ["BinaryClassifier", "UnknownLabel"]


class UnknownLabel(ValueError):
    """A label that a binary model cannot take (a third label, or None)."""


class BinaryClassifier(base.Classifier, abc.ABC):
    """Binary classifier over any two labels, the rare one named by ``positive``.

    Labels. ``y == positive`` is the positive (rare, interesting) class, written +1 inside the
    model; the first other label seen becomes the negative class, -1. A third label, or ``None``,
    raises :class:`UnknownLabel` naming it, and the model is left exactly as it was. Until a negative
    label has been seen, ``predict_proba_one`` keys the negative probability with ``not positive``
    (``False`` for the default ``positive=True``), so the output always has two keys; the
    negative key becomes the real label as soon as one is learned.

    Samples. Feature dicts go through :class:`~imbalance_stream.base.FeatureSpace`: a bad value
    raises a ``ValueError`` naming the feature and nothing changes. An empty dict carries nothing to
    learn from, so ``learn_one({}, y)`` is a documented no-op (the label is still validated); for
    a model with an intercept it is not empty, because the constant feature is present.

    Subclass contract. ``_grow(n_features)`` extends the state to ``n_features`` columns with the
    prior; ``_learn(indices, values, sign)`` updates with ``sign`` in {+1, -1};
    ``_decision(indices, values)`` returns the real-valued score (larger means more positive);
    ``_proba(indices, values)`` returns P(positive). Each receives validated float64/int64 arrays.
    """

    def __init__(self, positive=True, intercept: bool = False):
        check_bool("intercept", intercept)
        self.positive = positive
        self.intercept = intercept
        self._negative = None
        self._features = FeatureSpace(intercept=intercept)
        self._state_size = 0  # columns the subclass's state covers (``_grow`` brings it up)

    # ---- labels -------------------------------------------------------------------------------

    @property
    def _multiclass(self):
        return False

    def _sign(self, y) -> float:
        """Map ``y`` to +1/-1 without changing anything, or raise :class:`UnknownLabel`."""
        if y is None:
            raise UnknownLabel("label is None; a binary model needs one of two labels")
        if y == self.positive:
            return 1.0
        if self._negative is None or y == self._negative:
            return -1.0
        raise UnknownLabel(
            f"label {y!r} is neither the positive label {self.positive!r} nor the negative label "
            f"{self._negative!r} already seen; {type(self).__name__} is a binary classifier "
            "(wrap it in river.multiclass.OneVsRestClassifier for more classes)"
        )

    @property
    def negative(self):
        """The negative label: the first non-positive label learned, or ``not positive`` before."""
        return (not self.positive) if self._negative is None else self._negative

    @property
    def classes(self) -> tuple:
        """The two labels, positive first."""
        return self.positive, self.negative

    # ---- River protocol -----------------------------------------------------------------------

    def learn_one(self, x: dict, y) -> None:
        sign = self._sign(y)
        features = self._features
        indices, values, new = features.encode(x, grow=True)
        if not len(indices):
            return  # an empty sample: nothing to learn (see the class docstring)
        if sign < 0 and self._negative is None:
            self._negative = y
        n_columns = features.commit(new) if new else len(features.names)
        if n_columns > self._state_size:
            # also covers the intercept column, which exists before any feature is learned
            self._grow(n_columns)
            self._state_size = n_columns
        self._learn(indices, values, sign)

    def _encode_known(self, x: dict):
        """Arrays of ``x`` over the columns the state covers; unknown names are ignored."""
        indices, values, _ = self._features.encode(x, grow=False)
        if not self._state_size:  # nothing learned yet: only the intercept column can be there
            return indices[:0], values[:0]
        return indices, values

    def decision_one(self, x: dict) -> float:
        """Real-valued score of ``x``; larger means more likely positive."""
        return float(self._decision(*self._encode_known(x)))

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        p = float(self._proba(*self._encode_known(x)))
        negative = (not self.positive) if self._negative is None else self._negative
        return {self.positive: p, negative: 1.0 - p}

    def predict_one(self, x: dict, **kwargs):
        """The positive label when the decision is >= 0 (ties go to the rare class)."""
        return self.positive if self.decision_one(x) >= 0.0 else self.negative

    # ---- subclass hooks -----------------------------------------------------------------------

    @abc.abstractmethod
    def _grow(self, n_features: int) -> None: ...

    @abc.abstractmethod
    def _learn(self, indices: np.ndarray, values: np.ndarray, sign: float) -> None: ...

    @abc.abstractmethod
    def _decision(self, indices: np.ndarray, values: np.ndarray) -> float: ...

    @abc.abstractmethod
    def _proba(self, indices: np.ndarray, values: np.ndarray) -> float: ...

    # ---- helpers for the array state ----------------------------------------------------------

    @property
    def n_features(self) -> int:
        """Number of columns the model has grown to (including an intercept column)."""
        return len(self._features)
