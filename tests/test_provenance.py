"""run.json: what produced a run's outputs (imbalance_stream.provenance and the CLI)."""

from __future__ import annotations

import csv
import hashlib
import json
import subprocess

import numpy as np
import pytest

from imbalance_stream import provenance
from imbalance_stream.cli import main

SMALL = """
name = "small"
[stream]
source = "river.datasets.Phishing"
[models]
LR = "river.linear_model.LogisticRegression"
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""


def test_the_record_names_the_file_the_versions_and_the_threads(tmp_path, monkeypatch):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    record = provenance.describe(["run", str(scenario)], scenario, started=100.0, finished=102.25)
    assert record["command"] == f"imbalance-stream run {scenario}"
    assert record["scenario"] == {
        "path": str(scenario),
        "sha256": hashlib.sha256(scenario.read_bytes()).hexdigest(),
    }
    assert record["started"] == "1970-01-01T00:01:40+00:00" and record["wall_seconds"] == 2.25
    assert record["packages"]["numpy"] == np.__version__
    assert set(record["packages"]) <= set(provenance.PACKAGES)
    assert record["environment"]["OPENBLAS_NUM_THREADS"] == "1"
    assert "MKL_NUM_THREADS" not in record["environment"]
    assert record["git"] is None  # a temporary folder is not a work tree


def test_the_record_keeps_the_commit_and_whether_tracked_files_changed(tmp_path):
    def git(*args):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    try:
        git("init", "-q")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    git("add", "s.toml")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "s")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert provenance.describe([], scenario, 0.0, 0.0)["git"] == {"commit": head, "modified": False}
    before = provenance.snapshot(scenario)
    scenario.write_text(SMALL + "# changed\n")
    assert provenance.describe([], scenario, 0.0, 0.0)["git"]["modified"] is True
    # a record given the snapshot taken at the start keeps what ran, not the later edit
    kept = provenance.describe([], scenario, 0.0, 0.0, source=before)
    assert kept["git"] == {"commit": head, "modified": False}
    assert kept["scenario"]["sha256"] == hashlib.sha256(SMALL.encode()).hexdigest()


def test_run_writes_run_json_beside_the_table(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text(SMALL)
    out = tmp_path / "out"
    assert main(["run", str(scenario), "--out", str(out), "--quiet", "--seed", "3"]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["command"] == f"imbalance-stream run {scenario} --out {out} --quiet --seed 3"
    assert record["scenario"]["sha256"] == hashlib.sha256(scenario.read_bytes()).hexdigest()
    assert record["wall_seconds"] >= 0 and record["packages"]["river"]


def test_replay_writes_run_json(tmp_path):
    with open(tmp_path / "log.csv", "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["t", "x", "y"])
        writer.writerows([[i, i % 7, int(i % 5 == 0)] for i in range(60)])
    scenario = tmp_path / "s.toml"
    scenario.write_text(
        'kind = "replay"\n[log]\npath = "log.csv"\ntime = "t"\nlabel = "y"\n[models]\nM = "ACOG"\n'
    )
    out = tmp_path / "out"
    assert main(["replay", str(scenario), "--out", str(out), "--quiet"]) == 0
    record = json.loads((out / "run.json").read_text())
    assert record["command"].startswith("imbalance-stream replay ")
    assert record["scenario"]["path"] == str(scenario)
