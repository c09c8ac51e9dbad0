"""The KOIL thesis's protocol: exact AUC, t-test marks, fold handling, the transcribed tables, and a
tiny run of each registered protocol."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.evaluate.protocols import get_protocol
from reproduce.koil import protocol as kp

# the protocols read the papers' benchmark files
pytestmark = pytest.mark.requires_data(
    "koil-glass", "koil-heart", "koil-s4", "koil-vowel", "koil-sonar", "koil-german"
)

# ---- exact AUC ----------------------------------------------------------------------------------


def pairs_auc(scores, positive, tie):
    pos, neg = scores[positive], scores[~positive]
    total = sum((p > n) + tie * (p == n) for p in pos for n in neg)
    return total / (len(pos) * len(neg))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.booleans()), min_size=2, max_size=40))
def test_auc_equals_the_pair_count(samples):
    scores = np.array([s for s, _ in samples], dtype=float)
    positive = np.array([p for _, p in samples])
    if positive.all() or not positive.any():
        assert np.isnan(kp.auc(scores, positive)) and np.isnan(kp.auc_strict(scores, positive))
        return
    assert kp.auc(scores, positive) == pytest.approx(pairs_auc(scores, positive, 0.5))
    assert kp.auc_strict(scores, positive) == pytest.approx(pairs_auc(scores, positive, 0.0))


def test_auc_known_values():
    assert kp.auc([0.1, 0.4, 0.35, 0.8], [False, False, True, True]) == 0.75
    assert kp.auc([1, 1, 1], [True, False, False]) == 0.5
    assert kp.auc_strict([1, 1, 1], [True, False, False]) == 0.0


# ---- t-test marks -------------------------------------------------------------------------------


def test_compare_marks():
    rng = np.random.default_rng(0)
    koil = 0.9 + 0.01 * rng.standard_normal(20)
    worse = koil - 0.05 + 0.005 * rng.standard_normal(20)
    better = koil + 0.05 + 0.005 * rng.standard_normal(20)
    same = koil + 0.01 * rng.standard_normal(20)
    assert kp.compare([koil, koil], worse)[0] == "•"
    assert kp.compare([koil, same + 0.2], worse)[0] == "•"
    assert kp.compare([koil, worse], worse)[0] == "○"
    assert kp.compare([koil, koil], better)[0] == "-"
    mark, p_values = kp.compare([koil], koil)
    assert mark == "" and p_values == [1.0]


# ---- the thesis's tables ------------------------------------------------------------------------


def wtl(table, column):
    marks = [table[d][column][2] for d in table]
    return marks.count("*"), marks.count(""), marks.count("-")


def test_transcribed_tables_reproduce_the_printed_win_tie_loss_rows():
    t32, t33 = kp.PAPER["3.2"], kp.PAPER["3.3"]
    assert len(t32) == 4 and len(t33) == 14 and len(kp.PAPER["4.1"]) == 14
    printed_32 = {
        "Perceptron": (4, 0, 0),
        "Forgetron": (3, 1, 0),
        "Projectron": (2, 2, 0),
        "Projectron++": (3, 1, 0),
        "NORMA": (4, 0, 0),
    }
    for column, expected in printed_32.items():
        assert wtl(t32, column) == expected
    printed_33 = {
        "Perceptron": (14, 0, 0),
        "OAM_seq": (9, 4, 1),
        "OPAUC": (12, 1, 1),
        "NORMA": (13, 1, 0),
        "RBP": (12, 2, 0),
        "Forgetron": (14, 0, 0),
        "Projectron": (11, 3, 0),
        "Projectron++": (10, 4, 0),
    }
    for column, expected in printed_33.items():
        assert wtl(t33, column) == expected
    assert t33["vowel"]["KOIL_RS++"] == (1.0, 0.0, "")
    assert t33["shuttle"]["OAM_seq"] == (0.999, 0.0, "-")


# ---- folds --------------------------------------------------------------------------------------


def test_inner_folds_come_from_idxasso_or_a_documented_fallback():
    folds, source = kp.inner_assignment("glass")
    _, _, splits, _ = kp._dataset("glass")
    assert len(folds) == len(splits[0][0]) and set(folds) == {1, 2, 3, 4, 5}
    assert "IdxAsso" in source and "seeded" not in source
    folds, source = kp.inner_assignment("vowel")  # NUL-corrupted IdxAsso
    assert "seeded random" in source and set(folds) == {1, 2, 3, 4, 5}
    assert np.array_equal(folds, kp.inner_assignment("vowel")[0])  # reproducible


def test_twenty_trials_cover_every_row_four_times():
    _, labels, splits, _ = kp._dataset("heart")
    assert len(splits) == 20
    counts = np.zeros(len(labels), dtype=int)
    for train, test in splits:
        assert not set(train) & set(test)
        counts[test] += 1
    assert np.all(counts == 4)


def test_shuttle_comes_from_river_odds_while_the_koil_file_is_absent(monkeypatch):
    from imbalance_stream.datasets import ShuttleODDS, koil

    assert "shuttle" in koil.FOLDS_ONLY  # only the fold files of the authors' shuttle exist
    rows, labels, splits, data = kp._dataset("shuttle")
    assert isinstance(data, ShuttleODDS)
    assert len(rows) == 49_097 and int(labels.sum()) == 3_511 and len(splits) == 20
    folds, source = kp.inner_assignment("shuttle")
    assert len(folds) == len(splits[0][0]) and set(folds) == {1, 2, 3, 4, 5}
    assert source.startswith("seeded random 5-fold assignment (seed 0)") and "ShuttleODDS" in source
    assert kp._row_name("shuttle") == "shuttle (River ODDS)"
    assert "NOT the thesis's shuttle" in kp.data_source("shuttle")
    assert "shuttle" in kp._TABLE3_3["datasets"] and len(kp._TABLE3_3["datasets"]) == 14
    # were the authors' file available, it would be used and compared as for the other sets
    monkeypatch.delitem(koil.FOLDS_ONLY, "shuttle")
    assert kp._row_name("shuttle") == "shuttle" and kp.data_source("shuttle").startswith("KOIL")
    assert kp.data_source("glass") == "KOIL data file koil/glass and its fold files"


def test_model_params_map_the_grid_onto_each_estimator():
    settings = kp._settings({"datasets": [], "algorithms": []}, {})
    koil = kp._model_params("KOIL_FIFO++", {"C": 4.0, "sigma": 0.5}, settings)
    assert koil == {
        "policy": "fifo++",
        "loss": "hinge",
        "eta": 0.01,
        "C": 4.0,
        "gamma": 2.0,
        "budget": 100,
        "k": 10,
        "seed": 0,
    }
    assert kp._model_params("RBP", {"sigma": 1.0}, settings)["budget"] == 200
    assert kp._model_params("OAM_seq", {"C": 1.0}, settings)["budget"] == 100
    assert kp._model_params("Projectron", {"proj_eta": 0.25, "sigma": 1.0}, settings)["eta"] == 0.25
    perceptron = kp._build("Perceptron", kp._model_params("Perceptron", {}, settings))
    for x, y in [({"a": 1.0}, True), ({"a": 2.0}, False), ({"a": 0.5}, True)]:
        perceptron.learn_one(x, y)
    assert (
        perceptron.intercept == 0.0 and perceptron.weights["a"] == -0.5
    )  # 1 - 2 + 0.5: three mistakes
    own = kp._settings(
        {"datasets": [], "algorithms": [], "grid": {"C": [1], "OAM_seq": {"C": [-3, -2]}}}, {}
    )
    assert [p["C"] for p in kp._grid_points("OAM_seq", own["grid"])] == [0.125, 0.25]
    assert {p["C"] for p in kp._grid_points("KOIL_RS++", own["grid"])} == {2.0}
    assert len(kp._grid_points("KOIL_RS++", own["grid"])) == 21  # sigma: the thesis's 2^[-10:10]
    with pytest.raises(ValueError, match="no grid parameter"):
        kp._settings({"datasets": [], "algorithms": [], "grid": {"OAM_seq": {"sigma": [0]}}}, {})
    with pytest.raises(ValueError, match="unknown KOIL column"):
        kp._settings({"datasets": [], "algorithms": ["SVM"]}, {})
    with pytest.raises(ValueError, match="unknown KOIL protocol parameters"):
        kp._settings({"datasets": [], "algorithms": [], "budgett": 3}, {})


# ---- tiny runs of every protocol ----------------------------------------------------------------

TINY_GRID = {"C": [2], "sigma": [-1, 0], "lam": [-4], "nu": [-1], "proj_eta": [-2]}


def test_table3_3_smoke(tmp_path):
    names = ["KOIL_RS++", "KOIL_FIFO++", "Perceptron", "OAM_seq", "RBP", "Projectron++"]
    params = {"datasets": ["glass"], "algorithms": names, "trials": [0, 1, 2], "grid": TINY_GRID}
    rows = get_protocol("reproduce.koil.protocol:table3_3")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert [r["algorithm"] for r in rows] == names
    for row in rows:
        assert 0.5 < row["auc_mean"] <= 1.0 and row["trials"] == 3
        assert row["paper_auc_mean"] is not None
    selected = json.loads((tmp_path / "selected.json").read_text())
    assert selected["glass"]["KOIL_RS++"]["values"]["sigma"] in (0.5, 1.0)
    assert "IdxAsso" in selected["glass"]["KOIL_RS++"]["source"]
    assert "win/tie/loss" in (tmp_path / "table.md").read_text()
    # the selection file, passed back, skips the search and gives the same numbers
    again = get_protocol("reproduce.koil.protocol:table3_3")(
        dict(params, selected_file=str(tmp_path / "selected.json")),
        out_dir=tmp_path / "again",
        n_jobs=None,
        scheduler=None,
        progress=False,
    )
    assert [r["auc_mean"] for r in again] == [r["auc_mean"] for r in rows]
    reused = json.loads((tmp_path / "again" / "selected.json").read_text())
    assert reused["glass"]["KOIL_RS++"]["source"] == "fixed by the scenario"


def test_table3_3_on_the_shuttle_substitute_is_never_set_beside_the_thesis(tmp_path):
    params = {
        "datasets": ["shuttle"],
        "algorithms": ["Perceptron", "OPAUC"],
        "trials": [0],
        "fixed": {"shuttle": {"OPAUC": {"lam": 0.0625}}},
    }
    rows = get_protocol("reproduce.koil.protocol:table3_3")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    for row in rows:
        assert row["dataset"] == "shuttle (River ODDS)" and "ODDS" in row["data"]
        assert row["paper_auc_mean"] is None and row["difference"] is None
        assert 0.9 < row["auc_mean"] <= 1.0  # the ODDS task is nearly linearly separable
    selected = json.loads((tmp_path / "selected.json").read_text())
    assert "NOT the thesis's shuttle" in selected["shuttle"]["OPAUC"]["data"]
    table_md = (tmp_path / "table.md").read_text()
    assert "| shuttle (River ODDS) |" in table_md and " / " not in table_md.splitlines()[2]
    assert "NOT the thesis's shuttle" in table_md


def test_table3_2_smoke_with_fixed_hyper_parameters(tmp_path):
    fixed = {
        "s4": {
            "KOIL_RS++": {"C": 8.0, "sigma": 0.125},
            "NORMA": {"lam": 0.01, "nu": 0.5, "sigma": 0.125},
        }
    }
    params = {
        "datasets": ["s4"],
        "algorithms": ["KOIL_RS++", "OPAUC", "NORMA"],
        "trials": [0, 1],
        "fixed": fixed,
        "grid": {"lam": [-4]},
    }
    rows = get_protocol("reproduce.koil.protocol:table3_2")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    by_name = {r["algorithm"]: r for r in rows}
    assert by_name["KOIL_RS++"]["dataset"] == "Syn1"
    # the synthetic sets are not linearly separable: a linear ranker is near chance, KOIL is not
    assert by_name["KOIL_RS++"]["auc_mean"] > 0.85
    assert by_name["OPAUC"]["auc_mean"] < 0.7
    assert json.loads(by_name["NORMA"]["selected"]) == fixed["s4"]["NORMA"]


def test_table4_1_smoke(tmp_path):
    params = {
        "datasets": ["heart"],
        "algorithms": ["KOIL_RS++", "KOIL^MKL_RS++"],
        "trials": [0, 1],
        "fixed": {"heart": {"KOIL_RS++": {"C": 4.0, "sigma": 1.0}, "KOIL^MKL_RS++": {"C": 4.0}}},
    }
    rows = get_protocol("reproduce.koil.protocol:table4_1")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    mkl = rows[1]
    assert mkl["algorithm"] == "KOIL^MKL_RS++" and mkl["mark"] in ("•", "-", "")
    assert 0.6 < mkl["auc_mean"] <= 1.0


def test_fig3_1_smoke(tmp_path):
    params = {
        "datasets": ["glass"],
        "algorithms": ["KOIL_RS++", "KOIL_FIFO", "KOIL_inf"],
        "trials": [0, 1],
        "checkpoints": 4,
        "fixed": {"glass": {"KOIL_RS++": {"C": 16.0, "sigma": 0.5}}},
    }
    rows = get_protocol("reproduce.koil.protocol:fig3_1")(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    policies = {r["policy"] for r in rows}
    assert policies == {"KOIL_RS++", "KOIL_FIFO", "KOIL_inf"}
    curve = [r for r in rows if r["policy"] == "KOIL_inf"]
    assert [r["seen"] for r in curve] == [43, 86, 128, 171]  # the shortest glass fold: 171 rows
    assert all(0.0 <= r["auc_mean"] <= 1.0 for r in rows)
    pytest.importorskip("matplotlib")
    assert (tmp_path / "fig3_1.png").stat().st_size > 1000


def test_thesis_budgets_follow_the_authors_rule():
    from reproduce.koil.protocol import thesis_budgets

    assert thesis_budgets(214) == [4, 25, 46, 67, 88, 109, 130, 151]  # glass: floor(171 / 8) = 21


@pytest.mark.parametrize(
    "protocol, key",
    [("reproduce.koil.protocol:fig3_2", "budget"), ("reproduce.koil.protocol:fig3_3", "k")],
)
def test_budget_and_k_sweeps_smoke(protocol, key, tmp_path):
    params = {
        "datasets": ["glass"],
        "algorithms": ["KOIL_RS++"],
        "trials": [0, 1],
        "values": [2, 10],
        "fixed": {"glass": {"KOIL_RS++": {"C": 16.0, "sigma": 0.5}}},
    }
    rows = get_protocol(protocol)(
        params, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert [r[key] for r in rows] == [2, 10]
    if key == "budget":
        assert [r["k"] for r in rows] == [1, 1]  # k = ceil(budget / 10)
    else:
        assert [r["budget"] for r in rows] == [100, 100]
    assert all(0.0 <= r["auc_mean"] <= 1.0 for r in rows)
    assert rows[0]["auc_mean"] != rows[1]["auc_mean"]  # the swept setting reaches the model
    pytest.importorskip("matplotlib")
    assert (tmp_path / f"fig3_{2 if key == 'budget' else 3}.png").stat().st_size > 1000


def test_mkl_breakdown_agrees_with_the_trial_it_explains():
    from reproduce.koil import protocol as kp

    combined, kernels = kp.mkl_breakdown("glass", "KOIL^MKL_RS++", 0, {"C": 8.0})
    params = kp._model_params("KOIL^MKL_RS++", {"C": 8.0}, kp._DEFAULTS)
    _, _, splits, _ = kp._dataset("glass")
    assert combined == kp._fit_score("KOIL^MKL_RS++", params, "glass", *splits[0])[0]
    assert len(kernels) == 16 and abs(sum(k["q"] for k in kernels) - 1.0) < 1e-9
    assert all(0.0 <= k["auc"] <= 1.0 and k["median_abs_f"] >= 0.0 for k in kernels)
