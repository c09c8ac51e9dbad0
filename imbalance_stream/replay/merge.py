"""Put the cells' part files together into the replay's outputs, in constant memory.

* ``predictions.csv``: the cells' predictions merged in replay order (and model order within a
  row); ``predictions.parquet`` instead when asked;
* ``rejected.csv``: row, model (empty: the row could not be read, so no model saw it) and reason;
* the metrics: the answer records of every cell merged in label order (label time, then the
  question's place), each updating the metrics of its model as the label arrives, as River's
  progressive validation does. ``curves.csv`` holds the cumulative values every ``step`` labels
  (``curve = "cumulative"``, at the label's time) and, with a ``window``, the values over the
  events of each window of event time (``curve = "window"``, at the window's start);
* ``entities.csv``: per entity and model, its events, the labels it learned and the size of its
  model (bytes, pickled);
* ``table.csv``: one row per model.

Each file is written under a temporary name and renamed into place.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import heapq
import os
import pickle

from .config import MICRO, _is_number
from .engine import load_checkpoint, read_answers

__all__ = ["merge"]

PREDICTION_COLUMNS = [
    "row",
    "event_id",
    "time",
    "entity",
    "model",
    "prediction",
    "score",
    "label",
    "label_time",
]


@contextlib.contextmanager
def _atomic(path, mode="w"):
    tmp = f"{path}.tmp"
    kwargs = {"newline": "", "encoding": "utf-8"} if "b" not in mode else {}
    with open(tmp, mode, **kwargs) as handle:
        yield handle
    os.replace(tmp, path)


def _csv_rows(path):
    with open(path, newline="", encoding="utf-8") as handle:
        yield from csv.reader(handle)


def _time_writer(iso: bool):
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    if iso:
        return lambda micros: (epoch + dt.timedelta(microseconds=micros)).isoformat()

    def number(micros):
        seconds = micros / MICRO
        return str(int(seconds)) if seconds.is_integer() else repr(seconds)

    return number


def merge(scenario, work, cells, out, metrics_for, predictions_format="csv"):
    """Write the outputs of a finished replay from the part files in ``work`` to ``out``;
    returns ``(table rows, models)`` with ``models`` ``{label: model or {entity: model}}``."""
    slots = scenario.slots()
    labels = [label for label, _, _ in slots]
    parts = [os.path.join(work, f"cell{cell['index']}") for cell in cells]

    # predictions, in replay order
    iso = None
    target = os.path.join(out, "predictions.csv")
    with _atomic(target) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(PREDICTION_COLUMNS)
        streams = [_csv_rows(f"{p}.pred") for p in parts]
        for record in heapq.merge(*streams, key=lambda r: (int(r[0]), int(r[1]))):
            if iso is None:
                iso = not _is_number(record[4])
            writer.writerow(record[2:])
    if predictions_format == "parquet":
        _to_parquet(target, os.path.join(out, "predictions.parquet"))
        os.unlink(target)

    # rejected rows
    rejected = 0
    with _atomic(os.path.join(out, "rejected.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["row", "model", "reason"])
        streams = [_csv_rows(f"{p}.rej") for p in parts]
        for record in heapq.merge(*streams, key=lambda r: (int(r[0]), int(r[1]))):
            writer.writerow([record[0], record[2], record[3]])
            rejected += 1

    # metrics as the labels arrive
    when = _time_writer(bool(iso))
    step = scenario.step
    window = scenario.window
    metrics = [metrics_for() for _ in slots]
    windows: dict = {}
    seen = [0] * len(slots)
    last = [None] * len(slots)
    with _atomic(os.path.join(out, "curves.csv")) as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["model", "curve", "time", "labels", "metric", "value"])
        streams = [read_answers(f"{p}.ans") for p in parts]
        for label_time, _, midx, event_time, y, taken in heapq.merge(
            *streams, key=lambda r: (r[0], r[1], r[2])
        ):
            _update(metrics[midx], y, taken)
            if window is not None:
                key = (midx, event_time // window)
                if key not in windows:
                    windows[key] = [metrics_for(), 0]
                _update(windows[key][0], y, taken)
                windows[key][1] += 1
            seen[midx] += 1
            last[midx] = label_time
            if seen[midx] % step == 0:
                _write_metrics(
                    writer, labels[midx], "cumulative", when(label_time), seen[midx], metrics[midx]
                )
        for midx, n in enumerate(seen):
            if n % step and last[midx] is not None:
                _write_metrics(
                    writer, labels[midx], "cumulative", when(last[midx]), n, metrics[midx]
                )
        for (midx, index), (window_metrics, n) in sorted(windows.items()):
            _write_metrics(writer, labels[midx], "window", when(index * window), n, window_metrics)

    # entities, and the final models
    models: dict = {label: {} if mode == "entity" else None for label, _, mode in slots}
    for cell in cells:
        state = load_checkpoint(f"{os.path.join(work, 'cell' + str(cell['index']))}.ckpt")
        for j, midx in enumerate(cell["slots"]):
            if slots[midx][2] == "entity":
                models[labels[midx]].update(state["models"][j])
            else:
                models[labels[midx]] = state["models"][j]
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

    counts = _counts(work, cells, len(slots))
    table = []
    for midx, (label, _, mode) in enumerate(slots):
        row = {"model": label}
        for name, metric in metrics[midx].items():
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
    with _atomic(os.path.join(out, "table.csv")) as handle:
        writer = csv.DictWriter(handle, fieldnames=list(table[0]), lineterminator="\n")
        writer.writeheader()
        for row in table:
            writer.writerow({k: (repr(v) if isinstance(v, float) else v) for k, v in row.items()})
    return table, models, rejected


def _counts(work, cells, n):
    total = {
        "events": [0] * n,
        "labelled": [0] * n,
        "never": [0] * n,
        "rejected": [0] * n,
        "read_rejects": 0,
    }
    for k, cell in enumerate(cells):
        state = load_checkpoint(os.path.join(work, f"cell{cell['index']}.ckpt"))
        for key in ("events", "labelled", "never", "rejected"):
            for i in range(n):
                total[key][i] += state["counts"][key][i]
        if k == 0:
            total["read_rejects"] = state["read_rejects"]
    return total


def _update(metrics, y, taken):
    for metric in metrics.values():
        if isinstance(taken, tuple):  # a classifier: (label, probabilities)
            metric.update(y, taken[0] if metric.requires_labels else taken[1])
        else:  # an anomaly detector's score
            metric.update(y, taken)


def _write_metrics(writer, label, curve, when, n, metrics):
    for name, metric in metrics.items():
        writer.writerow([label, curve, when, n, name, repr(float(metric.get()))])


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


def plot(out, title=""):
    """``curves.png`` from ``curves.csv``: a panel per metric, a line per model (cumulative) and
    dots per window. Returns a note when matplotlib is missing."""
    try:
        import matplotlib
    except ImportError:
        return (
            "matplotlib is not installed: curves.png skipped (pip install 'imbalance-stream[plot]')"
        )
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data: dict = {}
    iso = None
    rows = list(_csv_rows(os.path.join(out, "curves.csv")))[1:]
    for model, curve, when, _, metric, value in rows:
        if iso is None:
            iso = not _is_number(when)
        x = dt.datetime.fromisoformat(when) if iso else float(when)
        data.setdefault(metric, {}).setdefault((model, curve), []).append((x, float(value)))
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
        ax.legend(fontsize="small")
    axes[-1, 0].set_xlabel("event time" if not iso else "time (UTC)")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curves.png"), dpi=110, metadata={"Software": None})
    plt.close(fig)
    return None
