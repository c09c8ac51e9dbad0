"""KOIL's kernel baselines (NORMA, RBP, Forgetron, Projectron, Projectron++) against plain numpy
re-implementations of their papers' update rules."""

from __future__ import annotations

import doctest
import itertools
import pickle
import warnings

import numpy as np
import pytest
from river import datasets  # river.checks run on these in tests/test_river_checks.py

from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.kernel import NORMA, RBP, Forgetron, Projectron, ProjectronPlusPlus
from imbalance_stream.kernel import forgetron as forgetron_module
from imbalance_stream.kernel import norma as norma_module
from imbalance_stream.kernel import projectron as projectron_module
from imbalance_stream.kernel import rbp as rbp_module

GAMMA = 0.3


def rbf(A, b):
    A = np.atleast_2d(A)
    return np.exp(-GAMMA * ((A - b) ** 2).sum(axis=1))


def phishing(n=400):
    X, y = [], []
    for x, label in itertools.islice(datasets.Phishing(), n):
        X.append([float(v) for v in x.values()])
        y.append(1.0 if label else -1.0)
    X = np.array(X)
    # standardised, then shifted away from 0 (which RBF distances ignore) so that every sample has
    # every feature: the model ignores features unseen at prediction time, the reference cannot
    return (X - X.mean(0)) / (X.std(0) + 1e-12) + 10.0, np.array(y)


def score(S, alpha, x):
    return float(alpha @ rbf(np.array(S), x)) if S else 0.0


# ---- plain numpy references ---------------------------------------------------------------------


def norma_reference(X, y, eta, lam, nu, budget):
    S, alpha, rho, scores = [], np.zeros(0), 0.0, []
    for x, s in zip(X, y):
        f = score(S, alpha, x)
        scores.append(f)
        error = s * f < rho
        alpha = alpha * (1 - eta * lam)
        if error:
            if budget is not None and len(S) == budget:
                S, alpha = S[1:], alpha[1:]
            S.append(x)
            alpha = np.append(alpha, eta * s)
        rho = max(0.0, rho + eta * (nu - error))
    return np.array(scores), S, alpha


def rbp_reference(X, y, budget, seed):
    rng = np.random.default_rng(seed)
    S, alpha, scores = [], np.zeros(0), []
    for x, s in zip(X, y):
        f = score(S, alpha, x)
        scores.append(f)
        if s * f <= 0:
            if len(S) == budget:
                r = int(rng.integers(len(S)))
                S.pop(r)
                alpha = np.delete(alpha, r)
            S.append(x)
            alpha = np.append(alpha, s)
    return np.array(scores), S, alpha


def forgetron_reference(X, y, budget):
    S, alpha, scores, M, Q = [], np.zeros(0), [], 0, 0.0

    def psi(lam, mu):
        return lam * lam + 2 * lam - 2 * lam * mu

    for x, s in zip(X, y):
        f = score(S, alpha, x)
        scores.append(f)
        if s * f > 0:
            continue
        M += 1
        S.append(x)
        alpha = np.append(alpha, s)
        if len(S) > budget:
            sigma, label = abs(alpha[0]), np.sign(alpha[0])
            mu_prime = label * score(S, alpha, S[0])
            room = 15 / 32 * M - Q
            # largest phi in (0, 1] within the bound, by a fine grid + refinement with brentq
            if psi(sigma, mu_prime) <= room:
                phi = 1.0
            else:
                from scipy.optimize import brentq

                phi = brentq(
                    lambda p, s=sigma, m=mu_prime, r=room: psi(p * s, p * m) - r,
                    0.0,
                    1.0,
                    xtol=1e-15,
                )
            Q += psi(phi * sigma, phi * mu_prime)
            alpha = alpha * phi
            S, alpha = S[1:], alpha[1:]
    return np.array(scores), S, alpha, M, Q


def projectron_reference(X, y, eta, plus):
    S, alpha, scores = [], np.zeros(0), []
    for x, s in zip(X, y):
        f = score(S, alpha, x)
        scores.append(f)
        if S:
            K = np.array([rbf(np.array(S), a) for a in S])
            k = rbf(np.array(S), x)
            d = np.linalg.solve(K, k)
            delta2 = max(1.0 - k @ d, 0.0)
        else:
            d, delta2 = np.zeros(0), 1.0
        if s * f <= 0:
            if delta2 <= eta:
                alpha = alpha + s * d
            else:
                S.append(x)
                alpha = np.append(alpha, s)
        elif plus and s * f < 1:
            loss = 1 - s * f
            norm2 = max(1.0 - delta2, 0.0)
            if loss - delta2 / eta > 0 and norm2 > 0:
                tau = min(loss / norm2, 1.0, 2 * (loss - delta2 / eta) / norm2)
                alpha = alpha + tau * s * d
    return np.array(scores), S, alpha


def run(model, X, y):
    scores = []
    for x, s in zip(X, y):
        sample = dict(enumerate(x))
        scores.append(model.decision_one(sample))
        model.learn_one(sample, s > 0)
    return np.array(scores)


# ---- agreement --------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [None, 25])
def test_norma_matches_reference(budget):
    X, y = phishing(300)
    model = NORMA(eta=0.2, lam=0.05, nu=0.3, budget=budget, gamma=GAMMA)
    expected, S, alpha = norma_reference(X, y, 0.2, 0.05, 0.3, budget)
    np.testing.assert_allclose(run(model, X, y), expected, rtol=1e-9, atol=1e-12)
    assert model.n_support == len(S)
    np.testing.assert_allclose(model._alpha[: model.n_support], alpha, rtol=1e-9, atol=1e-14)


def test_rbp_matches_reference_and_respects_its_budget():
    X, y = phishing(400)
    model = RBP(budget=20, gamma=GAMMA, seed=7)
    expected, S, _ = rbp_reference(X, y, 20, 7)
    np.testing.assert_allclose(run(model, X, y), expected, rtol=1e-9, atol=1e-12)
    assert model.n_support == len(S) == 20
    assert model.n_mistakes > 20


def test_forgetron_matches_reference_and_bounds_its_damage():
    X, y = phishing(400)
    model = Forgetron(budget=15, gamma=GAMMA)
    expected, S, _, M, Q = forgetron_reference(X, y, 15)
    np.testing.assert_allclose(run(model, X, y), expected, rtol=1e-7, atol=1e-9)
    assert model.n_support == len(S) == 15
    assert model.n_mistakes == M
    assert model.damage == pytest.approx(Q, rel=1e-7)
    assert model.damage <= 15 / 32 * model.n_mistakes + 1e-9


@pytest.mark.parametrize("cls, plus", [(Projectron, False), (ProjectronPlusPlus, True)])
def test_projectron_matches_reference_with_an_exact_inverse(cls, plus):
    X, y = phishing(300)
    model = cls(eta=0.3, gamma=GAMMA)
    expected, S, _ = projectron_reference(X, y, 0.3, plus)
    np.testing.assert_allclose(run(model, X, y), expected, rtol=1e-6, atol=1e-8)
    assert model.n_support == len(S)
    K = np.array([rbf(np.array(S), a) for a in S])
    np.testing.assert_allclose(model._inverse @ K, np.eye(len(S)), atol=1e-6)
    if plus:
        assert model.n_projections > model.n_mistakes - model.n_support


def test_projectron_eta_bounds_the_support():
    X, y = phishing(400)
    sizes = []
    for eta in (0.01, 0.2, 0.6):
        model = Projectron(eta=eta, gamma=0.02)
        run(model, X, y)
        sizes.append(model.n_support)
    assert sizes[0] >= sizes[1] >= sizes[2] >= 1 and sizes[0] > sizes[2]


@pytest.mark.parametrize("cls", [Projectron, ProjectronPlusPlus])
def test_projectron_warns_that_rbf_with_eta_one_never_stores_a_vector(cls):
    with pytest.warns(UserWarning, match=r"eta=1.0\) with the rbf kernel never stores a vector"):
        model = cls(eta=1.0, gamma=0.02)
    X, y = phishing(200)
    run(model, X, y)
    assert model.n_support == 0  # the paper's rule, kept: what the warning says
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cls(eta=0.99, gamma=0.02)
        cls(eta=4.0, kernel="poly", gamma=0.02)  # k(x, x) is not bounded by 1 there


# ---- robustness -------------------------------------------------------------------------------

MODELS = [
    lambda: NORMA(gamma=GAMMA),
    lambda: RBP(budget=3, gamma=GAMMA, seed=0),
    lambda: Forgetron(budget=3, gamma=GAMMA),
    lambda: Projectron(gamma=GAMMA),
    lambda: ProjectronPlusPlus(gamma=GAMMA),
]


@pytest.mark.parametrize("make", MODELS)
@pytest.mark.parametrize(
    "x, y, error, name",
    [
        ({"a": float("nan")}, True, InvalidFeature, "a"),
        ({"b": float("-inf")}, False, InvalidFeature, "b"),
        ({"c": "text"}, True, InvalidFeature, "c"),
        ({"d": None}, True, InvalidFeature, "d"),
        ({"a": 1.0}, "third", UnknownLabel, "third"),
        ({"a": 1.0}, None, UnknownLabel, "None"),
    ],
)
def test_bad_input_leaves_the_model_unchanged(make, x, y, error, name):
    model = make()
    for i in range(6):
        model.learn_one({"a": float(i), "b": 1.0 - i}, i % 2 == 0)
    before = pickle.dumps(model)
    with pytest.raises(error, match=name):
        model.learn_one(x, y)
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("make", MODELS)
def test_single_class_prefix_then_new_features(make):
    model = make()
    for i in range(1000):
        model.learn_one({"a": float(i % 5)}, False)
    model.learn_one({}, True)
    model.learn_one({"a": 2.0, "new": 3.0}, True)
    assert np.isfinite(model.decision_one({"a": 2.0, "new": 3.0}))
    assert set(model.predict_proba_one({"a": 1.0})) == {True, False}


@pytest.mark.parametrize(
    "cls, bad",
    [
        (NORMA, {"nu": 0}),
        (NORMA, {"eta": 1.0, "lam": 1.0}),
        (NORMA, {"budget": 0}),
        (RBP, {"budget": 0}),
        (Forgetron, {"budget": 1.5}),
        (Projectron, {"eta": 0}),
        (RBP, {"kernel": "sigmoid"}),
        (Forgetron, {"gamma": -1.0}),
        (NORMA, {"degree": 0}),
    ],
)
def test_bad_hyper_parameters_raise(cls, bad):
    with pytest.raises(ValueError):
        cls(**bad)


@pytest.mark.parametrize("module", [norma_module, rbp_module, forgetron_module, projectron_module])
def test_docstring_examples(module):
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
