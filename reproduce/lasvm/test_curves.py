"""Seed 003 figure protocols (reproduce/lasvm/curves.py): a tiny run of each, and the figures."""

import pathlib

import numpy as np
import pytest

from imbalance_stream.scenario import load
from reproduce.lasvm import curves

HERE = pathlib.Path(__file__).resolve().parent
CURVE_TOMLS = [p for p in sorted(HERE.glob("fig*.toml")) if "lasvm.curves" in p.read_text()]


def _matplotlib():
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize("path", CURVE_TOMLS, ids=lambda p: p.stem)
def test_every_figure_scenario_names_a_protocol_and_known_figures(path):
    scenario = load(str(path))
    module, _, name = scenario.protocol.partition(":")
    assert module == "reproduce.lasvm.curves" and callable(getattr(curves, name))
    for entry in scenario.params.get("figures", ()):
        key = entry if isinstance(entry, str) else entry["figure"]
        assert key in curves.FIGURES
    for method in scenario.params.get("methods", ()):
        assert method == "LIBSVM" or curves._parse(method)[0] in curves.METHODS


def test_the_chapter_6_curves_record_the_gap_and_draw_their_figures(tmp_path):
    params = {
        "sets": [{"dataset": "banana-ch6", "n_train": 300, "n_test": 200}],
        "methods": ["LASVM-G", "LASVM-NC s=-0.5", "LASVM", "LIBSVM"],
        "finish": "end",
        "gap": ["LASVM-G"],
        "checkpoints": 4,
        "figures": ["6.1", "6.2", "6.4", "6.5", "6.6", "6.7", "6.8"],
    }
    rows = curves.curves(params, out_dir=tmp_path)
    assert (tmp_path / "runs.csv").exists()
    gaps = [r["gap"] for r in rows if r["method"] == "LASVM-G"]
    assert len(gaps) == 4 and all(g >= -1e-9 for g in gaps)
    ends = [r for r in rows if r["point"] == "end"]
    assert {r["method"] for r in ends} == {"LASVM", "LIBSVM"}  # the family is never finished
    assert all(r["n_seen"] == 300 for r in ends)
    if _matplotlib():
        for key in params["figures"]:
            assert (tmp_path / f"fig{key.replace('.', '_')}.png").stat().st_size > 0


def test_the_duality_gap_vanishes_at_the_optimum_of_a_finished_expansion():
    rng = np.random.default_rng(0)
    rows = [{0: float(a), 1: float(b)} for a, b in rng.normal(size=(80, 2))]
    labels = [bool(x[0] + x[1] > 0) for x in rows]
    model = curves.LASVMG(C=1.0, gamma=0.5)
    for x, label in zip(rows, labels):
        model.learn_one(x, label)
    model.finish()
    assert abs(curves.duality_gap(model, rows, labels)) < 0.05


@pytest.mark.requires_data("satimage")
def test_selection_curves_keep_the_roc_scores_at_the_saturation_point(tmp_path):
    params = {
        "sets": [{"dataset": "satimage", "n_train": 400}],
        "methods": ["AL", "RS", "VIRTUAL"],
        "finish": "checkpoints",
        "checkpoints": 3,
        "roc": True,
        "figures": ["4.7", "4.9", "5.6"],
    }
    rows = curves.curves(params, out_dir=tmp_path)
    curve = [r for r in rows if r["point"] == "curve"]
    assert {r["method"] for r in curve} == {"AL", "RS", "VIRTUAL"}
    assert all(r["stopped_at"] is None or r["stopped_at"] > 0 for r in curve if "stopped_at" in r)
    assert {r["point"] for r in rows if r["method"] == "RS"} >= {"curve", "roc-end"}


def test_load_set_undersamples_and_flips_only_the_training_labels():
    spec = {"dataset": "banana", "n_train": 1000, "ratio": 4.0}
    X, y, X_test, y_test = curves.load_set(spec, 1, 0)
    assert abs((~y).sum() / y.sum() - 4.0) < 0.1 and len(y_test) == 4300  # the rest of the 5,300
    noisy = curves.load_set({**spec, "noise": 0.2}, 1, 0)
    flipped = np.mean(noisy[1] != y)
    assert 0.1 < flipped < 0.3 and np.array_equal(noisy[3], y_test)
    assert curves.set_name({**spec, "noise": 0.2}) == "banana ratio 4 noise 20%"


def test_the_reprocess_sweep_reaches_libsvm_after_two_epochs(tmp_path):
    params = {"sets": [{"dataset": "banana", "n_train": 500}], "delta_max": [0.1, 100.0]}
    rows = curves.reprocess_sweep(params, out_dir=tmp_path)
    table = {(r["variant"], r["delta_max"]): r for r in rows}
    libsvm = table[("LIBSVM", None)]
    for delta in (0.1, 100.0):
        assert abs(table[("x2 finished", delta)]["error"] - libsvm["error"]) < 1.5
    # small delta_max: the pass already keeps few support vectors (aggressive REPROCESS)
    assert table[("x1 not finished", 0.1)]["n_sv"] < table[("x1 not finished", 100.0)]["n_sv"]
    if _matplotlib():
        assert (tmp_path / "fig3_7.png").exists()


@pytest.mark.requires_data("mnist")
def test_the_cache_sweep_is_relative_to_libsvm_with_the_largest_cache(tmp_path):
    params = {"digits": [1], "cache_mb": [0.5, 64], "sizes": {"mnist": [200, 100]}}
    rows = curves.mnist_cache(params, out_dir=tmp_path)
    table = {(r["method"], r["cache_mb"]): r for r in rows}
    assert table[("LIBSVM", 64.0)]["relative_time"] == 1.0
    assert (
        table[("LASVMx1-offline", 0.5)]["kernel_evaluations"]
        >= (table[("LASVMx1-offline", 64.0)]["kernel_evaluations"])
    )


@pytest.mark.requires_data("mnist")
def test_the_mnist_one_vs_rest_run_draws_figs_3_1_3_2_3_4_and_3_5(tmp_path):
    from reproduce.lasvm import protocol

    params = {"methods": ["LIBSVM", "AVGPERCx1"], "sizes": {"mnist": [200, 100]}}
    protocol.mnist_ovr(params, out_dir=tmp_path)
    if _matplotlib():
        for key in ("3_1", "3_2", "3_4", "3_5"):
            assert (tmp_path / f"fig{key}.png").stat().st_size > 0
