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
models save only the weights of the sample's features; KOIL the small arrays and the one stored
vector a step may overwrite; SACOG copies its arrays directly and checks them in one compiled
call; the LASVM family the member slots a step can write and the store's new segment), and one
whose jitted step checks its new values before writing any
(:class:`CheckedInKernel`: ACOG, AROW) saves only its scalars. A step that checks its own result
and raises on a non-finite one (CheckedInKernel, KOIL) sets ``_scan_after_update = False``, so
that :meth:`Transactional._apply` does not call ``_state_finite`` after it.
"""

from __future__ import annotations

import collections
import copy
import inspect
import math
import re
import sys
import types
from typing import Any

import numpy as np

from imbalance_stream._numba.guard import all_finite

__all__ = [
    "CheckedInKernel",
    "NumericalError",
    "Transactional",
    "copy_state",
    "is_finite_state",
]


class NumericalError(ArithmeticError, ValueError):
    """An update that would have made a model's state non-finite (an overflow, or NaN from finite
    inputs); the model was left exactly as it was before the sample."""


_SCALARS = frozenset((type(None), bool, int, str, np.int64, np.bool_))
#: Shared, never copied: code (a function set on an instance, a class), not state.
_CODE = frozenset((types.FunctionType, types.BuiltinFunctionType, types.MethodType, type))
_SEQUENCES = frozenset((list, tuple, collections.deque))


def copy_state(value: Any, memo: dict) -> Any:
    """A copy of ``value`` that no in-place update of the original can reach: arrays, dicts,
    lists, deques, tuples and plain objects holding them are copied (recursively), immutable
    scalars are shared, anything else is deep-copied. ``memo`` (shared over one snapshot) keeps
    objects that were shared, shared."""
    kind = type(value)
    if kind in _SCALARS or kind is float or kind in _CODE:
        return value
    key = id(value)
    if key in memo:
        return memo[key]
    if kind is np.ndarray:
        result: Any = value.copy(order="K")  # the same layout, so the same pickle
    elif kind is dict:
        result = {k: copy_state(v, memo) for k, v in value.items()}
    elif kind is list:
        result = [copy_state(v, memo) for v in value]
    elif kind is tuple:
        result = tuple([copy_state(v, memo) for v in value])
    elif kind is collections.deque:
        result = collections.deque([copy_state(v, memo) for v in value], value.maxlen)
    elif hasattr(value, "__dict__") and kind.__reduce_ex__ is object.__reduce_ex__:
        # a plain object holding arrays (e.g. a kernel pool): its attributes, copied as above
        result = object.__new__(kind)
        memo[key] = result
        result.__dict__.update(copy_state(vars(value), memo))
        return result
    else:
        result = copy.deepcopy(value, memo)
    memo[key] = result
    return result


def _finite_array(array: np.ndarray) -> bool:
    if array.dtype == np.float64:
        return bool(all_finite(array))
    return array.dtype.kind != "f" or bool(np.isfinite(array).all())


def is_finite_state(value: Any) -> bool:
    """Whether every float held by ``value`` (arrays, containers, scalars, and the attributes of
    plain objects such as a kernel pool) is finite."""
    kind = type(value)
    if kind is np.ndarray:
        return _finite_array(value)
    if kind is float or isinstance(value, np.floating):
        return math.isfinite(value)
    if kind in _SCALARS or kind in _CODE:
        return True
    if kind is dict:
        return all(is_finite_state(v) for v in value.values())
    if kind in _SEQUENCES:
        return all(is_finite_state(v) for v in value)
    if hasattr(value, "__dict__") and kind.__reduce_ex__ is object.__reduce_ex__:
        return all(is_finite_state(v) for v in vars(value).values())
    return True  # a generator, a function: nothing numeric to check


_PARAMETERS: dict[type, frozenset] = {}


def _parameters(cls: type) -> frozenset:
    """The constructor parameters of ``cls``: settings, not state (``C = inf`` is legitimate)."""
    found = _PARAMETERS.get(cls)
    if found is None:
        found = _PARAMETERS[cls] = frozenset(inspect.signature(cls).parameters)
    return found


_NAME_CHARS = re.compile(r"[A-Za-z0-9_]*")


def _interned(text: str) -> str:
    """``text``, interned when CPython would intern it as a constant (name characters only)."""
    return sys.intern(text) if _NAME_CHARS.fullmatch(text) else text


def intern_state(state: dict) -> dict:
    """An unpickled ``__dict__`` with its names interned, as pickle's default ``__setstate__``
    does, and its identifier-like string values too, as Python interns them when it compiles
    them (a parameter's default ``"kernel"``): a value equal to an attribute's name is then the
    same object again, and the model pickles to the same bytes after a round trip as before it
    (a resumed replay's ``entities.csv`` holds those sizes)."""
    return {
        sys.intern(k) if type(k) is str else k: _interned(v) if type(v) is str else v
        for k, v in state.items()
    }


class Transactional:
    """Mixin of the estimators whose ``learn_one`` applies a sample through :meth:`_apply`.

    ``_features`` (the :class:`~imbalance_stream.base.FeatureSpace`) is rolled back by its own
    ``truncate``; everything else in the instance's ``__dict__`` is saved by :meth:`_snapshot`,
    except the attributes named in ``_DERIVED``: a cache that the rest of the state determines
    (its content changes no result), which is neither copied nor checked, is emptied by
    :meth:`_reset_derived` on a rollback, and is left out of the pickle (so that a rolled-back
    model pickles exactly as before). Subclasses may override the three hooks with cheaper,
    equivalent versions.
    """

    #: Attribute names of derived state (a cache): see the class docstring.
    _DERIVED: frozenset = frozenset()

    def _reset_derived(self) -> None:
        """Set the ``_DERIVED`` attributes to their empty state (subclasses that have some)."""

    def __getstate__(self):
        state = vars(self)
        if not self._DERIVED:
            return state
        return {key: value for key, value in state.items() if key not in self._DERIVED}

    def __setstate__(self, state):
        vars(self).update(intern_state(state))
        if self._DERIVED:
            self._reset_derived()

    def _snapshot(self, indices: np.ndarray) -> Any:
        """A copy of the state (all but the feature space) that no update can reach."""
        memo: dict = {}
        saved = {}
        generators = []
        derived = self._DERIVED
        for key, value in vars(self).items():
            kind = type(value)
            if key in derived:
                continue
            if key == "_features" or kind in _SCALARS or kind is float or kind in _CODE:
                saved[key] = value
            elif kind is np.random.Generator:
                # its state, not a deep copy (50 times cheaper); restored into the same object
                generators.append((value, value.bit_generator.state))
                saved[key] = value
            else:
                saved[key] = copy_state(value, memo)
        return saved, generators

    def _restore(self, snapshot: Any) -> None:
        saved, generators = snapshot
        state = vars(self)
        features = state["_features"]
        state.clear()
        state.update(saved)
        state["_features"] = features
        for generator, generator_state in generators:
            generator.bit_generator.state = generator_state
        if self._DERIVED:
            self._reset_derived()

    def _state_finite(self, indices: np.ndarray) -> bool:
        """Whether every float of the state (constructor parameters aside) is finite."""
        skip = _parameters(type(self))
        for key, value in vars(self).items():
            if key in skip or key in self._DERIVED or key == "_features":
                continue
            if not is_finite_state(value):
                return False
        return True

    def _numerical_error(self) -> NumericalError:
        """The error of a sample whose update would make the state non-finite."""
        return NumericalError(
            f"{type(self).__name__}: this sample would make the model's state non-finite "
            "(an overflow in the update); it was not learned and the model is unchanged. "
            "Scale the features (e.g. river.preprocessing.StandardScaler) or lower the "
            "step size"
        )

    #: Whether :meth:`_apply` scans the state after the update (:meth:`_state_finite`); False
    #: for steps that refuse non-finite values before writing them (:class:`CheckedInKernel`).
    _scan_after_update = True

    def _apply(self, indices: np.ndarray, update, *args) -> None:
        """Run ``update(*args)`` as one transaction over the sample with columns ``indices``: on
        any exception, or a non-finite state afterwards, restore the state and the feature space
        exactly as they were and raise (:class:`NumericalError` for the latter). The arguments
        are passed through rather than closed over: no closure is built per sample."""
        features = self._features  # type: ignore[attr-defined]
        n_names = len(features.names)
        snapshot = self._snapshot(indices)
        try:
            update(*args)
            if self._scan_after_update and not self._state_finite(indices):
                raise self._numerical_error()
        except BaseException:
            self._restore(snapshot)
            features.truncate(n_names)
            raise


class CheckedInKernel(Transactional):
    """Transactions for estimators whose jitted step checks its own new values: the step computes
    every value it would write, and writes none of them unless all are finite (returning a
    "refused" code instead, on which ``_learn`` raises :meth:`_numerical_error`). The arrays then
    need no copy and no scan: the snapshot is the instance's attributes (scalars such as the label
    counts, and the references to the arrays, which growth replaces rather than changes), O(1)
    instead of O(state) per sample.
    """

    _scan_after_update = False

    def _snapshot(self, indices: np.ndarray) -> Any:
        # dict.copy: a third of the time of dict(...) on an instance's (split-key) dict
        return vars(self).copy()

    def _restore(self, snapshot: Any) -> None:
        state = vars(self)
        state.clear()
        state.update(snapshot)

    def _state_finite(self, indices: np.ndarray) -> bool:
        return True  # the step wrote nothing non-finite (it refuses instead)
