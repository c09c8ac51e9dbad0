"""LASVM (seed 003) against scikit-learn's ``SVC`` (LIBSVM) on a9a, measured in the same run.

1. One pass of ``LASVM.learn_one`` over the training file (the dict API, as a stream would feed
   it) followed by ``finish()``, against ``SVC.fit`` on the same rows, both with the thesis's
   Adult hyperparameters (RBF, gamma = 0.005, C = 100; Ertekin 2009, Table 3.1), the same
   tolerance (``tau = tol = 1e-3``) and the same kernel-cache budget: CPU seconds, test error on
   the test file, support vectors, kernel evaluations (LASVM's counter; LIBSVM does not report
   its own), and how far the two decision functions are apart on the test file.
2. The per-sample cost of ``learn_one`` against the size of the model: CPU time per sample over
   consecutive blocks of the pass, beside the support vectors and expansion members at the end
   of each block (PROCESS and REPROCESS are O(members), section 3.2.1.4).
3. With ``--epochs E ...``: ``learn_epochs`` (LASVM xE, each epoch in a new random order) plus
   finishing, against the same SVC, and for every LASVM model the training rows inside the
   margin (``y f(x) < 1 - tau``) beside the coefficients at the bound C: at the optimum every
   row inside the margin is at the bound, so the excess counts the rows the pass left out.

Times are CPU seconds of this process (``time.process_time``): the machine is shared, and CPU time
is what other processes disturb least. numba compiles before the timed part (a warm-up on a few
rows). Loading the data and building the dicts are not timed.

Run from the repository root (the data home is ``$IMBALANCE_STREAM_DATA``)::

    imbalance-stream data fetch a9a  # once
    python benchmarks/bench_lasvm.py [--samples 32561] [--block 2000] [--cache-mb 200] [--seed 0]
                                     [--epochs 2 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from imbalance_stream.datasets import A9A
from imbalance_stream.svm import LASVM

GAMMA, C, TAU = 0.005, 100.0, 1e-3


def as_dicts(X: np.ndarray) -> list[dict]:
    dicts = []
    for row in X:
        nonzero = np.flatnonzero(row)
        dicts.append(dict(zip(nonzero.tolist(), row[nonzero].tolist())))
    return dicts


def load(n_samples: int, seed: int):
    """The first ``n_samples`` training rows in a random order drawn from ``seed`` (the thesis
    shuffles its training sets), and the whole test file."""
    X, y, _ = A9A(split="train").to_numpy()
    X, y = np.asarray(X, dtype=float)[:n_samples], np.asarray(y, dtype=bool)[:n_samples]
    order = np.random.default_rng(seed).permutation(len(y))
    X, y = X[order], y[order]
    X_test, y_test, _ = A9A(split="test").to_numpy()
    return X, y, np.asarray(X_test, dtype=float), np.asarray(y_test, dtype=bool)


def warm_up(dicts, labels) -> None:
    """Compile every jitted kernel before timing (numba caches them on disk as well)."""
    model = LASVM(C=C, gamma=GAMMA, tau=TAU)
    for x, label in zip(dicts[:200], labels[:200]):
        model.learn_one(x, label)
    model.finish()
    model.decision_one(dicts[0])


def run_lasvm(dicts, labels, test_dicts, block: int, cache_mb: float):
    """One pass of learn_one then finish(); returns the model, the pass and finishing CPU
    seconds, the test decisions after the pass (untimed), and one row per block: (samples so
    far, CPU s per sample, #SV, members)."""
    model = LASVM(C=C, gamma=GAMMA, tau=TAU, cache_mb=cache_mb)
    learn = model.learn_one
    blocks = []
    total = 0.0
    for begin in range(0, len(dicts), block):
        chunk = list(zip(dicts[begin : begin + block], labels[begin : begin + block]))
        start = time.process_time()
        for x, label in chunk:
            learn(x, label)
        elapsed = time.process_time() - start
        total += elapsed
        blocks.append(
            (begin + len(chunk), elapsed / len(chunk), model.n_support_, model.n_expansion_)
        )
    n_support_pass = model.n_support_
    pass_scores = np.array([model.decision_one(x) for x in test_dicts])
    start = time.process_time()
    steps = model.finish()
    finishing = time.process_time() - start
    return model, total, finishing, steps, (n_support_pass, pass_scores), blocks


def margin_count(model, dicts, labels) -> str:
    """Training rows inside the margin against coefficients at the bound (see 3.)."""
    signs = np.where(np.asarray(labels), 1.0, -1.0)
    margins = signs * np.array([model.decision_one(x) for x in dicts])
    alpha = model._model.alpha[: model.n_expansion_]
    inside = int(np.sum(margins < 1.0 - TAU))
    return f"{inside} training rows inside the margin, {int(np.sum(np.abs(alpha) == C))} at C"


def run_epochs(args, dicts, labels, test_dicts, y_test, svc_scores) -> None:
    """Section 3: LASVM xE plus finishing for each E of ``--epochs``."""
    print("\n| LASVM | CPU s | test error % | #SV | max / median abs(f - f_SVC) | margin |")
    print("|---|---:|---:|---:|---:|---|")
    for epochs in args.epochs:
        model = LASVM(C=C, gamma=GAMMA, tau=TAU, cache_mb=args.cache_mb, seed=args.seed)
        start = time.process_time()
        model.learn_epochs(dicts, labels, epochs=epochs)
        model.finish()
        elapsed = time.process_time() - start
        ours = np.array([model.decision_one(x) for x in test_dicts])
        gap = np.abs(ours - svc_scores)
        print(
            f"| x{epochs} + finishing | {elapsed:.1f} | {100 * np.mean((ours >= 0) != y_test):.2f} "
            f"| {model.n_support_} | {gap.max():.3f} / {np.median(gap):.4f} | "
            f"{margin_count(model, dicts, labels)} |"
        )


def run_svc(X, y, X_test, cache_mb: float):
    from sklearn.svm import SVC

    start = time.process_time()
    svc = SVC(C=C, gamma=GAMMA, tol=TAU, cache_size=cache_mb).fit(X, y)
    fit = time.process_time() - start
    return svc, fit, svc.decision_function(X_test)


def report(args, X, model, times, svc, svc_fit, svc_scores, ours, y_test) -> None:
    online, finishing, steps, (n_support_pass, pass_scores), blocks = times
    our_error = float(np.mean((ours >= 0.0) != y_test))
    pass_error = float(np.mean((pass_scores >= 0.0) != y_test))
    svc_error = float(np.mean((svc_scores >= 0.0) != y_test))
    print(
        f"a9a: {len(X)} training rows (order from seed {args.seed}), {len(y_test)} test rows; "
        f"RBF gamma={GAMMA}, C={C}, tau=tol={TAU}, cache {args.cache_mb} MB each\n"
    )
    print("| model | CPU s | test error % | #SV | kernel evaluations |")
    print("|---|---:|---:|---:|---:|")
    print(
        f"| LASVM one pass (learn_one), no finishing | {online:.1f} | {100 * pass_error:.2f} | "
        f"{n_support_pass} | - |"
    )
    print(
        f"| LASVM one pass + finishing | {online + finishing:.1f} | {100 * our_error:.2f} | "
        f"{model.n_support_} | {model.n_kernel_evaluations_:,} |"
    )
    print(f"| SVC (LIBSVM) | {svc_fit:.1f} | {100 * svc_error:.2f} | {svc.n_support_.sum()} | - |")
    print(
        f"\nLASVM/SVC CPU time: {(online + finishing) / svc_fit:.2f}; support vectors after the "
        f"pass {n_support_pass}, after finishing {model.n_support_} ({steps} finishing steps, "
        f"{finishing:.1f} s); bias LASVM {model.bias_:.4f}, SVC {float(svc.intercept_[0]):.4f}"
    )
    gap = np.abs(ours - svc_scores)
    print(
        f"test decisions: max |f_LASVM - f_SVC| = {gap.max():.2e}, median {np.median(gap):.2e}, "
        f"same sign on {100 * np.mean((ours >= 0) == (svc_scores >= 0)):.2f}% of the test rows\n"
    )
    print("| samples | CPU us / learn_one | #SV | members |")
    print("|---:|---:|---:|---:|")
    for seen, per_sample, n_support, members in blocks:
        print(f"| {seen} | {1e6 * per_sample:.0f} | {n_support} | {members} |")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=32561)
    parser.add_argument("--block", type=int, default=2000)
    parser.add_argument("--cache-mb", type=float, default=200.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--epochs", type=int, nargs="*", default=[])
    args = parser.parse_args(argv)
    X, y, X_test, y_test = load(args.samples, args.seed)
    dicts, labels = as_dicts(X), y.tolist()
    test_dicts = as_dicts(X_test)
    warm_up(dicts, labels)
    model, online, finishing, steps, after_pass, blocks = run_lasvm(
        dicts, labels, test_dicts, args.block, args.cache_mb
    )
    svc, svc_fit, svc_scores = run_svc(X, y, X_test, args.cache_mb)
    ours = np.array([model.decision_one(x) for x in test_dicts])
    times = (online, finishing, steps, after_pass, blocks)
    report(args, X, model, times, svc, svc_fit, svc_scores, ours, y_test)
    print(f"\nafter one pass + finishing: {margin_count(model, dicts, labels)}")
    if args.epochs:
        run_epochs(args, dicts, labels, test_dicts, y_test, svc_scores)


if __name__ == "__main__":
    main()
