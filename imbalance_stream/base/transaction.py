"""Transactional updates: a sample is applied to a model whole, or not at all.

Validation before an update (:class:`~imbalance_stream.base.FeatureSpace` refuses non-finite,
oversized and non-numeric values, and a sample that would grow the feature space past its limit)
catches what can be seen in the sample itself. What only the update can tell (an overflow, a NaN
produced from finite numbers) is caught after it: :func:`transaction` takes a snapshot of the
estimator's state, runs the update, checks that every number of the state is still finite, and
restores the snapshot if not (or if the update raised, e.g. a ``MemoryError``), so that the model is
left exactly as it was, pickle for pickle, and :class:`NumericalError` says why.

The snapshot copies the arrays of the state, so it costs about as much as touching the state
once; an estimator whose update touches only part of a large state overrides
``_snapshot`` / ``_restore`` / ``_state_finite`` with cheaper versions (the first-order linear
models save only the weights of the sample's features).
"""

from __future__ import annotations

import collections
import contextlib
import copy
import functools
import inspect
import math
from typing import Any

import numpy as np

__all__ = ["NumericalError", "Transactional", "copy_state", "is_finite_state"]


class NumericalError(ArithmeticError, ValueError):
    """An update that would have made a model's state non-finite (an overflow, or NaN from finite
    inputs); the model was left exactly as it was before the sample."""


def copy_state(value: Any, memo: dict) -> Any:
    """A copy of ``value`` that no in-place update of the original can reach: arrays, dicts,
    lists, deques and tuples are copied (recursively), immutable scalars are shared, anything else
    is deep-copied. ``memo`` (shared over one snapshot) keeps objects that were shared, shared."""
    key = id(value)
    if key in memo:
        return memo[key]
    if isinstance(value, np.ndarray):
        result: Any = value.copy(order="K")  # the same layout, so the same pickle
    elif value is None or isinstance(value, (bool, int, float, str, np.generic)):
        return value
    elif type(value) is dict:
        result = {k: copy_state(v, memo) for k, v in value.items()}
    elif type(value) is list:
        result = [copy_state(v, memo) for v in value]
    elif type(value) is tuple:
        result = tuple(copy_state(v, memo) for v in value)
    elif type(value) is collections.deque:
        result = collections.deque((copy_state(v, memo) for v in value), value.maxlen)
    else:
        result = copy.deepcopy(value, memo)
    memo[key] = result
    return result


def is_finite_state(value: Any, seen: set | None = None) -> bool:
    """Whether every float held by ``value`` (arrays, containers, scalars, and the attributes of
    plain objects such as a kernel pool) is finite."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return True
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        return value.dtype.kind != "f" or bool(np.isfinite(value).all())
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(is_finite_state(v, seen) for v in value.values())
    if isinstance(value, (list, tuple, collections.deque)):
        return all(is_finite_state(v, seen) for v in value)
    state = getattr(value, "__dict__", None)
    if state is not None and not isinstance(value, (type, np.random.Generator)):
        return all(is_finite_state(v, seen) for v in state.values())
    return True


@functools.lru_cache(maxsize=None)
def _parameters(cls: type) -> frozenset:
    """The constructor parameters of ``cls``: settings, not state (``C = inf`` is legitimate)."""
    return frozenset(inspect.signature(cls.__init__).parameters)


class Transactional:
    """Mixin of the estimators whose ``learn_one`` runs inside :meth:`_transaction`.

    ``_features`` (the :class:`~imbalance_stream.base.FeatureSpace`) is rolled back by its own
    ``truncate``; everything else in the instance's ``__dict__`` is snapshot by
    :meth:`_snapshot`. Subclasses may override the three hooks with cheaper, equivalent versions.
    """

    def _snapshot(self, indices: np.ndarray) -> Any:
        state = {k: v for k, v in vars(self).items() if k != "_features"}
        return copy_state(state, {})

    def _restore(self, snapshot: Any) -> None:
        features = vars(self).get("_features")
        vars(self).clear()
        vars(self).update(snapshot)
        if features is not None:
            vars(self)["_features"] = features

    def _state_finite(self, indices: np.ndarray) -> bool:
        skip = _parameters(type(self))
        return all(
            is_finite_state(v) for k, v in vars(self).items() if k != "_features" and k not in skip
        )

    @contextlib.contextmanager
    def _transaction(self, indices: np.ndarray):
        """Run the body as one update of the sample with columns ``indices``: on any exception,
        or a non-finite state afterwards, restore the state and the feature space as they were
        and raise (:class:`NumericalError` for the latter)."""
        features = self._features  # type: ignore[attr-defined]
        n_names = len(features)
        snapshot = self._snapshot(indices)
        try:
            yield
            if not self._state_finite(indices):
                raise NumericalError(
                    f"{type(self).__name__}: this sample would make the model's state non-finite "
                    "(an overflow in the update); it was not learned and the model is unchanged. "
                    "Scale the features (e.g. river.preprocessing.StandardScaler) or lower the "
                    "step size"
                )
        except BaseException:
            self._restore(snapshot)
            features.truncate(n_names)
            raise
