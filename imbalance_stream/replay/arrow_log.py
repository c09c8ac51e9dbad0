"""A CSV event log read in column blocks with pyarrow, checked a column at a time.

:class:`ArrowLog` reads the file (plain or gzip) in blocks of about a megabyte cut at line ends,
parses each with pyarrow's CSV reader and checks it with array operations: features finite
numbers, times and label times of the shapes :func:`~.vector_times.column_micros` vouches for,
labels among the log's, ids and entities not empty, label times not before their event times,
event times in order. A block that passes is a :class:`ColumnBlock`, the same rows, values and
texts the row reader (:class:`~imbalance_stream.replay.events.RowReader`) would have made of it.

A block this reader cannot vouch for wholly (a quote, a carriage return, a control character or
a byte that is not ASCII, an empty line, a row of the wrong width, any value that the row reader
would refuse or read otherwise) ends the columnar reading: :attr:`ArrowLog.stopped_at` then holds
the rows read before it, and the replay reads the rest of the log row by row, which rejects what
it must, naming the reason. The columnar reader never rejects a row itself.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np

from .events import is_empty
from .vector_times import column_micros

__all__ = ["ArrowLog", "ColumnBlock", "columnar_reader_fits"]

#: Bytes read at a time; a block is cut at its last line end.
BLOCK_BYTES = 1 << 20
#: What a block may not hold for this reader to vouch for it: quotes (a field may span lines),
#: control characters other than the tab and the line ends, and empty lines. (Carriage returns
#: are taken only as the first half of a "\r\n" line end: see _lone_returns.)
_UNSURE = re.compile(rb'["\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\n\r?\n|^\r?\n')


def _lone_returns(data: bytes) -> bool:
    return data.count(b"\r") != data.count(b"\r\n")


def columnar_reader_fits(spec) -> bool:
    """Whether the log (a :class:`~imbalance_stream.replay.config.LogSpec`) is one this reader
    can read: one CSV file, features read as numbers, label times from a column, pyarrow
    installed."""
    if spec.format != "csv" or len(spec.paths) != 1 or spec.types or spec.label_time is None:
        return False
    if spec.out_of_order != "error" or spec.delimiter in ('"', "\n", "\r"):
        return False
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


@dataclasses.dataclass
class ColumnBlock:
    """Valid rows of a log, column by column: ``rows`` (1-based), the texts the outputs copy
    (``ids``, ``time_texts``, ``entities``, ``label_time_texts``), ``times`` and ``label_times``
    in integer microseconds, ``codes`` (index of the row's label in :attr:`ArrowLog.labels`, -1
    for no label), ``labelled`` (a label and a label time: the row's label arrives) and the
    features ``x`` (rows by :attr:`ArrowLog.names`)."""

    rows: np.ndarray
    ids: list
    time_texts: list
    entities: list | None
    times: np.ndarray
    codes: np.ndarray
    labelled: np.ndarray
    label_times: np.ndarray
    label_time_texts: list
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
            elif isinstance(value, list) and not isinstance(at, slice):
                picked.append([value[i] for i in np.asarray(at).tolist()])
            else:
                picked.append(value[at])
        return ColumnBlock(*picked)

    @staticmethod
    def concat(blocks: list) -> ColumnBlock:
        values: list = []
        for field in dataclasses.fields(ColumnBlock):
            parts = [getattr(block, field.name) for block in blocks]
            if parts[0] is None:
                values.append(None)
            elif isinstance(parts[0], list):
                values.append([v for part in parts for v in part])
            else:
                values.append(np.concatenate(parts))
        return ColumnBlock(*values)


class ArrowLog:
    """The log's blocks (see the module's docstring); iterate once."""

    def __init__(self, spec):
        self.spec = spec
        self.reader = spec.reader
        self.names: tuple = ()
        self.labels: list = []  # the log's labels, in the order first met
        self.stopped_at: int | None = None  # rows read before a block this reader gave up
        self._codes: dict = {}  # label text -> code (-1: no label)

    def __iter__(self):
        import gzip

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
        if not line or _UNSURE.search(line) or b"\r" in line:
            self.stopped_at = 0
            return
        header = line.decode("ascii").split(self.spec.delimiter)
        if len(set(header)) < len(header):
            self.stopped_at = 0
            return
        reader = self.reader
        names = (
            reader.include
            if reader.include is not None
            else [c for c in header if c not in reader._reserved]
        )
        named = [reader.time, reader.label, reader.id, reader.entity, reader.label_time]
        if any(c is not None and c not in header for c in [*named, *names]):
            self.stopped_at = 0  # the row reader names the missing column
            return
        self.names = tuple(names)
        self._header = header
        rest = b""
        while True:
            chunk = handle.read(BLOCK_BYTES)
            data = rest + chunk
            if not data:
                return
            if chunk:
                cut = data.rfind(b"\n") + 1
                if cut == 0:
                    rest = data
                    continue
                data, rest = data[:cut], data[cut:]
            else:
                rest = b""
            block = self._block(data)
            if block is None:
                self.stopped_at = self._read
                return
            self._read += len(block)
            yield block
            if not chunk:
                return

    def _block(self, data: bytes) -> ColumnBlock | None:
        import pyarrow as pa
        import pyarrow.csv as pa_csv

        if not data.isascii() or _UNSURE.search(data) or _lone_returns(data):
            return None
        reader, header = self.reader, self._header
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
        n = table.num_rows
        if n != data.count(b"\n") + (not data.endswith(b"\n")):
            return None
        return self._checked(table, n)

    def _checked(self, table, n) -> ColumnBlock | None:
        import pyarrow.compute as pc

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
            if name is None:
                continue
            column = table.column(name).combine_chunks()
            if pc.any(pc.equal(pc.utf8_length(pc.utf8_trim(column, " \t")), 0)).as_py():
                return None
            texts[name] = column.to_pylist()
        label_time_column = table.column(reader.label_time).combine_chunks()
        given = pc.not_equal(pc.utf8_length(pc.utf8_trim(label_time_column, " \t")), 0)
        labelled = (codes >= 0) & np.asarray(given.to_numpy(zero_copy_only=False), dtype=bool)
        where = np.flatnonzero(labelled)
        label_times = np.zeros(n, dtype=np.int64)
        parsed = column_micros(label_time_column.take(where))
        if parsed is None or np.any(parsed < times[where]):
            return None
        label_times[where] = parsed
        label_time_list = label_time_column.to_pylist()
        label_time_texts = [""] * n
        for k in where.tolist():
            label_time_texts[k] = label_time_list[k]
        first = self._read + 1
        return ColumnBlock(
            rows=np.arange(first, first + n, dtype=np.int64),
            ids=texts[reader.id]
            if reader.id is not None
            else [str(r) for r in range(first, first + n)],
            time_texts=time_column.to_pylist(),
            entities=texts.get(reader.entity) if reader.entity is not None else None,
            times=times,
            codes=codes,
            labelled=labelled,
            label_times=label_times,
            label_time_texts=label_time_texts,
            x=x,
        )

    def _label_codes(self, column) -> np.ndarray | None:
        """Each row's label code (-1: no label), or None for a label the log does not hold."""
        encoded = column.dictionary_encode()
        mapping = []
        for value in encoded.dictionary.to_pylist():
            code = self._codes.get(value)
            if code is None:
                if is_empty(value):
                    code = -1
                else:
                    try:
                        label = self.reader.label_of(value)
                    except Exception:  # the row reader rejects it, naming it
                        return None
                    if label not in self.labels:
                        self.labels.append(label)
                    code = self.labels.index(label)
                self._codes[value] = code
            mapping.append(code)
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        return np.asarray(mapping, dtype=np.int64)[indices] if mapping else indices.astype(np.int64)
