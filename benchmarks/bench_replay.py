"""Replay overhead and memory: rows per second of ``imbalance_stream.replay`` against a bare loop of
the same model over the same rows, and peak memory against the number of rows.

The log is River's Phishing (1,250 rows, 9 features) repeated with advancing times, written as a
CSV event log (5 accounts, label delays of about an hour, 10% never labelled). The bare loop reads
the same CSV with the csv module and runs ``predict_proba_one``, ``predict_one`` and
``learn_one`` (test then train, no delay) with one global model; the replay does the same calls
per row plus parsing, River's ``simulate_qa`` queue, the prediction and answer files,
checkpoints every 100,000 rows and the merge. Each size runs in a fresh process so that its peak
RSS (``ru_maxrss``) is its own. Rows per second are given over wall-clock time and over CPU
time (``time.process_time``), both around the loop only; on a shared machine read the CPU-time
ratio, since the two loops run one after the other and the load may change in between.

    python benchmarks/bench_replay.py                   # 50k, 200k, 800k rows
    python benchmarks/bench_replay.py --rows 1000000 3000000
    python benchmarks/bench_replay.py --rows 10000000   # 10 million (37 min, loaded 2 cores)
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

MODEL = '{ class = "PA", params = { C = 1.0 } }'


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


def scenario_text(path):
    return f'''
kind = "replay"
name = "bench"
[log]
path = "{path}"
time = "time"
id = "event_id"
label = "label"
labels = [false, true]
label_time = "label_time"
[log.features]
exclude = ["entity"]
[models]
M = {MODEL}
[metrics]
BA = "river.metrics.BalancedAccuracy"
[replay]
step = 10000
'''


def bare(path):
    from imbalance_stream.registry import build

    model = build(json.loads('{"class": "PA", "params": {"C": 1.0}}'), "estimator")
    skip = {"event_id", "time", "entity", "label", "label_time"}
    n = 0
    start, cpu = time.perf_counter(), time.process_time()
    with open(path, newline="") as handle:
        for row in csv.DictReader(handle):
            x = {k: float(v) for k, v in row.items() if k not in skip}
            y = row["label"] == "True"
            model.predict_proba_one(x)
            model.predict_one(x)
            model.learn_one(x, y)
            n += 1
    return n, time.perf_counter() - start, time.process_time() - cpu


def replayed(path, out):
    from imbalance_stream.replay import parse, replay

    scenario = parse(scenario_text(path), name="bench")
    start, cpu = time.perf_counter(), time.process_time()
    replay(scenario, out_dir=out)
    return time.perf_counter() - start, time.process_time() - cpu


def child(kind, path, out):
    if kind == "bare":
        _, seconds, cpu = bare(path)
    else:
        seconds, cpu = replayed(path, out)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # MiB on Linux
    print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_mib": peak}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[50_000, 200_000, 800_000])
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    print(
        f"{'rows':>10} {'bare rows/s':>12} {'replay rows/s':>14} {'ratio':>6} "
        f"{'bare rows/cpu-s':>16} {'replay rows/cpu-s':>18} {'ratio':>6} "
        f"{'bare MiB':>9} {'replay MiB':>11}"
    )
    with tempfile.TemporaryDirectory() as folder:
        for n in args.rows:
            path = os.path.join(folder, f"log{n}.csv")
            write_log(path, n)
            results = {}
            for kind in ("bare", "replay"):
                done = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--child",
                        kind,
                        path,
                        os.path.join(folder, f"out{n}"),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
                results[kind] = json.loads(done.stdout.strip().splitlines()[-1])
            b, r = results["bare"], results["replay"]
            print(
                f"{n:>10,} {n / b['seconds']:>12,.0f} {n / r['seconds']:>14,.0f} "
                f"{b['seconds'] / r['seconds']:>6.2f} {n / b['cpu']:>16,.0f} "
                f"{n / r['cpu']:>18,.0f} {b['cpu'] / r['cpu']:>6.2f} {b['peak_mib']:>9.0f} "
                f"{r['peak_mib']:>11.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
