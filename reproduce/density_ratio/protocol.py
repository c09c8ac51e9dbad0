"""Seed 004, Chapter 5 of Miao (2015): novelty detection on Spambase (Tables 5.4 and 5.5).

Table 5.4 (emerging novelty): split as Table 5.1 sizes it, a random ``rho`` % of all emails is
the reference part, whose non-spam emails are the reference set, and the other emails are the
test set; the novelty is spam. Table 5.5 (evolving novelty): ``rho`` = 50 % and a fraction
``tau`` of the reference part's spam emails joins the reference, so the novelty is already
(thinly) present in what is taken for normal. 30 random splits each; AUC and Prec@t of every
method on the test set. (:func:`spam_split`; ``split="non-spam"`` is the earlier reading,
D-DR-54.)

Methods (the thesis's Section 5.4 settings): OSVM (scikit-learn's ``OneClassSVM``, LIBSVM's
solver, Gaussian kernel with the median distance, ``nu`` = 0.1), LOF (scikit-learn's
``LocalOutlierFactor`` in novelty mode, ``k`` = 7), KDE, uLSIF, KMM and locKMM, the last four
through the package's River detectors in their two-sample mode: the reference through
``learn_one``, the test set through ``observe_one``, one ``refresh()``, then ``score_one`` of
every test email, which returns the value the batch method solved for it. Features are scaled
to [-1, 1] by min-max over the whole data set (the thesis does not say; D-DR-9).
"""

from __future__ import annotations

import pathlib
import time

import numpy as np

from imbalance_stream.anomaly import KDENovelty, KMMNovelty, LocKMMNovelty, ULSIFNovelty
from imbalance_stream.anomaly.base import ratio_score
from imbalance_stream.base.validation import check_choice
from imbalance_stream.datasets import Spambase
from imbalance_stream.density_ratio.bandwidths import knn_bandwidths, median_distance
from imbalance_stream.density_ratio.kmm_solvers import check_kmm_solver
from imbalance_stream.metrics.batch import precision_at_t, roc_auc
from reproduce.common.published import load_published
from reproduce.common.results import run_cells, write_rows
from reproduce.density_ratio.figures import Panel, Series, draw

__all__ = [
    "METHODS",
    "SPLITS",
    "fig5_3_4",
    "fig5_5",
    "fig5_6",
    "lockmm_neighbourhood",
    "novelty_scores",
    "run_split",
    "solve_two_sample",
    "solver_tolerance",
    "spam_split",
    "table5_2_3",
    "table5_4",
    "table5_5",
    "usps_stand_in",
]

METHODS = ("OSVM", "LOF", "KDE", "uLSIF", "KMM", "locKMM")
PUBLISHED = pathlib.Path(__file__).resolve().parent / "published.csv"


SPAM_FEATURES = ("minmax", "log1p")


def _check_features(features: str) -> None:
    if features not in SPAM_FEATURES:
        raise ValueError(f"features must be one of {', '.join(SPAM_FEATURES)}, got {features!r}")


def scaled_spambase(features: str = "minmax") -> tuple[np.ndarray, np.ndarray]:
    """Spambase with every feature min-max scaled to [-1, 1] over the whole set; labels (spam).

    ``features="log1p"`` takes ``log(1 + x)`` of the (non-negative) counts and frequencies first:
    the sensitivity check of the unstated scaling (D-DR-9), Spambase's features being heavy-tailed.
    """
    _check_features(features)
    X, y, _ = Spambase().to_numpy()
    if features == "log1p":
        X = np.log1p(X)
    low, high = X.min(0), X.max(0)
    span = np.where(high > low, high - low, 1.0)
    return 2.0 * (X - low) / span - 1.0, np.asarray(y == 1)


#: The readings of the Spambase split (``split``; D-DR-54): ``"all"``, Table 5.1's, and
#: ``"non-spam"``, the one this page used before.
SPLITS = ("all", "non-spam")


def spam_split(
    is_spam: np.ndarray, rho: float, tau: float, rng, split: str = "all"
) -> tuple[np.ndarray, np.ndarray]:
    """Indices of the reference and the test set.

    ``split="all"`` (Table 5.1: ``n_rf = rho %`` and ``n_ts = (100 - rho) %`` of the 4,601
    emails): a random ``rho`` of all emails is the reference part, and the reference keeps its
    non-spam emails; every other email, spam or not, is in the test set (39 % spam at every
    ``rho``). Table 5.5's injection includes a fraction ``tau`` of the reference part's own spam
    emails in the reference ("different fractions of spam emails being included into the
    reference collection"); the test set does not change with ``tau``.

    ``split="non-spam"``: ``rho`` of the non-spam emails form the reference, the test set is the
    other non-spam emails and all 1,813 spam (48 % to 68 % spam), and the injected spam emails are
    moved out of the test set.
    """
    if split == "all":
        order = rng.permutation(len(is_spam))
        part, test = np.split(order, [int(round(rho * len(is_spam)))])
        normal, spam = part[~is_spam[part]], part[is_spam[part]]
        return np.concatenate([normal, spam[: int(round(tau * len(spam)))]]), test
    normal = rng.permutation(np.flatnonzero(~is_spam))
    spam = rng.permutation(np.flatnonzero(is_spam))
    n_reference = int(round(rho * len(normal)))
    n_injected = int(round(tau * n_reference))
    reference = np.concatenate([normal[:n_reference], spam[:n_injected]])
    test = np.concatenate([normal[n_reference:], spam[n_injected:]])
    return reference, test


def run_split(is_spam: np.ndarray, rho: float, tau: float, seed: int, run: int, split: str = "all"):
    """:func:`spam_split` of run ``run``: every table draws run ``run``'s split from the same
    seed, so run 0 of Table 5.4 is the split ``solver_tolerance`` solves. With ``split="all"``
    the emails are drawn the same way at every ``tau``, so Table 5.5's columns differ only by
    the spam injected."""
    check_choice("split", split, SPLITS)
    if split == "all":
        rng = np.random.default_rng([seed, round(rho * 100), run])
    else:
        rng = np.random.default_rng([seed, round(rho * 100), round(tau * 100), run])
    return spam_split(is_spam, rho, tau, rng, split)


def _as_dicts(X: np.ndarray) -> list[dict]:
    return [dict(enumerate(row.tolist())) for row in X]


def _detector(method: str, seed: int, tol: float, k: int, solver: str = "fista"):
    return {
        "KDE": lambda: KDENovelty(seed=seed),
        "uLSIF": lambda: ULSIFNovelty(seed=seed),
        "KMM": lambda: KMMNovelty(tol=tol, max_iter=100_000, seed=seed, solver=solver),
        "locKMM": lambda: LocKMMNovelty(k=k, tol=tol, max_iter=100_000, solver=solver),
    }[method]()


def _split(params: dict) -> str:
    """The ``split`` parameter of a table (``"all"`` unless given), checked before any cell runs."""
    return check_choice("split", params.get("split", "all"), SPLITS)


def _solver(params: dict) -> str:
    """The ``solver`` parameter of a table (``"fista"`` unless given), checked before any cell
    runs: a missing cvxopt fails here with the command that installs it."""
    return check_kmm_solver(params.get("solver", "fista"))


def solve_two_sample(detector, reference: np.ndarray, test: np.ndarray) -> list[dict]:
    """Solve a detector once in its two-sample mode: the reference through ``learn_one``, the
    test rows through ``observe_one``, then ``refresh()``. Returns the test rows as dicts."""
    for x in _as_dicts(reference):
        detector.learn_one(x)
    test_dicts = _as_dicts(test)
    for x in test_dicts:
        detector.observe_one(x)
    detector.refresh()
    return test_dicts


def fitted_detector(
    method: str,
    reference: np.ndarray,
    test: np.ndarray,
    seed: int,
    tol: float,
    k: int,
    solver: str = "fista",
):
    """One of the package's detectors (``method``), solved once by :func:`solve_two_sample`.
    Returns the detector and the test rows as dicts."""
    detector = _detector(method, seed, tol, k, solver)
    return detector, solve_two_sample(detector, reference, test)


def novelty_scores(
    method: str,
    reference: np.ndarray,
    test: np.ndarray,
    seed: int,
    tol: float = 1e-6,
    k: int = 7,
    solver: str = "fista",
) -> np.ndarray:
    """The novelty score of every test row (higher is more novel) under ``method``; ``tol`` and
    ``solver`` are the KMM solvers' stopping tolerance and method, ``k`` the neighbour rank of
    LOF and locKMM."""
    if method in ("OSVM", "LOF"):
        from sklearn.neighbors import LocalOutlierFactor
        from sklearn.svm import OneClassSVM

        if method == "OSVM":
            sigma = median_distance(reference, seed)
            model = OneClassSVM(nu=0.1, gamma=1.0 / (2.0 * sigma**2)).fit(reference)
        else:
            model = LocalOutlierFactor(n_neighbors=k, novelty=True).fit(reference)
        return -model.decision_function(test)
    detector, test_dicts = fitted_detector(method, reference, test, seed, tol, k, solver)
    return np.array([detector.score_one(x) for x in test_dicts])


def _spam_cell(cell: dict) -> list[dict]:
    X, is_spam = scaled_spambase(cell["features"])
    reference, test = run_split(
        is_spam, cell["rho"], cell["tau"], cell["seed"], cell["run"], cell["split"]
    )
    rows = []
    for method in cell["methods"]:
        start = time.process_time()
        scores = novelty_scores(
            method,
            X[reference],
            X[test],
            cell["seed"] + cell["run"],
            cell["tol"],
            cell["k"],
            cell["solver"],
        )
        rows.append(
            {
                "rho": cell["rho"],
                "tau": cell["tau"],
                "run": cell["run"],
                "method": method,
                "k": cell["k"],
                "auc": roc_auc(scores, is_spam[test]),
                "prec_at_t": precision_at_t(scores, is_spam[test]),
                "cpu_seconds": round(time.process_time() - start, 3),
            }
        )
    return rows


def _settings(params: dict, key: str, default) -> list[float]:
    return [float(v) for v in params.get(key, default)]


def _run(params, settings, out_dir, n_jobs, scheduler, progress, label) -> list[dict]:
    methods = list(params.get("methods", METHODS))
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; known: {', '.join(METHODS)}")
    runs, seed = int(params.get("runs", 30)), int(params.get("seed", 2015))
    tol = float(params.get("tol", 1e-6))
    ks = [int(k) for k in params.get("k", [7])]
    features = str(params.get("features", "minmax"))
    _check_features(features)  # a bad name fails here, before any cell runs
    solver = _solver(params)
    split = _split(params)
    cells = [
        {
            "rho": rho,
            "tau": tau,
            "run": run,
            "methods": methods,
            "seed": seed,
            "tol": tol,
            "k": k,
            "features": features,
            "solver": solver,
            "split": split,
        }
        for rho, tau in settings
        for k in ks
        for run in range(runs)
    ]
    log = run_cells(_spam_cell, cells, n_jobs, scheduler, progress, label, out_dir)
    return log


def _summary(log, table: str, setting_key: str, settings, methods) -> list[dict]:
    published = load_published(PUBLISHED).get(table, {})
    rows = []
    for setting in settings:
        for method in methods:
            runs = [r for r in log if r[setting_key] == setting and r["method"] == method]
            if not runs:
                continue
            paper = published.get(("spam", f"{setting_key}={setting:g}"), {}).get(method, {})
            row = {setting_key: setting, "method": method, "runs": len(runs)}
            for metric in ("auc", "prec_at_t"):
                values = np.array([r[metric] for r in runs])
                row[metric] = round(float(values.mean()), 4)
                row[f"{metric}_std"] = (
                    round(float(values.std(ddof=1)), 4) if len(values) > 1 else 0.0
                )
                row[f"paper_{metric}"] = paper.get(metric, float("nan"))
                row[f"paper_{metric}_std"] = paper.get(f"{metric}_std", float("nan"))
            row["cpu_seconds"] = round(float(np.mean([r["cpu_seconds"] for r in runs])), 2)
            rows.append(row)
    _add_time_ratios(rows, setting_key)
    return rows


def _add_time_ratios(rows: list[dict], setting_key: str) -> None:
    """Table 5.11 as ratios: each method's CPU time over KMM's at the same setting, beside the
    thesis's on its two tweet sets (its MATLAB seconds on another machine are not comparable,
    their ratios are)."""
    seconds = load_published(PUBLISHED).get("5.11", {})
    for row in rows:
        kmm = [r for r in rows if r[setting_key] == row[setting_key] and r["method"] == "KMM"]
        row["time_vs_kmm"] = (
            round(row["cpu_seconds"] / kmm[0]["cpu_seconds"], 3)
            if kmm and kmm[0]["cpu_seconds"] > 0
            else float("nan")
        )
        for tweets in ("S1", "S2"):
            times = seconds.get(("tweets", tweets), {})
            paper = times.get(row["method"], {}).get("seconds")
            row[f"paper_time_vs_kmm_{tweets}"] = (
                round(paper / times["KMM"]["seconds"], 3) if paper is not None else float("nan")
            )


def table5_4(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Spam, emerging novelty (Table 5.4). Parameters (all optional): ``rho`` (list, default
    0.3, 0.5, 0.7), ``methods``, ``runs`` (30), ``seed``, ``tol`` (the KMM solvers' tolerance,
    1e-6), ``solver`` (theirs, ``"fista"`` or ``"interior-point"``), ``split`` (``"all"`` or
    ``"non-spam"``, see :func:`spam_split`), ``features``
    (``"minmax"``, or ``"log1p"`` first: see :func:`scaled_spambase`)."""
    rhos = _settings(params, "rho", (0.3, 0.5, 0.7))
    log = _run(
        params, [(rho, 0.0) for rho in rhos], out_dir, n_jobs, scheduler, progress, "table 5.4"
    )
    methods = list(params.get("methods", METHODS))
    return _summary(log, "5.4", "rho", rhos, methods)


def table5_5(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Spam, evolving novelty (Table 5.5): ``rho`` = 0.5 and spam injected into the reference.
    Parameters (all optional): ``tau`` (list, default 0, 0.01, 0.02, 0.05, 0.1), ``methods``,
    ``runs`` (30), ``seed``, ``tol``, ``solver``, ``split``, ``features`` (as in
    :func:`table5_4`)."""
    taus = _settings(params, "tau", (0.0, 0.01, 0.02, 0.05, 0.1))
    rho = float(params.get("rho", 0.5))
    log = _run(
        params, [(rho, tau) for tau in taus], out_dir, n_jobs, scheduler, progress, "table 5.5"
    )
    methods = list(params.get("methods", METHODS))
    return _summary(log, "5.5", "tau", taus, methods)


def fig5_6(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """AUC against the neighbour rank ``k`` for locKMM and LOF (Fig. 5.6), Spambase at ``rho`` =
    50 %. Parameters (all optional): ``k`` (list), ``methods`` (locKMM, LOF), ``runs`` (30),
    ``seed``, ``tol``. Draws ``fig5_6.png`` in ``out_dir`` when matplotlib is installed."""
    params = {"methods": ["locKMM", "LOF"], **params}
    rho = float(params.get("rho", 0.5))
    log = _run(params, [(rho, 0.0)], out_dir, n_jobs, scheduler, progress, "fig. 5.6")
    ks = sorted({row["k"] for row in log})
    rows = []
    for method in params["methods"]:
        for k in ks:
            values = [r["auc"] for r in log if r["method"] == method and r["k"] == k]
            rows.append(
                {
                    "method": method,
                    "k": k,
                    "runs": len(values),
                    "auc": round(float(np.mean(values)), 4),
                    "auc_std": round(float(np.std(values, ddof=1)), 4) if len(values) > 1 else 0.0,
                }
            )
    if out_dir is not None:
        _plot_fig5_6(rows, pathlib.Path(out_dir) / "fig5_6.png")
    return rows


def _plot_fig5_6(rows: list[dict], path: pathlib.Path) -> None:
    series = [
        Series(
            method,
            [row["k"] for row in mine],
            [row["auc"] for row in mine],
            [row["auc_std"] for row in mine],
        )
        for method in dict.fromkeys(row["method"] for row in rows)
        if (mine := [row for row in rows if row["method"] == method])
    ]
    title = "Spambase, rho = 50 %: AUC against k (Fig. 5.6)"
    draw(path, [Panel(title, "k (neighbour rank)", "AUC", series, xscale="log")])


def solver_tolerance(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """How far the KMM programme must be solved: AUC and Prec@t of KMM and locKMM on one
    Spambase split (``rho`` = 50 %) for each stopping tolerance in ``tol`` (list), with the
    number of test points whose weight is 0 and the AUC when those tie (D-DR-51). Parameters
    (all optional): ``tol``, ``methods`` (KMM, locKMM), ``seed``, ``run`` (which split),
    ``solver`` (``"fista"``; with ``"interior-point"`` no weight reaches 0 exactly: the
    interior-point solution keeps them ordered itself)."""
    solver = _solver(params)
    split = _split(params)
    X, is_spam = scaled_spambase()
    seed, run = int(params.get("seed", 2015)), int(params.get("run", 0))
    reference, test = run_split(is_spam, float(params.get("rho", 0.5)), 0.0, seed, run, split)
    rows = []
    for method in params.get("methods", ["KMM", "locKMM"]):
        for tol in params.get("tol", [1e-3, 1e-4, 1e-5, 1e-6]):
            start = time.process_time()
            detector, test_dicts = fitted_detector(
                method, X[reference], X[test], seed + run, float(tol), 7, solver
            )
            scores = np.array([detector.score_one(x) for x in test_dicts])
            cpu_seconds = time.process_time() - start
            # the solution itself, its zero weights tied, as scored before D-DR-51
            weights = detector.estimator_.weights_ if method == "KMM" else detector.weights_
            tied = [ratio_score(weight) for weight in weights]
            rows.append(
                {
                    "method": method,
                    "solver": solver,
                    "tol": float(tol),
                    "auc": round(roc_auc(scores, is_spam[test]), 4),
                    "prec_at_t": round(precision_at_t(scores, is_spam[test]), 4),
                    "cpu_seconds": round(cpu_seconds, 1),
                    "zero_weights": int((weights <= 0.0).sum()),
                    "auc_zero_weights_tied": round(roc_auc(tied, is_spam[test]), 4),
                }
            )
    return rows


#: Images per digit 0-9 in USPS's training and test splits (7,291 and 2,007), which the stand-in
#: keeps: the thesis's Prec@t values times these test counts are whole numbers.
USPS_TRAIN_COUNTS = (1194, 1005, 731, 658, 652, 556, 664, 645, 542, 644)
USPS_TEST_COUNTS = (359, 264, 198, 166, 200, 160, 170, 147, 166, 177)


def usps_stand_in(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """USPS is not available: MNIST's central 24 x 24 pixels (its digits sit in a 20 x 20 box)
    resampled to 16 x 16 (bilinear), scaled to [-1, 1], and subsampled to USPS's per-digit
    counts in each split. Returns ``(X_train, digit_train, X_test, digit_test)``."""
    from scipy import ndimage

    from imbalance_stream.datasets import MNIST

    rng = np.random.default_rng(seed)
    parts = []
    for split, counts in (("train", USPS_TRAIN_COUNTS), ("test", USPS_TEST_COUNTS)):
        dataset = MNIST(split=split, positive_class=None)
        digits = dataset.raw_labels()
        chosen = np.concatenate(
            [
                rng.choice(np.flatnonzero(digits == d), n, replace=False)
                for d, n in enumerate(counts)
            ]
        )
        images = dataset.to_numpy()[0][chosen].reshape(-1, 28, 28)[:, 2:26, 2:26]
        small = ndimage.zoom(images, (1, 16 / 24, 16 / 24), order=1)
        scaled = np.clip(small.reshape(len(chosen), 256) / 127.5 - 1.0, -1.0, 1.0)
        parts += [scaled, digits[chosen]]
    return parts[0], parts[1], parts[2], parts[3]


def _digit_cell(cell: dict) -> list[dict]:
    X_train, d_train, X_test, d_test = usps_stand_in(cell["seed"])
    reference = X_train[d_train != cell["digit"]]
    novel = d_test == cell["digit"]
    rows = []
    for method in cell["methods"]:
        start = time.process_time()
        scores = novelty_scores(
            method, reference, X_test, cell["seed"], cell["tol"], cell["k"], cell["solver"]
        )
        rows.append(
            {
                "digit": cell["digit"],
                "method": method,
                "auc": round(roc_auc(scores, novel), 4),
                "prec_at_t": round(precision_at_t(scores, novel), 4),
                "cpu_seconds": round(time.process_time() - start, 2),
            }
        )
    return rows


def table5_2_3(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """Novel digits (Tables 5.2 and 5.3) on the USPS stand-in: for each digit, the reference is
    the training images of the other nine digits, the test set all 2,007 test images, the
    novelty the digit. A single run, as the thesis's. Parameters (all optional): ``digits``,
    ``methods``, ``seed``, ``tol``, ``solver`` (as in :func:`table5_4`), ``k`` (7)."""
    methods = list(params.get("methods", METHODS))
    solver = _solver(params)
    cells = [
        {
            "digit": int(digit),
            "methods": methods,
            "seed": int(params.get("seed", 2015)),
            "tol": float(params.get("tol", 1e-6)),
            "solver": solver,
            "k": int(params.get("k", 7)),
        }
        for digit in params.get("digits", range(10))
    ]
    # runs.csv is written below, once the rows carry the thesis's values
    log = run_cells(_digit_cell, cells, n_jobs, scheduler, progress, "tables 5.2-5.3", None)
    published = load_published(PUBLISHED)
    for row in log:
        key = ("usps", f"digit={row['digit']}")
        row["paper_auc"] = published.get("5.2", {}).get(key, {}).get(row["method"], {}).get("auc")
        row["paper_prec_at_t"] = (
            published.get("5.3", {}).get(key, {}).get(row["method"], {}).get("prec_at_t")
        )
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    return log


# ---- Figs. 5.3-5.5: ROC curves ---------------------------------------------------------------

#: The false-positive rates at which each ROC curve is kept (its true-positive rate interpolated
#: there), so that the curves of several splits can be averaged and drawn.
ROC_GRID = np.linspace(0.0, 1.0, 201)


def roc_points(scores, positive) -> np.ndarray:
    """The true-positive rate of the ROC curve of ``scores`` (higher is more novel) at each
    false-positive rate of :data:`ROC_GRID`."""
    from sklearn.metrics import roc_curve

    fpr, tpr, _ = roc_curve(np.asarray(positive, dtype=bool), np.asarray(scores, dtype=float))
    return np.interp(ROC_GRID, fpr, tpr)


def _roc_cell(cell: dict) -> list[dict]:
    """One novelty task's test set scored by every method: the digits' (Fig. 5.3-5.4, task = the
    novel digit) or Spambase's (Fig. 5.5, task = rho)."""
    if cell["data"] == "digits":
        X_train, d_train, X_test, d_test = usps_stand_in(cell["seed"])
        reference, test = X_train[d_train != cell["task"]], X_test
        novel, seed = d_test == cell["task"], cell["seed"]
    else:
        X, is_spam = scaled_spambase()
        parts = run_split(is_spam, cell["task"], 0.0, cell["seed"], cell["run"], cell["split"])
        reference, test, novel = X[parts[0]], X[parts[1]], is_spam[parts[1]]
        seed = cell["seed"] + cell["run"]
    rows = []
    for method in cell["methods"]:
        scores = novelty_scores(
            method, reference, test, seed, cell["tol"], cell["k"], cell["solver"]
        )
        rows.append(
            {
                "task": cell["task"],
                "run": cell["run"],
                "method": method,
                "auc": round(roc_auc(scores, novel), 4),
                "prec_at_t": round(precision_at_t(scores, novel), 4),
                "tpr": roc_points(scores, novel),
            }
        )
    return rows


def _roc(params, data, tasks, n_jobs, scheduler, progress, out_dir) -> list[dict]:
    """Run :func:`_roc_cell` on every task and run; write ``runs.csv`` (without the curves) and
    return the log, the curves in it."""
    methods = list(params.get("methods", METHODS))
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ValueError(f"unknown methods {unknown}; known: {', '.join(METHODS)}")
    shared = {
        "data": data,
        "methods": methods,
        "seed": int(params.get("seed", 2015)),
        "tol": float(params.get("tol", 1e-6)),
        "k": int(params.get("k", 7)),
        "solver": _solver(params),
        "split": _split(params),
    }
    runs = int(params.get("runs", 1))
    cells = [{**shared, "task": task, "run": run} for task in tasks for run in range(runs)]
    log = run_cells(_roc_cell, cells, n_jobs, scheduler, progress, f"ROC ({data})", None)
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", _without_curves(log))
    return log


def _roc_summary(log: list[dict], table: str, key) -> list[dict]:
    """Per task and method: the mean AUC and Prec@t over the runs, the thesis's AUC (``table``,
    its row ``key(task)``), and the vertically averaged ROC curve (``tpr``, on
    :data:`ROC_GRID`)."""
    published = load_published(PUBLISHED).get(table, {})
    rows = []
    for task in dict.fromkeys(r["task"] for r in log):
        for method in dict.fromkeys(r["method"] for r in log):
            mine = [r for r in log if r["task"] == task and r["method"] == method]
            paper = published.get(key(task), {}).get(method, {})
            rows.append(
                {
                    "task": task,
                    "method": method,
                    "runs": len(mine),
                    "auc": round(float(np.mean([r["auc"] for r in mine])), 4),
                    "prec_at_t": round(float(np.mean([r["prec_at_t"] for r in mine])), 4),
                    "paper_auc": paper.get("auc", float("nan")),
                    "tpr": np.mean([r["tpr"] for r in mine], axis=0),
                }
            )
    _roc_dominance(rows)
    return rows


#: The false-positive rate at which the "beginning stage" of a ROC curve is read (Section 5.4.3).
EARLY_FPR = 0.05


def _roc_dominance(rows: list[dict]) -> None:
    """Add to each row its curve's true-positive rate at :data:`EARLY_FPR` and the share of the
    grid's inner false-positive rates (0 < FPR < 1) at which its curve is the highest of its
    task's (ties count for each tied method)."""
    inner = (ROC_GRID > 0.0) & (ROC_GRID < 1.0)
    for task in dict.fromkeys(r["task"] for r in rows):
        mine = [r for r in rows if r["task"] == task]
        top = np.max([r["tpr"] for r in mine], axis=0)
        for row in mine:
            row[f"tpr_at_fpr_{EARLY_FPR:g}"] = round(
                float(np.interp(EARLY_FPR, ROC_GRID, row["tpr"])), 4
            )
            highest = row["tpr"][inner] >= top[inner] - 1e-12
            row["highest_share"] = round(float(highest.mean()), 3)


def _plot_roc(rows: list[dict], tasks, name, path: pathlib.Path, title: str) -> None:
    """One ROC panel per task (``name(task)`` its title), a curve per method, its AUC in the
    legend."""
    panels = [
        Panel(
            name(task),
            "false-positive rate",
            "true-positive rate",
            [
                Series(f"{r['method']} ({r['auc']:.3f})", ROC_GRID, r["tpr"], fmt="-")
                for r in rows
                if r["task"] == task
            ],
            diagonal=True,
            legend_size=7,
        )
        for task in tasks
    ]
    draw(path, panels, columns=2, size=(4.5, 4.0), title=title)


def _without_curves(rows: list[dict]) -> list[dict]:
    return [{key: value for key, value in row.items() if key != "tpr"} for row in rows]


def fig5_3_4(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """ROC curves of the six methods on the novel-digit tasks of Table 5.2 (USPS stand-in, one
    run): Fig. 5.3 (digits 0-5) and Fig. 5.4 (digits 6-9). Parameters (all optional): ``digits``,
    ``methods``, ``seed``, ``tol``, ``solver``, ``k`` (as in :func:`table5_2_3`). Draws
    ``fig5_3.png`` and ``fig5_4.png`` in ``out_dir``; returns each digit's and method's AUC."""
    digits = [int(d) for d in params.get("digits", range(10))]
    log = _roc({**params, "runs": 1}, "digits", digits, n_jobs, scheduler, progress, out_dir)
    rows = _roc_summary(log, "5.2", lambda digit: ("usps", f"digit={digit}"))
    if out_dir is not None:
        for figure, shown in (("5.3", range(6)), ("5.4", range(6, 10))):
            mine = [d for d in digits if d in shown]
            if mine:
                path = pathlib.Path(out_dir) / f"fig{figure.replace('.', '_')}.png"
                title = f"Novel digits (USPS stand-in), ROC curves (Fig. {figure})"
                _plot_roc(rows, mine, lambda d: f"novel digit {d}", path, title)
    return _without_curves(rows)


def fig5_5(params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False):
    """ROC curves of the six methods on Spambase at ``rho`` = 30, 50 and 70 % (Fig. 5.5), split
    as in Table 5.4, averaged vertically over ``runs`` splits (default 1). Parameters (all
    optional): ``rho``, ``runs``, ``methods``, ``seed``, ``tol``, ``solver``, ``split``, ``k``.
    Draws ``fig5_5.png`` in ``out_dir``; returns each rho's and method's mean AUC."""
    rhos = _settings(params, "rho", (0.3, 0.5, 0.7))
    log = _roc(params, "spam", rhos, n_jobs, scheduler, progress, out_dir)
    rows = _roc_summary(log, "5.4", lambda rho: ("spam", f"rho={rho:g}"))
    if out_dir is not None:
        runs = int(params.get("runs", 1))
        title = f"Spambase, ROC curves, mean of {runs} split(s) (Fig. 5.5)"
        path = pathlib.Path(out_dir) / "fig5_5.png"
        _plot_roc(rows, rhos, lambda rho: f"rho = {100 * rho:g} %", path, title)
    return _without_curves(rows)


class OwnCollectionLocKMM(LocKMMNovelty):
    """locKMM with each point's width taken within its own collection (the reference among the
    reference, the test among the test), the reading of Algorithm 9's undefined ``X`` that
    D-DR-5 did not choose. Used only by :func:`lockmm_neighbourhood`, which scores the observed
    test points (a new point's width would still come from the pool)."""

    def _local_widths(self, pooled: np.ndarray, reference_size: int) -> np.ndarray:
        return np.concatenate(
            [
                knn_bandwidths(pooled[:reference_size], self.k),
                knn_bandwidths(pooled[reference_size:], self.k),
            ]
        )


class DistinctPointsLocKMM(LocKMMNovelty):
    """locKMM with the pooled widths taken over distinct points: exact duplicates count once,
    so a point's ``k``-th neighbour is the ``k``-th nearest *other* distinct point and no width
    is 0. This is the alternative to D-DR-6's floor on zero widths (Spambase has 147 emails
    with 7 or more exact copies). Used only by :func:`lockmm_neighbourhood`."""

    def _local_widths(self, pooled: np.ndarray, reference_size: int) -> np.ndarray:
        distinct, which = np.unique(pooled, axis=0, return_inverse=True)
        return knn_bandwidths(distinct, self.k)[which.ravel()]


#: The readings of Algorithm 9's step 1 (and of its zero widths) that
#: :func:`lockmm_neighbourhood` compares.
NEIGHBOURHOODS = {
    "pooled": LocKMMNovelty,
    "own collection": OwnCollectionLocKMM,
    "pooled, distinct points": DistinctPointsLocKMM,
}


def _neighbourhood_cell(cell: dict) -> list[dict]:
    if cell["data"] == "spam":
        X, is_spam = scaled_spambase()
        reference, test = run_split(is_spam, 0.5, 0.0, cell["seed"], cell["task"], cell["split"])
        reference_rows, test_rows, novel = X[reference], X[test], is_spam[test]
    else:
        X_train, d_train, X_test, d_test = usps_stand_in(cell["seed"])
        reference_rows, test_rows = X_train[d_train != cell["task"]], X_test
        novel = d_test == cell["task"]
    rows = []
    for name, detector_class in NEIGHBOURHOODS.items():
        detector = detector_class(k=cell["k"], tol=cell["tol"], max_iter=100_000)
        test_dicts = solve_two_sample(detector, reference_rows, test_rows)
        scores = [detector.score_one(x) for x in test_dicts]
        rows.append(
            {
                "data": cell["data"],
                "task": cell["task"],
                "neighbourhood": name,
                "auc": round(roc_auc(scores, novel), 4),
            }
        )
    return rows


def lockmm_neighbourhood(
    params: dict, *, out_dir=None, n_jobs=None, scheduler=None, progress=False
):
    """Which points give locKMM's local widths (Algorithm 9, step 1, D-DR-5): the pooled
    reference and test sets, each point's own collection, or the pooled sets with exact
    duplicates counted once (D-DR-6's alternative). locKMM's AUC under each on the
    two benchmarks that can tell them apart, Spambase at ``rho`` = 50 % (Table 5.4: 0.936) and
    the novel digits (Table 5.2: mean 0.958). Parameters (all optional): ``runs`` (Spambase
    splits, 30), ``digits`` (all ten), ``seed``, ``tol``, ``k`` (7)."""
    seed, tol, k = (
        int(params.get("seed", 2015)),
        float(params.get("tol", 1e-6)),
        int(params.get("k", 7)),
    )
    tasks = [("spam", run) for run in range(int(params.get("runs", 30)))]
    tasks += [("digits", int(digit)) for digit in params.get("digits", range(10))]
    split = _split(params)
    cells = [
        {"data": data, "task": task, "seed": seed, "tol": tol, "k": k, "split": split}
        for data, task in tasks
    ]
    log = run_cells(
        _neighbourhood_cell, cells, n_jobs, scheduler, progress, "neighbourhoods", out_dir
    )
    published = load_published(PUBLISHED)
    paper = {
        "spam": [published["5.4"][("spam", "rho=0.5")]["locKMM"]["auc"]],
        "digits": [
            published["5.2"][("usps", f"digit={digit}")]["locKMM"]["auc"]
            for digit in sorted({row["task"] for row in log if row["data"] == "digits"})
        ],
    }
    rows = []
    for data in dict.fromkeys(row["data"] for row in log):
        for name in NEIGHBOURHOODS:
            values = [r["auc"] for r in log if r["data"] == data and r["neighbourhood"] == name]
            auc, paper_auc = float(np.mean(values)), float(np.mean(paper[data]))
            rows.append(
                {
                    "data": data,
                    "neighbourhood": name,
                    "tasks": len(values),
                    "auc": round(auc, 4),
                    "auc_min": round(min(values), 4),
                    "paper_auc": round(paper_auc, 4),
                    "auc_minus_paper": round(auc - paper_auc, 4),
                }
            )
    return rows
