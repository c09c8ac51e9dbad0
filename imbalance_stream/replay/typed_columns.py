"""Typed columns (a Parquet record batch's, or a JSON-lines or SQL log's values made arrays) read
as the CSV reader reads its texts: the features as numbers, and the times, ids, entities and
label times as the texts the row reader writes of their values
(:func:`~imbalance_stream.replay.events.text`), so that the columnar reader
(:class:`~.arrow_log.ArrowLog`) checks every format's blocks by one set of rules. Each function
gives None for a column it does not vouch for; the row reader then reads the block."""

from __future__ import annotations

import numpy as np

from .events import MICRO, time_in_range
from .vector_times import iso_texts

__all__ = ["python_array", "texts_of", "typed_table"]


def typed_table(batch, reader, names):
    """A batch of typed columns (a Parquet record batch, or records made arrays) as the CSV
    reader's tables are: the features as numbers, the texts the row reader writes of the
    times, ids, entities and label times (:func:`texts_of`), the labels as they are; or None
    where this reader does not vouch for a column."""
    import pyarrow as pa
    import pyarrow.compute as pc

    columns: dict = {}
    for name in names:
        column = batch.column(name)
        kind = column.type
        numeric = pa.types.is_floating(kind) or pa.types.is_integer(kind)
        if not (numeric or pa.types.is_boolean(kind)) or column.null_count:
            return None  # text, a missing value, ...: the row reader reads it
        columns[name] = column
    for name in (reader.time, reader.id, reader.entity, reader.label_time):
        if name is not None:
            texts = texts_of(batch.column(name), may_be_missing=name == reader.label_time)
            if texts is None:
                return None
            columns[name] = texts
    label = batch.column(reader.label)
    if pa.types.is_dictionary(label.type):  # its values in the order first met
        label = label.cast(label.type.value_type)
    if pa.types.is_floating(label.type) and pc.any(pc.is_nan(label)).as_py():
        return None  # NaN is not equal to itself: the row reader reads it
    columns[reader.label] = label
    return pa.table(columns)


def texts_of(column, may_be_missing: bool):
    """The texts the row reader writes of a Parquet column's values (``events.text``): strings
    as they are, integers in decimal, floats by ``repr``, times (``timestamp``, naive or in UTC)
    in ISO 8601; a missing value (allowed only where ``may_be_missing``) as an empty text. None
    for a column of another type, a missing value elsewhere, or a carriage return (which the
    row reader refuses in a copied value)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_dictionary(column.type):  # (pandas' categories)
        column = column.cast(column.type.value_type)
    kind = column.type
    if column.null_count and not may_be_missing:
        return None
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        texts = column.cast(pa.string())
        if pc.any(pc.match_substring(texts, "\r")).as_py():
            return None
    elif pa.types.is_integer(kind):
        texts = column.cast(pa.string())
    elif pa.types.is_floating(kind):
        texts = pa.array([None if v is None else repr(v) for v in column.to_pylist()], pa.string())
    elif pa.types.is_timestamp(kind) and kind.tz in (None, "UTC", "+00:00"):
        micros = column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
        scale = {"s": MICRO, "ms": 1000, "us": 1, "ns": 1}[kind.unit]
        if kind.unit == "ns":
            if np.any(micros % 1000):  # not to the microsecond: refused by the row reader
                return None
            micros = micros // 1000
        if len(micros) and np.abs(micros).max() > 2**62 // scale:
            return None
        micros = micros * scale
        if len(micros) and not (
            time_in_range(int(micros.min()), True) and time_in_range(int(micros.max()), True)
        ):
            return None
        zone = "" if kind.tz is None else "+00:00"
        texts = iso_texts(micros, zone)
        if column.null_count:
            texts = pc.if_else(column.is_valid(), texts, pa.scalar(None, pa.string()))
    else:
        return None
    return texts.fill_null("") if column.null_count else texts


def python_array(values: list, feature: bool):
    """The row reader's values of one column of a block (Python values of JSON or of a database
    row) as a pyarrow array, where this reader vouches for them: a feature's numbers (``int``,
    ``float`` and a database's ``Decimal``, converted as ``float()`` converts them), or values
    of one plain type (``str``, ``int``, ``float``, ``bool``, or naive ``datetime``) with
    missing ones (None) for :func:`texts_of` to refuse where a value is needed. None for any
    other column."""
    import datetime as dt
    import decimal

    import pyarrow as pa

    kinds = set(map(type, values))
    if feature:
        if not kinds <= {int, float, decimal.Decimal}:
            return None
        try:
            return pa.array(np.array(values, dtype=np.float64))
        except OverflowError:  # an integer beyond the float range: the row reader refuses it
            return None
    kinds.discard(type(None))
    if len(kinds) > 1:
        return None
    kind = kinds.pop() if kinds else str
    if kind is dt.datetime:
        if any(value is not None and value.tzinfo is not None for value in values):
            return None
        return pa.array(values, type=pa.timestamp("us"))
    types = {str: pa.string(), int: pa.int64(), float: pa.float64(), bool: pa.bool_()}
    if kind not in types:
        return None
    try:
        return pa.array(values, type=types[kind])
    except (pa.ArrowInvalid, OverflowError):  # an integer beyond 64 bits
        return None
