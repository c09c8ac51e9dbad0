"""Registry (names -> classes, specs -> objects), scenario validation, the prequential runner."""

from __future__ import annotations

import itertools
import pathlib
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import compose, datasets, evaluate, imblearn, linear_model, metrics, preprocessing
from river import stream as river_stream
from river.datasets import synth

from imbalance_stream import cli
from imbalance_stream.evaluate.prequential import run_prequential
from imbalance_stream.linear_model import ACOG
from imbalance_stream.registry import SpecError, aliases, build, resolve
from imbalance_stream.scenario import ScenarioError, load, parse, run

ROOT = pathlib.Path(__file__).resolve().parent.parent

# ---- registry -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, kind, expected",
    [
        ("imbalance_stream.linear_model.ACOG", "estimator", ACOG),
        ("ACOG", "estimator", ACOG),
        ("river.linear_model.LogisticRegression", "estimator", linear_model.LogisticRegression),
        ("river.imblearn.RandomUnderSampler", "estimator", imblearn.RandomUnderSampler),
        ("river.preprocessing.StandardScaler", "estimator", preprocessing.StandardScaler),
        ("river.metrics.BalancedAccuracy", "metric", metrics.BalancedAccuracy),
        ("river.datasets.synth.Agrawal", "dataset", synth.Agrawal),
        ("river.datasets.Phishing", None, datasets.Phishing),
    ],
)
def test_resolve_allowed_names(name, kind, expected):
    assert resolve(name, kind) is expected


def test_short_names_cover_the_package_public_classes():
    table = aliases()
    assert table["ACOG"] == "imbalance_stream.linear_model.ACOG"
    for short, full in table.items():
        assert full.startswith("imbalance_stream.") and full.endswith("." + short)


def test_the_catalog_is_current():
    """``imbalance_stream.catalog`` holds what ``registry.scan`` finds by importing the package:
    after adding, renaming or removing a public class, ``python -m imbalance_stream.registry``."""
    from imbalance_stream import catalog
    from imbalance_stream.registry import kind_of, scan

    assert scan() == catalog.CLASSES
    for full, kind in catalog.CLASSES.values():
        assert kind_of(resolve(full)) == kind


def test_a_misspelt_class_is_offered_classes_not_modules():
    with pytest.raises(SpecError) as info:
        resolve("river.datasets.Phishng")
    assert "did you mean 'river.datasets.Phishing'?" in str(info.value)
    assert "river.datasets.phishing" not in str(info.value)


@pytest.mark.parametrize(
    "name, message",
    [
        ("os.system", "outside the allowed modules"),
        ("subprocess.Popen", "outside the allowed modules"),
        ("builtins.eval", "outside the allowed modules"),
        ("numpy.ndarray", "outside the allowed modules"),
        ("riverside.Model", "outside the allowed modules"),
        ("river.compose.pipeline.inspect", "outside the allowed modules"),
        ("river.utils.math.dot", "not a class"),
        ("river.metrics", "not a class"),
        ("river.__builtins__", "private"),
        ("river..linear_model", "empty"),
        ("river", "dotted name"),
        ("", "non-empty"),
    ],
)
def test_resolve_refuses_names_outside_the_allow_list(name, message):
    with pytest.raises(SpecError, match=message):
        resolve(name)


_identifier = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,12}", fullmatch=True)


@settings(max_examples=150, deadline=None)
@given(
    first=st.one_of(
        st.sampled_from(["os", "sys", "numpy", "pickle", "riverx", "imbalance"]), _identifier
    ),
    rest=st.lists(_identifier, max_size=3),
)
def test_resolve_never_imports_outside_the_allow_list(first, rest):
    """Whatever the name, nothing outside river.* and imbalance_stream.* gets imported."""
    name = ".".join([first, *rest])
    before = set(sys.modules)
    try:
        cls = resolve(name)
    except SpecError:
        pass
    else:  # a short name of this package
        assert cls.__module__.startswith("imbalance_stream.")
    new = set(sys.modules) - before
    assert all(m.split(".")[0] in ("river", "imbalance_stream") for m in new), new


@given(
    st.dictionaries(
        st.one_of(st.booleans(), st.integers(-(10**6), 10**6)), st.floats(0, 1), max_size=5
    )
)
def test_label_keyed_dicts_survive_toml(labels):
    """A dict keyed by bool or int labels, written with TOML's string keys, comes back equal."""
    as_toml = {str(k).lower() if isinstance(k, bool) else str(k): v for k, v in labels.items()}
    model = build(
        {
            "class": "river.imblearn.RandomUnderSampler",
            "params": {"classifier": {"class": "ACOG"}, "desired_dist": as_toml},
        }
    )
    assert model.desired_dist == labels
    assert [type(k) for k in model.desired_dist] == [type(k) for k in labels]


def test_resolve_checks_the_kind():
    with pytest.raises(SpecError, match="is a metric class; expected an estimator class"):
        resolve("river.metrics.BalancedAccuracy", "estimator")
    with pytest.raises(SpecError, match="is an estimator class; expected a dataset class"):
        resolve("ACOG", "dataset")
    with pytest.raises(SpecError, match="not a River estimator"):
        resolve("river.base.Base")


def test_resolve_suggests_close_names():
    with pytest.raises(SpecError, match=r"did you mean 'river.linear_model.LogisticRegression'"):
        resolve("river.linear_model.LogistcRegression")
    with pytest.raises(SpecError, match="did you mean 'ACOG'"):
        resolve("ACOGG")
    with pytest.raises(SpecError, match=r"did you mean 'river.datasets.synth'"):
        resolve("river.datasets.synt.SEA")


def test_build_nests_wrappers_pipelines_and_label_keyed_dicts():
    model = build(
        {
            "class": "river.imblearn.RandomUnderSampler",
            "params": {
                "classifier": [
                    "river.preprocessing.StandardScaler",
                    {"class": "river.linear_model.LogisticRegression", "params": {"l2": 0.01}},
                ],
                "desired_dist": {"true": 0.4, "false": 0.6},
                "seed": 3,
            },
        }
    )
    assert isinstance(model, imblearn.RandomUnderSampler)
    assert model.desired_dist == {True: 0.4, False: 0.6}
    assert isinstance(model.classifier, compose.Pipeline)
    scaler, logreg = model.classifier.steps.values()
    assert isinstance(scaler, preprocessing.StandardScaler)
    assert logreg.l2 == 0.01


def test_label_keys_become_ints_and_bools_only_when_they_look_like_labels():
    model = build(
        {
            "class": "river.imblearn.RandomOverSampler",
            "params": {
                "classifier": {"class": "river.linear_model.LogisticRegression"},
                "desired_dist": {"0": 0.25, "-1": 0.25, "true": 0.25, "cat": 0.25},
            },
        }
    )
    assert model.desired_dist == {0: 0.25, -1: 0.25, True: 0.25, "cat": 0.25}


def test_build_list_is_a_pipeline_and_one_item_is_the_item():
    pipeline = build(["river.preprocessing.StandardScaler", "ACOG"])
    assert isinstance(pipeline, compose.Pipeline)
    assert isinstance(build(["ACOG"]), ACOG)


@pytest.mark.parametrize(
    "spec, message",
    [
        ({"class": "ACOG", "params": {"et": 1.0}}, "has no parameter 'et'; did you mean 'eta'"),
        (
            {"class": "river.active.EntropySampler", "params": {"classifier": "ACOG"}},
            'takes a model there; write it as a spec table, classifier = { class = "ACOG" }',
        ),
        (
            {"class": "river.anomaly.QuantileFilter", "params": {"anomaly_detector": "x"}},
            "QuantileFilter takes a model there",
        ),
        ({"class": "ACOG", "params": {"loss": "III"}}, "refused its parameters: loss must be"),
        ({"class": "ACOG", "param": {}}, "unknown key 'param'.*did you mean 'params'"),
        ({"params": {}}, "missing 'class'"),
        ({"class": "ACOG", "params": [1]}, "expected a table of keyword arguments"),
        ([], "at least one step"),
        (3, "expected a class name"),
        ({"class": "os.system"}, "outside the allowed modules"),
    ],
)
def test_build_errors_name_the_place(spec, message):
    with pytest.raises(SpecError, match=message) as error:
        build(spec, where="models.m")
    assert str(error.value).startswith("models.m")


# ---- scenarios ------------------------------------------------------------------------------

SMALL = """
name = "small"

[stream]
source = { class = "river.datasets.synth.SEA", params = { variant = 0 } }
n_samples = 3000
seed = 7
positive = true

[stream.imbalance]
ratio = 0.1

[stream.drift]
source = { class = "river.datasets.synth.SEA", params = { variant = 3 } }
position = 1500
width = 20

[models]
ACOG = ["river.preprocessing.StandardScaler", { class = "ACOG", params = { intercept = true } }]
LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]

[metrics]
BA = "river.metrics.BalancedAccuracy"
Recall = { class = "river.metrics.Recall", params = { pos_val = true } }

[output]
step = 1000
"""


@pytest.mark.parametrize(
    "text, message",
    [
        (SMALL + "\nmodel = 1\n", "unknown key 'model'"),
        (SMALL.replace("[output]", "[outputs]"), "unknown key 'outputs'; did you mean 'output'"),
        (
            SMALL.replace("n_samples = 3000", "n_sample = 3000"),
            r"stream: unknown key 'n_sample'; did you mean 'n_samples'",
        ),
        (
            SMALL.replace("n_samples = 3000", "n_samples = -5"),
            "stream.n_samples: expected an integer",
        ),
        (SMALL.replace("ratio = 0.1", "ratio = 1.5"), r"ratio: a share must be in \[0, 1\]"),
        (SMALL.replace("ratio = 0.1", "rate = 0.1"), "unknown key 'rate'; did you mean 'ratio'"),
        (SMALL.replace("width = 20", "width = 1"), "width >= 9 for position = 1500"),
        (SMALL.replace("position = 1500\n", ""), "stream.drift: missing 'position'"),
        (
            SMALL.replace('"river.linear_model.LogisticRegression"', '"river.linear_model.LogReg"'),
            "models.LogReg.*unknown class name 'river.linear_model.LogReg'",
        ),
        (
            SMALL.replace('"river.linear_model.LogisticRegression"', '"river.metrics.Recall"'),
            "models.LogReg.*expected an estimator class",
        ),
        (
            SMALL.replace('"river.metrics.BalancedAccuracy"', '"river.metrics.MAE"'),
            "metrics.BA: MAE does not work with model 'ACOG'",
        ),
        (
            SMALL.replace("intercept = true", "intercept = true, sigma = 2"),
            "ACOG has no parameter 'sigma'",
        ),
        (SMALL.replace('name = "small"', 'kind = "prequentail"'), "kind: expected one of"),
        (SMALL.replace('name = "small"', 'name = "../escape"'), "name: expected letters"),
        (SMALL.replace("[models]\n", "[models]\nx = 1\n"), "expected a class name"),
        (SMALL.replace("[metrics]", "[metrics]\n[nothing]"), "unknown key 'nothing'"),
        (
            SMALL.replace("[output]", '[metrics.detectors]\nA = "river.metrics.Recall"\n[output]'),
            r"\[metrics.detectors\]: metrics by kind of model are for replay scenarios",
        ),
        (
            '[stream]\nsource = "river.datasets.synth.SEA"\n[models]\nA = "ACOG"\n'
            '[metrics]\nBA = "river.metrics.BalancedAccuracy"\n',
            "endless generator",
        ),
        ('[stream]\nsource = "river.datasets.Phishing"\n', r"missing \[models\]"),
        ("this is = not toml =", "not valid TOML"),
        (
            'kind = "protocol"\nprotocol = "no.such.protocol"\n',
            "protocol 'no.such.protocol' is not registered",
        ),
        ('kind = "protocol"\n', "needs protocol"),
        ('kind = "protocol"\nprotocol = "x"\n[stream]\n', "unknown key 'stream'"),
    ],
)
def test_validation_errors_are_clear(text, message):
    with pytest.raises(ScenarioError, match=message) as error:
        parse(text, source="bad.toml")
    assert str(error.value).startswith("bad.toml: ")


def test_load_names_a_missing_file(tmp_path):
    with pytest.raises(ScenarioError, match="cannot read scenario"):
        load(tmp_path / "missing.toml")


def test_every_model_gets_the_same_stream():
    scenario = parse(SMALL)
    first = list(itertools.islice(scenario.make_stream(), 500))
    second = list(itertools.islice(scenario.make_stream(), 500))
    assert first == second
    other = list(itertools.islice(scenario.with_seed(8).make_stream(), 500))
    assert other != first


def test_imbalance_and_drift_are_applied():
    scenario = parse(SMALL)
    stream = scenario.make_stream()
    assert isinstance(stream, synth.ConceptDriftStream)
    assert (stream.position, stream.width) == (1500, 20)
    labels = [y for _, y in itertools.islice(stream, 3000)]
    assert 0.07 < sum(labels) / len(labels) < 0.13
    # SEA labels x0 + x1 > theta positive; theta is 8 in variant 0 and 9.5 in variant 3.
    xs = list(itertools.islice(scenario.make_stream(), 3000))
    before = min(x[0] + x[1] for x, y in xs[:1400] if y)
    after = min(x[0] + x[1] for x, y in xs[1600:] if y)
    assert 8.0 < before < 9.5 < after


def test_seed_fills_in_unseeded_sources_only():
    stream = parse(SMALL).make_stream()
    assert stream.stream.source.seed == 7 and stream.drift_stream.source.seed == 8
    seeded = parse(SMALL.replace("params = { variant = 0 }", "params = { variant = 0, seed = 99 }"))
    assert seeded.make_stream().stream.source.seed == 99


def test_schedule_follows_the_stream_clock_across_the_drift():
    text = SMALL.replace(
        "ratio = 0.1",
        'ratio = { class = "Step", params = { before = 0.5, after = 0.05, at = 2000 } }',
    )
    labels = [y for _, y in itertools.islice(parse(text).make_stream(), 3000)]
    # The concept after the drift (from 1500) reads the schedule from step 1500, not from 0.
    assert 0.4 < sum(labels[1600:2000]) / 400 < 0.6
    assert sum(labels[2100:]) / 900 < 0.1


def test_run_gives_a_row_per_model_and_tidy_curves():
    result = run(parse(SMALL))
    assert [row["model"] for row in result.table] == ["ACOG", "LogReg"]
    assert all(row["samples"] == 3000 for row in result.table)
    steps = sorted({row["step"] for row in result.curves})
    assert steps == [1000, 2000, 3000]
    assert {tuple(sorted(row)) for row in result.curves} == {("metric", "model", "step", "value")}
    last = {(r["model"], r["metric"]): r["value"] for r in result.curves if r["step"] == 3000}
    for row in result.table:
        assert last[(row["model"], "BA")] == row["BA"]


# ---- prequential runner ---------------------------------------------------------------------


def test_prequential_matches_river_progressive_val_score():
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    expected = evaluate.progressive_val_score(
        datasets.Phishing(), model.clone(), metrics.BalancedAccuracy()
    )
    result = run_prequential(
        datasets.Phishing(), {"lr": model}, {"BA": metrics.BalancedAccuracy()}, step=100
    )
    assert result.final["lr"]["BA"] == expected.get()
    assert result.n_samples == {"lr": 1250}
    assert [r["step"] for r in result.rows] == [*range(100, 1201, 100), 1250]


def test_prequential_mixes_label_and_probability_metrics():
    result = run_prequential(
        lambda: datasets.Phishing(),
        {"acog": preprocessing.StandardScaler() | ACOG()},
        {"AUC": metrics.ROCAUC(), "BA": metrics.BalancedAccuracy()},
        step=1000,
        n_samples=600,
    )
    assert result.n_samples == {"acog": 600}
    assert 0.5 < result.final["acog"]["AUC"] <= 1.0
    assert 0.5 < result.final["acog"]["BA"] <= 1.0


def test_prequential_does_not_touch_the_given_objects():
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    metric = metrics.BalancedAccuracy()
    run_prequential(datasets.Phishing(), {"lr": model}, {"BA": metric}, n_samples=200)
    assert metric.get() == 0.0
    assert model["LogisticRegression"].weights == {}


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"models": {}}, "at least one model"),
        ({"metrics": {}}, "at least one metric"),
        ({"step": 0}, "step must be a positive integer"),
    ],
)
def test_prequential_argument_errors(kwargs, message):
    arguments = {
        "stream": datasets.Phishing(),
        "models": {"lr": linear_model.LogisticRegression()},
        "metrics": {"BA": metrics.BalancedAccuracy()},
        **kwargs,
    }
    with pytest.raises(ValueError, match=message):
        run_prequential(**arguments)


def test_quickstart_scenario_validates(tmp_path, monkeypatch):
    scenario = load(ROOT / "imbalance_stream" / "scenarios" / "quickstart.toml")
    assert scenario.name == "quickstart"
    # by name, from anywhere: the copy shipped with the package
    monkeypatch.chdir(tmp_path)
    assert load("quickstart").config == scenario.config
    with pytest.raises(ScenarioError, match="shipped with the package: quickstart"):
        load("quickstarts")
    assert list(scenario.make_models()) == [
        "ACOG-II diag",
        "ACOG-II full",
        "LogisticRegression",
        "RandomUnderSampler(LogisticRegression)",
    ]


SCENARIO_FILES = sorted((ROOT / "scenarios").rglob("*.toml")) + sorted(
    (ROOT / "reproduce").rglob("*.toml")
)


def test_the_examples_are_there():
    assert len(list((ROOT / "scenarios" / "examples").glob("*.toml"))) >= 2


@pytest.mark.parametrize(
    "path", SCENARIO_FILES, ids=[str(p.relative_to(ROOT)) for p in SCENARIO_FILES]
)
def test_every_scenario_file_validates(path):
    """Every file under scenarios/ (examples and the papers' protocol scenarios) loads; event-log
    replays (``kind = "replay"``) load through the replay's own loader."""
    if 'kind = "replay"' in path.read_text():
        from imbalance_stream.replay import config

        assert config.load(path).name
    else:
        assert load(path).name


# ---- rolling metrics, CSV sources ---------------------------------------------------------------

ROLLING = """
[stream]
source = "river.datasets.Phishing"
[models]
LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]
[metrics]
BA = "river.metrics.BalancedAccuracy"
RollingBA = { class = "river.utils.Rolling", params = { cls = "river.metrics.BalancedAccuracy", window_size = 200 } }
RollingRecall = { class = "river.utils.Rolling", params = { cls = { class = "river.metrics.Recall", params = { pos_val = true } }, window_size = 300 } }
RollingAUC = { class = "river.metrics.RollingROCAUC", params = { window_size = 250 } }
[output]
step = 500
"""  # noqa: E501


def test_rolling_metrics_measure_the_last_window():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)  # River's class form, no instance
        result = run(parse(ROLLING, name="rolling"))
    row = result.table[0]
    # The same predictions by hand: test-then-train, then the metrics on the last samples only.
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    truth, labels, scores = [], [], []
    for x, y in datasets.Phishing():
        proba = model.predict_proba_one(x)
        truth.append(y)
        labels.append(max(proba, key=proba.get))
        scores.append(proba)
        model.learn_one(x, y)
    ba, recall, auc = metrics.BalancedAccuracy(), metrics.Recall(), metrics.RollingROCAUC(250)
    for y, label in zip(truth[-200:], labels[-200:], strict=True):
        ba.update(y, label)
    for y, label in zip(truth[-300:], labels[-300:], strict=True):
        recall.update(y, label)
    for y, proba in zip(truth, scores, strict=True):
        auc.update(y, proba)
    assert row["RollingBA"] == pytest.approx(ba.get())
    assert row["RollingRecall"] == pytest.approx(recall.get())
    assert row["RollingAUC"] == pytest.approx(auc.get())
    assert row["RollingBA"] != pytest.approx(row["BA"])  # a window, not the whole stream
    # each model starts from an empty window (not the clone() of the metric inside)
    again = run(parse(ROLLING, name="rolling"), n_jobs=2)
    assert again.table == result.table


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ("window_size = 10", "needs the metric class to wrap"),
        ('cls = "river.metrics.BalancedAcuracy", window_size = 10', "did you mean"),
        ('cls = "river.linear_model.LogisticRegression", window_size = 10', "expected a metric"),
        ('cls = "river.metrics.Recall", window_size = 10, pos_vall = 1', "refused"),
    ],
)
def test_rolling_metric_errors(params, message):
    text = ROLLING.split("[metrics]")[0] + (
        f'[metrics]\nR = {{ class = "river.utils.Rolling", params = {{ {params} }} }}\n'
    )
    with pytest.raises(ScenarioError, match=message):
        parse(text)


def _csv(folder: pathlib.Path) -> pathlib.Path:
    rows = ["day,amount,channel,fraud"]
    for i in range(400):
        fraud = i % 10 == 0
        rows.append(f"2024-02-{1 + i % 28:02d},{(50.0 if fraud else 1.0) + i % 7},web,{int(fraud)}")
    path = folder / "payments.csv"
    path.write_text("\n".join(rows) + "\n")
    return path


CSV_SCENARIO = """
[stream]
source = { csv = "payments.csv", target = "fraud", converters = { amount = "float", fraud = "int" }, parse_dates = { day = "%Y-%m-%d" }, drop = ["channel"] }
positive = 1
[models]
ACOG = ["river.preprocessing.StandardScaler", { class = "ACOG", params = { positive = 1, intercept = true } }]
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""  # noqa: E501


def test_csv_source_relative_to_the_scenario_file(tmp_path, monkeypatch):
    from imbalance_stream.datasets import CSVFile

    _csv(tmp_path)
    scenario_file = tmp_path / "payments.toml"
    text = CSV_SCENARIO.replace(', parse_dates = { day = "%Y-%m-%d" }', "")
    scenario_file.write_text(text.replace('drop = ["channel"]', 'drop = ["channel", "day"]'))
    monkeypatch.chdir(ROOT)  # not the scenario's folder
    scenario = load(scenario_file)
    stream = scenario.make_stream()
    assert isinstance(stream, CSVFile) and stream.n_samples == 400
    x, y = next(iter(stream))
    assert x == {"amount": 50.0} and y == 1  # strings unless converted; dropped columns gone
    result = run(scenario)
    assert result.table[0]["samples"] == 400
    assert result.table[0]["BA"] > 0.9  # the positives stand out by their amount


def test_the_streams_positive_label_reaches_the_models(tmp_path):
    """Labels left as strings ("0" / "1") with ``positive = "1"``: ACOG, given no ``positive`` of
    its own, learns the stream's (with its default ``True`` it would refuse "1" as a third
    label)."""
    _csv(tmp_path)
    text = CSV_SCENARIO.replace(', parse_dates = { day = "%Y-%m-%d" }', "")
    text = text.replace('drop = ["channel"]', 'drop = ["channel", "day"]')
    text = text.replace(', fraud = "int"', "").replace("positive = 1\n", 'positive = "1"\n')
    text = text.replace("positive = 1, ", "")
    scenario = parse(text, source=str(tmp_path / "payments.toml"))
    assert "positive" not in str(scenario.config["models"])
    model = scenario.make_models()["ACOG"]
    assert model["ACOG"].positive == "1"
    result = run(scenario)
    assert result.table[0]["samples"] == 400 and result.table[0]["BA"] > 0.9


def test_csv_source_parses_dates_and_reports_mistakes(tmp_path):
    import datetime

    from imbalance_stream.datasets import CSVFile

    path = _csv(tmp_path)
    data = CSVFile(
        path, target="fraud", converters={"fraud": "bool"}, parse_dates={"day": "%Y-%m-%d"}
    )
    x, y = next(iter(data))
    assert x["day"] == datetime.datetime(2024, 2, 1) and y is True and x["amount"] == "50.0"
    with pytest.raises(ScenarioError, match="target names 'frud', not a column"):
        parse(CSV_SCENARIO.replace('target = "fraud"', 'target = "frud"'), source=str(path))
    with pytest.raises(ScenarioError, match="'real' is not a converter"):
        parse(CSV_SCENARIO.replace('amount = "float"', 'amount = "real"'), source=str(path))
    with pytest.raises(ScenarioError, match="unknown key 'targte'"):
        parse(CSV_SCENARIO.replace("target =", "targte ="), source=str(path))
    with pytest.raises(ScenarioError, match="cannot read the CSV file"):
        parse(CSV_SCENARIO, source=str(tmp_path / "elsewhere" / "s.toml"))


# ---- late labels ---------------------------------------------------------------------------

DELAYED = """
[stream]
source = "river.datasets.Phishing"
delay = 100
[models]
LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]
[metrics]
F1 = "river.metrics.F1"
[output]
step = 400
"""


def test_a_delay_learns_and_scores_each_label_when_it_arrives():
    result = run(parse(DELAYED, name="delayed"))
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    f1, asked = metrics.F1(), {}
    for i, x, y in river_stream.simulate_qa(datasets.Phishing(), moment=None, delay=100):
        if y is None:
            asked[i] = model.predict_one(x)
        else:
            f1.update(y, asked.pop(i))
            model.learn_one(x, y)
    assert result.table[0]["F1"] == pytest.approx(f1.get())
    assert result.table[0]["samples"] == 1250
    assert [row["step"] for row in result.curves] == [400, 800, 1200, 1250]


@pytest.mark.parametrize("delay", [None, 100])
def test_an_active_learner_learns_only_what_it_asked_for_as_in_river(delay):
    """An active learner (River's protocol) in a scenario, with and without late labels: every
    prediction is scored and only the labels it asked for are learned, which is what River's
    own progressive validation gives for the same learner and delay."""
    from river import active, evaluate

    spec = DELAYED.replace("delay = 100\n", "" if delay is None else f"delay = {delay}\n")
    spec = spec.replace(
        'LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]',
        'AL = { class = "river.active.EntropySampler", params = { classifier = ["river.'
        'preprocessing.StandardScaler", "river.linear_model.LogisticRegression"], seed = 3 } }',
    )
    result = run(parse(spec, name="active"))
    learner = active.EntropySampler(
        preprocessing.StandardScaler() | linear_model.LogisticRegression(), seed=3
    )
    states = list(
        evaluate.iter_progressive_val_score(
            datasets.Phishing(), learner, metrics.F1(), delay=delay, step=1250
        )
    )
    assert 0 < states[-1]["Samples used"] < 1250  # it did leave labels out
    assert result.table[0]["F1"] == pytest.approx(states[-1]["F1"].get(), abs=1e-12)


def test_a_delay_shows_each_arrival_to_observe_one():
    from imbalance_stream.density_ratio import ImportanceWeighted, ULSIFReweighter

    spec = DELAYED.replace(
        'LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]',
        'IW = { class = "ImportanceWeighted", params = { classifier = { class = "river.'
        'linear_model.LogisticRegression" }, reweighter = { class = "ULSIFReweighter", params = '
        "{ n_target = 50 } } } }",
    )
    scenario = parse(spec, name="observed")
    model = scenario.make_models()["IW"]
    assert isinstance(model, ImportanceWeighted)
    assert isinstance(model.reweighter, ULSIFReweighter)
    seen = []
    original = ImportanceWeighted.observe_one
    try:
        ImportanceWeighted.observe_one = lambda self, x: seen.append(x)  # type: ignore[method-assign]
        run(scenario)
    finally:
        ImportanceWeighted.observe_one = original  # type: ignore[method-assign]
    assert len(seen) == 1250


def test_a_negative_delay_is_refused():
    with pytest.raises(ScenarioError, match=r"stream.delay"):
        parse(DELAYED.replace("delay = 100", "delay = -1"), name="bad")


def test_the_covariate_shift_example_runs_on_its_first_samples():
    """Smoke test of scenarios/examples/covariate_shift.toml (the full run is a measurement, in
    reproduce/density_ratio/README.md): its first 400 samples, every model."""
    import dataclasses

    scenario = load(ROOT / "scenarios" / "examples" / "covariate_shift.toml")
    config = dict(scenario.config)
    config["stream"] = {**config["stream"], "n_samples": 400}
    result = run(dataclasses.replace(scenario, config=config))
    assert [row["model"] for row in result.table] == [
        "LogisticRegression",
        "IW-KMM",
        "IW-KLIEP",
        "IW-uLSIF",
        "IW-DDR",
    ]
    assert all(row["samples"] == 400 for row in result.table)
    assert all(0.0 <= row["F1"] <= 1.0 for row in result.table)


# ---- mistakes found by using the package as a River user -------------------------------------


def test_a_csv_value_the_converter_cannot_read_is_one_line_naming_the_sample(tmp_path, capsys):
    path = _csv(tmp_path)
    lines = path.read_text().splitlines()
    day, _, channel, fraud = lines[31].split(",")
    lines[31] = f"{day},,{channel},{fraud}"  # the 31st sample's amount is empty
    path.write_text("\n".join(lines) + "\n")
    scenario = tmp_path / "payments.toml"
    scenario.write_text(CSV_SCENARIO.replace('drop = ["channel"]', 'drop = ["channel", "day"]'))
    code = cli.main(["run", str(scenario), "--out", str(tmp_path / "out"), "--quiet"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "could not be read at sample 31" in err and "could not convert string to float" in err


def test_one_vs_rest_keeps_its_inner_classifiers_true_false_labels(tmp_path):
    """The stream's positive ("sky") is not given to the classifiers inside a one-vs-rest
    reduction, which trains them on true/false labels of its own."""
    text = """
[stream]
source = "river.datasets.ImageSegments"
n_samples = 300
positive = "sky"
[models]
OvR = ["river.preprocessing.StandardScaler", { class = "river.multiclass.OneVsRestClassifier", params = { classifier = { class = "ACOG" } } }]
[metrics]
Accuracy = "river.metrics.Accuracy"
"""  # noqa: E501
    result = run(parse(text))
    assert result.table[0]["samples"] == 300 and result.table[0]["Accuracy"] > 0.5


def test_models_without_a_seed_get_the_streams_so_runs_repeat(tmp_path):
    text = """
[stream]
source = "river.datasets.Phishing"
seed = 5
[models]
RUS = { class = "river.imblearn.RandomUnderSampler", params = { classifier = { class = "river.linear_model.LogisticRegression" }, desired_dist = { true = 0.5, false = 0.5 } } }
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""  # noqa: E501
    scenario = parse(text)
    assert scenario.make_models()["RUS"].seed == 5
    assert run(scenario).table == run(scenario).table


def test_an_abstract_class_is_refused_naming_its_kinds():
    text = """
[stream]
source = "river.datasets.Phishing"
[stream.imbalance]
ratio = { class = "imbalance_stream.datasets.imbalance.Schedule" }
[models]
LR = "river.linear_model.LogisticRegression"
[metrics]
BA = "river.metrics.BalancedAccuracy"
"""
    with pytest.raises(ScenarioError, match=r"Schedule is an abstract base class; .*Static"):
        parse(text)


DETECTOR_SCENARIO = """
[stream]
source = "river.datasets.Phishing"
[models]
KDE = ["river.preprocessing.StandardScaler", { class = "KDENovelty", params = { mode = "stream", n_test = 50 } }]
[metrics]
AUC = { class = "ExactROCAUC", params = { pos_val = true } }
"""  # noqa: E501


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('mode = "stream", n_test = 50', "sigma = 1.0"), r"models\.KDE: KDENovelty is in "),
        (
            ('{ class = "ExactROCAUC", params = { pos_val = true } }', '"river.metrics.ROCAUC"'),
            r"metrics\.AUC: River's ROCAUC bins scores in \[0, 1\].*ExactROCAUC",
        ),
        (
            ('{ class = "ExactROCAUC", params = { pos_val = true } }', '"river.metrics.Accuracy"'),
            r"does not work with model 'KDE' \(an anomaly detector\)",
        ),
    ],
)
def test_a_detector_a_run_cannot_use_is_refused_before_it_starts(change, message):
    """A two-sample detector would score 0 forever (nobody calls observe_one and refresh), and
    River's ROCAUC would bin scores of any range into [0, 1]: both are refused in one line."""
    assert parse(DETECTOR_SCENARIO).config["models"]
    with pytest.raises(ScenarioError, match=message):
        parse(DETECTOR_SCENARIO.replace(*change))


def test_anomaly_detectors_run_with_late_labels_as_river_runs_them():
    """With delay, a detector is scored on arrival and learned when its label comes, in River's
    own loop (before, the delayed loop asked it for predict_one and the run failed)."""
    from river import anomaly

    from imbalance_stream.metrics import ExactROCAUC

    text = DETECTOR_SCENARIO.replace("[models]", "delay = 10\n[models]")
    text = text.replace(
        "[metrics]",
        'HST = ["river.preprocessing.MinMaxScaler", '
        '{ class = "river.anomaly.HalfSpaceTrees", params = { seed = 0 } }]\n'
        "[metrics]",
    )
    result = run(parse(text))
    river_auc = evaluate.progressive_val_score(
        datasets.Phishing(),
        preprocessing.MinMaxScaler() | anomaly.HalfSpaceTrees(seed=0),
        ExactROCAUC(pos_val=True),
        delay=10,
    ).get()
    table = {row["model"]: row for row in result.table}
    assert table["HST"]["AUC"] == pytest.approx(river_auc, abs=1e-12)
    assert table["KDE"]["samples"] == 1250
