"""Event-log replay (imbalance_stream.replay): sources, River's time semantics, bad rows, resume
after SIGKILL, serial = processes = Dask, the CLI, and a small version of the example scenario."""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import pathlib
import pickle
import random
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from river import compose, datasets, evaluate, metrics

from imbalance_stream.cli import main
from imbalance_stream.replay import ReplayError, parse, replay
from imbalance_stream.replay.sources import events_from_dataset, write_csv_log

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUTPUTS = ("predictions.csv", "rejected.csv", "curves.csv", "entities.csv", "table.csv")
FEATURES = [
    "empty_server_form_handler",
    "popup_window",
    "https",
    "request_from_other_domain",
    "anchor_from_other_domain",
    "is_popular",
    "long_url",
    "age_of_domain",
    "ip_in_url",
]


def _log(path, n=None, entities=5, **events):
    """River's bundled Phishing as an event log (5 accounts, label delays of about an hour)."""
    options = {
        "seed": 3,
        "interval": 60.0,
        "entities": entities,
        "delay_scale": 3600.0,
        "never": 0.1,
        **events,
    }
    write_csv_log(events_from_dataset(datasets.Phishing(), n_samples=n, **options), path)
    return path


def _scenario(folder, **kwargs):
    return parse(_text(**kwargs), base=folder)


def _text(
    path="log.csv",
    model='{ class = "ACOG", params = { covariance = "diag" } }',
    extra_log="",
    replay_options="",
    metrics_table=None,
):
    metrics_table = metrics_table or (
        'BA = "river.metrics.BalancedAccuracy"\n'
        'AUC = { class = "ExactROCAUC", params = { pos_val = true } }'
    )
    return f'''
name = "t"
kind = "replay"
[log]
path = "{path}"
time = "time"
id = "event_id"
entity = "entity"
label = "label"
labels = [false, true]
label_time = "label_time"
{extra_log}
[models]
M = {model}
[metrics]
{metrics_table}
[replay]
global_model = true
step = 100
window = "6h"
{replay_options}
'''


def _outputs(folder):
    return {name: (folder / name).read_bytes() for name in OUTPUTS}


@pytest.fixture(scope="module")
def phishing(tmp_path_factory):
    folder = tmp_path_factory.mktemp("phishing")
    _log(folder / "log.csv")
    return folder


@pytest.fixture(scope="module")
def reference(phishing):
    """The serial replay every other run is compared with."""
    result = replay(_scenario(phishing), out_dir=phishing / "serial")
    return result


def test_outputs(phishing, reference):
    out = reference.out_dir
    rows = list(csv.DictReader(open(out / "predictions.csv")))
    assert len(rows) == 2 * 1250  # per-entity and global model
    assert {r["model"] for r in rows} == {"M", "M (global)"}
    never = [r for r in rows if r["label"] == ""]
    assert never and all(r["label_time"] == "" for r in never)
    table = {r["model"]: r for r in reference.table}
    assert table["M"]["events"] == 1250
    assert table["M"]["labelled"] + table["M"]["never"] == 1250
    assert table["M"]["entities"] == 5 and table["M (global)"]["entities"] == 1
    curves = list(csv.DictReader(open(out / "curves.csv")))
    assert {c["curve"] for c in curves} == {"cumulative", "window"}
    entities = list(csv.DictReader(open(out / "entities.csv")))
    assert len(entities) == 5 and all(int(e["bytes"]) > 0 for e in entities)
    assert not (out / ".replay").exists()


def _two_hours_late(folder, models_and_metrics):
    """A replay without entities, every label two hours late, and the same log as River's
    stream of ``(x, y)`` with the event time as ``x["t"]`` (for River's ``moment``)."""
    scenario = parse(
        """
kind = "replay"
[log]
path = "log.csv"
time = "time"
label = "label"
labels = [false, true]
label_delay = "2h"
[log.features]
exclude = ["event_id", "entity", "label_time"]
"""
        + models_and_metrics,
        base=folder,
    )
    stream = [
        (
            {k: float(r[k]) for k in FEATURES} | {"t": dt.datetime.fromisoformat(r["time"])},
            r["label"] == "True",
        )
        for r in csv.DictReader(open(folder / "log.csv"))
    ]
    return scenario, stream


def test_time_semantics_are_rivers(phishing):
    """Without entities the replay is River's progressive validation with moment and delay."""
    folder = phishing
    scenario, stream = _two_hours_late(
        folder,
        """
[models]
LR = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]
[metrics]
BA = "river.metrics.BalancedAccuracy"
AUC = "river.metrics.ROCAUC"
""",
    )
    result = replay(scenario, out_dir=folder / "semantics")
    from river import linear_model, preprocessing

    for name, metric in (("BA", metrics.BalancedAccuracy()), ("AUC", metrics.ROCAUC())):
        model = (
            compose.Discard("t")
            | preprocessing.StandardScaler()
            | (linear_model.LogisticRegression())
        )
        expected = evaluate.progressive_val_score(
            stream, model, metric, moment="t", delay=dt.timedelta(hours=2)
        ).get()
        assert result.table[0][name] == pytest.approx(expected, abs=1e-12)


def test_an_active_learner_learns_only_the_labels_it_asked_for(phishing):
    """River's active protocol in a replay: every row is predicted and scored, and a label is
    learned only if the model asked for it when it predicted the row; the metrics are River's
    progressive validation of the same learner with the same delay, and ``labelled`` is River's
    "Samples used"."""
    from river import active, linear_model, preprocessing

    scenario, stream = _two_hours_late(
        phishing,
        """
[models]
AL = { class = "river.active.EntropySampler", params = { classifier = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"], discount_factor = 1.0, seed = 5 } }
[metrics]
BA = "river.metrics.BalancedAccuracy"
""",  # noqa: E501
    )
    result = replay(scenario, out_dir=phishing / "active")
    learner = active.EntropySampler(
        compose.Discard("t") | preprocessing.StandardScaler() | linear_model.LogisticRegression(),
        discount_factor=1.0,
        seed=5,
    )
    states = list(
        evaluate.iter_progressive_val_score(
            stream, learner, metrics.BalancedAccuracy(), moment="t", delay=dt.timedelta(hours=2)
        )
    )
    table = result.table[0]
    assert table["events"] == len(stream)
    assert table["BA"] == pytest.approx(states[-1]["BalancedAccuracy"].get(), abs=1e-12)
    assert 0 < table["labelled"] == states[-1]["Samples used"] < len(stream)


@pytest.mark.parametrize("fmt", ["jsonl", "parquet", "sqlite", "duckdb"])
def test_sources_agree(phishing, reference, tmp_path, fmt):
    rows = list(csv.DictReader(open(phishing / "log.csv")))
    if fmt == "jsonl":
        with open(tmp_path / "log.jsonl", "w") as handle:
            for r in rows:
                handle.write(json.dumps(r) + "\n")
        path, extra = "log.jsonl", ""
    elif fmt == "parquet":
        pa = pytest.importorskip("pyarrow")
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), tmp_path / "log.parquet", row_group_size=300)
        path, extra = "log.parquet", ""
    else:
        columns = list(rows[0])
        if fmt == "sqlite":
            db = sqlite3.connect(tmp_path / "log.db")
        else:
            duckdb = pytest.importorskip("duckdb")
            db = duckdb.connect(str(tmp_path / "log.duckdb"))
        db.execute(f"CREATE TABLE log ({', '.join(c + ' TEXT' for c in columns)})")
        db.executemany(
            f"INSERT INTO log VALUES ({', '.join('?' * len(columns))})",
            [tuple(r.values()) for r in rows],
        )
        db.commit()
        db.close()
        path = "log.db" if fmt == "sqlite" else "log.duckdb"
        extra = 'query = "SELECT * FROM log ORDER BY time, event_id"'
    result = replay(_scenario(tmp_path, path=path, extra_log=extra), out_dir=tmp_path / "out")
    assert _outputs(result.out_dir) == _outputs(reference.out_dir)


def test_parallel_and_dask_equal_serial(phishing, reference, tmp_path):
    scenario = _scenario(phishing)
    local = replay(scenario, out_dir=tmp_path / "jobs", n_jobs=2)
    assert _outputs(local.out_dir) == _outputs(reference.out_dir)
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(
        n_workers=2, processes=False, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        dask = replay(
            scenario, out_dir=tmp_path / "dask", n_jobs=3, scheduler=cluster.scheduler_address
        )
    assert _outputs(dask.out_dir) == _outputs(reference.out_dir)


def _bad_rows(rows, n, seed=0):
    """``rows`` with ``n`` bad rows mixed in (each copies a clean row, then breaks one thing)."""
    rng = random.Random(seed)
    breakers = [
        lambda r: r.update(https="abc"),
        lambda r: r.update(popup_window="nan"),
        lambda r: r.update(is_popular="inf"),
        lambda r: r.update(long_url=""),
        lambda r: r.update(label="maybe"),
        lambda r: r.update(time="yesterday"),
        lambda r: r.update(label_time="2000-01-01T00:00:00+00:00"),
        lambda r: r.update(entity=""),
        lambda r: r.pop("ip_in_url"),  # a short line: a missing column
    ]
    out = list(rows)
    for k in range(n):
        at = rng.randrange(1, len(out))
        bad = dict(rows[rng.randrange(len(rows))])
        bad["event_id"] = f"bad{k}"
        breakers[k % len(breakers)](bad)
        out.insert(at, bad)
    return out


def _write_rows(rows, path, columns):
    with open(path, "w", newline="") as handle:
        for r in [dict(zip(columns, columns))] + rows:
            handle.write(",".join(str(r[c]) for c in columns if c in r) + "\n")


def test_bad_rows_are_quarantined(phishing, reference, tmp_path):
    rows = list(csv.DictReader(open(phishing / "log.csv")))
    columns = list(rows[0])
    _write_rows(_bad_rows(rows, 1000), tmp_path / "log.csv", columns)
    result = replay(_scenario(tmp_path), out_dir=tmp_path / "out")
    rejected = list(csv.DictReader(open(tmp_path / "out" / "rejected.csv")))
    assert len(rejected) == result.rejected == 1000
    assert all(r["reason"] and r["model"] == "" for r in rejected)
    reasons = " ".join(r["reason"] for r in rejected)
    for word in (
        "cannot read 'abc'",
        "NaN",
        "infinite",
        "empty value",
        "unknown label",
        "as a time",
        "before the event time",
        "empty entity",
        "missing column",
    ):
        assert word in reasons
    assert result.table[0]["rejected"] == 1000
    # the models and the predictions are those of the clean log
    clean, dirty = reference.models, result.models
    assert pickle.dumps(clean["M (global)"]) == pickle.dumps(dirty["M (global)"])
    assert {e: pickle.dumps(m) for e, m in clean["M"].items()} == {
        e: pickle.dumps(m) for e, m in dirty["M"].items()
    }

    def without_row(path):
        return [r[1:] for r in csv.reader(open(path))]

    assert without_row(tmp_path / "out" / "predictions.csv") == without_row(
        reference.out_dir / "predictions.csv"
    )
    for name in ("curves.csv", "entities.csv"):
        assert (tmp_path / "out" / name).read_bytes() == (reference.out_dir / name).read_bytes()


def test_max_rejects_fails_fast(phishing, tmp_path, capsys):
    rows = list(csv.DictReader(open(phishing / "log.csv")))
    _write_rows(_bad_rows(rows[:200], 30), tmp_path / "log.csv", list(rows[0]))
    with pytest.raises(ReplayError, match="more than 5 rejected rows"):
        replay(_scenario(tmp_path), out_dir=tmp_path / "out", max_rejects=5)
    # the rows rejected by then are in the output folder, as the error says
    so_far = list(csv.DictReader(open(tmp_path / "out" / "rejected.csv")))
    assert len(so_far) == 6 and all(r["reason"] for r in so_far)
    rows_so_far = [int(r["row"]) for r in so_far]
    assert rows_so_far == sorted(rows_so_far)
    (tmp_path / "s.toml").write_text(_text())
    code = main(
        [
            "replay",
            str(tmp_path / "s.toml"),
            "--out",
            str(tmp_path / "cli"),
            "--max-rejects",
            "5",
            "--quiet",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "more than 5 rejected rows" in err and len(err.strip().splitlines()) == 1


def test_checkpoints_hold_the_metric_states(phishing, tmp_path):
    """A replay stopped by --max-rejects leaves its last checkpoint: the metric states in it are
    those of the labels learned by then (the uninterrupted run's curve at that many labels), and
    resuming from it gives the uninterrupted run's outputs byte for byte."""
    rows = list(csv.DictReader(open(phishing / "log.csv")))
    _write_rows(_bad_rows(rows, 60, seed=4), tmp_path / "log.csv", list(rows[0]))
    text = _text(replay_options="checkpoint_every = 100").replace("step = 100", "step = 1")
    scenario = parse(text, base=tmp_path)
    whole = replay(scenario, out_dir=tmp_path / "whole")
    with pytest.raises(ReplayError, match="more than 25 rejected rows"):
        replay(scenario, out_dir=tmp_path / "stopped", max_rejects=25)
    with open(tmp_path / "stopped" / ".replay" / "cell0.ckpt", "rb") as handle:
        state = pickle.load(handle)  # our own checkpoint
    assert not state.done and state.position > 0
    (track,) = state.tracks  # cell 0 holds the per-entity model "M", model index 0
    assert track.seen == state.counts["labelled"][0] > 0
    curve = {
        r["metric"]: r["value"]
        for r in csv.DictReader(open(whole.out_dir / "curves.csv"))
        if r["model"] == "M" and r["curve"] == "cumulative" and int(r["labels"]) == track.seen
    }
    assert curve == {name: repr(float(m.get())) for name, m in track.metrics.items()}
    resumed = replay(scenario, out_dir=tmp_path / "stopped", resume=True)
    assert _outputs(resumed.out_dir) == _outputs(whole.out_dir)


def test_out_of_order(phishing, reference, tmp_path):
    rows = list(csv.DictReader(open(phishing / "log.csv")))
    shuffled = list(rows)
    random.Random(1).shuffle(shuffled)
    _write_rows(shuffled, tmp_path / "log.csv", list(rows[0]))
    with pytest.raises(ReplayError, match='out_of_order = "sort"'):
        replay(_scenario(tmp_path), out_dir=tmp_path / "error")
    sorted_run = replay(
        _scenario(tmp_path, extra_log='out_of_order = "sort"'), out_dir=tmp_path / "sorted"
    )
    # the same events in the same order: everything but the row numbers agrees
    assert (sorted_run.out_dir / "curves.csv").read_bytes() == (
        reference.out_dir / "curves.csv"
    ).read_bytes()


def test_anomaly_detector_is_scored(phishing, tmp_path):
    scenario = _scenario(
        phishing,
        model='["river.preprocessing.MinMaxScaler", "river.anomaly.HalfSpaceTrees"]',
        metrics_table='AUC = "river.metrics.ROCAUC"',
    )
    result = replay(scenario, out_dir=tmp_path / "out")
    rows = list(csv.DictReader(open(tmp_path / "out" / "predictions.csv")))
    assert all(r["prediction"] == "" and float(r["score"]) >= 0 for r in rows)
    assert 0.0 <= result.table[0]["AUC"] <= 1.0


def test_the_logs_positive_label_reaches_the_models(tmp_path):
    """A log labelled "fraud" / "legit": this package's classifiers learn the log's ``positive``
    as their rare label (else they would refuse "fraud" as a third label and reject every
    positive row), inside a pipeline and inside a wrapper; their predictions are the log's labels;
    a ``positive`` the spec gives is kept."""
    rows = [(t, (t * 7) % 11, "fraud" if t % 5 == 0 else "legit") for t in range(1, 61)]
    text = "t,amount,label\n" + "".join(f"{t},{amount}.0,{label}\n" for t, amount, label in rows)
    (tmp_path / "log.csv").write_text(text)
    scenario = parse(
        """
kind = "replay"
[log]
path = "log.csv"
time = "t"
label = "label"
labels = ["legit", "fraud"]
positive = "fraud"
[models]
Pipeline = ["river.preprocessing.StandardScaler", "ACOG"]
Wrapped = { class = "river.imblearn.RandomUnderSampler", params = { classifier = { class = "LASVM" }, desired_dist = { legit = 0.5, fraud = 0.5 } } }
Given = { class = "ACOG", params = { positive = "legit" } }
[metrics]
Recall = { class = "river.metrics.Recall", params = { pos_val = "fraud" } }
""",  # noqa: E501
        base=tmp_path,
    )
    result = replay(scenario, out_dir=tmp_path / "out")
    assert result.rejected == 0
    assert all(row["labelled"] == len(rows) for row in result.table)
    models = result.models
    assert models["Pipeline"]["ACOG"].classes == ("fraud", "legit")
    assert models["Wrapped"].classifier.classes == ("fraud", "legit")
    assert models["Given"].classes == ("legit", "fraud")
    predictions = list(csv.DictReader(open(tmp_path / "out" / "predictions.csv")))
    assert {row["prediction"] for row in predictions} <= {"fraud", "legit"}


def test_a_model_that_fails_on_a_valid_row_stops_the_replay_naming_it(tmp_path, capsys):
    """River's LogisticRegression cannot learn the label "legit" (it calls int() on it): that is
    neither a refused feature nor a refused label, so the model's state cannot be trusted after it
    and the replay stops, in one line naming the model, the row and the label, exit code 2."""
    text = "t,amount,label\n" + "".join(
        f"{t},{t % 7}.0,{'fraud' if t % 5 == 0 else 'legit'}\n" for t in range(1, 30)
    )
    (tmp_path / "log.csv").write_text(text)
    # without labels = [...] the replay cannot tell the model's true/false from the log's labels
    # before it fails (with them, test_a_classifier_predicting_other_labels... stops it earlier)
    (tmp_path / "s.toml").write_text(
        'kind = "replay"\n[log]\npath = "log.csv"\ntime = "t"\nlabel = "label"\n'
        'positive = "fraud"\n'
        '[models]\nACOG = "ACOG"\nLR = "river.linear_model.LogisticRegression"\n'
    )
    with pytest.raises(ReplayError, match=r"model 'LR' could not learn row 1 \(label 'legit'\)"):
        replay(tmp_path / "s.toml", out_dir=tmp_path / "api")
    command = ["replay", str(tmp_path / "s.toml"), "--out", str(tmp_path / "cli"), "--quiet"]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert "true/false or 0/1 labels" in err and len(err.strip().splitlines()) == 1


def test_cli_errors_are_one_line(tmp_path, capsys):
    (tmp_path / "s.toml").write_text(
        'kind = "replay"\n[log]\npath = "nope.csv"\ntime = "t"\nlabel = "y"\n[models]\nM = "ACOG"\n'
    )
    assert main(["replay", str(tmp_path / "s.toml"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "s.toml").write_text('kind = "replay"\n[log]\npath = "x.csv"\n')
    (tmp_path / "x.csv").write_text("t,y\n")
    assert main(["replay", str(tmp_path / "s.toml"), "--quiet"]) == 2
    assert "missing 'time'" in capsys.readouterr().err


def _kill_when(process, checkpoint, replaced, jitter):
    """SIGKILL ``process`` once ``checkpoint`` has been replaced ``replaced`` times."""
    seen, last = 0, None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        try:
            stamp = os.stat(checkpoint).st_mtime_ns, os.stat(checkpoint).st_ino
        except OSError:
            stamp = None
        if stamp is not None and stamp != last:
            seen, last = seen + 1, stamp
            if seen >= replaced:
                time.sleep(jitter)
                process.send_signal(signal.SIGKILL)
                process.wait()
                return True
        time.sleep(0.002)
    process.wait()
    return False


@pytest.mark.slow
def test_resume_after_sigkill_is_byte_identical(tmp_path):
    _log(tmp_path / "log.csv")  # 1,250 events
    text = (
        'name = "k"\nkind = "replay"\n[log]\npath = "log.csv"\ntime = "time"\nid = "event_id"\n'
        'entity = "entity"\nlabel = "label"\nlabels = [false, true]\nlabel_time = "label_time"\n'
        '[models]\nM = { class = "ACOG", params = { covariance = "diag" } }\n'
        # a randomised model, seeded by the replay (replay.seed's default): resume reproduces it
        'K = { class = "KOIL", params = { budget = 20 } }\n'
        '[metrics]\nBA = "river.metrics.BalancedAccuracy"\n'
        '[replay]\nglobal_model = true\nstep = 100\nwindow = "6h"\ncheckpoint_every = 25\n'
    )
    (tmp_path / "k.toml").write_text(text)
    expected = replay(tmp_path / "k.toml", out_dir=tmp_path / "whole")
    out = tmp_path / "killed"
    command = [
        sys.executable,
        "-m",
        "imbalance_stream.cli",
        "replay",
        str(tmp_path / "k.toml"),
        "--out",
        str(out),
        "--quiet",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    kills = 0
    for k, (replaced, jitter) in enumerate([(1, 0.0), (4, 0.003), (9, 0.011), (15, 0.0)]):
        process = subprocess.Popen(
            command + (["--resume"] if k else []),
            env=env,
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        kills += _kill_when(process, out / ".replay" / "cell0.ckpt", replaced, jitter)
    assert kills >= 2  # killed mid-run at least twice
    done = subprocess.run(command + ["--resume"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _outputs(out) == _outputs(expected.out_dir)


@pytest.mark.requires_data("a9a")
def test_the_example_replay_checkpoints_more_than_once():
    """The README's kill-and-resume demonstration needs a checkpoint before the end."""
    scenario = parse((ROOT / "scenarios" / "examples" / "replay.toml").read_text(), name="replay")
    assert scenario.log.events["n_samples"] >= 2 * scenario.options["checkpoint_every"]


@pytest.mark.requires_data("a9a")
def test_example_scenario_small(tmp_path):
    """scenarios/examples/replay.toml on its first 1,500 events."""
    text = (ROOT / "scenarios" / "examples" / "replay.toml").read_text()
    text = text.replace("n_samples = 15000", "n_samples = 1500")
    scenario = parse(text, name="replay")
    result = replay(scenario, out_dir=tmp_path / "out")
    table = {r["model"]: r for r in result.table}
    assert table["ACOG"]["events"] == 1500
    assert 0 < table["ACOG"]["never"] < 300
    assert 0.5 < table["ACOG (global)"]["ExactROCAUC"] <= 1.0


def test_a_dataset_log_and_its_export(phishing, reference, tmp_path, capsys):
    """A ``format = "dataset"`` log is the log events_from_dataset writes: exported to CSV it is
    the fixture's file byte for byte, and replayed it gives the fixture's outputs."""
    from imbalance_stream.replay.export_log import main as export

    source = (
        'format = "dataset"\n'
        'dataset = "river.datasets.Phishing"\n'
        "events = { seed = 3, interval = 60.0, entities = 5, delay_scale = 3600.0, never = 0.1 }"
    )
    text = _text(extra_log=source).replace('path = "log.csv"\n', "")
    (tmp_path / "s.toml").write_text(text)
    assert export([str(tmp_path / "s.toml"), str(tmp_path / "exported.csv")]) == 0
    assert "wrote 1250 events" in capsys.readouterr().out
    assert (tmp_path / "exported.csv").read_bytes() == (phishing / "log.csv").read_bytes()
    from_dataset = replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    assert _outputs(from_dataset.out_dir) == _outputs(reference.out_dir)
    (tmp_path / "log.csv").write_bytes((phishing / "log.csv").read_bytes())
    (tmp_path / "file.toml").write_text(_text())
    with pytest.raises(SystemExit) as stopped:  # a file log has nothing to export
        export([str(tmp_path / "file.toml"), str(tmp_path / "again.csv")])
    assert stopped.value.code == 2 and "already a file" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('time = "time"', 'time = "timestamp"'), r"log\.time: column 'timestamp' is not in "),
        (('label = "label"', 'label = "is_fraud"'), r"log\.label: column 'is_fraud'"),
        (('entity = "entity"', 'entity = "entities"'), r"did you mean 'entity'\?"),
        (
            ('label_time = "label_time"', 'label_time = "chargeback"'),
            r"log\.label_time: column 'chargeback'",
        ),
        (
            ("[models]", '[log.features]\nexclude = ["nonexistent"]\n[models]'),
            r"log\.features\.exclude: column 'nonexistent'",
        ),
    ],
)
def test_a_column_the_log_lacks_stops_the_replay_before_any_row(
    phishing, tmp_path, capsys, change, message
):
    """A misnamed column would reject every row; the header says so before the first."""
    (tmp_path / "log.csv").write_bytes((phishing / "log.csv").read_bytes())
    text = _text().replace(*change)
    with pytest.raises(ReplayError, match=message):
        replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    (tmp_path / "s.toml").write_text(text)
    command = ["replay", str(tmp_path / "s.toml"), "--out", str(tmp_path / "cli"), "--quiet"]
    assert main(command) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_a_parquet_header_is_checked_too(phishing, tmp_path):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rows = list(csv.DictReader(open(phishing / "log.csv")))
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "log.parquet")
    text = _text(path="log.parquet").replace('label = "label"', 'label = "y"')
    with pytest.raises(ReplayError, match=r"log\.label: column 'y' is not in .*log\.parquet"):
        replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")


def test_labels_that_match_no_row_stop_the_replay(phishing, tmp_path):
    """Labels written otherwise in the log than in the scenario: every row would be rejected."""
    (tmp_path / "log.csv").write_bytes((phishing / "log.csv").read_bytes())
    text = _text().replace("labels = [false, true]", 'labels = ["no", "yes"]\npositive = "yes"')
    text = text.replace("pos_val = true", 'pos_val = "yes"')
    with pytest.raises(ReplayError, match=r"the first 1000 rows of the log could not be read"):
        replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    # a small log: the whole of it
    lines = (phishing / "log.csv").read_text().splitlines()[:51]
    (tmp_path / "log.csv").write_text("\n".join(lines) + "\n")
    every = r"every row of the log \(50\) could not be read \(row 1: unknown label"
    with pytest.raises(ReplayError, match=every):
        replay(parse(text, base=tmp_path), out_dir=tmp_path / "small")


def _zero_one_log(folder) -> str:
    """A 60-row CSV log in ``folder`` with labels written 0/1 (one in five 1); returns the start
    of a replay scenario for it, up to its [log] table's labels."""
    with open(folder / "log.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["t", "x", "y"])
        writer.writerows([[i, i % 7, int(i % 5 == 0)] for i in range(60)])
    return 'kind = "replay"\n[log]\npath = "log.csv"\ntime = "t"\nlabel = "y"\n'


def test_a_classifier_predicting_other_labels_than_the_logs_stops_the_replay(tmp_path):
    """Text labels "0"/"1": River's LogisticRegression predicts true/false (and takes both texts
    as true), so every score would be 0 and every prediction true; the replay says so. The
    package's classifiers learn the log's positive and replay fine."""
    text = _zero_one_log(tmp_path) + 'labels = ["0", "1"]\npositive = "1"\n[models]\nM = "ACOG"\n'
    assert replay(parse(text, base=tmp_path), out_dir=tmp_path / "acog").table[0]["events"] == 60
    text += 'LR = "river.linear_model.LogisticRegression"\n'
    with pytest.raises(ReplayError, match=r"model 'LR' predicts False, True, which the log's"):
        replay(parse(text, base=tmp_path), out_dir=tmp_path / "lr")


def test_predictions_are_written_as_the_log_writes_its_labels(tmp_path):
    """River's classifiers predict true/false; with labels = [0, 1] predictions.csv shows 0/1,
    beside labels written 0/1, not True/False."""
    text = _zero_one_log(tmp_path) + (
        'labels = [0, 1]\npositive = 1\n[models]\nLR = "river.linear_model.LogisticRegression"\n'
    )
    result = replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    rows = list(csv.DictReader(open(result.out_dir / "predictions.csv")))
    assert {row["prediction"] for row in rows} <= {"0", "1"}
    assert {row["label"] for row in rows} == {"0", "1"}


def test_a_checkpoint_written_as_a_dict_still_resumes():
    """Checkpoints written before the cell state was a dataclass (a dict of its fields, some
    missing) are read as a CellState."""
    from imbalance_stream.replay.cells import CellState

    old = {
        "fingerprint": "f",
        "cell": 0,
        "position": 7,
        "seq": 5,
        "last_time": 10,
        "models": [None],
        "pending": [],
        "skip": [set()],
        "entities": [{}],
        "tracks": None,
        "counts": {"events": [5], "labelled": [3], "never": [0], "rejected": [0]},
        "read_rejects": 2,
        "first_reject": (1, "x"),
        "sizes": {"pred": 10, "ans": 0, "rej": 4, "cur": 0},
        "done": False,
    }
    state = CellState.restored(old)
    assert state.position == 7 and state.unasked == [set()] and state.damaged is None
    assert CellState.restored(state) is state
