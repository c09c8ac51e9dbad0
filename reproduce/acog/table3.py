"""Table III of the ACOG paper: generalisation, the online learners used as batch trainers.

The paper (Section 4.4.5) says only "5-fold cross-validation" and reports the mean sum on held-out
data. What this module does (D-ACOG-24):

* each dataset (rows L2-normalised, as in the online protocol) is split into 5 folds by a seeded
  random permutation, ``repetitions`` times with different seeds;
* for each fold, the learner's step (eta, lambda, C) is selected on the **training folds only**,
  by the rule of the online protocol (D-ACOG-3): the best online sum over ``selection_runs``
  seeded orders of the training rows;
* then one online pass over a seeded order of the training rows with the selected value and rho
  from the training rows' counts (Tn/Tp); the model is frozen and scores the held-out fold:
  sum = (sens + spec) / 2 of its predictions ``mu.x >= 0`` (the package's tie rule);
* mean and std (ddof = 1) over the 5 x ``repetitions`` held-out folds, beside the paper's means
  (it prints no std).

Parameters (a scenario's ``[params]``): ``datasets``, ``algorithms`` (names of
:data:`~reproduce.acog.protocol.LEARNERS`), ``folds`` (5), ``repetitions`` (1),
``selection_runs`` (3), ``seed`` (2018), ``grid`` (the protocol's), ``max_samples`` (a seeded
subset, default all).
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from imbalance_stream.evaluate import replay_array
from imbalance_stream.parallel import map_cells
from reproduce.common import write_rows

from .protocol import GRID, LEARNERS, PAPER, _best, _scores, load_stream, make_learner

__all__ = ["PAPER_ALGORITHMS", "fold_indices", "frozen_decisions", "run_table3", "table3"]

#: The rows of the paper's Table III, in its order.
PAPER_ALGORITHMS = (
    "Perceptron",
    "ROMMA",
    "PA-I",
    "PAUM",
    "CPAPB",
    "AROW",
    "COG-I",
    "COG-II",
    "ACOG-I",
    "ACOG-II",
    "ACOG-Idiag",
    "ACOG-IIdiag",
)


def fold_indices(n: int, folds: int, seed: int, repetition: int) -> list[np.ndarray]:
    """The held-out rows of each fold: a seeded permutation of ``range(n)`` cut into ``folds``
    near-equal parts (sorted)."""
    order = np.random.default_rng([seed, 3, repetition]).permutation(n)
    return [np.sort(part) for part in np.array_split(order, folds)]


def frozen_decisions(model, X) -> np.ndarray:
    """``mu.x`` (plus the intercept) of a trained linear model for every row of the CSR ``X``,
    whose columns are the features ``0 .. d-1`` the model was fed by ``replay_array``."""
    weights = model.weights
    w = np.zeros(X.shape[1])
    for name, value in weights.items():
        if isinstance(name, (int, np.integer)) and 0 <= name < X.shape[1]:
            w[name] = value
    return np.asarray(X @ w).ravel() + float(model.intercept_)


def _order(n: int, seed: int, key: tuple) -> np.ndarray:
    return np.random.default_rng([seed, 4, *key]).permutation(n)


def _online_sum(name, value, X, y, seed, key) -> float:
    order = _order(len(y), seed, key)
    result = replay_array(make_learner(name, "sum", y, value), X[order], y[order])
    runs = [
        {
            "Mp": result.mistakes_positive,
            "Mn": result.mistakes_negative,
            "Tp": result.n_positive,
            "Tn": result.n_negative,
            "seconds": result.seconds,
        }
    ]
    return _scores(runs)["sum"]


def _select(name, X, y, cell) -> float | None:
    """The step with the best mean online sum over the selection orders of the training rows."""
    learner = LEARNERS[name]
    if learner.tuned is None:
        return None
    values = list(learner.grid or cell["grid"])
    by_value = {
        v: {
            "sum": float(
                np.mean(
                    [
                        _online_sum(name, v, X, y, cell["seed"], (cell["rep"], cell["fold"], 1, r))
                        for r in range(cell["selection_runs"])
                    ]
                )
            )
        }
        for v in values
    }
    return _best(by_value, "sum")


def _fold_cell(cell: dict) -> dict:
    X, y = load_stream(cell["dataset"], cell["max_samples"], cell["seed"])
    test = fold_indices(len(y), cell["folds"], cell["seed"], cell["rep"])[cell["fold"]]
    train = np.setdiff1d(np.arange(len(y)), test)
    X_train, y_train = X[train], y[train]
    name = cell["algorithm"]
    value = _select(name, X_train, y_train, cell)
    order = _order(len(train), cell["seed"], (cell["rep"], cell["fold"], 0, 0))
    model = make_learner(name, "sum", y_train, value)
    replay_array(model, X_train[order], y_train[order])
    predicted = frozen_decisions(model, X[test]) >= 0.0
    truth = y[test]
    return {
        "dataset": cell["dataset"],
        "algorithm": name,
        "repetition": cell["rep"],
        "fold": cell["fold"],
        "value": value,
        "Mp": int(np.sum(truth & ~predicted)),
        "Mn": int(np.sum(~truth & predicted)),
        "Tp": int(truth.sum()),
        "Tn": int((~truth).sum()),
        "seconds": 0.0,
    }


def _summary(dataset, name, log) -> dict:
    mine = [r for r in log if (r["dataset"], r["algorithm"]) == (dataset, name)]
    s = _scores(mine)
    values = sorted({r["value"] for r in mine if r["value"] is not None})
    paper = PAPER["III"].get(dataset, {}).get(name, {}).get("sum", math.nan)
    return {
        "dataset": dataset,
        "algorithm": name,
        "folds": len(mine),
        "sum": s["sum"],
        "sum_std": s["sum_std"],
        "sens": s["sens"],
        "spec": s["spec"],
        "values": " ".join(f"{v:g}" for v in values),
        "paper_sum": paper,
    }


def run_table3(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Run the generalisation protocol of the module docstring; one row per (dataset,
    algorithm), and ``runs.csv`` (one line per held-out fold) in ``out_dir``."""
    algorithms = list(params.get("algorithms", PAPER_ALGORITHMS))
    unknown = [a for a in algorithms if a not in LEARNERS]
    if unknown:
        raise KeyError(f"unknown algorithms {unknown}; known: {', '.join(LEARNERS)}")
    common = {
        "folds": int(params.get("folds", 5)),
        "selection_runs": int(params.get("selection_runs", 3)),
        "seed": int(params.get("seed", 2018)),
        "grid": tuple(float(v) for v in params.get("grid", GRID)),
        "max_samples": None if params.get("max_samples") is None else int(params["max_samples"]),
    }
    cells = [
        {**common, "dataset": d, "algorithm": a, "rep": rep, "fold": fold}
        for d in params["datasets"]
        for a in algorithms
        for rep in range(int(params.get("repetitions", 1)))
        for fold in range(common["folds"])
    ]
    log = list(map_cells(_fold_cell, cells, n_jobs, scheduler, progress, "table III"))
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    return [_summary(d, a, log) for d in params["datasets"] for a in algorithms]


def table3(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Table III on german, a9a and ijcnn1 (covtype is missing)."""
    params = {"datasets": ["german", "a9a", "ijcnn1"], **params}
    return run_table3(
        params, out_dir=out_dir, n_jobs=n_jobs, scheduler=scheduler, progress=progress
    )


def markdown(rows: list[dict]) -> str:
    """One table: an algorithm per line, ours (mean ± std over the held-out folds) beside the
    paper's mean for each dataset."""
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    by_key = {(r["dataset"], r["algorithm"]): r for r in rows}
    head = ["algorithm"] + [f"{d} (ours / paper)" for d in datasets]
    lines = ["| " + " | ".join(head) + " |", "|---|" + "---|" * len(datasets)]
    for a in algorithms:
        cells = [a]
        for d in datasets:
            r = by_key[(d, a)]
            paper = float(r["paper_sum"])
            cells.append(
                f"{float(r['sum']):.3f} ± {float(r['sum_std']):.3f} / "
                + ("-" if math.isnan(paper) else f"{paper:.3f}")
            )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    # python -m reproduce.acog.table3 out/acog_table3/table.csv
    import sys

    from reproduce.common.claims import claims_table

    from .claims import CLAIMS
    from .protocol import read_table

    table = read_table(sys.argv[1])
    print(markdown(table))
    print()
    print(claims_table(CLAIMS["3"], table))
