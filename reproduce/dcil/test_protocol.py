"""Seed 001 protocols: metrics, splits, and a small run of each protocol and scenario."""

import math
import pathlib

import numpy as np
import pytest

from imbalance_stream.evaluate.protocols import get_protocol
from imbalance_stream.scenario import load
from reproduce.dcil import protocol

# the protocols read the papers' benchmark files
pytestmark = pytest.mark.requires_data("breast-cancer-wisconsin", "car", "abalone")

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def test_binary_scores_and_the_undefined_f_measure():
    y_true = [True] * 4 + [False] * 4
    y_pred = [True, True, True, False, False, False, False, True]
    scores = protocol.binary_scores(y_true, y_pred)
    assert scores["sensitivity"] == 0.75 and scores["specificity"] == 0.75
    assert scores["f_measure"] == pytest.approx(0.75)
    assert scores["rs"] == 1.0 and scores["g_mean"] == pytest.approx(0.75)
    none = protocol.binary_scores(y_true, [False] * 8)
    assert math.isnan(none["f_measure"]) and none["g_mean"] == 0.0 and none["rs"] == 0.0
    assert protocol.binary_scores(y_true, [False] * 8, f_undefined="zero")["f_measure"] == 0.0


def test_split_sizes_are_the_thesis_and_disjoint():
    y = np.r_[np.ones(100, bool), np.zeros(1000, bool)]
    train, test = protocol._split(y, 20, np.random.default_rng(0), 20, 40)
    assert y[train].sum() == 20 and (~y[train]).sum() == 400
    assert y[test].sum() == 40 and (~y[test]).sum() == 40
    assert not set(train) & set(test)
    with pytest.raises(ValueError, match="needs"):
        protocol._split(y, 50, np.random.default_rng(0), 20, 40)


def test_angle_is_robust_near_zero():
    a = np.array([1.0, 2.0, 3.0])
    robust, _ = protocol.angle_degrees(a, a * (1 + 1e-15))
    assert robust < 1e-10
    robust, _ = protocol.angle_degrees(np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    assert robust == pytest.approx(90.0)


def test_table5_1_smoke_is_equal_to_batch():
    rows = get_protocol("reproduce.dcil.protocol:table5_1")(
        {"tasks": ["breast_wisconsin", "iris_2_vs_13"]},
        out_dir=None,
        n_jobs=None,
        scheduler=None,
        progress=False,
    )
    assert len(rows) == 4
    for row in rows:
        assert row["relative_error"] < 1e-10 and row["angle_deg"] < 1e-8
    assert {row["retired"] for row in rows} == {0, 68, 15}


def test_table5_3_smoke(tmp_path):
    params = {"datasets": ["breast_wisconsin", "car"], "experiments": [1, 4], "runs": 2}
    rows = get_protocol("reproduce.dcil.protocol:table5_3")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert len(rows) == 2 * 2 * 4
    assert (tmp_path / "runs.csv").exists()
    by = {(r["dataset"], r["experiment"], r["model"]): r for r in rows}
    for key in [("car", 4), ("breast_wisconsin", 1)]:
        # the streamed IncLPSVM is the batch LPSVM, whatever the order
        assert by[(*key, "LPSVM")]["g_mean"] == by[(*key, "IncLPSVM")]["g_mean"]
    # balanced training with kappa = 2: DCIL is IncLPSVM (the thesis's Exp 1 identity)
    assert by[("car", 1, "DCIL-IncLPSVM")]["g_mean"] == by[("car", 1, "IncLPSVM")]["g_mean"]
    assert (
        by[("car", 4, "DCIL-IncLPSVM")]["sensitivity"] > by[("car", 4, "IncLPSVM")]["sensitivity"]
    )
    assert by[("car", 4, "DCIL-IncLPSVM")]["paper_g_mean"] == 91.06


@pytest.mark.parametrize("name", ["table5_1", "table5_3", "table5_3_zscore"])
def test_paper_scenarios_load(name):
    scenario = load(HERE / f"{name}.toml")
    assert scenario.protocol == f"reproduce.dcil.protocol:{name[:8]}"


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="unknown models"):
        protocol.table5_3({"models": ["IncSVM"]})
    with pytest.raises(ValueError, match="unknown tasks"):
        protocol.table5_1({"tasks": ["wine"]})
    with pytest.raises(ValueError, match="unknown dataset"):
        protocol.load_binary("wine")


def test_dynamic_imbalance_scenario_loads_and_runs_briefly():
    scenario = load(ROOT / "scenarios" / "examples" / "dynamic_imbalance.toml")
    models = scenario.make_models()
    assert "DCIL-IncLPSVM (window 1000)" in models
    stream = scenario.make_stream()
    model = models["DCIL-IncLPSVM (window 1000)"]
    labels = []
    for _, (x, y) in zip(range(300), stream):
        model.predict_one(x)
        model.learn_one(x, y)
        labels.append(y)
    assert 0 < sum(labels) < 300
