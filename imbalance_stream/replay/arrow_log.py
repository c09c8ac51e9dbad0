"""A CSV event log read in column blocks with pyarrow, checked a column at a time.

:class:`ArrowLog` reads the file (plain or gzip) in blocks of about a megabyte cut at line ends,
parses each with pyarrow's CSV reader and checks it with array operations: features finite
numbers, times and label times of the shapes :func:`~.vector_times.column_micros` vouches for,
labels among the log's, ids and entities not empty, label times not before their event times,
event times in order. A block that passes is a :class:`ColumnBlock`, the same rows, values and
texts the row reader (:class:`~imbalance_stream.replay.events.RowReader`) would have made of it.

A block this reader cannot vouch for wholly (a quote, which may open a field spanning lines; a
NUL byte; a row of the wrong width, which a lone carriage return or an empty line makes; text
that is not UTF-8; any value that the row reader would refuse or read otherwise) ends the
columnar reading: :attr:`ArrowLog.stopped_at` then holds
the rows read before it, and the replay reads the rest of the log row by row, which rejects what
it must, naming the reason. The columnar reader never rejects a row itself.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .events import MICRO, Event, Reject, is_empty, time_in_range
from .sources import line_blocks, parquet_records
from .vector_times import column_micros, format_times, iso_texts

__all__ = ["ArrowLog", "ColumnBlock", "LineBlock", "RecordBlock", "columnar_reader_fits"]

#: Bytes read at a time from a CSV log; a block is cut at its last line end.
BLOCK_BYTES = 1 << 20
#: Rows read at a time from a Parquet log (about a CSV block's of a dozen numeric columns).
BLOCK_ROWS = 8192


def columnar_reader_fits(spec) -> bool:
    """Whether the log (a :class:`~imbalance_stream.replay.config.LogSpec`) is one this reader
    can read: one CSV or Parquet file, features read as numbers, pyarrow installed."""
    if spec.format not in ("csv", "parquet") or len(spec.paths) != 1 or spec.types:
        return False
    if spec.out_of_order != "error":
        return False
    if spec.format == "csv" and spec.delimiter in ('"', "\n", "\r"):
        return False
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


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


def _some_empty(texts) -> bool:
    """Whether an id or entity column holds a value the row reader finds empty (white space
    only, in Python's sense): checked in Python for the values that do not open with a visible
    ASCII character, which are few."""
    import pyarrow.compute as pc

    suspects = pc.invert(pc.match_substring_regex(texts, "^[!-~]"))
    if not pc.any(suspects).as_py():
        return False
    return any(is_empty(value) for value in texts.filter(suspects).to_pylist())


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


def _texts(column, may_be_missing: bool):
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
        texts = pa.array(iso_texts(micros, zone), pa.string())
        if column.null_count:
            texts = pc.if_else(column.is_valid(), texts, pa.scalar(None, pa.string()))
    else:
        return None
    return texts.fill_null("") if column.null_count else texts


class ArrowLog:
    """The log's blocks (see the module's docstring); iterate once. ``lenient``: a block without
    a quote that this reader does not vouch for is yielded as a :class:`LineBlock` and the reading
    goes on; only a block with a quote (or a header it does not read) ends it. ``start``: the
    rows to skip, skipped a block at a time while no quote is met (else the reading ends at
    once, :attr:`stopped_at` then ``start``)."""

    def __init__(self, spec, lenient: bool = False, start: int = 0):
        self.spec = spec
        self.lenient = lenient
        self.start = start  # rows to skip (a resumed replay's)
        self.header: list = []
        self.reader = spec.reader
        self.names: tuple = ()
        self.labels: list = []  # the log's labels, in the order first met
        self.stopped_at: int | None = None  # rows read before a block this reader gave up
        self._codes: dict = {}  # label text -> code (-1: no label)

    def __iter__(self):
        import gzip

        if self.spec.format == "parquet":
            yield from self._parquet_blocks()
            return
        path = self.spec.paths[0]
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rb") as handle:
                yield from self._blocks(handle)
        except (EOFError, OSError):  # a damaged file: the row reader says where
            if self.stopped_at is None:
                self.stopped_at = self._read
            return

    def _blocks(self, handle):
        self._read = 0
        line = handle.readline()
        if not line.endswith(b"\n") or not line.isascii():  # (a byte-order mark is not ASCII)
            self.stopped_at = 0
            return
        line = line[:-2] if line.endswith(b"\r\n") else line[:-1]
        if not line or not line.decode("ascii").replace("\t", " ").isprintable() or b'"' in line:
            self.stopped_at = 0
            return
        self._take_header(line.decode("ascii").split(self.spec.delimiter))
        for data in line_blocks(handle, BLOCK_BYTES):
            if self._read < self.start:
                data = self._skip(data)
                if data is None:
                    self.stopped_at = self.start
                    return
                if not data:
                    continue
            block: ColumnBlock | LineBlock | None = self._block(data)
            if block is None:
                if not (self.lenient and b'"' not in data):
                    self.stopped_at = self._read
                    return
                block = LineBlock(self._read + 1, data)
                self._read += data.count(b"\n") + (not data.endswith(b"\n"))
            else:
                self._read += len(block)
            yield block

    def _take_header(self, header: list) -> None:
        """The log's columns, and the feature names they give; refused (a ``ReplayError``) as the
        row reader refuses a header that lacks a column the scenario names."""
        self.spec.check_columns(header, self.spec.paths[0])
        reader = self.reader
        names = (
            reader.include
            if reader.include is not None
            else [c for c in header if c not in reader.reserved]
        )
        self.names = tuple(names)
        self.header = header

    def _parquet_blocks(self):
        """A Parquet log's record batches as blocks: a batch whose columns this reader vouches
        for as a :class:`ColumnBlock`; another, when ``lenient``, as a :class:`RecordBlock` (its
        records, for the row reader), else the reading ends there."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        self._read = 0
        path = self.spec.paths[0]
        try:
            handle = pq.ParquetFile(path)
        except (pa.ArrowException, OSError):  # the row reader says why, in one line
            self.stopped_at = 0
            return
        with handle:
            header = handle.schema_arrow.names
            if len(set(header)) != len(header):  # a record keeps one of the namesakes
                self.stopped_at = 0
                return
            self._take_header(header)
            batches = handle.iter_batches(batch_size=BLOCK_ROWS)
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError):  # a damaged file: the row reader says where
                    self.stopped_at = self._read
                    return
                if batch is None:
                    return
                if self._read + batch.num_rows <= self.start:  # a resumed replay's rows
                    self._read += batch.num_rows
                    continue
                if self._read < self.start:
                    batch = batch.slice(self.start - self._read)
                    self._read = self.start
                block: ColumnBlock | RecordBlock | None = None
                table = self._parquet_columns(batch)
                if table is not None:
                    block = self._checked(table, batch.num_rows)
                if block is None:
                    if not self.lenient:
                        self.stopped_at = self._read
                        return
                    block = RecordBlock(self._read + 1, parquet_records(batch))
                self._read += batch.num_rows
                yield block

    def _parquet_columns(self, batch):
        """A Parquet batch as the CSV reader's tables are: the features as numbers, the texts the
        row reader writes of the times, ids, entities and label times (:func:`_texts`), the
        labels as they are; or None where this reader does not vouch for a column."""
        import pyarrow as pa
        import pyarrow.compute as pc

        reader = self.reader
        columns: dict = {}
        for name in self.names:
            column = batch.column(name)
            kind = column.type
            numeric = pa.types.is_floating(kind) or pa.types.is_integer(kind)
            if not (numeric or pa.types.is_boolean(kind)) or column.null_count:
                return None  # text, a missing value, ...: the row reader reads it
            columns[name] = column
        for name in (reader.time, reader.id, reader.entity, reader.label_time):
            if name is not None:
                texts = _texts(batch.column(name), may_be_missing=name == reader.label_time)
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

    def _skip(self, data: bytes) -> bytes | None:
        """What is left of ``data`` once the rows before :attr:`start` are skipped, or None when a
        quote makes its lines other than its rows."""
        if b'"' in data:
            return None
        lines = data.count(b"\n") + (not data.endswith(b"\n"))
        wanted = self.start - self._read
        if lines <= wanted:
            self._read += lines
            return b""
        at = -1
        for _ in range(wanted):
            at = data.index(b"\n", at + 1)
        self._read += wanted
        return data[at + 1 :]

    def _block(self, data: bytes) -> ColumnBlock | None:
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        if b'"' in data or b"\0" in data:
            return None
        reader, header = self.reader, self.header
        strings = [reader.time, reader.label, reader.id, reader.entity, reader.label_time]
        types = {name: pa.float64() for name in self.names}
        types.update({name: pa.string() for name in strings if name is not None})
        try:
            table = pa_csv.read_csv(
                pa.py_buffer(data),
                read_options=pa_csv.ReadOptions(
                    column_names=header, use_threads=False, block_size=len(data) + 1
                ),
                parse_options=pa_csv.ParseOptions(
                    delimiter=self.spec.delimiter,
                    quote_char=False,
                    escape_char=False,
                    newlines_in_values=False,
                    ignore_empty_lines=False,
                ),
                convert_options=pa_csv.ConvertOptions(
                    column_types=types,
                    include_columns=list(types),
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        return self._checked(table, table.num_rows)

    def _checked(self, table, n) -> ColumnBlock | None:
        import pyarrow as pa

        reader = self.reader
        columns = [table.column(name) for name in self.names]
        if any(column.null_count for column in columns):
            return None
        x = np.empty((n, len(columns)))
        for k, column in enumerate(columns):
            x[:, k] = column.to_numpy()
        if not np.isfinite(x).all():
            return None
        time_column = table.column(reader.time).combine_chunks()
        times = column_micros(time_column)
        if times is None or (n and np.any(np.diff(times) < 0)):
            return None
        codes = self._label_codes(table.column(reader.label).combine_chunks())
        if codes is None:
            return None
        texts: dict = {}
        for name in (reader.id, reader.entity):
            if name is not None:
                texts[name] = table.column(name).combine_chunks()
                if _some_empty(texts[name]):
                    return None
        arrivals = self._arrivals(table, codes, times, time_column)
        if arrivals is None:
            return None
        labelled, label_times, label_time_texts = arrivals
        first = self._read + 1
        rows = np.arange(first, first + n, dtype=np.int64)
        return ColumnBlock(
            rows=rows,
            ids=texts[reader.id] if reader.id is not None else pa.array(rows).cast(pa.string()),
            time_texts=time_column,
            entities=texts.get(reader.entity),
            times=times,
            codes=codes,
            labelled=labelled,
            label_times=label_times,
            label_time_texts=label_time_texts,
            x=x,
        )

    def _arrivals(self, table, codes, times, time_column) -> tuple | None:
        """``(labelled, label times, label time texts)`` of a block: from the label-time column,
        or the event times plus ``label_delay``; None for a value the row reader would refuse."""
        import pyarrow as pa
        import pyarrow.compute as pc

        reader = self.reader
        label_times = np.zeros(len(codes), dtype=np.int64)
        if reader.label_time is None:  # a fixed delay (none: the label comes with its event)
            labelled = codes >= 0
            where = np.flatnonzero(labelled)
            delay = reader.label_delay or 0
            if abs(delay) > 2**62 or (len(times) and np.abs(times).max() > 2**62):
                return None  # beyond what int64 sums hold: the row reader decides
            delayed = times[where] + delay
            iso = bool(pc.any(pc.match_substring(time_column, ":")).as_py())
            if len(where) and not (
                time_in_range(int(delayed.min()), iso) and time_in_range(int(delayed.max()), iso)
            ):
                return None
            label_times[where] = delayed
            texts = np.full(len(codes), "", dtype=object)
            texts[where] = format_times(delayed, iso)
            return labelled, label_times, pa.array(texts.tolist(), type=pa.string())
        label_time_column = table.column(reader.label_time).combine_chunks()
        # (only spaces and tabs count as empty here; a value the row reader finds empty for
        # other white space does not parse as a time either, and the block is left to it)
        given = pc.not_equal(pc.utf8_length(pc.utf8_trim(label_time_column, " \t")), 0)
        labelled = (codes >= 0) & np.asarray(given.to_numpy(zero_copy_only=False), dtype=bool)
        where = np.flatnonzero(labelled)
        parsed = column_micros(label_time_column.take(where))
        if parsed is None or np.any(parsed < times[where]):
            return None
        label_times[where] = parsed
        return labelled, label_times, pc.if_else(pa.array(labelled), label_time_column, "")

    def _label_codes(self, column) -> np.ndarray | None:
        """Each row's label code (-1: no label), or None for a label the log does not hold."""
        try:
            encoded = column.dictionary_encode()
        except Exception:  # a type pyarrow does not encode: the row reader reads it
            return None
        mapping = []
        for value in encoded.dictionary.to_pylist():
            code = self._codes.get(value)
            if code is None:
                if is_empty(value):
                    code = -1
                else:
                    try:
                        label = self.reader.label_of(value)
                    except Reject:  # the row reader rejects it, naming it
                        return None
                    if label not in self.labels:
                        self.labels.append(label)
                    code = self.labels.index(label)
                self._codes[value] = code
            mapping.append(code)
        mapping.append(-1)  # a missing label (a Parquet null): none
        indices = encoded.indices.fill_null(len(mapping) - 1).to_numpy(zero_copy_only=False)
        return np.asarray(mapping, dtype=np.int64)[indices]
