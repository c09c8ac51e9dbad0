"""DDR on a stream: per-class windows, the prior ratio, normalisation, purity, bad input."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from imbalance_stream.base import InvalidFeature
from imbalance_stream.density_ratio import DDR, IWLSPC, DDRReweighter


def learner():
    return IWLSPC(sigma=1.5, ridge=0.1, n_centres=20, seed=0)


def two_classes(seed, n, share_b, shift=0.0):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < share_b, "b", "a")
    X = rng.normal(size=(n, 2)) + np.where(y[:, None] == "b", 1.5, -1.5) + shift
    return X, y


def as_dict(row):
    return {"u": float(row[0]), "v": float(row[1])}


def fed(reweighter, source, labels, target):
    for row, label in zip(source, labels):
        reweighter.learn_source_one(as_dict(row), label)
    for row in target:
        reweighter.learn_target_one(as_dict(row))
    return reweighter


def test_a_rare_class_keeps_its_samples_in_its_own_window():
    X, y = two_classes(0, 600, 0.05)
    target, _ = two_classes(1, 100, 0.5)
    reweighter = fed(
        DDRReweighter(learner(), n_per_class=40, max_iter=1, n_centres=20, n_source=80),
        X,
        y,
        target,
    )
    assert reweighter.refresh()
    counts = dict(zip(*np.unique(reweighter.ddr_.model_.classes_, return_counts=True)))
    assert set(counts) == {"a", "b"}
    rare = int((y == "b").sum())
    # the rare class keeps min(40, all its samples); a plain window of 80 would keep about 4
    assert len(reweighter.ddr_.weights_) == 40 + min(40, rare)


def test_with_windows_holding_everything_it_is_the_batch_ddr():
    X, y = two_classes(2, 120, 0.3)
    target, _ = two_classes(3, 100, 0.7, shift=0.3)
    reweighter = fed(
        DDRReweighter(learner(), n_per_class=500, max_iter=3, n_centres=30, seed=4),
        X,
        y,
        target,
    )
    reweighter.refresh()
    order = np.r_[np.flatnonzero(y == "a"), np.flatnonzero(y == "b")]  # classes in first-seen order
    first = y[0]
    if first == "b":
        order = np.r_[np.flatnonzero(y == "b"), np.flatnonzero(y == "a")]
    batch = DDR(learner=learner(), max_iter=3, n_centres=30, seed=4).fit(
        X[order], y[order].astype(object), target
    )
    np.testing.assert_allclose(reweighter.ddr_.weights_, batch.weights_, atol=1e-10)


def test_the_prior_shift_shows_in_the_weights_and_they_average_one():
    X, y = two_classes(5, 200, 0.25)
    target, _ = two_classes(6, 200, 0.75)
    reweighter = fed(
        DDRReweighter(learner(), max_iter=3, early_stopping=False, n_centres=30, seed=0),
        X,
        y,
        target,
    )
    reweighter.refresh()
    weights = np.array([reweighter.weight_one(as_dict(r), label) for r, label in zip(X, y)])
    assert weights.mean() == pytest.approx(1.0)
    assert weights[y == "b"].mean() > 1.5 > 0.8 > weights[y == "a"].mean()
    unlabelled = reweighter.weight_one(as_dict(X[0]))
    assert np.isfinite(unlabelled) and unlabelled >= 0


def test_weighing_is_pure_and_bad_input_changes_nothing():
    X, y = two_classes(7, 60, 0.5)
    target, _ = two_classes(8, 40, 0.5)
    reweighter = fed(DDRReweighter(learner(), max_iter=1, n_centres=10), X, y, target)
    assert reweighter.weight_one(as_dict(X[0]), y[0]) == 1.0  # before any refresh
    reweighter.refresh()
    before = pickle.dumps(reweighter)
    reweighter.weight_one(as_dict(X[1]), y[1])
    reweighter.weight_one(as_dict(X[1]), "never seen")
    assert pickle.dumps(reweighter) == before
    with pytest.raises(ValueError, match="label"):
        reweighter.learn_source_one(as_dict(X[0]), None)
    with pytest.raises(ValueError, match="not hashable"):
        reweighter.learn_source_one(as_dict(X[0]), ["a"])
    with pytest.raises(InvalidFeature, match="'u'"):
        reweighter.learn_source_one({"u": float("nan"), "v": 1.0}, "a")
    with pytest.raises(InvalidFeature, match="'v'"):
        reweighter.learn_target_one({"u": 1.0, "v": "text"})
    assert pickle.dumps(reweighter) == before


def test_one_class_gives_neutral_weights():
    X, _ = two_classes(9, 30, 0.0)
    reweighter = fed(DDRReweighter(learner()), X, ["a"] * 30, X)
    assert reweighter.refresh()
    assert reweighter.weight_one(as_dict(X[0]), "a") == pytest.approx(1.0)
