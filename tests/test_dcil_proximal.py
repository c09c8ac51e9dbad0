"""The jitted kernels of the proximal SVMs (scatter updates, system assembly) against plain
numpy."""

import numpy as np

from imbalance_stream._numba.proximal import (
    assemble_one_vs_rest,
    assemble_system,
    scatter_update,
    scatter_update_pair,
)


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


def reference_system(first, second, n, a, b, ridge):
    A = a * first[:n, :n] + b * second[:n, :n] + ridge * np.eye(n)
    r = a * first[:n, 0] - b * second[:n, 0]
    return A, r


def test_assembly_kernels_agree_with_numpy():
    rng = np.random.default_rng(1)
    size, n = 16, 11
    first, second = rng.normal(size=(size, size)), rng.normal(size=(size, size))
    for a, b, ridge in [(0.8, 0.2, 1.0), (1.0, 1.0, 0.01), (0.0, 2.0, 5.0)]:
        A, r = assemble_system(first, second, n, a, b, ridge)
        A_ref, r_ref = reference_system(first, second, n, a, b, ridge)
        np.testing.assert_allclose(A, A_ref, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(r, r_ref, rtol=1e-14, atol=1e-14)
        A, r = assemble_one_vs_rest(first, second, n, a, b, ridge)
        A_ref, r_ref = reference_system(first, second - first, n, a, b, ridge)
        np.testing.assert_allclose(A, A_ref, rtol=1e-14, atol=1e-13)
        np.testing.assert_allclose(r, r_ref, rtol=1e-14, atol=1e-13)
