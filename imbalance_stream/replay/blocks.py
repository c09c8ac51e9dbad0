"""The blocks the columnar reader (:class:`~.arrow_log.ArrowLog`) yields: the valid rows of a
block column by column (:class:`ColumnBlock`), and the blocks it leaves to the row reader
(:class:`LineBlock`: a CSV block's bytes; :class:`RecordBlock`: the records of a block of another
format)."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .events import Event

__all__ = ["ColumnBlock", "LineBlock", "RecordBlock"]


@dataclasses.dataclass
class ColumnBlock:
    """Valid rows of a log, column by column: ``rows`` (1-based), the texts the outputs copy
    (``ids``, ``time_texts``, ``entities``, ``label_time_texts``: pyarrow string arrays, the
    label time empty where the row's label does not arrive), ``times`` and ``label_times``
    in integer microseconds, ``codes`` (index of the row's label in :attr:`ArrowLog.labels`, -1
    for no label), ``labelled`` (a label and a label time: the row's label arrives) and the
    features ``x`` (rows by :attr:`ArrowLog.names`)."""

    rows: np.ndarray
    ids: Any
    time_texts: Any
    entities: Any
    times: np.ndarray
    codes: np.ndarray
    labelled: np.ndarray
    label_times: np.ndarray
    label_time_texts: Any
    x: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    def take(self, at) -> ColumnBlock:
        """The rows at ``at`` (a slice or an index array)."""
        picked: list = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is None:
                picked.append(None)
            elif isinstance(value, np.ndarray) or isinstance(at, slice):
                picked.append(value[at])
            else:
                picked.append(value.take(np.asarray(at, dtype=np.int64)))
        return ColumnBlock(*picked)

    def events(self, names, labels) -> list[Event]:
        """The rows as the row reader's :class:`~imbalance_stream.replay.events.Event` objects
        (``pos`` their row), features named ``names``, labels from their codes in ``labels``."""
        ids, time_texts = self.ids.to_pylist(), self.time_texts.to_pylist()
        entities = [None] * len(self) if self.entities is None else self.entities.to_pylist()
        label_time_texts = self.label_time_texts.to_pylist()
        label_of = [*labels, None]  # code -1: no label
        out = []
        for row, id_, time, time_text, entity, x, code, labelled, label_time, text_ in zip(
            self.rows.tolist(), ids, self.times.tolist(), time_texts, entities,
            self.x.tolist(), self.codes.tolist(), self.labelled.tolist(),
            self.label_times.tolist(), label_time_texts,
        ):  # fmt: skip
            event = Event(
                row, id_, time, time_text, entity, dict(zip(names, x)), label_of[code],
                label_time if labelled else None, text_,
            )  # fmt: skip
            event.pos = row
            out.append(event)
        return out

    @staticmethod
    def concat(blocks: list) -> ColumnBlock:
        import pyarrow as pa

        values: list = []
        for field in dataclasses.fields(ColumnBlock):
            parts = [getattr(block, field.name) for block in blocks]
            if parts[0] is None:
                values.append(None)
            elif isinstance(parts[0], np.ndarray):
                values.append(np.concatenate(parts))
            else:
                values.append(pa.concat_arrays(parts))
        return ColumnBlock(*values)


@dataclasses.dataclass
class LineBlock:
    """A block this reader does not vouch for, and that holds no quote (so that its lines are its
    records): its first row's number and its bytes, for the row reader
    (:func:`~imbalance_stream.replay.sources.csv_block_records`)."""

    first: int
    data: bytes


@dataclasses.dataclass
class RecordBlock:
    """A batch of a Parquet log this reader does not vouch for: its first row's number and its
    records, for the row reader."""

    first: int
    records: list
