"""The array fast path (imbalance_stream.evaluate.array_replay, _numba/stream.py) against the dict
path and a plain-numpy reference."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import linear_model as river_linear
from scipy import sparse

from imbalance_stream._numba import sketch, stream
from imbalance_stream.base import InvalidFeature, NumericalError, UnknownLabel
from imbalance_stream.base.rows import ArrayRows
from imbalance_stream.evaluate.array_replay import has_array_path, replay_array
from imbalance_stream.linear_model import ACOG, AROW, COG, CPA, PA, PAUM, ROMMA, SACOG, Perceptron

CONFIGS = [
    {"covariance": "diag", "loss": "II"},
    {"covariance": "diag", "loss": "I", "rho": 3.0, "eta": 0.3},
    {"covariance": "diag", "loss": "II", "intercept": True, "eta": 2.0},
    {"covariance": "full", "loss": "II"},
    {"covariance": "full", "loss": "I", "rho": 9.0, "eta": 0.5},
    {"covariance": "full", "loss": "I", "intercept": True},
]


def _stream(n=3000, d=40, density=0.15, seed=0):
    """A sparse imbalanced stream with a linear signal, rows L2-normalised, some all-zero rows."""
    rng = np.random.default_rng(seed)
    X = sparse.random(n, d, density=density, random_state=seed, format="csr").toarray()
    X[rng.random(n) < 0.01] = 0.0
    truth = rng.normal(size=d)
    y = np.where(X @ truth + 0.3 * rng.normal(size=n) > 1.0, 1, -1)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return np.divide(X, norms, out=np.zeros_like(X), where=norms > 0), y


def _same_state(a: ACOG, b: ACOG):
    assert a._features.names == b._features.names
    n = len(a._features)
    assert np.array_equal(a._mean[:n], b._mean[:n])
    if a.covariance == "full":
        assert np.array_equal(a._cov[:n, :n], b._cov[:n, :n])
    else:
        assert np.array_equal(a._cov[:n], b._cov[:n])
    assert (a._n_positive, a._n_negative, a.n_updates) == (
        b._n_positive,
        b._n_negative,
        b.n_updates,
    )
    assert a._negative == b._negative


@pytest.mark.parametrize("params", CONFIGS, ids=lambda p: "-".join(map(str, p.values())))
def test_array_path_is_identical_to_the_dict_path(params):
    X, y = _stream()
    fast, slow = ACOG(**params), ACOG(**params)
    r_fast = replay_array(fast, X, y)
    r_slow = replay_array(slow, X, y, method="dict")
    assert (r_fast.path, r_slow.path) == ("array", "dict")
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    assert list(r_fast.predictions) == list(r_slow.predictions)
    _same_state(fast, slow)
    assert fast.weights == slow.weights
    # the replayed model goes on through the dict API exactly like the other one
    X2, y2 = _stream(n=300, seed=1)
    for row, label in zip(X2, y2):
        x = {j: float(v) for j, v in enumerate(row) if v != 0.0}
        assert fast.predict_proba_one(x) == slow.predict_proba_one(x)
        fast.learn_one(x, label)
        slow.learn_one(x, label)
    _same_state(fast, slow)


BASELINES = [
    Perceptron,
    lambda: Perceptron(intercept=True),
    PAUM,
    lambda: PAUM(rho=3.0, eta=0.5, tau_negative=0.5),
    lambda: COG(loss="I", eta=2.0),
    lambda: COG(loss="II", rho=9.0, eta=0.1),
    lambda: PA(C=0.1),
    CPA,
    lambda: CPA(rho=9.0),
    lambda: CPA(rule="max-loss"),
    lambda: CPA(rho=9.0, rule="max-loss"),
    ROMMA,
    AROW,
    lambda: AROW(r=0.5),
]


@pytest.mark.parametrize("make", BASELINES, ids=lambda make: repr(make()))
def test_baselines_array_path_is_identical_to_the_dict_path(make):
    X, y = _stream(n=2000)
    fast, slow = make(), make()
    r_fast = replay_array(fast, X, y)
    r_slow = replay_array(slow, X, y, method="dict")
    assert (r_fast.path, r_slow.path) == ("array", "dict")
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    assert fast.weights == slow.weights and fast.n_updates == slow.n_updates
    assert getattr(fast, "_n_positive", 0) == getattr(slow, "_n_positive", 0)
    x = {3: 0.5, 7: -0.25}
    fast.learn_one(x, 1)
    slow.learn_one(x, 1)
    assert fast.weights == slow.weights


def test_a_step_the_model_refuses_is_skipped_by_the_array_path_as_by_a_loop_that_catches_it():
    """ROMMA at weights where every mistake would overflow: learn_one raises NumericalError and
    leaves the model as it was; the array path skips the step the same way and goes on."""
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]] * 5)
    y = np.array([False, True, False, True] * 5)

    def at_the_edge():
        model = ROMMA()
        model.learn_one({0: 1.0, 1: 1.0}, True)
        model.learn_one({0: -1.0, 1: 0.5}, False)
        model._weights[:] *= 1e160
        return model

    fast, slow = at_the_edge(), at_the_edge()
    result = replay_array(fast, X, y)
    predicted, refused = [], 0
    for row, label in zip(X, y):
        x = {j: float(v) for j, v in enumerate(row) if v != 0.0}
        predicted.append(slow.predict_one(x) is True)
        try:
            slow.learn_one(x, label)
        except NumericalError:
            refused += 1
    assert result.path == "array" and refused > 0
    assert list(result.predicted_positive) == predicted
    assert fast.weights == slow.weights and fast.n_updates == slow.n_updates
    assert np.isfinite(fast._weights).all()


SACOGS = [
    {"seed": 1},
    {"sparse": True, "seed": 1},
    {"loss": "II", "m": 3, "rho": 3.0, "intercept": True, "seed": 2},
    {"sparse": True, "sketch_on_loss_only": True, "intercept": True, "seed": 5},
    {"sparse": True, "oja_step": 2.0, "loss": "II", "seed": 3},
]


@pytest.mark.parametrize("params", SACOGS, ids=lambda p: "-".join(map(str, p.values())))
def test_sacog_array_path_is_identical_to_the_dict_path(params):
    """SACOG's rows that bring new features take the dict path inside replay_array; the runs in
    between are jitted. Features here keep appearing late in the stream."""
    X, y = _stream(n=1500, d=40)
    X[:700, 30:] = 0.0  # ten features appear only after row 700
    X[:200, 10:20] = 0.0
    fast, slow = SACOG(**params), SACOG(**params)
    r_fast = replay_array(fast, X, y)
    r_slow = replay_array(slow, X, y, method="dict")
    assert r_fast.path == "array"
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    assert fast.weights == slow.weights
    assert (fast.n_updates, fast.n_sketch_updates) == (slow.n_updates, slow.n_sketch_updates)
    assert fast._negative == slow._negative and type(fast._negative) is type(slow._negative)
    x = {3: 0.5, 35: -0.25}
    assert fast.predict_proba_one(x) == slow.predict_proba_one(x)
    fast.learn_one(x, 1)
    slow.learn_one(x, 1)
    assert fast.weights == slow.weights


@pytest.mark.parametrize("sparse_form", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("intercept", [False, True])
def test_sacog_spare_columns_then_late_features(sparse_form, intercept):
    """The first row has one feature and m = 5, so the sketch keeps spare columns that the next
    features take one by one (rows through the dict path); once they are gone the later
    features, some arriving near the end, are committed at once and replayed as zero columns."""
    X, y = _stream(n=900, d=30, seed=4)
    X[:60] = 0.0
    X[0, 2] = 1.0
    for row, column in zip((5, 9, 20, 21, 40), (7, 1, 3, 12, 0)):
        X[row, column] = 0.5  # the features that take the spare columns (and one more)
    X[:600, 20:] = 0.0
    X[:850, 25:] = 0.0
    params = {"m": 5, "sparse": sparse_form, "intercept": intercept, "seed": 7}
    fast, slow = SACOG(**params), SACOG(**params)
    r_fast = replay_array(fast, X, y)
    r_slow = replay_array(slow, X, y, method="dict")
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    assert fast.weights == slow.weights
    assert (fast.n_updates, fast.n_sketch_updates) == (slow.n_updates, slow.n_sketch_updates)
    assert np.array_equal(fast.directions, slow.directions)
    x = {3: 0.5, 27: -0.25}
    assert fast.predict_proba_one(x) == slow.predict_proba_one(x)


@pytest.mark.parametrize("sparse_form", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize(
    "warmup",
    [
        [({"f3": 0.5}, 1)],  # one feature: four spare columns wait for the replay's features
        [({"f3": 0.5, "a": 1.0, "b": 2.0, "c": 1.0, "d": 0.1, "e": 0.3}, 1), ({"f7": -1.0}, -1)],
    ],
    ids=["spare-columns-left", "no-spare-column"],
)
def test_sacog_replay_after_dicts_with_named_columns(sparse_form, warmup):
    X, y = _stream(n=800, d=25, seed=3)
    X[:300, 15:] = 0.0
    names = [f"f{j}" for j in reversed(range(25))]
    fast, slow = SACOG(m=5, sparse=sparse_form, seed=2), SACOG(m=5, sparse=sparse_form, seed=2)
    for x, label in warmup:
        fast.learn_one(x, label)
        slow.learn_one(x, label)
    r_fast = replay_array(fast, X, y, feature_names=names)
    r_slow = replay_array(slow, X, y, feature_names=names, method="dict")
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    assert fast.weights == slow.weights
    assert (fast.n_updates, fast.n_sketch_updates) == (slow.n_updates, slow.n_sketch_updates)


def test_sacog_array_path_takes_the_dict_path_only_where_the_state_grows(monkeypatch):
    """With at least m features in the first row, that row goes through learn_one (it draws the
    sketch); after it, a feature only adds a zero column, and a later row goes through learn_one
    only where its names pass the arrays' capacity (16, then 32 columns: learn_one doubles it), so
    that the arrays grow as in the dict path. The features arriving later (here up to row 700)
    do not leave the jitted loop otherwise."""
    X, y = _stream(n=1500, d=40)
    X[:700, 30:] = 0.0
    X[0, :6] = 0.3
    model = SACOG(m=5, seed=1)
    calls, runs = [], []
    learn_one, run_kernel = model.learn_one, model._run_replay_kernel
    monkeypatch.setattr(model, "learn_one", lambda x, label: calls.append(x) or learn_one(x, label))

    def recorded_run(start, stop, *arrays):
        runs.append(start)
        return run_kernel(start, stop, *arrays)

    monkeypatch.setattr(model, "_run_replay_kernel", recorded_run)
    replay_array(model, X, y)
    assert len(model.weights) == 40 and model._mean.shape[0] == 64
    seen = (np.cumsum(X != 0.0, axis=0) > 0).sum(axis=1)  # distinct features up to each row
    assert seen[0] == 11  # the first row's arrays: 16 columns
    growing = [0] + [int(np.argmax(seen > capacity)) for capacity in (16, 32)]
    assert [len(x) for x in calls] == [int((X[t] != 0.0).sum()) for t in growing]
    assert runs == [0] + [t + 1 for t in growing]


def first_positions_reference(csr):
    """Plain numpy: the smallest CSR position of each column (int64 max if it never occurs)."""
    first = np.full(csr.shape[1], np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, csr.indices, np.arange(csr.indices.shape[0], dtype=np.int64))
    return first


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 60), st.integers(1, 30), st.floats(0.0, 0.5), st.integers(0, 2**31 - 1))
def test_first_positions_matches_the_numpy_reference(n_rows, n_columns, density, seed):
    csr = sparse.random(n_rows, n_columns, density=density, random_state=seed, format="csr")
    rows = ArrayRows(csr, np.ones(n_rows), list(range(n_columns)))
    assert np.array_equal(rows.first_positions(), first_positions_reference(csr))


def _replay_one_dense_sacog_row(basis, columns):
    """Run ``stream.replay_sacog`` (dense form, ``columns`` columns in use) on the row
    ``x = e_0``, the first feature's; return the state."""
    mean, eigen, rounds = np.zeros(basis.shape[1]), np.zeros(2), np.zeros(1, dtype=np.int64)
    one = np.ones(1)
    sizes = np.array([1, 1, 0, 0, 0, -1, 1], dtype=np.int64)  # one name, covered by the state
    stream.replay_sacog(
        0,
        1,
        np.array([0, 1], dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        one,
        np.zeros(1, dtype=np.bool_),  # the row brings no name
        one,
        np.zeros(1, dtype=np.int64),  # the array's column 0 is the model's column 0
        np.empty(1, dtype=np.int64),
        sizes,
        basis.shape[1],  # the capacity
        np.array([columns, columns, 0], dtype=np.int64),
        False,  # the dense form
        mean,
        np.zeros(2),
        basis,
        np.eye(2),
        np.eye(2),
        eigen,
        rounds,
        False,  # loss II
        1.0,  # rho, fixed
        False,
        np.zeros(2, dtype=np.int64),
        1.0,
        1.0,
        1.0,
        False,
        1e7,
        stream.empty_predictions(1),
    )
    return mean, basis, eigen


def test_replay_sacog_learns_each_row_over_its_own_columns():
    """Row t takes part over its leading ``columns[t]`` columns only, as in the dict path, where
    later features have no column yet. It shows where a sketch row is numerically dependent:
    its replacement (D-ACOG-8) is chosen among those columns."""
    start = np.zeros((2, 6))
    start[0, :3] = start[1, :3] = [0.48, 0.6, 0.64]  # the second row depends on the first
    mean, basis, eigen = _replay_one_dense_sacog_row(start.copy(), 3)
    expected_basis, expected_mean = start.copy(), np.zeros(6)
    one = np.ones(1)
    index, rounds = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    arguments = (index, one, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, False)
    sketch.sacog_step(expected_mean, expected_basis, np.zeros(2), rounds, 3, *arguments)
    assert np.array_equal(basis, expected_basis) and np.array_equal(mean, expected_mean)
    assert np.all(basis[:, 3:] == 0.0)
    _, wider, _ = _replay_one_dense_sacog_row(start.copy(), 6)
    assert np.any(wider[1, 3:] != 0.0)  # over six columns the replacement takes a new one


def test_sparse_input_and_a_model_with_history():
    """CSR input with explicit zeros, named columns, a model that already learned dicts."""
    X, y = _stream(n=1500, d=25, seed=3)
    names = [f"f{j}" for j in reversed(range(25))]
    warmup = [({"f3": 0.5, "bias_like": 1.0}, 1), ({"f7": -1.0}, -1)]
    fast, slow = ACOG(covariance="full"), ACOG(covariance="full")
    for x, label in warmup:
        fast.learn_one(x, label)
        slow.learn_one(x, label)
    csr = sparse.csr_matrix(X)
    csr.data[::7] = 0.0  # explicit zeros must behave as absent features
    dense = csr.toarray()
    r_fast = replay_array(fast, csr, y, feature_names=names)
    r_slow = replay_array(slow, dense, y, feature_names=names, method="dict")
    assert np.array_equal(r_fast.predicted_positive, r_slow.predicted_positive)
    _same_state(fast, slow)


def _reference_replay(X, y, loss, covariance, rho, eta, gamma=1.0):
    """Plain numpy ACOG (Algorithm 1; diagonal: D-ACOG-1), test-then-train, Laplace rho when rho
    is None (D-ACOG-10)."""
    n, d = X.shape
    mean = np.zeros(d)
    cov = np.eye(d) if covariance == "full" else np.ones(d)
    counts = [0, 0]
    predictions = np.zeros(n, dtype=int)
    for t in range(n):
        x, label = X[t], y[t]
        predictions[t] = 1 if mean @ x >= 0 else -1
        if not x.any():
            continue
        counts[0 if label > 0 else 1] += 1
        r = (counts[1] + 1.0) / (counts[0] + 1.0) if rho is None else rho
        rho_y = r if label > 0 else 1.0
        margin, slope = (rho_y, 1.0) if loss == "I" else (1.0, rho_y)
        if label * (mean @ x) >= margin:
            continue
        if covariance == "full":
            u = cov @ x
            v = x @ u
            mean = mean + eta * slope * label * gamma / (gamma + v) * u
            cov = cov - np.outer(u, u) / (gamma + v)
        else:
            cov = np.where(x != 0, gamma * cov / (gamma + cov * x * x), cov)
            mean = mean + eta * slope * label * cov * x
    return predictions, mean, cov


@pytest.mark.parametrize("covariance", ["full", "diag"])
@pytest.mark.parametrize("loss,rho", [("I", None), ("II", 4.0)])
def test_runner_matches_a_numpy_reference(covariance, loss, rho):
    X, y = _stream(n=800, d=15, density=0.4, seed=5)
    model = ACOG(covariance=covariance, loss=loss, rho=rho, eta=0.7)
    result = replay_array(model, X, y)
    predictions, mean, cov = _reference_replay(X, y, loss, covariance, rho, eta=0.7)
    assert np.array_equal(np.where(result.predicted_positive, 1, -1), predictions)
    weights = model.weights
    np.testing.assert_allclose(
        [weights.get(j, 0.0) for j in range(15)], mean, rtol=1e-9, atol=1e-12
    )
    variances = model.variances
    diagonal = np.diag(cov) if covariance == "full" else cov
    np.testing.assert_allclose([variances.get(j, 1.0) for j in range(15)], diagonal, rtol=1e-9)


def test_metrics_of_the_result():
    X, y = _stream(n=500, seed=7)
    result = replay_array(ACOG(), X, y)
    tp, tn = int((y == 1).sum()), int((y == -1).sum())
    mp = int(((y == 1) & ~result.predicted_positive).sum())
    mn = int(((y == -1) & result.predicted_positive).sum())
    assert (result.n_positive, result.n_negative) == (tp, tn)
    assert (result.mistakes_positive, result.mistakes_negative) == (mp, mn)
    assert result.weighted_sum(0.5) == pytest.approx(0.5 * (1 - mp / tp) + 0.5 * (1 - mn / tn))
    assert result.cost(0.9) == pytest.approx(0.9 * mp + 0.1 * mn)


def test_empty_rows_are_predicted_positive_and_not_learned():
    X = np.zeros((5, 3))
    X[2, 1] = 1.0
    model = ACOG()
    result = replay_array(model, X, np.array([-1, -1, -1, 1, -1]))
    assert result.predicted_positive.tolist() == [True] * 5  # every empty row scores 0
    assert (model._n_positive, model._n_negative) == (0, 1)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_non_finite_values_raise_naming_the_feature_and_leave_the_model_unchanged(bad):
    X, y = _stream(n=200, seed=2)
    model = ACOG(covariance="full")
    replay_array(model, X[:100], y[:100])
    before = pickle.dumps(model)
    X = X.copy()
    X[150, 4] = bad
    with pytest.raises(InvalidFeature, match=r"feature 'c4'.*row 150"):
        replay_array(model, X, y, feature_names=[f"c{j}" for j in range(X.shape[1])])
    assert pickle.dumps(model) == before


def test_a_third_label_raises_and_leaves_the_model_unchanged():
    X, y = _stream(n=200, seed=4)
    model = ACOG(positive=1)
    replay_array(model, X[:50], y[:50])
    before = pickle.dumps(model)
    labels = y.astype(object)
    labels[120] = "other"
    with pytest.raises(UnknownLabel, match="other"):
        replay_array(model, X, labels)
    labels = np.where(y == 1, 1, 0)  # the negative label 0 contradicts the -1 already learned
    with pytest.raises(UnknownLabel, match="0"):
        replay_array(model, X, labels)
    assert pickle.dumps(model) == before


def test_any_two_labels_and_a_single_class_prefix():
    X, y = _stream(n=600, seed=6)
    labels = np.where(y == 1, "fraud", "ok")
    labels[:200] = "ok"  # a long one-class prefix
    fast, slow = ACOG(positive="fraud"), ACOG(positive="fraud")
    r_fast = replay_array(fast, X, labels)
    r_slow = replay_array(slow, X, labels, method="dict")
    assert set(r_fast.predictions) <= {"fraud", "ok"}
    assert list(r_fast.predictions) == list(r_slow.predictions)
    _same_state(fast, slow)


def test_models_without_an_array_path():
    X, y = _stream(n=100, seed=8)
    model = river_linear.LogisticRegression()
    assert not has_array_path(model)
    assert has_array_path(ACOG())
    with pytest.raises(TypeError, match="LogisticRegression has no array path"):
        replay_array(model, X, y == 1, method="array")
    result = replay_array(model, X, y == 1)  # falls back to predict_one / learn_one
    assert result.path == "dict" and len(result.predictions) == 100


def test_bad_arguments():
    with pytest.raises(ValueError, match="one label per row"):
        replay_array(ACOG(), np.ones((3, 2)), [1, -1])
    with pytest.raises(ValueError, match="method"):
        replay_array(ACOG(), np.ones((3, 2)), [1, -1, 1], method="fast")
    with pytest.raises(ValueError, match="feature names"):
        replay_array(ACOG(), np.ones((3, 2)), [1, -1, 1], feature_names=["a"])
