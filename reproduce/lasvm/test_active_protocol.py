"""Seed 003 protocols of chapters 4 and 5: the splits, the ranks, and a tiny run of each table."""

import math
import pathlib

import numpy as np
import pytest

from imbalance_stream.scenario import load
from reproduce.lasvm import active_protocol as protocol

HERE = pathlib.Path(__file__).resolve().parent
ACTIVE_TOMLS = [p for p in sorted(HERE.glob("*.toml")) if "active_protocol" in p.read_text()]


def test_the_chapter_4_and_5_scenarios_exist():
    assert {p.stem for p in ACTIVE_TOMLS} >= {"table4_3", "table5_3", "fig5_2"}


@pytest.mark.parametrize("path", ACTIVE_TOMLS, ids=lambda p: p.stem)
def test_every_scenario_loads_and_names_a_protocol_function(path):
    scenario = load(str(path))
    module, _, name = scenario.protocol.partition(":")
    assert module == "reproduce.lasvm.active_protocol" and callable(getattr(protocol, name))


@pytest.mark.parametrize("ratio", [2, 8, 32])
def test_waveform_split_undersamples_the_training_positives_only(ratio):
    X, y, X_test, y_test = protocol.load_split(f"waveform-{ratio}", 1, 0, 2000, 500)
    n_pos = int(y.sum())
    assert X.shape[1] == 21 and len(y_test) == 500
    assert abs((len(y) - n_pos) / n_pos - ratio) < 0.05 * ratio + 1.0 / n_pos * ratio
    assert 0.25 < y_test.mean() < 0.42  # the test set keeps the natural ratio of 2


def test_waveform_runs_share_nothing_but_the_ratio():
    first = protocol.load_split("waveform-4", 1, 0, 500, 100)
    second = protocol.load_split("waveform-4", 1, 1, 500, 100)
    assert not np.array_equal(first[0], second[0])


def test_ranks_are_competition_ranks():
    rows = [
        {"dataset": "d", "method": m, "prbep": v}
        for m, v in [("Batch", 90.0), ("US", 80.0), ("SMOTE", 90.0), ("DC", 85.0), ("SVC", 99.0)]
    ]
    ranks = {r["method"]: r.get("prbep_rank") for r in protocol._with_ranks(rows, "prbep")}
    assert ranks == {"Batch": 1, "SMOTE": 1, "DC": 3, "US": 4, "SVC": None}


def test_small_waveform_sweep_runs_every_method_beside_nothing_published(tmp_path):
    pytest.importorskip("imblearn")
    params = {"ratios": [8], "runs": 1, "sizes": {"waveform": [400, 200]}, "window": 30}
    rows = protocol.waveform_sweep(params, out_dir=tmp_path)
    assert (tmp_path / "runs.csv").exists()
    table = {r["method"]: r for r in rows}
    assert set(table) == {"Batch", "SMOTE", "AL", "VIRTUAL"}
    assert table["Batch"]["n_learned"] == table["Batch"]["n_train"]
    assert table["SMOTE"]["n_learned"] == table["SMOTE"]["n_train"] + table["SMOTE"]["n_pos"]
    assert 0 < table["AL"]["data_efficiency"] <= 100
    assert 0 <= table["VIRTUAL"]["virtual_sv_fraction"] <= 100
    # counted before finishing too; only the methods that make examples have either share
    for method in ("SMOTE", "VIRTUAL"):
        assert 0 <= table[method]["virtual_sv_fraction_unfinished"] <= 100
    assert math.isnan(table["AL"]["virtual_sv_fraction_unfinished"])
    for row in rows:
        assert 0 <= row["gmeans"] <= 100 and 0 <= row["prbep"] <= 100
    virtual, smote = table["VIRTUAL"], table["SMOTE"]
    assert virtual["gmeans_minus_SMOTE"] == round(virtual["gmeans"] - smote["gmeans"], 3)


@pytest.mark.requires_data("satimage")
def test_small_table4_3_gives_every_baseline_beside_the_thesis():
    pytest.importorskip("imblearn")
    pytest.importorskip("sklearn")
    params = {"datasets": ["satimage"], "runs": 1, "sizes": {"satimage": [400, 300]}}
    params |= {"window": 30}
    rows = protocol.table4_3(params)
    table = {r["method"]: r for r in rows}
    assert set(table) == {"Batch", "SVC", "AL", "US", "SMOTE", "DC"}
    assert table["AL"]["paper_data_efficiency"] == 41.7 and table["US"]["paper_prbep"] == 68.72
    assert table["AL"]["paper_prbep_rank"] == 1 and "prbep_rank" in table["AL"]
    assert not math.isnan(table["US"]["sv_ratio"])


@pytest.mark.requires_data("breast-cancer-wisconsin")
def test_breast_split_has_the_theses_training_counts():
    X, y, X_test, y_test = protocol.load_split("breast", 3, 0)
    assert (int(y.sum()), int((~y).sum())) == (172, 320)
    assert X.min() >= 0.0 and X.max() <= 1.0 and len(y_test) == 683 - 492


def test_without_the_stop_selection_learns_the_whole_pool(tmp_path):
    params = {"ratios": [8], "runs": 1, "sizes": {"waveform": [300, 100]}, "stop": False}
    params |= {"methods": ["AL", "VIRTUAL"]}
    rows = {r["method"]: r for r in protocol.waveform_sweep(params, out_dir=tmp_path)}
    assert rows["AL"]["data_efficiency"] == 100.0 == rows["VIRTUAL"]["data_efficiency"]
    assert rows["AL"]["n_learned"] == rows["AL"]["n_train"]
    assert rows["VIRTUAL"]["n_learned"] > rows["VIRTUAL"]["n_train"]  # the virtual ones too


def test_paired_differences_compare_the_same_runs():
    results = [
        {"dataset": "d", "method": m, "run": run, "gmeans": v}
        for m, run, v in [
            ("SMOTE", 0, 90.0),
            ("SMOTE", 1, 80.0),
            ("VIRTUAL", 0, 91.0),
            ("VIRTUAL", 1, 80.0),
            ("AL", 0, 70.0),
        ]
    ]
    rows = [{"dataset": "d", "method": m} for m in ("SMOTE", "VIRTUAL", "AL")]
    table = {r["method"]: r for r in protocol._paired(results, rows, "SMOTE")}
    assert table["VIRTUAL"]["gmeans_minus_SMOTE"] == 0.5
    assert table["VIRTUAL"]["gmeans_minus_SMOTE_runs"] == "1/1/0"
    assert table["VIRTUAL"]["gmeans_minus_SMOTE_sd"] == round(np.std([1.0, 0.0], ddof=1), 3)
    assert table["VIRTUAL"]["gmeans_minus_SMOTE_wilcoxon_p"] == 1.0  # one untied run
    assert table["AL"]["gmeans_minus_SMOTE"] == -20.0 and "gmeans_minus_SMOTE_sd" not in table["AL"]
    assert "gmeans_minus_SMOTE" not in table["SMOTE"]


def test_paired_wilcoxon_detects_a_consistent_difference_and_not_a_tie():
    runs = range(10)
    results = [{"dataset": "d", "method": "SMOTE", "run": r, "gmeans": 80.0} for r in runs]
    results += [{"dataset": "d", "method": "VIRTUAL", "run": r, "gmeans": 81.0 + r} for r in runs]
    results += [{"dataset": "d", "method": "AL", "run": r, "gmeans": 80.0} for r in runs]
    rows = [{"dataset": "d", "method": m} for m in ("SMOTE", "VIRTUAL", "AL")]
    table = {r["method"]: r for r in protocol._paired(results, rows, "SMOTE")}
    assert table["VIRTUAL"]["gmeans_minus_SMOTE_wilcoxon_p"] < 0.01  # won all 10 runs
    assert table["AL"]["gmeans_minus_SMOTE_wilcoxon_p"] == 1.0  # tied on every run


def test_original_scale_recovers_integer_features_up_to_an_offset():
    rng = np.random.default_rng(0)
    low, high = np.array([3, 40, 0]), np.array([18, 104, 128])
    original = np.column_stack([rng.integers(lo, hi + 1, 500) for lo, hi in zip(low, high)])
    original[:2] = [low, high]  # svm-scale maps the training minimum and maximum to -1 and 1
    scaled = np.round(2.0 * (original - low) / (high - low) - 1.0, 6)  # as LIBSVM's files
    test = np.round(2.0 * (np.array([[10, 50, 64]]) - low) / (high - low) - 1.0, 6)
    back, back_test = protocol._original_scale(scaled, test)
    np.testing.assert_allclose(back, original - low, atol=1e-3)
    np.testing.assert_allclose(back_test, [[7, 10, 64]], atol=1e-3)


@pytest.mark.requires_data("satimage")
def test_satimage_features_are_back_on_the_band_values_span():
    X, _, X_test, _ = protocol.load_split("satimage", 1, 0, 300, 100)
    assert X.min() == 0.0 and 62.0 <= X.max() <= 128.0
    np.testing.assert_allclose(X, np.round(X), atol=1e-3)  # whole band values again
