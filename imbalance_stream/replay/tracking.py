"""The metric states of one replayed model, updated as its labels arrive.

River's progressive validation updates a metric when the label of a prediction arrives; a
:class:`MetricTrack` does that for one model slot, cumulatively and, with a window, per window of
event time. It is a plain picklable object, so a cell's checkpoint holds it and a resumed cell goes
on from the exact same floats. Its curve rows carry the key ``(label time, seq, model index)`` of
the label that produced them, the order in which :mod:`~imbalance_stream.replay.merge` writes
``curves.csv`` whichever process computed them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

__all__ = ["CurveRow", "MetricTrack", "update_metrics"]

#: ``(label time, seq, model index, labels so far, metric name, value text)``.
CurveRow = tuple[int, int, int, int, str, str]


def update_metrics(metrics: dict, y, taken) -> None:
    """Update every metric of ``metrics`` with the label ``y`` of a prediction ``taken``."""
    for metric in metrics.values():
        if isinstance(taken, tuple):  # a classifier: (label, probabilities)
            metric.update(y, taken[0] if metric.requires_labels else taken[1])
        else:  # an anomaly detector's score
            metric.update(y, taken)


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
