"""Put the cells' part files together into the replay's outputs, in constant memory.

* ``predictions.csv``: the cells' predictions merged in replay order (and model order within a
  row); ``predictions.parquet`` instead when asked;
* ``rejected.csv``: row, model (empty: the row could not be read, so no model saw it) and reason;
* ``curves.csv``: the cumulative metric values every ``step`` labels (``curve = "cumulative"``,
  at the label's time) and, with a ``window``, the values over the events of each window of event
  time (``curve = "window"``, at the window's start). A cell that sees every row of its models
  (the global models; every model of a serial run) folds their labels into their metrics as the
  labels arrive, keeps the metric states in its checkpoints and writes its curve rows; the merge
  takes those rows and the final states. The per-entity models of a run spread over several
  partitions have their labels in several cells, and a metric must see them in label order, so
  those cells record each label (an answer record) and the merge folds them, in label order,
  into the same :class:`~imbalance_stream.replay.tracking.MetricTrack` a cell would use: the
  same updates in the same order, so the same floats as a serial run (see the tests). Either
  way the curve rows are merged by the key of the label that produced them (label time, the
  question's place, the model);
* ``entities.csv``: per entity and model, its events, the labels it learned and the size of its
  model (bytes, pickled);
* ``table.csv``: one row per model.

Each file is written under a temporary name and renamed into place.
"""

from __future__ import annotations

import array
import contextlib
import csv
import datetime as dt
import heapq
import os
import pickle
import shutil

from .cells import load_checkpoint
from .events import MICRO, is_number
from .parts import (
    FIELD,
    OUTPUT,
    PREDICTION_COLUMNS,
    REJECT_COLUMNS,
    RejectLine,
    order_key,
    read_answers,
)
from .sources import line_blocks
from .tracking import MetricTrack

__all__ = ["merge"]


@contextlib.contextmanager
def _atomic(path, mode="w"):
    tmp = f"{path}.tmp"
    kwargs: dict = {"newline": "", "encoding": "utf-8"} if "b" not in mode else {}
    with open(tmp, mode, **kwargs) as handle:
        yield handle
    os.replace(tmp, path)


def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        yield from csv.reader(handle)


def _time_writer(iso: bool):
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)

    def number(micros):
        seconds = micros / MICRO
        return str(int(seconds)) if seconds.is_integer() else repr(seconds)

    def date(micros):
        try:
            return (epoch + dt.timedelta(microseconds=micros)).isoformat()
        except OverflowError:  # a window that starts before the year 1: its start in seconds
            return number(micros)

    return date if iso else number


def merge(scenario, work, cells, out, predictions_format="csv"):
    """Write the outputs of a finished replay from the part files and checkpoints in ``work`` to
    ``out``; returns ``(table rows, models, rejected rows, events' time span)`` with ``models``
    ``{label: model or {entity: model}}`` and the span the first and last event times as the log
    writes them (None when no row was predicted)."""
    parts = [os.path.join(work, f"cell{cell.index}") for cell in cells]
    states = [load_checkpoint(f"{part}.ckpt") for part in parts]
    alone = len(cells) == 1 and cells[0].alone
    iso, duplicates, span = _merge_predictions(parts, out, predictions_format, alone)
    rejected = _merge_rejects(parts, out)
    tracks = _write_curves(scenario, cells, states, parts, out, _time_writer(bool(iso)))
    models = _final_models(scenario, cells, states)
    sizes = _merge_entities(scenario, parts, out)
    table = _table(scenario, tracks, _counts(states, len(tracks)), models, sizes)
    if scenario.log.id is not None:
        for row in table:
            row["duplicate_ids"] = duplicates
    # the models may have metrics of their own kind: the columns are every row's, in order
    columns = list(dict.fromkeys(name for row in table for name in row))
    with _atomic(os.path.join(out, "table.csv")) as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        for row in table:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return table, models, rejected, span


def _merge_predictions(parts, out, predictions_format, alone):
    """``predictions.csv`` (or ``.parquet``) in replay order; returns whether the times are ISO
    text (None when nothing was predicted), the number of duplicate event ids
    (:class:`_DuplicateIds`) and the first and last event times as written (None: no row)."""
    target = os.path.join(out, "predictions.csv")
    merged = _lone_part(f"{parts[0]}.pred", target) if alone else _merged_parts(parts, target)
    if predictions_format == "parquet":
        _to_parquet(target, os.path.join(out, "predictions.parquet"))
        os.unlink(target)
    return merged


_CHUNK = 1 << 22  # bytes of the part read at a time


def _lone_part(path, target):
    """The prediction part of a replay's only cell, which is ``predictions.csv`` already (see
    :mod:`.parts`): its rows' ids counted and its first and last times read, then the file put
    in place (a hard link of the part, renamed; a copy where links cannot be made)."""
    counted = _lone_ids(path)
    if counted is None:  # a quoted field: the csv module reads the lines
        counted = _lone_ids_csv(path)
    tmp = f"{target}.tmp"
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    try:
        os.link(path, tmp)
    except OSError:
        shutil.copyfile(path, tmp)
    os.replace(tmp, target)
    duplicates, first, last = counted
    if first is None or last is None:
        return None, duplicates, None
    return not is_number(first), duplicates, (first, last)


def _lone_ids(path):
    """``(duplicate ids, first time, last time)`` of a lone part whose lines hold no quote, each
    row's id hashed where it lies (:func:`imbalance_stream._numba.text.row_id_spans`), or None
    when a line is not of that shape."""
    import numpy as np

    from imbalance_stream._numba.text import row_id_spans

    time_at = PREDICTION_COLUMNS.index("time")
    duplicates = _DuplicateIds(os.path.dirname(path))
    last_row, first, last = -1, None, None
    with open(path, "rb") as source:
        source.readline()  # the header
        for data in line_blocks(source, _CHUNK):
            if b'"' in data:
                return None
            codes = np.frombuffer(data, dtype=np.uint8)
            spans = np.empty((len(data) // 8 + 1, 2), dtype=np.int64)  # (a line has 9 fields)
            found, last_row = row_id_spans(codes, last_row, spans)
            if found < 0:
                return None
            duplicates.add_spans(codes, spans[:found, 0], spans[:found, 1])
            lines = data.rstrip(b"\n")
            if first is None:
                first = lines.split(b"\n", 1)[0].split(b",")[time_at].decode()
            last = lines[lines.rfind(b"\n") + 1 :].split(b",")[time_at].decode()
    return duplicates.count(), first, last


def _lone_ids_csv(path):
    """:func:`_lone_ids` for any lone part, by the csv module."""
    row_at, id_at, time_at = map(PREDICTION_COLUMNS.index, ("row", "event_id", "time"))
    duplicates = _DuplicateIds(os.path.dirname(path))
    last_row = first = last = None
    records = _csv_rows(path)
    next(records, None)  # the header
    for record in records:
        if record[row_at] != last_row:  # the first model's line of a row
            last_row = record[row_at]
            duplicates.add(record[id_at])
            last = record[time_at]  # replay order is time order
            first = last if first is None else first
    return duplicates.count(), first, last


def _merged_parts(parts, target):
    iso = None
    duplicates = _DuplicateIds(os.path.dirname(parts[0]))
    last_seq = None
    first = last = None  # the first and the last event time, as the log writes them
    with _atomic(target) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PREDICTION_COLUMNS)
        streams = [_csv_rows(f"{p}.pred") for p in parts]
        seq_at, id_at, time_at = FIELD["seq"], FIELD["event_id"], FIELD["time"]
        for record in heapq.merge(*streams, key=order_key):
            if iso is None:
                iso = not is_number(record[time_at])
            if record[seq_at] != last_seq:  # the first model's line of a row
                last_seq = record[seq_at]
                duplicates.add(record[id_at])
                last = record[time_at]  # replay order is time order
                first = last if first is None else first
            writer.writerow(record[OUTPUT])
    return iso, duplicates.count(), None if first is None else (first, last)


class _DuplicateIds:
    """Counts the rows whose event id repeats an earlier row's (they are kept and replayed: an id
    names a row in the outputs, it does not decide whether the row happened).

    Each id is hashed to 64 bits, by Python's own ``hash`` (:meth:`add`; salted per process,
    which does not matter: one merge writes and reads the hashes) or by FNV-1a where the ids lie
    in a buffer (:meth:`add_spans`); two different ids among 10 million share a hash with
    probability below 3e-6. The hashes are held in memory, up to ``MEMORY`` of them (8 MiB),
    and counted by one sort; past that they are spilled, each to one of ``BUCKETS`` files of
    ``folder`` by its low bits, and counted a bucket at a time: equal ids land in the same
    bucket, and memory holds one bucket, a 1/256th of the log's rows, not the whole log."""

    BUCKETS = 256
    MEMORY = 1 << 20

    def __init__(self, folder):
        self.paths = [os.path.join(folder, f"ids{k}.bin") for k in range(self.BUCKETS)]
        self._held: list = []  # arrays of hashes (add_spans) ...
        self._one_by_one = array.array("q")  # ... and the hashes of add
        self._n_held = 0
        self.spilled = False
        for path in self.paths:  # left by a merge that was stopped, before a --resume
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def add(self, event_id: str) -> None:
        self._one_by_one.append(hash(event_id))
        self._n_held += 1
        if self._n_held >= self.MEMORY:
            self._spill()

    def add_spans(self, data, starts, ends) -> None:
        """:meth:`add` for the ids that are the bytes ``data[starts[i]:ends[i]]``, hashed where
        they lie (:func:`imbalance_stream._numba.text.hash_spans`: FNV-1a, not ``hash``; one
        merge adds all its ids one way or the other)."""
        import numpy as np

        from imbalance_stream._numba.text import hash_spans

        codes = np.empty(len(starts), dtype=np.int64)
        hash_spans(data, starts, ends, codes)
        self._held.append(codes)
        self._n_held += len(codes)
        if self._n_held >= self.MEMORY:
            self._spill()

    def _take_held(self):
        """The hashes held, as one array; none held after."""
        import numpy as np

        codes = np.concatenate([*self._held, np.frombuffer(self._one_by_one, dtype=np.int64)])
        self._held, self._one_by_one, self._n_held = [], array.array("q"), 0
        return codes

    def _spill(self) -> None:
        """The hashes held, each appended to its bucket's file."""
        import numpy as np

        codes = self._take_held()
        buckets = (codes & (self.BUCKETS - 1)).astype(np.uint8)  # (a radix sort for uint8)
        order = np.argsort(buckets, kind="stable")
        codes = codes[order]
        bounds = np.searchsorted(buckets[order], np.arange(self.BUCKETS + 1)).tolist()
        for k in range(self.BUCKETS):
            if bounds[k] < bounds[k + 1]:
                with open(self.paths[k], "ab") as handle:
                    handle.write(codes[bounds[k] : bounds[k + 1]].tobytes())
        self.spilled = True

    def count(self) -> int:
        import numpy as np

        def repeats(hashes) -> int:
            hashes = np.sort(hashes)
            return int(np.count_nonzero(hashes[1:] == hashes[:-1]))

        if not self.spilled:
            return repeats(self._take_held())
        self._spill()
        total = 0
        for path in self.paths:
            with contextlib.suppress(FileNotFoundError):
                total += repeats(np.fromfile(path, dtype=np.int64))
                os.unlink(path)
        return total


def _merge_rejects(parts, out):
    rejected = 0
    with _atomic(os.path.join(out, "rejected.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(REJECT_COLUMNS)
        streams = [_csv_rows(f"{p}.rej") for p in parts]
        for record in heapq.merge(*streams, key=order_key):
            writer.writerow(RejectLine._make(record).output())
            rejected += 1
    return rejected


def write_rejects_so_far(work, cells, out) -> int:
    """``rejected.csv`` of a replay stopped by ``max_rejects``, from the rejects its cells had
    written when it stopped (the cell that stopped flushed all of its own); returns their number.

    A cell that never started has no part file, and one still running may be mid-line, so only
    whole lines are taken.
    """
    records = []
    for cell in cells:
        path = os.path.join(work, f"cell{cell.index}.rej")
        if not os.path.exists(path):
            continue
        for record in _csv_rows(path):
            if len(record) == len(RejectLine._fields) and RejectLine._make(record).is_whole():
                records.append(RejectLine._make(record))
    records.sort(key=order_key)
    with _atomic(os.path.join(out, "rejected.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(REJECT_COLUMNS)
        writer.writerows(record.output() for record in records)
    return len(records)


def _curve_rows(path):
    for label_time, seq, midx, n, name, value in _csv_rows(path):
        yield int(label_time), int(seq), int(midx), int(n), name, value


def _fold_answers(paths, tracks, makers):
    """The metrics of the models whose rows were spread over partitions: their answer records
    merged in label order (label time, then the question's place), each folded into its model's
    track as a cell does; yields the curve rows."""
    streams = [read_answers(path) for path in paths]
    for label_time, seq, midx, event_time, y, taken in heapq.merge(
        *streams, key=lambda r: (r[0], r[1], r[2])
    ):
        yield from tracks[midx].update(makers[midx], label_time, seq, event_time, y, taken)


def _write_curves(scenario, cells, states, parts, out, when):
    """``curves.csv``; returns the final :class:`MetricTrack` of every model."""
    labels = [label for label, _, _ in scenario.slots()]
    tracks: list = [None] * len(labels)
    folded_here = []
    for cell, state, part in zip(cells, states, parts):
        if cell.fold_metrics:
            for j, midx in enumerate(cell.slots):
                tracks[midx] = state.tracks[j]
        else:
            folded_here.append(f"{part}.ans")
    makers = scenario.slot_metrics()
    for midx, track in enumerate(tracks):
        if track is None:
            tracks[midx] = MetricTrack(midx, makers[midx], scenario.step, scenario.window)
    streams = [_curve_rows(f"{p}.cur") for p in parts]
    if folded_here:
        streams.append(_fold_answers(folded_here, tracks, makers))
    with _atomic(os.path.join(out, "curves.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["model", "curve", "time", "labels", "metric", "value"])
        for label_time, _, midx, n, name, value in heapq.merge(
            *streams, key=lambda r: (r[0], r[1], r[2])
        ):
            writer.writerow([labels[midx], "cumulative", when(label_time), n, name, value])
        for track in tracks:
            for label_time, n, name, value in track.tail():
                writer.writerow(
                    [labels[track.midx], "cumulative", when(label_time), n, name, value]
                )
        for track in tracks:
            for start, n, name, value in track.window_rows():
                writer.writerow([labels[track.midx], "window", when(start), n, name, value])
    return tracks


def _final_models(scenario, cells, states) -> dict:
    slots = scenario.slots()
    models: dict = {label: {} if mode == "entity" else None for label, _, mode in slots}
    for cell, state in zip(cells, states):
        for j, midx in enumerate(cell.slots):
            label, _, mode = slots[midx]
            if mode == "entity":
                models[label].update(state.models[j])
            else:
                models[label] = state.models[j]
    return models


def _merge_entities(scenario, parts, out) -> dict:
    """``entities.csv``; returns the pickled sizes of the per-entity models, by model."""
    labels = [label for label, _, _ in scenario.slots()]
    sizes: dict = {label: [] for label in labels}
    with _atomic(os.path.join(out, "entities.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["model", "entity", "events", "labelled", "bytes"])
        streams = [_csv_rows(f"{p}.ent") for p in parts if os.path.exists(f"{p}.ent")]
        for midx, entity, events, labelled, size in heapq.merge(
            *streams, key=lambda r: (int(r[0]), r[1])
        ):
            writer.writerow([labels[int(midx)], entity, events, labelled, size])
            sizes[labels[int(midx)]].append(int(size))
    return sizes


def _table(scenario, tracks, counts, models, sizes):
    table = []
    for midx, (label, _, mode) in enumerate(scenario.slots()):
        row = {"model": label}
        for name, metric in tracks[midx].metrics.items():
            row[name] = metric.get()
        row["events"] = counts["events"][midx]
        row["labelled"] = counts["labelled"][midx]
        row["never"] = counts["never"][midx]
        row["rejected"] = counts["rejected"][midx] + counts["read_rejects"]
        if mode == "entity":
            row["entities"] = len(sizes[label])
            row["bytes_per_entity"] = (
                round(sum(sizes[label]) / len(sizes[label])) if sizes[label] else 0
            )
        else:
            row["entities"] = 1
            row["bytes_per_entity"] = len(pickle.dumps(models[label], pickle.HIGHEST_PROTOCOL))
        table.append(row)
    return table


def _counts(states, n):
    total = {
        "events": [0] * n,
        "labelled": [0] * n,
        "never": [0] * n,
        "rejected": [0] * n,
        "read_rejects": states[0].read_rejects,  # every cell counts the unreadable rows
    }
    for state in states:
        for key in ("events", "labelled", "never", "rejected"):
            for i in range(n):
                total[key][i] += state.counts[key][i]
    return total


def _to_parquet(csv_path, parquet_path):
    try:
        import pyarrow as pa
        import pyarrow.csv as pv
        import pyarrow.parquet as pq
    except ImportError:
        from .config import ReplayError

        raise ReplayError(
            "predictions = \"parquet\" needs pyarrow: pip install 'imbalance-stream[parquet]'"
        ) from None
    types = {name: pa.string() for name in PREDICTION_COLUMNS}
    types["row"] = pa.int64()
    types["score"] = pa.float64()
    reader = pv.open_csv(
        csv_path,
        convert_options=pv.ConvertOptions(
            column_types=types, strings_can_be_null=False, quoted_strings_can_be_null=False
        ),
    )
    with _atomic(parquet_path, "wb") as handle:
        writer = pq.ParquetWriter(handle, reader.schema)
        for batch in reader:
            writer.write_batch(batch)
        writer.close()


def _axis_time(when: str, iso: bool):
    """A time of ``curves.csv`` (or of the log) on the plot's axis: a date, or seconds."""
    return dt.datetime.fromisoformat(when.strip().replace("Z", "+00:00")) if iso else float(when)


def plot(out, title="", span=None):
    """``curves.png`` from ``curves.csv``: a panel per metric, a line per model (cumulative) and
    dots per window, over the events' time ``span`` (the first and last event times as the log
    writes them; None: every point) so that the labels arriving after the last event do not
    squeeze the events into a corner: the metrics at the end are in ``table.csv``. Returns a note
    when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return (
            "matplotlib is not installed: curves.png skipped (pip install 'imbalance-stream[plot]')"
        )
    matplotlib.use("Agg")
    import matplotlib.dates
    import matplotlib.pyplot as plt

    data: dict = {}
    iso = None
    rows = list(_csv_rows(os.path.join(out, "curves.csv")))[1:]
    for model, curve, when, _, metric, value in rows:
        if iso is None:
            iso = not is_number(when)
        data.setdefault(metric, {}).setdefault((model, curve), []).append(
            (_axis_time(when, iso), float(value))
        )
    names = list(data) or ["(no labels)"]
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.6 * len(names)), squeeze=False)
    for ax, metric in zip(axes[:, 0], names):
        for (model, curve), points in data.get(metric, {}).items():
            xs, ys = zip(*points)
            if curve == "cumulative":
                ax.plot(xs, ys, label=model)
            else:
                ax.plot(xs, ys, ".", alpha=0.5, label=f"{model} per window")
        ax.set_title(metric)
        ax.grid(alpha=0.3)
        if span is not None and iso is not None:
            starts = [x for (_, curve), points in data.get(metric, {}).items()
                      if curve == "window" for x, _ in points]  # fmt: skip
            first, last = (_axis_time(when, iso) for when in span)
            ax.set_xlim(min([first, *starts]), last)
        if iso:
            locator = matplotlib.dates.AutoDateLocator()
            ax.xaxis.set_major_locator(locator)
            ax.xaxis.set_major_formatter(matplotlib.dates.ConciseDateFormatter(locator))
        if metric in data:  # the "(no labels)" panel has no lines to name
            ax.legend(fontsize="small")
    axes[-1, 0].set_xlabel("event time" if not iso else "time (UTC)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curves.png"), dpi=110, metadata={"Software": None})
    plt.close(fig)
    return None
