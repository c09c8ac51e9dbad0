"""The chapter 6 family of seed 003 (FULL SVM, LASVM-G, LASVM-NC, LASVM-I) beside LASVM and
scikit-learn's ``SVC``, one pass each, measured in the same run.

For each random split: CPU seconds of the pass (``time.process_time``; LASVM's includes its
finishing), test accuracy, PRBEP of the decision values, support vectors and kernel evaluations
(scikit-learn does not report LIBSVM's). Means over ``--runs`` random orders/splits, as the
thesis's Tables 6.3 and 6.4 average 10 runs.

* ``--dataset banana``: River's bundled Banana (5,300 samples), 4,000 for training and the other
  1,300 for testing, ``C = 10``, ``gamma = 1`` (Ertekin 2009, Table 6.2).
* ``--dataset a9a``: the first ``--samples`` rows of the a9a training file in a random order, the
  a9a test file for testing, ``C = 100``, ``gamma = 0.005`` (Table 6.2's Adult).

Run from the repository root::

    python benchmarks/bench_lasvm_family.py --dataset banana --runs 10
    python benchmarks/bench_lasvm_family.py --dataset a9a --samples 8000 --runs 1
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from imbalance_stream.metrics import batch
from imbalance_stream.svm import LASVM, LASVMG, LASVMI, LASVMNC, FullSVM

MODELS = (FullSVM, LASVMG, LASVMNC, LASVMI, LASVM)


def as_dicts(X: np.ndarray) -> list[dict]:
    return [dict(zip(np.flatnonzero(r).tolist(), r[np.flatnonzero(r)].tolist())) for r in X]


def banana_split(seed: int):
    from river import datasets

    data = list(datasets.Bananas())
    X = np.array([[x[k] for k in sorted(x)] for x, _ in data])
    y = np.array([label for _, label in data], dtype=bool)
    order = np.random.default_rng(seed).permutation(len(y))
    train, test = order[:4000], order[4000:]
    return X[train], y[train], X[test], y[test], 10.0, 1.0


def a9a_split(seed: int, n_samples: int):
    from imbalance_stream.datasets import A9A

    X, y, _ = A9A(split="train").to_numpy()
    X, y = np.asarray(X, dtype=float)[:n_samples], np.asarray(y, dtype=bool)[:n_samples]
    order = np.random.default_rng(seed).permutation(len(y))
    X_test, y_test, _ = A9A(split="test").to_numpy()
    return X[order], y[order], np.asarray(X_test, float), np.asarray(y_test, bool), 100.0, 0.005


def run_split(X, y, X_test, y_test, C, gamma) -> dict:
    """One pass of every model, then SVC, on one split: name -> (s, accuracy, PRBEP, #SV, #K)."""
    from sklearn.svm import SVC

    train, test, labels = as_dicts(X), as_dicts(X_test), y.tolist()
    results = {}
    for cls in MODELS:
        model = cls(C=C, gamma=gamma, cache_mb=200)
        start = time.process_time()
        for x, label in zip(train, labels):
            model.learn_one(x, label)
        if cls is LASVM:
            model.finish()
        elapsed = time.process_time() - start
        scores = np.array([model.decision_one(x) for x in test])
        results[cls.__name__] = (
            elapsed,
            float(np.mean((scores >= 0.0) == y_test)),
            batch.prbep(scores, y_test),
            model.n_support_,
            model.n_kernel_evaluations_,
        )
    start = time.process_time()
    svc = SVC(C=C, gamma=gamma, cache_size=200).fit(X, y)
    elapsed = time.process_time() - start
    scores = svc.decision_function(X_test)
    accuracy = float(np.mean((scores >= 0.0) == y_test))
    results["SVC"] = (elapsed, accuracy, batch.prbep(scores, y_test), svc.n_support_.sum(), 0)
    return results


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", choices=("banana", "a9a"), default="banana")
    parser.add_argument("--samples", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args(argv)
    warm = banana_split(0)
    run_split(warm[0][:300], warm[1][:300], warm[2][:50], warm[3][:50], 10.0, 1.0)  # compile
    runs = []
    for seed in range(args.runs):
        split = banana_split(seed) if args.dataset == "banana" else a9a_split(seed, args.samples)
        runs.append(run_split(*split))
    print(f"{args.dataset}: mean of {args.runs} runs, one pass each\n")
    print("| model | CPU s | accuracy % | PRBEP % | #SV | kernel evaluations |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in runs[0]:
        t, acc, prbep, n_sv, n_k = (np.mean([r[name][i] for r in runs]) for i in range(5))
        kernels = f"{n_k / 1e6:.1f}M" if n_k else "not reported"
        print(
            f"| {name} | {t:.2f} | {100 * acc:.2f} | {100 * prbep:.2f} | {n_sv:.0f} | {kernels} |"
        )


if __name__ == "__main__":
    main()
