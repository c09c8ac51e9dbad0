"""State shared by LASVM and the chapter 6 family (seed 003): the kernel expansion's members in a
sparse store, their coefficients and gradients, and the LRU cache of kernel rows (see
:mod:`imbalance_stream._numba.lasvm`)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import lasvm as core
from imbalance_stream._numba.guard import all_finite
from imbalance_stream.base import BinaryClassifier, capacity_for
from imbalance_stream.base.transaction import _parameters, copy_state, is_finite_state
from imbalance_stream.base.validation import InvalidParameter, check_choice, check_int, check_real

__all__: list[str] = []

_KERNELS = {"rbf": core.RBF, "linear": core.LINEAR}
_MB = 1 << 20
#: Finishing without ``max_iter`` stops after this many REPROCESS steps per member of the
#: expansion (and at least ``FINISH_MIN_STEPS``): a ``tau`` below the round-off of the
#: gradients is never reached, and the loop would not end (D-LASVM-50). Finishing takes tens
#: of steps per member on the thesis's data.
FINISH_STEPS_PER_MEMBER = 1000
FINISH_MIN_STEPS = 100_000
#: Cached kernel rows are float32, as LIBSVM's and the thesis's LASVM's (``float *row``): twice
#: the rows in the same budget; coefficients and gradients stay float64 (D-LASVM-52).
CACHE_DTYPE = np.dtype(np.float32)
#: The member arrays, and with them the width of a cache row, grow by an eighth (at least
#: ``MIN_GROWTH`` slots) rather than doubling, so that a row holds little unused room and the
#: budget as many rows as it can (D-LASVM-52).
GROWTH_DIVISOR = 8
MIN_GROWTH = 8


def _check_class_weight(class_weight) -> dict | None:
    """``class_weight`` as a dict of positive finite floats, or None."""
    if class_weight is None:
        return None
    if not isinstance(class_weight, dict):
        raise InvalidParameter(
            f"class_weight must be None or a dict {{label: weight}}, got {class_weight!r}"
        )
    for label, weight in class_weight.items():
        check_real(f"class_weight[{label!r}]", weight, low=0.0, low_open=True)
    return class_weight


class SupportVectorExpansion(BinaryClassifier):
    """A binary classifier whose model is ``f(x) = sum_s alpha_s K(x_s, x) + b`` over members
    kept in a sparse store with a kernel-row cache; subclasses implement the learning.

    The cache holds kernel rows of the stored members, so the members determine it and its
    content changes no result, only the kernel evaluations spent: it is derived state
    (``_DERIVED``), which a transaction neither copies nor checks (copying a 40 MB cache per
    sample made ``learn_one`` 30 to 110 times slower), a rollback empties, and a pickle leaves out.
    """

    _DERIVED = frozenset(("_lines", "_line_len", "_line_owner", "_line_stamp", "_row_of"))

    def __init__(self, C, gamma, kernel, tau, cache_mb, class_weight, positive):
        check_real("C", C, low=0.0, low_open=True)
        check_real("gamma", gamma, low=0.0, low_open=True)
        check_choice("kernel", kernel, tuple(_KERNELS))
        check_real("tau", tau, low=0.0, low_open=True)
        check_real("cache_mb", cache_mb, low=0.0, low_open=True)
        _check_class_weight(class_weight)
        super().__init__(positive=positive)
        self.C = C
        self.gamma = gamma
        self.kernel = kernel
        self.tau = tau
        self.cache_mb = cache_mb
        self.class_weight = class_weight

        self._kind = _KERNELS[kernel]
        self._ints = np.zeros(5, dtype=np.int64)  # the counters of _numba.lasvm (COUNT, ...)
        self._scalars = np.zeros(2)  # b and delta
        self._flat_indices = np.zeros(64, dtype=np.int64)
        self._flat_values = np.zeros(64)
        self._work = np.zeros(0)  # dense scratch vector, all zeros between calls
        self._allocate_members(8)

    # ---- state --------------------------------------------------------------------------------

    def _allocate_members(self, capacity: int) -> None:
        """Member arrays of ``capacity`` slots and an empty cache sized to the budget."""
        self._start = np.zeros(capacity, dtype=np.int64)
        self._nnz = np.zeros(capacity, dtype=np.int64)
        self._sqnorm = np.zeros(capacity)
        # alpha, g, A, B, y, K_ss and the key of a stored example (see _numba.lasvm)
        self._model = tuple(np.zeros(capacity) for _ in range(7))
        self._qrow = np.zeros(capacity)
        self._empty_cache(capacity)

    def _empty_cache(self, capacity: int) -> None:
        """An empty kernel-row cache for ``capacity`` member slots, sized to the budget."""
        n_lines = self._cache_lines(capacity)
        self._lines = np.zeros((n_lines, capacity), dtype=CACHE_DTYPE)
        self._line_len = np.zeros(n_lines, dtype=np.int64)
        self._line_owner = np.full(n_lines, -1, dtype=np.int64)
        self._line_stamp = np.zeros(n_lines, dtype=np.int64)
        self._row_of = np.full(capacity, -1, dtype=np.int64)

    def _reset_derived(self) -> None:
        self._empty_cache(self._start.shape[0])

    # ---- transactions: a step changes slots 0 .. count and appends to the store ---------------

    _SLOT_ARRAYS: tuple[str, ...] = ("_start", "_nnz", "_sqnorm", "_qrow")
    _FLAT_ARRAYS = ("_flat_indices", "_flat_values")

    def _snapshot(self, indices: np.ndarray) -> tuple:
        """The attributes, and copies of what one step can write: slots ``0 .. count`` of the
        member arrays (a step inserts one member, in slot ``count``, and removes by moving the
        last slot into the hole), and the part of the flat store the new member takes, or the
        whole store when it must be compacted or moved to make room. O(members) per sample where
        copying every array was O(capacity + store); other attributes are copied whole."""
        state = vars(self).copy()
        end = int(self._ints[core.COUNT]) + 1
        used = int(self._ints[core.FLAT_USED])
        width = len(indices)
        appends = used + width <= self._flat_values.shape[0]  # else _ensure_room rewrites it
        memo: dict = {}
        saved = {}
        for name, value in state.items():
            if name in self._DERIVED or name == "_features":
                continue
            if name in self._SLOT_ARRAYS:
                saved[name] = value[:end].copy()
            elif name == "_model":
                saved[name] = tuple(array[:end].copy() for array in value)
            elif name in self._FLAT_ARRAYS and appends:
                saved[name] = value[used : used + width].copy()
            else:
                saved[name] = copy_state(value, memo)
        return state, saved, end, used if appends else -1

    def _restore(self, snapshot: tuple) -> None:
        state, saved, end, used = snapshot
        for name, copy in saved.items():
            if name in self._SLOT_ARRAYS:
                state[name][:end] = copy
            elif name == "_model":
                for array, prefix in zip(state[name], copy):
                    array[:end] = prefix
            elif name in self._FLAT_ARRAYS and used >= 0:
                state[name][used : used + copy.shape[0]] = copy
            else:
                state[name] = copy
        vars(self).clear()
        vars(self).update(state)
        self._reset_derived()

    def _state_finite(self, indices: np.ndarray) -> bool:
        """Whether every float of the state is finite: the member arrays in compiled scans, the
        flat store not at all (its values were checked as features), the rest as
        :class:`~imbalance_stream.base.transaction.Transactional` does."""
        arrays = (*self._model, self._sqnorm, self._qrow, self._scalars)
        if not all(all_finite(array) for array in arrays):
            return False
        skip = _parameters(type(self)) | self._DERIVED | self._CHECKED
        return all(is_finite_state(value) for name, value in vars(self).items() if name not in skip)

    #: What ``_state_finite`` does not scan as the rest: the float arrays it scans in compiled
    #: code, and the store (integer positions, and values that were checked as features).
    _CHECKED = frozenset(
        ("_model", "_sqnorm", "_qrow", "_scalars", "_features", "_start", "_nnz", *_FLAT_ARRAYS)
    )

    def _cache_lines(self, capacity: int) -> int:
        """Rows of ``capacity`` cached values that fit the budget (2 <= rows <= capacity)."""
        row_bytes = CACHE_DTYPE.itemsize * capacity
        return int(max(2, min(capacity, self.cache_mb * _MB // row_bytes)))

    def _grow_members(self, capacity: int) -> None:
        """Move the state to ``capacity`` slots; the cache keeps its most recently used rows."""
        count = int(self._ints[core.COUNT])
        old = (self._start, self._nnz, self._sqnorm, self._model)
        old_cache = (self._lines, self._line_len, self._line_owner, self._line_stamp)
        self._allocate_members(capacity)
        for new_array, old_array in zip((self._start, self._nnz, self._sqnorm), old[:3]):
            new_array[:count] = old_array[:count]
        for new_array, old_array in zip(self._model, old[3]):
            new_array[:count] = old_array[:count]
        lines, line_len, line_owner, line_stamp = old_cache
        owned = np.flatnonzero(line_owner >= 0)
        keep = owned[np.argsort(-line_stamp[owned], kind="stable")][: self._lines.shape[0]]
        for new_line, line in enumerate(keep.tolist()):
            self._lines[new_line, : line_len[line]] = lines[line, : line_len[line]]
            self._line_len[new_line] = line_len[line]
            self._line_owner[new_line] = line_owner[line]
            self._line_stamp[new_line] = line_stamp[line]
            self._row_of[line_owner[line]] = new_line

    def _ensure_room(self, nnz: int) -> None:
        """Room for one more member of ``nnz`` nonzeros."""
        ints = self._ints
        capacity = self._start.shape[0]
        if ints[core.COUNT] == capacity:
            self._grow_members(capacity + max(MIN_GROWTH, capacity // GROWTH_DIVISOR))
        if ints[core.FLAT_USED] + nnz > self._flat_values.shape[0]:
            if 2 * ints[core.GARBAGE] >= ints[core.FLAT_USED]:
                core.compact_store(self._store, ints)
            needed = int(ints[core.FLAT_USED]) + nnz
            if needed > self._flat_values.shape[0]:
                size = capacity_for(self._flat_values.shape[0], needed)
                used = int(ints[core.FLAT_USED])
                for name in ("_flat_indices", "_flat_values"):
                    old = getattr(self, name)
                    new = np.zeros(size, dtype=old.dtype)
                    new[:used] = old[:used]
                    setattr(self, name, new)

    def _grow(self, n_features):
        if self._work.shape[0] < n_features:
            self._work = np.zeros(capacity_for(self._work.shape[0], n_features))

    @property
    def _store(self):
        return self._flat_indices, self._flat_values, self._start, self._nnz, self._sqnorm

    @property
    def _cache(self):
        return self._lines, self._line_len, self._line_owner, self._line_stamp, self._row_of

    def _box(self, sign: float) -> tuple[float, float]:
        """``(A, B)`` of eq. 2.21 for a new example of class ``sign``."""
        label = self.positive if sign > 0 else self._negative
        weight = 1.0 if self.class_weight is None else self.class_weight.get(label, 1.0)
        bound = float(self.C) * float(weight) * sign
        return min(0.0, bound), max(0.0, bound)

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        return core.decision(
            self._kind,
            float(self.gamma),
            self._store,
            self._model,
            int(self._ints[core.COUNT]),
            indices,
            values,
            float(self._scalars[core.BIAS]),
            self._work,
        )

    def _proba(self, indices, values):
        score = self._decision(indices, values)
        return 0.5 * (1.0 + math.tanh(0.5 * score))  # the logistic function, overflow-free

    def _finish_limit(self, max_iter: int | None) -> int:
        """The steps finishing may take: ``max_iter``, or the default bound of D-LASVM-50."""
        check_int("max_iter", max_iter, low=0, optional=True)
        if max_iter is not None:
            return int(max_iter)
        return max(FINISH_MIN_STEPS, FINISH_STEPS_PER_MEMBER * self.n_expansion_)

    # ---- inspection ---------------------------------------------------------------------------

    @property
    def n_expansion_(self) -> int:
        return int(self._ints[core.COUNT])

    @property
    def n_support_(self) -> int:
        return int(np.count_nonzero(self._model[0][: self.n_expansion_]))

    @property
    def n_kernel_evaluations_(self) -> int:
        return int(self._ints[core.N_KERNEL])

    @property
    def support_vectors_(self) -> list[tuple[dict, float]]:
        """The ``(x_s, alpha_s)`` pairs with ``alpha_s != 0`` (signed coefficients)."""
        names = self._features.names
        alpha = self._model[0]
        pairs = []
        for s in range(self.n_expansion_):
            if alpha[s] != 0.0:
                begin, end = self._start[s], self._start[s] + self._nnz[s]
                x = {
                    names[j]: float(v)
                    for j, v in zip(self._flat_indices[begin:end], self._flat_values[begin:end])
                }
                pairs.append((x, float(alpha[s])))
        return pairs
