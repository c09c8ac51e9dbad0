"""The evaluation protocol of seed 002 (ACOG): Tables II, V/VI and VIII as reusable code.

What the paper does (its Section 4), and what this module does:

* every sample is normalised to unit L2 norm, then each dataset is streamed in **20 fixed, seeded
  random orders**, shared by every algorithm; one test-then-train pass per order
  (:func:`~imbalance_stream.evaluate.replay_array`, the jitted array path where the model has one);
* sensitivity ``(Tp - Mp) / Tp``, specificity ``(Tn - Mn) / Tn``, ``sum = 0.5 sens + 0.5 spec``
  (balanced accuracy) and ``cost = 0.9 Mp + 0.1 Mn`` come from the cumulative online mistakes of
  the whole pass; tables give mean and standard deviation (ddof = 1) over the runs, and the wall
  time of one run;
* the "sum" run uses ``rho = Tn / Tp`` from the stream's true counts, the "cost" run ``rho = 9``;
  PAUM keeps the sum's rho in the cost run, which is what the paper's identical PAUM rows in
  the two runs imply; ``gamma = 1``; ``m = 5`` for the sketches;
* eta (ACOG family), C (PA-I) and lambda (COG) come from the grid ``{1e-5, ..., 1e5}``. The paper
  does not say how. Following D-ACOG-3 the value is **selected per
  (algorithm, dataset, metric) on separate selection orders** (5 by default, seeded apart from the
  evaluation orders) and then evaluated on the 20 evaluation orders. With ``oracle = true`` every
  grid value is also evaluated on the 20 orders and the best mean is reported beside it: that is
  what the paper's tables most likely show.
* AROW keeps the paper's stated ``r = 1``. ``AROW-cv`` is the same learner with ``r`` chosen as
  LIBOL's ``CV_algorithm`` chooses it (the group's toolbox): the grid
  ``2^-4 .. 2^4`` and the fewest online mistakes, here on the selection orders. It is shown
  beside the paper's AROW row, because the paper's AROW rows of Table II match it and not r = 1.
* ``CPA-ML`` is the max-loss rule of the cost-sensitive PA whose prediction-based rule is the
  paper's CPA_PB; it is shown beside the paper's CPA_PB row, which lies between the two.

Every number is recorded: ``runs.csv`` (one line per algorithm, metric, grid value, phase and
order: Mp, Mn, Tp, Tn, seconds) and ``selected.json`` (the selected and oracle values, which a
scenario can pass back as ``hyperparameters`` to re-run a cell without the search).

Parameters (the ``[params]`` table of a scenario; all optional except ``datasets``):

``datasets``, ``algorithms``
    Names from :data:`DATASETS` and :data:`LEARNERS`. Datasets the data home does not hold are
    listed in :data:`MISSING` and rejected with the reason.
``metrics``
    ``["sum", "cost"]`` (Tables II, V) or ``["sum"]`` (Table VIII).
``runs``, ``selection_runs``, ``seed``
    Evaluation orders (20), selection orders (5), base seed of the permutations (2018).
``grid``
    The hyper-parameter grid (default ``1e-5 .. 1e5``, 11 values).
``oracle``
    Also evaluate every grid value on the evaluation orders: true (default), false, or a list of
    the algorithms to do it for (the others are evaluated at their selected value only).
``max_samples``
    Use a seeded random subset of each dataset (smoke tests); default: all.
``scaling``
    ``"none"`` (default: the files' values, then unit L2 norm) or ``"minmax"``: each feature first
    scaled linearly to [-1, 1] over the dataset, as LIBSVM's ``svm-scale`` makes its ``*_scale``
    files (constant features become 0). The paper does not say which version of german,
    australian or magic04 it used (D-ACOG-11).
``hyperparameters``
    ``{dataset: {algorithm: {metric: value}}}``: skip the search for those cells (the
    ``hyperparameters`` of a ``selected.json``, whose entries hold the value under ``selected``,
    are accepted as they are).
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import importlib
import json
import math
import pathlib

import numpy as np
from scipy import sparse

from imbalance_stream.evaluate import replay_array
from imbalance_stream.evaluate.protocols import ProtocolError, count_param, reading_params
from reproduce.common import Learner, load_published, read_table, run_cells, write_rows

__all__ = [
    "DATASETS",
    "GRID",
    "LEARNERS",
    "LIBOL_GRID",
    "MISSING",
    "Learner",
    "grid_lines",
    "load_stream",
    "make_learner",
    "markdown_tables",
    "permutation",
    "read_table",
    "run_acog_protocol",
    "table2",
    "table5_6",
    "table8",
]

GRID = tuple(10.0**k for k in range(-5, 6))
#: The grid of LIBOL's ``CV_algorithm`` for a learner's "C" (AROW's r among them).
LIBOL_GRID = tuple(2.0**k for k in range(-4, 5))

#: name -> (loader "module:Class", keyword arguments). Positive classes as in the paper's
#: experimental testbed (Section 4.1).
DATASETS = {
    "german": ("imbalance_stream.datasets:German", {}),
    "a9a": ("imbalance_stream.datasets:A9A", {"split": "all"}),
    "ijcnn1": ("imbalance_stream.datasets:IJCNN1", {}),
    "mushrooms": ("imbalance_stream.datasets:Mushrooms", {}),
    "australian": ("imbalance_stream.datasets:Australian", {}),
    "dna": ("imbalance_stream.datasets:DNA", {"split": "train"}),
    "magic04": ("imbalance_stream.datasets.uci:Magic04", {}),
}

#: The paper's datasets that the data home does not hold.
MISSING = {
    "covtype": "LIBSVM covtype.binary (581,012 rows) is not in the shared datasets",
    "protein": "LIBSVM protein is not in the shared datasets",
    "usps": "LIBSVM usps is not in the shared datasets",
    "sensorless": "LIBSVM Sensorless is not in the shared datasets",
    "kddcup08": "the KDD Cup 2008 breast cancer data is not in the shared datasets",
}


@dataclasses.dataclass(frozen=True)
class ACOGLearner(Learner):
    """How the protocol builds one of the paper's algorithms.

    ``target`` is ``"module:Class"``; ``fixed`` its fixed arguments; ``tuned`` the argument searched
    over the grid (``None``: nothing to tune); ``rho`` the argument that receives the cost ratio
    (``None``: a cost-insensitive learner); ``sum_rho_in_cost_run`` keeps the sum's rho in the cost
    run (PAUM: the paper's identical PAUM rows in the sum and cost runs). ``grid`` replaces the
    protocol's grid for this learner, and ``select_by="mistakes"`` selects the value with the fewest
    online mistakes (``Mp + Mn``) instead of the best sum or cost: together they reproduce LIBOL's
    ``CV_algorithm`` (see ``AROW-cv``). The oracle is always the best sum or cost. ``paper_row``
    names the paper's row that a variant of ours is set beside (its numbers are shown in the
    variant's ``paper_*`` columns).
    """

    tuned: str | None = None
    rho: str | None = "rho"
    sum_rho_in_cost_run: bool = False
    grid: tuple | None = None
    select_by: str = "metric"
    paper_row: str | None = None

    def build_for(self, rho: float, value: float | None):
        """The model with the cost ratio ``rho`` and the tuned argument at ``value``."""
        params = {}
        if self.rho is not None:
            params[self.rho] = rho
        if self.tuned is not None:
            params[self.tuned] = value
        return self.build(**params)


_ACOG = "imbalance_stream.linear_model:ACOG"
_SACOG = "imbalance_stream.linear_model:SACOG"
_LM = "imbalance_stream.linear_model:"

#: The paper's algorithms by the names its tables use.
LEARNERS = {
    "Perceptron": ACOGLearner(_LM + "Perceptron", {}, tuned=None, rho=None),
    "ROMMA": ACOGLearner(_LM + "ROMMA", {}, tuned=None, rho=None),
    "PA-I": ACOGLearner(_LM + "PA", {}, "C", rho=None),
    "PAUM": ACOGLearner(_LM + "PAUM", {}, tuned=None, sum_rho_in_cost_run=True),
    "CPAPB": ACOGLearner(_LM + "CPA", {}, tuned=None),
    # the max-loss rule of the same cost-sensitive PA, shown beside the paper's CPA_PB
    "CPA-ML": ACOGLearner(_LM + "CPA", {"rule": "max-loss"}, tuned=None, paper_row="CPAPB"),
    "AROW": ACOGLearner(_LM + "AROW", {"r": 1.0}, tuned=None, rho=None),
    # r as LIBOL's CV_algorithm picks AROW's "C": 2^-4 .. 2^4, fewest online mistakes
    "AROW-cv": ACOGLearner(
        _LM + "AROW",
        {},
        tuned="r",
        rho=None,
        grid=LIBOL_GRID,
        select_by="mistakes",
        paper_row="AROW",
    ),
    "COG-I": ACOGLearner(_LM + "COG", {"loss": "I"}, tuned="eta"),
    "COG-II": ACOGLearner(_LM + "COG", {"loss": "II"}, tuned="eta"),
    "ACOG-I": ACOGLearner(_ACOG, {"loss": "I", "covariance": "full"}, tuned="eta"),
    "ACOG-II": ACOGLearner(_ACOG, {"loss": "II", "covariance": "full"}, tuned="eta"),
    "ACOG-Idiag": ACOGLearner(_ACOG, {"loss": "I", "covariance": "diag"}, tuned="eta"),
    "ACOG-IIdiag": ACOGLearner(_ACOG, {"loss": "II", "covariance": "diag"}, tuned="eta"),
    "SACOG-I": ACOGLearner(_SACOG, {"loss": "I", "m": 5, "sparse": False, "seed": 0}, tuned="eta"),
    "SACOG-II": ACOGLearner(
        _SACOG, {"loss": "II", "m": 5, "sparse": False, "seed": 0}, tuned="eta"
    ),
    "SSACOG-I": ACOGLearner(_SACOG, {"loss": "I", "m": 5, "sparse": True, "seed": 0}, tuned="eta"),
    "SSACOG-II": ACOGLearner(
        _SACOG, {"loss": "II", "m": 5, "sparse": True, "seed": 0}, tuned="eta"
    ),
}


# ---- data ----------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def load_stream(name: str, max_samples: int | None = None, seed: int = 2018, scaling: str = "none"):
    """``(X, y)`` of a dataset as the paper streams it: rows scaled to unit L2 norm, CSR, labels
    ``True`` for the positive class. ``max_samples`` keeps a seeded random subset (in file order);
    ``scaling="minmax"`` maps every feature to [-1, 1] first. Cached per process; read-only."""
    if name in MISSING:
        raise ValueError(f"dataset {name!r} is not available: {MISSING[name]}")
    try:
        target, kwargs = DATASETS[name]
    except KeyError:
        known = ", ".join(sorted(DATASETS))
        raise KeyError(f"unknown dataset {name!r}; known: {known}") from None
    module, _, cls = target.partition(":")
    X, y, _ = getattr(importlib.import_module(module), cls)(**kwargs).to_numpy()
    y = np.asarray(y, dtype=bool)
    if max_samples is not None and max_samples < len(y):
        keep = np.sort(np.random.default_rng([seed, 7]).choice(len(y), max_samples, replace=False))
        X, y = X[keep], y[keep]
    if scaling == "minmax":
        low, high = X.min(axis=0), X.max(axis=0)
        span = np.where(high > low, high - low, 1.0)
        X = np.where(high > low, 2.0 * (X - low) / span - 1.0, 0.0)
    elif scaling != "none":
        raise ValueError(f"scaling must be 'none' or 'minmax', got {scaling!r}")
    norms = np.linalg.norm(X, axis=1)
    X = X / np.where(norms > 0, norms, 1.0)[:, None]
    csr = sparse.csr_matrix(X)
    for array in (csr.data, csr.indices, csr.indptr, y):
        array.flags.writeable = False
    return csr, y


def permutation(n: int, seed: int, phase: str, run: int) -> np.ndarray:
    """The ``run``-th order of ``n`` samples; ``phase`` ``"eval"`` or ``"select"`` (disjoint
    seed streams), shared by every algorithm."""
    code = {"eval": 0, "select": 1}[phase]
    return np.random.default_rng([seed, code, run]).permutation(n)


def metric_rho(metric: str, y: np.ndarray) -> float:
    """rho of the paper's settings: ``Tn / Tp`` (sum, alpha_p = alpha_n = 1/2) or ``0.9 / 0.1``."""
    if metric == "sum":
        return float((~y).sum() / y.sum())
    if metric == "cost":
        return 0.9 / 0.1
    raise ValueError(f"metric must be 'sum' or 'cost', got {metric!r}")


def make_learner(name: str, metric: str, y: np.ndarray, value: float | None):
    """A fresh model of algorithm ``name`` for ``metric`` with hyper-parameter ``value``."""
    learner = LEARNERS[name]
    rho_metric = "sum" if learner.sum_rho_in_cost_run else metric
    return learner.build_for(metric_rho(rho_metric, y), value)


# ---- one cell: an algorithm, a metric, a grid value, a set of orders -----------------------------


def _run_cell(cell: dict) -> list[dict]:
    X, y = load_stream(cell["dataset"], cell["max_samples"], cell["seed"], cell["scaling"])
    rows = []
    for run in cell["runs"]:
        order = permutation(len(y), cell["seed"], cell["phase"], run)
        model = make_learner(cell["algorithm"], cell["metric"], y, cell["value"])
        result = replay_array(model, X[order], y[order])
        rows.append(
            {
                "dataset": cell["dataset"],
                "algorithm": cell["algorithm"],
                "metric": cell["metric"],
                "phase": cell["phase"],
                "value": cell["value"],
                "run": run,
                "Mp": result.mistakes_positive,
                "Mn": result.mistakes_negative,
                "Tp": result.n_positive,
                "Tn": result.n_negative,
                "seconds": result.seconds,
                "path": result.path,
            }
        )
    return rows


def _scores(runs: list[dict]) -> dict:
    """Mean and std (ddof=1) of sens, spec, sum (%) and raw cost over runs."""
    mp = np.array([r["Mp"] for r in runs], dtype=float)
    mn = np.array([r["Mn"] for r in runs], dtype=float)
    tp = np.array([r["Tp"] for r in runs], dtype=float)
    tn = np.array([r["Tn"] for r in runs], dtype=float)
    sens = 100.0 * (tp - mp) / tp
    spec = 100.0 * (tn - mn) / tn
    values = {
        "sum": 0.5 * sens + 0.5 * spec,
        "sens": sens,
        "spec": spec,
        "cost": 0.9 * mp + 0.1 * mn,
        "mistakes": mp + mn,
    }
    out = {}
    for key, v in values.items():
        out[key] = float(v.mean())
        out[key + "_std"] = float(v.std(ddof=1)) if len(v) > 1 else float("nan")
    out["time"] = float(np.mean([r["seconds"] for r in runs]))
    return out


def _best(by_value: dict, metric: str, select_by: str = "metric"):
    """The grid value with the best mean (max sum / min cost, or with ``select_by="mistakes"``
    the fewest mistakes); ties to the smaller value."""
    if select_by == "mistakes":
        return min(by_value, key=lambda v: (by_value[v]["mistakes"], v))
    if select_by != "metric":
        raise ValueError(f"select_by must be 'metric' or 'mistakes', got {select_by!r}")
    key = (
        (lambda v: (-by_value[v]["sum"], v))
        if metric == "sum"
        else (lambda v: (by_value[v]["cost"], v))
    )
    return min(by_value, key=key)


# ---- the protocol --------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Settings:
    """The protocol's parameters, read once from a scenario's ``[params]``."""

    datasets: list
    algorithms: list
    metrics: list
    n_runs: int
    n_select: int
    seed: int
    grid: tuple
    oracle_for: set
    max_samples: int | None
    scaling: str
    fixed: dict

    @classmethod
    def from_params(cls, params: dict) -> Settings:
        """The settings of ``params``, checked (:class:`ProtocolError` names what is wrong)."""
        with reading_params("the ACOG protocol"):
            algorithms = list(params.get("algorithms", LEARNERS))
            oracle = params.get("oracle", True)
            max_samples = params.get("max_samples")
            settings = cls(
                datasets=list(params["datasets"]),
                algorithms=algorithms,
                metrics=list(params.get("metrics", ["sum", "cost"])),
                n_runs=count_param(params, "runs", 20),
                n_select=count_param(params, "selection_runs", 5),
                seed=count_param(params, "seed", 2018, minimum=0),
                grid=tuple(float(v) for v in params.get("grid", GRID)),
                oracle_for=set(algorithms) if oracle is True else set(oracle or ()),
                max_samples=None if max_samples is None else count_param(params, "max_samples", 1),
                scaling=str(params.get("scaling", "none")),
                fixed=params.get("hyperparameters", {}),
            )
            settings.check()
        return settings

    def check(self) -> None:
        for name in self.datasets:
            if name in MISSING:
                raise ValueError(f"dataset {name!r} is not available: {MISSING[name]}")
            if name not in DATASETS:
                raise KeyError(f"unknown dataset {name!r}; known: {', '.join(sorted(DATASETS))}")
        unknown = [a for a in self.algorithms if a not in LEARNERS]
        if unknown:
            raise KeyError(f"unknown algorithms {unknown}; known: {', '.join(LEARNERS)}")
        missing = [a for a in self.algorithms if not LEARNERS[a].available()]
        if missing:
            raise ProtocolError(f"algorithms not implemented in this installation: {missing}")

    def combinations(self):
        """Every (dataset, algorithm, metric), in table order."""
        for d in self.datasets:
            for a in self.algorithms:
                for m in self.metrics:
                    yield d, a, m

    def cell(self, dataset, algorithm, metric, phase, value, runs) -> dict:
        return {
            "dataset": dataset,
            "algorithm": algorithm,
            "metric": metric,
            "phase": phase,
            "value": value,
            "runs": tuple(runs),
            "seed": self.seed,
            "max_samples": self.max_samples,
            "scaling": self.scaling,
        }

    def values_of(self, dataset, algorithm, metric):
        """``(values to try, value fixed by the scenario or None)`` of one combination."""
        chosen = self.fixed.get(dataset, {}).get(algorithm, {}).get(metric)
        if isinstance(chosen, dict):  # an entry of selected.json
            chosen = chosen.get("selected")
        if LEARNERS[algorithm].tuned is None:
            return [None], None
        if chosen is not None:
            return [float(chosen)], float(chosen)
        return list(LEARNERS[algorithm].grid or self.grid), None


def _runs(cells, settings_run, label):
    n_jobs, scheduler, progress = settings_run
    return run_cells(_run_cell, cells, n_jobs, scheduler, progress, label, None)


def _select(settings: Settings, execution) -> tuple[dict, list]:
    """Stage 1: each tuned value on the selection orders; returns the value chosen for every
    combination (None for untuned learners) and the runs."""
    cells = []
    for d, a, m in settings.combinations():
        values, chosen = settings.values_of(d, a, m)
        if chosen is None and len(values) > 1:
            cells += [settings.cell(d, a, m, "select", v, range(settings.n_select)) for v in values]
    log = _runs(cells, execution, "selection")
    selected = {}
    for d, a, m in settings.combinations():
        values, chosen = settings.values_of(d, a, m)
        if chosen is None and len(values) > 1:
            by_value = {
                v: _scores(
                    [
                        r
                        for r in log
                        if (r["dataset"], r["algorithm"], r["metric"], r["value"]) == (d, a, m, v)
                    ]
                )
                for v in values
            }
            chosen = _best(by_value, m, LEARNERS[a].select_by)
        selected[d, a, m] = chosen
    return selected, log


def _evaluate(settings: Settings, selected: dict, execution) -> list:
    """Stage 2: the evaluation orders for the selected value (every value for the oracle)."""
    cells = []
    for (d, a, m), chosen in selected.items():
        values, _ = settings.values_of(d, a, m)
        searched = a in settings.oracle_for and chosen is not None and len(values) > 1
        todo = values if searched else [chosen]
        cells += [settings.cell(d, a, m, "eval", v, range(settings.n_runs)) for v in todo]
    return _runs(cells, execution, "evaluation")


def _metric_columns(m, chosen, best, scores, cost_unit) -> dict:
    """The columns of one metric (``sum`` or ``cost``) of a table row."""
    s = scores[chosen]
    # untuned learners: the oracle is the single run; no oracle search: NaN
    nan = {"sum": math.nan, "sum_std": math.nan, "cost": math.nan, "cost_std": math.nan}
    o = scores[best] if best is not None else (s if chosen is None else nan)
    prefix = "" if m == "sum" else "cost_"
    if m == "sum":
        columns = {"value": chosen, "sum": s["sum"], "sum_std": s["sum_std"]}
    else:
        columns = {
            "cost_value": chosen,
            "cost": s["cost"] / cost_unit,
            "cost_std": s["cost_std"] / cost_unit,
        }
    for key in ("sens", "sens_std", "spec", "spec_std", "time"):
        columns[prefix + key] = s[key]
    columns[prefix + "oracle_value"] = best
    if m == "sum":
        columns.update({"oracle_sum": o["sum"], "oracle_sum_std": o["sum_std"]})
    else:
        columns.update(
            {"oracle_cost": o["cost"] / cost_unit, "oracle_cost_std": o["cost_std"] / cost_unit}
        )
    return columns


def _paper_columns(theirs: dict, metrics) -> dict:
    columns = {}
    for m in metrics:
        keys = (
            ("sum", "sum_std", "sens", "spec", "time")
            if m == "sum"
            else ("cost", "cost_std", "cost_sens", "cost_spec", "cost_time")
        )
        for key in keys:
            columns["paper_" + key] = theirs.get(key, float("nan"))
    return columns


def _table(settings: Settings, selected, eval_log, paper, cost_unit) -> tuple[list, dict]:
    """One row per (dataset, algorithm), and the record of the selected and oracle values."""
    rows, record = [], {}
    for d in settings.datasets:
        for a in settings.algorithms:
            row = {
                "dataset": d,
                "algorithm": a,
                "runs": settings.n_runs,
                "tuned": LEARNERS[a].tuned or "",
            }
            for m in settings.metrics:
                by_value: dict = {}
                for r in eval_log:
                    if (r["dataset"], r["algorithm"], r["metric"]) == (d, a, m):
                        by_value.setdefault(r["value"], []).append(r)
                scores = {v: _scores(rs) for v, rs in by_value.items()}
                chosen = selected[d, a, m]
                best = _best(scores, m) if chosen is not None and a in settings.oracle_for else None
                record.setdefault(d, {}).setdefault(a, {})[m] = {
                    "parameter": LEARNERS[a].tuned,
                    "selected": chosen,
                    "oracle": best,
                }
                row.update(_metric_columns(m, chosen, best, scores, cost_unit))
            row.update(_paper_columns((paper or {}).get(d, {}).get(a, {}), settings.metrics))
            rows.append(row)
    return rows, record


def run_acog_protocol(
    params: dict,
    *,
    out_dir=None,
    n_jobs=None,
    scheduler=None,
    progress=False,
    paper=None,
    cost_unit: float = 1.0,
) -> list[dict]:
    """Run the protocol of the module docstring; return one row per (dataset, algorithm).

    ``paper`` maps ``dataset -> algorithm -> dict`` of the paper's numbers (keys ``sum``,
    ``sum_std``, ``sens``, ``spec``, ``time`` and the ``cost_*`` ones), shown as ``paper_*``
    columns; costs are divided by ``cost_unit`` (100 for Table II, whose costs are x 10^2).
    """
    settings = Settings.from_params(params)
    execution = (n_jobs, scheduler, progress)
    selected, select_log = _select(settings, execution)
    eval_log = _evaluate(settings, selected, execution)
    rows, record = _table(settings, selected, eval_log, paper, cost_unit)
    if out_dir is not None:
        out = pathlib.Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        write_rows(out / "runs.csv", select_log + eval_log)
        summary = {
            "seed": settings.seed,
            "runs": settings.n_runs,
            "selection_runs": settings.n_select,
            "max_samples": settings.max_samples,
            "scaling": settings.scaling,
            "hyperparameters": record,
        }
        (out / "selected.json").write_text(json.dumps(summary, indent=2))
    return rows


# ---- reading the results -------------------------------------------------------------------------


def _fmt(value, digits=3):
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, str):
        return value
    return f"{value:.{digits}f}"


def _gap(ours, paper, paper_std):
    """``(ours - paper) / paper_std``, the distance in the paper's standard deviations."""
    try:
        ours, paper, paper_std = float(ours), float(paper), float(paper_std)
    except (TypeError, ValueError):
        return "-"
    if math.isnan(ours) or math.isnan(paper) or not paper_std > 0:
        return "-"
    gap = (ours - paper) / paper_std
    return f"**{gap:+.1f}**" if abs(gap) > 2 else f"{gap:+.1f}"


def markdown_tables(rows: list[dict]) -> str:
    """Markdown tables (one per dataset) of a protocol's rows, ours beside the paper's.

    For each metric: our mean +- std at the selected value, the oracle mean, the paper's mean +-
    std and the gap in the paper's standard deviations (bold beyond 2), the selected and oracle
    values, and the time per run (ours, paper's).
    """
    out = []
    for dataset in dict.fromkeys(row["dataset"] for row in rows):
        mine = [row for row in rows if row["dataset"] == dataset]
        has_cost = "cost" in mine[0]
        head = [
            "algorithm",
            "sum (selected)",
            "sum (oracle)",
            "paper sum",
            "gap/σ",
            "sens / spec",
            "paper sens / spec",
            "value (sel / oracle)",
        ]
        if has_cost:
            head += [
                "cost (selected)",
                "cost (oracle)",
                "paper cost",
                "gap/σ",
                "value (sel / oracle)",
            ]
        head += ["time s", "paper time s"]
        lines = [f"**{dataset}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for row in mine:
            cells = [
                row["algorithm"],
                f"{_fmt(row['sum'])} ± {_fmt(row['sum_std'])}",
                _fmt(row["oracle_sum"]),
                f"{_fmt(row['paper_sum'])} ± {_fmt(row['paper_sum_std'])}",
                _gap(row["sum"], row["paper_sum"], row["paper_sum_std"]),
                f"{_fmt(row['sens'], 1)} / {_fmt(row['spec'], 1)}",
                f"{_fmt(row['paper_sens'], 1)} / {_fmt(row['paper_spec'], 1)}",
                f"{_sci(row['value'])} / {_sci(row['oracle_value'])}",
            ]
            if has_cost:
                cells += [
                    f"{_fmt(row['cost'])} ± {_fmt(row['cost_std'])}",
                    _fmt(row["oracle_cost"]),
                    f"{_fmt(row['paper_cost'])} ± {_fmt(row['paper_cost_std'])}",
                    _gap(row["cost"], row["paper_cost"], row["paper_cost_std"]),
                    f"{_sci(row['cost_value'])} / {_sci(row['cost_oracle_value'])}",
                ]
            cells += [_fmt(row["time"], 4), _fmt(row["paper_time"], 3)]
            lines.append("| " + " | ".join(cells) + " |")
        out.append("\n".join(lines))
    return "\n\n".join(out)


#: The paper's first-order baselines (AROW, the other one, is second-order).
FIRST_ORDER = ("Perceptron", "ROMMA", "PA-I", "PAUM", "CPAPB", "COG-I", "COG-II")


def ordering_check(rows: list[dict]) -> str:
    """The paper's ordering claim on the sum runs, ours against its own: for each dataset, every
    (ACOG variant, first-order baseline) pair where the baseline's sum is at least the variant's,
    in our numbers (selected values) or in the paper's. A pair only in the paper's list is one the
    paper itself shows the other way."""
    lines = [
        "| dataset | pairs checked | baseline >= ACOG variant, ours | the same, paper |",
        "|---|---|---|---|",
    ]
    for dataset in dict.fromkeys(row["dataset"] for row in rows):
        mine = {row["algorithm"]: row for row in rows if row["dataset"] == dataset}
        variants = [name for name in mine if name.startswith("ACOG")]
        baselines = [name for name in FIRST_ORDER if name in mine]
        failures = {"ours": [], "paper": []}
        for variant in variants:
            for baseline in baselines:
                for who, key in (("ours", "sum"), ("paper", "paper_sum")):
                    theirs, its = mine[baseline].get(key), mine[variant].get(key)
                    if theirs is not None and its is not None and theirs >= its:
                        failures[who].append(f"{baseline} {theirs:.3f} >= {variant} {its:.3f}")
        lines.append(
            f"| {dataset} | {len(variants) * len(baselines)} | "
            + " | ".join("; ".join(failures[who]) or "none" for who in ("ours", "paper"))
            + " |"
        )
    return "\n".join(lines)


def grid_lines(runs_path, quantity: str = "metric") -> str:
    """Per grid value, the mean sum (%) or raw cost (not x 10^2) of every (dataset, algorithm,
    metric) of a ``runs.csv``: on the evaluation orders where the oracle evaluated the whole
    grid, else on the selection orders (marked ``select``). Shows which values the paper's
    numbers correspond to. ``quantity="mistakes"`` gives the mean number of online mistakes ``Mp
    + Mn`` instead, the criterion of LIBOL's ``CV_algorithm``."""
    if quantity not in ("metric", "mistakes"):
        raise ValueError(f"quantity must be 'metric' or 'mistakes', got {quantity!r}")
    with open(runs_path, newline="") as handle:
        runs = list(csv.DictReader(handle))
    groups: dict = {}
    for r in runs:
        if r["value"] in ("", "None"):
            continue
        key = (r["dataset"], r["algorithm"], r["metric"], r["phase"])
        groups.setdefault(key, {}).setdefault(float(r["value"]), []).append(
            {k: int(r[k]) for k in ("Mp", "Mn", "Tp", "Tn")} | {"seconds": float(r["seconds"])}
        )
    lines = []
    for (dataset, algorithm, metric, phase), by_value in groups.items():
        if phase == "select" and len(groups.get((dataset, algorithm, metric, "eval"), {})) > 1:
            continue
        if phase == "eval" and len(by_value) == 1:
            continue
        key, digits, what = (
            (metric, 3, metric)
            if quantity == "metric"
            else ("mistakes", 1, f"{metric} run, mistakes")
        )
        cells = [
            f"{value:g}: {_scores(by_value[value])[key]:.{digits}f}" for value in sorted(by_value)
        ]
        lines.append(
            f"{dataset} {algorithm} {what} ({phase}, {len(next(iter(by_value.values())))} "
            f"runs): " + ", ".join(cells)
        )
    return "\n".join(lines)


def _sci(value):
    try:
        return f"{float(value):g}"
    except (TypeError, ValueError):
        return "-"


# ---- the paper's tables --------------------------------------------------------------------------


def _paper(*tables: str) -> dict:
    """``{dataset: {algorithm: {quantity: value}}}`` of the paper's tables (a fresh copy; where
    two tables have the same row, the first one's wins)."""
    merged: dict = {}
    for table in tables:
        for dataset, rows in PAPER[table].items():
            for name, values in rows.items():
                merged.setdefault(dataset, {}).setdefault(name, dict(values))
    return merged


def _with_aliases(paper: dict) -> dict:
    """The paper's rows also under the names of the variants set beside them
    (:attr:`ACOGLearner.paper_row`: ``AROW-cv`` beside its AROW, ``CPA-ML`` beside its CPA_PB)."""
    for rows in paper.values():
        for name, learner in LEARNERS.items():
            if learner.paper_row in rows:
                rows.setdefault(name, rows[learner.paper_row])
    return paper


def table2(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Table II: sum and cost runs on german, a9a, ijcnn1 (covtype is missing); cost x 10^2."""
    params = {"datasets": ["german", "a9a", "ijcnn1"], "metrics": ["sum", "cost"], **params}
    return run_acog_protocol(
        params,
        out_dir=out_dir,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
        paper=_with_aliases(_paper("II")),
        cost_unit=100.0,
    )


def table5_6(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables V and VI: COG, ACOG, SACOG and sparse SACOG on mushrooms (usps, protein and
    Sensorless are missing); raw costs. SACOG rows take the paper's numbers from Table VI."""
    params = {"datasets": ["mushrooms"], "metrics": ["sum", "cost"], **params}
    return run_acog_protocol(
        params,
        out_dir=out_dir,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
        paper=_paper("V", "VI"),
        cost_unit=1.0,
    )


def table8(params, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Table VIII: balanced accuracy (sum) on australian, magic04, dna (KDDCUP08 is missing)."""
    params = {"datasets": ["australian", "magic04", "dna"], "metrics": ["sum"], **params}
    return run_acog_protocol(
        params,
        out_dir=out_dir,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
        paper=_with_aliases(_paper("VIII")),
    )


#: The paper's tables from ``published.csv``, mean +- std over 20 runs as printed:
#: ``PAPER[table][dataset][algorithm][quantity]``. Tables II and V: sum, std, sens, std, spec, std,
#: time, then the cost run's cost (Table II: x 10^2), std, sens, std, spec, std, time; Table VI:
#: sum, std, time, cost, std, time; Table VIII: sum, std, time.
PAPER = load_published(pathlib.Path(__file__).with_name("published.csv"))

if __name__ == "__main__":
    # python -m reproduce.acog.protocol out/acog_table2/table.csv
    # python -m reproduce.acog.protocol out/acog_table2/runs.csv   (per grid value)
    # python -m reproduce.acog.protocol out/acog_table2/runs.csv mistakes
    import sys

    path = sys.argv[1]
    if path.endswith("runs.csv"):
        print(grid_lines(path, *sys.argv[2:3]))
    else:
        rows = read_table(path)
        print(markdown_tables(rows))
        print("\nOrdering on the sum runs (ACOG variants against the first-order baselines):\n")
        print(ordering_check(rows))
