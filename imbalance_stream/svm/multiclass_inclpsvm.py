"""Multi-class one-vs-rest incremental LPSVM without class weights, MulticlassIncLPSVM (seed 001,
§2.8)."""

from __future__ import annotations

import collections
import math

import numpy as np
from river import base

from imbalance_stream._numba import proximal as kernels
from imbalance_stream.base import FeatureSpace, UnknownLabel, check_label, grow_matrix
from imbalance_stream.base.features import QUADRATIC_MAX_FEATURES
from imbalance_stream.base.transaction import Transactional
from imbalance_stream.base.validation import check_int, check_real

from .inclpsvm import HeldSamples, pad_statistics, proximal_docs, solve_spd

__all__ = ["MulticlassIncLPSVM"]


@proximal_docs
class MulticlassIncLPSVM(Transactional, HeldSamples, base.Classifier):
    """Multi-class incremental and decremental LPSVM, one-vs-rest, without class weights.

    The baseline of the thesis's multi-class experiment (Tveit & Hetland 2003): k one-vs-rest
    LPSVMs, class j against all the others, learned as labels appear. They share the global
    statistic ``M = sum_i z_i z_i'`` (``z = [x; -1]``), and each class keeps ``M_cj``, so that

        ``O_j = (I/C + M)^{-1} (2 v_cj - v)``

    (``v = E'e``, ``v_cj = E_cj'e``) is exactly the batch LPSVM of class j against the rest on the
    samples held. Learning or retiring a sample is two rank-one updates (O(d^2)); the k solutions
    share one Cholesky factor and are solved lazily at prediction time, then cached. Each binary
    problem is 1-to-(k-1) imbalanced, which is what the weighted
    :class:`~imbalance_stream.svm.MulticlassDCILIncLPSVM` corrects.

    ``predict_one`` is the argmax of the raw decision values ``f_j(x) = [x', -1] O_j`` over the
    classes held (D-DCIL-13; ties go to the class with more samples, then to the first seen);
    ``predict_proba_one`` is their softmax, an uncalibrated score. A class whose samples have all
    been retired gets probability 0 and is never predicted. ``window`` (with its periodic rebuild)
    and ``forget_one`` work as in :class:`~imbalance_stream.svm.IncLPSVM`.

    Limits. The model keeps a dense matrix over the features, so its feature space holds at most
    4,096 features: a sample that would grow it further raises
    :class:`~imbalance_stream.base.FeatureSpaceFull` and changes nothing. A sample is learned
    whole or not at all, as by :class:`~imbalance_stream.base.BinaryClassifier`. Any class label
    starts a class (text, numbers, tuples; 1, 1.0 and True are one); None, NaN, an infinite number
    or an unhashable value raises :class:`~imbalance_stream.base.UnknownLabel` and changes nothing.

    Parameters
    ----------
    C
        Trade-off between the squared training error and the ridge.
    %(window)s

    %(held_counts)s

    Examples
    --------

    Each label starts a class when it first appears; the probabilities are the softmax of the
    decision values of the classes held:

    >>> from river import datasets, preprocessing
    >>> from imbalance_stream.svm import MulticlassIncLPSVM

    >>> model = preprocessing.StandardScaler() | MulticlassIncLPSVM(C=1.0)
    >>> for x, y in datasets.ImageSegments():
    ...     model.learn_one(x, y)
    >>> len(model["MulticlassIncLPSVM"].counts)
    7
    >>> proba = model.predict_proba_one(x)
    >>> y, max(proba, key=proba.get)
    ('brickface', 'brickface')

    References
    ----------
    Tveit, A., Hetland, M. L. (2003). Multicategory incremental proximal support vector classifiers.
    KES 2003.

    """

    def __init__(self, C: float = 1.0, window: int | None = None):
        check_real("C", C, low=0.0, low_open=True)
        check_int("window", window, low=1, optional=True)
        self.C = C
        self.window = window
        # column 0 is +1 (see IncLPSVM); dense d x d statistics: the quadratic feature limit
        self._features = FeatureSpace(intercept=True, max_features=QUADRATIC_MAX_FEATURES)
        self._total = np.zeros((8, 8))  # M = sum over all held samples of z z'
        self._stats = np.zeros((0, 8, 8))  # M_cj per class slot
        self._labels: list = []  # slot -> label, in order of first appearance
        self._slots: dict = {}  # label -> slot
        self._counts: list[int] = []
        self._buffer = collections.deque() if window is not None else None
        self._window_retired = 0
        self._solutions: np.ndarray | None = None  # cached (k, n) array of u_j, None when stale

    @property
    def _multiclass(self):
        return True

    # ---- state --------------------------------------------------------------------------------

    def _grow(self, n_features: int, n_classes: int):
        """Pad the statistics with zeros for new features and new classes (capacity doubling)."""
        self._total = grow_matrix(self._total, n_features, diagonal=0.0)
        slots = self._stats.shape[0]
        slot_capacity = slots if n_classes <= slots else max(2, 2 * slots, n_classes)
        self._stats = pad_statistics(self._stats, slot_capacity, self._total.shape[0])

    def _update(self, indices, values, slot: int, scale: float):
        kernels.scatter_update_pair(self._stats[slot], self._total, indices, values, scale)
        self._counts[slot] += int(scale)
        self._solutions = None

    def learn_one(self, x: dict, y) -> None:
        check_label(y)
        indices, values, new = self._features.encode(x, grow=True)
        # whole or not at all, as BinaryClassifier.learn_one
        self._apply(indices, lambda: self._learn_new(y, indices, values, new))

    def _learn_new(self, y, indices, values, new) -> None:
        slot = self._slots.get(y)
        n_features = self._features.commit(new) if new else len(self._features)
        if slot is None:
            slot = len(self._labels)
            self._grow(n_features, slot + 1)
            self._slots[y] = slot
            self._labels.append(y)
            self._counts.append(0)
        else:
            self._grow(n_features, len(self._labels))
        self._hold(indices, values, slot)

    def _rebuild(self):
        """Recompute the statistics from the window's samples (see ``IncLPSVM._rebuild``)."""
        self._total[:] = 0.0
        self._stats[:] = 0.0
        for indices, values, slot in self._buffer or ():  # (called with a window only)
            kernels.scatter_update_pair(self._stats[slot], self._total, indices, values, 1.0)
        self._window_retired = 0
        self._solutions = None

    def forget_one(self, x: dict, y) -> None:
        """Retire the sample ``(x, y)``; a sample the model cannot hold raises and changes
        nothing."""
        slot = self._slots.get(check_label(y))
        if slot is None or self._counts[slot] == 0:
            raise UnknownLabel(f"cannot forget a sample of label {y!r}: the model holds none")
        self._retire(x, slot)

    # ---- solutions ----------------------------------------------------------------------------

    #: Unweighted LPSVM is defined with one class held; the weighted model needs two (D-DCIL-2).
    _min_classes_to_solve = 1

    def _held(self) -> list[int]:
        return [slot for slot, count in enumerate(self._counts) if count > 0]

    def _solve(self, held: list[int], n: int) -> np.ndarray:
        """Rows u_j for the held slots: one shared factor of ``I/C + M``."""
        A = self._total[:n, :n].copy()
        A[np.diag_indices(n)] += 1.0 / self.C
        v = self._total[:n, 0]
        R = np.stack([2.0 * self._stats[slot, :n, 0] - v for slot in held], axis=1)
        return solve_spd(A, R).T

    def _current(self) -> np.ndarray:
        """``(k, n)`` internal solutions (u[0] = -b); rows of classes not held are 0."""
        if self._solutions is None:
            n = len(self._features)
            solutions = np.zeros((len(self._labels), n))
            held = self._held()
            if len(held) >= self._min_classes_to_solve:
                solutions[held] = self._solve(held, n)
            self._solutions = solutions
        return self._solutions

    @property
    def solutions(self) -> dict:
        """``O_j = [w; b]`` per label, thesis layout (weights in :attr:`feature_names` order)."""
        return {label: np.append(u[1:], -u[0]) for label, u in zip(self._labels, self._current())}

    @property
    def feature_names(self) -> list:
        return self._features.names[1:]

    @property
    def counts(self) -> dict:
        return dict(zip(self._labels, self._counts))

    # ---- inference ----------------------------------------------------------------------------

    def decision_one(self, x: dict) -> dict:
        """Decision value ``f_j(x) = x'w_j - b_j`` per label held."""
        indices, values, _ = self._features.encode(x, grow=False)
        solutions = self._current()
        scores = solutions[:, indices] @ values if len(self._labels) else np.zeros(0)
        return {self._labels[slot]: float(scores[slot]) for slot in self._held()}

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        scores = self.decision_one(x)
        proba = dict.fromkeys(self._labels, 0.0)
        if scores:
            top = max(scores.values())
            exps = {label: math.exp(score - top) for label, score in scores.items()}
            total = sum(exps.values())
            for label, value in exps.items():
                proba[label] = value / total
        return proba

    def predict_one(self, x: dict, **kwargs):
        scores = self.decision_one(x)
        if not scores:
            return None
        counts = self.counts
        return max(scores, key=lambda label: (scores[label], counts[label]))

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "window": 50}
        yield {"C": 0.1, "window": 3}
