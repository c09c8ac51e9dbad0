"""Seed 003, chapters 4 and 5 of Ertekin (2009): active learning and VIRTUAL on imbalanced data.

* Tables 4.3 and 4.4 (and the ranks of 4.5): LASVM over all the training data (Batch), random
  undersampling (US), SMOTE, different costs (DC) and early-stopped active learning (AL: the pool
  of 59, section 4.2.1, stopped at support-vector saturation, section 4.2.3): g-means, AUC,
  PRBEP, #SV-/#SV+, the share of the data AL learned, CPU seconds; scikit-learn's ``SVC`` beside
  them as a check of Batch. On Abalone-7, Letter-A, Satimage and MNIST-8 (the sets the data home
  holds; Reuters, CiteSeer and USPS are not in it).
* Tables 5.2 and 5.3: Batch, SMOTE, AL and VIRTUAL (Algorithm 5.1) on the UCI rows (abalone,
  breast, letter, satimage): g-means, CPU seconds, #SV-/#SV+ and the share of the virtual (or
  SMOTE's synthetic) positives that are support vectors.
* Figs. 5.2 and 5.3: the same methods on Waveform with the positives undersampled to imbalance
  ratios 2 to 32 (section 5.2.1): g-means and the positive and negative support vectors.

Every cell is one (table, dataset, run, method); a run draws its split and training order from
``[seed, run]``. AL and US share a cell: US undersamples to the #SV-/#SV+ ratio AL reached
(section 4.3). Every model is finished (REPROCESS until delta <= tau) before it is scored; times
are the cell process's CPU seconds after the jitted kernels compiled, SMOTE's including its
preprocessing, AL's and VIRTUAL's including the selection (D-LASVM-43).
"""

from __future__ import annotations

import math
import pathlib
import time

import numpy as np

from imbalance_stream.active import SaturationStop, SmallPoolSelection, Virtual
from imbalance_stream.metrics.batch import prbep, roc_auc
from imbalance_stream.svm import LASVM
from reproduce.common.published import load_published
from reproduce.common.results import run_cells
from reproduce.lasvm.protocol import as_dicts, check_names, paired_runs

__all__ = ["METHODS", "load_split", "table4_3", "table5_3", "waveform_sweep"]

PUBLISHED = pathlib.Path(__file__).resolve().parent / "published_active.csv"
TAU = 1e-3  # chapters 4 and 5 do not give it; Table 3.1's value

#: (C, gamma) of Table 4.2; chapter 5 gives none, so its sets reuse them (breast: D-LASVM-43).
SETTINGS = {
    "abalone-7": (100.0, 0.01),
    "abalone-7-rings": (100.0, 0.01),
    "letter-a": (10.0, 0.01),
    "satimage": (50.0, 0.001),
    "mnist-8": (1000.0, 0.02),
    "breast": (10.0, 0.1),
    "waveform": (1.0, 0.05),  # Table 3.1's Waveform setting
}
#: the training share of the random stratified splits, read off the thesis's counts (Tables 4.2,
#: 5.1: Abalone-7 352 + 3,407 of 4,177 rows, Letter-A 710 + 17,290 of 20,000, breast 172 + 320
#: of 683); Satimage and MNIST keep their files' train/test split.
TRAIN_SHARE = {"abalone-7": 0.9, "abalone-7-rings": 0.9, "letter-a": 0.9, "breast": 0.72}
METHODS = ("Batch", "SVC", "AL", "US", "SMOTE", "DC", "VIRTUAL")


# ---- data ---------------------------------------------------------------------------------------


def _stratified(X, y, share, rng):
    train = []
    for label in (True, False):
        rows = rng.permutation(np.flatnonzero(y == label))
        train.extend(rows[: int(round(share * len(rows)))].tolist())
    train_mask = np.zeros(len(y), dtype=bool)
    train_mask[train] = True
    order = rng.permutation(np.flatnonzero(train_mask))
    return X[order], y[order], X[~train_mask], y[~train_mask]


def _unit_range(X_train, X_test):
    """Min-max scaling to [0, 1] on the training part (the UCI originals are unscaled)."""
    low, high = X_train.min(0), X_train.max(0)
    span = np.where(high > low, high - low, 1.0)
    return (X_train - low) / span, (X_test - low) / span


def _original_scale(X_train, X_test):
    """Undo LIBSVM's ``svm-scale`` to [-1, 1] up to an offset per feature, which the RBF kernel
    does not see (D-LASVM-44, D-LASVM-51). The originals are integers, so each scaled feature
    lies on a lattice of step ``2 / span``: the smallest gap between its distinct training
    values gives the span (Letter: 15 for every feature; Satimage: 62 to 128), and
    ``(x + 1) / 2 * span`` is the original value less the feature's training minimum."""
    spans = np.ones(X_train.shape[1])
    for j in range(X_train.shape[1]):
        gaps = np.diff(np.unique(X_train[:, j]))
        if len(gaps):
            spans[j] = np.round(2.0 / gaps.min())
    return (X_train + 1.0) / 2.0 * spans, (X_test + 1.0) / 2.0 * spans


def _file_split(dataset, rng, n_train, n_test):
    from imbalance_stream import datasets as ds

    if dataset == "satimage":  # back to the original band values (D-LASVM-51)
        X, y, _ = ds.Satimage(split="train").to_numpy()
        X_test, y_test, _ = ds.Satimage(split="test").to_numpy()
        X, X_test = _original_scale(np.asarray(X, float), np.asarray(X_test, float))
    else:  # mnist-8: pixels in [0, 1]
        X, y, _ = ds.MNIST(split="train").to_numpy()
        X_test, y_test, _ = ds.MNIST(split="test").to_numpy()
        X, X_test = np.asarray(X, float) / 255.0, np.asarray(X_test, float) / 255.0
    X, y = np.asarray(X, float), np.asarray(y, bool)
    keep = rng.permutation(len(y))[: n_train or len(y)]
    test_keep = np.sort(rng.permutation(len(y_test))[: n_test or len(y_test)])
    return (
        X[keep],
        y[keep],
        np.asarray(X_test, float)[test_keep],
        np.asarray(y_test, bool)[test_keep],
    )


def _waveform(ratio: float, seed, n_train: int, n_test: int, rng):
    """4,000 + 1,000 generator samples (natural ratio 2); the training positives randomly
    undersampled to ``ratio`` negatives per positive, the test set left as drawn (section 5.2.1);
    standardised on the training part."""
    from imbalance_stream.datasets import Waveform

    X, y, _ = Waveform(n_samples=n_train + n_test, seed=seed).to_numpy()
    X_train, y_train = X[:n_train], np.asarray(y[:n_train], bool)
    positives = rng.permutation(np.flatnonzero(y_train))
    n_keep = int(round((~y_train).sum() / ratio))
    keep = np.sort(np.concatenate([np.flatnonzero(~y_train), positives[:n_keep]]))
    X_train, X_test = X_train[keep], X[n_train:]
    mean, std = X_train.mean(0), X_train.std(0)  # standardised as for Table 3.1 (D-LASVM-22)
    std = np.where(std > 0, std, 1.0)
    return (
        (X_train - mean) / std,
        y_train[keep],
        (X_test - mean) / std,
        np.asarray(y[n_train:], bool),
    )


def load_split(dataset: str, seed: int, run: int, n_train=None, n_test=None):
    """``(X_train, y_train, X_test, y_test)`` of one run, positives True, training rows in a
    random order. ``n_train`` / ``n_test`` subsample (``n_train``: the first rows of the
    shuffled training part of the other sets) or set Waveform's sizes."""
    from imbalance_stream import datasets as ds

    rng = np.random.default_rng([seed, run])
    if dataset.startswith("waveform-"):
        ratio = float(dataset.split("-")[1])
        X, y, X_t, y_t = _waveform(ratio, [seed, run], n_train or 4000, n_test or 1000, rng)
        order = rng.permutation(len(y))
        return X[order], y[order], X_t, y_t
    if dataset in ("satimage", "mnist-8"):
        return _file_split(dataset, rng, n_train, n_test)
    if dataset == "abalone-7":
        X, y, _ = ds.Abalone(positive_class=7).to_numpy()
    elif dataset == "abalone-7-rings":  # the ring count kept as a 9th feature (see the README)
        X, rings, _ = ds.Abalone(positive_class=None).to_numpy()
        X, y = np.column_stack([X, rings]), np.asarray(rings) == 7
    elif dataset == "letter-a":
        X, y, _ = ds.Letter(split="all", positive_class=1).to_numpy()
    elif dataset == "breast":
        X, y, _ = ds.BreastCancerWisconsin().to_numpy()
    else:
        raise ValueError(f"unknown dataset {dataset!r}")
    X_train, y_train, X_test, y_test = _stratified(
        np.asarray(X, float), np.asarray(y, bool), TRAIN_SHARE[dataset], rng
    )
    if dataset == "letter-a":  # letter.scale's [-1, 1] back to the original 0..15 (D-LASVM-44)
        X_train, X_test = _original_scale(X_train, X_test)
    elif dataset == "breast":
        X_train, X_test = _unit_range(X_train, X_test)
    return X_train[:n_train], y_train[:n_train], X_test, y_test


# ---- measures -----------------------------------------------------------------------------------


def _measures(scores: np.ndarray, y_test: np.ndarray) -> dict:
    """g-means (River's GeometricMean: sqrt(sensitivity x specificity) on two classes, Table 4.1),
    AUC and PRBEP (D-LASVM-17) of decision values on the test set; positive iff f >= 0."""
    from river.metrics import GeometricMean

    gmeans = GeometricMean()
    for truth, score in zip(y_test.tolist(), scores.tolist()):
        gmeans.update(truth, score >= 0.0)
    return {
        "gmeans": round(100.0 * gmeans.get(), 3),
        "auc": round(100.0 * roc_auc(scores, y_test), 3),
        "prbep": round(100.0 * prbep(scores, y_test), 3),
        "error": round(100.0 * float(np.mean((scores >= 0.0) != y_test)), 3),
    }


def _virtual_share(model, virtual: list[dict]) -> float:
    """The share (%) of the ``virtual`` (or synthetic) examples that are support vectors of
    ``model`` now (Table 5.2's #SV_V(+) / #V.I.)."""
    made = {tuple(sorted(x.items())) for x in virtual}
    pairs = model.support_vectors_
    hits = sum(1 for x, alpha in pairs if alpha > 0 and tuple(sorted(x.items())) in made)
    return round(100.0 * hits / len(made), 2)


def _finish(model, virtual: list[dict]) -> tuple[dict, float]:
    """Finish ``model``; Table 5.2's share counted before finishing too, since the thesis does
    not say on which model it counts (finishing removes many support vectors). Returns that
    count and the CPU seconds it took, which are not the method's."""
    counting = time.process_time()
    unfinished = {}
    if virtual:
        unfinished["virtual_sv_fraction_unfinished"] = _virtual_share(model, virtual)
    counted = time.process_time() - counting
    model.finish()
    return unfinished, counted


def _support(model, virtual: list[dict] | None = None) -> dict:
    """#SV(+), #SV(-), their ratio, and how many of the ``virtual`` (or synthetic) examples are
    support vectors (Table 5.2's #SV_V(+) / #V.I.)."""
    pairs = model.support_vectors_
    n_pos = sum(1 for _, alpha in pairs if alpha > 0)
    n_neg = len(pairs) - n_pos
    row = {
        "n_sv": len(pairs),
        "n_sv_pos": n_pos,
        "n_sv_neg": n_neg,
        "sv_ratio": round(n_neg / n_pos, 3) if n_pos else math.nan,
    }
    if virtual:
        row |= {"n_virtual": len(virtual), "virtual_sv_fraction": _virtual_share(model, virtual)}
    return row


def _warm_up() -> None:
    """Compile the jitted kernels before a timed run (numba also caches them on disk)."""
    rng = np.random.default_rng(0)
    rows = [{0: float(a), 1: float(b)} for a, b in rng.normal(size=(60, 2))]
    labels = [bool(i % 3 == 0) for i in range(60)]
    model = LASVM()
    SmallPoolSelection("active", pool=5, seed=0).run(model, rows, labels, max_steps=20)
    model.finish()
    model.decision_one(rows[0])


# ---- the methods --------------------------------------------------------------------------------


def _one_pass(model, train, labels, rng) -> None:
    """Random sampling (RS): one pass in a random order, then finishing."""
    for i in rng.permutation(len(train)):
        model.learn_one(train[i], labels[i])


def _run_svc(split, C, gamma) -> tuple[dict, np.ndarray]:
    from sklearn.svm import SVC

    X_train, y_train, X_test, _ = split
    start = time.process_time()
    svc = SVC(C=C, gamma=gamma, tol=TAU).fit(X_train, y_train)
    elapsed = time.process_time() - start
    n_sv = svc.n_support_
    row = {"cpu_seconds": round(elapsed, 3), "n_sv": int(n_sv.sum())}
    row |= {"n_sv_neg": int(n_sv[0]), "n_sv_pos": int(n_sv[1])}
    row["sv_ratio"] = round(n_sv[0] / n_sv[1], 3) if n_sv[1] else math.nan
    return row, svc.decision_function(X_test)


def _run_rs(method, data, C, gamma, rng, seed) -> tuple[dict, np.ndarray]:
    """Batch, SMOTE and DC: LASVM over the (resampled) training set in a random order."""
    train, labels, test = data
    start = time.process_time()
    synthetic: list[dict] = []
    class_weight = None
    if method == "SMOTE":
        from imbalance_stream.imblearn import smote

        extended, ext_labels = smote(train, labels, positive=True, k=5, v=1, seed=seed)
        synthetic = extended[len(train) :]
        train, labels = extended, ext_labels
    elif method == "DC":  # C+ / C- = the imbalance ratio (section 4.3)
        n_pos = sum(labels)
        class_weight = {True: (len(labels) - n_pos) / max(n_pos, 1)}
    model = LASVM(C=C, gamma=gamma, tau=TAU, class_weight=class_weight)
    _one_pass(model, train, labels, rng)
    unfinished, counted = _finish(model, synthetic)
    elapsed = time.process_time() - start - counted
    row = {"cpu_seconds": round(elapsed, 3), "n_learned": len(train)}
    return row | unfinished | _support(model, synthetic), _scores(model, test)


def _scores(model, test) -> np.ndarray:
    return np.array([model.decision_one(x) for x in test])


def _stop(params) -> SaturationStop | None:
    """The saturation stop (D-LASVM-48); ``stop = false`` learns until the pool is empty, as
    Algorithm 5.1 does before section 5.2.1 adds the early stop."""
    if not params.get("stop", True):
        return None
    return SaturationStop(int(params.get("window", 100)), float(params.get("tolerance", 0.01)))


def _run_selection(method, data, C, gamma, params, seed) -> tuple[dict, np.ndarray]:
    """AL (ACTIVE from a pool of 59, eq. 4.2) or VIRTUAL, stopped at saturation, then finished."""
    train, labels, test = data
    model = LASVM(C=C, gamma=gamma, tau=TAU)
    if method == "VIRTUAL":
        selector: SmallPoolSelection = Virtual(pool=59, k=5, v=1, seed=seed)
    else:
        selector = SmallPoolSelection("active", pool=59, seed=seed)
    start = time.process_time()
    run = selector.run(model, train, labels, stop=_stop(params))
    unfinished, counted = _finish(model, run.virtual)
    elapsed = time.process_time() - start - counted
    real = sum(1 for i in run.selected if i < len(train))
    row = {
        "cpu_seconds": round(elapsed, 3),
        "n_learned": len(run.selected),
        "data_efficiency": round(100.0 * real / len(train), 2),
        "stopped": run.stopped_at is not None,
    }
    return row | unfinished | _support(model, run.virtual), _scores(model, test)


def _run_us(data, C, gamma, ratio, rng, seed) -> tuple[dict, np.ndarray]:
    """US: River's RandomUnderSampler around LASVM, negatives kept at ``ratio`` per positive."""
    from river.imblearn import RandomUnderSampler

    train, labels, test = data
    share = 1.0 / (1.0 + ratio)
    sampler = RandomUnderSampler(
        LASVM(C=C, gamma=gamma, tau=TAU), {True: share, False: 1.0 - share}, seed=seed
    )
    start = time.process_time()
    _one_pass(sampler, train, labels, rng)
    sampler.classifier.finish()
    elapsed = time.process_time() - start
    model = sampler.classifier
    row = {"cpu_seconds": round(elapsed, 3), "n_learned": None, "us_ratio": round(ratio, 3)}
    return row | _support(model), _scores(model, test)


def _cell(cell: dict) -> list[dict]:
    """One (table, dataset, run, method); the AL cell also runs US when asked (its ratio)."""
    _warm_up()
    dataset, method, run, seed = cell["dataset"], cell["method"], cell["run"], cell["seed"]
    split = load_split(dataset, seed, run, cell.get("n_train"), cell.get("n_test"))
    X_train, y_train, X_test, y_test = split
    data = (as_dicts(X_train), y_train.tolist(), as_dicts(X_test))
    C, gamma = cell["C"], cell["gamma"]
    rng = np.random.default_rng([seed, run, 1])
    run_seed = int(rng.integers(2**31))
    head = {"table": cell["table"], "dataset": dataset, "run": run}
    head |= {"n_train": len(y_train), "n_pos": int(y_train.sum()), "n_test": len(y_test)}
    if method == "SVC":
        results = [("SVC", *_run_svc(split, C, gamma))]
    elif method in ("AL", "VIRTUAL"):
        results = [(method, *_run_selection(method, data, C, gamma, cell, run_seed))]
        ratio = results[0][1]["sv_ratio"]
        if method == "AL" and cell.get("with_us") and not math.isnan(ratio):
            results.append(("US", *_run_us(data, C, gamma, ratio, rng, run_seed)))
    else:
        results = [(method, *_run_rs(method, data, C, gamma, rng, run_seed))]
    return [
        {**head, "method": name, **_measures(scores, y_test), **row}
        for name, row, scores in results
    ]


# ---- tables -------------------------------------------------------------------------------------


def _cells(params, table, datasets, methods) -> list[dict]:
    runs, seed = params.get("runs", 1), int(params.get("seed", 2009))
    sizes = params.get("sizes", {})
    stop = {k: params[k] for k in ("window", "tolerance", "stop") if k in params}
    cells = []
    for dataset in datasets:
        family = dataset.split("-")[0] if dataset.startswith("waveform") else dataset
        C, gamma = SETTINGS[family]
        n_train, n_test = (list(sizes.get(family, [])) + [None, None])[:2]
        n_runs = int(runs.get(family, 1) if isinstance(runs, dict) else runs)
        for run in range(n_runs):
            for method in methods:
                if method == "US":
                    continue  # runs in the AL cell, at AL's ratio
                cells.append(
                    {"table": table, "dataset": dataset, "method": method, "run": run}
                    | {"seed": seed, "C": C, "gamma": gamma, "n_train": n_train, "n_test": n_test}
                    | {"with_us": "US" in methods}
                    | stop
                )
    return cells


def _mean(rows, key) -> float:
    values = [r[key] for r in rows if r.get(key) is not None and not _is_nan(r[key])]
    return round(float(np.mean(values)), 3) if values else math.nan


def _is_nan(value) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _summary(results, tables, quantities) -> list[dict]:
    """Mean (and standard deviation over runs, ``*_sd``) of each quantity for every (dataset,
    method), beside the thesis's value from ``tables`` of ``published_active.csv``."""
    published: dict = {}
    for table in tables:
        for key, methods in load_published(PUBLISHED).get(table, {}).items():
            for method, values in methods.items():
                published.setdefault(key, {}).setdefault(method, {}).update(values)
    rows = []
    for dataset, method in dict.fromkeys((r["dataset"], r["method"]) for r in results):
        runs = [r for r in results if r["dataset"] == dataset and r["method"] == method]
        paper = published.get(dataset, {}).get(method, {})
        row = {"dataset": dataset, "method": method, "runs": len(runs)}
        row |= {"n_train": runs[0]["n_train"], "n_pos": runs[0]["n_pos"]}
        for quantity in quantities:
            row[quantity] = _mean(runs, quantity)
            values = [r[quantity] for r in runs if isinstance(r.get(quantity), (int, float))]
            if len(values) > 1 and quantity in ("gmeans", "prbep", "auc"):
                row[f"{quantity}_sd"] = round(float(np.std(values, ddof=1)), 3)
            if quantity in paper:
                row[f"paper_{quantity}"] = paper[quantity]
        if "prbep_rank" in paper:
            row["paper_prbep_rank"] = paper["prbep_rank"]
        rows.append(row)
    return _with_ranks(rows, "prbep")


def _with_ranks(rows, quantity) -> list[dict]:
    """Table 4.5's competition ranks of ``quantity`` per dataset ("1224"; SVC left out)."""
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        group = [r for r in rows if r["dataset"] == dataset and r["method"] != "SVC"]
        for r in group:
            if not _is_nan(r.get(quantity, math.nan)):
                r[f"{quantity}_rank"] = 1 + sum(
                    1 for o in group if o.get(quantity, -math.inf) > r[quantity]
                )
    return rows


#: Table 5.2's columns, on the finished model (and the virtual share before finishing too).
SUPPORT = ("n_sv_pos", "n_sv_neg", "virtual_sv_fraction", "virtual_sv_fraction_unfinished")
QUANTITIES = (
    "gmeans",
    "auc",
    "prbep",
    "error",
    "cpu_seconds",
    "n_sv",
    "sv_ratio",
    "data_efficiency",
    "n_learned",
)


def _paired(results, rows, baseline: str, quantity: str = "gmeans") -> list[dict]:
    """Beside every method's row, its ``quantity`` minus ``baseline``'s on the same runs (the
    same split and order): mean, standard deviation, the runs won / tied / lost, and the
    two-sided p-value of Wilcoxon's signed-rank test over those runs (the test section 5.2.2
    applies over datasets; ties dropped, 1.0 when every run ties), since the spread between
    splits is larger than the difference the thesis reports."""
    from scipy.stats import wilcoxon

    paired = paired_runs(results, baseline)
    for row in rows:
        pairs = paired.get((row["dataset"], row["method"]), [])
        diffs = [r[quantity] - b[quantity] for r, b in pairs]
        if not diffs:
            continue
        name = f"{quantity}_minus_{baseline}"
        row[name] = round(float(np.mean(diffs)), 3)
        if len(diffs) > 1:
            row[f"{name}_sd"] = round(float(np.std(diffs, ddof=1)), 3)
        wins = (sum(d > 0 for d in diffs), sum(d == 0 for d in diffs), sum(d < 0 for d in diffs))
        row[f"{name}_runs"] = "/".join(str(n) for n in wins)
        untied = [d for d in diffs if d != 0]
        row[f"{name}_wilcoxon_p"] = round(float(wilcoxon(untied).pvalue), 4) if untied else 1.0
    return rows


def table4_3(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables 4.3, 4.4 and 4.5: Batch, US, SMOTE, DC and early-stopped AL (and ``SVC``) on
    ``datasets`` (default abalone-7, letter-a, satimage, mnist-8). Parameters (optional):
    ``datasets``, ``methods``, ``runs`` (or ``{dataset: runs}``), ``seed``, ``sizes``
    (``{dataset: [n_train, n_test]}``: subsamples of Satimage and MNIST-8), ``window`` and
    ``tolerance`` of the saturation stop (100, 0.01), ``stop`` (false: AL and VIRTUAL learn
    until their pool is empty)."""
    datasets = check_names(
        params.get("datasets", ("abalone-7", "letter-a", "satimage", "mnist-8")),
        ("abalone-7", "abalone-7-rings", "letter-a", "satimage", "mnist-8"),
        "datasets",
    )
    methods = check_names(
        params.get("methods", ("Batch", "SVC", "AL", "US", "SMOTE", "DC")), METHODS, "methods"
    )
    cells = _cells(params, "4.3", datasets, methods)
    results = run_cells(_cell, cells, n_jobs, scheduler, progress, "tables 4.3-4.5", out_dir)
    return _summary(results, ("4.3", "4.4", "4.5"), QUANTITIES)


def table5_3(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables 5.2 and 5.3 on the UCI rows: Batch, SMOTE, AL and VIRTUAL on ``datasets``
    (default abalone-7, breast, letter-a, satimage), each method's g-means also as a paired
    difference to SMOTE's (``gmeans_minus_SMOTE``); parameters as :func:`table4_3`."""
    datasets = check_names(
        params.get("datasets", ("abalone-7", "breast", "letter-a", "satimage")),
        ("abalone-7", "abalone-7-rings", "breast", "letter-a", "satimage"),
        "datasets",
    )
    methods = check_names(
        params.get("methods", ("Batch", "SMOTE", "AL", "VIRTUAL")), METHODS, "methods"
    )
    cells = _cells(params, "5.3", datasets, methods)
    results = run_cells(_cell, cells, n_jobs, scheduler, progress, "tables 5.2-5.3", out_dir)
    rows = _summary(results, ("5.2", "5.3"), (*QUANTITIES, *SUPPORT))
    return _paired(results, rows, "SMOTE") if "SMOTE" in methods else rows


def waveform_sweep(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Figs. 5.2 and 5.3: Batch, SMOTE, AL and VIRTUAL on Waveform with ``ratios`` (default 2,
    4, 8, 16, 32) negatives per training positive; ``sizes.waveform`` = [n_train, n_test]
    (default [4000, 1000]); other parameters as :func:`table4_3`."""
    ratios = [int(r) for r in params.get("ratios", (2, 4, 8, 16, 32))]
    methods = check_names(
        params.get("methods", ("Batch", "SMOTE", "AL", "VIRTUAL")), METHODS, "methods"
    )
    datasets = [f"waveform-{r}" for r in ratios]
    cells = _cells(params, "fig5.2", datasets, methods)
    results = run_cells(_cell, cells, n_jobs, scheduler, progress, "figs 5.2-5.3", out_dir)
    rows = _summary(results, (), (*QUANTITIES, *SUPPORT))
    return _paired(results, rows, "SMOTE") if "SMOTE" in methods else rows
