"""An event log read in column blocks with pyarrow, checked a column at a time.

:class:`ArrowLog` reads a CSV file (plain or gzip) in blocks of about four megabytes cut at line
ends, each parsed by pyarrow's CSV reader; a Parquet file a record batch at a time; a JSON-lines
file or a SQL query's result ``BLOCK_ROWS`` records at a time, the row reader's own records made
columns (:mod:`.typed_columns`). It checks each block with array operations: features finite
numbers, times and label times of the shapes :func:`~.vector_times.column_micros` vouches for,
labels among the log's, ids and entities not empty, label times not before their event times,
event times in order. A block that passes is a :class:`~.blocks.ColumnBlock`, the same rows,
values and texts the row reader (:class:`~imbalance_stream.replay.events.RowReader`) would have
made of it.

A block this reader cannot vouch for wholly (in a CSV file a quote, which may open a field
spanning lines, a NUL byte, a row of the wrong width, which a lone carriage return or an empty
line makes, text that is not UTF-8; in any format a value that the row reader would refuse or
read otherwise) ends the columnar reading: :attr:`ArrowLog.stopped_at` then holds the rows read
before it, and the replay reads the rest of the log row by row, which rejects what it must,
naming the reason. (With ``lenient``, such a block is yielded for the row reader instead and the
reading goes on.) The columnar reader never rejects a row itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .blocks import ColumnBlock, LineBlock, RecordBlock
from .events import Reject, is_empty, time_in_range
from .sources import DamagedLog, file_records, line_blocks, parquet_records
from .typed_columns import python_array, typed_table
from .vector_times import column_micros, format_times, string_buffers

__all__ = ["ArrowLog", "columnar_reader_fits"]

#: Bytes read at a time from a CSV log; a block is cut at its last line end. (4 MiB: each block
#: costs some thirty calls into pyarrow and numba whatever its size; at 1 MiB they were an eighth
#: of the reading.)
BLOCK_BYTES = 4 << 20
#: Rows read at a time from a log of another format (about a 1 MiB CSV block's of a dozen
#: numeric columns: a JSON-lines or SQL block is held as Python records).
BLOCK_ROWS = 8192
#: The formats this reader reads.
_FORMATS = ("csv", "parquet", "jsonl", "sqlite", "duckdb")


def columnar_reader_fits(spec) -> bool:
    """Whether the log (a :class:`~imbalance_stream.replay.config.LogSpec`) is one this reader
    can read: one file (CSV, Parquet, JSON lines, or a SQL database's query), features read as
    numbers, pyarrow installed."""
    if spec.format not in _FORMATS or len(spec.paths) != 1 or spec.types:
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


def _some_empty(texts) -> bool:
    """Whether an id or entity column holds a value the row reader finds empty (white space
    only, in Python's sense): checked in Python for the values that do not open with a visible
    ASCII character, which are few."""
    import pyarrow as pa

    if not pa.types.is_string(texts.type):  # (32-bit offsets below)
        texts = texts.cast(pa.string())
    offsets, data = string_buffers(texts)  # the first byte of each value, read in place
    first = data[np.minimum(offsets[:-1], len(data) - 1)]  # (an empty value's: its length says)
    suspects = (offsets[1:] == offsets[:-1]) | (first < ord("!")) | (first > ord("~"))
    if not suspects.any():
        return False
    return any(is_empty(value) for value in texts.filter(pa.array(suspects)).to_pylist())


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
        # a JSON-lines or SQL log's reading, kept open for rest(): the records still to come,
        # the block read last and its first row, the damage that ended the reading
        self._records: Any = None
        self._chunk: list = []
        self._chunk_first = 1
        self._damage: DamagedLog | None = None

    def __iter__(self):
        import gzip

        if self.spec.format == "parquet":
            yield from self._parquet_blocks()
            return
        if self.spec.format != "csv":
            yield from self._record_blocks()
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
            parsed = self._block(data)
            block: ColumnBlock | LineBlock
            if parsed is None:
                if not (self.lenient and b'"' not in data):
                    self.stopped_at = self._read
                    return
                block = LineBlock(self._read + 1, data)
                self._read += data.count(b"\n") + (not data.endswith(b"\n"))
            else:
                block = parsed
                self._read += len(block)
            yield block

    def _take_header(self, header: list, check: bool = True) -> None:
        """The log's columns, and the feature names they give; refused (a ``ReplayError``) as the
        row reader refuses a header that lacks a column the scenario names (``check``: a file's
        header; the first record of a JSON-lines log is not one, and a query's result is checked
        by the row reader's own reading)."""
        if check:
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
                table = typed_table(batch, self.reader, self.names)
                if table is not None:
                    block = self._checked(table, batch.num_rows)
                if block is None:
                    if not self.lenient:
                        self.stopped_at = self._read
                        return
                    block = RecordBlock(self._read + 1, parquet_records(batch))
                self._read += batch.num_rows
                yield block

    def _record_blocks(self):
        """A JSON-lines or SQL log's records (the row reader's own), ``BLOCK_ROWS`` at a time: a
        block whose records all have the first record's columns, in its order, and whose values
        this reader vouches for (:func:`~.typed_columns.python_array`) as a
        :class:`~.blocks.ColumnBlock`; another, when ``lenient``, as a
        :class:`~.blocks.RecordBlock`, else the reading ends there."""
        self._read = self.start
        pairs = file_records(self.spec, self.spec.paths[0], self.start)
        self._records = (record for _, record in pairs)
        while True:
            chunk = self._chunk = self._next_chunk()
            self._chunk_first = self._read + 1
            if not chunk:
                if self._damage is not None:
                    self.stopped_at = self._read
                return
            if not self.header and type(chunk[0]) is dict:
                self._take_header(list(chunk[0]), check=False)
            block: ColumnBlock | RecordBlock | None = None
            if self._damage is None:  # (a block cut short by damage is the row reader's)
                table = self._record_columns(chunk)
                if table is not None:
                    block = self._checked(table, len(chunk))
            if block is None:
                if not self.lenient or self._damage is not None:
                    self.stopped_at = self._read
                    return
                block = RecordBlock(self._read + 1, chunk)
            self._read += len(chunk)
            yield block

    def _next_chunk(self) -> list:
        """The next ``BLOCK_ROWS`` records, fewer at the end or where the log is damaged (the
        damage kept for :meth:`rest` to raise)."""
        import itertools

        chunk: list = []
        assert self._records is not None
        try:
            chunk.extend(itertools.islice(self._records, BLOCK_ROWS))
        except DamagedLog as error:
            self._damage = error
        return chunk

    def rest(self, position: int):
        """``(row, record)`` of a JSON-lines or SQL log from row ``position + 1`` on (within the
        block read last, or after it), from the records already read and the reading still open:
        a query is not run again, so that rows of equal sort keys cannot come in another order.
        None for a file the row reader reads again (CSV, Parquet)."""
        if self._records is None:
            return None
        return self._rest(position)

    def _rest(self, position: int):
        assert self._records is not None
        row = position
        for record in self._chunk[position + 1 - self._chunk_first :]:
            row += 1
            yield row, record
        try:
            if self._damage is None:
                for record in self._records:
                    row += 1
                    yield row, record
        except DamagedLog as error:
            self._damage = error
        if self._damage is not None:
            self._damage.row = row  # the last row read before the damage
            raise self._damage

    def _record_columns(self, chunk):
        """Records as a table of the columns the replay reads (:func:`~.typed_columns.typed_table`),
        or None: a record that is not a dict, or whose columns are not the first record's."""
        import pyarrow as pa

        columns = tuple(self.header)
        if not columns or any(type(r) is not dict or tuple(r) != columns for r in chunk):
            return None
        wanted = self._read_columns()
        if not set(wanted) <= set(columns):  # a missing column: rejected by the row reader
            return None
        arrays = {}
        for name in wanted:
            array = python_array([record[name] for record in chunk], name in self.names)
            if array is None:
                return None
            arrays[name] = array
        return typed_table(pa.RecordBatch.from_pydict(arrays), self.reader, self.names)

    def _read_columns(self) -> list:
        """The columns the replay reads: the features, then the time, id, entity, label time and
        label columns it names."""
        reader = self.reader
        named = [reader.time, reader.id, reader.entity, reader.label_time, reader.label]
        return [*self.names, *dict.fromkeys(name for name in named if name is not None)]

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
            return labelled, label_times, format_times(label_times, iso, labelled)
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
