"""Runs that test the stated causes of the KOIL page's remaining gaps (issue 17, item 3).

:func:`oracle_grid` evaluates every point of a column's grid on all 20 trials (no selection):
where a gap is put down to how the hyper-parameters were selected, the grid's best point on the
trials themselves (an oracle, optimistic by construction) says whether the model can reach the
thesis's number at all, and which of two columns the model, rather than the selection, favours.
The baseline variants of :mod:`reproduce.koil.variants` run through the ordinary protocol
(:func:`reproduce.koil.protocol.table3_3`) as extra columns.
"""

from __future__ import annotations

import json

import numpy as np

from .protocol import (
    _DEFAULTS,
    _build,
    _dataset,
    _grid_points,
    _model_params,
    _scorer,
    _settings,
    auc,
    run_trials,
)

__all__ = ["oracle_grid", "stored_vectors"]


def oracle_grid(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Every grid point of every column on every trial; one row per (dataset, column, point)
    with the mean and std of the test AUC over the trials, and ``best`` = 1 on each (dataset,
    column)'s best point. Parameters as the Table 3.3 protocol's (``datasets``,
    ``algorithms``, ``grid``, ``trials``, budgets, ``eta``, ``seed``)."""
    settings = _settings(params, {})
    rows = []
    for name in settings["algorithms"]:
        points = _grid_points(name, settings["grid"])
        for point in points:
            entry = {"values": point, "params": _model_params(name, point, settings)}
            selected = {d: {name: entry} for d in settings["datasets"]}
            results = run_trials(selected, settings["trial_indices"], None, n_jobs, scheduler)
            for dataset in settings["datasets"]:
                aucs = np.array([a for a, _, _ in results[(dataset, name)]])
                rows.append(
                    {
                        "dataset": dataset,
                        "algorithm": name,
                        "point": json.dumps(point, sort_keys=True),
                        "auc_mean": round(float(aucs.mean()), 4),
                        "auc_std": round(float(aucs.std(ddof=1)), 4) if len(aucs) > 1 else 0.0,
                    }
                )
    for dataset in settings["datasets"]:
        for name in settings["algorithms"]:
            mine = [r for r in rows if (r["dataset"], r["algorithm"]) == (dataset, name)]
            best = max(mine, key=lambda r: r["auc_mean"])
            for r in mine:
                r["best"] = int(r is best)
    return rows


def stored_vectors(dataset: str, name: str, trials, values: dict, settings: dict | None = None):
    """Train column ``name`` with grid ``values`` on each of ``trials`` and return one row per
    trial: the training rows seen, the vectors the final model stores (``n_support``) and its test
    AUC. Shows how much memory a column's AUC rests on (issue 37: letter's unbounded NORMA against
    KOIL's 100 vectors per class)."""
    settings = dict(_DEFAULTS, **(settings or {}))
    rows, labels, splits, _ = _dataset(dataset)
    out = []
    for trial in trials:
        train, test = splits[trial]
        model = _build(name, _model_params(name, values, settings))
        for i in train:
            model.learn_one(rows[i], bool(labels[i]))
        score = _scorer(model)
        value = auc(np.array([score(rows[j]) for j in test]), labels[test])
        out.append(
            {"trial": trial, "rows": len(train), "stored": int(model.n_support), "auc": value}
        )
    return out


if __name__ == "__main__":
    # python -m reproduce.koil.gaps letter NORMA 0,1,2,3,4 lam=0.00390625 nu=1 sigma=0.03125
    import sys

    _dataset_name, _column, _trials, *_values = sys.argv[1:]
    for _row in stored_vectors(
        _dataset_name,
        _column,
        [int(t) for t in _trials.split(",")],
        {k: float(v) for k, v in (a.split("=") for a in _values)},
    ):
        print(
            f"{_dataset_name} {_column} trial {_row['trial']}: {_row['stored']} vectors stored "
            f"of {_row['rows']} training rows, test AUC {_row['auc']:.3f}"
        )
