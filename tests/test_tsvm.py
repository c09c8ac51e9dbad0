"""The sample-weighted transductive SVM (Algorithm 5) and DDR-TSVM (Algorithm 7)."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.density_ratio import DDR, NotFitted, WeightedTSVM
from imbalance_stream.density_ratio.tsvm import platt_fit, switchable_pairs

pytest.importorskip("sklearn")


def blobs(seed, n=80, classes=2):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    X = rng.normal(size=(n, 2)) + 2.0 * np.stack([np.cos(2.1 * y), np.sin(2.1 * y)], 1)
    return X, y


def platt_reference(f, positive, w):
    """Newton's method on the two sigmoid parameters, written out (Lin, Lin and Weng, 2007)."""
    n_pos, n_neg = w[positive].sum(), w[~positive].sum()
    t = np.where(positive, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))
    a, b = 0.0, np.log((n_neg + 1) / (n_pos + 1))
    for _ in range(100):
        p = 1 / (1 + np.exp(a * f + b))  # P(+|f)
        g = w * (t - p)  # d loss / dz with z = a f + b
        grad = np.array([g @ f, g.sum()])
        h = w * p * (1 - p)
        hess = np.array([[h @ (f * f), h @ f], [h @ f, h.sum()]]) + 1e-12 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        a, b = a - step[0], b - step[1]
        if np.abs(step).max() < 1e-12:
            break
    return a, b


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_platt_fit_matches_newton(seed):
    rng = np.random.default_rng(seed)
    positive = rng.random(60) < 0.4
    f = rng.normal(size=60) + np.where(positive, 1.0, -1.0)
    w = rng.exponential(size=60)
    np.testing.assert_allclose(
        platt_fit(f, positive, w), platt_reference(f, positive, w), atol=1e-4
    )


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000))
def test_switchable_pairs_are_valid_disjoint_and_none_is_missed(seed):
    rng = np.random.default_rng(seed)
    labels = np.where(rng.random(12) < 0.5, 1.0, -1.0)
    decision = rng.normal(scale=2.0, size=12)
    i, j = switchable_pairs(labels, decision)
    slack = np.maximum(0, 1 - labels * decision)
    assert len(set(i) | set(j)) == 2 * len(i)
    assert (labels[i] > 0).all() and (labels[j] < 0).all()
    assert ((slack[i] > 0) & (slack[j] > 0) & (slack[i] + slack[j] > 2)).all()
    if len(i) == 0:  # Joachims' stopping rule: no switchable pair at all
        for p, q in itertools.product(range(12), range(12)):
            if labels[p] > 0 > labels[q] and slack[p] > 0 and slack[q] > 0:
                assert slack[p] + slack[q] <= 2


def test_without_unlabelled_rows_it_is_the_weighted_svm():
    from sklearn.svm import SVC

    X, y = blobs(0)
    w = np.random.default_rng(0).exponential(size=len(y))
    ours = WeightedTSVM(C=2.0).fit(X, y, sample_weight=w)
    theirs = SVC(C=2.0, gamma=0.5).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X), atol=1e-8)
    assert ours.n_fits_ == 1


def test_transduction_anneals_and_keeps_posteriors_valid():
    X, y = blobs(1, 200)
    tsvm = WeightedTSVM(seed=0).fit(X[:20], y[:20], X_unlabelled=X[20:])
    assert tsvm.n_fits_ >= 15  # the first fit and one per stage of c2 = 1e-5 ... 0.08
    assert (tsvm.predict(X[20:]) == y[20:]).mean() > 0.9
    proba = tsvm.predict_proba(X[20:])
    np.testing.assert_allclose(proba.sum(1), 1.0)
    assert ((proba[:, 1] > 0.5) == (tsvm.predict(X[20:]) == 1)).mean() > 0.9


def test_more_than_two_classes_go_one_against_the_rest():
    X, y = blobs(2, 150, classes=3)
    tsvm = WeightedTSVM(max_switch_rounds=2, seed=0).fit(X[:60], y[:60], X_unlabelled=X[60:])
    assert tsvm.decision_function(X).shape == (150, 3)
    assert (tsvm.predict(X[60:]) == y[60:]).mean() > 0.75  # the blobs overlap
    np.testing.assert_allclose(tsvm.predict_proba(X).sum(1), 1.0)


def test_ddr_tsvm_runs_the_bcu_with_the_transductive_learner():
    X, y = blobs(3, 160)
    source = np.flatnonzero((y == 0) | (np.arange(160) % 3 == 0))[:60]
    target = np.setdiff1d(np.arange(160), source)
    ddr = DDR(
        # the learner's own seed fixes its Platt folds; DDR's seed is for DDR's own draws
        learner=WeightedTSVM(max_switch_rounds=2, seed=0),
        early_stopping=False,
        loss="hinge",
        max_iter=3,
        n_centres=30,
        seed=0,
    ).fit(X[source], y[source], X[target])
    assert ddr.best_iteration_ == ddr.n_iter_ - 1
    assert (ddr.predict(X[target]) == y[target]).mean() > 0.7  # a strong prior shift


def test_bad_input_raises_and_leaves_the_model_unchanged():
    X, y = blobs(4)
    with pytest.raises(NotFitted):
        WeightedTSVM().predict(X)
    with pytest.raises(ValueError, match="kernel"):
        WeightedTSVM(kernel="poly")
    model = WeightedTSVM(lambda2=0.0).fit(X, y)
    before = pickle.dumps(model)
    bad = X[:3].copy()
    bad[2, 1] = np.inf
    with pytest.raises(ValueError, match="row 2, column 1"):
        model.predict(bad)
    assert pickle.dumps(model) == before
    with pytest.raises(ValueError, match="sample_weight"):
        WeightedTSVM().fit(X, y, sample_weight=-np.ones(len(y)))


def out_of_fold_platt_reference(X, y, w, folds, gamma):
    """Platt's procedure written out: each fold's decision values from an SVC trained on the
    other folds with the same per-sample costs, then the weighted sigmoid fit on all of them."""
    from sklearn.svm import SVC

    signs = np.where(y == 1, 1.0, -1.0)
    decision = np.empty(len(y))
    for k in np.unique(folds):
        out = folds == k
        model = SVC(C=1.0, gamma=gamma).fit(X[~out], signs[~out], sample_weight=w[~out])
        decision[out] = model.decision_function(X[out])
    return platt_reference(decision, signs > 0, w)


def test_posteriors_come_from_cross_validated_decision_values():
    from imbalance_stream.density_ratio.tsvm import stratified_folds

    X, y = blobs(6, n=90)
    w = np.random.default_rng(6).exponential(size=len(y))
    model = WeightedTSVM(lambda2=0.0, seed=3).fit(X, y, sample_weight=w)
    folds = stratified_folds(y == 1, 5, np.random.default_rng(3))
    expected = out_of_fold_platt_reference(X, y, w, folds, 0.5)
    np.testing.assert_allclose(model._machines[0][1], expected, atol=1e-3)
    # the rows' own decision values give an over-confident (steeper) sigmoid
    in_sample = WeightedTSVM(lambda2=0.0, platt_folds=0).fit(X, y, sample_weight=w)
    assert abs(in_sample._machines[0][1][0]) > abs(model._machines[0][1][0])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 7), st.integers(3, 40))
def test_stratified_folds_deal_each_class_evenly(seed, n_folds, n_positive):
    from imbalance_stream.density_ratio.tsvm import stratified_folds

    positive = np.zeros(n_positive + 17, dtype=bool)
    positive[:n_positive] = True
    folds = stratified_folds(positive, n_folds, np.random.default_rng(seed))
    for members in (positive, ~positive):
        counts = np.bincount(folds[members], minlength=n_folds)
        assert counts.max() - counts.min() <= 1
