"""Incremental and decremental linear proximal SVM, IncLPSVM (seed 001, §2.5, Algorithm 3)."""

from __future__ import annotations

import collections
import math
from collections.abc import Callable

import numpy as np
import scipy.linalg
import scipy.linalg.lapack

from imbalance_stream._numba import proximal as kernels
from imbalance_stream.base import BinaryClassifier, FeatureSpace, UnknownLabel, capacity_for
from imbalance_stream.base._docstrings import DOCS, fill_docs
from imbalance_stream.base.features import QUADRATIC_MAX_FEATURES
from imbalance_stream.base.validation import check_int, check_real

__all__ = ["IncLPSVM"]

_POSITIVE, _NEGATIVE = 0, 1
#: A windowed model recomputes its statistics from the window every this many turnovers.
REBUILD_TURNOVERS = 4

#: Fill the ``    %(name)s`` lines the incremental proximal SVMs (binary and multi-class, plain
#: and DCIL) share: the ``window`` parameter and the ``counts`` attribute (with the binary
#: classifiers' entries of ``base._docstrings.DOCS``).
proximal_docs = fill_docs(
    {
        **DOCS,
        "window": """\
    window
        ``None`` (keep everything) or the number of most recent samples to keep.
""",
        "held_counts": """\
    Attributes
    ----------
    counts
        Number of samples held per label.
""",
    }
)


def pad_statistics(stats: np.ndarray, slots: int, size: int) -> np.ndarray:
    """The per-class statistics ``stats`` (``k x n x n``) padded with zeros to ``slots x size x
    size`` (new classes and new features have seen nothing); ``stats`` itself if already so."""
    if stats.shape == (slots, size, size):
        return stats
    padded = np.zeros((slots, size, size))
    padded[: stats.shape[0], : stats.shape[1], : stats.shape[2]] = stats
    return padded


class HeldSamples:
    """Window and retirement bookkeeping shared by the binary and the multi-class IncLPSVM.

    The host keeps its per-class statistics and provides ``_update(indices, values, slot, scale)``
    (a rank-one change of the statistics of class slot ``slot``, ``scale`` = +1 or -1),
    ``_rebuild()`` (recompute the statistics from ``_buffer``), ``_features`` (a
    :class:`~imbalance_stream.base.FeatureSpace`), ``window``, ``_buffer`` (a deque of
    ``(indices, values, slot)`` when windowed, else ``None``) and ``_window_retired``.
    """

    window: int | None
    _buffer: collections.deque | None
    _window_retired: int
    _features: FeatureSpace
    _update: Callable[[np.ndarray, np.ndarray, int, float], None]
    _rebuild: Callable[[], None]

    def _hold(self, indices, values, slot: int) -> None:
        """Add a sample; with a full window, retire the oldest in the same step."""
        self._update(indices, values, slot, 1.0)
        if self._buffer is not None and self.window is not None:
            self._buffer.append((indices, values, slot))
            if len(self._buffer) > self.window:
                old_indices, old_values, old_slot = self._buffer.popleft()
                self._update(old_indices, old_values, old_slot, -1.0)
                self._window_retired += 1
                if self._window_retired >= REBUILD_TURNOVERS * self.window:
                    self._rebuild()

    def _retire(self, x: dict, slot: int) -> None:
        """Retire the sample ``x`` of class slot ``slot``; raise and change nothing if not held."""
        indices, values, new = self._features.encode(x, grow=True)
        if new:
            raise ValueError(
                f"cannot forget a sample with feature {new[0]!r}, which was never learned"
            )
        if self._buffer is not None:
            for position, (held_indices, held_values, held_slot) in enumerate(self._buffer):
                if (
                    held_slot == slot
                    and np.array_equal(held_indices, indices)
                    and np.array_equal(held_values, values)
                ):
                    del self._buffer[position]
                    break
            else:
                raise ValueError("cannot forget a sample that is not in the window")
        self._update(indices, values, slot, -1.0)


def solve_spd(A: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Solve ``A u = r`` (one or several right-hand sides) for a symmetric positive definite ``A``.

    One LAPACK ``dposv`` call (Cholesky factor and solve): for the small systems of a stream its
    call overhead is a quarter of ``cho_factor`` + ``cho_solve``. ``A >= I/C`` in exact arithmetic;
    if long add/retire sequences have eroded that by round-off, fall back to least squares rather
    than fail a prediction.
    """
    _, u, info = scipy.linalg.lapack.dposv(A, r)
    if info != 0:
        return scipy.linalg.lstsq(A, r)[0]
    return u


@proximal_docs
class IncLPSVM(HeldSamples, BinaryClassifier):
    """Incremental and decremental linear proximal SVM (IncLPSVM), without class weights.

    The model keeps, per class c, the scatter statistic ``M_c = sum_i z_i z_i'`` of the expanded
    samples ``z = [x; -1]`` (so ``v_c = E_c'e`` and the count ``l_c`` are entries of ``M_c``:
    ``v_c`` is minus the last column of ``M_c`` and ``l_c`` its last diagonal entry). Adding or
    retiring a sample is the rank-one change ``M_y +- z z'``: O(d^2),
    exact, order-free. The solution

        ``O = (I/C + M+ + M-)^{-1} (v+ - v-)``

    is the batch LPSVM (Algorithm 1) on the samples currently held. It is solved lazily (Cholesky,
    O(d^3)) the first time a prediction needs it after a change, and cached until the next change.

    The decision value is the thesis's ``f(x) = [x', -1] O = x'w - b``. ``predict_one`` returns the
    positive label when ``f > 0``, the negative one when ``f < 0``, and on a tie ``f = 0`` the class
    with more samples held (the positive one if the counts are equal; D-DCIL-3). Probabilities are
    ``P(positive) = 1 / (1 + exp(-2 f))``, the softmax of the two one-vs-rest scores ``(f, -f)``:
    ``f = +-1`` (a proximal plane) maps to 0.88. They are uncalibrated scores (D-DCIL-22); 1/2 for
    an empty model. Unweighted LPSVM is well defined with one class held (its plane pushes every
    point to that class), so this model always solves; the weighted subclass cannot (see there).

    ``window=W`` keeps the last W samples: when a new sample arrives and W are held, the oldest is
    retired in the same step (Algorithm 3 with one added and one retired sample). The window stores
    the encoded vectors, so the retired vector is bit-identical to the one that was added.
    ``forget_one(x, y)`` retires a given sample. Every ``4 * window`` retirements the statistics are
    recomputed from the window's vectors, so that the round-off of a huge sample that has left the
    window does not linger (25% more update work, amortised).

    %(quadratic_limits)s

    Parameters
    ----------
    C
        Trade-off between the squared training error and the ridge ``(w'w + b^2)/2``.
    %(window)s
    positive
        The label written +1.

    %(held_counts)s

    Examples
    --------

    The model holds statistics, not samples: ``forget_one`` retires any sample it has learned,
    and learning that sample again gives back the same plane, up to rounding.

    >>> from river import datasets
    >>> from imbalance_stream.svm import IncLPSVM

    >>> samples = list(datasets.Phishing())
    >>> model = IncLPSVM(C=1.0)
    >>> for x, y in samples:
    ...     model.learn_one(x, y)
    >>> model.counts
    {True: 548, False: 702}
    >>> x, y = samples[0]
    >>> before = model.decision_one(x)
    >>> model.forget_one(x, y)
    >>> model.counts
    {True: 547, False: 702}
    >>> model.learn_one(x, y)
    >>> abs(model.decision_one(x) - before) < 1e-12
    True

    References
    ----------
    Fung, G., Mangasarian, O. L. (2001). Proximal support vector machine classifiers. KDD.
    Fung, G., Mangasarian, O. L. (2002). Incremental support vector machine classification. SDM.

    """

    #: A dense d x d matrix over the features: at most 4,096 of them (``FeatureSpace``).
    _max_features = QUADRATIC_MAX_FEATURES

    def __init__(self, C: float = 1.0, window: int | None = None, positive=True):
        check_real("C", C, low=0.0, low_open=True)
        check_int("window", window, low=1, optional=True)
        super().__init__(positive=positive, intercept=True)
        self.C = C
        self.window = window
        # Column 0 is FeatureSpace's constant feature, +1. The thesis's bias column is -1: the two
        # solutions differ only in the sign of the bias entry (the ridge is sign-symmetric), so the
        # thesis's b is -u[0] exactly. _stats[c] is sum z z' for class c.
        self._stats = np.zeros((2, 8, 8))
        self._counts = [0, 0]
        self._buffer = collections.deque() if window is not None else None
        self._window_retired = 0  # window retirements since the statistics were last rebuilt
        # cached u for the current statistics, None when stale
        self._solution: np.ndarray | None = None

    # ---- class weights: the only difference between IncLPSVM and DCIL-IncLPSVM ----------------

    def _weights(self, n_positive: int, n_negative: int) -> tuple[float, float]:
        return 1.0, 1.0

    # ---- state --------------------------------------------------------------------------------

    def _grow(self, n_features):
        size = self._stats.shape[1]
        if n_features > size:
            self._stats = pad_statistics(self._stats, 2, capacity_for(size, n_features))

    def _update(self, indices, values, slot: int, scale: float):
        kernels.scatter_update(self._stats[slot], indices, values, scale)
        self._counts[slot] += int(scale)
        self._solution = None

    def _learn(self, indices, values, sign):
        self._hold(indices, values, _POSITIVE if sign > 0 else _NEGATIVE)

    def _rebuild(self):
        """Recompute the statistics from the window's samples.

        Adding and then subtracting a sample leaves round-off of the size of its own scatter: a
        huge outlier passing through the window would leave an error that dwarfs later, smaller
        samples. Rebuilding from the stored vectors every few turnovers of the window bounds that
        error, for an amortised cost of ``1 / REBUILD_TURNOVERS`` update per sample.
        """
        self._stats[:] = 0.0
        for indices, values, slot in self._buffer or ():  # (called with a window only)
            kernels.scatter_update(self._stats[slot], indices, values, 1.0)
        self._window_retired = 0
        self._solution = None

    def forget_one(self, x: dict, y) -> None:
        """Retire the sample ``(x, y)``: the model becomes the one that never learned it.

        The sample must be one the model holds: a feature never learned, a label with no sample
        held, or (with a window) a sample not in the window raises ``ValueError`` and changes
        nothing.
        """
        slot = _POSITIVE if self._sign(y) > 0 else _NEGATIVE
        if self._counts[slot] == 0:
            raise UnknownLabel(f"cannot forget a sample of label {y!r}: the model holds none")
        self._retire(x, slot)

    # ---- solution -----------------------------------------------------------------------------

    def _system(self):
        """``(A, r)`` in the internal (+1 bias) convention, over the grown columns."""
        sigma_pos, sigma_neg = self._weights(*self._counts)
        # A = I/C + sigma+ M+ + sigma- M-; r = sigma+ v+ - sigma- v-, where v_c = E_c'e is column 0
        # of M_c because z[0] = 1 for every sample.
        return kernels.assemble_system(
            self._stats[_POSITIVE],
            self._stats[_NEGATIVE],
            len(self._features),
            float(sigma_pos),
            float(sigma_neg),
            1.0 / self.C,
        )

    def _solvable(self) -> bool:
        """Whether the system has a solution worth solving for: LPSVM needs a sample held."""
        return self._counts[_POSITIVE] > 0 or self._counts[_NEGATIVE] > 0

    def _current(self) -> np.ndarray:
        """The internal solution u (u[0] = -b), solved now if the statistics changed."""
        if self._solution is None:
            if self._solvable():
                self._solution = solve_spd(*self._system())
            else:
                self._solution = np.zeros(len(self._features))
        return self._solution

    @property
    def solution(self) -> np.ndarray:
        """``O = [w; b]`` in the thesis's layout: weights in the order features were first seen
        (see :attr:`feature_names`), then the bias ``b`` of ``f(x) = x'w - b``."""
        u = self._current()
        return np.append(u[1:], -u[0]) if len(u) else np.zeros(1)

    @property
    def feature_names(self) -> list:
        return self._features.names[1:]

    @property
    def weights(self) -> dict:
        """The weight ``w`` of every feature seen, by name."""
        return dict(zip(self.feature_names, self._current()[1:].tolist()))

    @property
    def bias(self) -> float:
        """The thesis's ``b``: the decision value is ``x'w - b``."""
        u = self._current()
        return float(-u[0]) if len(u) else 0.0

    @property
    def counts(self) -> dict:
        return {self.positive: self._counts[_POSITIVE], self.negative: self._counts[_NEGATIVE]}

    @property
    def class_weights(self) -> dict:
        """The class weights ``sigma`` in force, by label."""
        sigma_pos, sigma_neg = self._weights(*self._counts)
        return {self.positive: sigma_pos, self.negative: sigma_neg}

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        u = self._current()
        return float(np.dot(u[indices], values)) if len(u) else 0.0

    def _proba(self, indices, values):
        if not self._solvable():
            if self._counts[_POSITIVE]:
                return 1.0
            return 0.0 if self._counts[_NEGATIVE] else 0.5
        score = self._decision(indices, values)
        return 0.5 * (1.0 + math.tanh(score))  # = 1 / (1 + exp(-2 f)), without overflow

    def predict_one(self, x: dict, **kwargs):
        score = self.decision_one(x)
        if score > 0.0:
            return self.positive
        if score < 0.0:
            return self.negative
        n_pos, n_neg = self._counts
        return self.negative if n_neg > n_pos else self.positive

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "window": 50}
        yield {"C": 0.1, "window": 3}
