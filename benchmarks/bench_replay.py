"""Replay speed and memory: ``imbalance-stream replay`` against a bare loop of the same model over
the same rows, in the same run, and the scaling of ``--n-jobs 2`` on a per-entity log.

The log is River's Phishing (1,250 rows, 9 features) repeated with advancing times, written as a
CSV event log: ISO 8601 times, 5 accounts, a label-time column (label delays of about an hour,
10% never labelled). The bare loop is what a user would write without the replay: the csv module
reads the log, River's ``stream.simulate_qa`` orders the predictions and the late labels, the
model predicts (``predict_proba_one`` and ``predict_one``) and one prediction line is written per
row, then learns each label when it arrives. The replay does the same calls plus what a replay
adds: checking every value, rejects, the metric as each label arrives, checkpoints every 100,000
rows and the output files.

Each command runs in a fresh process. Reported: rows per CPU-second of the loop alone
(``time.process_time`` around it), the whole process's CPU time including start-up (what a user
waits for; ``getrusage`` of the child), and the peak RSS (``ru_maxrss``, which includes the
imports of numpy, numba and River). On a shared machine read the CPU figures: the commands run
one after the other and the load may change in between.

    python benchmarks/bench_replay.py --rows 100000 1000000 --model lr acog
    python benchmarks/bench_replay.py --rows 200000 --model pa --jobs     # also --n-jobs 2
    python benchmarks/bench_replay.py --rows 1000000 --parquet     # also the log as Parquet
    python benchmarks/bench_replay.py --rows 1000000 --label-delay     # labels a day late
    python benchmarks/bench_replay.py --rows 100000 1000000 --model arow sacog sacog-sparse
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

#: The models compared: a spec for the replay's [models] table, and the same model built in
#: Python for the bare loop.
MODELS = {
    "pa": '{ class = "PA", params = { C = 1.0 } }',
    "lr": '["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]',
    "acog": '{ class = "ACOG", params = { covariance = "diag" } }',
    "arow": '{ class = "AROW", params = { r = 1.0 } }',
    "sacog": '{ class = "SACOG", params = { m = 5, seed = 1 } }',
    "sacog-sparse": '{ class = "SACOG", params = { m = 5, sparse = true, seed = 1 } }',
    "koil": '{ class = "KOIL", params = { budget = 100, seed = 1 } }',
    "lasvm": '{ class = "LASVM", params = { C = 1.0, gamma = 0.1, seed = 1 } }',
}
LABELS = {
    "pa": "PA",
    "lr": "StandardScaler | LogisticRegression",
    "acog": "ACOG (diag)",
    "arow": "AROW",
    "sacog": "SACOG (m=5)",
    "sacog-sparse": "SACOG (m=5, sparse)",
    "koil": "KOIL (budget 100)",
    "lasvm": "LASVM (rbf, gamma 0.1)",
}


def build_model(kind):
    """The bare loop's model; each kind imports only its own module, as a user's loop would."""
    if kind == "lr":
        from river import linear_model, preprocessing

        return preprocessing.StandardScaler() | linear_model.LogisticRegression()
    if kind == "koil":
        from imbalance_stream.kernel import KOIL

        return KOIL(budget=100, seed=1)
    if kind == "lasvm":
        from imbalance_stream.svm import LASVM

        return LASVM(C=1.0, gamma=0.1, seed=1)
    from imbalance_stream.linear_model import ACOG, AROW, PA, SACOG

    if kind == "pa":
        return PA(C=1.0)
    if kind == "arow":
        return AROW(r=1.0)
    if kind == "sacog":
        return SACOG(m=5, seed=1)
    if kind == "sacog-sparse":
        return SACOG(m=5, sparse=True, seed=1)
    return ACOG(covariance="diag")


def write_log(path, n):
    from river import datasets

    from imbalance_stream.replay.sources import events_from_dataset

    base = list(
        events_from_dataset(datasets.Phishing(), seed=0, entities=5, delay_scale=3600.0, never=0.1)
    )
    span = dt.timedelta(days=1)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(base[0]))
        for i in range(n):
            record = dict(base[i % len(base)])
            shift = span * (i // len(base))
            record["event_id"] = f"ev{i}"
            record["time"] = (dt.datetime.fromisoformat(record["time"]) + shift).isoformat()
            if record["label_time"]:
                when = dt.datetime.fromisoformat(record["label_time"]) + shift
                record["label_time"] = when.isoformat()
            writer.writerow(record.values())


def scenario_text(path, kind, per_entity, label_delay=None):
    arrival = 'label_time = "label_time"'
    if label_delay is not None:  # the label-time column left unread
        arrival = f'label_delay = "{label_delay}"\n[log.features]\nexclude = ["label_time"]'
    return f'''
kind = "replay"
name = "bench"
[log]
path = "{path}"
time = "time"
id = "event_id"
entity = "entity"
label = "label"
labels = [false, true]
{arrival}
[models]
M = {MODELS[kind]}
[metrics]
BA = "river.metrics.BalancedAccuracy"
[replay]
per_entity = {"true" if per_entity else "false"}
step = 10000
'''


def bare(path, out, kind, one_day=False):
    """The loop a user would write: csv, simulate_qa, the model, a prediction line per row
    (``one_day``: every label a day after its event, the label-time column unused)."""
    from river import stream

    model = build_model(kind)
    skip = {"event_id", "time", "entity", "label", "label_time"}
    no_delay = dt.timedelta(0)
    day = dt.timedelta(days=1)

    def rows(handle):
        for row in csv.DictReader(handle):
            x = {k: float(v) for k, v in row.items() if k not in skip}
            row["x"] = x
            row["at"] = dt.datetime.fromisoformat(row["time"])
            yield row, row["label"] == "True"

    def delay(row, _):
        if one_day:
            return day
        if not row["label_time"]:  # a label that never comes: its place freed at once
            return no_delay
        return dt.datetime.fromisoformat(row["label_time"]) - row["at"]

    n = 0
    start = time.process_time()
    with open(path, newline="") as handle, open(out, "w", newline="") as sink:
        writer = csv.writer(sink)
        for _, row, y in stream.simulate_qa(rows(handle), lambda r: r["at"], delay, copy=False):
            if y is None:
                proba = model.predict_proba_one(row["x"])
                prediction = model.predict_one(row["x"])
                writer.writerow([row["event_id"], row["time"], prediction, proba.get(True, 0.0)])
                n += 1
            elif row["label_time"] or one_day:
                model.learn_one(row["x"], y)
    return n, time.process_time() - start


def replayed(path, out, kind, per_entity=False, n_jobs=None, label_delay=None):
    from imbalance_stream.replay import parse, replay

    scenario = parse(scenario_text(path, kind, per_entity, label_delay), name="bench")
    start = time.process_time()
    replay(scenario, out_dir=out, n_jobs=n_jobs)
    return time.process_time() - start


def write_parquet(csv_path, path):
    """The CSV log as a Parquet file, its times, ids and entities as the CSV's texts."""
    import pyarrow as pa
    import pyarrow.csv as pa_csv
    import pyarrow.parquet as pq

    texts = {name: pa.string() for name in ("event_id", "time", "entity", "label_time")}
    options = pa_csv.ConvertOptions(column_types=texts, strings_can_be_null=True)
    pq.write_table(pa_csv.read_csv(csv_path, convert_options=options), path)


def child(what, path, out, kind):
    if what == "bare":
        _, cpu = bare(path, out + ".csv", kind)
    elif what == "bare-day":
        _, cpu = bare(path, out + ".csv", kind, one_day=True)
    elif what == "replay":
        cpu = replayed(path, out, kind)
    elif what == "replay-day":
        cpu = replayed(path, out, kind, label_delay="1d")
    elif what == "parquet":
        write_parquet(path, out)
        return
    elif what == "replay-rows":  # the row-by-row replay (the columnar reading off)
        from imbalance_stream.replay import engine

        engine.COLUMNAR = False
        cpu = replayed(path, out, kind)
    else:  # per-entity models, serial or on two processes
        cpu = replayed(path, out, kind, per_entity=True, n_jobs=2 if what == "entities2" else None)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
    print(json.dumps({"cpu": cpu, "peak_mib": peak}))


def run_child(what, path, out, kind):
    """The child's report, with its whole process CPU (start-up included) and wall time."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, __file__, "--child", what, path, out, kind],
        capture_output=True,
        text=True,
        check=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["process_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    report["wall"] = wall
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000])
    parser.add_argument("--model", nargs="*", choices=sorted(MODELS), default=["lr", "acog"])
    parser.add_argument("--jobs", action="store_true", help="also per-entity, serial and 2 jobs")
    parser.add_argument(
        "--parquet",
        action="store_true",
        help="also the log as Parquet: replayed a column at a time and row by row",
    )
    parser.add_argument(
        "--label-delay",
        action="store_true",
        help="also every label a day after its event (label_delay), not the label-time column",
    )
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print(
        f"{'rows':>10}  {'model':<36} {'bare rows/cpu-s':>15} {'replay rows/cpu-s':>17} "
        f"{'bare process s':>14} {'replay process s':>16} {'replay/bare':>11} "
        f"{'bare MiB':>8} {'replay MiB':>10}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for n in args.rows:
            path = os.path.join(folder, f"log{n}.csv")
            write_log(path, n)
            for kind in args.model:
                out = os.path.join(folder, f"out{n}-{kind}")
                b = run_child("bare", path, out, kind)
                r = run_child("replay", path, out, kind)
                print(
                    f"{n:>10,}  {LABELS[kind]:<36} {n / b['cpu']:>15,.0f} {n / r['cpu']:>17,.0f} "
                    f"{b['process_cpu']:>14.1f} {r['process_cpu']:>16.1f} "
                    f"{r['process_cpu'] / b['process_cpu']:>11.2f} {b['peak_mib']:>8.0f} "
                    f"{r['peak_mib']:>10.0f}",
                    flush=True,
                )
                if args.label_delay:
                    bd = run_child("bare-day", path, out + "-day", kind)
                    rd = run_child("replay-day", path, out + "-day", kind)
                    print(
                        f"{'':>10}  labels a day late (label_delay): bare "
                        f"{bd['process_cpu']:.1f} s, replay {rd['process_cpu']:.1f} s process CPU, "
                        f"replay/bare {rd['process_cpu'] / bd['process_cpu']:.2f}",
                        flush=True,
                    )
                if args.parquet:
                    parquet = os.path.join(folder, f"log{n}.parquet")
                    if not os.path.exists(parquet):  # in a process of its own: a child's
                        # peak memory (ru_maxrss) counts its parent's at the fork
                        subprocess.run(
                            [sys.executable, __file__, "--child", "parquet", path, parquet, kind],
                            check=True,
                        )
                    columns = run_child("replay", parquet, out + "-pq", kind)
                    rows = run_child("replay-rows", parquet, out + "-pq-rows", kind)
                    print(
                        f"{'':>10}  Parquet log: columnar {columns['process_cpu']:.1f} s, "
                        f"row by row {rows['process_cpu']:.1f} s process CPU "
                        f"({rows['process_cpu'] / columns['process_cpu']:.2f}x); against the "
                        f"bare CSV loop {columns['process_cpu'] / b['process_cpu']:.2f}; "
                        f"{columns['peak_mib']:.0f} and {rows['peak_mib']:.0f} MiB",
                        flush=True,
                    )
                if args.jobs:
                    one = run_child("entities1", path, out + "-e1", kind)
                    two = run_child("entities2", path, out + "-e2", kind)
                    print(
                        f"{'':>10}  per-entity models: 1 job {one['wall']:.1f} s wall, "
                        f"2 jobs {two['wall']:.1f} s wall (speed-up "
                        f"{one['wall'] / two['wall']:.2f}x); process CPU {one['process_cpu']:.1f} "
                        f"s and {two['process_cpu']:.1f} s",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
