"""AVGPERC, the averaged kernel perceptron (Ertekin 2009, section 3.1), against a plain numpy
reference that averages every intermediate rule explicitly."""

from __future__ import annotations

import doctest
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets

from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.kernel import AveragedKernelPerceptron
from imbalance_stream.kernel import averaged_perceptron as module

GAMMA = 0.3


def rbf(A, b):
    return np.exp(-GAMMA * ((np.atleast_2d(A) - b) ** 2).sum(axis=1))


def phishing(n=300):
    X, y = [], []
    for x, label in itertools.islice(datasets.Phishing(), n):
        X.append([float(v) for v in x.values()])
        y.append(1.0 if label else -1.0)
    X = np.array(X)
    # shifted away from 0 so every sample has every feature (the model skips zero features)
    return (X - X.mean(0)) / (X.std(0) + 1e-12) + 10.0, np.array(y)


def reference(X, y, epochs=1):
    """The perceptron of section 3.1 with every intermediate rule kept and averaged by brute
    force: returns a function giving ``(1/T) sum_t f_t(x)``."""
    S, alpha, rules = [], [], []
    for _ in range(epochs):
        for x, s in zip(X, y):
            f = float(np.dot(alpha, rbf(np.array(S), x))) if S else 0.0
            if s * f <= 0.0:
                S.append(x)
                alpha.append(s)
            rules.append((list(S), list(alpha)))

    def averaged(x):
        values = [float(np.dot(a, rbf(np.array(s), x))) if s else 0.0 for s, a in rules]
        return float(np.mean(values))

    return averaged, len(S)


def fit(X, y, epochs=1):
    model = AveragedKernelPerceptron(gamma=GAMMA)
    for _ in range(epochs):
        for row, s in zip(X, y):
            model.learn_one(dict(enumerate(row)), s > 0)
    return model


@pytest.mark.parametrize("epochs", [1, 3])
def test_matches_the_explicit_average_of_every_rule(epochs):
    X, y = phishing(120)
    averaged, n_support = reference(X, y, epochs)
    model = fit(X, y, epochs)
    assert model.n_support == model.n_mistakes == n_support
    assert model.n_seen == epochs * len(X)
    for row in X[:40]:
        assert model.decision_one(dict(enumerate(row))) == pytest.approx(averaged(row), abs=1e-10)


@settings(max_examples=20, deadline=None)
@given(n=st.integers(min_value=1, max_value=60), seed=st.integers(0, 1000))
def test_averaged_weights_shrink_older_rules_less(n, seed):
    # c_i = (T - t_i + 1) / T lies in (0, 1] and decreases with the insertion step t_i.
    rng = np.random.default_rng(seed)
    model = AveragedKernelPerceptron(gamma=GAMMA)
    for _ in range(n):
        model.learn_one(
            {"a": float(rng.normal()), "b": float(rng.normal())}, bool(rng.random() < 0.5)
        )
    shares = model.averaged_weights() / model._alpha[: model.n_support]
    assert np.all(shares > 0.0) and np.all(shares <= 1.0)
    assert np.all(np.diff(shares) <= 0.0)


def test_untrained_model_scores_zero():
    assert AveragedKernelPerceptron().decision_one({"a": 1.0}) == 0.0


@pytest.mark.parametrize(
    "x, y, error, name",
    [
        ({"a": float("nan")}, True, InvalidFeature, "a"),
        ({"b": float("inf")}, False, InvalidFeature, "b"),
        ({"c": "text"}, True, InvalidFeature, "c"),
        ({"d": None}, True, InvalidFeature, "d"),
        ({"a": 1.0}, "third", UnknownLabel, "third"),
    ],
)
def test_bad_input_leaves_the_model_unchanged(x, y, error, name):
    model = AveragedKernelPerceptron(gamma=GAMMA)
    for i in range(6):
        model.learn_one({"a": float(i), "b": 1.0 - i}, i % 2 == 0)
    before = pickle.dumps(model)
    with pytest.raises(error, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


def test_bad_hyper_parameters_raise():
    with pytest.raises(ValueError):
        AveragedKernelPerceptron(kernel="sigmoid")
    with pytest.raises(ValueError):
        AveragedKernelPerceptron(gamma=0.0)


def test_docstring_example():
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
