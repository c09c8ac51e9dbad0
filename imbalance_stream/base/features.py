"""The one way from a River feature dict to float64 arrays.

Every estimator of the package owns a :class:`FeatureSpace`. It maps feature names to columns in
order of first appearance, validates values before anything changes, and hands the numba layer
either a sparse ``(indices, values)`` pair or a dense vector.

Conventions, shared by every estimator:

* a name never seen while learning grows the space (a new column, filled with the prior by the
  estimator's ``_grow`` hook); at prediction time an unknown name is ignored, exactly as a zero
  weight would ignore it;
* a name missing from a dict is 0, as in River's sparse dicts, and explicit zeros are dropped;
* ``bool`` and numpy scalars are numbers; ``str``, ``None``, NaN and infinities are rejected with a
  :class:`ValueError` that names the feature, before any state changes;
* a value beyond :data:`MAX_ABS_VALUE` in magnitude (1e15) is rejected the same way: the models'
  arithmetic multiplies values together (covariances, kernels, pairwise products) and a product of a
  few such values already leaves float64's range (about 1e308); scale such features first;
* a sample that would grow the space past ``max_features`` columns (:data:`MAX_FEATURES` by
  default, less for models whose state is quadratic in the number of features) is rejected with
  :class:`FeatureSpaceFull` before any name is committed, so that one oversized sample cannot make a
  model allocate more than it can hold.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Any

import numpy as np

__all__ = [
    "KERNEL_MAX_FEATURES",
    "MAX_ABS_VALUE",
    "MAX_FEATURES",
    "QUADRATIC_MAX_FEATURES",
    "FeatureSpace",
    "FeatureSpaceFull",
    "InvalidFeature",
    "as_float",
]

#: Largest magnitude of a feature value a model accepts. Squares and cubes of it (1e30, 1e45)
#: stay far inside float64's range, so covariance, kernel and pairwise updates cannot overflow on
#: one sample; beyond it, scale the feature (``river.preprocessing.StandardScaler``).
MAX_ABS_VALUE = 1e15
#: Default limit on a model's feature space (columns), for models whose memory is linear in it.
MAX_FEATURES = 1_000_000
#: Limit for models that keep a dense matrix over the features (a full covariance, a scatter
#: matrix): 4,096 columns are 128 MiB per matrix.
QUADRATIC_MAX_FEATURES = 4096
#: Limit for kernel machines, which store each support vector densely over the features.
KERNEL_MAX_FEATURES = 65_536

_EMPTY_IDX = np.empty(0, dtype=np.int64)
_EMPTY_VAL = np.empty(0, dtype=np.float64)
# np.empty with a dtype instance, positionally: a third cheaper than ``dtype=np.int64`` (which
# numpy converts on every call), and ``encode`` allocates two arrays per sample.
_empty = np.empty
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
_compiled: Any
try:  # the compiled fast path of FeatureSpace.encode (optional, see setup.py)
    from . import _encode as _compiled  # type: ignore[attr-defined,no-redef]  # built by setup.py
except ImportError:  # pragma: no cover - depends on the build
    _compiled = None

if _compiled is not None and getattr(_compiled, "MAX_ABS", None) != MAX_ABS_VALUE:
    _compiled = None  # a stale build, without the magnitude limit: rebuild it (setup.py)
# The version tag of a dict (PEP 509), new at every change of its content, where the build has
# it (CPython 3.10 to 3.13): the recall then keeps the sample itself, not a copy (see encode).
_dict_version: Any = getattr(_compiled, "dict_version", None)

_PLAIN_NUMBERS = frozenset((float, int))  # value types the fast path takes as they are


class InvalidFeature(ValueError):
    """A feature value that cannot enter a model (not a finite real number within
    :data:`MAX_ABS_VALUE`)."""


class FeatureSpaceFull(ValueError):
    """A sample whose new feature names would grow a model's feature space past its limit."""


def as_float(name, value) -> float:
    """Return ``value`` as a finite float or raise :class:`InvalidFeature` naming ``name``."""
    kind = type(value)
    if (
        kind is float
        or kind is int
        or (isinstance(value, (numbers.Real, np.bool_)) and not isinstance(value, (str, bytes)))
    ):
        try:
            number = float(value)
        except OverflowError:  # an int beyond the float range
            raise InvalidFeature(
                f"feature {name!r} has value {value!r} beyond float range"
            ) from None
    else:
        raise InvalidFeature(
            f"feature {name!r} has value {value!r} of type {kind.__name__}; "
            "only finite real numbers can be learned (encode categories first, e.g. with "
            "river.preprocessing.OneHotEncoder)"
        )
    if not math.isfinite(number):
        raise InvalidFeature(f"feature {name!r} has non-finite value {value!r}")
    if abs(number) > MAX_ABS_VALUE:
        raise InvalidFeature(
            f"feature {name!r} has value {value!r}, beyond the limit of {MAX_ABS_VALUE:g} in "
            "magnitude that the models' arithmetic can carry; scale it first (e.g. with "
            "river.preprocessing.StandardScaler)"
        )
    return number


class _InterceptName:
    """The key of the constant feature in a :class:`FeatureSpace`: one instance, equal only to
    itself (also after pickling), so that no feature name of a sample can alias the bias."""

    def __repr__(self) -> str:
        return "<intercept>"

    def __reduce__(self):
        return "INTERCEPT"  # unpickles as the module's one instance


INTERCEPT = _InterceptName()


class FeatureSpace:
    """Growing map from feature names to contiguous columns.

    Parameters
    ----------
    intercept
        Reserve column 0 for a constant feature equal to 1, so that a linear model gains a bias
        term that it learns like any other weight.
    max_features
        Most columns the space may hold (the intercept included); a sample whose new names would
        pass it raises :class:`FeatureSpaceFull` and commits nothing.

    Examples
    --------

    >>> space = FeatureSpace()
    >>> idx, val, new = space.encode({"a": 1.0, "b": 0.0, "c": 2}, grow=True)
    >>> idx.tolist(), val.tolist(), new
    ([0, 1], [1.0, 2.0], ['a', 'c'])
    >>> space.commit(new)
    2
    >>> space.encode({"c": 3.0, "z": 1.0}, grow=False)[:2]
    (array([1]), array([3.]))
    >>> space.encode({"a": float("nan")}, grow=True)
    Traceback (most recent call last):
    ...
    imbalance_stream.base.features.InvalidFeature: feature 'a' has non-finite value nan

    """

    #: The name of the constant feature: a value no feature dict can hold as a key by accident
    #: (a user's feature named ``"__intercept__"`` is an ordinary feature).
    INTERCEPT = INTERCEPT
    #: The default of ``max_features`` (also for spaces pickled before it existed).
    max_features = MAX_FEATURES

    def __init__(self, intercept: bool = False, max_features: int = MAX_FEATURES):
        self.intercept = intercept
        self.max_features = max_features
        self.index: dict = {}
        self.names: list = []
        if intercept:
            self.index[self.INTERCEPT] = 0
            self.names.append(self.INTERCEPT)
        # the latest encoding, recalled by ``encode``: (the sample then, names then, complete,
        # indices, values, the sample's version tag, the sample), the sample then being the
        # sample itself with its version tag, or a copy of it (tag None) without one
        self._last: tuple[dict, int, bool, np.ndarray, np.ndarray, int | None, dict] | None = None

    def __getstate__(self):
        # The one-sample cache is a speed-up, not state: a pickled model does not carry it.
        state = self.__dict__.copy()
        state["_last"] = None
        return state

    def __len__(self) -> int:
        return len(self.names)

    def encode(self, x: dict, grow: bool):
        """Validate ``x`` and return ``(indices, values, new_names)``.

        Nothing changes here: names that would be new (only when ``grow``) get the columns they
        will have after :meth:`commit`, and are returned so the caller can commit them once the
        rest of the sample has been validated too.
        """
        if not isinstance(x, dict):
            raise TypeError(f"features must be a dict, got {type(x).__name__}")
        n_names = len(self.names)
        if grow and len(x) + n_names > self.max_features:
            self._check_room(x)
        last = self._last
        if last is not None and last[1] == n_names and (last[2] if grow else x is last[6]):
            # The recall: the arrays of the previous call if ``x`` equals its sample then and
            # nothing was added since. Prequential evaluation encodes every sample twice, to
            # predict and then to learn; this turns the second into a check of the dict's
            # version tag when ``x`` is the same dict, unchanged, else into a dict comparison
            # (written here rather than in a method: it runs twice per sample). Learning
            # compares any dict (a pipeline hands learn_one a new dict equal to the one it
            # predicted), inference only the same object again: a sample to predict is new,
            # and comparing it with the previous one (often as long, with the same first names)
            # costs about a sixth of its encoding, for nothing. A cached encoding that dropped
            # unknown names serves only inference (``grow=False``). Any doubt (a value that
            # does not compare as a number) is a miss, which runs the full validation. The
            # arrays are shared, so kernels must treat them as read-only, which they do.
            then, version = last[0], last[5]
            try:
                if version is None:  # ``then`` is a copy
                    same = then == x
                else:  # ``then`` is the sample itself, unchanged if its tag is
                    same = _dict_version(then) == version and (then is x or then == x)
            except Exception:  # e.g. an array value, whose comparison has no truth value
                same = False
            if same is True:
                return last[3], last[4], []
        if _compiled is None:
            return self._encode_known_floats(x, n_names) or self._encode_checked(x, grow)
        # The common case (every name of a non-zero value known, every value a finite float or
        # int) in one pass of the compiled module; it declines (-1) anything else, which
        # _encode_checked then decides, naming the culprit. Written out here rather than in a
        # method: it runs once per sample.
        intercept = self.intercept
        size = len(x) + intercept
        indices = _empty(size, _INT64)
        array = _empty(size, _FLOAT64)
        written = _compiled.encode_plain(x, self.index, indices, array, intercept)
        if written < 0:
            return self._encode_checked(x, grow)
        if written < size:  # zeros dropped
            indices, array = indices[:written].copy(), array[:written].copy()
        if _dict_version is None:
            self._last = (dict(x), n_names, True, indices, array, None, x)
        else:
            self._last = (x, n_names, True, indices, array, _dict_version(x), x)
        return indices, array, []

    def _remember(self, x: dict, n_names: int, complete: bool, indices, array) -> None:
        """Keep the encoding of ``x`` for :meth:`encode` to recall (as ``encode`` does, inline,
        on the common path)."""
        if _dict_version is None:
            self._last = (dict(x), n_names, complete, indices, array, None, x)
        else:
            self._last = (x, n_names, complete, indices, array, _dict_version(x), x)

    def _encode_known_floats(self, x: dict, n_names: int):
        """The common case without the compiled ``_encode`` module (which :meth:`encode` runs
        when built): every name of a non-zero value known, every value a finite ``float`` or
        ``int``, in C-level builtins. Anything else (a new or unknown name, another type, NaN or
        an infinity, a zero) returns None and goes through :meth:`_encode_checked`, which
        decides and names the culprit. All paths give identical arrays
        (``tests/test_features.py``).
        """
        encoded = self._encode_plain_python(x)
        if encoded is None:
            return None
        indices, array = encoded
        self._remember(x, n_names, True, indices, array)
        return indices, array, []

    def _encode_plain_python(self, x: dict):
        """The arrays of :meth:`_encode_known_floats`, or None for a sample it declines."""
        n_values = len(x)
        values: Any = x.values()  # then a chain with the intercept
        try:
            # sum() propagates NaN and infinities; an overflow to inf of large finite values
            # merely sends the sample to the checked path.
            if (
                not n_values
                or not _PLAIN_NUMBERS.issuperset(map(type, values))
                or 0.0 in values
                or not math.isfinite(sum(values))
                or max(map(abs, values)) > MAX_ABS_VALUE
            ):
                return None
            columns: Any = map(self.index.__getitem__, x)  # KeyError: a name not seen before
            if self.intercept:
                columns = itertools.chain(columns, (0,))
                values = itertools.chain(values, (1.0,))
                n_values += 1
            indices = np.fromiter(columns, np.int64, n_values)
            array = np.fromiter(values, np.float64, n_values)
        except (KeyError, OverflowError):  # OverflowError: an int beyond float range
            return None
        return indices, array

    def _encode_checked(self, x: dict, grow: bool):
        """Value by value: validates, drops zeros, numbers new names, drops unknown ones."""
        index = self.index
        columns: list[int] = []
        values: list[float] = []
        new: list = []
        dropped = 0
        next_column = len(self.names)
        for name, raw in x.items():
            kind = type(raw)
            if kind is float:
                value = raw
                if value - value != 0.0 or not -MAX_ABS_VALUE <= value <= MAX_ABS_VALUE:
                    as_float(name, raw)  # raises: NaN, +-inf or too large
            else:
                value = as_float(name, raw)
            if value == 0.0:
                continue
            column = index.get(name)
            if column is None:
                if not grow:
                    dropped += 1
                    continue
                column = next_column
                next_column += 1
                new.append(name)
            columns.append(column)
            values.append(value)
        if self.intercept:
            columns.append(0)
            values.append(1.0)
        if not columns:
            return _EMPTY_IDX, _EMPTY_VAL, new
        indices = np.array(columns, dtype=np.int64)
        array = np.array(values, dtype=np.float64)
        if not new:
            self._remember(x, len(self.names), not dropped, indices, array)
        return indices, array, new

    def _check_room(self, x: dict) -> None:
        """Raise :class:`FeatureSpaceFull` if the names of ``x`` not yet in the space would pass
        ``max_features``; called only when ``x`` is large enough for that to be possible."""
        index = self.index
        n_new = sum(1 for name in x if name not in index)
        if len(self.names) + n_new > self.max_features:
            raise FeatureSpaceFull(
                f"the sample brings {n_new:,} new feature names, which would grow the feature "
                f"space from {len(self.names):,} to {len(self.names) + n_new:,} columns, past "
                f"this model's limit of {self.max_features:,}; nothing was learned. Hash or "
                "select features first (e.g. river.preprocessing.FeatureHasher)"
            )

    def truncate(self, n_names: int) -> None:
        """Forget the names added after the first ``n_names`` (the rollback of :meth:`commit`)."""
        for name in self.names[n_names:]:
            del self.index[name]
        del self.names[n_names:]
        self._last = None

    def commit(self, new_names) -> int:
        """Add names returned by :meth:`encode`; return the new number of columns."""
        for name in new_names:
            self.index[name] = len(self.names)
            self.names.append(name)
        return len(self.names)

    def dense(self, indices: np.ndarray, values: np.ndarray, size: int | None = None) -> np.ndarray:
        """Scatter a sparse sample into a dense vector of ``size`` (default: the space's size)."""
        out = np.zeros(len(self.names) if size is None else size)
        out[indices] = values
        return out

    def to_dict(self, vector: np.ndarray) -> dict:
        """Map a dense vector over the columns back to ``{name: value}`` (intercept excluded)."""
        return {
            name: float(vector[j])
            for j, name in enumerate(self.names)
            if name != self.INTERCEPT or not self.intercept
        }
