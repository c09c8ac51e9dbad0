"""Auto-tuned KMM (Algorithm 10): the J score, the regression's leave-one-out, the shared
distances, the parallel candidates."""

from __future__ import annotations

import numpy as np
import pytest

from imbalance_stream.density_ratio import KMM, AutoKMM
from imbalance_stream.density_ratio.auto_kmm import SIGMA_GRID, j_score, rls_loo
from imbalance_stream.density_ratio.gaussian import gaussian_gram


def loo_reference(K, targets, lambda_):
    """Leave-one-out error of kernel ridge regression by refitting without each point."""
    errors = []
    for i in range(len(targets)):
        keep = np.arange(len(targets)) != i
        alpha = np.linalg.solve(K[np.ix_(keep, keep)] + lambda_ * np.eye(keep.sum()), targets[keep])
        errors.append(targets[i] - K[i, keep] @ alpha)
    return float(np.mean(np.square(errors)))


def test_the_grid_is_chapter_6s():
    assert len(SIGMA_GRID) == 37
    np.testing.assert_allclose(SIGMA_GRID[:30], np.arange(1, 31) / 10)
    np.testing.assert_allclose(SIGMA_GRID[30:], np.arange(4, 11))


def test_closed_form_leave_one_out_picks_the_refitting_minimum():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    K = gaussian_gram(X, X, 1.0)
    targets = np.exp(X[:, 0]) + 0.1 * rng.normal(size=30)
    lambdas = np.logspace(-4, 1, 6)
    alpha, chosen = rls_loo(K, targets, lambdas)
    errors = [loo_reference(K, targets, lam) for lam in lambdas]
    assert chosen == pytest.approx(lambdas[int(np.argmin(errors))])
    np.testing.assert_allclose(alpha, np.linalg.solve(K + chosen * np.eye(30), targets), atol=1e-8)


def test_j_is_eq_6_10():
    assert j_score(np.array([1.0, 3.0]), np.array([2.0, 4.0, 6.0])) == pytest.approx(5.0 - 8.0)


def shift(seed, m=60, n=120):
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 1.0, size=(m, 1)), rng.normal(1.0, 0.5, size=(n, 1))


def test_each_candidate_is_kmm_at_its_width_and_the_smallest_j_wins():
    source, target = shift(1)
    auto = AutoKMM(sigma_factors=(0.3, 1.0, 3.0), median=False, B=100.0).fit(source, target)
    for sigma, weights in zip(auto.sigmas_, auto.candidate_weights_):
        plain = KMM(sigma=float(sigma), B=100.0).fit(source, target)
        np.testing.assert_allclose(weights, plain.weights_, rtol=1e-9, atol=1e-9)
    best = int(np.argmin(auto.j_scores_))
    assert auto.sigma_ == auto.sigmas_[best]
    np.testing.assert_array_equal(auto.weights_, auto.candidate_weights_[best])


def test_median_units_and_parallel_candidates_agree_with_serial():
    source, target = shift(2)
    serial = AutoKMM(sigma_factors=(0.5, 1.0, 2.0), seed=0).fit(source, target)
    parallel = AutoKMM(sigma_factors=(0.5, 1.0, 2.0), n_jobs=2, seed=0).fit(source, target)
    np.testing.assert_array_equal(serial.j_scores_, parallel.j_scores_)
    np.testing.assert_array_equal(serial.weights_, parallel.weights_)
    median = serial.sigmas_[1]
    np.testing.assert_allclose(serial.sigmas_, [0.5 * median, median, 2.0 * median])
