"""ACOG: the jitted path against a plain-numpy transcription of Algorithm 1, and its invariants."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets

from imbalance_stream._numba import linear
from imbalance_stream.base import BinaryClassifier, InvalidFeature, NumericalError, UnknownLabel
from imbalance_stream.evaluate import replay_array
from imbalance_stream.linear_model import ACOG


def acog_reference(X, y, loss, covariance, rho, eta, gamma):
    """Seed 002, Algorithm 1 (Eq. 6 and 7) and its diagonal form, written as printed."""
    d = X.shape[1]
    mean = np.zeros(d)
    cov = np.eye(d) if covariance == "full" else np.ones(d)
    n_pos = n_neg = 0
    for x, label in zip(X, y):
        n_pos += label > 0
        n_neg += label < 0
        cost = rho if rho is not None else (n_neg + 1) / (n_pos + 1)
        rho_y = cost if label > 0 else 1.0
        margin, slope = (rho_y, 1.0) if loss == "I" else (1.0, rho_y)
        if label * (mean @ x) >= margin:
            continue  # zero loss: nothing changes, not even the covariance
        gradient = -slope * label * x
        if covariance == "full":
            cov = cov - np.outer(cov @ x, x @ cov) / (gamma + x @ cov @ x)
            mean = mean - eta * cov @ gradient
        else:
            cov = cov - cov**2 * x**2 / (gamma + cov * x**2)
            mean = mean - eta * cov * gradient
    return mean, cov


def agrawal_stream(n=2000, positive_share=0.2, seed=7):
    """Agrawal samples, standardised, labels +1/-1, features switched on progressively."""
    rows = list(datasets.synth.Agrawal(classification_function=2, seed=seed).take(4 * n))
    X = np.array([[float(v) for v in x.values()] for x, _ in rows])
    y = np.array([1.0 if label else -1.0 for _, label in rows])
    keep = np.flatnonzero(y > 0)[: int(n * positive_share)]
    keep = np.sort(np.concatenate([keep, np.flatnonzero(y < 0)[: n - keep.size]]))
    X, y = X[keep], y[keep]
    X = (X - X.mean(0)) / X.std(0)
    X[: n // 4, 5:] = 0.0  # the last features only appear later in the stream
    return X, y


CONFIGS = [
    dict(loss=loss, covariance=cov, rho=rho, eta=eta, gamma=gamma)
    for loss, cov, (rho, eta, gamma) in itertools.product(
        ["I", "II"], ["full", "diag"], [(None, 0.5, 1.0), (9.0, 5.0, 0.3)]
    )
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(map(str, c.values())))
def test_jitted_path_equals_numpy_reference(config):
    X, y = agrawal_stream()
    model = ACOG(**config, positive=1)
    for x, label in zip(X, y):
        model.learn_one({f"f{j}": v for j, v in enumerate(x)}, int(label))
    mean, cov = acog_reference(X, y, **config)
    columns = [model._features.index[f"f{j}"] for j in range(X.shape[1])]
    np.testing.assert_allclose(model._mean[columns], mean, rtol=0, atol=1e-10)
    if config["covariance"] == "full":
        np.testing.assert_allclose(model._cov[np.ix_(columns, columns)], cov, rtol=0, atol=1e-10)
    else:
        np.testing.assert_allclose(model._cov[columns], cov, rtol=0, atol=1e-10)
    assert 0 < model.n_updates < len(y)


def test_zero_loss_round_changes_nothing():
    model = ACOG(loss="I", covariance="full", rho=1.0)
    for _ in range(50):
        model.learn_one({"a": 1.0}, True)
        model.learn_one({"a": -1.0}, False)
    before = pickle.dumps(model)
    assert model.decision_one({"a": 1.0}) >= 1.0  # margin met
    updates = model.n_updates
    model.learn_one({"a": 1.0}, True)
    assert model.n_updates == updates
    assert np.array_equal(pickle.loads(before)._cov, model._cov)


def test_online_rho_counts_the_current_label_first():
    model = ACOG()
    assert model.current_rho(+1) == 1 / 2
    model.learn_one({"a": 1.0}, False)
    model.learn_one({"a": 1.0}, False)
    assert model.current_rho(+1) == 3 / 2
    assert ACOG(rho=9.0).current_rho(+1) == 9.0


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3), st.booleans()
        ),
        min_size=1,
        max_size=40,
    ),
    st.sampled_from(["I", "II"]),
)
def test_full_covariance_stays_symmetric_positive_definite_and_shrinks(samples, loss):
    model = ACOG(loss=loss, covariance="full")
    for values, label in samples:
        model.learn_one(dict(zip("abc", values)), label)
    n = model.n_features
    cov = model._cov[:n, :n]
    np.testing.assert_allclose(cov, cov.T, atol=1e-12)
    eigenvalues = np.linalg.eigvalsh(cov) if n else np.array([1.0])
    assert eigenvalues.min() > 0 and eigenvalues.max() <= 1 + 1e-9


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_probability_is_half_at_zero_score_and_monotone_in_the_score(covariance):
    model = ACOG(covariance=covariance)
    assert model.predict_proba_one({"a": 1.0}) == {True: 0.5, False: 0.5}
    assert model.predict_one({"a": 1.0}) is True  # ties go to the rare class
    for _ in range(20):
        model.learn_one({"a": 1.0, "b": 0.5}, True)
        model.learn_one({"a": -1.0, "b": 0.2}, False)
    p_pos = model.predict_proba_one({"a": 1.0, "b": 0.5})[True]
    p_neg = model.predict_proba_one({"a": -1.0, "b": 0.2})[True]
    assert p_pos > 0.5 > p_neg
    assert model.predict_one({"a": 1.0, "b": 0.5}) is True
    assert model.predict_one({"a": -1.0, "b": 0.2}) is False


def test_intercept_learns_a_bias_the_plain_model_cannot():
    plain, biased = (
        ACOG(covariance="full", eta=0.5),
        ACOG(covariance="full", eta=0.5, intercept=True),
    )
    for model in (plain, biased):
        for i in range(200):
            model.learn_one({"a": 1.0}, i % 5 == 0)
    assert plain.intercept_ == 0.0
    assert biased.intercept_ != 0.0
    assert set(biased.weights) == {"a"}


def test_weights_and_variances_by_name():
    model = ACOG(covariance="diag")
    model.learn_one({"x": 1.0, "y": -2.0}, True)
    assert set(model.weights) == {"x", "y"}
    assert all(0 < v < 1 for v in model.variances.values())


BAD_SAMPLES = [
    ({"a": float("nan")}, "fraud", InvalidFeature, "'a'"),
    ({"a": 1.0, "new": float("inf")}, "ok", InvalidFeature, "'new'"),
    ({"new": 2.0, "a": "x"}, "fraud", InvalidFeature, "'a'"),
    ({"a": None}, "ok", InvalidFeature, "'a'"),
    ({"new": 1.0}, "third", UnknownLabel, "'third'"),
    ({"new": 1.0}, None, UnknownLabel, "None"),
]


@pytest.mark.parametrize("covariance", ["full", "diag"])
@pytest.mark.parametrize("x, y, error, name", BAD_SAMPLES)
def test_bad_input_raises_and_leaves_the_model_unchanged(covariance, x, y, error, name):
    model = ACOG(covariance=covariance, positive="fraud")
    model.learn_one({"a": 1.0, "b": 2.0}, "fraud")
    model.learn_one({"a": -1.0, "b": 0.5}, "ok")
    before = pickle.dumps(model)
    with pytest.raises(error, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


def test_empty_dict_is_a_documented_no_op():
    model = ACOG()
    model.learn_one({"a": 1.0}, True)
    before = pickle.dumps(model)
    model.learn_one({}, False)
    assert pickle.dumps(model) == before
    with pytest.raises(UnknownLabel):
        ACOG().learn_one({}, None)


def test_single_class_prefix_then_both_classes():
    model = ACOG(covariance="full")
    for i in range(1000):
        model.learn_one({"a": 1.0 + i % 3, "b": -0.5}, False)
    proba = model.predict_proba_one({"a": 1.0, "b": -0.5})
    assert set(proba) == {True, False}
    model.learn_one({"a": -1.0, "b": 2.0}, True)
    assert model.classes == (True, False)


def test_labels_other_than_booleans():
    model = ACOG(positive=1)
    model.learn_one({"a": 1.0}, -1)
    model.learn_one({"a": -1.0}, 1)
    assert set(model.predict_proba_one({"a": 1.0})) == {1, -1}
    with pytest.raises(UnknownLabel, match="0"):
        model.learn_one({"a": 1.0}, 0)


@pytest.mark.parametrize(
    "params",
    [dict(loss="III"), dict(covariance="sketch"), dict(rho=0.0), dict(eta=-1.0), dict(gamma=0)],
)
def test_bad_parameters_are_refused(params):
    with pytest.raises(ValueError):
        ACOG(**params)


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_intercept_column_exists_before_any_feature(covariance):
    model = ACOG(covariance=covariance, intercept=True)
    assert model.decision_one({"a": 1.0}) == 0.0
    assert model.predict_proba_one({"a": 1.0}) == {True: 0.5, False: 0.5}
    model.learn_one({}, False)  # only the constant feature: the bias learns from it
    assert model.intercept_ < 0.0
    assert model.decision_one({"unseen": 3.0}) == model.intercept_


def _round_trip_steps(model, stream):
    """Each step's outcome (None, or the error's type and message) and the pickle after it."""
    out = []
    for x, y in stream:
        try:
            model.learn_one(x, y)
            outcome = None
        except (ValueError, ArithmeticError) as error:
            outcome = (type(error).__name__, str(error))
        out.append((outcome, pickle.dumps(model)))
    return out


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.dictionaries(
                st.sampled_from(["a", "b", "c", "d"]),
                st.one_of(
                    st.floats(-3, 3),
                    st.sampled_from([1e15, -1e15, 1e150, 0.0, float("nan")]),
                    st.integers(-5, 5),
                ),
                max_size=4,
            ),
            st.sampled_from([True, False, True, "maybe", 1, None]),
        ),
        max_size=40,
    ),
    st.sampled_from(CONFIGS),
    st.booleans(),
)
def test_the_one_call_round_is_the_transaction_s_round(stream, config, intercept):
    """learn_one's one-call round (a known label, known names, no growth: no snapshot) leaves
    every model, and raises every error, exactly as the base class's transaction does."""
    steps = _round_trip_steps(ACOG(**config, intercept=intercept), stream)
    general = ACOG(**config, intercept=intercept)
    reference = []
    for x, y in stream:
        try:
            BinaryClassifier.learn_one(general, x, y)  # through the transaction
            outcome = None
        except (ValueError, ArithmeticError) as error:
            outcome = (type(error).__name__, str(error))
        reference.append((outcome, pickle.dumps(general)))
    assert steps == reference


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_the_direct_entries_give_the_dispatcher_s_bits(covariance):
    """The usual round and the probability call the kernels' compiled entries when ``eta`` and
    ``gamma`` are floats, the dispatcher otherwise (np.float64 here, typed the same): the same
    machine code, so the same probabilities and states, bit for bit."""
    X, y = agrawal_stream(400)
    direct = ACOG(covariance=covariance, eta=0.5, gamma=2.0)
    dispatched = ACOG(covariance=covariance, eta=np.float64(0.5), gamma=np.float64(2.0))
    for row, label in zip(X, y):
        x = {f"x{j}": float(v) for j, v in enumerate(row) if v}
        assert direct.predict_proba_one(x) == dispatched.predict_proba_one(x)
        direct.learn_one(x, label > 0)
        dispatched.learn_one(x, label > 0)
    assert direct.n_updates == dispatched.n_updates > 0
    assert direct._mean.tobytes() == dispatched._mean.tobytes()
    assert direct._cov.tobytes() == dispatched._cov.tobytes()


@pytest.mark.parametrize("covariance", ["full", "diag"])
def test_a_model_unpickled_over_read_only_buffers_learns_into_its_own_arrays(covariance):
    """The direct entries write the state without the dispatcher's check that it may be
    written: a model unpickled over read-only out-of-band buffers holds writable copies, learns
    as an ordinary copy does and leaves the buffers as they were."""
    model = ACOG(covariance=covariance)
    for j in range(6):
        model.learn_one({"a": 1.0 - j, "b": 0.5 * j}, j % 2 == 0)
    buffers: list = []
    data = pickle.dumps(model, protocol=5, buffer_callback=buffers.append)
    frozen = [bytes(buffer.raw()) for buffer in buffers]
    assert frozen  # the arrays did go out of band
    clone = pickle.loads(data, buffers=frozen)
    ordinary = pickle.loads(pickle.dumps(model))
    for j in range(6):
        x = {"a": 0.3 * j, "b": -1.0}
        assert clone.predict_proba_one(x) == ordinary.predict_proba_one(x)
        clone.learn_one(x, j % 3 == 0)
        ordinary.learn_one(x, j % 3 == 0)
        assert pickle.dumps(clone) == pickle.dumps(ordinary)
    assert frozen == [bytes(buffer.raw()) for buffer in buffers]


# ---- the covariance's bound (acog_full_step_bounded) ------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 8),
    st.one_of(st.floats(-300, 308), st.floats(295, 308)),  # (often near 2^1020 and the edge)
    st.one_of(st.floats(-300, 308), st.floats(-160, 10)),
    st.floats(-300, 308),
    st.sampled_from(["exact", "above", "unknown"]),
    st.integers(0, 2**32 - 1),
)
def test_the_bounded_full_step_is_the_checked_one(n, log_cov, log_x, log_eta, given_bound, seed):
    """Given any bound that holds (or one that proves nothing), the step that may skip the
    read-only pass returns the code of the one that never does (acog_full_step) and leaves the
    same bits, over states and samples up to the edge of the float range; it leaves a finite
    bound that holds, and its own maxima are numpy's."""
    rng = np.random.default_rng(seed)
    size = n + 2  # spare capacity beyond the leading block, as the model keeps
    cov = rng.uniform(-1.0, 1.0, (size, size)) * 10.0 ** rng.uniform(log_cov - 3, log_cov)
    cov[rng.random((size, size)) < 0.3] = 0.0
    mean = rng.uniform(-1.0, 1.0, size) * 10.0 ** rng.uniform(-3, 308)
    indices = np.flatnonzero(rng.random(n) < 0.6).astype(np.int64)
    if not len(indices):
        indices = np.array([n - 1], dtype=np.int64)
    values = rng.uniform(-1.0, 1.0, len(indices)) * 10.0**log_x
    y, eta = float(rng.choice([-1.0, 1.0])), 10.0**log_eta
    largest = float(np.abs(cov).max())
    bound = np.array(
        {"exact": largest, "above": largest * 8, "unknown": linear.BOUND_UNKNOWN}[given_bound]
    )[None]
    bound_before = bound.copy()
    checked_mean, checked_cov = mean.copy(), cov.copy()
    # a margin of 1e300: a loss, so an update is tried, on almost every draw
    expected = linear.acog_full_step(
        checked_mean, checked_cov, n, indices, values, y, 1e300, 2.0, eta, 0.5
    )
    code = linear.acog_full_step_bounded(
        mean, cov, n, indices, values, y, 1e300, 2.0, eta, 0.5, bound
    )
    assert code == expected
    assert mean.tobytes() == checked_mean.tobytes() and cov.tobytes() == checked_cov.tobytes()
    if code == linear.UPDATED:
        assert np.isfinite(bound[0])
        assert bound[0] >= np.abs(cov).max() or bound[0] > linear.DOWNDATE_SAFE
    else:
        assert bound.tobytes() == bound_before.tobytes()  # nothing written
    # the step's two maxima against numpy's
    assert linear._largest_magnitude(cov) == np.abs(cov).max()
    u = linear.covariance_times_sparse(cov, n, indices, values)
    with np.errstate(over="ignore", invalid="ignore"):
        scaled = np.abs(u / 3.0)
        product = scaled.max() * np.abs(u).max()
    if not (np.isfinite(u).all() and np.isfinite(scaled).all()):
        product = np.inf
    assert linear._downdate_product(u, n, 3.0) == product


def test_the_bound_of_a_whole_stream_holds_and_is_forgotten_where_it_could_not():
    """The model's bound holds after every round of a stream (growth, an intercept, loss I and
    II); it is unknown after a pickle round trip and after the array and steps paths,
    which write the covariance without it, and a model that does not know it learns as one
    that does, bit for bit."""
    X, y = agrawal_stream(300)
    for loss in ("I", "II"):
        model = ACOG(loss=loss, covariance="full", intercept=True)
        for row, label in zip(X[:150], y[:150]):
            model.learn_one({f"f{j}": v for j, v in enumerate(row) if v}, label > 0)
            assert model._cov_bound[0] >= np.abs(model._cov).max()
        assert model._cov_bound[0] < 1e3  # (the fast path ran: the bound stays small)
        loaded = pickle.loads(pickle.dumps(model))
        assert loaded._cov_bound[0] == linear.BOUND_UNKNOWN
        for row, label in zip(X[150:], y[150:]):
            x = {f"f{j}": v for j, v in enumerate(row) if v}
            assert model.predict_proba_one(x) == loaded.predict_proba_one(x)
            model.learn_one(x, label > 0)
            loaded.learn_one(x, label > 0)
            assert pickle.dumps(model) == pickle.dumps(loaded)
        assert loaded._cov_bound[0] >= np.abs(loaded._cov).max()
        replay_array(model, X[:50], y[:50] > 0, feature_names=[f"f{j}" for j in range(X.shape[1])])
        assert model._cov_bound[0] == linear.BOUND_UNKNOWN
        model.learn_one({"f0": 1.0}, True)
        assert model._cov_bound[0] >= np.abs(model._cov).max()
        model.run_steps(X[:20], [f"f{j}" for j in range(X.shape[1])], np.ones(20, bool), y[:20] > 0)
        assert model._cov_bound[0] == linear.BOUND_UNKNOWN


def test_a_covariance_written_in_place_is_checked_once_its_bound_is_forgotten():
    """The bound is derived from the covariance: writing the covariance from outside the model
    makes it wrong, and then a downdate could leave a value that is not finite. Forgotten
    (``_reset_derived``, as unpickling does), the round runs the read-only pass and refuses:
    the model is unchanged."""
    model = ACOG(loss="II", covariance="full")
    model.learn_one({"a": 1.0, "b": 0.0001}, True)
    model.learn_one({"a": -1.0}, False)
    index = model._features.index
    a, b = index["a"], index["b"]
    # near the edge of the float range: u = cov x has u_b = 4e153, whose downdate
    # -1.795e308 - 2e153 * 4e153 overflows; the product 8e306 is below the bound's limit
    model._cov[a, a], model._cov[b, b] = 1.0, -1.795e308
    model._cov[a, b] = model._cov[b, a] = 4e153
    model._mean[:] = 0.0  # a score of 0: an update
    model._reset_derived()
    model.eta = 1e-300  # (a mean step that stays finite: only the downdate overflows)
    before = pickle.dumps(model)
    with pytest.raises(NumericalError):
        model.learn_one({"a": 1.0}, True)
    assert pickle.dumps(model) == before
