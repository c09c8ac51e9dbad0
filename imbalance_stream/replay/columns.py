"""Reading a batch of a log's rows column by column.

Each column is converted at once where its values are all text or all plain numbers: ``float``
mapped over it, the finiteness and range checks on arrays, a label looked up once per distinct
text. A row that any of these quick rules cannot vouch for (an empty value, a value that does not
convert, a time out of range, a record with other columns) is read alone by
:meth:`RowReader.event`, so a batch gives the events and the reasons of its rows read one by one
(``tests/test_replay_events.py`` holds it on hostile batches).
"""

from __future__ import annotations

import numpy as np

from .events import (
    CONVERTERS,
    MICRO,
    MISSING,
    Event,
    Reject,
    format_time,
    is_empty,
    is_iso,
    iso_time,
    parse_time,
    text,
    time_in_range,
    to_float,
)

__all__ = ["read_batch"]


def read_batch(reader, batch: list) -> list:
    """The events of ``batch`` (``(row, record)`` pairs) as ``reader`` (a
    :class:`~imbalance_stream.replay.events.RowReader`) reads them: for each row its
    :class:`Event`, or the :class:`Reject` that ``reader.event`` raises for it."""

    out: list = [None] * len(batch)
    picked = _uniform(reader, batch)
    if picked:
        rows = [batch[i][0] for i in picked]
        records = [batch[i][1] for i in picked]
        bad = np.zeros(len(picked), dtype=bool)
        built = _columns(reader, rows, records, bad)
        for k, i in enumerate(picked):
            if not bad[k]:
                out[i] = built[k]
    for i, (row, record) in enumerate(batch):
        if out[i] is None:
            try:
                out[i] = reader.event(row, record)
            except Reject as error:
                out[i] = error
    return out


def _uniform(reader, batch) -> list[int]:
    """The rows that are records with the columns of the first, in the same order (the
    order of a row's features is the order of its columns)."""
    picked = [i for i, (_, record) in enumerate(batch) if type(record) is dict]
    if not picked:
        return []
    first = tuple(batch[picked[0]][1])
    if None in first:
        return []
    if reader.format == "csv":  # every record of a CSV file has the header's columns
        return picked
    return [i for i in picked if tuple(batch[i][1]) == first]


def _columns(reader, rows, records, bad):
    """The events of uniform records, column by column; ``bad`` marks the rows to read
    alone (their entries in the result are then meaningless)."""
    first = records[0]
    for column in (reader.time, reader.label, reader.id, reader.entity, reader.label_time):
        if column is not None and column not in first:
            bad[:] = True  # every row lacks it: each is rejected, naming it
            return [None] * len(rows)
    raw_times = [record[reader.time] for record in records]
    _mark_returns(raw_times, bad)
    times, iso = _times(raw_times, bad)
    time_texts = raw_times if _all_text(raw_times) else [text(v) for v in raw_times]
    entities = _texts(reader, reader.entity, records, bad)
    ids = (
        _texts(reader, reader.id, records, bad) if reader.id is not None else [str(r) for r in rows]
    )
    labels, label_times, label_texts = _labels(reader, records, raw_times, times, iso, bad)
    xs = _features(reader, records, bad)
    return [
        Event(row, id_, time, time_text, entity, x, label, label_time, label_text)
        for row, id_, time, time_text, entity, x, label, label_time, label_text in zip(
            rows, ids, times, time_texts, entities, xs, labels, label_times, label_texts
        )
    ]


def _texts(reader, column, records, bad):
    if column is None:
        return [None] * len(records)
    values = [record[column] for record in records]
    _mark_empty(values, bad)
    _mark_returns(values, bad)
    return values if _all_text(values) else [text(v) for v in values]


def _labels(reader, records, raw_times, times, iso, bad):
    """``(labels, label times, label time texts)``: None, None, "" for a row without a
    label."""
    n = len(records)
    labels: list = [None] * n
    label_times: list = [None] * n
    texts = [""] * n
    known: dict = {}  # text -> label: a log has few distinct labels
    labelled = []
    for k, raw in enumerate([record[reader.label] for record in records]):
        if type(raw) is str:
            label = known.get(raw, MISSING)
            if label is not MISSING:
                labels[k] = label
                labelled.append(k)
                continue
        if is_empty(raw):
            continue
        try:
            label = reader.label_of(raw)
        except Reject:
            bad[k] = True
            continue
        if type(raw) is str:
            known[raw] = label
        labels[k] = label
        labelled.append(k)
    if reader.label_time is not None:
        raw = [records[k][reader.label_time] for k in labelled]
        returns = np.zeros(len(raw), dtype=bool)
        _mark_returns(raw, returns)
        for j in np.flatnonzero(returns).tolist():
            bad[labelled[j]] = True
        given = [j for j, value in enumerate(raw) if not is_empty(value)]
        values = [raw[j] for j in given]
        flags = np.zeros(len(values), dtype=bool)
        parsed, _ = _times(values, flags)
        for j, value, when, flag in zip(given, values, parsed, flags.tolist()):
            k = labelled[j]
            if flag or when < times[k]:
                bad[k] = True
                continue
            label_times[k] = when
            texts[k] = text(value)
    else:
        delay = reader.label_delay or 0
        for k in labelled:
            when = times[k] + delay
            if not time_in_range(when, iso[k]):
                bad[k] = True
                continue
            label_times[k] = when
            texts[k] = format_time(when, raw_times[k])
    return labels, label_times, texts


def _features(reader, records, bad):
    first = records[0]
    names = (
        reader.include
        if reader.include is not None
        else [c for c in first if c not in reader.reserved]
    )
    if any(name not in first for name in names):
        bad[:] = True
        return [None] * len(records)
    columns = []
    for name in names:
        values = [record[name] for record in records]
        kind = reader.types.get(name)
        if kind is None:
            columns.append(_floats(name, values, bad))
        else:
            columns.append(_converted(name, kind, values, bad))
    if not names:
        return [{} for _ in records]
    return [dict(zip(names, row)) for row in zip(*columns)]


def _mark_empty(values, bad) -> None:
    """Marks the empty values (None, or text of white space only), as :func:`is_empty`."""
    if _all_text(values):
        for k, value in enumerate(values):
            if not value or value.isspace():
                bad[k] = True
        return
    for k, value in enumerate(values):
        if is_empty(value):
            bad[k] = True


def _mark_returns(values, bad) -> None:
    """Marks the text values with a carriage return
    (:func:`~imbalance_stream.replay.events.check_copied` refuses them)."""
    if _all_text(values) and "\r" not in "".join(values):
        return
    for k, value in enumerate(values):
        if type(value) is str and "\r" in value:
            bad[k] = True


def _all_text(values) -> bool:
    return all(type(v) is str for v in values)


def _plain(values) -> bool:
    """Whether ``float`` reads every value as :func:`to_float` does: all text, or all plain
    numbers (not bools, numpy scalars or decimals, which take the row's own path)."""
    kinds = set(map(type, values))
    return kinds <= {str} or kinds <= {float, int}


def _floats(name, values, bad) -> list:
    """The column as floats; marks the values that do not convert or are not finite."""
    if _plain(values):
        try:
            numbers_ = list(map(float, values))
        except (ValueError, OverflowError):
            pass
        else:
            finite = np.isfinite(np.array(numbers_, dtype=np.float64))
            if not finite.all():
                bad |= ~finite
            return numbers_
    out: list = []
    for k, value in enumerate(values):
        if is_empty(value):
            bad[k] = True
            out.append(0.0)
            continue
        try:
            out.append(to_float(name, value))
        except Reject:
            bad[k] = True
            out.append(0.0)
    return out


def _converted(name, kind, values, bad) -> list:
    convert = CONVERTERS[kind]
    out: list = []
    for k, value in enumerate(values):
        if is_empty(value):
            bad[k] = True
            out.append(None)
            continue
        try:
            out.append(convert(name, value))
        except Reject:
            bad[k] = True
            out.append(None)
    return out


def _times(values, bad) -> tuple[list[int], list[bool]]:
    """Times as integer microseconds, and whether each was written as a date; marks the values
    :func:`parse_time` refuses."""
    n = len(values)
    if n and _plain(values):
        try:
            seconds = np.array(list(map(float, values)), dtype=np.float64)
        except (ValueError, OverflowError):
            pass
        else:
            with np.errstate(invalid="ignore", over="ignore"):
                micros = seconds * MICRO
                ok = np.isfinite(micros) & (micros < 2.0**63) & (micros > -(2.0**63))
            bad |= ~ok
            whole = np.rint(np.where(ok, micros, 0.0)).astype(np.int64)
            return whole.tolist(), [False] * n
    times, iso = [0] * n, [False] * n
    for k, value in enumerate(values):
        if is_empty(value):
            bad[k] = True
            continue
        try:
            if type(value) is str and ":" in value:
                # a time of day, never a number (float takes no colon): straight to ISO 8601,
                # as parse_time would go after float failed
                times[k] = iso_time(value.strip(), value)
                iso[k] = True
            else:
                times[k] = parse_time(value)
                iso[k] = is_iso(value)
        except Reject:
            bad[k] = True
    return times, iso
