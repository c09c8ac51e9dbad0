"""Sizes that cannot finish are refused when the file is loaded, in one line (exit code 2)."""

from __future__ import annotations

import pathlib
import time

import pytest

from imbalance_stream import cli, registry
from imbalance_stream.registry import SIZE_CAPS, SpecError, build, check_size
from imbalance_stream.scenario import load

ROOT = pathlib.Path(__file__).resolve().parent.parent

SCENARIO = """
[stream]
source = {source}
{n_samples}
[models]
ACOG = "ACOG"
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""

SEA = '"river.datasets.synth.SEA"'


def scenario(tmp_path, source=SEA, n_samples=2000):
    path = tmp_path / "hostile.toml"
    samples = "" if n_samples is None else f"n_samples = {n_samples}"
    path.write_text(SCENARIO.format(source=source, n_samples=samples))
    return path


def run_cli(path, tmp_path, capsys):
    start = time.perf_counter()
    code = cli.main(["run", str(path), "--out", str(tmp_path / "out")])
    elapsed = time.perf_counter() - start
    return code, capsys.readouterr().err.strip(), elapsed


RBF = "river.datasets.synth.RandomRBF"
TREE = "river.datasets.synth.RandomTree"


def spec(cls, **params):
    inside = ", ".join(f"{key} = {value}" for key, value in params.items())
    return f'{{ class = "{cls}", params = {{ {inside} }} }}'


HOSTILE = {
    "stream.n_samples": (SEA, 10**18),
    "n_centroids": (spec(RBF, n_centroids=100000000), 100),
    "n_centroids float": (spec(RBF, n_centroids="1e8"), 100),
    "n_classes": (spec(RBF, n_classes=1000000000), 100),
    "state": (spec(RBF, n_centroids=100000, n_features=1000), 100),
    "n_cat_features": (spec(TREE, n_cat_features=100000000), 100),
    "tree": (spec(TREE, max_tree_depth=40, fraction_leaves_per_level="0.0"), 100),
    "AnomalySine": (spec("river.datasets.synth.AnomalySine", n_samples=10**12), None),
    "Logical": (spec("river.datasets.synth.Logical", n_tiles=10**12), None),
    "wrapper": (
        spec("ImbalancedStream", source=f"{{ class = {SEA} }}", ratio=0.1, n_samples=10**12),
        None,
    ),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_size_that_cannot_finish_is_refused_in_one_line(case, tmp_path, capsys):
    source, n_samples = HOSTILE[case]
    code, err, elapsed = run_cli(scenario(tmp_path, source, n_samples), tmp_path, capsys)
    assert code == 2
    assert len(err.splitlines()) == 1 and "cap" in err and "IMBALANCE_STREAM_CAPS" in err
    assert elapsed < 5.0  # refused before generation (it would run until killed)
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_the_environment_lets_a_larger_value_through(tmp_path, capsys, monkeypatch):
    path = scenario(
        tmp_path,
        '{ class = "river.datasets.synth.RandomRBF", params = { n_centroids = 300 } }',
        n_samples=300,
    )
    monkeypatch.setitem(SIZE_CAPS, "n_centroids", 200)
    assert run_cli(path, tmp_path, capsys)[0] == 2
    monkeypatch.setenv("IMBALANCE_STREAM_CAPS", "n_centroids=1_000")
    code, err, _ = run_cli(path, tmp_path, capsys)
    assert code == 0, err


def test_n_samples_cap_is_overridable(tmp_path, capsys, monkeypatch):
    path = scenario(tmp_path, n_samples=SIZE_CAPS["n_samples"] + 1)
    assert run_cli(path, tmp_path, capsys)[0] == 2
    monkeypatch.setenv("IMBALANCE_STREAM_CAPS", f" n_samples = {2 * SIZE_CAPS['n_samples']} ")
    assert load(path).n_samples == SIZE_CAPS["n_samples"] + 1


@pytest.mark.parametrize(
    "setting, message",
    [("n_sample=5", "n_samples"), ("n_samples=lots", "not a positive integer"), ("state=0", "")],
)
def test_a_bad_override_is_refused_in_one_line(setting, message, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("IMBALANCE_STREAM_CAPS", setting)
    code, err, _ = run_cli(scenario(tmp_path), tmp_path, capsys)
    assert code == 2 and len(err.splitlines()) == 1
    assert "IMBALANCE_STREAM_CAPS" in err and message in err


@pytest.mark.parametrize("key, cap", [("n_samples", "100,000,000"), ("entities", "10,000,000")])
def test_the_replay_event_sizes_are_capped(key, cap):
    from imbalance_stream.replay.config import ReplayError, parse_log

    log = {"format": "dataset", "dataset": "river.datasets.Phishing", "time": "time",
           "label": "label", "events": {key: 10**18}}  # fmt: skip
    with pytest.raises(ReplayError, match=f"log.events.{key}: .* cap of {cap}"):
        parse_log(log, ROOT)


def test_check_size_leaves_what_is_not_a_number_to_the_reader():
    check_size("n_samples", None, "x")
    check_size("n_samples", "many", "x")
    check_size("n_samples", True, "x")
    with pytest.raises(SpecError, match="x: inf is beyond the cap"):
        check_size("n_samples", float("inf"), "x")
    assert build({"class": "river.datasets.synth.RandomTree"}, "dataset")  # River's defaults


def test_every_size_in_the_repository_is_within_the_caps():
    """Every scenario and replay TOML of the repository still loads (the caps refuse none)."""
    from imbalance_stream.replay.config import load as load_replay

    files = [
        path
        for folder in ("scenarios", "reproduce", "imbalance_stream/scenarios")
        for path in sorted((ROOT / folder).rglob("*.toml"))
    ]
    assert len(files) > 50
    refused = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        try:
            (load_replay if 'kind = "replay"' in text else load)(path)
        except SpecError as error:
            if "cap" in str(error):
                refused.append(str(error))
    assert not refused
    assert registry.size_caps() == SIZE_CAPS
