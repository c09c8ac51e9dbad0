"""Pin the outputs of the replay (and of a prequential run with delayed labels) before a refactor or
a speed change, and check them after: the SHA-256 of every output file of a set of replays that
cover the engine's paths.

    python benchmarks/replay_pins.py write benchmarks/replay_pins.json   # before the change
    python benchmarks/replay_pins.py check benchmarks/replay_pins.json   # after it

The logs are built here, deterministically, from River's bundled Phishing (and the data home's a9a
for the example scenario, when present):

* ``delay``: 5,000 rows, numeric times every 30 minutes, every label one day late (the shape of an
  electricity-market log); PA, ``StandardScaler | LogisticRegression`` and ACOG-diag; metrics with
  a step and a window;
* ``entities``: 2,500 rows, ISO times with ties, 7 accounts, heavy-tailed label times (10% never),
  damaged rows (a bad value, an unknown label); per-entity and global ACOG-diag and KOIL, serial
  and on two processes (the two must agree);
* ``sorted``: the same rows shuffled in time, ``out_of_order = "sort"``, as JSON lines;
* ``detector`` and ``active``: a streaming density-ratio detector and River's ``EntropySampler``;
* ``example``: ``scenarios/examples/replay.toml`` on its first 3,000 events (needs a9a);
* ``prequential``: a prequential scenario with ``delay = 200`` (``imbalance-stream run``).

The files compared are every output but ``run.json`` (times, versions) and ``curves.png``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import pathlib
import random
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
SKIPPED = {"run.json", "curves.png"}

#: The log of the "delay" and "detector" replays, with its label delay left to each.
DELAY_LOG = """kind = "replay"
[log]
path = "delay.csv"
time = "t"
label = "y"
labels = [0, 1]
positive = 1
"""

DELAY = (
    'name = "delay"\n'
    + DELAY_LOG
    + """label_delay = "1d"
[models]
PA = "river.linear_model.PAClassifier"
LR = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]
ACOG = { class = "ACOG", params = { covariance = "diag" } }
[metrics]
BA = "river.metrics.BalancedAccuracy"
AUC = { class = "ExactROCAUC", params = { pos_val = 1 } }
[replay]
step = 500
window = "7d"
"""
)

ENTITIES = """name = "entities"
kind = "replay"
[log]
path = "{path}"
time = "time"
id = "event_id"
entity = "card"
label = "label"
labels = ["legit", "fraud"]
positive = "fraud"
label_time = "label_time"
{extra}
[models]
ACOG = {{ class = "ACOG", params = {{ covariance = "diag" }} }}
KOIL = {{ class = "KOIL", params = {{ budget = 20 }} }}
[metrics]
BA = "river.metrics.BalancedAccuracy"
[replay]
global_model = true
step = 200
window = "1d"
checkpoint_every = 700
"""

DETECTOR = (
    'name = "detector"\n'
    + DELAY_LOG
    + """label_delay = "2h"
[models.KDE]
class = "KDENovelty"
params = { mode = "stream", n_reference = 100, n_test = 20, refresh_every = 50 }
[models.Entropy]
class = "river.active.EntropySampler"
params = { classifier = { class = "river.linear_model.LogisticRegression" } }
[metrics]
AUC = { class = "ExactROCAUC", params = { pos_val = 1 } }
"""
)

PREQUENTIAL = """name = "prequential"
[stream]
source = "river.datasets.Phishing"
n_samples = 1250
seed = 3
delay = 200
[models]
ACOG = { class = "ACOG", params = { covariance = "diag" } }
LR = "river.linear_model.LogisticRegression"
[metrics]
BA = "river.metrics.BalancedAccuracy"
[output]
step = 250
"""


def _phishing():
    from river import datasets

    return [(x, int(y)) for x, y in datasets.Phishing()]


def write_logs(folder: pathlib.Path) -> None:
    rows = _phishing()
    names = list(rows[0][0])
    with open(folder / "delay.csv", "w") as handle:
        handle.write(",".join(["t", *names, "y"]) + "\n")
        for i in range(5000):
            x, y = rows[i % len(rows)]
            values = [repr(x[name]) for name in names]
            handle.write(",".join([str(1800 * i), *values, str(y)]) + "\n")
    draw = random.Random(11)
    start = dt.datetime(2024, 3, 1, tzinfo=dt.timezone.utc)
    clock = 0
    records = []
    for i in range(2500):
        x, y = rows[i % len(rows)]
        clock += int(draw.expovariate(1 / 90)) // 60 * 60  # whole minutes: ties happen
        when = start + dt.timedelta(seconds=clock)
        lag = int(draw.paretovariate(1.5) * 3600)
        label_time = "" if draw.random() < 0.1 else (when + dt.timedelta(seconds=lag)).isoformat()
        label = "fraud" if y else "legit"
        if i == 301:
            label = "unknown"
        record = {
            "event_id": f"ev{i}",
            "time": when.isoformat(),
            "card": f"c{draw.randrange(7)}",
            "label": label,
            "label_time": label_time,
            **{name: repr(x[name]) for name in names},
        }
        if i == 777:
            record[names[0]] = "oops"
        records.append(record)
    header = list(records[0])
    with open(folder / "entities.csv", "w") as handle:
        handle.write(",".join(header) + "\n")
        for record in records:
            handle.write(",".join(record[c] for c in header) + "\n")
    shuffled = records[:]
    random.Random(5).shuffle(shuffled)
    with open(folder / "shuffled.jsonl", "w") as handle:
        for record in shuffled:
            handle.write(json.dumps(record) + "\n")
    (folder / "delay.toml").write_text(DELAY)
    (folder / "entities.toml").write_text(ENTITIES.format(path="entities.csv", extra=""))
    (folder / "sorted.toml").write_text(
        ENTITIES.format(path="shuffled.jsonl", extra='out_of_order = "sort"').replace(
            'name = "entities"', 'name = "sorted"'
        )
    )
    (folder / "detector.toml").write_text(DETECTOR)
    (folder / "prequential.toml").write_text(PREQUENTIAL)
    example = (ROOT / "scenarios" / "examples" / "replay.toml").read_text()
    (folder / "example.toml").write_text(example.replace("n_samples = 15000", "n_samples = 3000"))


def _have_a9a() -> bool:
    from imbalance_stream.datasets import fetch, get_data_home

    home = get_data_home()
    return all(home.joinpath(*p.split("/")).is_file() for p in fetch.NAMES["a9a"])


def commands(folder: pathlib.Path) -> dict[str, list[str]]:
    replay = [sys.executable, "-m", "imbalance_stream.cli", "replay"]
    runs = {
        "delay": [*replay, "delay.toml", "--out", "out/delay"],
        "entities": [*replay, "entities.toml", "--out", "out/entities"],
        "entities-2jobs": [
            *replay,
            "entities.toml",
            "--out",
            "out/entities-2jobs",
            "--n-jobs",
            "2",
        ],
        "sorted": [*replay, "sorted.toml", "--out", "out/sorted"],
        "detector": [*replay, "detector.toml", "--out", "out/detector"],
        "prequential": [
            sys.executable,
            "-m",
            "imbalance_stream.cli",
            "run",
            "prequential.toml",
            "--out",
            "out/prequential",
        ],
    }
    if _have_a9a():
        runs["example"] = [*replay, "example.toml", "--out", "out/example"]
    return {name: [*command, "--quiet"] for name, command in runs.items()}


def pins(folder: pathlib.Path) -> dict:
    write_logs(folder)
    result = {}
    for name, command in commands(folder).items():
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"{name}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
        out = folder / "out" / name
        result[name] = {
            path.name: hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(out.iterdir())
            if path.is_file() and path.name not in SKIPPED
        }
        print(f"{name}: {len(result[name])} files", file=sys.stderr)
    return result


def _commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True)
    return done.stdout.decode().strip()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("write", "check"))
    parser.add_argument("pins", type=pathlib.Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        now = pins(pathlib.Path(tmp))
    if args.action == "write":
        args.pins.write_text(json.dumps({"commit": _commit(), "outputs": now}, indent=1) + "\n")
        print(f"wrote {sum(map(len, now.values()))} hashes to {args.pins}")
        return 0
    pinned = json.loads(args.pins.read_text())
    differ = [
        f"{name}/{file}"
        for name, files in pinned["outputs"].items()
        if name in now
        for file, pinned_hash in files.items()
        if now[name].get(file) != pinned_hash
    ]
    missing = sorted(set(pinned["outputs"]) - set(now))
    if missing:
        print(f"not run here (no data): {', '.join(missing)}")
    if differ:
        print(f"differ from the pins of {pinned['commit']}: {', '.join(differ)}")
        return 1
    print(f"every output equals the pins of {pinned['commit']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
