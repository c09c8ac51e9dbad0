"""LASVM: the online SVM solver with PROCESS, REPROCESS and finishing (seed 003, chapter 3), and
the state it shares with the chapter 6 family (:class:`SupportVectorExpansion`: the kernel
expansion's members in a sparse store, their coefficients and gradients, and the LRU cache of
kernel rows; see :mod:`imbalance_stream._numba.lasvm`).

``learn_one`` runs through three files: :class:`~imbalance_stream.base.BinaryClassifier`'s
protocol (labels, validation, the transaction and growth), this module (the transaction's
snapshot of the member slots, room for one more member, the call) and the kernels of
:mod:`imbalance_stream._numba.lasvm`, which take the whole state in one argument and read it by
name (:class:`~imbalance_stream._numba.lasvm.Expansion`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from imbalance_stream._numba import lasvm as core
from imbalance_stream._numba.guard import all_finite
from imbalance_stream.base import BinaryClassifier, capacity_for, check_label
from imbalance_stream.base._docstrings import shared_docs
from imbalance_stream.base.binary import third_label
from imbalance_stream.base.transaction import _parameters, copy_state, is_finite_state
from imbalance_stream.base.validation import (
    InvalidParameter,
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_seed,
)

__all__ = ["LASVM"]

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
        self._model = core.Model._make(np.zeros(capacity) for _ in core.Model._fields)
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

    def __getstate__(self):
        # the member arrays pickle as the plain tuple they were before they had names: the
        # bytes are unchanged, and older pickles load
        state = dict(super().__getstate__())
        state["_model"] = tuple(state["_model"])
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        self._model = core.Model._make(self._model)

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
    def _store(self) -> tuple:
        """The fields of :class:`~imbalance_stream._numba.lasvm.Store`."""
        return self._flat_indices, self._flat_values, self._start, self._nnz, self._sqnorm

    @property
    def _state(self) -> tuple:
        """The whole state as the kernels take it: the fields of
        :class:`~imbalance_stream._numba.lasvm.Expansion` in order, in plain tuples (the
        arrays themselves, not copies; see :func:`~imbalance_stream._numba.lasvm.expansion`)."""
        return (
            self._kind,
            float(self.gamma),
            self._store,
            tuple(self._model),
            (self._lines, self._line_len, self._line_owner, self._line_stamp, self._row_of),
            self._ints,
            self._scalars,
            self._work,
            self._qrow,
        )

    def _box(self, sign: float) -> tuple[float, float]:
        """``(A, B)`` of eq. 2.21 for a new example of class ``sign``."""
        label = self.positive if sign > 0 else self._negative
        weight = 1.0 if self.class_weight is None else self.class_weight.get(label, 1.0)
        bound = float(self.C) * float(weight) * sign
        return min(0.0, bound), max(0.0, bound)

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        return core.decision(self._state, indices, values)

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
        return int(np.count_nonzero(self._model.alpha[: self.n_expansion_]))

    @property
    def n_kernel_evaluations_(self) -> int:
        return int(self._ints[core.N_KERNEL])

    @property
    def support_vectors_(self) -> list[tuple[dict, float]]:
        """The ``(x_s, alpha_s)`` pairs with ``alpha_s != 0`` (signed coefficients)."""
        names = self._features.names
        alpha = self._model.alpha
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


@shared_docs
class LASVM(SupportVectorExpansion):
    """LASVM: an online kernel SVM that reaches the batch SVM after one pass and a finishing step.

    The model is the SVM dual with a bias in its signed form (Ertekin 2009, eq. 2.21): maximise
    ``sum_i alpha_i y_i - 1/2 sum_ij alpha_i alpha_j K_ij`` subject to ``sum_i alpha_i = 0`` and
    ``A_i <= alpha_i <= B_i``, ``A_i = min(0, C_i y_i)``, ``B_i = max(0, C_i y_i)``. Each
    ``learn_one`` is one online iteration of section 3.2.1: **PROCESS** pairs the new example with
    the member of extreme gradient and takes one SMO direction search (eqs. 2.22-2.24), then one
    **REPROCESS** takes a step on the maximal tau-violating pair among the members, removes the
    blatant non support vectors and sets the bias and the gap ``delta`` (eq. 3.1). An example
    enters the expansion only when it violates the KKT conditions of the current model (eq. 3.2
    with the tolerance of D-LASVM-1), so most easy examples cost one kernel row and are dropped.

    :meth:`finish` runs the finishing step (REPROCESS until ``delta <= tau``): the exact SVM of
    the examples in the expansion. One pass plus finishing comes close to the batch SVM of the
    whole stream (LIBSVM's, scikit-learn's ``SVC``) but not to it exactly: an example that
    PROCESS left out or REPROCESS removed is not revisited, and a few of those end inside the
    final margin. :meth:`learn_epochs` over a stored dataset revisits them; two or three epochs
    plus finishing reach ``SVC``'s solution. A stream has no end: call :meth:`finish` on a copy
    (``copy.deepcopy``) to evaluate the finished model and keep learning with the original
    (D-LASVM-5).

    The expansion has no budget, as in the thesis: on noisy data every misclassified example
    stays a support vector, so memory and the cost of a sample grow with the stream. The
    Ramp-loss variants :class:`LASVMNC` and :class:`LASVMI` keep far fewer (chapter 6); for a hard
    bound use a budgeted kernel learner (:class:`~imbalance_stream.kernel.Projectron`, KOIL).
    ``gamma = 1`` suits a few standardised features; with ``d`` of them squared distances grow
    like ``2 d``, so start near ``gamma = 1 / d``: a width too narrow for the data makes every
    example look alone, and LASVM then keeps nearly all of them.

    Vectors are stored sparse: an RBF value costs O(nonzeros), and kernel rows are kept in an LRU
    cache of ``cache_mb`` megabytes. The decision is ``f(x) = sum_s alpha_s K(x_s, x) + b``;
    ``predict_proba_one`` gives the logistic of ``f`` (the thesis has no probabilities; D-LASVM-8).

    Parameters
    ----------
    C
        Box bound of the coefficients (misclassification cost).
    gamma
        Width of the RBF kernel ``exp(-gamma |a - b|^2)``.
    kernel
        ``"rbf"`` or ``"linear"`` (``a.b``).
    tau
        Tolerance of the tau-violating pairs: REPROCESS steps only on pairs whose gradients
        differ by more than ``tau``, and finishing stops when ``delta <= tau``.
    cache_mb
        Budget of the kernel-row cache, in megabytes; rows are float32, as in LIBSVM (at least
        two rows are always kept).
    class_weight
        ``{label: weight}``: the class's C is ``C * weight`` (1 for a label not given). Giving the
        rare class the imbalance ratio is the DC baseline of chapter 4.
    %(positive)s
    seed
        Seed of the shuffles of :meth:`learn_epochs`; ``learn_one`` draws no random numbers.

    Attributes
    ----------
    n_support_
        Support vectors (members with ``alpha != 0``).
    n_expansion_
        Members of the expansion, support vectors and the ``alpha = 0`` members not yet removed.
    n_kernel_evaluations_
        Kernel values computed while learning and finishing (fresh rows and cache misses;
        prediction is not counted).
    bias_
        The bias b of eq. 3.1.
    delta_
        The gap ``g_max - g_min`` of eq. 3.1: the solution is tau-approximate when it is at most
        ``tau``.
    last_alpha_
        The coefficient of the sample of the last ``learn_one`` after its REPROCESS (0 when it
        did not enter or already left the expansion): nonzero when it became a support vector.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import LASVM

    >>> model = preprocessing.StandardScaler() | LASVM(C=1.0, gamma=0.1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 90.72%

    >>> svm = model["LASVM"]
    >>> svm.n_support_, svm.n_expansion_
    (335, 342)

    Finishing removes the remaining tau-violating pairs:

    >>> steps = svm.finish()
    >>> svm.delta_ <= svm.tau
    True

    References
    ----------
    Ertekin, S. (2009). Learning in Extreme Conditions: Online and Active Learning with Massive,
    Imbalanced and Noisy Data. PhD thesis, The Pennsylvania State University, chapter 3.

    Bordes, A., Ertekin, S., Weston, J., Bottou, L. (2005). Fast Kernel Classifiers with Online
    and Active Learning. Journal of Machine Learning Research 6.

    """

    def __init__(
        self,
        C: float = 1.0,
        gamma: float = 1.0,
        kernel: str = "rbf",
        tau: float = 1e-3,
        cache_mb: float = 40.0,
        class_weight: dict | None = None,
        positive=True,
        seed: int | None = None,
    ):
        check_seed(seed)
        super().__init__(C, gamma, kernel, tau, cache_mb, class_weight, positive)
        self.seed = seed
        self.last_alpha_ = 0.0

    # ---- learning -----------------------------------------------------------------------------

    def _learn(self, indices, values, sign):
        self._ensure_room(len(indices))
        _, alpha = core.learn(
            self._state, (indices, values), sign, self._box(sign), float(self.tau)
        )
        self.last_alpha_ = float(alpha)

    def learn_epochs(self, X: Sequence[dict], y: Sequence, epochs: int = 1, shuffle: bool = True):
        """The offline mode of section 3.2.1: ``epochs`` passes of online iterations over a
        stored dataset (each in a random order drawn from ``seed`` when ``shuffle``), where
        PROCESS bails out on an example that is already in the expansion. Several epochs then
        :meth:`finish` converge to the batch SVM of the whole dataset (LASVM x2, ...), which
        replaying a stream through ``learn_one`` cannot do: a repeated example would enter the
        expansion twice (D-LASVM-6). Every sample and label is checked before anything changes.
        """
        check_int("epochs", epochs, low=1)
        check_bool("shuffle", shuffle)
        samples, labels = list(X), list(y)
        if len(samples) != len(labels):
            raise ValueError(f"X has {len(samples)} samples but y has {len(labels)} labels")
        signs, negative = self._signs_of(labels)
        for x in samples:  # validates every value (unknown names too) without changing anything
            self._features.encode(x, grow=False)
        if negative is not None:
            self._negative = negative
        encoded = [self._encode_growing(x) for x in samples]
        in_expansion = np.zeros(len(samples), dtype=np.bool_)
        self._model.key[: self.n_expansion_] = -1.0  # earlier members count as streamed ones
        rng = np.random.default_rng(self.seed)
        for _ in range(epochs):
            order = rng.permutation(len(samples)) if shuffle else range(len(samples))
            for key in order:
                self._learn_stored(encoded[key], signs[key], int(key), in_expansion)
        self._model.key[: self.n_expansion_] = -1.0

    def _signs_of(self, labels):
        """+1/-1 for each label and the negative label, checked as ``learn_one`` would."""
        negative = self._negative
        signs = np.empty(len(labels))
        for t, label in enumerate(labels):
            check_label(label)
            if label == self.positive:
                signs[t] = 1.0
                continue
            if negative is None:
                negative = label
            elif label != negative:
                raise third_label(type(self).__name__, label, self.positive, negative)
            signs[t] = -1.0
        return signs, negative

    def _encode_growing(self, x: dict):
        indices, values, new = self._features.encode(x, grow=True)
        n_columns = self._features.commit(new) if new else len(self._features.names)
        if n_columns > self._state_size:
            self._grow(n_columns)
            self._state_size = n_columns
        return indices, values

    def _learn_stored(self, x, sign: float, key: int, in_expansion) -> None:
        if not len(x[0]):
            return  # an empty sample, as in learn_one
        self._ensure_room(len(x[0]))
        core.learn_stored(self._state, x, sign, self._box(sign), key, float(self.tau), in_expansion)

    def finish(self, max_iter: int | None = None) -> int:
        """Run the finishing step: REPROCESS until ``delta <= tau`` (at most ``max_iter`` steps;
        None: at most 1,000 per member of the expansion and at least 100,000, D-LASVM-50);
        return the number of steps taken. Learning can go on afterwards."""
        return self._finish(float(self.tau), self._finish_limit(max_iter))

    def _finish(self, tau: float, limit: int, in_expansion: np.ndarray | None = None) -> int:
        """Finishing to ``tau`` in at most ``limit`` steps, marking the members it removes out of
        ``in_expansion`` (the flags of an offline pass) when given."""
        if in_expansion is None:
            in_expansion = np.zeros(0, dtype=np.bool_)
        return int(core.finish(self._state, tau, limit, in_expansion))

    # ---- inspection ---------------------------------------------------------------------------

    @property
    def bias_(self) -> float:
        return float(self._scalars[core.BIAS])

    @property
    def delta_(self) -> float:
        return float(self._scalars[core.DELTA])

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3}
        yield {"kernel": "linear", "C": 0.5, "class_weight": {True: 3.0}}
