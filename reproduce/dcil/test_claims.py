"""The DCIL claims checker and Table 5.1's stable printing, on tiny synthetic tables."""

from __future__ import annotations

from reproduce.common.claims import by_dataset, evaluate
from reproduce.dcil import claims


def _row(dataset, experiment, model, **values):
    return {"dataset": dataset, "experiment": experiment, "model": model, **values}


def _keyed(rows):
    return by_dataset([{**r, "algorithm": (r["model"], r["experiment"])} for r in rows])


def test_table5_1_prints_bounds_that_do_not_depend_on_round_off():
    row = {
        "task": "iris",
        "n_samples": 150,
        "retired": 0,
        "relative_error": 2.0e-14,
        "squared_distance": 1.4e-28,
        "angle_deg": 1.1e-12,
        "angle_arccos_deg": 0.0,
        "paper_distance": 7.63e-27,
        "paper_angle_deg": 0.0,
    }
    other_machine = {
        **row,
        "relative_error": 3.1e-14,
        "angle_deg": 2.9e-12,
        "angle_arccos_deg": 1.2074e-6,
    }
    assert claims.table5_1_markdown([row]) == claims.table5_1_markdown([other_machine])
    assert "< 1e-10" in claims.table5_1_markdown([row])
    broken = {**row, "relative_error": 0.03}
    assert "**0.03**" in claims.table5_1_markdown([broken])
    assert claims.equality_holds([row, other_machine]) == []
    assert claims.equality_holds([broken]) == ["iris (retired 0): relative_error 0.03"]


def test_table5_3_claims_on_a_synthetic_breast_table():
    rows = []
    for exp, (svm, lp, dcil) in enumerate([(93, 89, 89), (86, 86, 90), (80, 83, 88.7)], 1):
        for model, sens in (("SVM", svm), ("IncLPSVM", lp), ("DCIL-IncLPSVM", dcil)):
            gmean = sens if model != "SVM" else sens + (5 if exp == 2 else 0)
            rows.append(
                _row(
                    "breast_wisconsin",
                    exp,
                    model,
                    sensitivity=sens,
                    specificity=97.0,
                    g_mean=gmean,
                    rs=sens / 97.0,
                )
            )
    tables = _keyed(rows)
    by_text = {c.text: c for c in claims.CLAIMS_5_3}
    identical = claims.CLAIMS_5_3[0]
    assert evaluate(identical, tables, "") == ("holds", [])
    drops = next(c for t, c in by_text.items() if t.startswith("as IR grows"))
    # SVM drops 13 points, IncLPSVM 6: both beyond 5
    assert evaluate(drops, tables, "") == ("holds", [])
    best_g = next(c for t, c in by_text.items() if t.endswith("highest G-mean"))
    status, details = evaluate(best_g, tables, "")
    assert status == "fails" and details == [
        "breast_wisconsin: Exp 2: SVM 91.00 against DCIL 90.00"
    ]
    # the Car/Abalone claims are not about this dataset
    easier = next(c for t, c in by_text.items() if t.startswith("at balance the positive"))
    assert evaluate(easier, tables, "") == ("n/a", [])


def test_identical_at_balance_fails_when_one_metric_differs():
    rows = [
        _row("car", 1, "IncLPSVM", sensitivity=99.1, specificity=79.4, g_mean=88.6),
        _row("car", 1, "DCIL-IncLPSVM", sensitivity=99.1, specificity=79.5, g_mean=88.6),
    ]
    status, details = evaluate(claims.CLAIMS_5_3[0], _keyed(rows), "")
    assert status == "fails" and "specificity" in details[0]
