"""Base class of every binary classifier in the package.

A subclass implements four array-level methods; this class owns the River protocol around them:
label handling, the feature space, validation before any state change, and the documented
treatment of empty samples, and the array and steps paths that run an estimator's jitted loops.
What a class label may be, and the errors naming one a model cannot take, are
:mod:`imbalance_stream.base.labels`'s (named here too).
"""

from __future__ import annotations

import abc
import contextlib
import dataclasses
import itertools
import operator
from collections.abc import Sequence

import numpy as np
from river import base

from imbalance_stream._numba import stream
from imbalance_stream._numba.stream import FAITHFUL as _FAITHFUL
from imbalance_stream._numba.stream import FIRST_NEGATIVE as _FIRST_NEGATIVE
from imbalance_stream._numba.stream import GROW_TO as _GROW_TO
from imbalance_stream._numba.stream import N_NAMES as _N_NAMES
from imbalance_stream._numba.stream import N_NEW as _N_NEW
from imbalance_stream._numba.stream import N_STATE as _N_STATE

from .features import MAX_ABS_VALUE, MAX_FEATURES, FeatureSpace, FeatureSpaceFull
from .labels import (
    PLAIN_LABELS,
    CodedLabels,
    UnknownLabel,
    check_label,
    check_label_for,
    check_positive,
    third_label,
)
from .rows import ArrayRows
from .transaction import NumericalError, Transactional
from .validation import check_bool

__all__ = [
    "BinaryClassifier",
    "StepsRun",
    "UnknownLabel",
    "check_label",
    "check_label_for",
    "check_positive",
    "third_label",
]


@dataclasses.dataclass
class StepsRun:
    """What :meth:`BinaryClassifier.run_steps` ran: the first ``done`` steps, with the decision
    and the probability of the positive label at each prediction step (meaningless at learning
    steps), and the negative label in force at each step: ``negative_after`` from step
    ``adopted_at`` on (the first negative label learned), ``negative_before`` until then."""

    done: int
    decisions: np.ndarray
    probas: np.ndarray
    negative_before: object
    negative_after: object
    adopted_at: int

    def negative_at(self, step: int):
        """The negative label ``predict_one`` answers with at ``step``."""
        return self.negative_after if step > self.adopted_at else self.negative_before


#: The columns of a transaction's snapshot that touches none (the steps path's growth).
_NO_COLUMNS = np.zeros(0, dtype=np.int64)


def _commit_run_names(features: FeatureSpace, names: Sequence, new_names, sizes) -> int:
    """Commit the names a steps run has brought (``new_names[:sizes[N_NEW]]``, positions in
    ``names``) to ``features`` and empty that list; return the number of names."""
    if sizes[_N_NEW]:
        features.commit([names[j] for j in new_names[: sizes[_N_NEW]].tolist()])
        sizes[_N_NEW] = 0
    return len(features)


class BinaryClassifier(Transactional, base.Classifier, abc.ABC):
    """Binary classifier over any two labels, the rare one named by ``positive``.

    Labels. ``y == positive`` is the positive (rare, interesting) class, written +1 inside the
    model; the first other label seen becomes the negative class, -1. A third label, or ``None``,
    raises :class:`UnknownLabel` naming it, and the model is left exactly as it was. Until a
    negative label has been seen, ``predict_proba_one`` keys the negative probability with
    ``not positive`` (``False`` for the default ``positive=True``), so the output always has two
    keys; the negative key becomes the real label as soon as one is learned.

    Samples. Feature dicts go through :class:`~imbalance_stream.base.FeatureSpace`: a bad value
    raises a ``ValueError`` naming the feature and nothing changes. An empty dict carries nothing to
    learn from, so ``learn_one({}, y)`` is a documented no-op (the label is still validated); for
    a model with an intercept it is not empty, because the constant feature is present.

    Limits. Values beyond 1e15 in magnitude (``FeatureSpace``'s ``MAX_ABS_VALUE``) are refused
    like NaN. A sample that would grow the feature space past ``_max_features`` columns (a class
    attribute: 1,000,000, or 4,096 for models that keep a dense matrix over the features) raises
    :class:`~imbalance_stream.base.FeatureSpaceFull` and commits nothing.

    Transactions. ``learn_one`` applies a sample whole or not at all: if the update raises (a
    ``MemoryError``, say) or leaves a non-finite number in the state (an overflow),
    the state and the feature space are restored exactly (pickle-equal) and the error is raised,
    :class:`~imbalance_stream.base.NumericalError` for the latter.

    Subclass contract. ``_grow(n_features)`` extends the state to ``n_features`` columns with the
    prior; ``_learn(indices, values, sign)`` updates with ``sign`` in {+1, -1};
    ``_decision(indices, values)`` returns the real-valued score (larger means more positive);
    ``_proba(indices, values)`` returns P(positive). Each receives validated float64/int64 arrays.
    """

    #: Most columns the feature space may grow to (see "Limits" above).
    _max_features = MAX_FEATURES

    def __init__(self, positive=True, intercept: bool = False):
        check_bool("intercept", intercept)
        self.positive = check_positive(positive)
        self.intercept = intercept
        self._negative = None
        self._features = FeatureSpace(intercept=intercept, max_features=self._max_features)
        self._state_size = 0  # columns the subclass's state covers (``_grow`` brings it up)

    # ---- labels -------------------------------------------------------------------------------

    @property
    def _multiclass(self):
        return False

    def _sign(self, y) -> float:
        """Map ``y`` to +1/-1 without changing anything, or raise :class:`UnknownLabel`."""
        if type(y) not in PLAIN_LABELS:  # these are always class labels: nothing to check
            check_label(y)
        if y == self.positive:
            return 1.0
        if self._negative is None or y == self._negative:
            return -1.0
        raise third_label(type(self).__name__, y, self.positive, self._negative)

    def _known_sign(self, y) -> float:
        """+1/-1 for a label of the two already known (of a type that is always a class label),
        0 for any other: a label :meth:`_sign` decides, maybe adopting it as the negative."""
        if type(y) in PLAIN_LABELS:
            if y == self.positive:
                return 1.0
            if self._negative is not None and y == self._negative:
                return -1.0
        return 0.0

    def check_label_one(self, y) -> None:
        """Raise :class:`UnknownLabel` if ``learn_one`` would refuse ``y``; changes nothing. (For a
        wrapper that may skip ``learn_one`` for a sample, e.g. a zero importance weight, and must
        still refuse what the classifier would.)"""
        self._sign(y)

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
        indices, values, new = self._features.encode(x, grow=True)
        if not len(indices):
            return  # an empty sample: nothing to learn (see the class docstring)
        self._apply(indices, self._learn_new, y, indices, values, sign, new)

    def _learn_new(self, y, indices, values, sign, new) -> None:
        """The update of ``learn_one`` on a validated sample (run whole or not at all)."""
        if sign < 0 and self._negative is None:
            self._negative = y
        features = self._features
        n_columns = features.commit(new) if new else len(features.names)
        if n_columns > self._state_size:
            # also covers the intercept column, which exists before any feature is learned
            self._grow(n_columns)
            self._state_size = n_columns
        self._learn(indices, values, sign)

    def _encode_known(self, x: dict) -> tuple[np.ndarray, np.ndarray]:
        """Arrays of ``x`` over the columns the state covers; unknown names are ignored."""
        indices, values, _ = self._features.encode(x, grow=False)
        if not self._state_size:  # nothing learned yet: only the intercept column can be there
            return indices[:0], values[:0]
        return indices, values

    def decision_one(self, x: dict) -> float:
        """Real-valued score of ``x``; larger means more likely positive."""
        return float(self._decision(*self._encode_known(x)))

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        # _encode_known written out: this runs once per sample
        indices, values, _ = self._features.encode(x, grow=False)
        if not self._state_size:
            indices, values = indices[:0], values[:0]
        p = float(self._proba(indices, values))
        positive, negative = self.positive, self._negative
        return {positive: p, (not positive) if negative is None else negative: 1.0 - p}

    def predict_one(self, x: dict, **kwargs):
        """The positive label when the decision is >= 0 (ties go to the rare class)."""
        return self.positive if self.decision_one(x) >= 0.0 else self.negative

    # ---- the array path -----------------------------------------------------------------------

    @property
    def has_array_path(self) -> bool:
        """Whether :meth:`replay_rows` runs a jitted loop (the estimator implements
        ``_replay_kernel``); :func:`~imbalance_stream.evaluate.replay_array` uses it when so."""
        return type(self)._replay_kernel is not BinaryClassifier._replay_kernel

    def replay_rows(self, rows: ArrayRows) -> np.ndarray:
        """Predict, then learn, every row of ``rows`` in order; return the predictions (int8,
        +1 for the positive label, -1 for the negative one).

        The same as ``predict_one`` then ``learn_one`` row by row, bit for bit (predictions and
        the model left, pickle for pickle), in the estimator's own jitted loop. A step
        ``learn_one`` refuses because it would leave a value not finite in the state (an
        overflow, :class:`~imbalance_stream.base.NumericalError`, the model unchanged) is
        skipped the same way, nothing of it kept (its values, its label count, the names it
        brings), and the loop goes on with the next row: the loop above with that error caught.

        The input is checked first, as ``learn_one`` would check each row, and refused before
        anything changes: a value that is NaN, infinite or beyond 1e15 in magnitude raises
        :class:`~imbalance_stream.base.InvalidFeature` naming the feature and the row, ``None``
        or a third label :class:`UnknownLabel`, and names that could grow the feature space past
        its limit :class:`~imbalance_stream.base.FeatureSpaceFull` (the dict path would raise it
        at the row that does, having learned the rows before).
        """
        if not self.has_array_path:
            raise TypeError(f"{type(self).__name__} has no array path")
        rows.check_values()
        is_positive = np.asarray(rows.labels == self.positive, dtype=bool)
        self._check_labels_of_rows(rows.labels, is_positive)
        signs = np.where(is_positive, 1.0, -1.0)
        csr = rows.csr
        if not csr.data.all():  # explicit zeros: absent features, as learn_one drops them
            csr = csr.copy()
            csr.eliminate_zeros()
        provisional, colmap, names, brings = self._provisional_columns(rows, csr)
        indptr, indices, values = self._with_intercept(csr, provisional[csr.indices])
        features = self._features
        committed = len(features)  # the provisional columns from here on are names to commit
        sizes = np.array([committed, self._state_size, 0, 0, 0, -1, 1], dtype=np.int64)
        new_names = np.empty(len(colmap), dtype=np.int64)
        predictions = stream.empty_predictions(len(rows))
        start = 0
        while True:
            stop = self._replay_kernel(
                start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
                predictions,
            )  # fmt: skip
            _commit_run_names(features, names, new_names, sizes)
            self._state_size = int(sizes[_N_STATE])
            first = int(sizes[_FIRST_NEGATIVE])
            if first >= 0 and self._negative is None:  # learn_one adopts it as it learns it
                self._negative = rows.label(first)
            if stop == len(rows):
                break
            # Row ``stop`` needs a larger state: learn_one learns it, growing the state (the
            # names decide where SACOG's spare columns go) and dropping the growth and the
            # names again if it refuses the step.
            sizes[_GROW_TO] = 0
            with contextlib.suppress(NumericalError):
                self.learn_one(rows.row_dict(stop), rows.label(stop))
            for column in indices[indptr[stop] : indptr[stop + 1]].tolist():
                if column >= committed:
                    colmap[column] = features.index.get(names[column], -1)
                    if colmap[column] != column:  # refused, or committed out of turn
                        sizes[_FAITHFUL] = 0
            sizes[_N_NAMES], sizes[_N_STATE] = len(features), self._state_size
            start = stop + 1
        features._last = None
        return predictions

    def _replay_kernel(
        self, start, indptr, indices, values, brings, signs, colmap, new_names, sizes, predictions
    ) -> int:
        """The estimator's array path (optional): its jitted runner (for ACOG,
        :func:`imbalance_stream._numba.stream.replay_acog`; AROW and the first-order baselines,
        ``replay_baseline``; SACOG, ``replay_sacog``) over its own state from row ``start``;
        returns the row it stopped at (see :mod:`imbalance_stream._numba.stream`)."""
        raise NotImplementedError

    def _check_labels_of_rows(self, labels, is_positive) -> None:
        """Check the labels as ``learn_one`` would: ``None`` or a third label raises."""
        negatives = labels[~is_positive]
        # only an object array can hold None; scanning a bool or numeric one would be wasted time
        if negatives.dtype == object and any(label is None for label in negatives.tolist()):
            raise UnknownLabel("label is None; a binary model needs one of two labels")
        if not len(negatives):
            return
        known = negatives[0] if self._negative is None else self._negative
        distinct = negatives if negatives.dtype == object else np.unique(negatives)
        for label in dict.fromkeys(distinct.tolist()):  # distinct, any mix of types
            if label != known:
                raise third_label(type(self).__name__, label, self.positive, known)

    def _provisional_columns(self, rows: ArrayRows, csr):
        """The columns the array runners read the rows over (see
        :mod:`imbalance_stream._numba.stream`): ``(provisional, colmap, names, brings)``, the
        provisional column of each column of ``rows`` (its model column if its name is
        committed, else the one it takes if the names are committed in order of first
        appearance, as the dict path commits them), the model column of each provisional column
        (-1 for a name not committed), the name of each provisional column (None for the
        model's own), and whether each row brings a name (one appears first in it). Raises
        :class:`~imbalance_stream.base.FeatureSpaceFull` if the names not committed could grow
        the feature space past its limit."""
        space = self._features
        n_columns = len(space)
        first = stream.first_positions(csr.indices.astype(np.int64, copy=False), csr.shape[1])
        present = np.flatnonzero(first < stream.NEVER)
        provisional = np.full(csr.shape[1], -1, dtype=np.int64)
        feature_names = rows.feature_names
        if len(space.index) > space.intercept:  # names to look up (the intercept is none)
            index = space.index
            provisional[present] = [index.get(feature_names[j], -1) for j in present.tolist()]
        new = present[provisional[present] < 0]
        if n_columns + len(new) > space.max_features:
            raise FeatureSpaceFull(
                f"the rows bring {len(new):,} new feature names, which could grow the feature "
                f"space from {n_columns:,} to {n_columns + len(new):,} columns, past this "
                f"model's limit of {space.max_features:,}; nothing was learned. Hash or select "
                "features first (e.g. river.preprocessing.FeatureHasher)"
            )
        new = new[np.argsort(first[new], kind="stable")]
        provisional[new] = np.arange(n_columns, n_columns + len(new))
        colmap = np.concatenate(
            [np.arange(n_columns, dtype=np.int64), np.full(len(new), -1, dtype=np.int64)]
        )
        names = [None] * n_columns + [feature_names[j] for j in new.tolist()]
        brings = np.zeros(csr.shape[0], dtype=np.bool_)
        brings[np.searchsorted(csr.indptr, first[new], side="right") - 1] = True
        return provisional, colmap, names, brings

    def _with_intercept(self, csr, indices):
        """CSR arrays ``(indptr, indices, values)`` of ``csr`` over the columns ``indices``,
        with the constant feature (column 0, value 1) appended to every row when the model has
        an intercept, as ``learn_one``'s encoding appends it last."""
        values = csr.data.astype(np.float64, copy=False)
        indptr = csr.indptr.astype(np.int64)
        if not self._features.intercept:
            return indptr, np.ascontiguousarray(indices), np.ascontiguousarray(values)
        n_rows = csr.shape[0]
        new_indptr = indptr + np.arange(n_rows + 1, dtype=np.int64)
        keep = np.ones(new_indptr[-1], dtype=bool)
        keep[new_indptr[1:] - 1] = False
        new_indices = np.zeros(new_indptr[-1], dtype=np.int64)
        new_values = np.ones(new_indptr[-1], dtype=np.float64)
        new_indices[keep] = indices
        new_values[keep] = values
        return new_indptr, new_indices, new_values

    # ---- the steps path ------------------------------------------------------------------------

    @property
    def has_steps_path(self) -> bool:
        """Whether :meth:`run_steps` runs a jitted loop (the estimator implements
        ``_steps_kernel``)."""
        return type(self)._steps_kernel is not BinaryClassifier._steps_kernel

    def run_steps(
        self, rows: np.ndarray, names: Sequence, learn: np.ndarray, labels: Sequence
    ) -> StepsRun:
        """Predict and learn dense rows in any order, as the dict path would, in jitted runs.

        Step ``t`` is ``rows[t]`` as the sample ``dict(zip(names, rows[t]))``: learned with
        ``labels[t]`` (``learn_one``) when ``learn[t]``, else predicted (``predict_proba_one`` and
        ``predict_one``). The model ends exactly as those calls would leave it, bit for bit, and
        the result holds each prediction step's decision and probability. The run stops at the
        first step the dict path would refuse (a value it rejects, a third label, a step that
        would overflow, a feature space that could overflow): ``done`` is then that step, and
        the model is as it was before it, so the caller runs that step through the dict path,
        which raises the error naming the cause, and goes on from the next.
        """
        if not self.has_steps_path:
            raise TypeError(f"{type(self).__name__} has no steps path")
        rows = np.ascontiguousarray(rows, dtype=np.float64)
        learn = np.ascontiguousarray(learn, dtype=np.bool_)
        features = self._features
        colmap = np.array([features.index.get(name, -1) for name in names], dtype=np.int64)
        with np.errstate(invalid="ignore"):
            refused = ~(np.abs(rows) <= MAX_ABS_VALUE).all(axis=1)  # NaN compares False
        limit = int(np.argmax(refused)) if refused.any() else len(learn)
        if len(features) + int((colmap < 0).sum()) > features.max_features:
            limit = 0  # a row may fill the feature space: the dict path decides
        signs, limit, adopted_at, adopted = self._step_signs(rows, learn, labels, limit)
        decisions = np.zeros(limit)
        probas = np.full(limit, 0.5)
        sizes = np.array([len(features), self._state_size, 0, 0, 0], dtype=np.int64)
        new_names = np.empty(len(colmap), dtype=np.int64)
        done, grown_at = 0, -1
        while done < limit:
            step = slice(done, limit)
            done += self._steps_kernel(
                rows[step], learn[step], signs[step], colmap, new_names, sizes,
                decisions[step], probas[step],
            )  # fmt: skip
            if done == limit:
                break
            if sizes[_GROW_TO]:  # the state grows as learn_one grows it; the step runs again
                # the names of the steps run so far are kept whatever this step does
                n_names = _commit_run_names(features, names, new_names, sizes)
                n_state = int(sizes[_N_STATE])
                before, grown_at = self._snapshot(_NO_COLUMNS), done
                self._grow_for(rows[done], names, colmap, sizes)
                continue
            # a step refused, nothing of it kept; had the state grown for it, learn_one's
            # rollback would have dropped the growth and the step's names too
            if grown_at == done:
                self._restore(before)
                features.truncate(n_names)
                sizes[_N_STATE] = n_state
            break
        _commit_run_names(features, names, new_names, sizes)
        features._last = None
        self._state_size = int(sizes[_N_STATE])
        negative_before = self.negative
        if adopted_at < done:
            self._negative = adopted
        return StepsRun(
            done, decisions[:done], probas[:done], negative_before, self.negative, adopted_at
        )

    def _grow_for(self, row, names, colmap, sizes) -> None:
        """Grow the state to ``sizes[GROW_TO]`` columns for the learning step of ``row`` as
        ``learn_one`` grows it, after committing the names the step brings (its nonzero values
        of names not committed yet, in column order, as
        :func:`~imbalance_stream._numba.stream_rows.learned_row` takes them): ``_grow`` may read
        them (SACOG draws its sketch and gives its spare columns in sorted-name order). The
        names the run brought before must be committed already."""
        features = self._features
        n_names = len(features)
        brought = np.flatnonzero((row != 0.0) & (colmap < 0))
        colmap[brought] = np.arange(n_names, n_names + len(brought))
        features.commit([names[j] for j in brought.tolist()])
        sizes[_N_NAMES] = len(features)
        self._grow(int(sizes[_GROW_TO]))
        # learn_one's state size from here on; put back if the step is refused
        sizes[_N_STATE], sizes[_GROW_TO] = sizes[_GROW_TO], 0

    def _step_signs(self, rows, learn, labels, limit):
        """The learning steps' labels as +1 / -1 up to ``limit``, as ``learn_one`` would take
        them one after the other: ``(signs, limit, step, label)``, the limit cut at a label the
        dict path refuses, and where (and which) the first negative label is adopted."""
        signs = np.zeros(len(learn))
        positive, negative = self.positive, self._negative
        adopted_at, adopted = len(learn), None
        steps = np.flatnonzero(learn[:limit])
        if negative is not None:
            # the usual case, at once: every label learned is one of the two already known
            if isinstance(labels, CodedLabels):  # each distinct label checked once
                used, at = labels.distinct(steps)
                learned = [labels.table[code] for code in used.tolist()]
            else:
                learned = [labels[t] for t in steps.tolist()]
                at = slice(None)
            if set(map(type, learned)) <= PLAIN_LABELS and set(learned) <= {positive, negative}:
                is_positive = np.fromiter(
                    map(operator.eq, learned, itertools.repeat(positive)), bool, len(learned)
                )
                signs[steps] = np.where(is_positive[at], 1.0, -1.0)
                return signs, limit, adopted_at, adopted
        non_empty = self.intercept or None
        for t in steps.tolist():
            y = labels[t]
            if type(y) not in PLAIN_LABELS:
                try:
                    check_label(y)
                except UnknownLabel:
                    return signs, t, adopted_at, adopted
            if y == positive:
                signs[t] = 1.0
            elif negative is None or y == negative:
                signs[t] = -1.0
                if negative is None:
                    if non_empty is None:
                        non_empty = (rows != 0.0).any(axis=1)
                    if non_empty is True or non_empty[t]:  # an empty sample is not learned
                        negative, adopted_at, adopted = y, t, y
            else:
                return signs, t, adopted_at, adopted
        return signs, limit, adopted_at, adopted

    def _steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas) -> int:
        """The estimator's steps path (optional): its jitted schedule runner (for ACOG,
        :func:`imbalance_stream._numba.stream.steps_acog`; AROW and the first-order baselines,
        ``steps_baseline``; SACOG, ``steps_sacog``) over its own state; returns the number of
        steps run."""
        raise NotImplementedError

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
