"""The importance-weighted least-squares probabilistic classifier."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from imbalance_stream.density_ratio import IWLSPC, NotFitted
from imbalance_stream.density_ratio.iwlspc import lspc_fit, lspc_posterior


def blobs(seed, n=120):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, 2)) + 2.5 * np.stack([np.cos(2.1 * y), np.sin(2.1 * y)], 1)
    return X, np.array(["a", "b", "c"])[y]


def lspc_reference(phi, Y, weights, lambda_):
    """Each class on its own, as the weighted ridge regression min ||W^1/2 (phi t - y)||^2 +
    lambda ||t||^2 written as one ordinary least-squares problem on stacked rows."""
    root = np.sqrt(weights)[:, None]
    A = np.vstack([phi * root, np.sqrt(lambda_) * np.eye(phi.shape[1])])
    columns = []
    for c in range(Y.shape[1]):
        target = np.concatenate([Y[:, c] * root[:, 0], np.zeros(phi.shape[1])])
        columns.append(np.linalg.lstsq(A, target, rcond=None)[0])
    return np.stack(columns, 1)


@pytest.mark.parametrize("lambda_", [1e-3, 0.1, 10.0])
def test_closed_form_matches_per_class_least_squares(lambda_):
    rng = np.random.default_rng(1)
    phi = rng.uniform(size=(40, 7))
    Y = np.eye(3)[rng.integers(0, 3, 40)]
    weights = rng.exponential(size=40)
    np.testing.assert_allclose(
        lspc_fit(phi, Y, weights, lambda_), lspc_reference(phi, Y, weights, lambda_), atol=1e-9
    )


@settings(max_examples=50, deadline=None)
@given(hnp.arrays(np.float64, (6, 3), elements=st.floats(-5, 5)))
def test_posterior_is_a_distribution(scores):
    p = lspc_posterior(scores)
    assert (p >= 0).all()
    np.testing.assert_allclose(p.sum(1), 1.0)
    positive = scores.max(1) > 0
    # where some class scores above 0, the largest score keeps the largest probability
    assert (p[positive].argmax(1) == np.maximum(scores[positive], 0).argmax(1)).all()


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000))
def test_an_integer_weight_is_a_repeated_sample(seed):
    X, y = blobs(seed, n=30)
    counts = np.random.default_rng(seed).integers(0, 3, len(y))
    weighted = IWLSPC(sigma=1.5, ridge=0.1, seed=0).fit(X, y, counts, X_centres=X[:10])
    repeated = IWLSPC(sigma=1.5, ridge=0.1, seed=0).fit(
        np.repeat(X, counts, 0), np.repeat(y, counts), X_centres=X[:10]
    )
    if len(repeated.classes_) == len(weighted.classes_):
        np.testing.assert_allclose(weighted.theta_, repeated.theta_, atol=1e-8)


def test_cross_validation_takes_the_grid_minimum_and_is_seeded():
    X, y = blobs(2)
    a, b = IWLSPC(seed=3).fit(X, y), IWLSPC(seed=3).fit(X, y)
    np.testing.assert_array_equal(a.theta_, b.theta_)
    assert np.isfinite(a.cv_error_).all()
    row, column = np.unravel_index(np.argmin(a.cv_error_), a.cv_error_.shape)
    assert a.ridge_ == pytest.approx(np.logspace(-3, 1, 9)[column])
    assert (a.predict(X) == y).mean() > 0.85
    assert set(a.predict(X)) <= {"a", "b", "c"}


def test_importance_weights_move_the_cross_validation_to_the_weighted_region():
    # the classes are separable by x > 0 on the right, by x < 0 on the left: a weight that only
    # counts the right half must pick a model that is right there
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, size=(200, 1))
    y = np.where(X[:, 0] > 0, X[:, 0] > 1.5, X[:, 0] < -1.5)
    weights = (X[:, 0] > 0).astype(float)
    model = IWLSPC(seed=0).fit(X, y, weights)
    right = X[:, 0] > 0
    assert (model.predict(X[right]) == y[right]).mean() > 0.95


def test_bad_input_is_refused_with_a_message():
    model = IWLSPC()
    with pytest.raises(NotFitted):
        model.predict([[0.0, 1.0]])
    with pytest.raises(ValueError, match="X has a non-finite value at row 1"):
        model.fit([[0.0, 1.0], [np.nan, 1.0]], [0, 1])
    with pytest.raises(ValueError, match="one label per row"):
        model.fit([[0.0, 1.0], [1.0, 1.0]], [0, 1, 1])
    with pytest.raises(ValueError, match="sample_weight must be finite and non-negative"):
        model.fit([[0.0, 1.0], [1.0, 1.0]], [0, 1], [1.0, -1.0])
    with pytest.raises(ValueError, match="X_centres has 1 features"):
        model.fit([[0.0, 1.0], [1.0, 1.0]], [0, 1], X_centres=[[0.0]])
    X, y = blobs(5, n=40)
    model.fit(X, y)
    with pytest.raises(ValueError, match="X has 1 features, the fit had 2"):
        model.predict_proba([[0.0]])
