"""The seed-002 protocol (imbalance_stream.evaluate.acog_protocol): orders, rho, scores, selection,
the paper's tables as transcribed, and a smoke run of each registered protocol."""

from __future__ import annotations

import json

import numpy as np
import pytest

from imbalance_stream.evaluate.protocols import ProtocolError, get_protocol
from reproduce.acog import protocol as proto

# the protocols read the papers' benchmark files
pytestmark = pytest.mark.requires_data(
    "german", "a9a", "australian", "dna", "ijcnn1", "mushrooms", "magic04"
)


def test_orders_are_seeded_shared_and_phase_separated():
    a = proto.permutation(1000, 2018, "eval", 3)
    assert np.array_equal(a, proto.permutation(1000, 2018, "eval", 3))
    assert sorted(a.tolist()) == list(range(1000))
    assert not np.array_equal(a, proto.permutation(1000, 2018, "eval", 4))
    assert not np.array_equal(a, proto.permutation(1000, 2018, "select", 3))
    assert not np.array_equal(a, proto.permutation(1000, 2019, "eval", 3))


def test_rho_of_each_metric_and_paum_keeps_the_sum_rho():
    y = np.array([True] * 3 + [False] * 7)
    assert proto.metric_rho("sum", y) == pytest.approx(7 / 3)
    assert proto.metric_rho("cost", y) == pytest.approx(9.0)
    with pytest.raises(ValueError):
        proto.metric_rho("auc", y)
    model = proto.make_learner("ACOG-IIdiag", "cost", y, 0.1)
    assert (model.rho, model.eta, model.loss, model.covariance) == (
        pytest.approx(9.0),
        0.1,
        "II",
        "diag",
    )
    assert proto.LEARNERS["PAUM"].sum_rho_in_cost_run


def test_scores_are_means_and_sample_stds_of_the_cumulative_mistakes():
    runs = [
        {"Mp": 10, "Mn": 40, "Tp": 100, "Tn": 400, "seconds": 1.0},
        {"Mp": 20, "Mn": 20, "Tp": 100, "Tn": 400, "seconds": 3.0},
    ]
    s = proto._scores(runs)
    sums = [50 * (0.9 + 0.9), 50 * (0.8 + 0.95)]
    assert s["sum"] == pytest.approx(np.mean(sums))
    assert s["sum_std"] == pytest.approx(np.std(sums, ddof=1))
    assert s["sens"] == pytest.approx(85.0) and s["spec"] == pytest.approx(92.5)
    assert s["cost"] == pytest.approx(np.mean([0.9 * 10 + 0.1 * 40, 0.9 * 20 + 0.1 * 20]))
    assert s["time"] == pytest.approx(2.0)
    by_value = {
        0.1: {"sum": 70.0, "cost": 5.0},
        1.0: {"sum": 80.0, "cost": 9.0},
        10.0: {"sum": 80.0, "cost": 5.0},
    }
    assert proto._best(by_value, "sum") == 1.0  # ties go to the smaller value
    assert proto._best(by_value, "cost") == 0.1
    by_value = {
        0.5: {"sum": 90.0, "mistakes": 12.0},
        1.0: {"sum": 70.0, "mistakes": 10.0},
        2.0: {"sum": 60.0, "mistakes": 10.0},
    }
    assert proto._best(by_value, "sum", "mistakes") == 1.0  # fewest mistakes, ties smaller
    assert proto._best(by_value, "sum") == 0.5
    with pytest.raises(ValueError, match="select_by"):
        proto._best(by_value, "sum", "auc")


# Tp / Tn that the paper's cost columns imply (the class counts of its Section 4.1)
COUNTS = {
    "german": (300, 700),
    "a9a": (11687, 37155),
    "ijcnn1": (4853, 45137),
    "mushrooms": (4208, 3916),
}


@pytest.mark.parametrize("dataset", ["german", "a9a", "ijcnn1"])
def test_the_transcribed_table_2_is_consistent(dataset):
    """Every cost cell follows from its sens/spec and Tp/Tn; sum = (sens+spec)/2."""
    tp, tn = COUNTS[dataset]
    for name, row in proto.PAPER["II"][dataset].items():
        s, sens, spec, cost = row["sum"], row["sens"], row["spec"], row["cost"]
        csens, cspec = row["cost_sens"], row["cost_spec"]
        assert s == pytest.approx((sens + spec) / 2, abs=2e-3), name
        implied = (0.9 * (100 - csens) * tp + 0.1 * (100 - cspec) * tn) / 100 / 100
        assert cost == pytest.approx(implied, abs=2e-3 + 2e-4 * cost), name


def test_the_transcribed_table_5_is_consistent_except_e12():
    tp, tn = COUNTS["mushrooms"]
    for name, row in proto.PAPER["V"]["mushrooms"].items():
        s, sens, spec, cost = row["sum"], row["sens"], row["spec"], row["cost"]
        csens, cspec = row["cost_sens"], row["cost_spec"]
        assert s == pytest.approx((sens + spec) / 2, abs=2e-3), name
        implied = (0.9 * (100 - csens) * tp + 0.1 * (100 - cspec) * tn) / 100
        if name == "ACOG-Idiag":  # E12: the paper's row is inconsistent
            assert abs(cost - implied) > 1
        else:
            assert cost == pytest.approx(implied, abs=0.05), name


@pytest.mark.parametrize(
    "name,tp,tn",
    [("german", 300, 700), ("mushrooms", 4208, 3916), ("australian", 307, 383), ("dna", 464, 1536)],
)
def test_streams_are_unit_norm_with_the_paper_class_counts(name, tp, tn):
    X, y = proto.load_stream(name)
    assert (int(y.sum()), int((~y).sum())) == (tp, tn)
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    np.testing.assert_allclose(norms, 1.0, rtol=1e-12)


def test_missing_and_unknown_inputs_are_named():
    with pytest.raises(ValueError, match="covtype"):
        proto.run_acog_protocol({"datasets": ["covtype"]})
    with pytest.raises(ProtocolError, match="nope"):  # one line and exit 2 in the CLI
        proto.run_acog_protocol({"datasets": ["german"], "algorithms": ["nope"]})
    for runs in (-1, 0, 1.5, "2"):
        with pytest.raises(ProtocolError, match="runs must be an integer >= 1"):
            proto.run_acog_protocol({"datasets": ["german"], "runs": runs})


SMOKE = {"runs": 2, "selection_runs": 1, "grid": [0.1, 10.0], "max_samples": 250}


@pytest.mark.parametrize(
    "protocol,params",
    [
        (
            "reproduce.acog.protocol:table2",
            {"datasets": ["german"], "algorithms": ["ACOG-I", "ACOG-IIdiag"]},
        ),
        (
            "reproduce.acog.protocol:table5_6",
            {"datasets": ["mushrooms"], "algorithms": ["ACOG-II", "ACOG-Idiag"]},
        ),
        (
            "reproduce.acog.protocol:table8",
            {"datasets": ["australian", "dna"], "algorithms": ["ACOG-I", "ACOG-IIdiag"]},
        ),
    ],
)
def test_smoke_run_of_each_protocol(protocol, params, tmp_path):
    rows = get_protocol(protocol)(
        {**params, **SMOKE}, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert len(rows) == len(params["datasets"]) * len(params["algorithms"])
    assert len({tuple(row) for row in rows}) == 1  # the same columns in every row
    for row in rows:
        assert 0.0 <= row["sum"] <= 100.0 and row["value"] in SMOKE["grid"]
        assert row["oracle_sum"] >= row["sum"] - 1e-9  # the oracle is the best on these orders
        assert np.isfinite(row["paper_sum"])
    if protocol != "reproduce.acog.protocol:table8":
        assert all(row["cost"] >= 0 and row["oracle_cost"] <= row["cost"] + 1e-9 for row in rows)
    assert (tmp_path / "runs.csv").read_text().count("\n") > 1
    selected = json.loads((tmp_path / "selected.json").read_text())["hyperparameters"]

    # re-running with the recorded values and no search gives the same evaluation numbers
    again = get_protocol(protocol)(
        {**params, **SMOKE, "hyperparameters": selected, "oracle": False},
        out_dir=None,
        n_jobs=None,
        scheduler=None,
        progress=False,
    )
    for first, second in zip(rows, again):
        assert first["sum"] == second["sum"] and first["sum_std"] == second["sum_std"]


def test_markdown_tables_put_ours_beside_the_paper_and_flag_large_gaps(tmp_path):
    rows = [
        {
            "dataset": "german",
            "algorithm": "ACOG-II",
            "runs": 20,
            "tuned": "eta",
            "value": 10.0,
            "sum": 66.0,
            "sum_std": 0.8,
            "sens": 67.0,
            "sens_std": 1.0,
            "spec": 65.0,
            "spec_std": 1.0,
            "time": 0.003,
            "oracle_value": 10.0,
            "oracle_sum": 66.0,
            "oracle_sum_std": 0.8,
            "paper_sum": 62.511,
            "paper_sum_std": 1.19,
            "paper_sens": 63.0,
            "paper_spec": 62.021,
            "paper_time": 0.008,
        }
    ]
    text = proto.markdown_tables(rows)
    assert "| ACOG-II | 66.000 ± 0.800 | 66.000 | 62.511 ± 1.190 | **+2.9** |" in text
    path = tmp_path / "table.csv"
    import csv

    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    assert proto.markdown_tables(proto.read_table(path)) == text


def test_grid_lines_report_every_value_of_a_run(tmp_path):
    params = {"datasets": ["german"], "algorithms": ["ACOG-IIdiag"], **SMOKE}
    proto.table2(params, out_dir=tmp_path)
    text = proto.grid_lines(tmp_path / "runs.csv")
    assert "german ACOG-IIdiag sum (eval, 2 runs): 0.1: " in text and ", 10: " in text
    mistakes = proto.grid_lines(tmp_path / "runs.csv", "mistakes")
    line = next(line for line in mistakes.splitlines() if line.startswith("german ACOG-IIdiag sum"))
    assert line.startswith("german ACOG-IIdiag sum run, mistakes (eval, 2 runs): 0.1: ")
    import csv

    with open(tmp_path / "runs.csv", newline="") as handle:
        runs = [
            r
            for r in csv.DictReader(handle)
            if (r["metric"], r["phase"], r["value"]) == ("sum", "eval", "0.1")
        ]
    expected = np.mean([int(r["Mp"]) + int(r["Mn"]) for r in runs])
    assert line.split(": ")[2].split(",")[0] == f"{expected:.1f}"
    with pytest.raises(ValueError, match="quantity"):
        proto.grid_lines(tmp_path / "runs.csv", "auc")


def test_ordering_check_lists_the_baselines_that_match_an_acog_variant_in_each_source():
    def row(algorithm, ours, paper):
        return {"dataset": "a9a", "algorithm": algorithm, "sum": ours, "paper_sum": paper}

    rows = [
        row("ACOG-I", 79.8, 79.9),
        row("ACOG-Idiag", 79.7, 79.8),
        row("COG-II", 81.0, 79.1),
        row("PAUM", 78.2, 80.0),
        row("AROW", 90.0, 90.0),
    ]
    text = proto.ordering_check(rows)
    line = next(line for line in text.splitlines() if line.startswith("| a9a"))
    assert "| 4 |" in line  # 2 variants x 2 first-order baselines; AROW is second-order
    ours, paper = line.split(" | ")[2:4]
    assert ours == "COG-II 81.000 >= ACOG-I 79.800; COG-II 81.000 >= ACOG-Idiag 79.700"
    assert paper.startswith("PAUM 80.000 >= ACOG-I 79.900; PAUM 80.000 >= ACOG-Idiag 79.800")


def test_arow_cv_selects_r_as_libol_does_and_sits_beside_the_papers_arow(tmp_path):
    params = {
        "datasets": ["german"],
        "algorithms": ["AROW-cv"],
        "metrics": ["sum"],
        "runs": 2,
        "selection_runs": 2,
        "max_samples": 200,
    }
    (row,) = proto.table2(params, out_dir=tmp_path)
    assert row["tuned"] == "r" and row["value"] in proto.LIBOL_GRID
    assert row["paper_sum"] == proto.PAPER["II"]["german"]["AROW"]["sum"]
    import csv

    with open(tmp_path / "runs.csv", newline="") as handle:
        runs = [r for r in csv.DictReader(handle) if r["phase"] == "select"]
    assert {float(r["value"]) for r in runs} == set(proto.LIBOL_GRID)
    mistakes = {}
    for r in runs:
        mistakes.setdefault(float(r["value"]), []).append(int(r["Mp"]) + int(r["Mn"]))
    fewest = min(mistakes, key=lambda v: (np.mean(mistakes[v]), v))
    assert row["value"] == fewest
    model = proto.make_learner("AROW-cv", "sum", np.array([True, False]), 0.25)
    assert model.r == 0.25
