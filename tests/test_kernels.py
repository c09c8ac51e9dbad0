"""The kernel layer against plain numpy formulas."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from imbalance_stream._numba import kernels as K


def reference_kernel(kind, a, b, gamma, degree, coef0):
    if kind == K.RBF:
        return np.exp(-gamma * np.sum((a - b) ** 2))
    if kind == K.POLY:
        return (gamma * a @ b + coef0) ** degree
    return a @ b


PARAMS = [
    (K.RBF, 0.5, 2.0, 0.0),
    (K.RBF, 4.0, 2.0, 0.0),
    (K.POLY, 1.0, 2.0, 0.0),
    (K.POLY, 0.5, 3.0, 1.0),
    (K.LINEAR, 1.0, 1.0, 0.0),
]


@pytest.mark.parametrize("kind, gamma, degree, coef0", PARAMS)
def test_kernel_row_gram_and_expansion_match_numpy(kind, gamma, degree, coef0):
    rng = np.random.default_rng(0)
    count, capacity, d = 7, 10, 5
    X = np.zeros((capacity, d))
    X[:count] = rng.normal(size=(count, d))
    x = rng.normal(size=d)
    expected_row = np.array(
        [reference_kernel(kind, X[i], x, gamma, degree, coef0) for i in range(count)]
    )
    out = np.full(capacity, -99.0)
    K.kernel_row(kind, X, count, x, gamma, degree, coef0, out)
    np.testing.assert_allclose(out[:count], expected_row, rtol=1e-12, atol=1e-14)
    assert np.all(out[count:] == -99.0)  # slots past count untouched

    weights = rng.normal(size=capacity)
    assert K.expansion(kind, X, weights, count, x, gamma, degree, coef0) == pytest.approx(
        weights[:count] @ expected_row, rel=1e-12, abs=1e-12
    )

    expected_gram = np.array(
        [
            [reference_kernel(kind, X[i], X[j], gamma, degree, coef0) for j in range(count)]
            for i in range(count)
        ]
    )
    G = np.zeros((capacity, capacity))
    K.gram_fill(kind, X, count, gamma, degree, coef0, G)
    np.testing.assert_allclose(G[:count, :count], expected_gram, rtol=1e-12, atol=1e-14)
    assert not G[count:].any() and not G[:, count:].any()

    # change one slot, update its row and column only: equals a full rebuild
    X[3] = rng.normal(size=d)
    K.gram_update(kind, X, count, 3, gamma, degree, coef0, G)
    rebuilt = np.zeros_like(G)
    K.gram_fill(kind, X, count, gamma, degree, coef0, rebuilt)
    np.testing.assert_allclose(G, rebuilt, rtol=1e-12, atol=1e-14)


def test_squared_distance_row():
    rng = np.random.default_rng(1)
    X = np.zeros((6, 4))
    X[:5] = rng.normal(size=(5, 4))
    x = rng.normal(size=4)
    out = np.full(6, -1.0)
    K.sq_distance_row(X, 5, x, out)
    np.testing.assert_allclose(out[:5], np.sum((X[:5] - x) ** 2, axis=1), rtol=1e-12)
    assert out[5] == -1.0


def test_wider_buffer_than_query_uses_query_width():
    """Stored vectors are zero-padded when the feature space grows: the extra columns are 0."""
    X = np.zeros((2, 6))
    X[0, :3] = [1.0, 2.0, 3.0]
    x = np.array([1.0, 0.0, 1.0])
    assert K.kernel(K.RBF, x, X[0], 1.0, 2.0, 0.0) == pytest.approx(np.exp(-(0 + 4 + 4)))
    assert K.kernel(K.LINEAR, x, X[0], 1.0, 1.0, 0.0) == 4.0


def test_argmax_is_a_true_argmax_with_first_index_on_ties():
    values = np.array([-3.0, -1.0, -1.0, -2.0])
    slots = np.array([0, 3, 2, 1], dtype=np.int64)
    assert K.argmax_over(values, slots, 4) == 2  # slot 2 (position 2) before slot 1 (position 3)
    assert K.argmax_over(values, slots, 2) == 1  # only slots 0 and 3
    assert K.argmax_over(values, slots, 0) == -1


def test_kernel_id():
    assert K.kernel_id("rbf") == K.RBF and K.kernel_id("poly") == K.POLY
    assert K.kernel_id("linear") == K.LINEAR
    with pytest.raises(ValueError, match="sigmoid"):
        K.kernel_id("sigmoid")


@settings(max_examples=40, deadline=None)
@given(
    a=arrays(np.float64, 4, elements=st.floats(-10, 10)),
    b=arrays(np.float64, 4, elements=st.floats(-10, 10)),
    gamma=st.floats(1e-3, 10.0),
)
def test_rbf_is_symmetric_bounded_and_one_on_the_diagonal(a, b, gamma):
    value = K.kernel(K.RBF, a, b, gamma, 2.0, 0.0)
    assert value == K.kernel(K.RBF, b, a, gamma, 2.0, 0.0)
    assert 0.0 <= value <= 1.0
    assert K.kernel(K.RBF, a, a, gamma, 2.0, 0.0) == 1.0
    assert value == pytest.approx(
        reference_kernel(K.RBF, a, b, gamma, 2.0, 0.0), rel=1e-12, abs=1e-300
    )
