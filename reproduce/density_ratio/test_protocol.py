"""Seed 004 protocols: the Spambase split, and a small run of each table's protocol."""

import numpy as np
import pytest

from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.density_ratio.bandwidths import knn_bandwidths
from imbalance_stream.scenario import load
from reproduce.density_ratio import protocol

pytestmark = pytest.mark.requires_data("spambase")


def test_table5_1_split_takes_rho_of_all_emails_and_keeps_the_test_set_across_tau():
    is_spam = np.r_[np.ones(40, bool), np.zeros(100, bool)]
    reference, test = protocol.spam_split(is_spam, 0.5, 0.0, np.random.default_rng(0))
    assert len(test) == 70 and len(reference) == 70 - is_spam[np.setdiff1d(range(140), test)].sum()
    assert not is_spam[reference].any() and not set(reference) & set(test)
    assert 0 < is_spam[test].sum() < 40  # spam on both sides of the draw, all tested ones kept
    base_reference, base_test = protocol.run_split(is_spam, 0.5, 0.0, 7, 3)
    injected_reference, injected_test = protocol.run_split(is_spam, 0.5, 0.1, 7, 3)
    np.testing.assert_array_equal(injected_test, base_test)  # tau only adds spam of the part
    part = np.setdiff1d(range(140), base_test)
    added = np.setdiff1d(injected_reference, base_reference)
    assert is_spam[added].all() and len(added) == round(0.1 * is_spam[part].sum())
    assert set(added) <= set(part)
    with pytest.raises(InvalidParameter, match="split must be one of 'all', 'non-spam'"):
        protocol.run_split(is_spam, 0.5, 0.0, 7, 3, split="spam")


def test_non_spam_split_follows_rho_and_tau():
    is_spam = np.r_[np.ones(40, bool), np.zeros(100, bool)]
    reference, test = protocol.spam_split(
        is_spam, 0.5, 0.1, np.random.default_rng(0), split="non-spam"
    )
    assert (~is_spam[reference]).sum() == 50 and is_spam[reference].sum() == 5
    assert (~is_spam[test]).sum() == 50 and is_spam[test].sum() == 35
    assert not set(reference) & set(test) and len(reference) + len(test) == 140


@pytest.mark.parametrize("name", ["table5_4", "table5_5"])
def test_scenarios_load_and_a_small_run_gives_the_table(name, tmp_path):
    scenario = load(f"reproduce/density_ratio/{name}.toml")
    assert scenario.protocol.endswith(name)
    function = getattr(protocol, name)
    params = {"methods": ["LOF", "uLSIF"], "runs": 2, "rho": [0.5], "tau": [0.0, 0.05]}
    if name == "table5_5":
        params["rho"] = 0.5
    rows = function(params, out_dir=tmp_path)
    assert (tmp_path / "runs.csv").exists()
    assert {row["method"] for row in rows} == {"LOF", "uLSIF"}
    for row in rows:
        assert 0.5 < row["auc"] <= 1.0 and 0.0 < row["prec_at_t"] <= 1.0
        assert row["runs"] == 2 and np.isfinite(row["paper_auc"])


def test_log1p_features_are_log_counts_scaled_to_the_same_range():
    plain, is_spam = protocol.scaled_spambase()
    logged, same_labels = protocol.scaled_spambase("log1p")
    assert np.array_equal(is_spam, same_labels) and plain.shape == logged.shape
    assert np.allclose(logged.min(0), plain.min(0)) and np.allclose(logged.max(0), plain.max(0))
    # the transform is monotone per feature, so it keeps each feature's order but not its gaps
    column = np.argsort(plain[:, 0], kind="stable")
    assert np.all(np.diff(logged[column, 0]) >= 0) and not np.allclose(logged, plain)


def test_table5_4_log1p_scenario_loads_and_refuses_an_unknown_transform(tmp_path):
    scenario = load("reproduce/density_ratio/table5_4_log1p.toml")
    assert scenario.params["features"] == "log1p"
    with pytest.raises(ValueError, match="features must be one of minmax, log1p"):
        protocol.table5_4({"features": "log", "runs": 1, "rho": [0.5]}, out_dir=tmp_path)


def test_fig5_6_small_run_gives_one_row_per_method_and_k(tmp_path):
    rows = protocol.fig5_6({"methods": ["LOF"], "k": [3, 7], "runs": 2}, out_dir=tmp_path)
    assert [(row["method"], row["k"]) for row in rows] == [("LOF", 3), ("LOF", 7)]
    assert all(0.5 < row["auc"] <= 1.0 for row in rows)


@pytest.mark.requires_data("mnist")
def test_usps_stand_in_has_usps_shape_counts_and_range():
    X_train, d_train, X_test, d_test = protocol.usps_stand_in(0)
    assert X_train.shape == (7291, 256) and X_test.shape == (2007, 256)
    assert tuple(np.bincount(d_test)) == protocol.USPS_TEST_COUNTS
    assert X_train.min() >= -1.0 and X_train.max() <= 1.0


@pytest.mark.requires_data("mnist")
def test_digits_small_run_reads_the_thesis_values(tmp_path):
    rows = protocol.table5_2_3({"digits": [1], "methods": ["LOF"]}, out_dir=tmp_path)
    assert rows[0]["paper_auc"] == 0.7248 and rows[0]["paper_prec_at_t"] == 0.1174
    assert 0.5 < rows[0]["auc"] <= 1.0


def test_time_ratios_divide_by_kmm_at_the_same_setting():
    rows = [
        {"rho": 0.5, "method": "KMM", "cpu_seconds": 4.0},
        {"rho": 0.5, "method": "uLSIF", "cpu_seconds": 1.0},
        {"rho": 0.5, "method": "OSVM", "cpu_seconds": 2.0},
        {"rho": 0.7, "method": "uLSIF", "cpu_seconds": 1.0},
    ]
    protocol._add_time_ratios(rows, "rho")
    assert [row["time_vs_kmm"] for row in rows[:3]] == [1.0, 0.25, 0.5]
    assert np.isnan(rows[3]["time_vs_kmm"])  # no KMM at that setting
    assert rows[1]["paper_time_vs_kmm_S1"] == pytest.approx(3.6 / 27.4, abs=1e-3)
    assert np.isnan(rows[2]["paper_time_vs_kmm_S1"])  # OSVM is not in Table 5.11


def test_solver_tolerance_reports_the_zero_weights_and_the_tied_auc():
    rows = protocol.solver_tolerance({"tol": [1e-3], "methods": ["KMM", "locKMM"]})
    assert [(row["method"], row["tol"]) for row in rows] == [("KMM", 1e-3), ("locKMM", 1e-3)]
    for row in rows:
        assert 0 < row["zero_weights"] < 3207
        assert 0.5 < row["auc"] <= 1.0 and 0.5 < row["auc_zero_weights_tied"] <= 1.0


def test_solver_tolerance_with_the_interior_point_solver_leaves_no_weight_at_zero():
    pytest.importorskip("cvxopt")
    rows = protocol.solver_tolerance(
        {"tol": [1e-9], "methods": ["KMM"], "solver": "interior-point"}
    )
    assert len(rows) == 1 and rows[0]["solver"] == "interior-point"
    assert rows[0]["zero_weights"] == 0  # the iterates stay inside the box
    assert 0.5 < rows[0]["auc"] <= 1.0


@pytest.mark.parametrize("name", ["table5_4_kmm_interior", "solver_tolerance_interior"])
def test_interior_point_scenarios_name_the_solver_and_a_bad_one_fails_first(name):
    scenario = load(f"reproduce/density_ratio/{name}.toml")
    assert scenario.params["solver"] == "interior-point"
    function = getattr(protocol, scenario.protocol.rsplit(":", 1)[1])
    with pytest.raises(InvalidParameter, match="solver must be one of 'fista', 'interior-point'"):
        function({**scenario.params, "solver": "newton"})


def test_own_collection_widths_are_taken_within_each_collection():
    rng = np.random.default_rng(0)
    pooled = rng.normal(size=(30, 2))
    widths = protocol.OwnCollectionLocKMM(k=3)._local_widths(pooled, reference_size=20)
    assert np.array_equal(widths[:20], knn_bandwidths(pooled[:20], 3))
    assert np.array_equal(widths[20:], knn_bandwidths(pooled[20:], 3))


def test_distinct_points_widths_count_each_duplicate_once():
    rng = np.random.default_rng(0)
    distinct = rng.normal(size=(12, 2))
    pooled = np.concatenate([distinct, np.repeat(distinct[:1], 8, axis=0)])  # 9 copies of row 0
    widths = protocol.DistinctPointsLocKMM(k=3)._local_widths(pooled, reference_size=10)
    assert np.all(widths[12:] == widths[0])
    assert np.allclose(widths[:12], knn_bandwidths(distinct, 3))
    assert knn_bandwidths(pooled, 3)[0] < 1e-6 < widths[0]  # the floor of D-DR-6 is not needed


def test_lockmm_neighbourhood_small_run_compares_the_readings(tmp_path):
    rows = protocol.lockmm_neighbourhood({"runs": 1, "digits": []}, out_dir=tmp_path)
    assert [(row["data"], row["neighbourhood"]) for row in rows] == [
        ("spam", "pooled"),
        ("spam", "own collection"),
        ("spam", "pooled, distinct points"),
    ]
    for row in rows:
        assert row["tasks"] == 1 and 0.5 < row["auc"] <= 1.0 and row["paper_auc"] == 0.9362
        assert row["auc_minus_paper"] == pytest.approx(row["auc"] - 0.9362, abs=1e-4)


def test_fig5_5_small_run_draws_the_roc_curves(tmp_path):
    assert load("reproduce/density_ratio/fig5_5.toml").protocol.endswith("fig5_5")
    rows = protocol.fig5_5({"methods": ["LOF"], "rho": [0.5]}, out_dir=tmp_path)
    assert [(row["task"], row["method"], row["paper_auc"]) for row in rows] == [
        (0.5, "LOF", 0.7584)
    ]
    assert 0.5 < rows[0]["auc"] <= 1.0 and "tpr" not in rows[0]
    assert rows[0]["highest_share"] == 1.0  # alone, its curve is the highest everywhere
    assert (tmp_path / "runs.csv").exists()
    pytest.importorskip("matplotlib")
    assert (tmp_path / "fig5_5.png").stat().st_size > 0


def test_roc_points_follow_the_grid():
    points = protocol.roc_points([0.9, 0.8, 0.2, 0.1], [True, False, True, False])
    assert points.shape == protocol.ROC_GRID.shape
    assert points[0] == 0.5 and points[-1] == 1.0 and np.all(np.diff(points) >= 0)


@pytest.mark.requires_data("mnist")
def test_fig5_3_4_small_run_draws_each_figure_of_the_digits_it_ran(tmp_path):
    assert load("reproduce/density_ratio/fig5_3_4.toml").protocol.endswith("fig5_3_4")
    rows = protocol.fig5_3_4({"digits": [1], "methods": ["LOF"]}, out_dir=tmp_path)
    assert rows[0]["paper_auc"] == 0.7248 and 0.5 < rows[0]["auc"] <= 1.0
    pytest.importorskip("matplotlib")
    assert (tmp_path / "fig5_3.png").exists() and not (tmp_path / "fig5_4.png").exists()
