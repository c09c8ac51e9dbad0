"""Seed 003, chapters 3 and 6 of Ertekin (2009): LASVM against the batch SVM, and the non-convex
online SVMs.

* Table 3.2: LIBSVM (scikit-learn's ``SVC``, measured in the same run) against LASVM one pass
  plus finishing (LASVM x1): test error, support vectors, kernel evaluations, CPU seconds, on
  Waveform, Banana and Adult (a9a) with the settings of Table 3.1. The same runs give Table 3.3,
  the relative change of error, #SV and time from finishing (LASVM x1 before and after it).
  ``LASVMx1`` streams the pass through ``learn_one`` (each call a transaction);
  ``LASVMx1-offline`` makes the same pass with ``learn_epochs(epochs=1, shuffle=False)``, the
  offline mode of section 3.2.1 that Table 3.2 times: the same model, bit for bit, without the
  per-sample transaction.
* Figs. 3.1, 3.2, 3.4 and 3.5: the ten MNIST one-vs-rest tasks (error, time, #SV) for LIBSVM,
  LASVM x1, LASVM x2, AVGPERC x1 and AVGPERC x10, and the one-vs-rest multiclass error, on a
  seeded subsample of MNIST (D-LASVM-23).
* Tables 6.3 and 6.4: one pass of FULL SVM, LASVM-G, LASVM-NC and LASVM-I (s = -1, CLEAN every
  300) and LIBSVM: accuracy, #SV, training time, PRBEP, AUC, g-means and kernel evaluations, on
  Adult, Banana and MNIST-8 with the settings of Table 6.2; and, per training order, each
  method's accuracy difference and #SV ratio against LASVM-G's (the sparsity claim of Table 6.3).
* Table 6.1: after the same pass of FULL SVM and LASVM-G (and, not in the table, LASVM-NC and
  LASVM-I), the expansion's #SV and #non-SV, the samples admitted in each region of the Ramp and
  the members CLEAN removed from each (D-LASVM-53).

Every cell is one (table, dataset, run, method): a run draws its training order (and, for
Waveform and MNIST, its sample) from ``[seed, run]``. CPU seconds are the cell process's
(``time.process_time``), after numba compiled on a few rows; loading and test scoring are not
timed. Reuters, USPS, USPS+N, Forest and CiteSeer are not in the data home: their rows are left
out.
"""

from __future__ import annotations

import itertools
import math
import pathlib
import time

import numpy as np

from imbalance_stream._numba.lasvm import compact_store
from imbalance_stream.kernel import AveragedKernelPerceptron
from imbalance_stream.metrics.batch import binary_rates, prbep, roc_auc
from imbalance_stream.parallel import map_cells
from imbalance_stream.svm import LASVM, LASVMG, LASVMI, LASVMNC, FullSVM
from imbalance_stream.svm._gap import REGIONS
from reproduce.common.published import load_published
from reproduce.common.results import run_cells, write_rows
from reproduce.lasvm.figures import draw_mnist_ovr

__all__ = [
    "CH3_METHODS",
    "CH6_1_METHODS",
    "CH6_METHODS",
    "MNIST_METHODS",
    "as_dicts",
    "load_split",
    "mnist_ovr",
    "paired_runs",
    "table3_2",
    "table6_1",
    "table6_3",
]

PUBLISHED = pathlib.Path(__file__).resolve().parent / "published.csv"

#: (C, gamma, cache MB) of Table 3.1, and (C, gamma) of Table 6.2.
CH3_SETTINGS = {
    "waveform": (1.0, 0.05, 40.0),
    "banana": (316.0, 0.5, 40.0),
    "adult": (100.0, 0.005, 40.0),
    "mnist": (1000.0, 0.005, 256.0),
}
CH6_SETTINGS = {"adult": (100.0, 0.005), "banana": (10.0, 1.0), "mnist-8": (100.0, 0.001)}
TAU = 1e-3  # Table 3.1's tau, and LIBSVM's default stopping tolerance

CH3_METHODS = ("LIBSVM", "LASVMx1", "LASVMx1-offline")
MNIST_METHODS = ("LIBSVM", "LASVMx1", "LASVMx2", "AVGPERCx1", "AVGPERCx10")
CH6_METHODS = ("FULL SVM", "LASVM-G", "LASVM-NC", "LASVM-I", "LIBSVM")
#: Table 6.1's methods (the thesis's rows are FULL SVM and LASVM-G; LASVM-NC and LASVM-I have the
#: same bookkeeping).
CH6_1_METHODS = ("FULL SVM", "LASVM-G", "LASVM-NC", "LASVM-I")


# ---- data ---------------------------------------------------------------------------------------


def _standardise(X_train, X_test):
    mean, std = X_train.mean(0), X_train.std(0)
    std = np.where(std > 0, std, 1.0)
    return (X_train - mean) / std, (X_test - mean) / std


def _waveform(rng_seed, n_train, n_test):
    """4,000 + 1,000 fresh samples of the generator, standardised on the training part as the
    benchmark repository's copy is (D-LASVM-22)."""
    from imbalance_stream.datasets import Waveform

    X, y, _ = Waveform(n_samples=n_train + n_test, seed=rng_seed).to_numpy()
    X_train, X_test = _standardise(X[:n_train], X[n_train:])
    return X_train, y[:n_train], X_test, y[n_train:]


def _banana(rng, n_train):
    """River's Banana (the benchmark repository's 5,300 points), a random 4,000 / 1,300 split
    (D-LASVM-22)."""
    from river import datasets

    data = list(datasets.Bananas())
    X = np.array([[x[k] for k in sorted(x)] for x, _ in data])
    y = np.array([label for _, label in data], dtype=bool)
    order = rng.permutation(len(y))
    return X[order[:n_train]], y[order[:n_train]], X[order[n_train:]], y[order[n_train:]]


def _adult(rng, n_train):
    """a9a's training file (the first ``n_train`` rows) in a random order, its test file."""
    from imbalance_stream.datasets import A9A

    X, y, _ = A9A(split="train").to_numpy()
    X, y = np.asarray(X, float)[:n_train], np.asarray(y, bool)[:n_train]
    order = rng.permutation(len(y))
    X_test, y_test, _ = A9A(split="test").to_numpy()
    return X[order], y[order], np.asarray(X_test, float), np.asarray(y_test, bool)


def _mnist(rng, digit, n_train, n_test):
    """A seeded subsample of MNIST's training and test files (pixels in [0, 1]), the digit
    against the rest; the subsample does not depend on the digit, so the ten tasks share it."""
    from imbalance_stream.datasets import MNIST

    parts = []
    for split, n in (("train", n_train), ("test", n_test)):
        X, labels, _ = MNIST(split=split, positive_class=None).to_numpy()
        keep = np.sort(rng.permutation(len(labels))[:n]) if n < len(labels) else np.arange(n)
        keep = rng.permutation(keep)
        parts.append((np.asarray(X[keep], float) / 255.0, np.asarray(labels[keep]).astype(int)))
    (X_train, d_train), (X_test, d_test) = parts
    return X_train, d_train == digit, X_test, d_test == digit, d_test


def load_split(dataset: str, seed: int, run: int, n_train=None, n_test=None):
    """``(X_train, y_train, X_test, y_test, test_digits)`` of one run (``y`` boolean, positive
    True); ``test_digits`` is MNIST's test labels (None elsewhere). ``n_train`` / ``n_test``
    subsample (MNIST) or truncate (Adult's training rows); None keeps the thesis's sizes."""
    rng = np.random.default_rng([seed, run])
    if dataset == "waveform":
        return (*_waveform([seed, run], n_train or 4000, n_test or 1000), None)
    if dataset == "banana":
        return (*_banana(rng, n_train or 4000), None)
    if dataset == "adult":
        return (*_adult(rng, n_train or 32561), None)
    if dataset.startswith("mnist"):
        digit = int(dataset.split("-")[1])
        return _mnist(rng, digit, n_train or 60000, n_test or 10000)
    raise ValueError(f"unknown dataset {dataset!r}")


def as_dicts(X: np.ndarray) -> list[dict]:
    """Rows as sparse dicts (the nonzero features), as a stream would feed the model."""
    dicts = []
    for row in X:
        nonzero = np.flatnonzero(row)
        dicts.append(dict(zip(nonzero.tolist(), row[nonzero].tolist())))
    return dicts


# ---- one method on one split ------------------------------------------------------------------


def _scores(model, test_dicts) -> np.ndarray:
    return np.array([model.decision_one(x) for x in test_dicts])


def _measures(scores: np.ndarray, y_test: np.ndarray) -> dict:
    """Test error, accuracy, PRBEP, AUC and g-means of decision values (positive: f >= 0)."""
    predicted = scores >= 0.0
    accuracy = float(np.mean(predicted == y_test))
    return {
        "error": round(100.0 * (1.0 - accuracy), 3),
        "accuracy": round(100.0 * accuracy, 3),
        "prbep": round(100.0 * prbep(scores, y_test), 3),
        "auc": round(roc_auc(scores, y_test), 4),
        "gmeans": round(100.0 * binary_rates(y_test, predicted)["g_mean"], 3),
    }


def _warm_up() -> None:
    """Compile every jitted kernel before a timed run (numba also caches them on disk)."""
    rng = np.random.default_rng(0)
    rows = [{0: float(a), 1: float(b)} for a, b in rng.normal(size=(60, 2))]
    labels = [bool(i % 2) for i in range(60)]
    for model in (LASVM(), FullSVM(), LASVMG(), LASVMNC(), LASVMI()):
        for x, label in zip(rows, labels):
            model.learn_one(x, label)
        model.finish()
        model.decision_one(rows[0])
        if hasattr(model, "clean"):  # CLEAN runs every 300 samples, after the warm-up rows
            model.clean(0)
    # Compacting the sparse store runs only once removed members fill half of it, which a short
    # warm-up never reaches; compiled inside a timed pass (once per checkout: numba caches it on
    # disk), it added about 1.6 s to the first LASVM-NC cell of a run.
    compact_store(model._store, model._ints)
    LASVM(seed=0).learn_epochs(rows, labels, epochs=2)
    # AVGPERC's kernels are not LASVM's: compiled inside the first timed AVGPERC cell, they
    # tripled its CPU time.
    perceptron = AveragedKernelPerceptron()
    for x, label in zip(rows, labels):
        perceptron.learn_one(x, label)
    perceptron.predict_proba_one(rows[0])


def _run_svc(split, C, gamma, cache_mb) -> tuple[dict, np.ndarray]:
    from sklearn.svm import SVC

    X_train, y_train, X_test, _ = split[:4]
    start = time.process_time()
    svc = SVC(C=C, gamma=gamma, tol=TAU, cache_size=cache_mb).fit(X_train, y_train)
    elapsed = time.process_time() - start
    scores = svc.decision_function(X_test)
    return {"cpu_seconds": round(elapsed, 3), "n_sv": int(svc.n_support_.sum())}, scores


def _run_lasvm(
    split, C, gamma, cache_mb, epochs: int, seed: int, offline: bool = False
) -> tuple[dict, np.ndarray]:
    """LASVM x``epochs`` plus finishing; x1 is ``learn_one`` over the stream, or with
    ``offline`` one ``learn_epochs`` pass in the same order (the state before finishing recorded
    for Table 3.3 either way); x2 and more ``learn_epochs`` over the stored set."""
    X_train, y_train, X_test, y_test = split[:4]
    train, test, labels = as_dicts(X_train), as_dicts(X_test), y_train.tolist()
    model = LASVM(C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb, seed=seed)
    row: dict = {}
    start = time.process_time()
    if epochs == 1:
        if offline:
            model.learn_epochs(train, labels, epochs=1, shuffle=False)
        else:
            for x, label in zip(train, labels):
                model.learn_one(x, label)
        online = time.process_time() - start
        before = _scores(model, test)  # untimed
        row.update(
            pass_cpu_seconds=round(online, 3),
            pass_n_sv=model.n_support_,
            pass_error=_measures(before, y_test)["error"],
        )
        start = time.process_time() - online
    else:
        model.learn_epochs(train, labels, epochs=epochs)
    row["finishing_steps"] = model.finish()
    row["cpu_seconds"] = round(time.process_time() - start, 3)
    row.update(n_sv=model.n_support_, kernel_evaluations=model.n_kernel_evaluations_)
    return row, _scores(model, test)


def _run_avgperc(split, gamma, epochs: int, seed: int) -> tuple[dict, np.ndarray]:
    """AVGPERC x``epochs``: each epoch in a new random order of the training set."""
    X_train, y_train, X_test, _ = split[:4]
    train, test, labels = as_dicts(X_train), as_dicts(X_test), y_train.tolist()
    model = AveragedKernelPerceptron(gamma=gamma)
    rng = np.random.default_rng(seed)
    start = time.process_time()
    for epoch in range(epochs):
        order = range(len(train)) if epoch == 0 else rng.permutation(len(train))
        for i in order:
            model.learn_one(train[i], labels[i])
    elapsed = time.process_time() - start
    return {"cpu_seconds": round(elapsed, 3), "n_sv": model.n_support}, _scores(model, test)


_FAMILY = {"FULL SVM": FullSVM, "LASVM-G": LASVMG, "LASVM-NC": LASVMNC, "LASVM-I": LASVMI}


def _run_family(split, method, C, gamma, cache_mb) -> tuple[dict, np.ndarray]:
    """One pass (chapter 6: one epoch, no finishing) of a LASVM-G family member (D-LASVM-24)."""
    X_train, y_train, X_test, _ = split[:4]
    train, test, labels = as_dicts(X_train), as_dicts(X_test), y_train.tolist()
    model = _FAMILY[method](C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb)
    start = time.process_time()
    for x, label in zip(train, labels):
        model.learn_one(x, label)
    elapsed = time.process_time() - start
    row = {
        "cpu_seconds": round(elapsed, 3),
        "n_sv": model.n_support_,
        "kernel_evaluations": model.n_kernel_evaluations_,
        # the bookkeeping behind the #SV: samples LASVM-I's filter left out, samples LASVM-NC
        # admitted with beta = C, and samples whose REPROCESS loop stopped at its cap (D-LASVM-12);
        # and behind the time: REPROCESS steps, each O(members), beside the kernel evaluations
        "n_skipped": model.n_skipped_,
        "n_admitted_flat": model.n_admitted_flat_,
        "n_capped": model.n_capped_,
        "n_reprocess": model.n_reprocess_,
    }
    return row, _scores(model, test)


def _cell(cell: dict) -> dict:
    """One (table, dataset, run, method): the row of ``runs.csv`` (plus the test scores, for
    the multiclass combination of the MNIST tasks)."""
    _warm_up()
    dataset, method, run, seed = cell["dataset"], cell["method"], cell["run"], cell["seed"]
    split = load_split(dataset, seed, run, cell.get("n_train"), cell.get("n_test"))
    C, gamma, cache_mb = cell["C"], cell["gamma"], cell["cache_mb"]
    run_seed = int(np.random.default_rng([seed, run, 1]).integers(2**31))
    if method == "LIBSVM":
        row, scores = _run_svc(split, C, gamma, cache_mb)
    elif method.startswith("LASVMx"):
        epochs, offline = int(method[6:].removesuffix("-offline")), method.endswith("-offline")
        row, scores = _run_lasvm(split, C, gamma, cache_mb, epochs, run_seed, offline)
    elif method.startswith("AVGPERCx"):
        row, scores = _run_avgperc(split, gamma, int(method[8:]), run_seed)
    else:
        row, scores = _run_family(split, method, C, gamma, cache_mb)
    head = {"table": cell["table"], "dataset": dataset, "run": run, "method": method}
    head.update(n_train=len(split[1]), n_test=len(split[3]))
    return {**head, **_measures(scores, split[3]), **row, "scores": scores, "digits": split[4]}


# ---- tables -------------------------------------------------------------------------------------


def _cells(params, table, datasets, methods, settings) -> list[dict]:
    runs, seed = params.get("runs", 1), int(params.get("seed", 2009))
    sizes = params.get("sizes", {})
    cells = []
    for dataset in datasets:
        C, gamma, cache_mb = settings(dataset)
        family = dataset.split("-")[0]
        n_train, n_test = (list(sizes.get(family, [])) + [None, None])[:2]
        for run in _run_indices(runs.get(family, 1) if isinstance(runs, dict) else runs):
            for method in methods:
                cells.append(
                    {"table": table, "dataset": dataset, "method": method, "run": run}
                    | {"seed": seed, "C": C, "gamma": gamma, "cache_mb": cache_mb}
                    | {"n_train": n_train, "n_test": n_test}
                )
    return cells


def _run_indices(runs) -> list[int]:
    """The runs of one dataset: a count ``n`` means runs ``0 .. n-1``; a list names the runs
    (``[3, 4, 5]``), so that the orders of a long table can be split over several commands."""
    if isinstance(runs, list | tuple):
        return [int(run) for run in runs]
    return list(range(int(runs)))


def _execute(cells, out_dir, n_jobs, scheduler, progress, label) -> list[dict]:
    """Run the cells; write ``runs.csv`` without the score arrays; return the full rows."""
    results = map_cells(_cell, cells, n_jobs, scheduler, progress, label)
    if out_dir is not None:
        log = [{k: v for k, v in r.items() if k not in ("scores", "digits")} for r in results]
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    return results


def check_names(names, known, what) -> list[str]:
    """``names`` as a list, or a ValueError naming the unknown ones and the known."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ValueError(f"unknown {what} {unknown}; known: {', '.join(known)}")
    return list(names)


def _mean(rows, key) -> float:
    values = [r[key] for r in rows if key in r and r[key] is not None]
    return round(float(np.mean(values)), 3) if values else math.nan


def _summary(results, tables, quantities) -> list[dict]:
    """Mean of each quantity over the runs of every (dataset, method), beside the thesis's
    values in its ``tables``."""
    published: dict = {}
    for table in tables:
        for key, methods in load_published(PUBLISHED).get(table, {}).items():
            for method, values in methods.items():
                published.setdefault(key, {}).setdefault(method, {}).update(values)
    rows = []
    pairs = dict.fromkeys((r["dataset"], r["method"]) for r in results)
    for dataset, method in pairs:
        runs = [r for r in results if r["dataset"] == dataset and r["method"] == method]
        # the thesis's LASVM x1 is the offline pass (section 3.2.1)
        paper = published.get(dataset, {}).get(method.removesuffix("-offline"), {})
        row = {
            "dataset": dataset,
            "method": method,
            "runs": len(runs),
            "n_train": runs[0]["n_train"],
        }
        for quantity in quantities:
            row[quantity] = _mean(runs, quantity)
            if quantity in paper:
                row[f"paper_{quantity}"] = paper[quantity]
        rows.append(row)
    return rows


def _finishing_change(results) -> list[dict]:
    """Table 3.3: relative change (%) of error, #SV and time from finishing, LASVM x1 (streamed
    and offline: the same models, but the time of the pass differs)."""
    published = load_published(PUBLISHED).get("3.3", {})
    rows = []
    datasets = dict.fromkeys(r["dataset"] for r in results)
    for dataset, method in itertools.product(datasets, ("LASVMx1", "LASVMx1-offline")):
        runs = [r for r in results if r["dataset"] == dataset and r["method"] == method]
        if not runs:
            continue
        row = {"dataset": dataset, "method": f"{method} finishing", "runs": len(runs)}
        for name, after, before in (
            ("error_change", "error", "pass_error"),
            ("sv_change", "n_sv", "pass_n_sv"),
            ("time_change", "cpu_seconds", "pass_cpu_seconds"),
        ):
            changes = [100.0 * (r[after] - r[before]) / r[before] for r in runs if r[before]]
            row[name] = round(float(np.mean(changes)), 1) if changes else math.nan
            paper = published.get(dataset, {}).get("LASVMx1", {}).get(name)
            if paper is not None:
                row[f"paper_{name}"] = paper
        rows.append(row)
    return rows


def table3_2(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables 3.2 and 3.3: LIBSVM (``SVC``) against LASVM x1 on ``datasets`` (default
    waveform, banana, adult). Parameters (optional): ``datasets``, ``methods``, ``runs`` (1, or
    ``{dataset: runs}``; a list of run indices instead of a count), ``seed``, ``sizes``
    (``{dataset: [n_train, n_test]}``, e.g. fewer Adult rows). The means are followed by
    Table 3.3 and one row per LASVM against LIBSVM (``"LASVMx1 vs LIBSVM"``): error difference,
    time and #SV ratios, paired by training order."""
    datasets = check_names(
        params.get("datasets", ("waveform", "banana", "adult")), CH3_SETTINGS, "datasets"
    )
    methods = check_names(params.get("methods", CH3_METHODS), CH3_METHODS, "methods")
    cells = _cells(params, "3.2", datasets, methods, lambda d: CH3_SETTINGS[d])
    results = _execute(cells, out_dir, n_jobs, scheduler, progress, "tables 3.2-3.3")
    quantities = ("error", "n_sv", "kernel_evaluations", "cpu_seconds", "pass_error", "pass_n_sv")
    rows = _summary(results, ("3.2",), quantities) + _finishing_change(results)
    return rows + _against(results, "LIBSVM", "error", ("cpu_seconds", "n_sv"))


def _multiclass(results, digits) -> list[dict]:
    """Fig. 3.4: the one-vs-rest multiclass error (argmax of the ten decision values) of every
    method whose ten tasks all ran, per run; time is the sum over the ten tasks."""
    published = load_published(PUBLISHED).get("3.4", {}).get("mnist", {})
    rows = []
    for method in dict.fromkeys(r["method"] for r in results):
        errors, times = [], []
        for run in sorted({r["run"] for r in results}):
            tasks = {r["dataset"]: r for r in results if r["method"] == method and r["run"] == run}
            if len(tasks) < 10:
                continue
            scores = np.vstack([tasks[f"mnist-{d}"]["scores"] for d in range(10)])
            truth = tasks["mnist-0"]["digits"]
            errors.append(100.0 * float(np.mean(scores.argmax(axis=0) != truth)))
            times.append(sum(t["cpu_seconds"] for t in tasks.values()))
        if errors:
            paper = published.get(method, {})
            row = {"dataset": "mnist (10 classes)", "method": method, "runs": len(errors)}
            row |= {
                "error": round(float(np.mean(errors)), 3),
                "cpu_seconds": round(float(np.mean(times)), 1),
            }
            row |= {f"paper_{k}": v for k, v in paper.items()}
            rows.append(row)
    return rows


def mnist_ovr(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Figs. 3.1, 3.2, 3.4 and 3.5: the MNIST one-vs-rest tasks of ``digits`` (default all ten)
    for ``methods`` (default LIBSVM, LASVM x1 and x2, AVGPERC x1 and x10) on a subsample
    (``sizes.mnist`` = [n_train, n_test], default [4000, 2000]), and the multiclass error when all
    ten digits ran; with ``out_dir``, draws them as ``fig3_1.png``, ``fig3_2.png``, ``fig3_4.png``
    and ``fig3_5.png``."""
    digits = [int(d) for d in params.get("digits", range(10))]
    methods = check_names(params.get("methods", MNIST_METHODS), MNIST_METHODS, "methods")
    params = {**params, "sizes": {"mnist": params.get("sizes", {}).get("mnist", [4000, 2000])}}
    datasets = [f"mnist-{d}" for d in digits]
    cells = _cells(params, "3.4", datasets, methods, lambda d: CH3_SETTINGS["mnist"])
    results = _execute(cells, out_dir, n_jobs, scheduler, progress, "MNIST one-vs-rest")
    rows = _summary(results, (), ("error", "n_sv", "cpu_seconds")) + _multiclass(results, digits)
    if out_dir is not None:  # Figs. 3.1, 3.2, 3.4 and 3.5 as PNG files
        draw_mnist_ovr(rows, pathlib.Path(out_dir))
    return rows


def table6_3(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Tables 6.3 and 6.4: one pass of FULL SVM, LASVM-G, LASVM-NC and LASVM-I, and LIBSVM, on
    ``datasets`` (default adult, banana, mnist-8). Parameters (optional): ``datasets``,
    ``methods``, ``runs`` (10 in the thesis; 1 by default), ``seed``, ``sizes``, ``cache_mb``
    (40). The means are followed by one row per method against LASVM-G (``"LASVM-I vs
    LASVM-G"``): accuracy difference and #SV ratio, paired by training order."""
    datasets = check_names(params.get("datasets", tuple(CH6_SETTINGS)), CH6_SETTINGS, "datasets")
    methods = check_names(params.get("methods", CH6_METHODS), CH6_METHODS, "methods")
    cache_mb = float(params.get("cache_mb", 40.0))
    cells = _cells(params, "6.3", datasets, methods, lambda d: (*CH6_SETTINGS[d], cache_mb))
    results = _execute(cells, out_dir, n_jobs, scheduler, progress, "tables 6.3-6.4")
    quantities = ("accuracy", "n_sv", "cpu_seconds", "prbep", "auc", "gmeans", "kernel_evaluations")
    return _summary(results, ("6.3", "6.4"), quantities) + _against(
        results, "LASVM-G", "accuracy", ("n_sv",)
    )


# ---- Table 6.1: where the admitted samples lay on the Ramp, and what CLEAN removed ---------------

#: The suffix of a method's row measured after a final CLEAN that keeps no ``alpha = 0`` member
#: (the thesis's LASVM-G row holds none; D-LASVM-53).
FINAL_CLEAN = " + CLEAN(m=0)"
#: The counts of Table 6.1: totals, then by region of the Ramp.
TABLE6_1_COUNTS = (
    "n_sv",
    "n_non_sv",
    "admitted",
    "cleaned",
    *(f"{kind}_{region}" for kind in ("admitted", "cleaned", "sv", "non_sv") for region in REGIONS),
)


def _percent(part, whole) -> float:
    return round(100.0 * part / whole, 3) if whole else math.nan


def _table6_1_counts(model) -> dict:
    """Table 6.1's counts for a chapter 6 model: its expansion (#SV, #non-SV), the samples
    admitted and the members CLEAN removed, in total and by the Ramp region of their admission,
    and the support vectors and ``alpha = 0`` members by the same regions."""
    row = {
        "n_sv": model.n_support_,
        "n_non_sv": model.n_expansion_ - model.n_support_,
        "admitted": model.n_expansion_ + model.n_cleaned_,
        "cleaned": model.n_cleaned_,
    }
    for kind, counts in (
        ("admitted", model.n_admitted_by_region_),
        ("cleaned", model.n_cleaned_by_region_),
        ("sv", model.n_support_by_region_),
        ("non_sv", model.n_non_support_by_region_),
    ):
        row |= {f"{kind}_{region}": counts[region] for region in REGIONS}
    return row


def _table6_1_shares(counts: dict) -> dict:
    """The table's reading as percentages of ``counts`` (a row's, or the thesis's): each flat
    part's share of the admissions, and of the samples admitted there, the share that is a
    support vector and the share cleaned; only those the counts given allow."""
    shares = {}
    for region in ("left", "right"):
        admitted = counts.get(f"admitted_{region}")
        for name, part, whole in (
            ("share", admitted, counts.get("admitted")),
            ("sv_pct", counts.get(f"sv_{region}"), admitted),
            ("cleaned_pct", counts.get(f"cleaned_{region}"), admitted),
        ):
            if part is not None and whole is not None:
                shares[f"{region}_{name}"] = _percent(part, whole)
    return shares


def _table6_1_cell(cell: dict) -> list[dict]:
    """One pass of one method on one training order (chapter 6: no finishing, D-LASVM-24): its
    Table 6.1 counts at the end of the pass, and, for a method that cleans, again after a final
    CLEAN with ``m = 0``."""
    dataset, method, run = cell["dataset"], cell["method"], cell["run"]
    X_train, y_train = load_split(dataset, cell["seed"], run, cell["n_train"], cell["n_test"])[:2]
    model = _FAMILY[method](C=cell["C"], gamma=cell["gamma"], tau=TAU, cache_mb=cell["cache_mb"])
    for x, label in zip(as_dicts(X_train), y_train.tolist()):
        model.learn_one(x, label)
    head = {"table": "6.1", "dataset": dataset, "run": run, "n_train": len(y_train)}
    counts = _table6_1_counts(model)
    rows = [{**head, "method": method, **counts, **_table6_1_shares(counts)}]
    if model.clean_every:  # FULL SVM never cleans
        model.clean(0)
        counts = _table6_1_counts(model)
        rows.append({**head, "method": method + FINAL_CLEAN, **counts, **_table6_1_shares(counts)})
    return rows


def table6_1(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Table 6.1: after one pass of ``methods`` (default FULL SVM and LASVM-G, the table's; also
    LASVM-NC and LASVM-I) on ``datasets`` (default adult, the table's), the expansion's #SV and
    #non-SV, the samples admitted in the left (``z < s``) and right (``z > 1``) flat parts of
    the Ramp and on its slope, and how many of each CLEAN removed (s = -1; D-LASVM-53); means
    over the runs beside the thesis's counts. A method that cleans has a second row,
    ``"<method> + CLEAN(m=0)"``, after a final CLEAN that keeps no ``alpha = 0`` member.
    Parameters (optional): ``datasets``, ``methods``, ``runs`` (1 by default), ``seed``,
    ``sizes`` (``{dataset: [n_train]}``), ``cache_mb`` (40; it changes no count)."""
    datasets = check_names(params.get("datasets", ("adult",)), CH6_SETTINGS, "datasets")
    methods = check_names(params.get("methods", CH6_1_METHODS[:2]), CH6_1_METHODS, "methods")
    cache_mb = float(params.get("cache_mb", 40.0))
    cells = _cells(params, "6.1", datasets, methods, lambda d: (*CH6_SETTINGS[d], cache_mb))
    results = run_cells(_table6_1_cell, cells, n_jobs, scheduler, progress, "table 6.1", out_dir)
    published = load_published(PUBLISHED).get("6.1", {})
    rows = []
    for dataset, method in dict.fromkeys((r["dataset"], r["method"]) for r in results):
        runs = [r for r in results if r["dataset"] == dataset and r["method"] == method]
        paper = published.get(dataset, {}).get(method.removesuffix(FINAL_CLEAN), {})
        row = {"dataset": dataset, "method": method, "runs": len(runs)}
        row["n_train"] = runs[0]["n_train"]
        counts = {quantity: _mean(runs, quantity) for quantity in TABLE6_1_COUNTS}
        # the percentages of the mean counts, as the thesis's are of its counts
        paper = {**paper, **_table6_1_shares(paper)}  # a copy: the published table is cached
        for quantity, value in {**counts, **_table6_1_shares(counts)}.items():
            row[quantity] = value
            if quantity in paper:
                row[f"paper_{quantity}"] = paper[quantity]
        rows.append(row)
    return rows


#: the name of each ratio column of :func:`_against`
_RATIO_NAMES = {"n_sv": "sv_ratio", "cpu_seconds": "time_ratio"}


def paired_runs(results, baseline: str) -> dict[tuple[str, str], list[tuple[dict, dict]]]:
    """Every run of a method beside ``baseline``'s run on the same dataset and training order:
    ``{(dataset, method): [(row, baseline_row), ...]}`` in the order of ``results``, the baseline
    itself left out (the pairing of :func:`_against` and of the chapter 5 paired differences)."""
    base = {(r["dataset"], r["run"]): r for r in results if r["method"] == baseline}
    pairs: dict[tuple[str, str], list[tuple[dict, dict]]] = {}
    for r in results:
        if r["method"] != baseline and (r["dataset"], r["run"]) in base:
            pairs.setdefault((r["dataset"], r["method"]), []).append(
                (r, base[(r["dataset"], r["run"])])
            )
    return pairs


def _against(results, baseline: str, difference: str, ratios: tuple[str, ...]) -> list[dict]:
    """Paired by training order: for every method run beside ``baseline`` on the same order,
    its ``difference`` quantity minus the baseline's (points) and the ratio of each of
    ``ratios`` to the baseline's, as means and ranges over the orders (the thesis gives means
    only). Table 6.3's sparsity claim against LASVM-G; Table 3.2's a9a target against LIBSVM."""
    paired = paired_runs(results, baseline)
    rows = []
    for dataset in dict.fromkeys(r["dataset"] for r in results):
        for method in dict.fromkeys(r["method"] for r in results if r["dataset"] == dataset):
            pairs = paired.get((dataset, method))
            if not pairs:
                continue
            row = {"dataset": dataset, "method": f"{method} vs {baseline}", "runs": len(pairs)}
            columns = {f"{difference}_diff": [r[difference] - b[difference] for r, b in pairs]}
            for quantity in ratios:
                columns[_RATIO_NAMES[quantity]] = [r[quantity] / b[quantity] for r, b in pairs]
            for name, values in columns.items():
                row |= {
                    name: round(float(np.mean(values)), 3),
                    f"{name}_min": round(float(np.min(values)), 3),
                    f"{name}_max": round(float(np.max(values)), 3),
                }
            rows.append(row)
    return rows
