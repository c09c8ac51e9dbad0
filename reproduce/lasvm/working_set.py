"""How many pair steps the choice of the working pair and LIBSVM's shrinking account for, on one
Table 3.2 set (issue 37: the two causes the page names for finishing's step count on Banana).

For each run it prints:

* LIBSVM (scikit-learn's ``SVC``, the run's C and gamma, ``tol = tau``, Table 3.1's cache) with
  and without shrinking: iterations (``n_iter_``), CPU seconds and #SV;
* the same dual solved from ``alpha = 0`` by a plain SMO over the whole precomputed kernel
  matrix (no shrinking, no cache), once with the maximal violating pair (first order: the pair
  REPROCESS and LASVM's finishing take, section 3.2.1.1) and once with LIBSVM's second-order
  choice of the second index (Fan, Chen and Lin 2005, LIBSVM's ``select_working_set``); the same
  stopping rule (the largest violation below ``tau``). The second-order count is a check of this
  solver against LIBSVM without shrinking, which makes the same choice;
* LASVM x1 offline (``learn_epochs``, one pass, then ``finish()``): the REPROCESS steps of
  finishing and the members the pass left.

    python -m reproduce.lasvm.working_set --dataset banana --runs 3 --orders 3
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from imbalance_stream.svm import LASVM
from reproduce.lasvm.protocol import CH3_SETTINGS, TAU, _warm_up, as_dicts, load_split


@numba.njit(cache=False)
def smo(K, y, C, eps, second_order, max_iter):  # pragma: no cover - compiled
    """LIBSVM's SMO (``Solver::Solve`` without shrinking) on the full kernel matrix ``K``, labels
    ``y`` in {-1, +1}, box ``[0, C]``, from ``alpha = 0``. The first index is the most violating
    one of I_up; the second is the most violating of I_low (``second_order`` False) or the one
    of largest second-order gain (True). Stops when the maximal violation is below ``eps``.
    Returns ``(iterations, alpha)``."""
    n = y.shape[0]
    alpha = np.zeros(n)
    G = -np.ones(n)
    it = 0
    while it < max_iter:
        g_max = -np.inf
        i = -1
        for t in range(n):
            if y[t] > 0:
                if alpha[t] < C and -G[t] >= g_max:
                    g_max = -G[t]
                    i = t
            elif alpha[t] > 0 and G[t] >= g_max:
                g_max = G[t]
                i = t
        g_max2 = -np.inf
        j = -1
        best = np.inf
        for t in range(n):
            if y[t] > 0:
                if alpha[t] > 0:
                    violation = G[t]
                else:
                    continue
            elif alpha[t] < C:
                violation = -G[t]
            else:
                continue
            if violation >= g_max2:
                g_max2 = violation
                if not second_order:
                    j = t
            if second_order:
                grad_diff = g_max + violation
                if grad_diff > 0:
                    quad = K[i, i] + K[t, t] - 2.0 * K[i, t]
                    if quad <= 0:
                        quad = 1e-12
                    gain = -(grad_diff * grad_diff) / quad
                    if gain <= best:
                        best = gain
                        j = t
        if i < 0 or j < 0 or g_max + g_max2 < eps:
            break
        it += 1
        old_i = alpha[i]
        old_j = alpha[j]
        if y[i] != y[j]:
            quad = K[i, i] + K[j, j] + 2.0 * y[i] * y[j] * K[i, j]
            if quad <= 0:
                quad = 1e-12
            delta = (-G[i] - G[j]) / quad
            diff = alpha[i] - alpha[j]
            alpha[i] += delta
            alpha[j] += delta
            if diff > 0:
                if alpha[j] < 0:
                    alpha[j] = 0.0
                    alpha[i] = diff
            elif alpha[i] < 0:
                alpha[i] = 0.0
                alpha[j] = -diff
            if diff > 0:
                if alpha[i] > C:
                    alpha[i] = C
                    alpha[j] = C - diff
            elif alpha[j] > C:
                alpha[j] = C
                alpha[i] = C + diff
        else:
            quad = K[i, i] + K[j, j] - 2.0 * K[i, j]
            if quad <= 0:
                quad = 1e-12
            delta = (G[i] - G[j]) / quad
            total = alpha[i] + alpha[j]
            alpha[i] -= delta
            alpha[j] += delta
            if total > C:
                if alpha[i] > C:
                    alpha[i] = C
                    alpha[j] = total - C
            elif alpha[j] < 0:
                alpha[j] = 0.0
                alpha[i] = total
            if total > C:
                if alpha[j] > C:
                    alpha[j] = C
                    alpha[i] = total - C
            elif alpha[i] < 0:
                alpha[i] = 0.0
                alpha[j] = total
        d_i = alpha[i] - old_i
        d_j = alpha[j] - old_j
        for k in range(n):
            G[k] += y[k] * (y[i] * K[i, k] * d_i + y[j] * K[j, k] * d_j)
    return it, alpha


def measure(dataset: str, run: int, seed: int = 2009, order: int | None = None) -> dict:
    """The counts of the module's docstring for one run of ``dataset``; with ``order``, its
    training rows in the random order drawn from that seed (the same problem: only the solvers'
    paths change)."""
    C, gamma, cache_mb = CH3_SETTINGS[dataset]
    X, y = load_split(dataset, seed, run)[:2]
    if order is not None:
        perm = np.random.default_rng(order).permutation(len(y))
        X, y = X[perm], y[perm]
    row: dict = {"run": run}
    for shrinking in (True, False):
        svc = SVC(C=C, gamma=gamma, tol=TAU, cache_size=cache_mb, shrinking=shrinking)
        start = time.process_time()
        svc.fit(X, y)
        key = "shrinking" if shrinking else "no_shrinking"
        row[f"libsvm_{key}"] = (int(svc.n_iter_[0]), time.process_time() - start, len(svc.support_))
    # LIBSVM keeps kernel rows in single precision and calls the first row's class +1
    K = rbf_kernel(X, X, gamma=gamma).astype(np.float32).astype(np.float64)
    labels = np.where(y == y[0], 1.0, -1.0)
    for name, second in (("smo_first_order", False), ("smo_second_order", True)):
        start = time.process_time()
        steps, alpha = smo(K, labels, C, TAU, second, 50_000_000)
        row[name] = (steps, time.process_time() - start, int(np.count_nonzero(alpha)))
    model = LASVM(C=C, gamma=gamma, tau=TAU, cache_mb=cache_mb, seed=seed)
    model.learn_epochs(as_dicts(X), y.tolist(), epochs=1, shuffle=False)
    members = model.n_expansion_
    start = time.process_time()
    steps = model.finish()
    row["lasvm_finish"] = (steps, time.process_time() - start, model.n_support_, members)
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="banana", choices=sorted(CH3_SETTINGS))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--orders",
        type=int,
        default=0,
        help="also run 0 in this many random row orders (seeds 1..)",
    )
    args = parser.parse_args(argv)
    _warm_up()
    smo(np.eye(2), np.array([1.0, -1.0]), 1.0, TAU, True, 10)  # compile outside the timings
    smo(np.eye(2), np.array([1.0, -1.0]), 1.0, TAU, False, 10)
    jobs = [(run, None) for run in range(args.runs)]
    jobs += [(0, order) for order in range(1, args.orders + 1)]
    for run, order in jobs:
        row = measure(args.dataset, run, order=order)
        print(f"{args.dataset} run {run}" + ("" if order is None else f", row order {order}") + ":")
        for name in (
            "libsvm_shrinking",
            "libsvm_no_shrinking",
            "smo_first_order",
            "smo_second_order",
        ):
            steps, cpu, n_sv = row[name]
            print(f"  {name:22s} {steps:>9,d} iterations  {cpu:7.3f} CPU s  {n_sv:,d} SVs")
        steps, cpu, n_sv, members = row["lasvm_finish"]
        print(
            f"  {'lasvm_finish':22s} {steps:>9,d} REPROCESS steps  {cpu:7.3f} CPU s  {n_sv:,d} SVs"
            f" (from {members:,d} members after the pass)"
        )


if __name__ == "__main__":
    main()
