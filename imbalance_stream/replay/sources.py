"""Event-log readers, each a stream in constant memory of ``(row, record)``: ``row`` the 1-based
row number in the log (over all its files), ``record`` a dict of column -> value, or a
:class:`~imbalance_stream.replay.config.Reject` for a row that cannot even be read (invalid JSON).

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
import datetime as dt
import itertools
import json
import math

from .config import Reject, ReplayError

__all__ = ["events_from_dataset", "records", "write_csv_log"]

BATCH = 10_000


def _csv(path, delimiter, spec):
    """CSV rows as dicts of text. River's ``stream.iter_csv`` would fit but for bad rows: its
    reader silently drops the fields a short line lacks and those a long line adds, and here
    both are rejected, so the rows are read with the csv module and counted against the header."""
    import csv
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            return
        spec.check_columns(header, path)
        width = len(header)
        for fields in reader:
            if len(fields) == width:
                yield dict(zip(header, fields))
            elif not fields:
                yield Reject("empty line")
            elif len(fields) < width:
                yield Reject(
                    f"{len(fields)} fields, the header has {width}: missing column "
                    f"{header[len(fields)]!r}"
                )
            else:
                yield Reject(f"{len(fields)} fields, the header has {width}")


def _jsonl(path):
    import gzip

    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                yield Reject(f"invalid JSON: {error.msg} at column {error.colno}")
                continue
            if not isinstance(record, dict):
                yield Reject(f"a JSON line must be an object, got {type(record).__name__}")
                continue
            yield record


def _parquet(path, start, spec):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise ReplayError(
            "reading Parquet needs pyarrow: pip install 'imbalance-stream[parquet]'"
        ) from None
    skipped = 0
    with pq.ParquetFile(path) as handle:
        spec.check_columns(handle.schema_arrow.names, path)
        for batch in handle.iter_batches(batch_size=BATCH):
            if skipped + batch.num_rows <= start:  # a resumed replay skips whole batches
                skipped += batch.num_rows
                continue
            rows = batch.to_pylist()
            yield skipped, rows
            skipped += batch.num_rows


def _sql(spec, path):
    if spec.format == "sqlite":
        import sqlite3

        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        cursor = connection.cursor()
    else:
        try:
            import duckdb
        except ImportError:
            raise ReplayError(
                "reading DuckDB needs duckdb: pip install 'imbalance-stream[sql]'"
            ) from None
        connection = duckdb.connect(path, read_only=True)
        cursor = connection
    try:
        try:
            cursor.execute(spec.query)
        except Exception as error:  # sqlite3.Error, duckdb.Error: the user's query
            raise ReplayError(f"log.query: {str(error).splitlines()[0]}") from None
        columns = [d[0] for d in cursor.description]
        spec.check_columns(columns, "the query's result")
        while rows := cursor.fetchmany(BATCH):
            for values in rows:
                yield dict(zip(columns, values))
    finally:
        connection.close()


def _file_records(spec, path, start):
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
    return sum(1 for _ in _file_records(spec, path, 0))


def records(spec, start: int = 0):
    """``(row, record)`` of the log ``spec`` (a :class:`LogSpec`) from row ``start + 1`` on."""
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
        if skip and k < len(spec.paths) - 1:
            n = _count(spec, path)
            if n <= skip:  # the whole file was read before the checkpoint
                row += n
                continue
        n = skip
        for i, record in _file_records(spec, path, skip):
            yield row + i + 1, record
            n = i + 1
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
