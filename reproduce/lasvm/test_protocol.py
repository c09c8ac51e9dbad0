"""Seed 003 protocols (chapters 3 and 6): the splits, and a tiny run of each table."""

import csv
import math
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from imbalance_stream.scenario import load
from reproduce.lasvm import protocol

HERE = pathlib.Path(__file__).resolve().parent


@pytest.mark.parametrize("path", sorted(HERE.glob("*.toml")), ids=lambda p: p.stem)
def test_every_scenario_loads_and_names_a_protocol_function(path):
    scenario = load(str(path))
    module, _, name = scenario.protocol.partition(":")
    if module in ("reproduce.lasvm.active_protocol", "reproduce.lasvm.curves"):
        return  # chapters 4 and 5, and the figures: test_active_protocol.py, test_curves.py
    assert module == "reproduce.lasvm.protocol" and callable(getattr(protocol, name))


def test_waveform_split_is_standardised_on_the_training_part():
    X_train, y_train, X_test, y_test, digits = protocol.load_split("waveform", 1, 0, 400, 100)
    assert X_train.shape == (400, 21) and X_test.shape == (100, 21) and digits is None
    np.testing.assert_allclose(X_train.mean(0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_train.std(0), 1.0, atol=1e-12)
    assert y_train.dtype == bool and 0.2 < y_train.mean() < 0.5


def test_banana_runs_draw_different_splits_of_5300_points():
    first = protocol.load_split("banana", 1, 0)
    second = protocol.load_split("banana", 1, 1)
    assert len(first[1]) == 4000 and len(first[3]) == 1300
    assert not np.array_equal(first[0], second[0])


def test_small_table3_2_gives_both_tables_beside_the_thesis(tmp_path):
    params = {
        "datasets": ["waveform", "banana"],
        "runs": 2,
        "sizes": {"waveform": [300, 200], "banana": [300]},
    }
    rows = protocol.table3_2(params, out_dir=tmp_path)
    assert (tmp_path / "runs.csv").exists()
    table = {(r["dataset"], r["method"]): r for r in rows}
    for dataset in ("waveform", "banana"):
        svc, lasvm = table[(dataset, "LIBSVM")], table[(dataset, "LASVMx1")]
        assert svc["runs"] == lasvm["runs"] == 2
        assert lasvm["paper_error"] > 0 and svc["paper_n_sv"] > 0
        assert abs(lasvm["error"] - svc["error"]) < 5.0  # the finished LASVM is near the SVM
        assert lasvm["kernel_evaluations"] > 0 and math.isnan(svc["kernel_evaluations"])
        change = table[(dataset, "LASVMx1 finishing")]
        assert not math.isnan(change["sv_change"]) and "paper_sv_change" in change
        # the offline pass (section 3.2.1) is the same model without the per-sample transaction
        offline = table[(dataset, "LASVMx1-offline")]
        for quantity in ("error", "n_sv", "kernel_evaluations", "pass_error", "pass_n_sv"):
            assert offline[quantity] == lasvm[quantity]
        assert offline["paper_error"] == lasvm["paper_error"]
        assert table[(dataset, "LASVMx1-offline finishing")]["sv_change"] == change["sv_change"]
        paired = table[(dataset, "LASVMx1 vs LIBSVM")]
        assert paired["runs"] == 2 and paired["error_diff_min"] <= paired["error_diff"]
        assert paired["error_diff"] == pytest.approx(lasvm["error"] - svc["error"], abs=2e-3)
        assert paired["time_ratio"] > 0 and paired["sv_ratio_max"] >= paired["sv_ratio"]


def test_small_table6_3_runs_the_family_and_svc(tmp_path):
    params = {"datasets": ["banana"], "runs": 1, "sizes": {"banana": [400]}}
    rows = protocol.table6_3(params, out_dir=tmp_path)
    with open(tmp_path / "runs.csv") as runs:
        log = {row["method"]: row for row in csv.DictReader(runs)}
    assert int(log["LASVM-I"]["n_skipped"]) > 0 and int(log["LASVM-G"]["n_skipped"]) == 0
    assert int(log["LASVM-NC"]["n_admitted_flat"]) > 0 and log["LIBSVM"]["n_capped"] == ""
    assert int(log["LASVM-I"]["n_reprocess"]) > 0 and log["LIBSVM"]["n_reprocess"] == ""
    means, paired = rows[: len(protocol.CH6_METHODS)], rows[len(protocol.CH6_METHODS) :]
    assert [r["method"] for r in means] == list(protocol.CH6_METHODS)
    for row in means:
        assert row["accuracy"] > 70.0 and 0.5 < row["auc"] <= 1.0 and row["n_sv"] > 0
        assert row["paper_accuracy"] > 89.0
    others = [m for m in protocol.CH6_METHODS if m != "LASVM-G"]
    assert [r["method"] for r in paired] == [f"{m} vs LASVM-G" for m in others]
    by_method = {r["method"]: r for r in means}
    for row in paired:
        method = row["method"].removesuffix(" vs LASVM-G")
        difference = by_method[method]["accuracy"] - by_method["LASVM-G"]["accuracy"]
        assert row["runs"] == 1 and row["accuracy_diff"] == pytest.approx(difference, abs=2e-3)


def _check_table6_1_rows(rows, n_train):
    """Every row of Table 6.1 adds up: admitted = #SV + #non-SV + cleaned in total and in each
    region of the Ramp, and its percentages are of its own counts."""
    for row in rows:
        assert row["admitted"] == row["n_sv"] + row["n_non_sv"] + row["cleaned"]
        for kind in ("admitted", "cleaned", "sv", "non_sv"):
            by_region = sum(row[f"{kind}_{region}"] for region in ("left", "slope", "right"))
            assert by_region == row[{"sv": "n_sv", "non_sv": "n_non_sv"}.get(kind, kind)]
        for region in ("left", "slope", "right"):
            parts = ("sv", "non_sv", "cleaned")
            assert row[f"admitted_{region}"] == sum(row[f"{k}_{region}"] for k in parts)
        for region in ("left", "right"):
            admitted = row[f"admitted_{region}"]
            if admitted:
                share = 100.0 * row[f"cleaned_{region}"] / admitted
                assert row[f"{region}_cleaned_pct"] == pytest.approx(share, abs=1e-3)
        if row["method"] in ("FULL SVM", "LASVM-G", "LASVM-G + CLEAN(m=0)", "LASVM-NC"):
            assert row["admitted"] == n_train  # PROCESS admits every sample (section 6.1)


def test_small_table6_1_counts_add_up_and_the_final_clean_leaves_only_svs(tmp_path):
    params = {"datasets": ["banana"], "methods": list(protocol.CH6_1_METHODS)}
    rows = protocol.table6_1(params | {"runs": 2, "sizes": {"banana": [1000]}}, out_dir=tmp_path)
    with open(tmp_path / "runs.csv") as runs:
        assert len(list(csv.DictReader(runs))) == 2 * 7  # FULL SVM never cleans: no second row
    table = {r["method"]: r for r in rows}
    assert list(table) == [
        "FULL SVM",
        "LASVM-G",
        "LASVM-G + CLEAN(m=0)",
        "LASVM-NC",
        "LASVM-NC + CLEAN(m=0)",
        "LASVM-I",
        "LASVM-I + CLEAN(m=0)",
    ]
    _check_table6_1_rows(rows, 1000)
    assert table["FULL SVM"]["cleaned"] == 0 and table["LASVM-G"]["cleaned"] > 0
    assert table["LASVM-I"]["admitted"] < 1000  # the filter skips samples (section 6.3)
    for method in ("LASVM-G", "LASVM-NC", "LASVM-I"):
        end, final = table[method], table[method + protocol.FINAL_CLEAN]
        assert final["n_non_sv"] == 0 and final["n_sv"] == end["n_sv"]
        assert final["cleaned"] == end["cleaned"] + end["n_non_sv"]
        assert final["admitted_right"] == end["admitted_right"]
    assert not any(key.startswith("paper_") for row in rows for key in row)  # Adult's only


@pytest.mark.requires_data("a9a")
def test_table6_1_scenario_on_a_few_adult_rows_sits_beside_the_thesis():
    """The scenario through the registry, cut to 600 rows: the thesis's counts beside ours, and
    its reading as percentages computed from them."""
    from imbalance_stream.evaluate.protocols import get_protocol

    scenario = load(str(HERE / "table6_1.toml"))
    run = get_protocol(scenario.protocol)
    params = {**scenario.params, "runs": {"adult": 1}, "sizes": {"adult": [600]}}
    rows = run(params, out_dir=None, n_jobs=None, scheduler=None, progress=False)
    _check_table6_1_rows(rows, 600)
    table = {r["method"]: r for r in rows}
    full, lasvm_g = table["FULL SVM"], table["LASVM-G"]
    assert full["paper_admitted"] == full["paper_n_sv"] + full["paper_n_non_sv"]
    assert "paper_admitted_left" not in full  # the table merges FULL SVM's regions
    for row in (lasvm_g, table["LASVM-G + CLEAN(m=0)"]):
        for region in ("left", "right"):
            share = 100.0 * row[f"paper_cleaned_{region}"] / row[f"paper_admitted_{region}"]
            assert row[f"paper_{region}_cleaned_pct"] == pytest.approx(share, abs=1e-3)
    assert "paper_n_sv" not in table["LASVM-NC"]


def test_the_comparison_with_lasvm_g_pairs_the_runs_by_training_order():
    def row(method, run, accuracy, n_sv):
        return {
            "dataset": "adult",
            "method": method,
            "run": run,
            "accuracy": accuracy,
            "n_sv": n_sv,
        }

    results = [
        row("LASVM-G", 0, 85.0, 1000),
        row("LASVM-I", 0, 84.5, 500),
        row("LASVM-G", 1, 84.0, 1000),
        row("LASVM-I", 1, 84.3, 400),
        row("LASVM-I", 2, 99.0, 1),  # no LASVM-G on this order: left out
    ]
    (paired,) = protocol._against(results, "LASVM-G", "accuracy", ("n_sv",))
    assert paired["method"] == "LASVM-I vs LASVM-G" and paired["runs"] == 2
    assert paired["accuracy_diff"] == pytest.approx(-0.1)
    assert (paired["accuracy_diff_min"], paired["accuracy_diff_max"]) == (-0.5, 0.3)
    assert (paired["sv_ratio"], paired["sv_ratio_max"]) == (0.45, 0.5)


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="datasets"):
        protocol.table3_2({"datasets": ["reuters"]})
    with pytest.raises(ValueError, match="methods"):
        protocol.table6_3({"methods": ["SMO"]})


@pytest.mark.requires_data("mnist")
def test_small_mnist_run_combines_the_ten_tasks():
    params = {"methods": ["LIBSVM", "AVGPERCx1"], "sizes": {"mnist": [300, 200]}}
    rows = protocol.mnist_ovr(params)
    multiclass = [r for r in rows if r["dataset"] == "mnist (10 classes)"]
    assert {r["method"] for r in multiclass} == {"LIBSVM", "AVGPERCx1"}
    svc = next(r for r in multiclass if r["method"] == "LIBSVM")
    assert svc["error"] < 40.0 and svc["paper_error"] == 1.36


@pytest.mark.requires_data("a9a")
def test_adult_split_keeps_the_test_file_and_shuffles_the_training_rows():
    X_train, y_train, X_test, y_test, _ = protocol.load_split("adult", 1, 0, 500)
    assert X_train.shape == (500, 123) and X_test.shape[0] == 16281
    other = protocol.load_split("adult", 1, 1, 500)[0]
    assert not np.array_equal(X_train, other)


def test_transaction_cost_compares_two_passes_that_end_in_the_same_model():
    from reproduce.lasvm.transaction_cost import one_pass

    split = protocol.load_split("waveform", 3, 0, 150, 40)
    guarded, guarded_cpu = one_pass(split, "waveform", guarded=True)
    direct, direct_cpu = one_pass(split, "waveform", guarded=False)
    test = protocol.as_dicts(split[2])
    assert guarded.n_support_ == direct.n_support_ > 0
    assert [guarded.decision_one(x) for x in test] == [direct.decision_one(x) for x in test]
    assert guarded_cpu >= 0.0 and direct_cpu >= 0.0
    assert "_apply" in vars(direct) and "_apply" not in vars(guarded)


def test_the_reported_snapshot_is_what_the_transaction_copies():
    """The megabytes printed are the copies of the member slots 0 .. count (one member is
    11 float64 or int64 values), not the arrays' capacity."""
    from reproduce.lasvm.transaction_cost import _snapshot_megabytes, one_pass

    split = protocol.load_split("waveform", 3, 0, 150, 40)
    model, _ = one_pass(split, "waveform", guarded=True)
    slots = (model.n_expansion_ + 1) * 11 * 8
    assert slots / 1e6 <= _snapshot_megabytes(model) < slots / 1e6 + 0.01


@pytest.mark.parametrize("method", ["LASVM-NC", "LASVM-I"])
def test_transaction_cost_measures_a_chapter_6_model_with_table_6_2_settings(method):
    from reproduce.lasvm.transaction_cost import FAMILY_CACHE_MB, one_pass

    split = protocol.load_split("banana", 3, 0, 200)
    guarded, _ = one_pass(split, "banana", guarded=True, method=method)
    direct, _ = one_pass(split, "banana", guarded=False, method=method)
    assert type(guarded).__name__ == type(direct).__name__ != "LASVM"
    assert (guarded.C, guarded.gamma) == protocol.CH6_SETTINGS["banana"]
    assert guarded.cache_mb == FAMILY_CACHE_MB
    test = protocol.as_dicts(split[2][:50])
    assert [guarded.decision_one(x) for x in test] == [direct.decision_one(x) for x in test]


def test_transaction_cost_refuses_a_chapter_6_model_on_a_set_without_its_settings():
    from reproduce.lasvm.transaction_cost import build

    with pytest.raises(ValueError, match="waveform"):
        build("waveform", "LASVM-G", None)


def test_warm_up_compiles_every_kernel_a_timed_pass_can_reach():
    # in a fresh process, so that no other test has compiled them already
    script = (
        "from reproduce.lasvm import protocol\n"
        "import imbalance_stream._numba.lasvm as core\n"
        "import imbalance_stream._numba.lasvm_gap as gap_core\n"
        "import imbalance_stream._numba.kernels as kernels\n"
        "protocol._warm_up()\n"
        "names = ('learn', 'learn_stored', 'finish', 'compact_store', 'decision')\n"
        "missing = [n for n in names if not getattr(core, n).signatures]\n"
        "names = ('learn_gap', 'finish_gap', 'clean')\n"
        "missing += [n for n in names if not getattr(gap_core, n).signatures]\n"
        "missing += [] if kernels.expansion.signatures else ['expansion']  # AVGPERC\n"
        "print(missing)\n"
    )
    root = str(HERE.parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=root
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_transaction_cost_takes_an_mnist_task_with_section_3_2_2_settings():
    from reproduce.lasvm.transaction_cost import build

    model = build("mnist-8", "LASVM", None)
    assert (model.C, model.gamma, model.cache_mb) == protocol.CH3_SETTINGS["mnist"]
    assert protocol.CH6_SETTINGS["mnist-8"][0] == build("mnist-8", "LASVM-I", None).C


def test_runs_given_as_indices_draw_the_same_orders_as_a_count():
    params = {"datasets": ["banana"], "methods": ["LASVM-I"], "sizes": {"banana": [200]}}
    cells = protocol._cells(
        {**params, "runs": {"banana": [2, 0]}},
        "6.3",
        ["banana"],
        ["LASVM-I"],
        lambda d: (1.0, 1.0, 1.0),
    )
    assert [c["run"] for c in cells] == [2, 0]
    counted = protocol._cells(
        {**params, "runs": 3}, "6.3", ["banana"], ["LASVM-I"], lambda d: (1.0, 1.0, 1.0)
    )
    assert [c["run"] for c in counted] == [0, 1, 2]
    first = protocol.load_split("banana", 2009, cells[0]["run"], 200)
    assert np.array_equal(first[0], protocol.load_split("banana", 2009, counted[2]["run"], 200)[0])


def test_cache_check_changes_time_and_kernel_evaluations_not_the_model(capsys):
    from reproduce.lasvm import cache_check

    split = protocol.load_split("banana", 1, 0, 300)
    small, large = (cache_check.lasvm_offline(split, mb) for mb in (1e-3, 10.0))
    assert small["error"] == large["error"] and small["finishing_steps"] == large["finishing_steps"]
    assert small["lines"] < large["lines"]
    assert small["kernel_evaluations"] > large["kernel_evaluations"]
