"""Seed 004, Chapter 4 of Miao (2015): the sampling-bias benchmark (Tables 4.2-4.4) and the
synthetic DDR example (Table 4.1).

Per run (Section 4.4.2): every feature min-max scaled to [-1, 1] over the whole set; half the
rows, drawn uniformly, are the test set; the other half is sub-sampled into the biased training
set with ``P(s=1|x) = 1 / (1 + exp(-v))``, ``v = 4 w'(x - mean) / std(w'(x - mean))``,
``w ~ U[-1, 1]^d``, where ten ``w`` are drawn and the one whose oracle weights ``1 + exp(-v)``
help the unweighted SVM most on the test set is kept, with the training set it drew (D-DR-39).
Both classifiers see the same splits. The weights of KMM (median width, ``B`` = 1000, epsilon
``(sqrt(m) - 1) / sqrt(m)``), KLIEP and uLSIF (their own cross-validation) go to the weighted SVM
(scikit-learn's ``SVC``, LIBSVM's defaults ``C`` = 1, ``gamma`` = 1/d, per-sample costs) and to
iwLSPC; DDR-ES and DDR-TSVM (``lambda1`` = 1, ``lambda2`` = 0.1, the class-wise ratios at the
median width, D-DR-42) run on the same split. "DR" of Tables 4.3 and 4.4 is the best of KMM,
KLIEP and uLSIF per data set, as in the thesis.
"""

from __future__ import annotations

import pathlib
import time

import numpy as np

from imbalance_stream.density_ratio import DDR, IWLSPC, KLIEP, KMM, ULSIF, WeightedTSVM
from imbalance_stream.density_ratio.bandwidths import median_distance
from reproduce.common.published import load_published
from reproduce.common.results import run_cells
from reproduce.density_ratio.figures import Panel, Series, draw
from reproduce.density_ratio.shift import table4_1_sample

__all__ = [
    "DATASETS",
    "biased_split",
    "ddr_synthetic",
    "load_set",
    "scaled",
    "table4_2_iwsvm",
    "tables4_2_4",
]

DATASETS = ("breastCancer", "diabetes", "ionosphere", "wdbc", "imageSegment", "mushroom")
RATIOS = ("KMM", "KLIEP", "uLSIF")
PUBLISHED = pathlib.Path(__file__).resolve().parent / "published.csv"


def scaled(X: np.ndarray) -> np.ndarray:
    """Each feature min-max scaled to [-1, 1] over the whole set; a constant one to 0."""
    low, high = X.min(0), X.max(0)
    span = np.where(high > low, high - low, 1.0)
    return np.where(high > low, 2.0 * (X - low) / span - 1.0, 0.0)


def load_set(name: str) -> tuple[np.ndarray, np.ndarray]:
    """One of the six sets of Table 4.2, scaled to [-1, 1], with its labels."""
    from imbalance_stream import datasets as ours

    if name == "wdbc":
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
    elif name == "imageSegment":
        from river import datasets as river_datasets

        rows = list(river_datasets.ImageSegments())
        X = np.array([list(x.values()) for x, _ in rows], dtype=np.float64)
        y = np.array([label for _, label in rows])
    else:
        dataset = {
            "breastCancer": lambda: ours.BreastCancerWisconsin(),
            "diabetes": lambda: ours.KOILBenchmark("diabetes"),
            "ionosphere": lambda: ours.KOILBenchmark("ionosphere"),
            "mushroom": lambda: ours.Mushrooms(),
        }[name]()
        X, y, _ = dataset.to_numpy()
    return scaled(np.asarray(X, dtype=np.float64)), np.asarray(y)


def svm(X, y, weights=None):
    """The weighted SVM of the tables: LIBSVM's defaults with per-sample costs (eq. 3.32)."""
    from sklearn.svm import SVC

    return SVC(C=1.0, gamma=1.0 / X.shape[1]).fit(X, y, sample_weight=weights)


def _selection(pool: np.ndarray, rng) -> tuple[np.ndarray, np.ndarray]:
    """One draw of the biased selection: which pool rows are kept, and their oracle weights."""
    omega = rng.uniform(-1.0, 1.0, pool.shape[1])
    projection = (pool - pool.mean(0)) @ omega
    v = 4.0 * projection / max(float(projection.std()), 1e-12)
    kept = rng.random(len(pool)) < 1.0 / (1.0 + np.exp(-v))
    return kept, 1.0 + np.exp(-v)


def biased_split(X, y, rng, candidates: int = 10) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Indices of the biased training rows and the test rows, and the training rows' oracle
    weights ``1 / P(s=1|x)``: the candidate selection with the largest gain of the oracle
    weights over the unweighted SVM on the test rows (Section 4.4.2, D-DR-39)."""
    order = rng.permutation(len(y))
    test, pool = order[: len(y) // 2], order[len(y) // 2 :]
    best, best_gain = None, -np.inf
    for _ in range(candidates):
        kept, oracle = _selection(X[pool], rng)
        train = pool[kept]
        if len(np.unique(y[train])) < len(np.unique(y)):
            continue  # a class lost: not a usable training set
        plain = np.mean(svm(X[train], y[train]).predict(X[test]) == y[test])
        weighted = np.mean(svm(X[train], y[train], oracle[kept]).predict(X[test]) == y[test])
        if weighted - plain > best_gain:
            best, best_gain = (train, test, oracle[kept]), weighted - plain
    if best is None:
        raise RuntimeError("no candidate selection kept every class")
    return best


def _ratio_weights(method: str, source, target, seed: int) -> np.ndarray:
    estimator = {"KMM": KMM, "KLIEP": KLIEP, "uLSIF": ULSIF}[method]
    model = estimator(seed=seed).fit(source, target)
    return model.weights_ if method == "KMM" else model.weight(source)


def _ddr(learner, X, y, target, seed, tsvm: bool, max_iter: int):
    """DDR on one split, its class-wise ratios at the median width of the pooled rows (the width
    the section gives KMM); the ridge by leave-one-out (D-DR-42)."""
    binary = len(np.unique(y)) == 2
    loss = "hinge" if binary and isinstance(learner, WeightedTSVM) else "posterior"
    sigma = median_distance(np.vstack([X, target]), seed)
    return DDR(
        learner=learner,
        loss=loss,
        early_stopping=not tsvm,
        max_iter=max_iter,
        sigma=sigma,
        seed=seed,
    ).fit(X, y, target)


def _platt_labels(Xs, ys, Xt, yt, seed) -> float:
    """Accuracy of the unweighted SVM labelling by its largest Platt posterior, as DDR labels
    (D-DR-41): DDR-ES's first iterate, which shows how much of DDR-ES's gain is the labelling."""
    model = WeightedTSVM(lambda2=0.0, seed=seed).fit(Xs, ys)
    return float(np.mean(model.classes_[model.predict_proba(Xt).argmax(1)] == yt))


def _accuracy(model, X, y) -> float:
    return float(np.mean(model.predict(X) == y))


def _timed(rows, base, classifier, method, fit) -> None:
    start = time.process_time()
    accuracy, extra = fit()
    row = {**base, "classifier": classifier, "method": method, "accuracy": round(accuracy, 4)}
    row.update(extra)
    row["cpu_seconds"] = round(time.process_time() - start, 2)
    rows.append(row)


def _bias_cell(cell: dict) -> list[dict]:
    """One run on one set: the split, every method's accuracy on the test rows."""
    X, y = load_set(cell["dataset"])
    if cell["max_rows"] and len(y) > cell["max_rows"]:
        # one fixed uniform subsample of the set for every run (the machine's budget)
        keep = np.random.default_rng([cell["seed"], len(y)]).permutation(len(y))[: cell["max_rows"]]
        X, y = X[np.sort(keep)], y[np.sort(keep)]
    seed = cell["seed"] + cell["run"]
    rng = np.random.default_rng([cell["seed"], DATASETS.index(cell["dataset"]), cell["run"]])
    train, test, oracle = biased_split(X, y, rng)
    Xs, ys, Xt, yt = X[train], y[train], X[test], y[test]
    base = {"dataset": cell["dataset"], "run": cell["run"], "n_train": len(train)}
    weights = {"Unweighted": None, "Oracle-weight": oracle}
    for method in RATIOS:
        weights[method] = _ratio_weights(method, Xs, Xt, seed)
    rows: list[dict] = []
    methods, classifiers = cell["methods"], cell["classifiers"]
    for method, w in weights.items():
        if method not in methods:
            continue
        if "iwSVM" in classifiers:
            _timed(rows, base, "iwSVM", method, lambda w=w: (_accuracy(svm(Xs, ys, w), Xt, yt), {}))
        if "iwLSPC" in classifiers:
            lspc = IWLSPC(seed=seed)
            _timed(
                rows,
                base,
                "iwLSPC",
                method,
                lambda w=w, m=lspc: (_accuracy(m.fit(Xs, ys, w, X_centres=Xt), Xt, yt), {}),
            )
    if "Unweighted-Platt" in methods and "iwSVM" in classifiers:
        _timed(
            rows,
            base,
            "iwSVM",
            "Unweighted-Platt",
            lambda: (_platt_labels(Xs, ys, Xt, yt, seed), {}),
        )
    ddr_runs = []
    if "DDR-ES" in methods and "iwSVM" in classifiers:
        ddr_runs.append(("iwSVM", "DDR-ES", WeightedTSVM(lambda2=0.0, seed=seed), False))
    if "DDR-TSVM" in methods and "iwSVM" in classifiers:
        tsvm = WeightedTSVM(max_switch_rounds=cell["switch_rounds"], seed=seed)
        ddr_runs.append(("iwSVM", "DDR-TSVM", tsvm, True))
    if "DDR-ES" in methods and "iwLSPC" in classifiers:
        ddr_runs.append(("iwLSPC", "DDR-ES", IWLSPC(seed=seed), False))
    for classifier, method, learner, tsvm_mode in ddr_runs:

        def fit(learner=learner, tsvm_mode=tsvm_mode):
            iterations = cell["tsvm_max_iter"] if tsvm_mode else cell["max_iter"]
            ddr = _ddr(learner, Xs, ys, Xt, seed, tsvm_mode, iterations)
            extra = {"iterations": ddr.n_iter_, "kept": ddr.best_iteration_}
            return _accuracy(ddr, Xt, yt), extra

        _timed(rows, base, classifier, method, fit)
    return rows


def _signed_rank_p(values: np.ndarray, baseline: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value of paired runs (1.0 when every pair ties)."""
    from scipy.stats import wilcoxon

    if len(values) < 2 or np.allclose(values, baseline):
        return 1.0
    return float(wilcoxon(values, baseline, zero_method="zsplit").pvalue)


def _published_cell(table_rows: dict, dataset: str, classifier: str, method: str) -> dict:
    """The thesis's mean and std: Table 4.2 by classifier, the DDR columns from 4.3 / 4.4."""
    table = (
        "4.2" if method in ("Unweighted",) + RATIOS else ("4.3" if classifier == "iwSVM" else "4.4")
    )
    key = (dataset, classifier) if table == "4.2" else dataset
    return table_rows.get(table, {}).get(key, {}).get(method, {})


def _summary(log: list[dict]) -> list[dict]:
    published = load_published(PUBLISHED)
    rows = []
    groups = sorted(
        {(r["dataset"], r["classifier"]) for r in log}, key=lambda g: (DATASETS.index(g[0]), g[1])
    )
    for dataset, classifier in groups:
        runs = [r for r in log if r["dataset"] == dataset and r["classifier"] == classifier]
        by_method: dict = {}
        for r in sorted(runs, key=lambda r: r["run"]):
            by_method.setdefault(r["method"], []).append(r["accuracy"])
        ratios = {m: np.mean(v) for m, v in by_method.items() if m in RATIOS}
        if ratios:  # the thesis's "DR" column: the best ratio estimator on the set
            by_method["DR"] = by_method[max(ratios, key=lambda m: ratios[m])]
        plain = np.array(by_method.get("Unweighted", []))
        for method, values in by_method.items():
            values = np.array(values)
            paper = _published_cell(published, dataset, classifier, method)
            mean, std = float(values.mean()), float(values.std(ddof=1)) if len(values) > 1 else 0.0
            paper_mean, paper_std = paper.get("mean", np.nan), paper.get("std", np.nan)
            rows.append(
                {
                    "dataset": dataset,
                    "classifier": classifier,
                    "method": method,
                    "runs": len(values),
                    "accuracy": round(mean, 4),
                    "accuracy_std": round(std, 4),
                    "paper_accuracy": paper_mean,
                    "paper_accuracy_std": paper_std,
                    # distance to the thesis in units of the thesis's std
                    "gap_in_paper_std": round((mean - paper_mean) / paper_std, 2)
                    if paper_std and np.isfinite(paper_std)
                    else np.nan,
                    "p_vs_unweighted": round(_signed_rank_p(values, plain), 4)
                    if len(plain) == len(values) and method != "Unweighted"
                    else np.nan,
                }
            )
    return rows


def tables4_2_4(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables 4.2, 4.3 and 4.4. Parameters (all optional): ``datasets`` (default the six),
    ``runs`` (30), ``seed``, ``methods`` (Unweighted, Unweighted-Platt (not in the thesis: the
    unweighted SVM labelling by its Platt posteriors, as DDR does), KMM, KLIEP, uLSIF,
    Oracle-weight, DDR-ES, DDR-TSVM), ``classifiers`` (iwSVM, iwLSPC), ``max_iter`` (DDR's
    iterations, 20), ``switch_rounds`` (the TSVM's refits per stage, 10), ``tsvm_max_iter``
    (DDR-TSVM's iterations, default ``max_iter``), ``max_rows`` (a fixed uniform subsample of
    larger sets; 0 keeps them whole)."""
    names = list(params.get("datasets", DATASETS))
    unknown = sorted(set(names) - set(DATASETS))
    if unknown:
        raise ValueError(f"unknown datasets {unknown}; known: {', '.join(DATASETS)}")
    all_methods = ("Unweighted", "Unweighted-Platt") + RATIOS
    all_methods += ("Oracle-weight", "DDR-ES", "DDR-TSVM")
    cell_base = {
        "seed": int(params.get("seed", 2015)),
        "methods": list(params.get("methods", all_methods)),
        "classifiers": list(params.get("classifiers", ("iwSVM", "iwLSPC"))),
        "max_iter": int(params.get("max_iter", 20)),
        "switch_rounds": int(params.get("switch_rounds", 10)),
        "tsvm_max_iter": int(params.get("tsvm_max_iter", params.get("max_iter", 20))),
        "max_rows": int(params.get("max_rows", 0)),
    }
    cells = [
        {**cell_base, "dataset": name, "run": run}
        for name in names
        for run in range(int(params.get("runs", 30)))
    ]
    log = run_cells(_bias_cell, cells, n_jobs, scheduler, progress, "tables 4.2-4.4", out_dir)
    return _summary(log)


def _synthetic_cell(cell: dict) -> list[dict]:
    rng = np.random.default_rng([cell["seed"], cell["run"]])
    # Table 4.1's generator, with its test class 2 as D-DR-17 resolves it
    Xs, ys = table4_1_sample("train", cell["n_train"], rng)
    Xt, yt = table4_1_sample("test", cell["n_test"], rng)
    seed = cell["seed"] + cell["run"]
    base = {"run": cell["run"]}
    rows: list[dict] = []
    _timed(rows, base, "iwSVM", "Unweighted", lambda: (_accuracy(svm(Xs, ys), Xt, yt), {}))
    w = _ratio_weights("uLSIF", Xs, Xt, seed)
    _timed(rows, base, "iwSVM", "uLSIF", lambda: (_accuracy(svm(Xs, ys, w), Xt, yt), {}))

    def ddr_es():
        ddr = _ddr(WeightedTSVM(lambda2=0.0, seed=seed), Xs, ys, Xt, seed, False, cell["max_iter"])
        gamma = dict(zip(ddr.classes_.tolist(), ddr.gamma_))
        extra = {"gamma_1": round(float(gamma[1]), 3), "gamma_2": round(float(gamma[2]), 3)}
        extra["kept"] = ddr.best_iteration_
        return _accuracy(ddr, Xt, yt), extra

    _timed(rows, base, "iwSVM", "DDR-ES", ddr_es)
    return rows


def ddr_synthetic(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """The synthetic example of Section 4.4.1 (Table 4.1, Fig. 4.1): accuracy of the unweighted
    and uLSIF-weighted SVM and of DDR-ES, and DDR's prior ratios against the true 1.2 and 0.8.
    Parameters: ``runs`` (10), ``n_train`` (500), ``n_test`` (1000), ``seed``, ``max_iter``."""
    cells = [
        {
            "run": run,
            "seed": int(params.get("seed", 2015)),
            "n_train": int(params.get("n_train", 500)),
            "n_test": int(params.get("n_test", 1000)),
            "max_iter": int(params.get("max_iter", 20)),
        }
        for run in range(int(params.get("runs", 10)))
    ]
    log = run_cells(_synthetic_cell, cells, n_jobs, scheduler, progress, "E1", out_dir)
    summary = []
    for method in ("Unweighted", "uLSIF", "DDR-ES"):
        runs = [r for r in log if r["method"] == method]
        values = np.array([r["accuracy"] for r in runs])
        row = {"method": method, "runs": len(runs), "accuracy": round(float(values.mean()), 4)}
        row["accuracy_std"] = round(float(values.std(ddof=1)), 4) if len(values) > 1 else 0.0
        if method == "DDR-ES":
            for key in ("gamma_1", "gamma_2"):
                row[key] = round(float(np.mean([r[key] for r in runs])), 3)
            row["true_gamma_1"], row["true_gamma_2"] = 1.2, 0.8
        summary.append(row)
    return summary


def table4_2_iwsvm(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Table 4.2's iwSVM rows as a figure: the weighted SVM's accuracy under each estimator
    (Unweighted, KMM, KLIEP, uLSIF) on the six sets, ours (mean and std over the runs) beside the
    thesis's. The runs are :func:`tables4_2_4`'s (the same splits and weights: a run of it with
    these methods gives these numbers); its parameters apply, ``classifiers`` fixed to iwSVM and
    ``methods`` defaulting to the four. Draws ``table4_2_iwsvm.png`` in ``out_dir``."""
    methods = list(params.get("methods", ("Unweighted",) + RATIOS))
    rows = tables4_2_4(
        {**params, "classifiers": ["iwSVM"], "methods": methods},
        out_dir=out_dir,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
    )
    rows = [row for row in rows if row["method"] != "DR"]
    if out_dir is not None:
        names = list(dict.fromkeys(row["dataset"] for row in rows))

        def series(key: str, spread: str, fmt: str, suffix: str) -> list[Series]:
            return [
                Series(
                    method + suffix,
                    [names.index(r["dataset"]) + 0.08 * j for r in mine],
                    [r[key] for r in mine],
                    [r[spread] for r in mine],
                    fmt=fmt,
                )
                for j, method in enumerate(methods)
                if (mine := [r for r in rows if r["method"] == method])
            ]

        runs = max(row["runs"] for row in rows)
        panels = [
            Panel(
                f"ours, {runs} runs",
                "",
                "accuracy",
                series("accuracy", "accuracy_std", "o", ""),
                xticks=names,
            ),
            Panel(
                "thesis (30 runs)",
                "",
                "accuracy",
                series("paper_accuracy", "paper_accuracy_std", "s", ""),
                xticks=names,
            ),
        ]
        title = "Sampling bias, iwSVM under each density-ratio estimator (Table 4.2)"
        draw(
            pathlib.Path(out_dir) / "table4_2_iwsvm.png",
            panels,
            columns=2,
            size=(6.0, 4.2),
            title=title,
        )
    return rows
