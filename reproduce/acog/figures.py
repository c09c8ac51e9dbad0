"""Figs. 1 to 10 of the ACOG paper as protocols: online curves, weight sweeps and ablations.

The paper's figures are plots only (no numbers are printed), so the results page shows ours and
the paper's qualitative conclusion about each, checked on our numbers (:data:`FIGURE_CLAIMS`).
Every figure uses the online protocol of :mod:`reproduce.acog.protocol` (rows L2-normalised,
seeded orders shared by the algorithms, test-then-train, sum and cost from the cumulative
mistakes) with fewer orders (``runs``, default 5 instead of 20) to fit the shared machine:

* **Figs. 1, 3** (:func:`fig1_3`) and **9, 10** (:func:`fig9_10`): the online sum and cost against
  the number of samples, at ``checkpoints`` points (the authors' code records every n/15 rows);
  steps selected as in the tables (D-ACOG-3).
* **Figs. 2, 4** (:func:`fig2_4`): the final sum and cost when the weight alpha_p of sensitivity
  (alpha_n = 1 - alpha_p) or the cost c_p of a positive mistake (c_n = 1 - c_p) goes from 0.1 to
  0.9; rho follows the weights (alpha_p Tn / (alpha_n Tp), c_p / c_n), the step stays the one
  selected at the tables' weights (D-ACOG-25).
* **Fig. 5** (:func:`fig5`): the ACOG variants' sum for eta in 1e-4 .. 1e4.
* **Fig. 6** (:func:`fig6`): the sum for gamma in 1e-4 .. 1e4, eta as selected.
* **Fig. 7** (:func:`fig7`): the mean step along Sigma_{t+1} (eq. 7) or Sigma_t
  (:mod:`reproduce.acog.ablation`; a Python loop, so on ``max_samples`` rows).
* **Fig. 8** (:func:`fig8`): rho from the true counts against the online Laplace estimate
  (t_n + 1) / (t_p + 1) (Section 4.4.4).

Each writes its rows (``table.csv`` through the CLI), ``curves.csv`` or ``sweep.csv`` and a PNG.
"""

from __future__ import annotations

import math
import pathlib

import numpy as np

from imbalance_stream.evaluate import replay_array
from imbalance_stream.parallel import map_cells
from reproduce.common import write_rows

from .ablation import acog_mistakes
from .protocol import LEARNERS, Settings, _select, load_stream, metric_rho, permutation

__all__ = ["fig1_3", "fig2_4", "fig5", "fig6", "fig7", "fig8", "fig9_10", "online_curve"]

ACOG_VARIANTS = ("ACOG-I", "ACOG-II", "ACOG-Idiag", "ACOG-IIdiag")
SWEEP = tuple(10.0**k for k in range(-4, 5))
WEIGHTS = tuple(round(0.1 * k, 1) for k in range(1, 10))


# ---- shared pieces ------------------------------------------------------------------------------


def selected_values(params: dict, metric: str, execution) -> dict:
    """``{(dataset, algorithm): step}`` chosen as the tables choose it (D-ACOG-3), on the
    protocol's selection orders; a scenario's ``hyperparameters`` skip the search."""
    settings = Settings.from_params(
        {
            "datasets": params["datasets"],
            "algorithms": params["algorithms"],
            "metrics": [metric],
            "selection_runs": params.get("selection_runs", 3),
            "seed": params.get("seed", 2018),
            "max_samples": params.get("max_samples"),
            "hyperparameters": params.get("hyperparameters", {}),
            "oracle": False,
        }
    )
    chosen, _ = _select(settings, execution)
    return {(d, a): value for (d, a, _), value in chosen.items()}


def online_curve(is_positive, predicted_positive, checkpoints: int, alpha_p=0.5, c_p=0.9):
    """``(t, sum_t, cost_t)`` at ``checkpoints`` evenly spaced rows (the last one included):
    sum_t = alpha_p sens_t + alpha_n spec_t in % (a class not yet seen counts 0, as the authors'
    code does) and cost_t = (c_p Mp_t + c_n Mn_t) / t, the cost per sample."""
    is_positive = np.asarray(is_positive, bool)
    wrong = is_positive != np.asarray(predicted_positive, bool)
    tp, tn = np.cumsum(is_positive), np.cumsum(~is_positive)
    mp, mn = np.cumsum(wrong & is_positive), np.cumsum(wrong & ~is_positive)
    n = len(is_positive)
    at = np.unique(np.linspace(n / checkpoints, n, checkpoints).round().astype(int)) - 1
    sens = np.where(tp[at] > 0, 1 - mp[at] / np.maximum(tp[at], 1), 0.0)
    spec = np.where(tn[at] > 0, 1 - mn[at] / np.maximum(tn[at], 1), 0.0)
    total = 100.0 * (alpha_p * sens + (1 - alpha_p) * spec)
    cost = (c_p * mp[at] + (1 - c_p) * mn[at]) / (at + 1)
    return at + 1, total, cost


def _scores(mp, mn, tp, tn, alpha_p=0.5, c_p=0.9) -> tuple[float, float]:
    sens, spec = 1 - mp / tp, 1 - mn / tn
    return 100.0 * (alpha_p * sens + (1 - alpha_p) * spec), c_p * mp + (1 - c_p) * mn


def _run_model(cell: dict) -> list[dict]:
    """The cell's model (built by ``cell["build"]``: keyword arguments) on its orders; the
    mistakes of every order and, with ``cell["checkpoints"]``, its online curve."""
    X, y = load_stream(cell["dataset"], cell.get("max_samples"), cell["seed"])
    out = []
    for run in range(cell["runs"]):
        order = permutation(len(y), cell["seed"], "eval", run)
        model = LEARNERS[cell["algorithm"]].build(**cell["build"])
        result = replay_array(model, X[order], y[order])
        row = {
            "Mp": result.mistakes_positive,
            "Mn": result.mistakes_negative,
            "Tp": result.n_positive,
            "Tn": result.n_negative,
        }
        if cell.get("checkpoints"):
            row["curve"] = online_curve(
                result.is_positive, result.predicted_positive, cell["checkpoints"]
            )
        out.append(row)
    return out


def _mean(runs, alpha_p=0.5, c_p=0.9) -> tuple[float, float, float, float]:
    """Mean and std (ddof = 1) of sum and cost over runs."""
    pairs = np.array([_scores(r["Mp"], r["Mn"], r["Tp"], r["Tn"], alpha_p, c_p) for r in runs])
    std = pairs.std(axis=0, ddof=1) if len(pairs) > 1 else np.full(2, math.nan)
    return float(pairs[0:, 0].mean()), float(std[0]), float(pairs[:, 1].mean()), float(std[1])


def _build(algorithm: str, rho: float, value, **extra) -> dict:
    learner = LEARNERS[algorithm]
    params = dict(extra)
    if learner.rho is not None:
        params[learner.rho] = rho
    if learner.tuned is not None and value is not None:
        params[learner.tuned] = value
    return params


def _common(params: dict) -> dict:
    return {
        "runs": int(params.get("runs", 5)),
        "seed": int(params.get("seed", 2018)),
        "max_samples": params.get("max_samples"),
    }


def _plot(panels: dict, path, xlabel: str, ylabel: str, *, logx=False) -> None:
    """One panel per dataset: ``panels[dataset][line] = (xs, ys)``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # matplotlib is an optional extra
        return
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.4), squeeze=False)
    for ax, (dataset, lines) in zip(axes[0], panels.items()):
        for i, (name, (xs, ys)) in enumerate(lines.items()):
            # past the 10 colours of the cycle, dashed lines keep 12 learners apart
            style = "-" if i < 10 else "--"
            ax.plot(xs, ys, style, marker=".", label=name, linewidth=1)
        ax.set_title(dataset)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        if logx:
            ax.set_xscale("log")
        ax.grid(alpha=0.3)
    axes[0][-1].legend(fontsize=6, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _label(setting) -> str:
    """A sweep setting as a column suffix: ``1e-04`` -> ``0.0001``, ``10.0`` -> ``10``."""
    return f"{setting:g}" if isinstance(setting, float) else str(setting)


def _out(out_dir) -> pathlib.Path | None:
    if out_dir is None:
        return None
    out = pathlib.Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    return out


# ---- Figs. 1, 3, 9, 10: online curves -----------------------------------------------------------

TABLE_II_ALGORITHMS = (
    "Perceptron",
    "ROMMA",
    "PA-I",
    "PAUM",
    "CPAPB",
    "AROW",
    "COG-I",
    "COG-II",
    *ACOG_VARIANTS,
)


def _rho(algorithm: str, metric: str, y) -> float:
    return metric_rho("sum" if LEARNERS[algorithm].sum_rho_in_cost_run else metric, y)


def _curves(params, execution, names, out_dir) -> list[dict]:
    """The online sum (sum runs) and cost (cost runs) curves of every (dataset, algorithm), at
    the selected steps; one table row per (dataset, algorithm) with the final values."""
    common = {**_common(params), "checkpoints": int(params.get("checkpoints", 15))}
    rows: dict = {}
    curves, panels = [], {"sum": {}, "cost": {}}
    for metric in ("sum", "cost"):
        chosen = selected_values(params, metric, execution)
        cells = []
        for d in params["datasets"]:
            y = load_stream(d, common["max_samples"], common["seed"])[1]
            for a in params["algorithms"]:
                build = _build(a, _rho(a, metric, y), chosen[d, a])
                cells.append({**common, "dataset": d, "algorithm": a, "build": build})
        for cell, runs in zip(cells, map_cells(_run_model, cells, *execution, f"fig {metric}")):
            d, a = cell["dataset"], cell["algorithm"]
            t = runs[0]["curve"][0]
            column = 1 if metric == "sum" else 2
            mean_curve = np.mean([r["curve"][column] for r in runs], axis=0)
            panels[metric].setdefault(d, {})[a] = (t, mean_curve)
            curves += [
                {"dataset": d, "algorithm": a, "metric": metric, "t": int(k), "value": float(v)}
                for k, v in zip(t, mean_curve)
            ]
            total, total_std, cost, cost_std = _mean(runs)
            row = rows.setdefault((d, a), {"dataset": d, "algorithm": a})
            if metric == "sum":
                row.update({"value": chosen[d, a], "sum": total, "sum_std": total_std})
            else:
                row.update({"cost_value": chosen[d, a], "cost": cost, "cost_std": cost_std})
    out = _out(out_dir)
    if out is not None:
        write_rows(out / "curves.csv", curves)
        _plot(panels["sum"], out / f"{names[0]}.png", "samples", "online sum (%)")
        _plot(panels["cost"], out / f"{names[1]}.png", "samples", "online cost per sample")
    return list(rows.values())


def fig1_3(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Figs. 1 and 3: online sum and cost curves on german, a9a, ijcnn1 (covtype is missing)."""
    params = {"datasets": ["german", "a9a", "ijcnn1"], "algorithms": TABLE_II_ALGORITHMS, **params}
    return _curves(params, (n_jobs, scheduler, progress), ("fig1", "fig3"), out_dir)


def fig9_10(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Figs. 9 and 10: online sum and cost curves of the sketched ACOG against COG, ACOG and
    ACOG-diag on mushrooms (protein, Sensorless and usps are missing)."""
    algorithms = ("COG-I", "COG-II", *ACOG_VARIANTS, "SACOG-I", "SACOG-II", "SSACOG-I", "SSACOG-II")
    params = {"datasets": ["mushrooms"], "algorithms": algorithms, **params}
    return _curves(params, (n_jobs, scheduler, progress), ("fig9", "fig10"), out_dir)


# ---- Figs. 2 and 4: varying weights -------------------------------------------------------------


def fig2_4(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Figs. 2 and 4: final sum for alpha_p and cost for c_p in 0.1 .. 0.9 (``weights``); rho
    follows the weight, the step is the one selected at alpha_p = 1/2 and c_p = 0.9."""
    params = {"datasets": ["german", "a9a", "ijcnn1"], "algorithms": TABLE_II_ALGORITHMS, **params}
    execution = (n_jobs, scheduler, progress)
    common = _common(params)
    weights = [float(w) for w in params.get("weights", WEIGHTS)]
    rows: dict = {}
    sweep, panels = [], {"sum": {}, "cost": {}}
    for metric in ("sum", "cost"):
        chosen = selected_values(params, metric, execution)
        cells = []
        for d in params["datasets"]:
            y = load_stream(d, common["max_samples"], common["seed"])[1]
            for a in params["algorithms"]:
                for w in weights:
                    ratio = w / (1.0 - w)
                    rho = ratio * _rho(a, "sum", y) if metric == "sum" else ratio
                    if LEARNERS[a].sum_rho_in_cost_run and metric == "cost":
                        rho = _rho(a, "sum", y)
                    build = _build(a, rho, chosen[d, a])
                    cells.append({**common, "dataset": d, "algorithm": a, "build": build, "w": w})
        for cell, runs in zip(cells, map_cells(_run_model, cells, *execution, f"fig {metric}")):
            d, a, w = cell["dataset"], cell["algorithm"], cell["w"]
            total, _, cost, _ = _mean(runs, alpha_p=w, c_p=w)
            value = total if metric == "sum" else cost
            rows.setdefault((d, a), {"dataset": d, "algorithm": a})[f"{metric}_{w:g}"] = value
            sweep.append(
                {"dataset": d, "algorithm": a, "metric": metric, "weight": w, "value": value}
            )
            line = panels[metric].setdefault(d, {}).setdefault(a, ([], []))
            line[0].append(w)
            line[1].append(value)
    out = _out(out_dir)
    if out is not None:
        write_rows(out / "sweep.csv", sweep)
        _plot(panels["sum"], out / "fig2.png", "alpha_p (alpha_n = 1 - alpha_p)", "sum (%)")
        _plot(panels["cost"], out / "fig4.png", "c_p (c_n = 1 - c_p)", "cost")
    return list(rows.values())


# ---- Figs. 5, 6, 8: sweeps and the Laplace estimate ----------------------------------------------


def _variant_sweep(params, execution, label, builds, out_dir, figure, xlabel, logx=True):
    """The ACOG variants' mean sum for each setting of ``builds(dataset, algorithm, y, step)``
    (``{setting: keyword arguments}``); one row per (dataset, variant) with a ``sum_<setting>``
    column per setting."""
    params = {"datasets": ["german", "a9a", "ijcnn1"], "algorithms": ACOG_VARIANTS, **params}
    common = _common(params)
    chosen = selected_values(params, "sum", execution) if params.get("select", True) else {}
    cells = []
    for d in params["datasets"]:
        y = load_stream(d, common["max_samples"], common["seed"])[1]
        for a in params["algorithms"]:
            for setting, build in builds(d, a, y, chosen.get((d, a))).items():
                cells.append({**common, "dataset": d, "algorithm": a, "build": build, "s": setting})
    rows: dict = {}
    sweep, panels = [], {}
    for cell, runs in zip(cells, map_cells(_run_model, cells, *execution, label)):
        d, a, s = cell["dataset"], cell["algorithm"], cell["s"]
        total = _mean(runs)[0]
        row = rows.setdefault((d, a), {"dataset": d, "algorithm": a, "eta": chosen.get((d, a))})
        row[f"sum_{_label(s)}"] = total
        sweep.append({"dataset": d, "algorithm": a, "setting": s, "sum": total})
        line = panels.setdefault(d, {}).setdefault(a, ([], []))
        line[0].append(s)
        line[1].append(total)
    out = _out(out_dir)
    if out is not None:
        write_rows(out / "sweep.csv", sweep)
        _plot(panels, out / f"{figure}.png", xlabel, "sum (%)", logx=logx)
    return list(rows.values())


def fig5(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 5: the ACOG variants' sum for eta in 1e-4 .. 1e4 (``etas``), rho = Tn/Tp."""
    etas = [float(v) for v in params.get("etas", SWEEP)]

    def builds(d, a, y, step):
        return {eta: _build(a, metric_rho("sum", y), eta) for eta in etas}

    params = {**params, "select": False}
    return _variant_sweep(
        params, (n_jobs, scheduler, progress), "fig 5", builds, out_dir, "fig5", "eta"
    )


def fig6(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 6: the ACOG variants' sum for gamma in 1e-4 .. 1e4 (``gammas``), eta as selected."""
    gammas = [float(v) for v in params.get("gammas", SWEEP)]

    def builds(d, a, y, step):
        return {g: _build(a, metric_rho("sum", y), step, gamma=g) for g in gammas}

    return _variant_sweep(
        params, (n_jobs, scheduler, progress), "fig 6", builds, out_dir, "fig6", "gamma"
    )


def fig8(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 8: rho = Tn/Tp from the true counts against the online Laplace estimate."""

    def builds(d, a, y, step):
        return {
            "true": _build(a, metric_rho("sum", y), step),
            "laplace": {**_build(a, 1.0, step), "rho": None},
        }

    return _variant_sweep(
        params, (n_jobs, scheduler, progress), "fig 8", builds, out_dir, "fig8", "rho", logx=False
    )


# ---- Fig. 7: the mean-update rule ---------------------------------------------------------------


def _rule_cell(cell: dict) -> dict:
    X, y = load_stream(cell["dataset"], cell["max_samples"], cell["seed"])
    dense = X.toarray()
    learner = LEARNERS[cell["algorithm"]]
    results = []
    for run in range(cell["runs"]):
        order = permutation(len(y), cell["seed"], "eval", run)
        mp, mn, _ = acog_mistakes(
            dense[order],
            y[order],
            loss=learner.fixed["loss"],
            covariance=learner.fixed["covariance"],
            rho=metric_rho("sum", y),
            eta=cell["eta"],
            mean_rule=cell["rule"],
        )
        results.append({"Mp": mp, "Mn": mn, "Tp": int(y.sum()), "Tn": int((~y).sum())})
    return {**cell, "sum": _mean(results)[0]}


def fig7(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 7: the ACOG variants' sum with the mean step along Sigma_{t+1} ("new", eq. 7) and
    Sigma_t ("old"), eta as selected for the paper's rule; ``max_samples`` rows per dataset."""
    params = {
        "datasets": ["german", "a9a", "ijcnn1"],
        "algorithms": ACOG_VARIANTS,
        "max_samples": 5000,
        **params,
    }
    execution = (n_jobs, scheduler, progress)
    common = _common(params)
    chosen = selected_values(params, "sum", execution)
    cells = [
        {**common, "dataset": d, "algorithm": a, "eta": chosen[d, a], "rule": rule}
        for d in params["datasets"]
        for a in params["algorithms"]
        for rule in ("new", "old")
    ]
    rows: dict = {}
    panels: dict = {}
    for done in map_cells(_rule_cell, cells, *execution, "fig 7"):
        d, a = done["dataset"], done["algorithm"]
        row = rows.setdefault((d, a), {"dataset": d, "algorithm": a, "eta": done["eta"]})
        row[f"sum_{done['rule']}"] = done["sum"]
    for (d, a), row in rows.items():
        panels.setdefault(d, {})[a] = ([0, 1], [row["sum_new"], row["sum_old"]])
    out = _out(out_dir)
    if out is not None:
        _plot(panels, out / "fig7.png", "mean step along: 0 = Sigma_{t+1}, 1 = Sigma_t", "sum (%)")
    return list(rows.values())
