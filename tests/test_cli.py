"""The imbalance-stream command: quickstart end to end, errors, protocols, parallel runs."""

from __future__ import annotations

import csv
import os
import pathlib
import subprocess
import sys

import pytest

from imbalance_stream import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
QUICKSTART_MODELS = [
    "ACOG-II diag",
    "ACOG-II full",
    "LogisticRegression",
    "RandomUnderSampler(LogisticRegression)",
]

SMALL = """
name = "small"
description = "two models on a short imbalanced SEA stream"

[stream]
source = { class = "river.datasets.synth.SEA", params = { variant = 0 } }
n_samples = 1500
seed = 5

[stream.imbalance]
ratio = 0.2

[models]
ACOG = ["river.preprocessing.StandardScaler", { class = "ACOG", params = { intercept = true } }]
LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]

[models.RUS]
class = "river.imblearn.RandomUnderSampler"

[models.RUS.params]
desired_dist = { true = 0.5, false = 0.5 }
seed = 1
classifier = { class = "river.linear_model.LogisticRegression" }

[metrics]
BA = "river.metrics.BalancedAccuracy"
AUC = { class = "ExactROCAUC", params = { pos_val = true } }

[output]
step = 500
"""


def _read_csv(path):
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_quickstart_end_to_end(tmp_path):
    """The README's command: a table naming every model, the CSVs and the PNG. It runs the
    scenario shipped with the package, from a folder that is not the checkout (as after a
    plain install)."""
    out = tmp_path / "quickstart"
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "imbalance_stream.cli",
            "run",
            "quickstart",
            "--out",
            str(out),
            "--quiet",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("model"))
    for name in QUICKSTART_MODELS:
        assert any(line.startswith(name + " ") for line in lines[header + 2 :]), name
    assert {"BalancedAccuracy", "Sensitivity", "ExactROCAUC"} <= set(lines[header].split())
    assert (out / "curves.png").stat().st_size > 10_000
    curves = _read_csv(out / "curves.csv")
    assert list(curves[0]) == ["model", "step", "metric", "value"]
    assert {row["model"] for row in curves} == set(QUICKSTART_MODELS)
    table = {row["model"]: row for row in _read_csv(out / "table.csv")}
    assert list(table) == QUICKSTART_MODELS
    assert all(row["samples"] == "20000" for row in table.values())
    # The claim the README and the notebook make of this stream.
    assert float(table["ACOG-II diag"]["BalancedAccuracy"]) > float(
        table["LogisticRegression"]["BalancedAccuracy"]
    )
    # The README shows this very table: it must be what the command prints.
    assert lines[header : header + 2 + len(QUICKSTART_MODELS)] == _readme_table(), (
        "README.md's quickstart table differs from what the quickstart prints: update the README"
    )


def test_the_readme_quickstart_runs_the_shipped_scenario():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = readme.split("## Quickstart", 1)[1].split("```")[1]
    assert "imbalance-stream run quickstart --out out/quickstart" in commands
    shipped = ROOT / "imbalance_stream" / "scenarios" / "quickstart.toml"
    assert shipped.is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"scenarios/*.toml"' in pyproject  # package data: it is installed with the package


def test_version(capsys):
    import imbalance_stream

    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"imbalance-stream {imbalance_stream.__version__}"
    # one source of truth: pyproject reads the version from the package
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert 'version = { attr = "imbalance_stream.__version__" }' in pyproject
    assert '\nversion = "' not in pyproject


@pytest.mark.parametrize("jobs", [[], ["--n-jobs", "2"]])
def test_a_missing_data_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, jobs):
    scenario = tmp_path / "a9a.toml"
    scenario.write_text(
        '[stream]\nsource = "imbalance_stream.datasets.A9A"\n'
        '[models]\nLR = "river.linear_model.LogisticRegression"\n'
        '[metrics]\nBA = "river.metrics.BalancedAccuracy"\n'
    )
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path / "empty"))
    code = cli.main(["run", str(scenario), "--out", str(tmp_path / "out"), "--quiet", *jobs])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert err.startswith("imbalance-stream: error: data file 'libsvm/a9a.gz'")
    assert "imbalance-stream data fetch a9a" in err and "IMBALANCE_STREAM_DATA" in err


def _readme_table() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quickstart = readme.split("## Quickstart", 1)[1]
    blocks = quickstart.split("```")[1::2]  # the insides of the fenced blocks, in order
    table = next(block for block in blocks if block.lstrip("\n").startswith("model "))
    return table.strip("\n").splitlines()


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    return path


def test_parallel_runs_give_the_serial_table(small, tmp_path, capsys):
    assert cli.main(["run", str(small), "--out", str(tmp_path / "serial"), "--quiet"]) == 0
    serial_out = capsys.readouterr().out
    assert (
        cli.main(["run", str(small), "--out", str(tmp_path / "par"), "--quiet", "--n-jobs", "2"])
        == 0
    )
    parallel_out = capsys.readouterr().out
    strip = [line for line in serial_out.splitlines() if not line.startswith("wrote")]
    assert strip == [line for line in parallel_out.splitlines() if not line.startswith("wrote")]
    for name in ("table.csv", "curves.csv"):
        assert (tmp_path / "serial" / name).read_text() == (tmp_path / "par" / name).read_text()


def test_default_output_directory_and_seed_override(small, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["run", str(small), "--quiet"]) == 0
    assert (tmp_path / "out" / "small" / "table.csv").exists()
    first = (tmp_path / "out" / "small" / "table.csv").read_text()
    assert cli.main(["run", str(small), "--quiet", "--seed", "6"]) == 0
    assert (tmp_path / "out" / "small" / "table.csv").read_text() != first


def test_without_matplotlib_the_png_is_skipped_with_a_note(small, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    assert cli.main(["run", str(small), "--out", str(tmp_path), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "matplotlib is not installed" in captured.err
    assert (tmp_path / "curves.csv").exists() and not (tmp_path / "curves.png").exists()


def tiny_protocol(params, *, out_dir, n_jobs, scheduler, progress):
    """A test protocol: one row per size, and a file in out_dir."""
    (out_dir / "note.txt").write_text(f"n_jobs={n_jobs} scheduler={scheduler}")
    return [
        {"size": size, "square": size * size, "paper_square": params.get("paper", 0)}
        for size in params["sizes"]
    ]


def test_protocol_scenario_prints_rows_and_writes_table(tmp_path, capsys, monkeypatch):
    import importlib.metadata

    from imbalance_stream.evaluate.protocols import GROUP

    # registered as an installed package would, through an entry point
    point = importlib.metadata.EntryPoint("tiny", f"{__name__}:tiny_protocol", GROUP)
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: importlib.metadata.EntryPoints([point])
    )
    path = tmp_path / "tiny.toml"
    path.write_text('kind = "protocol"\nprotocol = "tiny"\n[params]\nsizes = [2, 3]\npaper = 7\n')
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--n-jobs", "2", "--quiet"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[1].split() == ["size", "square", "paper_square"]
    assert printed[3].split() == ["2", "4", "7"] and printed[4].split() == ["3", "9", "7"]
    assert _read_csv(out / "table.csv") == [
        {"size": "2", "square": "4", "paper_square": "7"},
        {"size": "3", "square": "9", "paper_square": "7"},
    ]
    assert (out / "note.txt").read_text() == "n_jobs=2 scheduler=None"


@pytest.mark.parametrize(
    "content, message",
    [
        ("[stream]\nsorce = 1\n", "unknown key 'sorce'; did you mean 'source'"),
        (
            SMALL.replace(
                '"river.linear_model.LogisticRegression"',
                '"sklearn.linear_model.LogisticRegression"',
            ),
            "outside the allowed modules",
        ),
        (SMALL.replace("ExactROCAUC", "ExactAUC"), "did you mean 'ExactROCAUC'"),
        ('kind = "protocol"\nprotocol = "nope"\n', "protocol 'nope' is not registered"),
        (
            'kind = "protocol"\nprotocol = "acog.table8"\n',
            "now named 'reproduce.acog.protocol:table8'",
        ),
        (
            'kind = "protocol"\nprotocol = "reproduce.acog.protocol:tabel8"\n',
            "not registered; did you mean 'reproduce.acog.protocol:table8'",
        ),
    ],
)
def test_scenario_errors_exit_2_with_a_message(tmp_path, capsys, content, message):
    path = tmp_path / "bad.toml"
    path.write_text(content)
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("imbalance-stream: error: ") and message in err
    assert "Traceback" not in err


def test_a_stream_that_does_not_fit_a_model_exits_2(tmp_path, capsys):
    """An ACOG whose positive label is not the stream's meets a third label (SEA's False, then
    True): the run stops with the model's message and exit code 2."""
    path = tmp_path / "labels.toml"
    path.write_text(SMALL.replace("{ intercept = true }", '{ intercept = true, positive = "yes" }'))
    assert cli.main(["run", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the stream does not fit a model" in err and "Traceback" not in err


def test_a_model_that_fails_on_the_stream_exits_2_naming_it(tmp_path, capsys):
    """River's LogisticRegression cannot learn the text label "no" (it calls int() on it): the
    run stops with one line naming the model and how far the stream got, and exit code 2; the
    package's ACOG beside it takes the stream's positive "yes" and would have run."""
    from river import linear_model, metrics

    from imbalance_stream.evaluate import ModelFailed, run_prequential
    from imbalance_stream.linear_model import ACOG

    rows = "".join(f"{i % 11}.0,{'yes' if i % 5 == 0 else 'no'}\n" for i in range(1, 50))
    (tmp_path / "p.csv").write_text("amount,fraud\n" + rows)
    (tmp_path / "s.toml").write_text(
        '[stream]\nsource = { csv = "p.csv", target = "fraud", converters = { amount = "float" } }'
        '\npositive = "yes"\n[models]\nACOG = "ACOG"\nLR = "river.linear_model.LogisticRegression"'
        '\n[metrics]\nBA = "river.metrics.BalancedAccuracy"\n'
    )
    assert cli.main(["run", str(tmp_path / "s.toml"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "the run of model 'LR' failed after 1 sample of the stream: ValueError" in err
    assert "true/false or 0/1 labels" in err and len(err.strip().splitlines()) == 1

    stream = [({"amount": float(i % 11)}, "yes" if i % 5 == 0 else "no") for i in range(1, 50)]
    accuracy = {"Accuracy": metrics.Accuracy()}
    with pytest.raises(ModelFailed, match="model 'LR' failed after 1 sample") as caught:
        run_prequential(stream, {"LR": linear_model.LogisticRegression()}, accuracy)
    assert isinstance(caught.value.__cause__, ValueError)
    result = run_prequential(stream, {"ACOG": ACOG(positive="yes")}, accuracy)
    assert 0.0 <= result.final["ACOG"]["Accuracy"] <= 1.0


def test_scheduler_without_dask_exits_2(small, tmp_path, capsys):
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("dask is installed: --scheduler would run")
    assert cli.main(["run", str(small), "--out", str(tmp_path), "--scheduler", "local"]) == 2
    assert "pip install 'imbalance-stream[distributed]'" in capsys.readouterr().err


def test_a_scheduler_that_does_not_answer_exits_2_in_one_line(small, tmp_path, capsys):
    dask = pytest.importorskip("dask", reason="needs the distributed extra")
    pytest.importorskip("dask.distributed", reason="needs the distributed extra")
    argv = ["run", str(small), "--out", str(tmp_path), "--scheduler", "tcp://127.0.0.1:9"]
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("imbalance-stream: error: no Dask scheduler answers at tcp://127.0.0.1:9")
    assert "--scheduler local" in err


def test_missing_file_and_bad_usage_exit_2(tmp_path, capsys):
    assert cli.main(["run", str(tmp_path / "missing.toml")]) == 2
    assert "cannot read scenario" in capsys.readouterr().err
    for argv in (
        [],
        ["fly"],
        ["run"],
        ["run", "x.toml", "--n-jobs", "two"],
        ["run", "x.toml", "--n-jobs", "0"],
    ):
        with pytest.raises(SystemExit) as exit_:
            cli.main(argv)
        assert exit_.value.code == 2


def test_console_script_reports_errors_without_traceback(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[models]\n")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "imbalance_stream.cli", "run", str(path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "bad.toml" in done.stderr


def test_list_shows_estimators_metrics_and_protocols(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert cli.main(["list"]) == 0
    out = capsys.readouterr().out
    assert "imbalance_stream.linear_model.ACOG" in out
    assert "imbalance_stream.metrics.ExactROCAUC" in out
    assert "reproduce/acog/table8.toml" in out
    estimators = out.split("Estimators")[1].split("Metrics")[0]
    assert "ACOG" in estimators and "ExactROCAUC" not in estimators
    # abstract base classes cannot be put in a spec, so they are not offered
    assert "DensityRatioNovelty" not in estimators and "KMMNovelty" in estimators
    assert "BenchmarkDataset" not in out.split("Datasets")[1]


def test_list_name_prints_the_signature_and_the_summary(capsys):
    assert cli.main(["list", "ACOG"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("imbalance_stream.linear_model.ACOG(\n")
    assert "    covariance='diag',\n" in out and "    positive=True,\n" in out
    assert "Adaptive Cost-sensitive Online Gradient descent" in out
    assert "Parameters" not in out  # the first paragraph only
    assert cli.main(["list", "river.imblearn.RandomUnderSampler"]) == 0
    assert "    classifier,  (required)\n" in capsys.readouterr().out


def test_list_name_suggests_classes_not_modules(capsys):
    assert cli.main(["list", "river.datasets.phishng"]) == 2
    err = capsys.readouterr().err
    assert "did you mean 'river.datasets.Phishing'?" in err
    assert "river.datasets.phishing" not in err and len(err.strip().splitlines()) == 1
    assert cli.main(["list", "ACGO"]) == 2
    assert "did you mean 'ACOG'" in capsys.readouterr().err


def test_compile_runs_the_named_estimators_and_prints_their_seconds(capsys):
    assert cli.main(["compile", "Perceptron", "KDENovelty"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["Perceptron", "KDENovelty"]
    assert all(line.endswith(" s") and float(line.split()[1]) >= 0 for line in lines[:2])
    assert lines[2].startswith("compiled 2 target(s) in ")


def test_compile_replay_fills_the_cache_of_the_replay_s_kernels(capsys):
    pytest.importorskip("pyarrow")
    assert cli.main(["compile", "replay"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[0] == "replay" and lines[1].startswith("compiled 1 target(s) in ")


def test_compile_refuses_an_unknown_estimator_before_compiling(capsys):
    assert cli.main(["compile", "Perceptron", "ACGO"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing compiled
    assert captured.err.strip() == (
        "imbalance-stream: error: unknown estimator 'ACGO'; did you mean 'ACOG' or 'SACOG'?"
    )
    assert cli.main(["compile", "ExactROCAUC"]) == 2  # a metric, not an estimator


def test_version_list_and_data_import_no_estimator():
    """A command imports only what it uses: neither numba nor River for these."""
    code = (
        "import sys\n"
        "from imbalance_stream import cli\n"
        "for argv in (['list'], ['data', 'list'], ['--version']):\n"
        "    try:\n"
        "        cli.main(argv)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print(sorted(m for m in ('numba', 'river', 'numpy') if m in sys.modules))\n"
    )
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_format_table_aligns_numbers():
    text = cli.format_table(
        [{"model": "a", "BA": 0.5, "n": 10}, {"model": "bbb", "BA": 0.25, "n": 7}]
    )
    assert text.splitlines() == [
        "model      BA   n",
        "-----  ------  --",
        "a      0.5000  10",
        "bbb    0.2500   7",
    ]


# ---- every user error is one line and exit code 2 (issue 15) -----------------------------------

_MODELS = """
[models]
LR = "river.linear_model.LogisticRegression"
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""


def _protocol(path: str, params: str) -> str:
    return f'kind = "protocol"\nprotocol = "{path}"\n[params]\n{params}\n'


@pytest.mark.parametrize(
    "content, message",
    [
        (b'[stream]\nsource = "river.datasets.Phishing"\n# \xff\xfe\n', "line 3 holds a byte"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
        ("x = " + "[" * 40 + "]" * 40 + "\n", "nested more than 32 levels"),
        (
            '[stream]\nsource = { class = "river.datasets.synth.Hyperplane", params = '
            "{ n_features = 2000000000 } }\nn_samples = 10\n" + _MODELS,
            "n_features: expected an integer from 1 to 1,000,000",
        ),
        (
            '[stream]\nsource = { class = "river.datasets.synth.Hyperplane", params = '
            "{ n_features = 2e9 } }\nn_samples = 10\n" + _MODELS,
            "got 2000000000.0",
        ),
        (
            '[stream]\nsource = "river.datasets.CreditCard"\n' + _MODELS,
            "read the CSV file with { csv =",
        ),
        (
            '[stream]\nsource = "river.datasets.Phishing"\n[metrics]\n'
            'BA = "river.metrics.BalancedAccuracy"\n[models.F]\n'
            'class = "river.compose.FuncTransformer"\nparams = { func = "os.system" }\n',
            "models.F.params.func: FuncTransformer takes a function there",
        ),
        (_protocol("reproduce.koil.protocol:table3_2", "trials = -1"), "trials: expected 1 to"),
        (
            _protocol("reproduce.koil.protocol:table3_2", 'datasets = ["nope"]'),
            "unknown KOIL dataset 'nope'",
        ),
        (
            _protocol("reproduce.koil.protocol:table3_2", 'selected_file = "table3_2.toml"'),
            "is not a readable JSON file",
        ),
        (_protocol("reproduce.acog.protocol:table2", "runs = -1"), "runs must be an integer"),
        (
            _protocol("reproduce.acog.protocol:table2", 'datasets = ["nope"]'),
            "unknown dataset 'nope'",
        ),
        (_protocol("reproduce.dcil.protocol:table5_3", "runs = 0"), "runs must be an integer"),
        (
            _protocol("reproduce.dcil.protocol:table5_3", "experiments = [7]"),
            "experiments: a list of 1, 2, 3 or 4",
        ),
    ],
    ids=[
        "invalid-utf8",
        "nested-5000",
        "nested-40",
        "n_features-2e9",
        "n_features-float",
        "remote-dataset",
        "function-parameter",
        "koil-trials",
        "koil-dataset",
        "koil-selected-file",
        "acog-runs",
        "acog-dataset",
        "dcil-runs",
        "dcil-experiments",
    ],
)
def test_every_user_error_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, content, message):
    """Nothing runs, nothing is written outside --out (the home folder is a fresh one here)."""
    folder = tmp_path / "reproduce-copy"
    folder.mkdir()
    path = folder / "bad.toml"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(ROOT / "reproduce" / "koil")  # a relative selected_file names a TOML file
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("imbalance-stream: error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert "Traceback" not in err
    assert not any(home.iterdir()), "something was written into the home folder"


def test_a_damaged_data_file_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    from imbalance_stream.datasets import home

    data = tmp_path / "data" / "libsvm"
    data.mkdir(parents=True)
    (data / "german.numer").write_text("1 1:0.5\n-1 2:1\n")  # not the published file
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(home, "_VERIFIED", set())
    scenario = tmp_path / "german.toml"
    scenario.write_text('[stream]\nsource = "imbalance_stream.datasets.German"\n' + _MODELS)
    assert cli.main(["run", str(scenario), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("imbalance-stream: error: a damaged data file: ") and err.count("\n") == 1
    assert "german.numer" in err and "SHA-256" in err


@pytest.mark.parametrize(
    "content, message",
    [
        (b'kind = "replay"\n# \xff\n', "line 2 holds a byte that is not UTF-8"),
        ("x = " + "[" * 5000 + "]" * 5000 + "\n", "nested too deeply"),
    ],
    ids=["invalid-utf8", "nested-5000"],
)
def test_replay_file_errors_are_one_line_and_exit_2(tmp_path, capsys, content, message):
    path = tmp_path / "replay.toml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert cli.main(["replay", str(path), "--out", str(tmp_path / "out"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("imbalance-stream: error: ") and err.count("\n") == 1 and message in err
