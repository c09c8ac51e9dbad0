"""Speed of the seed-002 learners, as ratios against peers measured in the same run.

1. Dict API: samples/s of ``predict_proba_one(x)`` then ``learn_one(x, y)`` on a9a (rows
   L2-normalised, sparse dicts of the non-zero features) for ACOG-diag, ACOG-full, SACOG (m = 5) and
   sparse SACOG, against River's ``LogisticRegression`` and ``PAClassifier``. Each repetition runs
   every model once over the stream on a fresh instance, the models taking turns every ``--chunk``
   samples (interleaved), and the table gives the median over repetitions.
2. Array path against dict path: :func:`imbalance_stream.evaluate.replay_array` over the CSR array
   (built once, as the dicts are; the replay's own validation and column mapping are timed)
   against the ``predict_one`` + ``learn_one`` loop over prebuilt dicts (the same test-then-train
   work, the same results), for ACOG-diag, ACOG-full, SACOG and sparse SACOG.
3. Where ACOG-diag's and ACOG-full's dict-path time goes: validating and encoding the dicts
   (``FeatureSpace.encode``, called twice per sample, to predict and to learn; the second call
   recalls the first's arrays), the probability and learning kernels alone on ready arrays
   (through their compiled entries, as the dict path calls them), and the rest (labels, the
   calls).
4. ACOG-full's array path against a plain jitted loop of the same arithmetic (no predictions, no
   finiteness pass): how far the replay is from the floor of its O(d^2) work.
5. The same for SACOG and sparse SACOG (m = 5, loss II, rho estimated): a plain jitted loop of
   their sketched update (no predictions, scratch allocated once), the array path's jitted loop
   alone (``stream.replay_sacog``), ``replay_array`` and the dict path, taking turns in every
   repetition; each loop's final mean is checked against the replay's (to 1e-9).

Times are CPU seconds of this process (``time.process_time``), which other processes on shared
cores disturb less than wall time; ratios are of medians over the repetitions.

Run from the repository root (the data home is ``$IMBALANCE_STREAM_DATA``)::

    imbalance-stream data fetch a9a  # once
    python benchmarks/bench_acog.py [--samples 20000] [--repeats 5] [--sections 12345]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit
from scipy import sparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from river import linear_model as river_linear
from river import optim

from imbalance_stream._numba import linear as kernels
from imbalance_stream._numba import stream
from imbalance_stream._numba.sketch import (
    _decompose,
    _dense_mean_step,
    _sparse_mean_step,
    orthonormalise_rows,
    rebase_sparse_sketch,
    sketch_scratch,
)
from imbalance_stream.base import features
from imbalance_stream.datasets import A9A
from imbalance_stream.evaluate import replay_array
from imbalance_stream.linear_model import ACOG, SACOG
from imbalance_stream.linear_model.sacog import REBASE_THRESHOLD, initial_sketch


def load(n_samples: int):
    X, y, _ = A9A(split="all").to_numpy()
    X = X[:n_samples]
    y = np.asarray(y[:n_samples], dtype=bool)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    dicts = []
    for row in X:
        nonzero = np.flatnonzero(row)
        dicts.append(dict(zip(nonzero.tolist(), row[nonzero].tolist())))
    return sparse.csr_matrix(X), y, dicts, y.tolist()


def dict_models() -> dict:
    models = {
        "ACOG-diag": lambda: ACOG(loss="II", covariance="diag", eta=1.0),
        "ACOG-full": lambda: ACOG(loss="II", covariance="full", eta=1.0),
        "river LogisticRegression": lambda: river_linear.LogisticRegression(optim.SGD(0.01)),
        "river PAClassifier": lambda: river_linear.PAClassifier(C=1.0, mode=1),
    }
    try:
        from imbalance_stream.linear_model import SACOG
    except ImportError:
        pass
    else:
        models["SACOG m=5"] = lambda: SACOG(loss="II", m=5, sparse=False, seed=0)
        models["sparse SACOG m=5"] = lambda: SACOG(loss="II", m=5, sparse=True, seed=0)
    return models


def time_dict_pass(model, dicts, labels) -> float:
    predict, learn = model.predict_proba_one, model.learn_one
    start = time.process_time()
    for x, y in zip(dicts, labels):
        predict(x)
        learn(x, y)
    return time.process_time() - start


def interleaved_dict_passes(models: dict, dicts, labels, chunk: int) -> dict:
    """CPU seconds of one full pass per model, each on a fresh instance, the models taking
    turns every ``chunk`` samples so that a change in the machine's load hits all of them."""
    instances = {name: make() for name, make in models.items()}
    seconds = dict.fromkeys(models, 0.0)
    for start in range(0, len(dicts), chunk):
        part = slice(start, start + chunk)
        for name, model in instances.items():
            seconds[name] += time_dict_pass(model, dicts[part], labels[part])
    return seconds


def time_test_then_train(model, dicts, labels) -> float:
    predict, learn = model.predict_one, model.learn_one
    start = time.process_time()
    for x, y in zip(dicts, labels):
        predict(x)
        learn(x, y)
    return time.process_time() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--chunk", type=int, default=500, help="samples per turn in section 1")
    parser.add_argument("--sections", default="12345", help="which sections to run, e.g. 13")
    args = parser.parse_args(argv)
    X, y, dicts, labels = load(args.samples)
    print(f"a9a, first {len(labels)} rows, {int(y.sum())} positive; {args.repeats} repetitions\n")
    if "1" in args.sections:
        dict_api(dicts, labels, args.repeats, args.chunk)
    if "2" in args.sections:
        array_against_dict(X, y, dicts, labels, args.repeats)
    if "3" in args.sections:
        for covariance in ("diag", "full"):
            breakdown(covariance, dicts, labels, args.repeats)
    if "4" in args.sections:
        floor_full(X, y, args.repeats)
    if "5" in args.sections:
        floor_sacog(X, y, dicts, labels, args.repeats)


def dict_api(dicts, labels, repeats, chunk):
    """Section 1: the dict API of every model against River's, interleaved."""
    models = dict_models()
    for make in models.values():  # warm up (numba compilation, River's first calls)
        time_dict_pass(make(), dicts[:200], labels[:200])
    times = {name: [] for name in models}
    for _ in range(repeats):
        for name, seconds in interleaved_dict_passes(models, dicts, labels, chunk).items():
            times[name].append(seconds)
    rate = {name: len(labels) / statistics.median(t) for name, t in times.items()}
    peer = rate["river LogisticRegression"]
    encoder = "compiled" if features._compiled is not None else "Python (compiled module not built)"
    print(f"1. dict API, predict_proba_one + learn_one; FeatureSpace encoder: {encoder}")
    print(f"{'model':28s} {'samples/s':>12s} {'x LogisticRegression':>22s} {'x PAClassifier':>16s}")
    for name, r in rate.items():
        print(f"{name:28s} {r:12,.0f} {r / peer:22.2f} {r / rate['river PAClassifier']:16.2f}")


def array_against_dict(X, y, dicts, labels, repeats):
    """Section 2: ``replay_array`` against the dict path of the same models, same results."""
    print("\n2. array path (replay_array) vs dict path (predict_one + learn_one), same results")
    print(f"{'model':18s} {'array samples/s':>16s} {'dict samples/s':>16s} {'ratio':>8s}")
    makers = {
        name: make
        for name, make in dict_models().items()
        if name in ("ACOG-diag", "ACOG-full", "SACOG m=5", "sparse SACOG m=5")
    }
    for name, make in makers.items():
        replay_array(make(), X[:200], y[:200])  # compile
        time_test_then_train(make(), dicts[:200], labels[:200])
        array_t, dict_t = [], []
        for _ in range(repeats):
            fast, slow = make(), make()
            start = time.process_time()
            replay_array(fast, X, y)
            array_t.append(time.process_time() - start)
            dict_t.append(time_test_then_train(slow, dicts, labels))
            assert fast.weights == slow.weights  # same work, same result
        a, d = len(labels) / statistics.median(array_t), len(labels) / statistics.median(dict_t)
        print(f"{name:18s} {a:16,.0f} {d:16,.0f} {a / d:8.1f}")


@njit(cache=True)
def empty_call_4(a, b, c, d):
    """No work: the cost of calling a jitted function with the probability kernel's arguments."""
    return 0.0


@njit(cache=True)
def empty_call_11(a, b, c, d, e, f, g, h, i, j, k):
    """No work: the cost of calling a jitted function with ACOG-diag's learning kernel's
    arguments."""
    return 0


@njit(cache=True)
def empty_call_12(a, b, c, d, e, f, g, h, i, j, k, m):
    """No work: the same with ACOG-full's (which also takes the covariance's bound)."""
    return 0


def time_parts(covariance, model, dicts, labels) -> dict:
    """CPU seconds of each part of the dict path alone over ``dicts`` (one pass each)."""
    space = model._features
    arrays = [space.encode(x, grow=False)[:2] for x in dicts]
    proba = kernels.proba_full if covariance == "full" else kernels.proba_diag
    seconds = {}
    start = time.process_time()
    for x in dicts:
        space.encode(x, grow=False)
        space.encode(x, grow=True)
    seconds["encode x2"] = time.process_time() - start
    sign = model._sign
    start = time.process_time()
    for y in labels:
        sign(y)
    seconds["label check"] = time.process_time() - start
    # the kernels as the dict path calls them: through their compiled entries (no dispatcher)
    learn_types, proba_types = kernels.ACOG_ENTRY_TYPES[covariance]
    proba = kernels.compiled_entry(proba, proba_types)
    mean, cov = model._mean, model._cov
    start = time.process_time()
    for idx, val in arrays:
        proba(mean, cov, idx, val)
    seconds["proba kernel"] = time.process_time() - start
    mean, cov, size = model._mean.copy(), model._cov.copy(), model._state_size
    nan = math.nan
    bound = model._cov_bound.copy()  # (the bound of the copy too)
    start = time.process_time()
    if covariance == "full":
        learn = kernels.compiled_entry(kernels.acog_full_learn, learn_types)
        for (idx, val), y in zip(arrays, labels):
            learn(
                mean, cov, size, idx, val, 1.0 if y else -1.0, False, nan, 10, 30, 1.0, 1.0, bound
            )
    else:
        learn = kernels.compiled_entry(kernels.acog_diag_learn, learn_types)
        for (idx, val), y in zip(arrays, labels):
            learn(mean, cov, idx, val, 1.0 if y else -1.0, False, nan, 10, 30, 1.0, 1.0)
    seconds["learning kernel"] = time.process_time() - start
    # the empty calls take the learning kernel's arguments but ``n`` (the full one's bound too)
    full = covariance == "full"
    empty_learn, extra = (empty_call_12, (bound,)) if full else (empty_call_11, ())
    start = time.process_time()
    for (idx, val), y in zip(arrays, labels):
        empty_call_4(mean, cov, idx, val)
        empty_learn(mean, cov, idx, val, 1.0 if y else -1.0, False, nan, 10, 30, 1.0, 1.0, *extra)
    seconds["(two empty jitted calls, dispatcher)"] = time.process_time() - start
    plain = learn_types[:2] + learn_types[-9 - full : len(learn_types) - full]
    empty_4 = kernels.compiled_entry(empty_call_4, plain[:4])
    empty_learn = kernels.compiled_entry(
        empty_learn, plain + learn_types[len(learn_types) - full :]
    )
    start = time.process_time()
    for (idx, val), y in zip(arrays, labels):
        empty_4(mean, cov, idx, val)
        empty_learn(mean, cov, idx, val, 1.0 if y else -1.0, False, nan, 10, 30, 1.0, 1.0, *extra)
    seconds["(the same, compiled entries)"] = time.process_time() - start
    return seconds


def breakdown(covariance, dicts, labels, repeats):
    """Section 3: where ACOG's dict-path microseconds go, each part timed alone over the same
    samples (medians of ``repeats``): the two encodings (the second recalls the first), the label
    check, the two kernels on ready arrays through their compiled entries, as the dict path
    calls them (the probability; the learning round, which counts the label and steps in one
    call, with no snapshot on the usual round), what calling two empty jitted functions with
    the same arguments costs through the dispatcher and through compiled entries, and the rest
    (calls and attribute traffic); then the floor of the dict path, the encodings and the
    kernels alone, against River's LogisticRegression timed in the same repetitions."""
    n = len(dicts)
    model = ACOG(loss="II", covariance=covariance)
    time_dict_pass(model, dicts, labels)
    parts: dict[str, list[float]] = {}
    makers = {
        "whole predict_proba_one + learn_one": lambda: ACOG(loss="II", covariance=covariance),
        "river LogisticRegression": lambda: river_linear.LogisticRegression(optim.SGD(0.01)),
    }
    for _ in range(repeats):
        for name, seconds in time_parts(covariance, model, dicts, labels).items():
            parts.setdefault(name, []).append(seconds)
        for name, seconds in interleaved_dict_passes(makers, dicts, labels, 500).items():
            parts.setdefault(name, []).append(seconds)
    us = {name: 1e6 * statistics.median(t) / n for name, t in parts.items()}
    river = us.pop("river LogisticRegression")
    whole = us["whole predict_proba_one + learn_one"]
    pieces = ("encode x2", "label check", "proba kernel", "learning kernel")
    rest = whole - sum(us[name] for name in pieces)
    print(f"\n3. ACOG-{covariance} dict path, us per sample (each part alone, medians)")
    for name, value in [*us.items(), ("rest: calls, attribute traffic", rest)]:
        print(f"  {name:40s} {value:7.2f} ({100 * value / whole:3.0f}%)")
    floor = us["encode x2"] + us["proba kernel"] + us["learning kernel"]
    print(f"  River LogisticRegression, same runs     {river:7.2f}")
    print(
        f"  floor (encode x2 + the two kernels)     {floor:7.2f}: at most {river / floor:.2f}x "
        f"River LogisticRegression (measured {river / whole:.2f}x); encode x2 alone is "
        f"{100 * us['encode x2'] / river:.0f}% of River's per-sample time"
    )


@njit(cache=True)
def plain_full_loop(indptr, indices, values, signs, mean, cov, n, eta, gamma):
    """The floor of the full-covariance array path: ACOG's arithmetic (loss II, rho estimated)
    on CSR rows, with neither predictions nor the finiteness pass."""
    counts = np.zeros(2)
    for t in range(signs.shape[0]):
        if indptr[t] == indptr[t + 1]:
            continue  # an empty row is not learned, and its label not counted
        idx = indices[indptr[t] : indptr[t + 1]]
        val = values[indptr[t] : indptr[t + 1]]
        y = signs[t]
        counts[0 if y > 0 else 1] += 1.0
        slope = (counts[1] + 1.0) / (counts[0] + 1.0) if y > 0 else 1.0
        score = 0.0
        for k in range(idx.shape[0]):
            score += mean[idx[k]] * val[k]
        if y * score >= 1.0:
            continue
        u = np.zeros(n)
        for k in range(idx.shape[0]):
            row = cov[idx[k]]
            for i in range(n):
                u[i] += row[i] * val[k]
        v = 0.0
        for k in range(idx.shape[0]):
            v += val[k] * u[idx[k]]
        denominator = gamma + v
        step = eta * slope * y * gamma / denominator
        for i in range(n):
            mean[i] += step * u[i]
        for i in range(n):
            scaled = u[i] / denominator
            if scaled != 0.0:
                for j in range(n):
                    cov[i, j] -= scaled * u[j]


def floor_full(X, y, repeats):
    """Section 4: ACOG-full's array path against a plain jitted loop of the same arithmetic."""
    n = X.shape[1]
    signs = np.where(y, 1.0, -1.0)
    csr = X.tocsr()
    indptr, indices = csr.indptr.astype(np.int64), csr.indices.astype(np.int64)
    plain_full_loop(indptr, indices, csr.data, signs, np.zeros(n), np.eye(n), n, 1.0, 1.0)
    plain_t, array_t = [], []
    for _ in range(repeats):
        mean, cov = np.zeros(n), np.eye(n)
        start = time.process_time()
        plain_full_loop(indptr, indices, csr.data, signs, mean, cov, n, 1.0, 1.0)
        plain_t.append(time.process_time() - start)
        start = time.process_time()
        replay_array(ACOG(loss="II", covariance="full"), X, y)
        array_t.append(time.process_time() - start)
    rows = len(y)
    plain, array = rows / statistics.median(plain_t), rows / statistics.median(array_t)
    print("\n4. ACOG-full: array path against a plain jitted loop of the same arithmetic")
    print(f"  plain jitted loop   {plain:12,.0f} samples/s")
    print(f"  replay_array        {array:12,.0f} samples/s ({plain / array:.2f}x the loop's time)")


# ---- section 5: SACOG's floor -----------------------------------------------------------------


@njit(cache=True)
def plain_sacog_loop(indptr, indices, values, signs, columns, mean, basis, eigen, eta, gamma):
    """The floor of SACOG's dense array path: Algorithms 2-3 (loss II, rho estimated, the sketch
    updated every round, Gamma_t = I/t) on CSR rows, row ``t`` over ``columns[t]`` columns, with
    no prediction recorded and scratch allocated once. Returns the dependent rows replaced."""
    m = basis.shape[0]
    counts = np.zeros(2)
    projection, coordinates = np.empty(m), np.empty(m)
    inv_root_gamma = 1.0 / math.sqrt(gamma)
    rounds, dependent = 0, 0
    for t in range(signs.shape[0]):
        start, stop, n, y = indptr[t], indptr[t + 1], columns[t], signs[t]
        if start == stop:
            continue
        counts[0 if y > 0 else 1] += 1.0
        slope = (counts[1] + 1.0) / (counts[0] + 1.0) if y > 0 else 1.0
        score = 0.0
        for k in range(start, stop):
            score += mean[indices[k]] * values[k]
        rounds += 1
        rate = min(1.0 / rounds, 1.0)
        plain_project(basis, indices, values, start, stop, inv_root_gamma, projection)  # V xh
        for i in range(m):  # Eq. 11
            eigen[i] = (1.0 - rate) * eigen[i] + rate * projection[i] * projection[i]
        for k in range(start, stop):
            value = values[k] * inv_root_gamma * rate
            for i in range(m):
                basis[i, indices[k]] += projection[i] * value
        # the O(m d) re-orthonormalisation is the package's kernel: its arithmetic is the floor
        dependent += orthonormalise_rows(basis, n)
        if y * score >= 1.0:
            continue
        _dense_mean_step(  # Eq. 10: the package's O(m d) kernel on the row's slice
            mean,
            basis,
            eigen,
            float(rounds),
            indices[start:stop],
            values[start:stop],
            eta * slope * y,
            coordinates,
            n,
        )
    return dependent


@njit(cache=True)
def plain_project(matrix, indices, values, start, stop, scale, out):
    """``out = scale * matrix[:, row] @ row values`` for the CSR row ``start:stop``: O(m s)."""
    out[:] = 0.0
    for k in range(start, stop):
        value = values[k] * scale
        for i in range(matrix.shape[0]):
            out[i] += matrix[i, indices[k]] * value


@njit(cache=True)
def plain_sparse_sacog_loop(
    indptr, indices, values, signs, columns, state, eta, gamma, rebase_threshold
):
    """The floor of sparse SACOG's array path: Algorithms 4-6 with the package's corrections
    (D-ACOG-21, D-ACOG-22; loss II, rho estimated, Gamma_t = I/t, the sketch updated every
    round) on CSR rows, no prediction recorded, scratch allocated once. ``state`` is
    ``(w, b, Z, F, K, lam)``. The rare re-basing (D-ACOG-19) calls the package's kernel.
    Returns the number of re-basings."""
    weights, offsets, directions, transform, gram, eigen = state
    m = directions.shape[0]
    counts = np.zeros(2)
    projected, residual, delta = np.empty(m), np.empty(m), np.empty(m)
    decomposition = sketch_scratch(m)
    inv_root_gamma = 1.0 / math.sqrt(gamma)
    rounds, rebases = 0, 0
    for t in range(signs.shape[0]):
        start, stop, y = indptr[t], indptr[t + 1], signs[t]
        if start == stop:
            continue
        counts[0 if y > 0 else 1] += 1.0
        slope = (counts[1] + 1.0) / (counts[0] + 1.0) if y > 0 else 1.0
        plain_project(directions, indices, values, start, stop, 1.0, projected)  # Z_{t-1} x
        score = 0.0
        for k in range(start, stop):
            score += weights[indices[k]] * values[k]
        for i in range(m):
            score += offsets[i] * projected[i]
        rounds += 1
        rate = min(1.0 / rounds, 1.0)
        squared_norm, along = 0.0, 0.0
        for k in range(start, stop):
            hat = values[k] * inv_root_gamma
            squared_norm += hat * hat
        for i in range(m):
            residual[i] = projected[i] * inv_root_gamma  # r = Z_{t-1} xh
            delta[i] = residual[i] * rate
            along += delta[i] * offsets[i]
        for i in range(m):  # Eq. 16 with p = F r = V_{t-1} xh
            total = 0.0
            for a in range(m):
                total += transform[i, a] * residual[a]
            eigen[i] = (1.0 - rate) * eigen[i] + rate * total * total
        factor = 2.0 * rate + squared_norm * rate * rate  # Eq. 18
        for i in range(m):
            for a in range(m):
                gram[i, a] += factor * residual[i] * residual[a]
        for k in range(start, stop):
            hat = values[k] * inv_root_gamma
            for i in range(m):
                directions[i, indices[k]] += delta[i] * hat
            weights[indices[k]] -= hat * along  # D-ACOG-21
        # Algorithm 6 is O(m^3) arithmetic with no call overhead: the package's kernel serves
        if not _decompose(transform, gram, decomposition):
            rebase_sparse_sketch(weights, offsets, directions, transform, gram, columns[t], True)
            rebases += 1
        if y * score < 1.0:
            step = eta * slope * y
            _sparse_mean_step(  # Eq. 15: the package's O(m s + m^2) kernel on the row's slice
                weights,
                offsets,
                directions,
                transform,
                eigen,
                float(rounds),
                indices[start:stop],
                values[start:stop],
                step,
                decomposition,
            )
        largest = 0.0
        for i in range(m):
            for a in range(m):
                largest = max(largest, abs(gram[i, a]))
        if largest > rebase_threshold:
            rebase_sparse_sketch(weights, offsets, directions, transform, gram, columns[t], False)
            rebases += 1
    return rebases


def first_appearance(csr):
    """CSR rows over the columns the dict path gives the features (in order of first
    appearance, column order within a row): ``(indptr, indices, values, columns, order)`` with
    ``columns[t]`` the columns in use when row ``t`` is learned and ``order[c]`` the feature of
    column ``c``."""
    never = np.iinfo(np.int64).max
    first = np.full(csr.shape[1], never, dtype=np.int64)
    np.minimum.at(first, csr.indices, np.arange(csr.indices.shape[0], dtype=np.int64))
    seen = np.flatnonzero(first < never)
    order = seen[np.argsort(first[seen], kind="stable")]
    column_of = np.full(csr.shape[1], -1, dtype=np.int64)
    column_of[order] = np.arange(order.shape[0])
    indptr = csr.indptr.astype(np.int64)
    columns = np.searchsorted(np.sort(first[seen]), indptr[1:], side="left").astype(np.int64)
    values = np.ascontiguousarray(csr.data, dtype=np.float64)
    return indptr, column_of[csr.indices], values, columns, order


def sacog_start(csr, m, seed, sparse_form):
    """SACOG's state once the first row has drawn the sketch over its features (the model's
    columns ``0 .. s-1``, in name order for integer names): ``(mean, basis, eigen)`` or, sparse,
    ``(w, b, Z, F, K, lam)``, all zero beyond. Needs at least ``m`` features in row 0 (fewer
    would leave spare columns, which this floor does not hand out)."""
    present = csr.indptr[1] - csr.indptr[0]
    if present < m:
        raise ValueError(f"the first row has {present} features, fewer than m = {m}")
    basis = np.zeros((m, csr.shape[1]))
    basis[:, :present] = initial_sketch(m, present, seed)
    mean, eigen = np.zeros(csr.shape[1]), np.zeros(m)
    if sparse_form:
        return mean, np.zeros(m), basis, np.eye(m), np.eye(m), eigen
    return mean, basis, eigen


def plain_sacog(rows, signs, state, sparse_form):
    """Run the plain loop of the form over ``rows`` (from :func:`first_appearance`) from
    ``state`` (from :func:`sacog_start`), in place (eta = gamma = 1, the paper's setting)."""
    indptr, indices, values, columns, _ = rows
    if sparse_form:
        plain_sparse_sacog_loop(
            indptr, indices, values, signs, columns, state, 1.0, 1.0, REBASE_THRESHOLD
        )
    else:  # a dependent sketch row is replaced as the package does (D-ACOG-8)
        plain_sacog_loop(indptr, indices, values, signs, columns, *state, 1.0, 1.0)


def plain_sacog_weights(rows, state, sparse_form) -> dict:
    """The mean of a plain loop's final state by feature (``w + Z' b`` in the sparse form)."""
    order = rows[4]
    mean = state[0] + state[2].T @ state[1] if sparse_form else state[0]
    return dict(zip(order.tolist(), mean[: order.shape[0]].tolist()))


def jitted_replay(rows, signs, state, sparse_form):
    """The array path's jitted loop alone (``stream.replay_sacog``: predictions, the package's
    kernels, the encoding of each row over the model's columns and the check of each round)
    over ``rows`` from ``state``, in place: what ``replay_array`` runs after validating the
    rows and sending the first row through ``learn_one`` (which draws the sketch as
    :func:`sacog_start` does). The rows' columns are already the model's (in order of first
    appearance), so the column map is the identity over the first row's features, which the
    state covers, and the loop commits the others as they come."""
    indptr, indices, values, columns, _ = rows
    if sparse_form:
        weights, offsets, basis, transform, gram, eigen = state
    else:
        weights, basis, eigen = state
        m = basis.shape[0]  # the dense form has no b, F or K: m-sized ones, as the model keeps
        offsets, transform, gram = np.zeros(m), np.eye(m), np.eye(m)
    present = int(columns[0])  # the first row's features: the columns the sketch is drawn over
    colmap = np.where(np.arange(weights.shape[0]) < present, np.arange(weights.shape[0]), -1)
    sizes = np.array([present, present, 0, 0, 0, -1, 1], dtype=np.int64)  # (stream.N_NAMES ...)
    brings = np.diff(columns, prepend=present) > 0  # the rows where a feature first appears
    stopped = stream.replay_sacog(
        *(0, signs.shape[0], indptr, indices, values, brings, signs, colmap),
        *(np.empty(weights.shape[0], dtype=np.int64), sizes, weights.shape[0]),
        *(np.array([present, present, 0], dtype=np.int64), sparse_form),
        *(weights, offsets, basis, transform, gram, eigen, np.zeros(1, dtype=np.int64)),
        *(False, 1.0, True, np.zeros(2, dtype=np.int64)),  # loss II, rho estimated
        *(1.0, 1.0, 1.0, False, REBASE_THRESHOLD),  # eta, gamma, oja_step, every round
        stream.empty_predictions(signs.shape[0]),
    )
    if stopped != signs.shape[0]:  # a refused round or a growth this floor does not handle
        raise AssertionError(f"replay_sacog stopped at row {stopped} of {signs.shape[0]}")


def floor_sacog(X, y, dicts, labels, repeats):
    """Section 5: SACOG's array path (dense and sparse, m = 5) against a plain jitted loop of
    the same arithmetic, the array path's jitted loop alone and the dict path, taking turns in
    every repetition; the loops' final means are checked against the replay's."""
    csr = X.tocsr()
    rows, signs = first_appearance(csr), np.where(y, 1.0, -1.0)
    forms = {"SACOG m=5": False, "sparse SACOG m=5": True}
    paths = ("plain", "jitted", "array", "dict")
    times: dict = {(name, path): [] for name in forms for path in paths}
    for sparse_form in forms.values():  # compile
        for loop in (plain_sacog, jitted_replay):
            loop(rows, signs, sacog_start(csr, 5, 0, sparse_form), sparse_form)
        replay_array(SACOG(loss="II", m=5, sparse=sparse_form, seed=0), X[:200], y[:200])
    for _ in range(repeats):
        for name, sparse_form in forms.items():
            means = []
            for path, loop in (("plain", plain_sacog), ("jitted", jitted_replay)):
                state = sacog_start(csr, 5, 0, sparse_form)
                start = time.process_time()
                loop(rows, signs, state, sparse_form)
                times[name, path].append(time.process_time() - start)
                means.append(plain_sacog_weights(rows, state, sparse_form))
            fast = SACOG(loss="II", m=5, sparse=sparse_form, seed=0)
            start = time.process_time()
            replay_array(fast, X, y)
            times[name, "array"].append(time.process_time() - start)
            slow = SACOG(loss="II", m=5, sparse=sparse_form, seed=0)
            times[name, "dict"].append(time_test_then_train(slow, dicts, labels))
            for mean in means:
                check_same_mean(mean, fast.weights)
    print_floor_sacog({key: len(labels) / statistics.median(t) for key, t in times.items()})


def print_floor_sacog(rate: dict):
    forms = dict.fromkeys(name for name, _ in rate)
    print(
        "\n5. SACOG: the array path against a plain jitted loop of the same arithmetic; samples/s"
    )
    print("   (jitted: the array path's loop alone, without validation, column map, first row)")
    header = ("plain loop", "jitted", "replay_array", "dict", "array/plain", "plain/dict")
    print(f"{'model':18s} " + " ".join(f"{h:>12s}" for h in header))
    for name in forms:
        plain, jitted, array, slow = (rate[name, p] for p in ("plain", "jitted", "array", "dict"))
        numbers = f"{plain:12,.0f} {jitted:12,.0f} {array:12,.0f} {slow:12,.0f}"
        print(f"{name:18s} {numbers} {plain / array:12.2f} {plain / slow:12.1f}")
        print(
            f"{'':18s} replay_array {array / slow:.1f}x the dict path; jitted loop "
            f"{plain / jitted:.2f}x the plain loop's time"
        )


def check_same_mean(plain: dict, replayed: dict, tolerance: float = 1e-9):
    """Raise unless the plain loop ended at the replay's mean (same features, within
    ``tolerance``): the floor is only a floor if it does the same arithmetic."""
    if plain.keys() != replayed.keys():
        raise AssertionError("the plain loop and the replay saw different features")
    gap = max(abs(plain[name] - replayed[name]) for name in plain)
    if not gap <= tolerance:
        raise AssertionError(f"the plain loop's mean is {gap:.3g} from the replay's")


if __name__ == "__main__":
    main()
