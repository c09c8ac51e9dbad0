"""The steps path (BinaryClassifier.run_steps, _numba/stream.steps_acog) against the dict path it
stands for, and the replay's jitted runs (replay.runners.StepsRunner) against its calls one step
at a time (``replay.compiled = false``): the same outputs, byte for byte; and the time axis of
the curves the replay draws."""

from __future__ import annotations

import contextlib
import datetime as dt
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from replay_helpers import replay_scenario
from river import datasets

from imbalance_stream.base import InvalidFeature, NumericalError, UnknownLabel
from imbalance_stream.base.labels import CodedLabels
from imbalance_stream.linear_model import (
    ACOG,
    AROW,
    COG,
    CPA,
    PA,
    PAUM,
    ROMMA,
    SACOG,
    OAMSeq,
    Perceptron,
)
from imbalance_stream.replay import ReplayError, parse, replay
from imbalance_stream.replay.sources import events_from_dataset, write_csv_log

CONFIGS = [
    (ACOG, {"covariance": "diag"}),
    (ACOG, {"covariance": "diag", "loss": "I", "rho": 3.0, "eta": 0.3}),
    (ACOG, {"covariance": "diag", "intercept": True, "eta": 2.0}),
    (ACOG, {"covariance": "full"}),
    (ACOG, {"covariance": "full", "loss": "I", "intercept": True}),
    (PA, {"C": 0.5}),
    (PA, {"intercept": True}),
    (Perceptron, {}),
    (PAUM, {"tau_negative": 0.5}),
    (PAUM, {"eta": 1e308}),  # steps that overflow: refused, as learn_one refuses them
    (COG, {"loss": "I"}),
    (COG, {"intercept": True}),
    (CPA, {}),
    (CPA, {"rule": "max-loss"}),
    (ROMMA, {}),
    (ROMMA, {"intercept": True}),
    (AROW, {}),
    (AROW, {"r": 0.1, "intercept": True}),
    (AROW, {"r": 1e-300}),  # a covariance that degenerates: some steps refused (overflow)
    (SACOG, {"seed": 1}),
    (SACOG, {"sparse": True, "seed": 1}),
    (SACOG, {"loss": "II", "m": 3, "rho": 3.0, "eta": 0.5, "intercept": True, "seed": 2}),
    (
        SACOG,
        {"loss": "II", "sparse": True, "intercept": True, "sketch_on_loss_only": True, "seed": 8},
    ),
    (SACOG, {"sparse": True, "oja_step": 2.0, "seed": 3}),
    (SACOG, {"m": 8, "seed": 4}),  # more directions than features: spare columns throughout
    (SACOG, {"m": 1, "intercept": True, "seed": 5}),  # the sketch drawn whole at construction
    (SACOG, {"eta": 1e308, "seed": 6}),  # steps that overflow: refused
    (SACOG, {"sparse": True, "eta": 1e308, "intercept": True, "seed": 7}),
]
REFUSALS = (InvalidFeature, UnknownLabel, NumericalError)


def _dict_steps(model, rows, names, learn, labels):
    """The dict path, step by step: each prediction step's (label, probabilities), or the error
    a step raised (the model unchanged by it)."""
    out = []
    for row, flag, label in zip(rows.tolist(), learn.tolist(), labels):
        x = dict(zip(names, row))
        try:
            if flag:
                model.learn_one(x, label)
                out.append(None)
            else:
                proba = model.predict_proba_one(x)
                out.append((model.predict_one(x), proba))
        except REFUSALS as error:
            out.append(type(error))
    return out


def _steps(model, rows, names, learn, labels):
    """What a replay does with the steps path: jitted runs, each step a run stops at through the
    dict path."""
    out: list = []
    at = 0
    while at < len(learn):
        run = model.run_steps(rows[at:], names, learn[at:], labels[at:])
        for k in range(run.done):
            if learn[at + k]:
                out.append(None)
                continue
            p = float(run.probas[k])
            negative = run.negative_at(k)
            prediction = model.positive if run.decisions[k] >= 0.0 else negative
            out.append((prediction, {model.positive: p, negative: 1.0 - p}))
        at += run.done
        if at < len(learn):  # the step the run stopped at
            out.extend(
                _dict_steps(model, rows[at : at + 1], names, learn[at : at + 1], [labels[at]])
            )
            at += 1
    return out


def _schedule(seed, n=120, d=5, third=False, huge=False, scale=1.0):
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.6) * scale
    rows[: rng.integers(0, n // 2), rng.integers(0, d) :] = 0.0  # features that come late
    if huge:
        rows[rng.integers(0, n, size=3), rng.integers(0, d, size=3)] = 1e16
    learn = rng.random(n) < 0.5
    labels = ["fraud" if v < 0.2 else "ok" for v in rng.random(n)]
    if third:
        labels[int(rng.integers(0, n))] = "other"
        labels[int(rng.integers(0, n))] = None
    return rows, [f"f{j}" for j in range(d)], learn, labels


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(CONFIGS),
    st.integers(0, 2**31 - 1),
    st.booleans(),
    st.booleans(),
    st.integers(0, 3),
    st.sampled_from([1.0, 1e3]),
    st.booleans(),
)
def test_the_steps_path_is_the_dict_path_bit_for_bit(config, seed, third, huge, warm, scale, coded):
    """(Values of 1e3 make sparse SACOG re-base its sketch at almost every round. ``coded``:
    the run's labels given as a replay gives them, codes into a table.)"""
    kind, params = config
    rows, names, learn, labels = _schedule(seed, third=third, huge=huge, scale=scale)
    run_labels = labels
    if coded:
        table = list(dict.fromkeys(labels))
        run_labels = CodedLabels(np.array([table.index(y) for y in labels]), table)
    slow = kind(positive="fraud", **params)
    fast = kind(positive="fraud", **params)
    for model in (slow, fast):  # some history through the dict path first (or none)
        for row, label in zip(rows[:warm].tolist(), labels[:warm]):
            with contextlib.suppress(*REFUSALS):
                model.learn_one(dict(zip(names, row)), label)
    expected = _dict_steps(slow, rows, names, learn, labels)
    # (compared as text: with eta = 1e308, PAUM's finite weights can make both paths' scores
    # inf - inf, a NaN probability that == would call unequal to itself)
    assert repr(_steps(fast, rows, names, learn, run_labels)) == repr(expected)
    assert pickle.dumps(fast) == pickle.dumps(slow)


def test_a_run_stops_at_a_step_that_would_overflow_and_keeps_nothing_of_it():
    """ACOG whose positive steps overflow (eta * rho beyond the float range): learn_one raises
    NumericalError and keeps nothing; a run stops there with the model as it was before it."""
    rows = np.array([[1.0, 0.5], [0.5, 1.0], [1.0, 1.0], [0.2, 0.1]] * 4)
    learn = np.array([True, True, False, True] * 4)
    labels = [False, True, None, False] * 4
    names = ["a", "b"]
    params = {"eta": 1e308, "rho": 1e10, "loss": "II"}
    fast, slow = ACOG(**params), ACOG(**params)
    expected = _dict_steps(slow, rows, names, learn, labels)
    assert NumericalError in expected
    run = fast.run_steps(rows, names, learn, labels)
    assert run.done == expected.index(NumericalError)
    assert _steps(ACOG(**params), rows, names, learn, labels) == expected


def test_a_state_that_grows_for_a_step_it_refuses_is_dropped_as_learn_one_drops_it():
    """The first positive overflows at once (its state grown for it): a run and learn_one both
    leave the model with no state at all."""
    params = {"eta": 1e308, "rho": 1e10, "loss": "II"}
    fast, slow = ACOG(**params), ACOG(**params)
    rows = np.array([[1.0, 1.0]])
    with pytest.raises(NumericalError):
        slow.learn_one({"a": 1.0, "b": 1.0}, True)
    assert fast.run_steps(rows, ["a", "b"], np.array([True]), [True]).done == 0
    assert pickle.dumps(fast) == pickle.dumps(slow)


def test_a_feature_space_that_could_overflow_leaves_every_step_to_the_dict_path():
    model = ACOG(covariance="full")
    model._features.max_features = 3
    rows = np.ones((2, 5))
    run = model.run_steps(rows, list("abcde"), np.array([False, True]), [None, True])
    assert run.done == 0


def test_models_without_a_steps_path():
    assert ACOG().has_steps_path and PA().has_steps_path and ROMMA().has_steps_path
    assert AROW().has_steps_path and SACOG().has_steps_path
    assert not OAMSeq().has_steps_path
    with pytest.raises(TypeError, match="no steps path"):
        OAMSeq().run_steps(np.zeros((1, 1)), ["a"], np.array([False]), [None])


def test_a_romma_step_that_would_overflow_is_refused_as_learn_one_refuses_it():
    """ROMMA's weights grow geometrically on a stream that is not separable: the steps path
    stops where learn_one raises NumericalError, the model as it was."""
    rng = np.random.default_rng(1)
    rows = rng.normal(size=(4000, 3)) * 1e14
    learn = np.ones(4000, dtype=bool)
    labels = [bool(v) for v in rng.random(4000) < 0.5]
    names = ["a", "b", "c"]
    expected = _dict_steps(ROMMA(), rows, names, learn, labels)
    assert NumericalError in expected
    assert _steps(ROMMA(), rows, names, learn, labels) == expected


# ---- the replay ----------------------------------------------------------------------------------


def _replay_both(tmp_path, text, log_rows=None, **events):
    """The outputs of a replay with jitted runs and of the same replay one call per step."""
    if log_rows is None:
        options = {"seed": 3, "interval": 60.0, "entities": 3, "delay_scale": 3600.0, **events}
        write_csv_log(events_from_dataset(datasets.Phishing(), **options), tmp_path / "log.csv")
    else:
        (tmp_path / "log.csv").write_text(log_rows)
    outputs = []
    for compiled in ("true", "false"):
        scenario = parse(text + f"compiled = {compiled}\n", base=tmp_path)
        result = replay(scenario, out_dir=tmp_path / compiled)
        outputs.append(
            {path.name: path.read_bytes() for path in sorted(result.out_dir.iterdir())
             if path.is_file() and path.name != "run.json"}
        )  # fmt: skip
    return outputs


def _text(models, replay_options="", labels="[false, true]"):
    return replay_scenario(models, FOLDED_METRICS, replay_options, labels=labels)


FOLDED_METRICS = """BA = "river.metrics.BalancedAccuracy"
AUC = { class = "ExactROCAUC", params = { pos_val = true } }"""


ACOGS = """
D = { class = "ACOG", params = { covariance = "diag" } }
F = { class = "ACOG", params = { covariance = "full", loss = "I", intercept = true } }
R = "river.linear_model.LogisticRegression"
"""


@pytest.mark.parametrize(
    "events,options",
    [
        ({"never": 0.1}, ""),
        ({"never": 0.3, "delay_scale": 36000.0}, "checkpoint_every = 37\n"),
        ({"interval": 0.0}, ""),  # every row at the same time: ties throughout
        ({"delay_scale": 0.0}, "checkpoint_seconds = 0.001\n"),  # labels at their event's time
    ],
    ids=["lost-labels", "checkpoints", "equal-times", "no-delay"],
)
def test_the_replay_writes_the_same_files_with_and_without_jitted_runs(tmp_path, events, options):
    compiled, stepwise = _replay_both(tmp_path, _text(ACOGS, options), **events)
    assert compiled == stepwise
    assert compiled["predictions.csv"].count(b"\n") == 3 * 1250 + 1


SECOND_ORDER = """
A = { class = "AROW", params = { r = 0.1, intercept = true } }
S = { class = "SACOG", params = { seed = 1 } }
SS = { class = "SACOG", params = { sparse = true, m = 12, intercept = true, seed = 2 } }
SL = { class = "SACOG", params = { loss = "II", m = 2, sketch_on_loss_only = true, seed = 3 } }
"""


@pytest.mark.parametrize("events", [{"never": 0.1}, {"interval": 0.0}], ids=["lost", "ties"])
def test_arow_and_sacog_write_the_same_files_with_and_without_jitted_runs(tmp_path, events):
    text = _text(SECOND_ORDER, "checkpoint_every = 37\n")
    compiled, stepwise = _replay_both(tmp_path, text, **events)
    assert compiled == stepwise
    assert compiled["predictions.csv"].count(b"\n") == 4 * 1250 + 1


def test_rows_a_model_refuses_and_labels_it_cannot_learn_take_the_dict_path(tmp_path):
    """A value beyond 1e15 (refused by ACOG when predicting: its label is then not learned), a
    third label (refused when learning), an empty row and late features, with a checkpoint every
    few rows: the same files either way."""
    lines = ["event_id,time,entity,label,label_time,a,b,c"]
    rng = np.random.default_rng(0)
    for i in range(400):
        a, b, c = rng.normal(size=3).round(3)
        if i < 50:
            c = 0.0  # c comes late
        if i % 97 == 5:
            a = 1e16
        if i % 41 == 7:
            a = b = c = 0.0
        label = ["fraud", "ok", "ok", "ok"][i % 4] if i % 89 != 3 else "odd"
        lines.append(f"e{i},{i * 10},x,{label},{i * 10 + (i % 13) * 7},{a},{b},{c}")
    text = _text(
        'D = { class = "ACOG", params = { covariance = "diag", positive = "fraud" } }\n'
        'F = { class = "ACOG", params = { covariance = "full", positive = "fraud" } }\n',
        "checkpoint_every = 11\n",
        labels='["ok", "fraud", "odd"]',
    ).replace("pos_val = true", 'pos_val = "fraud"')
    text = text.replace(
        'label_time = "label_time"', 'label_time = "label_time"\npositive = "fraud"'
    )
    compiled, stepwise = _replay_both(tmp_path, text, "\n".join(lines) + "\n")
    assert compiled == stepwise
    assert b"predict: feature 'a' has value 1e+16, beyond the limit" in compiled["rejected.csv"]
    assert b"learn: label 'odd' is neither" in compiled["rejected.csv"]


def test_the_jitted_runs_run_only_when_compiled(tmp_path, monkeypatch):
    calls = []
    run_steps = ACOG.run_steps

    def counted(self, *args):
        calls.append(len(args[2]))
        return run_steps(self, *args)

    monkeypatch.setattr(ACOG, "run_steps", counted)
    _replay_both(tmp_path, _text(ACOGS), never=0.1)
    # the compiled replay's runs cover the steps of the two ACOGs but the last labels (learned
    # after the log's end); the other replay makes none
    assert sum(calls) >= 2 * 2000


def test_the_curves_are_drawn_over_the_events_time_range(tmp_path, monkeypatch):
    """Labels up to days after the last event: curves.png spans the events (the time span the
    result reports), not the last label."""
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from imbalance_stream.replay.merge import plot

    write_csv_log(
        events_from_dataset(datasets.Phishing(), seed=3, interval=60.0, delay_scale=360000.0),
        tmp_path / "log.csv",
    )
    result = replay(parse(_text(ACOGS), base=tmp_path), out_dir=tmp_path / "out")
    with open(result.out_dir / "predictions.csv") as handle:
        times = [line.split(",")[2] for line in handle.read().splitlines()[1:]]
    assert result.time_span == (times[0], times[-1])
    drawn: list = []
    monkeypatch.setattr(Figure, "savefig", lambda figure, *a, **k: drawn.append(figure))
    assert plot(str(result.out_dir), span=result.time_span) is None
    last = matplotlib.dates.date2num(dt.datetime.fromisoformat(times[-1]))
    assert all(ax.get_xlim()[1] == pytest.approx(last) for ax in drawn[0].axes)


def _grouped(models, metrics):
    """A replay scenario of the log of ``_text`` with its own ``[models]`` and ``[metrics]``."""
    head = _text(models).split("[metrics]")[0]
    return head + metrics + '[replay]\nper_entity = false\nstep = 50\nwindow = "2h"\n'


def test_metrics_by_kind_of_model_score_classifiers_and_detectors_on_one_log(tmp_path):
    """[metrics] for every model, [metrics.classifiers] and [metrics.detectors] for their own:
    each model's row of table.csv has its metrics only, and so have the curves."""
    write_csv_log(
        events_from_dataset(datasets.Phishing(), seed=3, interval=60.0), tmp_path / "log.csv"
    )
    text = _grouped(
        'C = { class = "ACOG" }\n'
        'H = { class = "river.anomaly.HalfSpaceTrees", params = { seed = 1 } }\n',
        "[metrics]\n"
        'AUC = { class = "ExactROCAUC", params = { pos_val = true } }\n'
        "[metrics.classifiers]\n"
        'BA = "river.metrics.BalancedAccuracy"\n'
        "[metrics.detectors]\n"
        'Prec = { class = "PrecisionAtT", params = { pos_val = true } }\n',
    )
    result = replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    rows = {row["model"]: row for row in result.table}
    assert {"AUC", "BA"} <= set(rows["C"]) and "Prec" not in rows["C"]
    assert {"AUC", "Prec"} <= set(rows["H"]) and "BA" not in rows["H"]
    header = (result.out_dir / "table.csv").read_text().splitlines()[0].split(",")
    assert header[:3] == ["model", "AUC", "BA"] and "Prec" in header
    curves = (result.out_dir / "curves.csv").read_text()
    assert ",BA," in curves and ",Prec," in curves


def test_metric_groups_are_checked(tmp_path):
    (tmp_path / "log.csv").write_text("event_id,time,entity,label,label_time,a\n")
    with pytest.raises(ReplayError, match=r"\[metrics.detectors\] must be a non-empty table"):
        parse(_grouped('C = { class = "ACOG" }\n', "[metrics.detectors]\n"), base=tmp_path)
    with pytest.raises(ReplayError, match=r"metrics.classifiers.X: "):
        parse(
            _grouped('C = { class = "ACOG" }\n', '[metrics.classifiers]\nX = "NoSuchMetric"\n'),
            base=tmp_path,
        )
