"""Multi-class DCIL-IncLPSVM (seed 001, Algorithm 5) and the MulticlassIncLPSVM baseline (§2.8).

River's check_estimator runs on them in tests/test_river_checks.py."""

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dcil_inclpsvm import D, as_dict, assert_solution_close, operations, replay

from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.svm import (
    DCILIncLPSVM,
    MulticlassDCILIncLPSVM,
    MulticlassIncLPSVM,
    lpsvm_solution,
    wlpsvm_solution,
)


def in_order(model, solution):
    """Reorder a model's [w; b] (features in first-seen order) to f0..f{D-1}, b."""
    position = {name: i for i, name in enumerate(model.feature_names)}
    return np.r_[
        [solution[position[f"f{j}"]] if f"f{j}" in position else 0.0 for j in range(D)],
        solution[-1],
    ]


def assert_equals_batch(model, held):
    X = np.array([x for x, _ in held], dtype=float).reshape(-1, D)
    labels = [label for _, label in held]
    solutions = model.solutions
    for label, count in model.counts.items():
        if count == 0:
            continue
        signs = np.array([1.0 if lab == label else -1.0 for lab in labels])
        if isinstance(model, MulticlassDCILIncLPSVM):
            expected = wlpsvm_solution(X, signs, model.C, model.kappa)
        else:
            expected = lpsvm_solution(X, signs, model.C)
        assert_solution_close(in_order(model, solutions[label]), expected)


@settings(max_examples=50, deadline=None)
@given(
    ops=st.lists(operations(st.sampled_from(["a", "b", "c", 7])), min_size=1, max_size=40),
    C=st.sampled_from([0.1, 1.0, 10.0]),
    kappa=st.sampled_from([1.0, 2.0]),
    weighted=st.booleans(),
)
def test_any_sequence_of_additions_and_retirements_equals_batch(ops, C, kappa, weighted):
    model = MulticlassDCILIncLPSVM(C=C, kappa=kappa) if weighted else MulticlassIncLPSVM(C=C)
    held = replay(model, ops)
    assert sum(model.counts.values()) == len(held)
    assert_equals_batch(model, held)


def _stream(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(["a", "b", "c"], p=[0.6, 0.3, 0.1], size=n)
    centres = {"a": [1, 0, 0], "b": [0, 1, 0], "c": [0, 0, 1]}
    X = rng.normal(size=(n, D)) + np.array([centres[label] for label in y]) * 2
    return X, y


def test_window_equals_batch_on_the_window_and_a_class_can_vanish():
    X, y = _stream()
    model = MulticlassDCILIncLPSVM(window=15)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    assert_equals_batch(model, list(zip(X[-15:], y[-15:])))
    for row, label in zip(X[-15:], y[-15:]):
        if label != "a":
            model.forget_one(as_dict(row), label)
    assert set(model.predict_proba_one(as_dict(X[0]))) == {"a", "b", "c"}
    assert model.predict_one(as_dict(X[0])) == "a"
    assert model.predict_proba_one(as_dict(X[0]))["a"] == 1.0


def test_class_j_equals_the_binary_model_with_j_positive():
    X, y = _stream()
    multi = MulticlassDCILIncLPSVM(C=2.0)
    binary = DCILIncLPSVM(C=2.0, positive="c")
    for row, label in zip(X, y):
        multi.learn_one(as_dict(row), label)
        binary.learn_one(as_dict(row), "c" if label == "c" else "rest")
    np.testing.assert_allclose(multi.solutions["c"], binary.solution, rtol=1e-10, atol=1e-14)
    assert multi.decision_one(as_dict(X[3]))["c"] == pytest.approx(
        binary.decision_one(as_dict(X[3]))
    )


def test_two_classes_give_opposite_solutions():
    X, y = _stream()
    keep = y != "c"
    model = MulticlassDCILIncLPSVM()
    for row, label in zip(X[keep], y[keep]):
        model.learn_one(as_dict(row), label)
    np.testing.assert_allclose(model.solutions["a"], -model.solutions["b"], rtol=1e-10)


def test_weights_help_the_rare_class():
    X, y = _stream(600, seed=1)
    weighted, plain = MulticlassDCILIncLPSVM(C=1.0), MulticlassIncLPSVM(C=1.0)
    for row, label in zip(X, y):
        weighted.learn_one(as_dict(row), label)
        plain.learn_one(as_dict(row), label)
    Xt, yt = _stream(600, seed=2)
    rare = yt == "c"

    def recall(m):
        return np.mean([m.predict_one(as_dict(r)) == "c" for r in Xt[rare]])

    assert recall(weighted) > recall(plain)


def test_prediction_is_the_argmax_of_decision_values_and_empty_model():
    model = MulticlassDCILIncLPSVM()
    assert model.predict_one({"f0": 1.0}) is None
    assert model.predict_proba_one({"f0": 1.0}) == {}
    X, y = _stream()
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    for row in X[:20]:
        scores = model.decision_one(as_dict(row))
        proba = model.predict_proba_one(as_dict(row))
        assert model.predict_one(as_dict(row)) == max(scores, key=scores.get)
        assert max(proba, key=proba.get) == max(scores, key=scores.get)
        assert sum(proba.values()) == pytest.approx(1.0)


@pytest.mark.parametrize("cls", [MulticlassIncLPSVM, MulticlassDCILIncLPSVM])
def test_bad_input_leaves_the_model_unchanged(cls):
    model = cls(window=30)
    X, y = _stream(20)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    model.predict_one({"f0": 0.0})
    snapshot = pickle.dumps(model)
    for x, name in [
        ({"f0": float("nan")}, "f0"),
        ({"f1": float("-inf")}, "f1"),
        ({"f2": "x"}, "f2"),
        ({"f0": None}, "f0"),
    ]:
        for action in (model.learn_one, model.forget_one):
            with pytest.raises(InvalidFeature, match=name):
                action(x, "a")
        with pytest.raises(InvalidFeature, match=name):
            model.learn_one(x, "brand new label")  # the label must not be registered either
    with pytest.raises(UnknownLabel, match="None"):
        model.learn_one({"f0": 1.0}, None)
    with pytest.raises(UnknownLabel, match="zzz"):
        model.forget_one({"f0": 1.0}, "zzz")
    with pytest.raises(ValueError, match="'new'"):
        model.forget_one({"new": 1.0}, "a")
    with pytest.raises(ValueError, match="not in the window"):
        model.forget_one({"f0": 99.0}, "a")
    assert pickle.dumps(model) == snapshot


def test_window_rebuild_forgets_a_huge_outlier():
    model = MulticlassDCILIncLPSVM(window=15)
    model.learn_one({"f0": 1e9, "f1": 1e9}, "a")
    X, y = _stream(100, seed=3)
    for row, label in zip(X, y):
        model.learn_one(as_dict(row), label)
    assert_equals_batch(model, list(zip(X[-15:], y[-15:])))


def test_first_thousand_samples_of_one_class():
    model = MulticlassDCILIncLPSVM()
    rng = np.random.default_rng(1)
    for row in rng.normal(size=(1000, D)):
        model.learn_one(as_dict(row), "a")
        assert model.predict_one(as_dict(row)) == "a"
    assert model.predict_proba_one({"f0": 1.0}) == {"a": 1.0}
    model.learn_one({"f0": 5.0, "f1": 5.0, "f2": 5.0}, "b")
    assert model.predict_one({"f0": 5.0, "f1": 5.0, "f2": 5.0}) == "b"
