"""Event-log readers, each a stream in constant memory of ``(row, record)``: ``row`` the 1-based
row number in the log (over all its files), ``record`` a dict of column -> value, or a
:class:`~imbalance_stream.replay.events.Reject` for a row that cannot even be read (invalid JSON).

* CSV (plain or gzip, any delimiter), values as text;
* JSON lines: one object per line;
* Parquet: pyarrow record batches (the ``parquet`` extra);
* SQL: a query on a SQLite database (``sqlite3``) or a DuckDB one (the ``sql`` extra), fetched
  in batches;
* ``dataset``: a labelled River dataset (or one of this package's loaders) turned into events:
  :func:`events_from_dataset` (used by ``scenarios/examples/replay.toml``).

``records(spec, start)`` skips the first ``start`` rows (a resumed replay).
"""

from __future__ import annotations

import bisect
import codecs
import collections
import datetime as dt
import itertools
import json
import math
import os
import pathlib
import zlib

import numpy as np

from .config import ReplayError
from .events import Reject

__all__ = [
    "events_from_dataset",
    "file_records",
    "line_blocks",
    "parquet_records",
    "records",
    "write_csv_log",
]

BATCH = 10_000


class _Lines:
    """The lines of a CSV or JSON-lines file, decoded one at a time, for :func:`csv.reader`.

    Reading is line by line from the bytes so that one damaged line costs one row: a line that is
    not UTF-8 is decoded with replacement characters and flagged (its row is rejected, naming the
    byte), and the lines of a record that turns out malformed (an unterminated quote that ran
    over the next lines, a field past the csv module's size limit) can be pushed back and read
    again, resynchronising at the line after the record's first. A compressed file that ends
    early or is corrupt raises :class:`DamagedLog`. A UTF-8 byte-order mark opening the file is
    dropped.
    """

    def __init__(self, handle, path):
        self.handle = handle
        self.path = path
        self.taken: list[tuple[str, str | None]] = []  # (line, why it is not UTF-8) of a record
        self.pushed: collections.deque = collections.deque()
        self.first = True

    def __iter__(self):
        return self

    def __next__(self) -> str:
        if self.pushed:
            item = self.pushed.popleft()
        else:
            try:
                raw = self.handle.readline()
            except (EOFError, OSError, zlib.error) as error:  # gzip's truncation and corruption
                raise DamagedLog(self.path, error) from None
            if not raw:
                raise StopIteration
            if self.first:
                self.first = False
                if raw.startswith(codecs.BOM_UTF8):
                    raw = raw[len(codecs.BOM_UTF8) :]
            try:
                item = (raw.decode("utf-8"), None)
            except UnicodeDecodeError as error:
                byte = raw[error.start]
                item = (
                    raw.decode("utf-8", "replace"),
                    f"byte 0x{byte:02x} at column {error.start + 1} is not UTF-8",
                )
        self.taken.append(item)
        return item[0]

    def start_record(self) -> None:
        self.taken.clear()

    def not_utf8(self) -> str | None:
        """Why the current record's lines are not text, or None."""
        for _, why in self.taken:
            if why is not None:
                return why
        return None

    def resynchronise(self) -> None:
        """Read the current record's lines again from its second one on."""
        self.pushed.extendleft(reversed(self.taken[1:]))


def line_blocks(handle, size: int):
    """The bytes of the binary ``handle`` in blocks of about ``size`` bytes, each cut just after a
    line end (the last one as the file ends)."""
    rest = b""
    while True:
        chunk = handle.read(size)
        data = rest + chunk
        if not chunk:
            if data:
                yield data
            return
        cut = data.rfind(b"\n") + 1
        if cut:
            yield data[:cut]
        rest = data[cut:]


class DamagedLog(ReplayError):
    """A log file that cannot be read past some point (a truncated or corrupt compressed file, a
    damaged Parquet file, an I/O error): the replay ends at the last row read, writes its
    outputs, and then stops with this one-line error (:meth:`after`)."""

    def __init__(self, path, error):
        self.reason = _first_line(error)
        self.path = path
        self.row = 0
        super().__init__(f"the log file {path!r} is damaged: {self.reason}")

    def after(self, row: int) -> str:
        """The message once the replay has written the ``row`` rows read before the damage."""
        return (
            f"the log file {self.path!r} is damaged and cannot be read past row {row} "
            f"({self.reason}); the outputs cover rows 1 to {row}"
        )


def _first_line(error) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _open_lines(path) -> tuple:
    """``(binary handle, _Lines)`` of a plain or gzip-compressed file."""
    import gzip

    handle = gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb")
    return handle, _Lines(handle, path)


def _csv(path, delimiter, spec):
    """CSV rows as dicts of text. River's ``stream.iter_csv`` would fit but for bad rows: its
    reader silently drops the fields a short line lacks and those a long line adds, and here
    both are rejected, so the rows are read with the csv module and counted against the header.

    A record that spans several lines (a quoted field with line breaks, which CSV allows) but has
    the wrong number of fields, or that the csv module refuses (a field over its size limit, a
    NUL byte), is taken for an unterminated quote or a damaged line: its first line is rejected
    and reading resumes at the line after it, so that one bad quote never swallows the rows that
    follow."""
    import csv

    handle, lines = _open_lines(path)
    with handle:
        reader = csv.reader(lines, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return
        why = lines.not_utf8()
        if why is not None:
            raise ReplayError(
                f"the header of {path!r} is not UTF-8 text ({why}); re-encode the file"
            )
        spec.check_columns(header, path)
        yield from _csv_records(reader, lines, header)


def csv_block_records(data: bytes, header: list, delimiter: str, path: str):
    """The records of ``data``, lines of a CSV file after its header (``header``, its columns),
    read as :func:`records` reads the file's (a reject per line that cannot be read). For blocks
    without a quote: a quoted field could run past the block's end."""
    import csv
    import io

    lines = _Lines(io.BytesIO(data), path)
    lines.first = False
    yield from _csv_records(csv.reader(lines, delimiter=delimiter), lines, header)


def _csv_records(reader, lines, header):
    """The records of ``reader`` (a csv reader over ``lines``) after the header."""
    import csv

    width = len(header)
    while True:
        lines.start_record()
        try:
            fields = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            lines.resynchronise()
            yield Reject(f"unreadable line: {error}")
            continue
        why = lines.not_utf8()
        if len(fields) == width:
            yield Reject(why) if why is not None else dict(zip(header, fields))
        elif len(lines.taken) > 1:
            lines.resynchronise()
            yield Reject(
                "unterminated quote: the row's quoted field runs past the end of its line "
                "(read again from the next line)"
            )
        elif '"' in lines.taken[0][0]:  # the last line: its quote ran to the end of the file
            yield Reject("unterminated quote: the row's quoted field runs to the end of the log")
        elif why is not None:
            yield Reject(why)
        elif not fields:
            yield Reject("empty line")
        elif len(fields) < width:
            yield Reject(
                f"{len(fields)} fields, the header has {width}: missing column "
                f"{header[len(fields)]!r}"
            )
        else:
            yield Reject(f"{len(fields)} fields, the header has {width}")


class _DuplicateKey(ValueError):
    """A JSON object that names one key twice (``json.loads`` would keep the last silently)."""


def _unique_keys(pairs):
    record = dict(pairs)
    if len(record) != len(pairs):
        counts = collections.Counter(key for key, _ in pairs)
        raise _DuplicateKey(next(key for key, count in counts.items() if count > 1))
    return record


#: Decodes a JSON line as ``json.loads`` does, refusing an object with a key given twice: which
#: of the two values is the row's cannot be known, so the row is rejected.
_JSON_LINE = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _jsonl(path):
    handle, lines = _open_lines(path)
    with handle:
        for line in lines:
            why = lines.not_utf8()
            lines.start_record()
            if not line.strip():
                continue
            if why is not None:
                yield Reject(why)
                continue
            try:
                record = _JSON_LINE.decode(line)
            except json.JSONDecodeError as error:
                yield Reject(f"invalid JSON: {error.msg} at column {error.colno}")
                continue
            except _DuplicateKey as twice:
                yield Reject(f"invalid JSON: the key {twice.args[0]!r} is given twice")
                continue
            except RecursionError:
                yield Reject("invalid JSON: nested too deeply")
                continue
            if not isinstance(record, dict):
                yield Reject(f"a JSON line must be an object, got {type(record).__name__}")
                continue
            yield record


def _parquet(path, start, spec):
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise ReplayError(
            "reading Parquet needs pyarrow: pip install 'imbalance-stream[parquet]'"
        ) from None
    try:
        handle = pq.ParquetFile(path)
    except (pa.ArrowException, OSError) as error:
        raise ReplayError(f"cannot read {path!r} as Parquet: {_first_line(error)}") from None
    skipped = 0
    with handle:
        spec.check_columns(handle.schema_arrow.names, path)
        batches = handle.iter_batches(batch_size=BATCH)
        while True:
            try:
                batch = next(batches, None)
            except (pa.ArrowException, OSError) as error:
                raise DamagedLog(path, error) from None
            if batch is None:
                return
            if skipped + batch.num_rows <= start:  # a resumed replay skips whole batches
                skipped += batch.num_rows
                continue
            yield skipped, parquet_records(batch)
            skipped += batch.num_rows


def parquet_records(batch) -> list:
    """A Parquet record batch's rows as records (dicts of Python values). A time in nanoseconds
    is read to the microsecond, as every time is held: where it is not a whole number of
    microseconds its row is a :class:`~imbalance_stream.replay.events.Reject` naming the column
    (the same with or without pandas installed, which would otherwise decide how such a value
    reads); so is a row holding any other value pyarrow cannot give as a Python value."""
    import pyarrow as pa
    import pyarrow.compute as pc

    refused: dict[int, str] = {}
    columns = []
    for name, column in zip(batch.schema.names, batch.columns):
        kind = column.type
        if pa.types.is_timestamp(kind) and kind.unit == "ns":
            nanos = pc.cast(column, pa.int64()).fill_null(0).to_numpy(zero_copy_only=False)
            for at in np.flatnonzero(nanos % 1000).tolist():
                refused.setdefault(
                    at,
                    f"column {name!r}: a time in nanoseconds that is not a whole number of "
                    "microseconds (the replay reads times to the microsecond); round it",
                )
            column = column.cast(pa.timestamp("us", kind.tz), safe=False)
        columns.append(column)
    table = pa.Table.from_arrays(columns, names=batch.schema.names)
    try:
        rows: list = table.to_pylist()
    except (ValueError, OverflowError, pa.ArrowException):  # a value with no Python form
        rows = [_parquet_row(table, at, refused) for at in range(table.num_rows)]
    for at, reason in refused.items():
        rows[at] = Reject(reason)
    return rows


def _parquet_row(table, at: int, refused: dict) -> dict:
    """Row ``at`` of ``table`` as a record, a value pyarrow cannot give noted in ``refused``."""
    import pyarrow as pa

    record = {}
    for name, column in zip(table.column_names, table.columns):
        try:
            record[name] = column[at].as_py()
        except (ValueError, OverflowError, pa.ArrowException) as error:
            record[name] = None
            refused.setdefault(at, f"column {name!r}: cannot read the value: {_first_line(error)}")
    return record


class _NotText(bytes):
    """A SQLite text value that is not UTF-8 (its row is rejected, naming the column)."""


def _sqlite_text(raw: bytes):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return _NotText(raw)


# What a log query may do on SQLite: read tables and call functions. The authorizer refuses
# everything else: writes, PRAGMA, transactions, ATTACH (which VACUUM INTO asks for too).
_SQLITE_READS = ("SQLITE_READ", "SQLITE_SELECT", "SQLITE_FUNCTION", "SQLITE_RECURSIVE")
#: Functions a log query may not call: loading an extension runs a library's code.
_SQLITE_REFUSED_FUNCTIONS = {"load_extension"}


def _sqlite_connection(path):
    """A SQLite connection that can only read ``path`` (a read-only URI, no attached database, an
    authorizer that allows reading and functions only), and the list its authorizer fills with
    what it refused."""
    import sqlite3

    uri = pathlib.Path(os.path.abspath(path)).as_uri() + "?mode=ro"
    connection = sqlite3.connect(uri, uri=True)
    connection.text_factory = _sqlite_text
    if hasattr(connection, "setlimit"):  # Python 3.11+
        connection.setlimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
    allowed = {getattr(sqlite3, name) for name in _SQLITE_READS}
    names = {
        getattr(sqlite3, n): n for n in dir(sqlite3) if n.startswith("SQLITE_") and n != "SQLITE_OK"
    }
    refused: list[str] = []

    def authorize(action, first, second, database, trigger):
        function = action == sqlite3.SQLITE_FUNCTION and second in _SQLITE_REFUSED_FUNCTIONS
        if action in allowed and not function:
            return sqlite3.SQLITE_OK
        what = names.get(action, str(action)).removeprefix("SQLITE_").lower().replace("_", " ")
        detail = " ".join(str(v) for v in (first, second) if v)
        refused.append(f"{what} {detail}".strip())
        return sqlite3.SQLITE_DENY

    connection.set_authorizer(authorize)
    return connection, refused


def _duckdb_connection(path):
    try:
        import duckdb
    except ImportError:
        raise ReplayError(
            "reading DuckDB needs duckdb: pip install 'imbalance-stream[sql]'"
        ) from None
    # read-only, no file or network access beyond the database itself, and the settings locked
    # so that the query cannot turn access back on
    config: dict = {
        "enable_external_access": False,
        "autoload_known_extensions": False,
        "autoinstall_known_extensions": False,
        "lock_configuration": True,
    }
    return duckdb.connect(path, read_only=True, config=config), []


def _sql(spec, path):
    """The rows of the log's query. The database is opened read-only and the query may only read:
    one that would write, attach a database or load an extension is refused in one line."""
    if spec.format == "sqlite":
        connection, refused = _sqlite_connection(path)
    else:
        connection, refused = _duckdb_connection(path)
    try:
        try:
            cursor = connection.execute(spec.query)
        except Exception as error:  # sqlite3.Error, duckdb.Error: the user's query
            if refused:
                raise ReplayError(
                    f"log.query: refused: a log query may only read (it asked for {refused[0]})"
                ) from None
            raise ReplayError(f"log.query: {_first_line(error)}") from None
        if cursor.description is None:
            raise ReplayError("log.query: the query returns no rows (a log query is a SELECT)")
        columns = [d[0] for d in cursor.description]
        spec.check_columns(columns, "the query's result")
        while True:
            try:
                rows = cursor.fetchmany(BATCH)
            except Exception as error:  # a damaged database page, a value that cannot be read
                raise DamagedLog(path, error) from None
            if not rows:
                return
            for values in rows:
                bad = next((c for c, v in zip(columns, values) if type(v) is _NotText), None)
                if bad is None:
                    yield dict(zip(columns, values))
                else:
                    yield Reject(f"column {bad!r}: text that is not UTF-8")
    finally:
        connection.close()


def file_records(spec, path, start):
    """Records of one file, skipping ``start`` of them; yields ``(index in file, record)``."""
    if spec.format == "parquet":
        for offset, rows in _parquet(path, start, spec):
            for i, record in enumerate(rows, offset):
                if i >= start:
                    yield i, record
        return
    if spec.format == "csv":
        stream = _csv(path, spec.delimiter, spec)
    elif spec.format == "jsonl":
        stream = _jsonl(path)
    else:
        stream = _sql(spec, path)
    yield from itertools.islice(enumerate(stream), start, None)


def _count(spec, path) -> int:
    return sum(1 for _ in file_records(spec, path, 0))


def records(spec, start: int = 0):
    """``(row, record)`` of the log ``spec`` (a :class:`~imbalance_stream.replay.config.LogSpec`)
    from row ``start + 1`` on."""
    if spec.format == "dataset":
        from imbalance_stream.registry import build

        dataset = build(spec.dataset, "dataset", "log.dataset")
        stream = events_from_dataset(dataset, **spec.events)
        try:
            yield from itertools.islice(enumerate(stream, 1), start, None)
        except FileNotFoundError as error:  # a loader whose file is not in the data home
            raise ReplayError(f"log.dataset: {error}") from None
        return
    row = 0
    for k, path in enumerate(spec.paths):
        skip = max(0, start - row)
        n = skip
        try:
            if skip and k < len(spec.paths) - 1:
                n = _count(spec, path)
                if n <= skip:  # the whole file was read before the checkpoint
                    row += n
                    continue
                n = skip
            for i, record in file_records(spec, path, skip):
                yield row + i + 1, record
                n = i + 1
        except DamagedLog as error:
            error.row = row + n  # the last row read before the damage
            raise
        row += n


def events_from_dataset(
    dataset,
    seed: int = 0,
    start: str = "2024-01-01T00:00:00",
    interval: float = 60.0,
    entities: int = 100,
    zipf: float = 1.2,
    delay_scale: float = 86400.0,
    delay_shape: float = 1.5,
    never: float = 0.1,
    n_samples: int | None = None,
):
    """Turn a labelled dataset into an event log, deterministically from ``seed``.

    Each sample becomes one event, in the dataset's order:

    * ``time``: ``start`` plus exponential gaps of mean ``interval`` seconds, rounded down to
      whole seconds (so some events share a time), ISO 8601 in UTC;
    * ``entity``: one of ``entities`` accounts ``"e000"``..., drawn with Zipf weights
      ``1 / rank ** zipf`` (a few busy accounts, many quiet ones);
    * ``label_time``: the event time plus a delay from a heavy-tailed Lomax (Pareto II) law of
      scale ``delay_scale`` seconds and shape ``delay_shape`` (shape 1.5: a finite mean of
      ``2 * scale`` and an infinite variance), rounded down to whole seconds; with probability
      ``never`` it is empty: the label never arrives;
    * ``label``: the dataset's label; the features, named by their keys as text (missing keys of
      a sparse dataset are written 0.0).

    """
    import numpy as np

    rng = np.random.default_rng(seed)
    moment = dt.datetime.fromisoformat(start)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    weights = 1.0 / np.arange(1, entities + 1) ** zipf
    cumulative = np.cumsum(weights / weights.sum()).tolist()
    cumulative[-1] = 1.0
    width = len(str(entities - 1))
    names = None
    clock = 0.0
    for i, (x, y) in enumerate(dataset):
        if n_samples is not None and i >= n_samples:
            break
        if names is None:
            keys = list(x)
            n_features = getattr(dataset, "n_features", None)
            if keys and all(isinstance(k, int) for k in keys) and n_features:
                keys = list(range(1, n_features + 1))
            names = [(k, str(k)) for k in keys]
        clock += rng.exponential(interval)
        gap = rng.pareto(delay_shape) * delay_scale  # numpy's pareto is Lomax with scale 1
        lost = rng.random() < never
        entity = bisect.bisect_right(cumulative, rng.random())
        when = moment + dt.timedelta(seconds=math.floor(clock))
        record = {
            "event_id": f"ev{i:07d}",
            "time": when.isoformat(),
            "entity": f"e{entity:0{width}d}",
            "label": y,
            "label_time": ""
            if lost
            else (when + dt.timedelta(seconds=math.floor(gap))).isoformat(),
        }
        for key, name in names:
            record[name] = x.get(key, 0.0)
        yield record


def write_csv_log(stream, path) -> int:
    """Write records (dicts with the same keys) to a CSV file; returns the number written."""
    import csv

    n = 0
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = None
        for record in stream:
            if writer is None:
                writer = csv.DictWriter(handle, fieldnames=list(record))
                writer.writeheader()
            writer.writerow(record)
            n += 1
    return n
