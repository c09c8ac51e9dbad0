"""Binary IncLPSVM and DCIL-IncLPSVM (seed 001, Algorithms 3 and 4): exactness, windows, fallbacks,
River protocol and bad input. River's check_estimator runs on every configuration of
``_unit_test_params`` in tests/test_river_checks.py, which collects the exported estimators."""

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.svm import DCILIncLPSVM, IncLPSVM, lpsvm_solution, wlpsvm_solution

D = 3


def as_dict(row):
    return {f"f{j}": float(v) for j, v in enumerate(row)}


def solution_in_order(model, d=D):
    """O = [w; b] with the weights in column order f0..f{d-1} (unseen features weigh 0)."""
    weights = model.weights
    return np.r_[[weights.get(f"f{j}", 0.0) for j in range(d)], model.bias]


def assert_solution_close(got, expected):
    """Equal to round-off: relative for solutions of norm above 1, absolute (1e-9) below. The
    statistics hold the constant feature 1, so their round-off is relative to O(1) whatever the
    solution's own size: a solution of 0 (one class held by DCIL, or all-zero samples) or one
    that is itself round-off (inputs near 1e-150) cannot demand a relative agreement."""
    assert np.linalg.norm(got - expected) <= 1e-9 * max(np.linalg.norm(expected), 1.0)


def assert_equal_to_batch(model, X, y, reference):
    expected = reference(np.asarray(X).reshape(-1, D), np.asarray(y, dtype=float))
    assert_solution_close(solution_in_order(model), expected)


def batch_for(model):
    if isinstance(model, DCILIncLPSVM):
        return lambda X, y: wlpsvm_solution(X, y, model.C, model.kappa)
    return lambda X, y: lpsvm_solution(X, y, model.C)


value = st.floats(-10, 10, allow_nan=False, allow_subnormal=False)


def operations(labels):
    """Steps ``(kind, row, label, pick)``: add ``(row, label)``, or retire held sample ``pick``."""
    return st.tuples(
        st.sampled_from(["add", "add", "add", "retire"]),
        st.lists(value, min_size=D, max_size=D),
        labels,
        st.floats(0, 1, exclude_max=True),
    )


def replay(model, ops):
    """Run the steps on ``model``; return the ``(row, label)`` samples it holds, in order.

    A retirement removes the held sample at fraction ``pick`` of the list; with none held it is
    an addition. Shared with the multi-class tests.
    """
    held = []
    for kind, row, label, pick in ops:
        if kind == "retire" and held:
            x, y = held.pop(int(pick * len(held)))
            model.forget_one(as_dict(x), y)
        else:
            model.learn_one(as_dict(row), label)
            held.append((row, label))
    return held


@settings(max_examples=60, deadline=None)
@given(
    ops=st.lists(operations(st.booleans()), min_size=1, max_size=40),
    C=st.sampled_from([0.1, 1.0, 10.0]),
    kappa=st.sampled_from([1.0, 2.0]),
    weighted=st.booleans(),
)
def test_any_sequence_of_additions_and_retirements_equals_batch(ops, C, kappa, weighted):
    model = DCILIncLPSVM(C=C, kappa=kappa) if weighted else IncLPSVM(C=C)
    held = replay(model, ops)
    X = [x for x, _ in held]
    y = [1.0 if label else -1.0 for _, label in held]
    assert_equal_to_batch(model, X, y, batch_for(model))


@settings(max_examples=30, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.lists(value, min_size=D, max_size=D), st.booleans()), min_size=1, max_size=40
    ),
    window=st.integers(1, 10),
)
def test_window_equals_batch_on_the_window(rows, window):
    model = DCILIncLPSVM(C=1.0, window=window)
    for row, label in rows:
        model.learn_one(as_dict(row), label)
    kept = rows[-window:]
    assert sum(model.counts.values()) == len(kept)
    assert_equal_to_batch(
        model, [r for r, _ in kept], [1.0 if lab else -1.0 for _, lab in kept], batch_for(model)
    )


def _stream(n=80, share=0.2, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.random(n) < share
    X = rng.normal(size=(n, D)) + np.where(y, 1.0, -0.5)[:, None]
    return X, y


def test_order_invariance_and_add_then_retire_is_identity():
    X, y = _stream()
    forward, backward = DCILIncLPSVM(C=2.0), DCILIncLPSVM(C=2.0)
    for row, label in zip(X, y):
        forward.learn_one(as_dict(row), label)
    for row, label in zip(X[::-1], y[::-1]):
        backward.learn_one(as_dict(row), label)
    np.testing.assert_allclose(solution_in_order(forward), solution_in_order(backward), rtol=1e-12)
    before = solution_in_order(forward)
    extra = {"f0": 0.3, "f1": -1.7, "f2": 2.5}
    forward.learn_one(extra, True)
    forward.forget_one(extra, True)
    np.testing.assert_allclose(solution_in_order(forward), before, rtol=1e-12)


def test_statistics_structure_count_is_bias_entry():
    X, y = _stream()
    model = DCILIncLPSVM()
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    assert model._stats[0, 0, 0] == model.counts[True] == int(y.sum())
    assert model._stats[1, 0, 0] == model.counts[False] == int((~y).sum())


def test_kappa_equals_scaled_c_and_balanced_kappa_two_equals_inclpsvm():
    X, y = _stream()
    a, b = DCILIncLPSVM(C=0.5, kappa=4.0), DCILIncLPSVM(C=2.0, kappa=1.0)
    for row, label in zip(X, y):
        a.learn_one(as_dict(row), label)
        b.learn_one(as_dict(row), label)
    np.testing.assert_allclose(solution_in_order(a), solution_in_order(b), rtol=1e-11)
    balanced = np.r_[np.flatnonzero(y)[:10], np.flatnonzero(~y)[:10]]
    dcil, plain = DCILIncLPSVM(C=3.0, kappa=2.0), IncLPSVM(C=3.0)
    for i in balanced:
        dcil.learn_one(as_dict(X[i]), y[i])
        plain.learn_one(as_dict(X[i]), y[i])
    np.testing.assert_allclose(solution_in_order(dcil), solution_in_order(plain), rtol=1e-11)


def test_weighting_rescues_the_minority_on_the_toy_rectangles():
    rng = np.random.default_rng(3)
    pos = np.c_[rng.uniform(0.1, 1.1, 5), rng.uniform(-1, 1, 5)]
    neg = np.c_[rng.uniform(-1.1, -0.1, 300), rng.uniform(-1, 1, 300)]
    dcil, plain = DCILIncLPSVM(C=10.0), IncLPSVM(C=10.0)
    for row, label in [(r, True) for r in pos] + [(r, False) for r in neg]:
        dcil.learn_one(as_dict(row), label)
        plain.learn_one(as_dict(row), label)
    assert all(dcil.predict_one(as_dict(r)) is True for r in pos)
    assert all(plain.predict_one(as_dict(r)) is False for r in pos)


def test_one_class_fallback_tie_rule_and_probabilities():
    model = DCILIncLPSVM(window=3)
    assert model.predict_proba_one({"f0": 1.0}) == {True: 0.5, False: 0.5}
    assert model.predict_one({"f0": 1.0}) is True  # empty: tie, equal counts, positive
    for v in (1.0, 2.0, 3.0):
        model.learn_one({"f0": v}, "no")
    assert model.predict_one({"f0": 5.0}) == "no"
    assert model.predict_proba_one({"f0": 5.0}) == {True: 0.0, "no": 1.0}
    model.learn_one({"f0": -1.0}, True)
    model.learn_one({"f0": -2.0}, True)
    model.learn_one({"f0": -3.0}, True)  # the window now holds positives only
    assert model.counts == {True: 3, "no": 0}
    assert model.predict_one({"f0": 5.0}) is True
    assert model.predict_proba_one({"f0": 5.0}) == {True: 1.0, "no": 0.0}
    model.learn_one({"f0": 4.0}, "no")
    for x in ({"f0": -2.0}, {"f0": 3.0}, {"f0": 0.1}):
        proba = model.predict_proba_one(x)
        f = model.decision_one(x)
        assert proba[True] == pytest.approx(1.0 / (1.0 + math.exp(-2.0 * f)))
        assert model.predict_one(x) == max(proba, key=proba.get)


def test_tie_goes_to_the_larger_class():
    model = IncLPSVM()
    model._counts = [2, 5]
    model._negative = "no"
    model._solution = np.zeros(1)
    assert model.predict_one({}) == "no"


def test_emerging_feature_is_exact():
    X, y = _stream(40)
    X[:20, 2] = 0.0  # feature f2 appears at sample 20
    model = DCILIncLPSVM()
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    assert model.feature_names[-1] == "f2"
    assert_equal_to_batch(model, X, np.where(y, 1.0, -1.0), batch_for(model))


def test_decision_is_the_thesis_sign_convention():
    X, y = _stream()
    model = DCILIncLPSVM(C=1.0)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    O = wlpsvm_solution(X, np.where(y, 1.0, -1.0), 1.0)
    x = X[0]
    assert model.decision_one(as_dict(x)) == pytest.approx(np.r_[x, -1.0] @ O, rel=1e-10)


BAD_SAMPLES = [
    ({"f0": float("nan")}, "f0"),
    ({"f0": 1.0, "f1": float("inf")}, "f1"),
    ({"f0": "high"}, "f0"),
    ({"f0": None}, "f0"),
]


@pytest.mark.parametrize("cls", [IncLPSVM, DCILIncLPSVM])
def test_bad_input_leaves_the_model_unchanged(cls):
    model = cls(window=5)
    X, y = _stream(10)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    model.predict_one({"f0": 0.0})  # fill the cache, so the snapshot is of a settled model
    snapshot = pickle.dumps(model)
    held_label = max(model.counts, key=model.counts.get)
    for x, name in BAD_SAMPLES:
        for action in (model.learn_one, model.forget_one):
            with pytest.raises(InvalidFeature, match=name):
                action(x, held_label)
        assert pickle.dumps(model) == snapshot
    with pytest.raises(UnknownLabel, match="maybe"):
        model.learn_one({"f0": 1.0}, "maybe")
    with pytest.raises(UnknownLabel, match="None"):
        model.learn_one({"f0": 1.0}, None)
    with pytest.raises(ValueError, match="'new'"):
        model.forget_one({"new": 1.0}, held_label)
    with pytest.raises(ValueError, match="not in the window"):
        model.forget_one({"f0": 123.0}, held_label)
    with pytest.raises(TypeError):
        model.learn_one([1.0, 2.0], True)
    assert pickle.dumps(model) == snapshot
    fresh = cls()
    snapshot = pickle.dumps(fresh)
    with pytest.raises(UnknownLabel, match="holds none"):
        fresh.forget_one({"f0": 1.0}, True)
    assert pickle.dumps(fresh) == snapshot


def test_first_thousand_samples_of_one_class():
    model = DCILIncLPSVM()
    rng = np.random.default_rng(1)
    for row in rng.normal(size=(1000, D)):
        model.learn_one(as_dict(row), False)
        assert model.predict_one(as_dict(row)) is False
    model.learn_one({"f0": 3.0, "f1": 3.0, "f2": 3.0}, True)
    assert model.class_weights == {True: pytest.approx(1000 / 1001), False: pytest.approx(1 / 1001)}
    assert model.predict_one({"f0": 3.0, "f1": 3.0, "f2": 3.0}) is True


def test_constructor_validation():
    with pytest.raises(ValueError, match="C must"):
        DCILIncLPSVM(C=-1.0)
    with pytest.raises(ValueError, match="kappa"):
        DCILIncLPSVM(kappa=0.0)
    with pytest.raises(ValueError, match="window"):
        IncLPSVM(window=0)


@pytest.mark.parametrize("cls", [IncLPSVM, DCILIncLPSVM])
def test_window_forgets_the_round_off_of_a_huge_outlier(cls):
    window = 20
    model = cls(C=1.0, window=window)
    model.learn_one({"f0": 1e9, "f1": -1e9, "f2": 1e9}, True)
    X, y = _stream(5 * window, seed=6)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    # the outlier left after `window` samples; by now the statistics have been rebuilt
    assert model._window_retired < 4 * window
    assert_equal_to_batch(model, X[-window:], np.where(y[-window:], 1.0, -1.0), batch_for(model))


def test_rebuild_is_exact_on_the_window():
    model = DCILIncLPSVM(window=5)
    X, y = _stream(30, seed=8)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    before = model._stats.copy()
    model._rebuild()
    np.testing.assert_allclose(model._stats, before, rtol=1e-10, atol=1e-10)


def test_swapping_the_positive_label_negates_the_solution():
    X, y = _stream(50, seed=4)
    one, other = DCILIncLPSVM(C=1.5, positive="yes"), DCILIncLPSVM(C=1.5, positive="no")
    for row, label in zip(X, y):
        one.learn_one(as_dict(row), "yes" if label else "no")
        other.learn_one(as_dict(row), "yes" if label else "no")
    np.testing.assert_allclose(one.solution, -other.solution, rtol=1e-12)
    assert one.predict_one(as_dict(X[0])) == other.predict_one(as_dict(X[0]))


def test_an_empty_dict_is_a_sample_at_the_origin():
    # With the bias column present, {} is not empty: it is x = 0 (the base class's documented rule).
    X, y = _stream(30, seed=9)
    model = DCILIncLPSVM()
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    model.learn_one({}, False)
    assert model.counts[False] == int((~y).sum()) + 1
    assert_equal_to_batch(
        model, np.vstack([X, np.zeros(D)]), np.r_[np.where(y, 1.0, -1.0), -1.0], batch_for(model)
    )
