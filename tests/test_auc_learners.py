"""OAM_seq and OPAUC (KOIL's linear AUC baselines) and their numba kernels."""

from __future__ import annotations

import doctest
import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets  # river.checks run on these in tests/test_river_checks.py

from imbalance_stream._numba import auc as kernels
from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.linear_model import OPAUC, OAMSeq
from imbalance_stream.linear_model import oam as oam_module
from imbalance_stream.linear_model import opauc as opauc_module

# ---- plain numpy references of the kernels -------------------------------------------------------


def moments_reference(count, mean, cov, x):
    total = count + 1
    new_mean = mean + (x - mean) / total
    new_cov = cov + (np.outer(x, x) - cov - np.outer(mean, mean)) / total
    new_cov += np.outer(mean, mean) - np.outer(new_mean, new_mean)
    return total, new_mean, new_cov


def gradient_reference(w, x, sign, mean, cov, eta, lam):
    diff = x - mean
    gradient = lam * w - sign * diff + diff * (diff @ w) + cov @ w
    step = min(eta, 1.0 / (lam + diff @ diff + np.trace(cov)))  # D-KOIL-28
    return w - step * gradient


def oam_reference(w, x, sign, buffer, c_t):
    w = w.copy()
    for row in buffer:
        diff = x - row
        loss = 1.0 - sign * (w @ diff)
        norm2 = diff @ diff
        if loss > 0 and norm2 > 0:
            w = w + min(c_t / 2, loss / norm2) * sign * diff
    return w


def phishing(n=300):
    X, y = [], []
    for x, label in itertools.islice(datasets.Phishing(), n):
        X.append([float(v) for v in x.values()])
        y.append(1.0 if label else -1.0)
    return np.array(X), np.array(y)


# ---- kernels against references -----------------------------------------------------------------


def test_opauc_kernels_match_numpy_over_a_stream():
    X, y = phishing()
    d = X.shape[1]
    state = {s: [0, np.zeros(d), np.zeros((d, d))] for s in (1.0, -1.0)}
    ref = {s: [0, np.zeros(d), np.zeros((d, d))] for s in (1.0, -1.0)}
    w, w_ref = np.zeros(d), np.zeros(d)
    for x, s in zip(X, y):
        count, mean, cov = state[s]
        state[s][0] = kernels.opauc_moments_update(count, mean, cov, d, x)
        ref[s] = list(moments_reference(*ref[s], x))
        np.testing.assert_allclose(mean, ref[s][1], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(cov, ref[s][2], rtol=1e-10, atol=1e-12)
        if state[-s][0]:
            kernels.opauc_gradient_step(w, d, x, s, state[-s][1], state[-s][2], 0.05, 0.1)
            w_ref = gradient_reference(w_ref, x, s, ref[-s][1], ref[-s][2], 0.05, 0.1)
            np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-12)
    assert np.abs(w).sum() > 0


def test_oam_pass_matches_numpy():
    X, y = phishing(120)
    rng = np.random.default_rng(0)
    w = np.zeros(X.shape[1])
    for x, s in zip(X[60:], y[60:]):
        buffer = X[rng.choice(60, 10, replace=False)]
        expected = oam_reference(w, x, s, buffer, 0.7)
        kernels.oam_seq_pass(w, X.shape[1], x, s, buffer, 10, 0.7)
        np.testing.assert_allclose(w, expected, rtol=1e-12, atol=1e-14)


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3), min_size=1, max_size=25
    )
)
def test_opauc_moments_are_the_sample_mean_and_biased_covariance(rows):
    X = np.array(rows)
    count, mean, cov = 0, np.zeros(3), np.zeros((3, 3))
    for x in X:
        count = kernels.opauc_moments_update(count, mean, cov, 3, x)
    assert count == len(X)
    np.testing.assert_allclose(mean, X.mean(axis=0), atol=1e-9)
    np.testing.assert_allclose(cov, np.cov(X.T, bias=True).reshape(3, 3), atol=1e-8)


# ---- estimators ---------------------------------------------------------------------------------


def test_opauc_estimator_matches_the_reference_algorithm():
    X, y = phishing(200)
    model = OPAUC(eta=0.05, lam=0.1)
    d = X.shape[1]
    ref = {s: [0, np.zeros(d), np.zeros((d, d))] for s in (1.0, -1.0)}
    w = np.zeros(d)
    for x, s in zip(X, y):
        model.learn_one(dict(enumerate(x)), s > 0)
        ref[s] = list(moments_reference(*ref[s], x))
        if ref[-s][0]:
            w = gradient_reference(w, x, s, ref[-s][1], ref[-s][2], 0.05, 0.1)
    learned = np.array([model.weights.get(j, 0.0) for j in range(d)])
    np.testing.assert_allclose(learned, w, rtol=1e-9, atol=1e-12)


def test_oam_buffers_are_bounded_reservoirs_of_their_class():
    model = OAMSeq(C=1.0, budget=5, seed=3)
    X, y = phishing(300)
    for x, s in zip(X, y):
        model.learn_one(dict(enumerate(x)), s > 0)
    assert model._filled[1.0] == 5 and model._filled[-1.0] == 5
    assert model.n_positive + model.n_negative == 300
    # every buffered row is one of the samples of its class
    for sign in (1.0, -1.0):
        pool = {tuple(np.round(r, 12)) for r in X[y == sign]}
        for row in model._buffer[sign][:5]:
            named = model._features.to_dict(row)
            ordered = np.array([named.get(j, 0.0) for j in range(X.shape[1])])
            assert tuple(np.round(ordered, 12)) in pool


def test_oam_reservoir_keeps_a_uniform_sample():
    # over many seeds, each of 40 same-class samples ends in the 4-slot buffer ~ 4/40 of the time
    hits = np.zeros(40)
    for seed in range(300):
        model = OAMSeq(budget=4, seed=seed)
        for i in range(40):
            model.learn_one({"i": float(i + 1)}, True)
        for v in model._buffer[1.0][:, 0]:
            hits[int(v) - 1] += 1
    frequency = hits / 300
    assert np.all(np.abs(frequency - 0.1) < 0.07)


@pytest.mark.parametrize("cls", [OAMSeq, OPAUC])
def test_learns_a_useful_ranking_on_phishing(cls):
    from scipy.stats import mannwhitneyu

    X, y = phishing(1000)
    X = (X - X[:700].mean(0)) / (X[:700].std(0) + 1e-12)
    model = cls(**({"seed": 0, "C": 0.01} if cls is OAMSeq else {"eta": 0.01, "lam": 0.01}))
    for x, s in zip(X[:700], y[:700]):
        model.learn_one(dict(enumerate(x)), s > 0)
    scores = np.array([model.decision_one(dict(enumerate(x))) for x in X[700:]])
    pos, neg = scores[y[700:] > 0], scores[y[700:] < 0]
    auc = mannwhitneyu(pos, neg).statistic / (len(pos) * len(neg))
    assert auc > 0.85


@pytest.mark.parametrize("cls", [OAMSeq, OPAUC])
@pytest.mark.parametrize(
    "x, y, error, name",
    [
        ({"a": float("nan")}, True, InvalidFeature, "a"),
        ({"b": float("inf")}, False, InvalidFeature, "b"),
        ({"c": "text"}, True, InvalidFeature, "c"),
        ({"d": None}, True, InvalidFeature, "d"),
        ({"a": 1.0}, "third", UnknownLabel, "third"),
        ({"a": 1.0}, None, UnknownLabel, "None"),
    ],
)
def test_bad_input_leaves_the_model_unchanged(cls, x, y, error, name):
    model = cls()
    model.learn_one({"a": 1.0, "b": 2.0}, True)
    model.learn_one({"a": -1.0, "b": 0.5}, False)
    before = pickle.dumps(model)
    with pytest.raises(error, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("cls", [OAMSeq, OPAUC])
def test_single_class_prefix_and_empty_dicts(cls):
    model = cls()
    for i in range(1000):
        model.learn_one({"a": float(i % 7), "b": 1.0}, False)
    model.learn_one({}, True)  # documented no-op
    assert model.decision_one({"a": 1.0}) == model.decision_one({"a": 1.0})
    model.learn_one({"a": 3.0, "b": -1.0}, True)
    assert np.isfinite(model.decision_one({"a": 3.0, "b": -1.0}))


@pytest.mark.parametrize(
    "cls, bad",
    [
        (OAMSeq, {"C": 0}),
        (OAMSeq, {"budget": 0}),
        (OAMSeq, {"budget": 2.5}),
        (OPAUC, {"eta": -1}),
        (OPAUC, {"lam": float("nan")}),
    ],
)
def test_bad_hyper_parameters_raise(cls, bad):
    with pytest.raises(ValueError):
        cls(**bad)


@pytest.mark.parametrize("module", [oam_module, opauc_module])
def test_docstring_examples(module):
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
