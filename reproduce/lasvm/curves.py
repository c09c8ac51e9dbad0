"""Seed 003, the figures of Ertekin (2009) that plot a measure over training, or over a setting.

* :func:`curves`: test measures at checkpoints while one method learns one training set, in data
  order (the LASVM-G family of chapter 6, LASVM, LASVM x1) or choosing its examples (RANDOM,
  GRADIENT, ACTIVE, AUTOACTIVE of section 3.3; AL, AL over the whole set, VIRTUAL of chapters 4
  and 5), on the set as it is or resampled (SMOTE, different costs). Figs. 3.8-3.12, 4.3, 4.5-4.7,
  4.9, 5.4, 5.6, 6.1, 6.2, 6.4-6.8.
* :func:`reprocess_sweep`: LASVM with REPROCESS repeated until ``delta < delta_max`` (Fig. 3.7).
* :func:`mnist_cache`: LIBSVM and LASVM x1 on the MNIST one-vs-rest tasks for several kernel
  cache sizes (Fig. 3.6), and their time against #SV (Fig. 3.3).

Every protocol returns table rows (means over runs) and, with ``out_dir``, writes ``runs.csv``
and draws the figures its ``figures`` parameter names as ``figX_Y.png`` (skipped silently when
matplotlib is missing). Times are the cell process's CPU seconds of learning (and of selection
and finishing), the test scoring left out.
"""

from __future__ import annotations

import copy
import pathlib
import time
from collections.abc import Callable

import numpy as np

from imbalance_stream.active import SaturationStop, SmallPoolSelection, Virtual
from imbalance_stream.metrics.batch import binary_rates, prbep, roc_auc
from imbalance_stream.parallel import map_cells
from imbalance_stream.svm import LASVM, LASVMG, LASVMI, LASVMNC, FullSVM
from reproduce.common.results import run_cells, write_rows
from reproduce.lasvm import active_protocol, protocol
from reproduce.lasvm.figures import plot_panels
from reproduce.lasvm.protocol import as_dicts

__all__ = ["METHODS", "curves", "mnist_cache", "reprocess_sweep"]

TAU = 1e-3

#: (C, gamma) when a set does not give its own: Table 3.1 for the chapter 3 sets, Table 6.2 for
#: the chapter 6 ones (``*-ch6``), Table 4.2 (and D-LASVM-43) for the chapter 4-5 ones.
SETTINGS = {
    "adult": (100.0, 0.005),
    "banana": (316.0, 0.5),
    "waveform": (1.0, 0.05),
    "mnist": (1000.0, 0.005),
    "adult-ch6": (100.0, 0.005),
    "banana-ch6": (10.0, 1.0),
    "mnist-ch6": (100.0, 0.001),
    **{name: value for name, value in active_protocol.SETTINGS.items() if name != "mnist-8"},
}

#: method name -> (model class, example selection); an optional " s=<value>" sets the Ramp's s.
METHODS = (
    "FULL SVM",
    "LASVM-G",
    "LASVM-NC",
    "LASVM-I",
    "LASVM",
    "RANDOM",
    "GRADIENT",
    "ACTIVE",
    "AUTOACTIVE",
    "RS",
    "AL",
    "AL-full",
    "VIRTUAL",
    "SMOTE",
    "DC",
    "LIBSVM",
)
_FAMILY = {"FULL SVM": FullSVM, "LASVM-G": LASVMG, "LASVM-NC": LASVMNC, "LASVM-I": LASVMI}


# ---- data ---------------------------------------------------------------------------------------


def set_name(spec: dict) -> str:
    """The label of a training set: its dataset, imbalance ratio and label noise."""
    name = spec["dataset"]
    if spec.get("ratio"):
        name += f" ratio {spec['ratio']:g}"
    if spec.get("noise"):
        name += f" noise {100 * spec['noise']:g}%"
    return name


def load_set(spec: dict, seed: int, run: int):
    """``(X_train, y_train, X_test, y_test)`` of one run of a set ``{"dataset", "n_train",
    "n_test", "ratio", "noise"}``: the split of :mod:`protocol` (banana, adult, waveform,
    mnist-<digit>) or of :mod:`active_protocol` (waveform-<ratio>, satimage, abalone-7, letter-a,
    breast); the test set subsampled to ``n_test``; the training positives randomly undersampled
    to ``ratio`` negatives per positive (section 4.3.4); a share ``noise`` of the training labels
    flipped (section 3.3.4.2)."""
    dataset = spec["dataset"].removesuffix("-ch6")
    n_train, n_test = spec.get("n_train"), spec.get("n_test")
    if dataset.startswith("waveform-") or dataset in active_protocol.TRAIN_SHARE:
        X, y, X_test, y_test = active_protocol.load_split(dataset, seed, run, n_train, n_test)
    elif dataset == "satimage":
        X, y, X_test, y_test = active_protocol.load_split(dataset, seed, run, n_train, None)
    else:
        X, y, X_test, y_test, _ = protocol.load_split(dataset, seed, run, n_train, n_test)
    rng = np.random.default_rng([seed, run, 7])
    if n_test and len(y_test) > n_test:
        keep = np.sort(rng.permutation(len(y_test))[:n_test])
        X_test, y_test = X_test[keep], y_test[keep]
    if spec.get("ratio"):
        positives = rng.permutation(np.flatnonzero(y))
        n_keep = max(1, int(round((~y).sum() / float(spec["ratio"]))))
        keep = np.sort(np.concatenate([np.flatnonzero(~y), positives[:n_keep]]))
        X, y = X[keep], y[keep]
    if spec.get("noise"):
        y = y ^ (rng.random(len(y)) < float(spec["noise"]))
    return X, np.asarray(y, bool), X_test, np.asarray(y_test, bool)


def _settings(spec: dict) -> tuple[float, float]:
    if "C" in spec:
        return float(spec["C"]), float(spec["gamma"])
    dataset = spec["dataset"]
    family = "mnist-ch6" if dataset == "mnist-8-ch6" else dataset
    if family not in SETTINGS:
        family = dataset.split("-")[0] + ("-ch6" if dataset.endswith("-ch6") else "")
    return SETTINGS[family]


# ---- measures -----------------------------------------------------------------------------------


def measures(scores: np.ndarray, y_test: np.ndarray) -> dict:
    """Test error, g-means, PRBEP (%) and AUC of decision values (positive: f >= 0)."""
    predicted = scores >= 0.0
    return {
        "error": round(100.0 * float(np.mean(predicted != y_test)), 3),
        "gmeans": round(100.0 * binary_rates(y_test, predicted)["g_mean"], 3),
        "prbep": round(100.0 * prbep(scores, y_test), 3),
        "auc": round(roc_auc(scores, y_test), 4),
    }


def _scores(model, test) -> np.ndarray:
    return np.array([model.decision_one(x) for x in test])


def duality_gap(model, seen: list[dict], labels: list[bool]) -> float:
    """``(J(theta) - G(alpha)) / n`` of a bias-free expansion (the chapter 6 family; the gap of
    eqs. 6.1 and 6.2, J as in eq. 6.6 with b = 0) over the ``n`` samples seen:
    ``J = 1/2 |w|^2 + C sum_i max(0, 1 - y_i f(x_i))`` and ``G = sum_s alpha_s y_s - 1/2 |w|^2``,
    with ``|w|^2 = sum_s alpha_s f(x_s)`` (Fig. 6.1)."""
    pairs = model.support_vectors_
    w2 = sum(alpha * model.decision_one(x) for x, alpha in pairs)
    dual = sum(abs(alpha) for _, alpha in pairs) - 0.5 * w2
    signs = np.where(np.asarray(labels) == model.positive, 1.0, -1.0)
    margins = signs * _scores(model, seen)
    primal = 0.5 * w2 + float(model.C) * float(np.maximum(0.0, 1.0 - margins).sum())
    return (primal - dual) / max(len(seen), 1)


# ---- one method over one training set, measured at checkpoints ---------------------------------


def _parse(method: str) -> tuple[str, float | None]:
    """``"LASVM-NC s=-0.5"`` -> ``("LASVM-NC", -0.5)``."""
    base, _, rest = method.partition(" s=")
    if base not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    return base, float(rest) if rest else None


def _model(base: str, s, C, gamma, class_weight=None):
    if base in _FAMILY:
        extra = {"s": s} if s is not None else {}
        return _FAMILY[base](C=C, gamma=gamma, tau=TAU, class_weight=class_weight, **extra)
    return LASVM(C=C, gamma=gamma, tau=TAU, class_weight=class_weight)


def _selector(base: str, n: int, seed: int) -> SmallPoolSelection:
    """The example selection of a method: data order for the chapter 6 family and LASVM (a pool
    of one that never draws: the ``random`` strategy over the examples in order is not data
    order, so they bypass it, see :func:`_learn`)."""
    if base == "VIRTUAL":
        return Virtual(pool=59, k=5, v=1, seed=seed)
    strategy = {"GRADIENT": "gradient", "ACTIVE": "active", "AUTOACTIVE": "autoactive"}
    if base in strategy:
        return SmallPoolSelection(strategy[base], pool=50, seed=seed)
    if base == "AL":
        return SmallPoolSelection("active", pool=59, seed=seed)
    if base == "AL-full":  # the traditional active learner: the whole set is the pool
        return SmallPoolSelection("active", pool=n, seed=seed)
    return SmallPoolSelection("random", seed=seed)


def _grid(n: int, count: int) -> list[int]:
    """``count`` checkpoints from 20 samples to ``n``, denser at the start (geometric)."""
    return sorted({int(round(v)) for v in np.geomspace(min(20, n), n, count)})


class _Recorder:
    """The callback of a run: at each checkpoint (samples learned so far), the model measured on
    the test set (a finished copy when ``finish``), its #SV and kernel evaluations, the CPU
    seconds of learning so far (measuring left out), the duality gap when asked; and the
    saturation point of section 4.2.3 (the run is not stopped there)."""

    def __init__(self, test, y_test, checkpoints, finish, gap_data=None, keep_scores_at=()):
        self.test, self.y_test = test, y_test
        self.checkpoints = set(checkpoints)
        self.finish, self.gap_data = finish, gap_data
        self.keep_scores_at = set(keep_scores_at)
        self.keep_at_stop = False
        self.rows: list[dict] = []
        self.scores: dict[int, np.ndarray] = {}
        self.stop = SaturationStop()
        self.stopped_at: int | None = None
        self.stop_cpu: float | None = None  # CPU seconds of learning until saturation
        self.offset = 0  # samples learned before the first callback (the seeds)
        self.start = time.process_time()
        self.excluded = 0.0

    def __call__(self, t: int, model) -> None:
        n_seen = t + self.offset
        fired = self.stopped_at is None and self.stop.update(model.n_support_)
        if fired:
            self.stopped_at = n_seen
            self.stop_cpu = time.process_time() - self.start - self.excluded
        keep = n_seen in self.keep_scores_at or (fired and self.keep_at_stop)
        if n_seen in self.checkpoints or keep:
            self.measure(n_seen, model, keep=keep)

    def measure(self, n_seen: int, model, finished: bool | None = None, keep=False) -> None:
        now = time.process_time()
        cpu = now - self.start - self.excluded
        finish = self.finish if finished is None else finished
        measured = model
        if finish:
            measured = copy.deepcopy(model)
            measured.finish()
        scores = _scores(measured, self.test)
        if keep:
            self.scores[n_seen] = scores
        row = {"n_seen": n_seen, "cpu_seconds": round(cpu, 3), **measures(scores, self.y_test)}
        row |= {"n_sv": measured.n_support_, "kernel_evaluations": model.n_kernel_evaluations_}
        if self.gap_data is not None:
            seen, labels = self.gap_data
            row["gap"] = round(duality_gap(model, seen[:n_seen], labels[:n_seen]), 5)
        if n_seen in self.checkpoints or finished is not None:
            self.rows.append(row)
        self.excluded += time.process_time() - now


def _learn(method, data, C, gamma, cell, seed, keep_scores_at=()) -> tuple[list[dict], _Recorder]:
    """One method over one training set; its rows (one per checkpoint) and the recorder."""
    base, s = _parse(method)
    train, labels, test, y_test = data
    class_weight = None
    if base == "SMOTE":
        from imbalance_stream.imblearn import smote

        start = time.process_time()
        train, labels = smote(train, labels, positive=True, k=5, v=1, seed=seed)
        preprocessing = time.process_time() - start
    else:
        preprocessing = 0.0
    if base == "DC":  # C+ / C- = the imbalance ratio (section 4.3)
        class_weight = {True: (len(labels) - sum(labels)) / max(sum(labels), 1)}
    model = _model(base, s, C, gamma, class_weight)
    finish = cell.get("finish", "never")
    checkpoints = _grid(len(train), int(cell.get("checkpoints", 12)))
    gap = (train, labels) if method in cell.get("gap", ()) else None
    keep = {len(train), *keep_scores_at} if cell.get("roc") else set()
    recorder = _Recorder(test, y_test, checkpoints, finish == "checkpoints", gap, keep)
    recorder.keep_at_stop = bool(cell.get("roc")) and base == "AL"
    recorder.start -= preprocessing
    if base in _FAMILY or base == "LASVM":  # one pass in data order (the split's random order)
        for t, (x, label) in enumerate(zip(train, labels), start=1):
            model.learn_one(x, label)
            recorder(t, model)
    else:
        selector = _selector(base, len(train), seed)
        recorder.offset = sum(min(selector.n_seed, labels.count(v)) for v in (True, False))
        done = len(selector.run(model, train, labels, callback=recorder).selected)
        if done not in recorder.checkpoints:  # VIRTUAL learns more than the real examples
            recorder.checkpoints.add(done)
            recorder.measure(done, model)
    n_seen = recorder.rows[-1]["n_seen"] if recorder.rows else len(train)
    if finish == "end" and base not in _FAMILY:  # the chapter 6 family is never finished
        model.finish()  # timed: the recorder's clock runs
        recorder.measure(n_seen, model, finished=False)
        recorder.rows[-1]["finished"] = True
    if base not in _FAMILY and base != "LASVM":  # the saturation point of a selection
        for row in recorder.rows:
            row["stopped_at"] = recorder.stopped_at
            row["stop_cpu_seconds"] = recorder.stop_cpu and round(recorder.stop_cpu, 3)
    return recorder.rows, recorder


def _libsvm(split, C, gamma) -> dict:
    from sklearn.svm import SVC

    X, y, X_test, y_test = split
    start = time.process_time()
    svc = SVC(C=C, gamma=gamma, tol=TAU, cache_size=40).fit(X, y)
    cpu = time.process_time() - start
    row = {"n_seen": len(y), "cpu_seconds": round(cpu, 3), "n_sv": int(svc.n_support_.sum())}
    return row | measures(svc.decision_function(X_test), y_test)


def _curve_cell(cell: dict) -> list[dict]:
    """One (set, run): every method in turn, each measured at its checkpoints. The methods after
    AL also keep their test scores at AL's saturation point (Fig. 4.7's ROC curves)."""
    protocol._warm_up()
    spec, run, seed = cell["set"], cell["run"], cell["seed"]
    split = load_set(spec, seed, run)
    C, gamma = _settings(spec)
    data = (as_dicts(split[0]), split[1].tolist(), as_dicts(split[2]), split[3])
    head = {"set": set_name(spec), "run": run, "n_train": len(split[1])}
    head["n_pos"] = int(split[1].sum())
    run_seed = int(np.random.default_rng([seed, run, 1]).integers(2**31))
    out, stop_n = [], None
    for method in cell["methods"]:
        if method == "LIBSVM":
            out.append({**head, "method": method, **_libsvm(split, C, gamma), "finished": True})
            continue
        keep = (stop_n,) if stop_n else ()
        rows, recorder = _learn(method, data, C, gamma, cell, run_seed, keep)
        if method == "AL":
            stop_n = recorder.stopped_at
        out.extend({**head, "method": method, **row} for row in rows)
        for n_seen, scores in recorder.scores.items():
            roc = "end" if n_seen == len(data[1]) and method != "VIRTUAL" else "stop"
            out.append(
                {**head, "method": method, "n_seen": n_seen, "roc": roc}
                | measures(scores, split[3])
                | {"scores": scores, "labels": split[3]}
            )
    return out


def _sets(params) -> list[dict]:
    sets = params.get("sets") or [{"dataset": d} for d in params.get("datasets", ["banana"])]
    default = params.get("sizes", {})
    return [{**dict(zip(("n_train", "n_test"), default.get(s["dataset"], []))), **s} for s in sets]


def curves(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Test measures at checkpoints over training for ``methods`` (see :data:`METHODS`; a
    chapter 6 method may carry ``" s=<value>"``) on ``sets`` (a list of ``{dataset, n_train,
    n_test, ratio, noise, C, gamma}``; or ``datasets`` with ``sizes``), ``runs`` runs each.
    ``finish``: ``"never"`` (chapter 6), ``"end"`` (a finished model at the end only) or
    ``"checkpoints"`` (every checkpoint measured on a finished copy, section 3.3.4);
    ``checkpoints``: how many (geometric, from 20 samples); ``gap``: the methods whose duality
    gap is recorded (Fig. 6.1); ``figures``: the figures to draw (keys of :data:`FIGURES`).
    Returns the means over runs per (set, method, checkpoint)."""
    methods = list(params.get("methods", ["RANDOM", "ACTIVE"]))
    for method in methods:
        _parse(method) if method != "LIBSVM" else None
    seed = int(params.get("seed", 2009))
    cells = [
        {"set": spec, "run": run, "seed": seed, "methods": methods}
        | {k: params[k] for k in ("finish", "checkpoints", "gap", "roc") if k in params}
        for spec in _sets(params)
        for run in range(int(params.get("runs", 1)))
    ]
    results = run_cells(_curve_cell, cells, n_jobs, scheduler, progress, "curves", None)
    log = [{k: v for k, v in r.items() if k not in ("scores", "labels")} for r in results]
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    rows = _mean_curves(log)
    if out_dir is not None:
        draw(params.get("figures", ()), rows, results, pathlib.Path(out_dir))
    return rows


#: the measures averaged over runs
QUANTITIES = ("n_seen", "cpu_seconds", "error", "gmeans", "prbep", "auc", "n_sv")
MORE = ("kernel_evaluations", "gap", "stopped_at", "stop_cpu_seconds")


def _mean_curves(log: list[dict]) -> list[dict]:
    """Means over runs per (set, method, checkpoint index; the finished end and the scores
    kept at AL's stop apart)."""
    groups: dict[tuple, list[dict]] = {}
    counters: dict[tuple, int] = {}
    for r in log:
        kind = f"roc-{r['roc']}" if r.get("roc") else "end" if r.get("finished") else "curve"
        key = (r["set"], r["method"], r["run"], kind)
        index = counters.get(key, 0)
        counters[key] = index + 1
        groups.setdefault((r["set"], r["method"], kind, index), []).append(r)
    rows = []
    for (name, method, kind, index), runs in groups.items():
        row = {"set": name, "method": method, "point": kind, "index": index, "runs": len(runs)}
        for quantity in QUANTITIES + MORE:
            values = [r[quantity] for r in runs if r.get(quantity) is not None]
            if values:
                row[quantity] = round(float(np.mean(values)), 4)
        rows.append(row)
    return rows


# ---- Fig. 3.7: REPROCESS repeated until delta < delta_max ---------------------------------------


def _epochs(model: LASVM, X, y, epochs: int, delta_max: float | None) -> None:
    """:meth:`LASVM.learn_epochs` (offline mode, shuffled epochs), with REPROCESS repeated after
    each online iteration until ``delta <= delta_max`` (section 3.2.4.1): the finishing step run
    with ``tau = delta_max``, which steps on the maximal violating pair while its gap exceeds
    ``delta_max`` (called with the pass's ``in_expansion`` flags, which :meth:`LASVM.finish`
    does not have in the middle of a pass). None: the unmodified iterations."""
    if delta_max is None:
        model.learn_epochs(X, y, epochs=epochs)
        return
    signs, negative = model._signs_of(list(y))
    if negative is not None:
        model._negative = negative
    encoded = [model._encode_growing(x) for x in X]
    in_expansion = np.zeros(len(X), dtype=np.bool_)
    model._model.key[: model.n_expansion_] = -1.0
    rng = np.random.default_rng(model.seed)
    for _ in range(epochs):
        for key in rng.permutation(len(X)):
            model._learn_stored(encoded[key], signs[key], int(key), in_expansion)
            if model.delta_ > delta_max:  # the finishing loop, with this pass's own flags
                model._finish(float(delta_max), model._finish_limit(None), in_expansion)
    model._model.key[: model.n_expansion_] = -1.0


def _reprocess_cell(cell: dict) -> list[dict]:
    protocol._warm_up()
    spec, run, seed = cell["set"], cell["run"], cell["seed"]
    split = load_set(spec, seed, run)
    C, gamma = _settings(spec)
    train, labels, test = as_dicts(split[0]), split[1].tolist(), as_dicts(split[2])
    head = {"set": set_name(spec), "run": run, "n_train": len(labels)}
    if cell["delta_max"] == "LIBSVM":
        return [{**head, "delta_max": None, "variant": "LIBSVM", **_libsvm(split, C, gamma)}]
    out = []
    run_seed = int(np.random.default_rng([seed, run, 1]).integers(2**31))
    for epochs in (1, 2):
        model = LASVM(C=C, gamma=gamma, tau=TAU, cache_mb=40.0, seed=run_seed)
        start = time.process_time()
        _epochs(model, train, labels, epochs, cell["delta_max"])
        cpu = time.process_time() - start
        variants = [(f"x{epochs} finished", True)]
        if epochs == 1:
            variants.insert(0, ("x1 not finished", False))
        for variant, finished in variants:
            if finished:
                start = time.process_time()
                model.finish()
                cpu += time.process_time() - start
            row = {"delta_max": cell["delta_max"], "variant": variant, "cpu_seconds": cpu}
            row |= {"n_sv": model.n_support_} | measures(_scores(model, test), split[3])
            out.append({**head, **row})
    return out


def reprocess_sweep(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 3.7: test error, CPU seconds and #SV against ``delta_max`` (list; REPROCESS repeated
    after each online iteration until ``delta <= delta_max``) after one epoch without finishing
    and one or two epochs with it, beside LIBSVM; on ``sets`` (default Banana), ``runs`` runs."""
    seed = int(params.get("seed", 2009))
    deltas = [float(d) for d in params.get("delta_max", [0.01, 0.1, 1.0, 3.0, 10.0, 100.0])]
    cells = [
        {"set": spec, "run": run, "seed": seed, "delta_max": delta}
        for spec in _sets(params)
        for run in range(int(params.get("runs", 1)))
        for delta in [*deltas, "LIBSVM"]
    ]
    log = run_cells(_reprocess_cell, cells, n_jobs, scheduler, progress, "fig 3.7", out_dir)
    rows = []
    for key in dict.fromkeys((r["set"], r["variant"], r["delta_max"]) for r in log):
        runs = [r for r in log if (r["set"], r["variant"], r["delta_max"]) == key]
        row = {"set": key[0], "variant": key[1], "delta_max": key[2], "runs": len(runs)}
        for quantity in ("error", "cpu_seconds", "n_sv"):
            row[quantity] = round(float(np.mean([r[quantity] for r in runs])), 3)
        rows.append(row)
    if out_dir is not None:
        draw(params.get("figures", ["3.7"]), rows, log, pathlib.Path(out_dir))
    return rows


# ---- Figs. 3.3 and 3.6: the MNIST tasks over kernel cache sizes --------------------------------


def mnist_cache(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Fig. 3.6: CPU seconds of LIBSVM and LASVM x1 on the MNIST one-vs-rest tasks of ``digits``
    for each of ``cache_mb`` (list), relative to LIBSVM with the largest cache and averaged over
    the digits; and Fig. 3.3: their CPU seconds against #SV per digit, at the largest cache.
    ``sizes.mnist`` = [n_train, n_test] (default [2000, 1000])."""
    digits = [int(d) for d in params.get("digits", range(10))]
    caches = sorted(float(c) for c in params.get("cache_mb", [1, 2, 4, 8, 16, 32, 256]))
    n_train, n_test = params.get("sizes", {}).get("mnist", [2000, 1000])
    C, gamma, _ = protocol.CH3_SETTINGS["mnist"]
    cells = [
        {"table": "3.6", "dataset": f"mnist-{d}", "method": method, "run": 0}
        | {"seed": int(params.get("seed", 2009)), "C": C, "gamma": gamma, "cache_mb": cache}
        | {"n_train": n_train, "n_test": n_test}
        for d in digits
        for cache in caches
        for method in ("LIBSVM", "LASVMx1-offline")
    ]
    results = map_cells(protocol._cell, cells, n_jobs, scheduler, progress, "fig 3.6")
    log = []
    for cell, r in zip(cells, results):
        keep = ("dataset", "method", "cpu_seconds", "n_sv", "error", "kernel_evaluations")
        log.append({"cache_mb": cell["cache_mb"], **{k: r.get(k) for k in keep}})
    reference = {
        r["dataset"]: r["cpu_seconds"]
        for r in log
        if r["cache_mb"] == caches[-1] and r["method"] == "LIBSVM"
    }
    for r in log:
        r["relative_time"] = round(r["cpu_seconds"] / reference[r["dataset"]], 4)
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    rows = []
    for method in ("LIBSVM", "LASVMx1-offline"):
        for cache in caches:
            mine = [r for r in log if r["method"] == method and r["cache_mb"] == cache]
            rows.append(
                {"method": method, "cache_mb": cache, "digits": len(mine)}
                | {"relative_time": round(float(np.mean([r["relative_time"] for r in mine])), 4)}
                | {"cpu_seconds": round(float(np.mean([r["cpu_seconds"] for r in mine])), 3)}
                | {"kernel_evaluations": _mean_or_none(mine, "kernel_evaluations")}
            )
    if out_dir is not None:
        draw(params.get("figures", ["3.3", "3.6"]), rows, log, pathlib.Path(out_dir))
    return rows


def _mean_or_none(rows, key):
    values = [r[key] for r in rows if r.get(key) is not None]
    return round(float(np.mean(values)), 1) if values else None


# ---- the figures --------------------------------------------------------------------------------


def _series(rows, name, method, x, y, point="curve") -> tuple[list, list]:
    mine = [
        r
        for r in rows
        if r["set"] == name and r["method"] == method and r["point"] in (point, "end")
    ]
    mine = [r for r in mine if r.get(x) is not None and r.get(y) is not None]
    return [r[x] for r in mine], [r[y] for r in mine]


def _sets_of(rows) -> list[str]:
    return list(dict.fromkeys(r["set"] for r in rows if "set" in r))


def _methods_of(rows, name=None) -> list[str]:
    return list(dict.fromkeys(r["method"] for r in rows if name is None or r["set"] == name))


def _libsvm_line(rows, name, y) -> list[tuple[float, str]]:
    mine = [r for r in rows if r["set"] == name and r["method"] == "LIBSVM" and r.get(y)]
    return [(mine[0][y], "LIBSVM")] if mine else []


def _stop_line(rows, name, method="AL") -> list[tuple[float, str]]:
    mine = [r for r in rows if r["set"] == name and r["method"] == method and r.get("stopped_at")]
    return [(mine[0]["stopped_at"], "saturation (mean)")] if mine else []


def _curve_panels(rows, y, ylabel, x="n_seen", xlabel="training instances seen", **extra):
    """One panel per set: ``y`` against ``x`` for every method (LIBSVM as a dashed line)."""
    panels = []
    for name in _sets_of(rows):
        lines = [
            (method, *_series(rows, name, method, x, y))
            for method in _methods_of(rows, name)
            if method != "LIBSVM"
        ]
        lines = [line for line in lines if line[1]]  # methods without this measure left out
        panel = {"title": name, "xlabel": xlabel, "ylabel": ylabel, "lines": lines}
        panel["hlines"] = _libsvm_line(rows, name, y) if extra.get("libsvm", True) else []
        if extra.get("stop"):
            panel["vlines"] = _stop_line(rows, name)
        panel["xscale"] = extra.get("xscale", "linear")
        panels.append(panel)
    return panels


def _end_points(rows, y, x="n_sv"):
    """One panel per set: each method's point at the end of training; the s values of one Ramp
    method joined by a line in the order of s (Fig. 6.5)."""
    panels = []
    for name in _sets_of(rows):
        lines: dict[str, list[tuple[float, float, float]]] = {}
        for method in _methods_of(rows, name):
            mine = [r for r in rows if r["set"] == name and r["method"] == method]
            end = [r for r in mine if r["point"] == "curve"][-1:] or mine[-1:]
            base, s = _parse(method) if method != "LIBSVM" else ("LIBSVM", None)
            lines.setdefault(base, []).append((s or 0.0, end[0][x], end[0][y]))
        drawn = [(label, *zip(*sorted(points))) for label, points in lines.items()]
        panels.append(
            {"title": name, "xlabel": "support vectors", "ylabel": "test error (%)"}
            | {"lines": [(label, list(xs), list(ys)) for label, _, xs, ys in drawn]}
        )
    return panels


def _bars(rows, y, ylabel, title_of=lambda name: name):
    """One panel: ``y`` at the end of training, methods grouped by set."""
    groups: dict[str, dict[str, float]] = {}
    for name in _sets_of(rows):
        for method in _methods_of(rows, name):
            mine = [r for r in rows if r["set"] == name and r["method"] == method]
            end = [r for r in mine if r["point"] != "stop"]
            if end and end[-1].get(y) is not None:
                groups.setdefault(method, {})[title_of(name)] = end[-1][y]
    return {"title": "", "xlabel": "", "ylabel": ylabel, "bars": groups}


def _roc_panels(rows, log):
    """Fig. 4.7: ROC of AL at its saturation point, of RS at the same number of instances, and
    of RS after all the data (the test scores of every run pooled)."""
    from sklearn.metrics import roc_curve

    panels = []
    for name in _sets_of(rows):
        lines = []
        for method, kind, label in (
            ("AL", "stop", "AL (saturation)"),
            ("RS", "stop", "RS (stopped at AL's count)"),
            ("RS", "end", "RS (all data)"),
        ):
            picked = [
                r
                for r in log
                if r["set"] == name and r["method"] == method and r.get("roc") == kind
            ]
            if not picked:
                continue
            fpr, tpr, _ = roc_curve(
                np.concatenate([r["labels"] for r in picked]),
                np.concatenate([r["scores"] for r in picked]),
            )
            auc = np.mean([r["auc"] for r in picked])
            lines.append((f"{label}, AUC {auc:.4f}", list(fpr), list(tpr)))
        panels.append(
            {"title": name, "xlabel": "false positive rate", "ylabel": "true positive rate"}
            | {"lines": lines}
        )
    return panels


def _fig3_7(rows, log):
    panels = []
    for y, label in (("error", "test error (%)"), ("cpu_seconds", "CPU s"), ("n_sv", "#SV")):
        lines = []
        for variant in dict.fromkeys(r["variant"] for r in rows if r["variant"] != "LIBSVM"):
            mine = [r for r in rows if r["variant"] == variant]
            lines.append((variant, [r["delta_max"] for r in mine], [r[y] for r in mine]))
        libsvm = [(r[y], "LIBSVM") for r in rows if r["variant"] == "LIBSVM"]
        panels.append(
            {"title": label, "xlabel": "delta_max", "ylabel": label, "lines": lines}
            | {"hlines": libsvm, "xscale": "log"}
        )
    return panels


def _fig3_3(rows, log):
    largest = max(r["cache_mb"] for r in log)
    points = []
    for method in ("LIBSVM", "LASVMx1-offline"):
        mine = [r for r in log if r["method"] == method and r["cache_mb"] == largest]
        points.append((method, [r["n_sv"] for r in mine], [r["cpu_seconds"] for r in mine]))
    return [
        {"title": f"MNIST one-vs-rest, cache {largest:g} MB", "xlabel": "support vectors"}
        | {"ylabel": "CPU s", "points": points}
    ]


def _fig3_6(rows, log):
    lines = []
    for method in ("LIBSVM", "LASVMx1-offline"):
        mine = [r for r in rows if r["method"] == method]
        lines.append((method, [r["cache_mb"] for r in mine], [r["relative_time"] for r in mine]))
    return [
        {"title": "time relative to LIBSVM with the largest cache, mean over digits"}
        | {"xlabel": "kernel cache (MB)", "ylabel": "relative CPU time", "lines": lines}
        | {"xscale": "log", "hlines": [(1.0, "LIBSVM, largest cache")]}
    ]


def _fig3_12(rows, log):
    return [
        _bars(rows, "error", "test error (%)", lambda n: n.replace("mnist-8", "")),
        _bars(rows, "n_sv", "support vectors", lambda n: n.replace("mnist-8", "")),
    ]


def _curves_of(*specs) -> Callable:
    """A figure of curves: for each ``(y, ylabel, options)`` of ``specs``, one panel per set
    (:func:`_curve_panels`)."""

    def build(rows, log):
        return [p for y, label, options in specs for p in _curve_panels(rows, y, label, **options)]

    return build


ERROR = ("error", "test error (%)", {})
ERROR_CPU = ("error", "test error (%)", {"x": "cpu_seconds", "xlabel": "CPU seconds"})
ERROR_SV = ("error", "test error (%)", {"x": "n_sv", "xlabel": "support vectors"})
SV = ("n_sv", "support vectors", {})
GMEANS = ("gmeans", "g-means (%)", {})
PRBEP = ("prbep", "PRBEP (%)", {})
STOP = {"stop": True}

FIGURES: dict[str, tuple[str, Callable]] = {
    "3.3": ("Fig. 3.3: training time against #SV", _fig3_3),
    "3.6": ("Fig. 3.6: training time against the kernel cache size", _fig3_6),
    "3.7": ("Fig. 3.7: REPROCESS repeated until delta < delta_max", _fig3_7),
    "3.8": (
        "Fig. 3.8: example selection, error against iterations and CPU time",
        _curves_of(ERROR, ERROR_CPU),
    ),
    "3.9": ("Fig. 3.9: error against #SV", _curves_of(ERROR_SV)),
    "3.10": (
        "Fig. 3.10: MNIST-8, error against iterations and CPU time",
        _curves_of(ERROR, ERROR_CPU),
    ),
    "3.11": ("Fig. 3.11: MNIST-8, 10% training label noise", _curves_of(ERROR, ERROR_CPU)),
    "3.12": ("Fig. 3.12: error and #SV at the end, by noise", _fig3_12),
    "4.3": ("Fig. 4.3: RS, AL (full search) and AL (random pool of 59)", _curves_of(PRBEP, GMEANS)),
    "4.5": ("Fig. 4.5: g-means of AL and RS by imbalance ratio", _curves_of(GMEANS)),
    "4.6": ("Fig. 4.6: PRBEP of AL and RS by imbalance ratio", _curves_of(PRBEP)),
    "4.7": ("Fig. 4.7: ROC curves", _roc_panels),
    "4.9": ("Fig. 4.9: g-means (line: AL's saturation point)", _curves_of((*GMEANS[:2], STOP))),
    "5.4": (
        "Fig. 5.4: saturation of #SV and g-means (line: the stop)",
        _curves_of((*SV[:2], STOP), (*GMEANS[:2], STOP)),
    ),
    "5.6": ("Fig. 5.6: g-means of SMOTE, AL and VIRTUAL", _curves_of(GMEANS)),
    "6.1": (
        "Fig. 6.1: duality gap / n of LASVM-G",
        _curves_of(("gap", "(J - G) / n", {"libsvm": False})),
    ),
    "6.2": ("Fig. 6.2: LASVM against LASVM-G", _curves_of(ERROR, SV)),
    "6.4": ("Fig. 6.4: PRBEP against instances", _curves_of((*PRBEP[:2], {"libsvm": False}))),
    "6.5": (
        "Fig. 6.5: test error against #SV over s",
        lambda rows, log: _end_points(rows, "error"),
    ),
    "6.6": (
        "Fig. 6.6: kernel computations against instances",
        _curves_of(("kernel_evaluations", "kernel evaluations", {})),
    ),
    "6.7": ("Fig. 6.7: #SV against instances", _curves_of(SV)),
    "6.8": (
        "Fig. 6.8: training time after one pass",
        lambda rows, log: [_bars(rows, "cpu_seconds", "CPU seconds")],
    ),
}


def draw(figures, rows, log, out_dir: pathlib.Path) -> None:
    """Draw each of ``figures`` as ``figX_Y.png`` in ``out_dir``: a key of :data:`FIGURES`, or
    ``{figure = key, sets = [...]}`` to draw only those sets (a figure of one noise level)."""
    for entry in figures:
        key, sets = (entry, None) if isinstance(entry, str) else (entry["figure"], entry["sets"])
        title, build = FIGURES[key]
        mine = [r for r in rows if sets is None or r.get("set") in sets]
        my_log = [r for r in log if sets is None or r.get("set") in sets]
        plot_panels(build(mine, my_log), title, out_dir / f"fig{key.replace('.', '_')}.png")
