"""The metric states of one replayed model, updated as its labels arrive.

River's progressive validation updates a metric when the label of a prediction arrives; a
:class:`MetricTrack` does that for one model slot, cumulatively and, with a window, per window of
event time. It is a plain picklable object, so a cell's checkpoint holds it and a resumed cell goes
on from the exact same floats. Its curve rows carry the key ``(label time, seq, model index)`` of
the label that produced them, the order in which :mod:`~imbalance_stream.replay.merge` writes
``curves.csv`` whichever process computed them.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator, Sequence

import numpy as np
from river.metrics.base import BinaryMetric, ClassificationMetric
from river.metrics.confusion import ConfusionMatrix

from imbalance_stream.base.labels import CodedLabels

__all__ = ["CurveRow", "DueLabels", "MetricTrack", "fold_labels", "foldable", "update_metrics"]

#: ``(label time, seq, model index, labels so far, metric name, value text)``.
CurveRow = tuple[int, int, int, int, str, str]


def update_metrics(metrics: dict, y, taken) -> None:
    """Update every metric of ``metrics`` with the label ``y`` of a prediction ``taken``."""
    for metric in metrics.values():
        if isinstance(taken, tuple):  # a classifier: (label, probabilities)
            metric.update(y, taken[0] if metric.requires_labels else taken[1])
        else:  # an anomaly detector's score
            metric.update(y, taken)


def foldable(metric) -> bool:
    """Whether ``metric`` takes a label as River's confusion-matrix metrics do: its update adds
    the label's weight to one cell of its confusion matrix and nothing else, so ``k`` equal
    ``(label, prediction)`` pairs in a row can be added at once (:func:`_add_pairs`)."""
    for klass in type(metric).__mro__:
        if "update" in klass.__dict__:
            break
    return (
        klass in (ClassificationMetric, BinaryMetric)
        and metric.requires_labels
        and type(getattr(metric, "cm", None)) is ConfusionMatrix
    )


def _add_pairs(metrics: dict, counts: dict) -> None:
    """Add ``{(label, prediction): count}`` (in the order the pairs first came) to foldable
    metrics: the state ``count`` updates of weight 1 would leave (sums of whole numbers are
    exact in floats, and the matrix's rows and columns are created in the same order)."""
    for metric in metrics.values():
        for (y, prediction), count in counts.items():
            metric.update(y, prediction, w=float(count))
            metric.cm.n_samples += count - 1


def _pair_counts(ys, predictions) -> dict:
    """``{(label, prediction): count}`` in the order the pairs first come (pairs that are equal
    counted as one, the first one's key kept, as a ``Counter`` counts them); labels given as
    :class:`~imbalance_stream.base.labels.CodedLabels` are counted as pairs of codes."""
    if not (isinstance(ys, CodedLabels) and isinstance(predictions, CodedLabels)):
        return collections.Counter(zip(ys, predictions))
    width = len(predictions.table)
    pairs = ys.codes.astype(np.int64) * width + predictions.codes
    found, first, n = np.unique(pairs, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    counts: dict = {}
    for pair, count in zip(found[order].tolist(), n[order].tolist()):
        key = (ys.table[pair // width], predictions.table[pair % width])
        counts[key] = counts.get(key, 0) + count
    return counts


def metric_values(metrics: dict) -> Iterator[tuple[str, str]]:
    """``(name, value text)`` of every metric, the value as ``repr`` of a float (exact)."""
    for name, metric in metrics.items():
        yield name, repr(float(metric.get()))


class MetricTrack:
    """The metrics of model ``midx``: cumulative, and per window of event time if ``window``.

    ``make_metrics`` builds a fresh ``{name: metric}`` (the scenario's); it is passed to
    :meth:`update` rather than kept, so that a pickled track holds metric states only.
    """

    def __init__(self, midx: int, make_metrics: Callable[[], dict], step: int, window: int | None):
        self.midx = midx
        self.step = step
        self.window = window
        self.metrics = make_metrics()
        self.seen = 0
        self.last_label_time: int | None = None
        #: ``{window index: [metrics, labels]}``; a late label can still update an old window.
        self.windows: dict[int, list] = {}

    def update(
        self, make_metrics, label_time: int, seq: int, event_time: int, y, taken
    ) -> list[CurveRow]:
        """The label ``y`` of the prediction ``taken`` arrives; returns the cumulative curve rows
        it completes (every ``step`` labels)."""
        update_metrics(self.metrics, y, taken)
        if self.window is not None:
            index = event_time // self.window
            if index not in self.windows:
                self.windows[index] = [make_metrics(), 0]
            update_metrics(self.windows[index][0], y, taken)
            self.windows[index][1] += 1
        self.seen += 1
        self.last_label_time = label_time
        if self.seen % self.step:
            return []
        return [
            (label_time, seq, self.midx, self.seen, name, value)
            for name, value in metric_values(self.metrics)
        ]

    def update_many(
        self,
        make_metrics,
        label_times: Sequence[int],
        seqs: Sequence[int],
        event_times: Sequence[int],
        ys: Sequence,
        predictions: Sequence | None,
        taken: Callable[[], list],
    ) -> list[tuple[int, CurveRow]]:
        """:meth:`update` for several labels in the order they arrive: ``predictions`` the
        predicted labels (None: not a classifier's), ``taken`` a function giving what
        :meth:`update` takes of each (called only if a metric is not :func:`foldable`).
        Returns the curve rows, each with the index of the label that completed it. Equal pairs
        in a row are added at once when every metric is foldable, which leaves the metrics
        exactly as one update per label would."""
        n = len(ys)
        out: list[tuple[int, CurveRow]] = []
        if predictions is None or not all(foldable(m) for m in self.metrics.values()):
            takes = taken()
            for k in range(n):
                for row in self.update(
                    make_metrics, label_times[k], seqs[k], event_times[k], ys[k], takes[k]
                ):
                    out.append((k, row))
            return out
        if self.window is not None:
            self._fold_windows(make_metrics, event_times, ys, predictions)
        start = 0
        while start < n:
            stop = min(n, start + self.step - self.seen % self.step)
            _add_pairs(self.metrics, _pair_counts(ys[start:stop], predictions[start:stop]))
            self.seen += stop - start
            last = stop - 1
            self.last_label_time = label_times[last]
            if self.seen % self.step == 0:
                out.extend(
                    (last, (label_times[last], seqs[last], self.midx, self.seen, name, value))
                    for name, value in metric_values(self.metrics)
                )
            start = stop
        return out

    def _fold_windows(self, make_metrics, event_times, ys, predictions) -> None:
        assert self.window is not None
        counts = collections.Counter(
            zip([when // self.window for when in event_times], ys, predictions)
        )
        for (index, y, prediction), count in counts.items():
            if index not in self.windows:
                self.windows[index] = [make_metrics(), 0]
            _add_pairs(self.windows[index][0], {(y, prediction): count})
            self.windows[index][1] += count

    def tail(self) -> list[tuple[int, int, str, str]]:
        """The last cumulative rows ``(label time, labels, name, value)``, when the number of
        labels is not a multiple of ``step`` (else they were written already)."""
        if self.seen % self.step == 0 or self.last_label_time is None:
            return []
        return [
            (self.last_label_time, self.seen, name, value)
            for name, value in metric_values(self.metrics)
        ]

    def window_rows(self) -> list[tuple[int, int, str, str]]:
        """``(window start, labels, name, value)`` of every window, in time order."""
        assert self.window is not None or not self.windows
        return [
            (index * (self.window or 0), n, name, value)
            for index, (metrics, n) in sorted(self.windows.items())
            for name, value in metric_values(metrics)
        ]


class DueLabels:
    """Labels that have arrived, held per model slot until :meth:`fold` folds them into their
    :class:`MetricTrack` (with :meth:`MetricTrack.update_many`): the same states and curve rows
    as one :meth:`MetricTrack.update` per label as it arrives, the rows in the order of the
    labels' arrival and, for one label, of the models."""

    def __init__(self, n_models: int):
        self.due: list[list] = [[] for _ in range(n_models)]
        self.arrived = 0

    def add(self, j: int, label_time: int, seq: int, event_time: int, y, taken) -> None:
        self.due[j].append((self.arrived, label_time, seq, event_time, y, taken))
        self.arrived += 1

    def fold(self, tracks: list, makers: list) -> list[CurveRow]:
        due = {}
        for j, held in enumerate(self.due):
            if held:
                arrived, label_times, seqs, times, ys, takes = (list(c) for c in zip(*held))
                classified = all(isinstance(t, tuple) for t in takes)
                predictions = [t[0] for t in takes] if classified else None
                due[j] = (arrived, label_times, seqs, times, ys, predictions, takes.copy)
                held.clear()
        self.arrived = 0
        return fold_labels(tracks, makers, due)


def fold_labels(tracks: list, makers: list, due: dict) -> list[CurveRow]:
    """Fold labels into the tracks of their model slots with :meth:`MetricTrack.update_many`:
    ``due[j]`` is ``(keys, label times, seqs, event times, labels, predictions, taken)`` for
    slot ``j``, each label's key its place in the order of arrival. Returns the curve rows in
    that order and, for one label, in the order of the slots."""
    rows: list = []
    for j, (keys, label_times, seqs, times, ys, predictions, taken) in due.items():
        made = tracks[j].update_many(makers[j], label_times, seqs, times, ys, predictions, taken)
        rows.extend((keys[k], j, row) for k, row in made)
    rows.sort(key=lambda item: (item[0], item[1]))
    return [row for _, _, row in rows]
