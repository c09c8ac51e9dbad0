"""The gap-testing baseline variants: per-class RBP and fixed-margin NORMA."""

from __future__ import annotations

import numpy as np
import pytest

from imbalance_stream.kernel import RBP
from reproduce.koil.variants import FixedMarginNORMA, PerClassRBP


def _rows(n=200, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    y = (X[:, 0] - X[:, 1]) ** 2 + 0.05 * rng.normal(size=n) > 0.1
    return [{j: float(v) for j, v in enumerate(x) if v} for x in X], y


def test_per_class_rbp_without_evictions_is_the_kernel_perceptron():
    rows, y = _rows()
    ours, theirs = PerClassRBP(budget=10_000, gamma=2.0, seed=1), RBP(budget=10_000, gamma=2.0)
    for x, label in zip(rows, y):
        assert ours.decision_one(x) == pytest.approx(theirs.decision_one(x), abs=1e-9)
        ours.learn_one(x, bool(label))
        theirs.learn_one(x, bool(label))


def test_per_class_rbp_keeps_each_buffer_within_its_budget_and_evicts_its_own_class():
    rows, y = _rows(n=400, seed=2)
    model = PerClassRBP(budget=5, gamma=50.0, seed=0)
    for x, label in zip(rows, y):
        model.learn_one(x, bool(label))
        assert model._stores[True].size <= 5 and model._stores[False].size <= 5
    assert model._stores[True].size == 5 and model._stores[False].size == 5


def test_fixed_margin_norma_by_hand():
    model = FixedMarginNORMA(eta=0.5, lam=0.2, margin=1.0, gamma=1.0, offset=True)
    a, b = {0: 1.0}, {0: 0.0, 1: 1.0}
    # f_{t+1} = (1 - eta lam) f_t + eta y k(x_t, .) on a margin error; the offset is not shrunk
    model.learn_one(a, True)  # f = 0 < 1: stored with 0.5, offset 0.5
    assert model.decision_one(a) == pytest.approx(0.5 + 0.5)
    k = np.exp(-2.0)  # |a - b|^2 = 2
    assert model.decision_one(b) == pytest.approx(0.5 * k + 0.5)
    model.learn_one(b, False)  # -f(b) < 1: stored with -0.5, offset back to 0
    assert model.decision_one(a) == pytest.approx(0.9 * 0.5 - 0.5 * k)
    assert model.b == 0.0


def test_fixed_margin_norma_keeps_its_scores_through_many_shrinks():
    rows, y = _rows(n=50, seed=3)
    model = FixedMarginNORMA(eta=0.9, lam=1.0, gamma=1.0)
    for _ in range(120):  # (1 - 0.9)^6000 underflows unless folded into the coefficients
        for x, label in zip(rows, y):
            model.learn_one(x, bool(label))
    assert np.isfinite(model.decision_one(rows[0]))
    assert model._scale >= 1e-100


def test_the_gamma_pool_is_the_authors_search_grid_g_in_2_to_the_minus_6_to_6():
    from reproduce.koil.protocol import ALGORITHMS

    sigmas = ALGORITHMS["KOIL^MKL_FIFO++(gamma pool)"].fixed["sigmas"]
    gammas = [1.0 / (2.0 * s * s) for s in sigmas]
    np.testing.assert_allclose(gammas, [2.0**g for g in range(-6, 7)], rtol=1e-12)
    assert ALGORITHMS["KOIL^MKL,s_FIFO++(gamma pool)"].fixed["loss"] == "smooth"
