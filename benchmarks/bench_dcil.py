"""Cost of DCIL-IncLPSVM's updates and lazy solve against dimension, as ratios to peers in the run.

    python benchmarks/bench_dcil.py            # d = 10, 50, 200
    python benchmarks/bench_dcil.py --quick    # fewer samples

BLAS runs on one thread unless ``OPENBLAS_NUM_THREADS`` is set (see below).

Measured per sample, on dense Gaussian samples (20% positive), best of ``--repeat`` interleaved
passes over fresh copies of a model warmed up on 60 samples:

* ``learn``: ``DCILIncLPSVM.learn_one``, a rank-one update of one class's scatter (O(d^2)), no
  solve;
* ``learn, eager solve``: the model re-solved after *every* update, as a non-lazy implementation
  would do (O(d^3) per sample);
* ``batch-k``: ``k`` updates, then one prediction: the lazy solve amortised over ``k`` samples;
* ``learn+predict``: prequential use, ``predict_one`` then ``learn_one``, so every prediction
  follows a change and pays the (d+1)^3 / 3 Cholesky solve (laziness cannot help here);
* ``predict (cached)``: ``predict_one`` with no change since the last solve (O(d));
* the peer: River's ``LogisticRegression`` ``learn_one`` / ``predict_one`` on the same samples;
* the kernel alone: the jitted sparse rank-one update against the numpy one
  (``M += np.outer(z, z)``) on the same vector, to show whether jitting pays.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from pathlib import Path

# One BLAS thread: on a shared machine a multi-threaded OpenBLAS spends most of a 201 x 201 Cholesky
# waiting for its threads (measured 80x slower under load). Set the variable to override.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from river import linear_model

from imbalance_stream._numba.proximal import scatter_update
from imbalance_stream.svm import DCILIncLPSVM


def make_stream(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.2
    X = rng.normal(size=(n, d)) + np.where(y, 0.5, -0.5)[:, None]
    return [
        ({f"x{j}": float(v) for j, v in enumerate(row)}, bool(label)) for row, label in zip(X, y)
    ]


def warm(model, stream):
    for x, y in stream[:50]:
        model.learn_one(x, y)
        model.predict_one(x)


def bench_dimension(d: int, n: int, repeat: int) -> dict:
    """Per-sample seconds of every measure at dimension ``d``; the measures are interleaved and
    repeated ``repeat`` times, and the best time of each is kept (the machine is shared)."""
    stream = make_stream(n, d)
    warmup = make_stream(60, d, seed=1)

    def learn(model):
        for x, y in stream:
            model.learn_one(x, y)

    def prequential(model):
        for x, y in stream:
            model.predict_one(x)
            model.learn_one(x, y)

    def eager(model):
        for x, y in stream:
            model.learn_one(x, y)
            model._current()  # solve after every update, as a non-lazy implementation would

    def batches(k):
        def body(model):
            for i, (x, y) in enumerate(stream):
                model.learn_one(x, y)
                if (i + 1) % k == 0:
                    model.predict_one(x)

        return body

    def cached(model):
        for x, _ in stream:
            model.predict_one(x)

    def warmed(make):
        model = make()
        warm(model, warmup)
        model.predict_one(stream[0][0])  # solved: the cached measure starts from a solved model
        return pickle.dumps(model)

    dcil = warmed(DCILIncLPSVM)
    logreg = warmed(linear_model.LogisticRegression)
    measures = {
        "learn": (dcil, learn),
        "learn, eager solve": (dcil, eager),
        "batch-10": (dcil, batches(10)),
        "batch-100": (dcil, batches(100)),
        "learn+predict": (dcil, prequential),
        "predict (cached)": (dcil, cached),
        "LogReg learn": (logreg, learn),
        "LogReg learn+predict": (logreg, prequential),
    }

    # the update kernel alone: jitted sparse form vs numpy outer product, dense vector of d + 1
    z = np.r_[1.0, np.random.default_rng(2).normal(size=d)]
    indices = np.arange(d + 1, dtype=np.int64)
    matrix = np.zeros((d + 1, d + 1))
    scatter_update(matrix, indices, z, 1.0)
    reps = max(200, 200_000 // (d + 1))

    def jitted():
        for _ in range(reps):
            scatter_update(matrix, indices, z, 1.0)

    def numpy_outer():
        for _ in range(reps):
            dense = np.zeros(d + 1)
            dense[indices] = z
            matrix.__iadd__(np.outer(dense, dense))

    best = {name: float("inf") for name in [*measures, "kernel numba", "kernel numpy"]}
    for _ in range(repeat):
        for name, (blob, body) in measures.items():
            model = pickle.loads(blob)
            start = time.perf_counter()
            body(model)
            best[name] = min(best[name], (time.perf_counter() - start) / n)
        for name, body in (("kernel numba", jitted), ("kernel numpy", numpy_outer)):
            start = time.perf_counter()
            body()
            best[name] = min(best[name], (time.perf_counter() - start) / reps)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[10, 50, 200])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    n = 300 if args.quick else args.samples
    results = {d: bench_dimension(d, n, args.repeat) for d in args.dims}

    print(f"per-sample cost in microseconds ({n} samples, best of {args.repeat})\n")
    keys = list(next(iter(results.values())))
    print("| measure | " + " | ".join(f"d = {d}" for d in args.dims) + " |")
    print("|---|" + "---:|" * len(args.dims))
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{results[d][key] * 1e6:.2f}" for d in args.dims) + " |")

    print("\nratios (same run)\n")
    ratios = {
        "learn / LogReg learn": ("learn", "LogReg learn"),
        "learn+predict / LogReg learn+predict": ("learn+predict", "LogReg learn+predict"),
        "learn, eager solve / learn (lazy)": ("learn, eager solve", "learn"),
        "batch-10 / learn": ("batch-10", "learn"),
        "batch-100 / learn": ("batch-100", "learn"),
        "learn+predict / learn, eager solve": ("learn+predict", "learn, eager solve"),
        "kernel numpy / kernel numba": ("kernel numpy", "kernel numba"),
    }
    print("| ratio | " + " | ".join(f"d = {d}" for d in args.dims) + " |")
    print("|---|" + "---:|" * len(args.dims))
    for label, (top, bottom) in ratios.items():
        print(
            f"| {label} | "
            + " | ".join(f"{results[d][top] / results[d][bottom]:.2f}" for d in args.dims)
            + " |"
        )
    if len(args.dims) > 1:
        first, last = args.dims[0], args.dims[-1]
        print(
            f"\ngrowth from d = {first} to d = {last} "
            f"(O(d^2) predicts {((last + 1) / (first + 1)) ** 2:.0f}x, "
            f"O(d^3) {((last + 1) / (first + 1)) ** 3:.0f}x):"
        )
        for key in ("kernel numba", "learn", "learn+predict"):
            print(f"  {key}: {results[last][key] / results[first][key]:.0f}x")


if __name__ == "__main__":
    main()
