"""The jitted scatter updates of the proximal SVMs against a plain-numpy reference."""

import numpy as np

from imbalance_stream._numba.proximal import scatter_update, scatter_update_pair


def reference_update(matrix, indices, values, scale):
    z = np.zeros(matrix.shape[0])
    z[indices] = values
    return matrix + scale * np.outer(z, z)


def test_scatter_update_agrees_with_numpy_over_a_stream():
    rng = np.random.default_rng(0)
    size = 12
    jitted, second, expected = np.zeros((size, size)), np.eye(size), np.zeros((size, size))
    for step in range(300):
        indices = np.sort(rng.choice(size, size=rng.integers(1, size + 1), replace=False))
        values = rng.normal(size=len(indices))
        scale = -1.0 if step % 7 == 3 else 1.0
        expected = reference_update(expected, indices, values, scale)
        scatter_update(jitted, indices.astype(np.int64), values, scale)
        scatter_update_pair(second, np.zeros((size, size)), indices.astype(np.int64), values, scale)
    np.testing.assert_allclose(jitted, expected, rtol=1e-12, atol=1e-10)
    np.testing.assert_allclose(second - np.eye(size), expected, rtol=1e-12, atol=1e-10)
    assert np.array_equal(jitted, jitted.T)


def test_pair_updates_both_matrices_identically():
    first, total = np.zeros((4, 4)), np.zeros((4, 4))
    indices, values = np.array([0, 2], dtype=np.int64), np.array([1.0, -2.0])
    scatter_update_pair(first, total, indices, values, 1.0)
    assert np.array_equal(first, total)
    assert first[2, 0] == -2.0 and first[2, 2] == 4.0 and first[1].sum() == 0.0
