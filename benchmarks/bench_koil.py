"""Speed and memory of KOIL (seed 000), as ratios against peers measured in the same run.

Test-then-train (``predict_proba_one(x)`` then ``learn_one(x, y)``) over KOIL's ``letter`` file
(16 features in [0, 1], 538 positives in 15,000 rows: the positive buffer fills after about 2,800
rows), KOIL with budget 100 per class, k = 10, RS++, RBF, against:

1. the naive step: ``NaiveKOIL`` of ``tests/test_koil_reference.py``, plain numpy, which
   recomputes every opposite score from scratch (O(N^2 d) per step), as the authors' code does;
2. the same jitted KOIL but with every opposite score recomputed from scratch by a jitted loop
   before each step (``KOIL + jitted rescoring``): the algorithmic gain of the cached Gram matrix
   and incremental scores alone, without the numpy-vs-numba difference;
3. River's ``LogisticRegression`` (a linear model: the scale of a cheap River learner);
4. KOIL with every sample through the base class's transaction (``BinaryClassifier.learn_one``,
   the path of a sample with a new name or label): what KOIL's own ``learn_one``, one jitted call
   that puts back what it wrote if it fails, saves per sample;
5. the floor of the dict path's design: per sample the two encodings of the dict
   (``FeatureSpace.encode``, the second one a recall) and the two jitted calls
   (``koil_predict``, ``koil_learn``) made from Python, nothing else (no label handling, no
   transaction, no output dict); what KOIL's dict path cannot go below without fewer calls into
   numba or a cheaper encoding;
6. the floor: the kernels KOIL calls (the score of the sparse sample keeping its kernel row,
   ``koil_predict``, then the step starting from it, ``koil_learn``, with its own rollback) in
   one jitted loop over the rows, without dicts, validation or Python calls.

All models see the same rows and KOIL's final weights are checked against the naive step's.
Timings are CPU seconds of this process (``time.process_time``), medians over repetitions; within
each repetition the models take turns every ``--chunk`` samples (interleaved), on fresh instances.
Memory: River's ``_raw_memory_usage`` of KOIL along the whole stream (flat once both buffers are
full).

Run from the repository root::

    imbalance-stream data fetch koil-letter  # once, into $IMBALANCE_STREAM_DATA
    python benchmarks/bench_koil.py [--samples 4000] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from numba import njit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from river import linear_model as river_linear  # noqa: E402 - after the path set-up
from river import optim  # noqa: E402
from test_koil_reference import NaiveKOIL  # noqa: E402

from imbalance_stream._numba.budget import policy_id  # noqa: E402
from imbalance_stream._numba.kernels import kernel, kernel_id  # noqa: E402
from imbalance_stream._numba.koil import (  # noqa: E402
    COUNT,
    USED,
    koil_learn,
    koil_predict,
    undo_size,
)
from imbalance_stream.base import BinaryClassifier  # noqa: E402
from imbalance_stream.datasets import KOILBenchmark as KOILData  # noqa: E402
from imbalance_stream.kernel import KOIL  # noqa: E402
from imbalance_stream.kernel.koil import KernelPool  # noqa: E402

PARAMS = dict(budget=100, k=10, policy="rs++", loss="hinge", C=4.0, eta=0.01, gamma=2.0, seed=0)
POLICY = policy_id("rs++")
RBF = kernel_id("rbf")
FAST = "KOIL (Gram cache, incremental scores)"
NAIVE = "naive numpy step (tests)"
PLAIN = "floor: KOIL's kernels in a jitted loop"
DICT_FLOOR = "floor: 2 encodings + 2 jitted calls"


@njit(cache=True)
def rescore_opposite(X, beta, h, members, ints, cls, kind, gamma, degree, coef0):
    """The naive hot spot: ``h_i = sum_j beta_j k(x_j, x_i)`` for every vector of buffer ``cls``
    from scratch, O(N_cls n d)."""
    n = ints[USED]
    for p in range(ints[COUNT + cls]):
        i = members[cls, p]
        total = 0.0
        for j in range(n):
            total += beta[j] * kernel(kind, X[i], X[j], gamma, degree, coef0)
        h[i] = total


class TransactionKOIL(KOIL):
    """KOIL with every sample through the base class's transaction (same results): what KOIL's
    own ``learn_one`` saves."""

    learn_one = BinaryClassifier.learn_one


class DictPathFloor:
    """The floor of the dict path's design (item 5 of the module docstring): a KOIL whose
    ``predict_proba_one`` is the encoding and ``koil_predict``, and whose ``learn_one`` is the
    (recalled) encoding and ``koil_learn``, with its uniforms drawn in advance. The first samples
    (new names, the first negative label) go through KOIL's ``learn_one``. Its reservoir draws
    differ from KOIL's (they are drawn in one block here), so its model is not compared."""

    def __init__(self, n_samples):
        self.model = model = KOIL(**PARAMS)
        self.uniforms = np.random.default_rng(PARAMS["seed"]).random((n_samples, 2))
        self.t = 0
        self.kernel_args, self.params = model._arguments()

    def predict_proba_one(self, x):
        model = self.model
        pool = model._pool
        indices, values, _ = model._features.encode(x, grow=False)
        row = model.__dict__.get("_row_buffer")
        if row is None or not model._state_size:
            return model.predict_proba_one(x)
        return koil_predict(
            pool.X, pool.beta, pool.ints, pool.floats, indices, values, *self.kernel_args, row
        )

    def learn_one(self, x, label):
        model = self.model
        pool = model._pool
        indices, values, new = model._features.encode(x, grow=True)
        if new or model._negative is None:
            model.learn_one(x, label)
            return
        u_accept, u_slot = self.uniforms[self.t]
        self.t += 1
        undo = model._undo
        undo[0] = -2.0
        koil_learn(
            pool.X,
            pool.beta,
            pool.h,
            pool.G,
            pool.members,
            pool.ints,
            pool.floats,
            indices,
            values,
            1.0 if label else -1.0,
            u_accept,
            u_slot,
            *self.params,
            undo,
            model.__dict__["_row_buffer"],
        )


class RescoringKOIL(KOIL):
    """KOIL whose step first recomputes the opposite scores from scratch (same results)."""

    def _step(self, indices, values, sign):
        pool = self._pool
        opposite = 1 if sign > 0 else 0
        rescore_opposite(
            pool.X, pool.beta, pool.h, pool.members, pool.ints, opposite, *self._kernel_args()
        )
        super()._step(indices, values, sign)


@njit(cache=True)
def plain_loop(indptr, indices, values, signs, uniforms, s, kind, gamma, C, eta, policy, undo):
    """The floor: the kernels the estimator calls on each row (the score, keeping its kernel
    row, then the step from that row with its own rollback), in one jitted loop over the rows of
    a CSR matrix (no dicts, no validation, no Python call)."""
    total = 0.0
    row = np.empty(s.X.shape[0] + 1)
    for t in range(signs.shape[0]):
        row_indices = indices[indptr[t] : indptr[t + 1]]
        row_values = values[indptr[t] : indptr[t + 1]]
        score = koil_predict(
            s.X, s.beta, s.ints, s.floats, row_indices, row_values, kind, gamma, 2.0, 0.0, row
        )
        total += score
        undo[0] = -2.0
        koil_learn(
            s.X,
            s.beta,
            s.h,
            s.G,
            s.members,
            s.ints,
            s.floats,
            row_indices,
            row_values,
            signs[t],
            uniforms[t, 0],
            uniforms[t, 1],
            kind,
            gamma,
            2.0,
            0.0,
            C,
            eta,
            1.0 - eta,
            10,
            100,
            policy,
            False,
            False,
            False,
            undo,
            row,
        )
    return total


def run_plain_loop(X, y):
    """CPU seconds of :func:`plain_loop` over ``X`` on a fresh pool, and that pool."""
    pool = KernelPool(PARAMS["budget"], bounded=True)
    pool.grow_columns(X.shape[1])
    uniforms = np.random.default_rng(PARAMS["seed"]).random((len(y), 2))
    signs = np.where(y, 1.0, -1.0)
    mask = X != 0.0  # the absent features of the dicts (zeros are dropped)
    indptr = np.concatenate([[0], np.cumsum(mask.sum(axis=1))]).astype(np.int64)
    indices = np.nonzero(mask)[1].astype(np.int64)
    values = X[mask]
    undo = np.full(undo_size(pool.X.shape[1], pool.G.shape[0], pool.X.shape[0]), -2.0)
    start = time.process_time()
    plain_loop(
        indptr,
        indices,
        values,
        signs,
        uniforms,
        pool.state(),
        RBF,
        PARAMS["gamma"],
        PARAMS["C"],
        PARAMS["eta"],
        POLICY,
        undo,
    )
    return time.process_time() - start, pool


def load(n_samples: int):
    X, y, _ = KOILData("letter").to_numpy()
    X, y = X[:n_samples], np.asarray(y[:n_samples], dtype=bool)
    names = [f"x{j}" for j in range(X.shape[1])]
    dicts = [dict(zip(names, row.tolist())) for row in X]
    return X, y, dicts


def run_river_model(model, dicts, labels):
    start = time.process_time()
    for x, label in zip(dicts, labels):
        model.predict_proba_one(x)
        model.learn_one(x, label)
    return time.process_time() - start, model


def run_naive(model, X, y):
    start = time.process_time()
    for row, label in zip(X, y):
        model.score(row)
        model.learn(row, 1 if label else -1)
    return time.process_time() - start, model


def interleaved(makers, X, y, dicts, chunk):
    """CPU seconds of one pass per model on fresh instances, the models taking turns every
    ``chunk`` samples so that a change of the machine's load hits all of them alike."""
    labels = y.tolist()
    models = {name: make() for name, make in makers.items()}
    naive = NaiveKOIL(**PARAMS)
    seconds = dict.fromkeys([*makers, NAIVE], 0.0)
    for start in range(0, len(labels), chunk):
        part = slice(start, start + chunk)
        for name, model in models.items():
            seconds[name] += run_river_model(model, dicts[part], labels[part])[0]
        seconds[NAIVE] += run_naive(naive, X[part], y[part])[0]
    return seconds, models[FAST], naive


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunk", type=int, default=500, help="samples per turn")
    args = parser.parse_args(argv)

    X, y, dicts = load(args.samples)
    labels = y.tolist()
    # compile once, outside the timings
    run_river_model(KOIL(**PARAMS), dicts[:300], labels[:300])
    run_river_model(RescoringKOIL(**PARAMS), dicts[:300], labels[:300])

    makers = {
        FAST: lambda: KOIL(**PARAMS),
        "KOIL + jitted rescoring (O(N^2 d))": lambda: RescoringKOIL(**PARAMS),
        "river LogisticRegression": lambda: river_linear.LogisticRegression(optim.SGD(0.01)),
        "KOIL, every sample a transaction": lambda: TransactionKOIL(**PARAMS),
        DICT_FLOOR: lambda: DictPathFloor(len(y)),
    }
    for name in ("KOIL, every sample a transaction", DICT_FLOOR):
        run_river_model(makers[name](), dicts[:300], labels[:300])
    times = {name: [] for name in [*makers, NAIVE, PLAIN]}
    X = np.ascontiguousarray(X, dtype=np.float64)
    run_plain_loop(X[:300], y[:300])  # compile
    for _ in range(args.repeats):
        seconds, fast, naive = interleaved(makers, X, y, dicts, args.chunk)
        for name, value in seconds.items():
            times[name].append(value)
        elapsed, plain_pool = run_plain_loop(X, y)
        times[PLAIN].append(elapsed)

    # same weights as the naive step
    for flag, label in ((True, 1), (False, -1)):
        _, alphas = fast.support_vectors(positive=flag)
        np.testing.assert_allclose(alphas, naive.alphas[label], rtol=1e-9, atol=1e-12)
        cls = 0 if flag else 1
        plain_alphas = plain_pool.buffer(cls)[1]
        np.testing.assert_allclose(alphas, plain_alphas, rtol=1e-9, atol=1e-12)

    reference = statistics.median(times[FAST])
    print(
        f"letter, first {len(y)} rows ({int(y.sum())} positive), KOIL budget 100/class, k = 10, "
        f"RS++; median of {args.repeats} runs; n_support at the end {fast.n_support}"
    )
    river = statistics.median(times["river LogisticRegression"])
    print(f"{'model':42s} {'samples/s':>10s} {'time / KOIL':>12s} {'x LogisticRegression':>21s}")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"{name:42s} {len(y) / median:10.0f} {median / reference:12.2f} {river / median:21.2f}"
        )

    # memory along a long stream (the whole file)
    X_all, y_all, dicts_all = load(15_000)
    model = KOIL(**PARAMS)
    checkpoints = {1_000, 3_000, 5_000, 10_000, 15_000}
    print("\nKOIL memory (River _raw_memory_usage, bytes) along the whole letter stream")
    for t, (x, label) in enumerate(zip(dicts_all, y_all.tolist()), start=1):
        model.learn_one(x, label)
        if t in checkpoints:
            print(
                f"  after {t:6d} samples: {model._raw_memory_usage:9d}"
                f"   n_support {model.n_support}"
            )


if __name__ == "__main__":
    main()
