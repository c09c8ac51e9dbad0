"""The waveform generator of Ertekin (2009), section 5.2.1."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.datasets import Waveform


def reference_waves() -> np.ndarray:
    """The three base waves written out from the thesis' formulas, position by position."""
    waves = np.zeros((3, 21))
    for j in range(1, 22):
        waves[0, j - 1] = max(6 - abs(j - 11), 0)
        waves[1, j - 1] = max(6 - abs(j - 4 - 11), 0)
        waves[2, j - 1] = max(6 - abs(j + 4 - 11), 0)
    return waves


def test_same_seed_same_stream_and_other_seed_differs():
    first = list(Waveform(n_samples=50, seed=3))
    assert first == list(Waveform(n_samples=50, seed=3))
    assert first != list(Waveform(n_samples=50, seed=4))


@settings(max_examples=25, deadline=None)
@given(
    ratio=st.floats(min_value=0.5, max_value=64.0),
    n=st.integers(min_value=0, max_value=400),
    seed=st.integers(min_value=0, max_value=2**16),
)
def test_finite_stream_has_the_exact_positive_count(ratio, n, seed):
    labels = [y for _, y in Waveform(imbalance_ratio=ratio, n_samples=n, seed=seed)]
    assert len(labels) == n
    assert sum(labels) == int(round(n / (1.0 + ratio)))


def test_endless_stream_draws_the_positive_share():
    stream = iter(Waveform(imbalance_ratio=4.0, seed=0))
    labels = [next(stream)[1] for _ in range(20000)]
    assert abs(np.mean(labels) - 0.2) < 0.01


def test_class_means_are_the_mixed_waves():
    # E[x | class] = (v_a + v_b) / 2, since E[u] = 1/2 and the noise has mean 0.
    X, y, names = Waveform(n_samples=30000, binary=False, seed=1).to_numpy()
    assert names == list(range(21))
    waves = reference_waves()
    pairs = {1: (0, 1), 2: (0, 2), 3: (1, 2)}
    for cls, (a, b) in pairs.items():
        rows = X[y == cls]
        assert len(rows) > 8000
        expected = (waves[a] + waves[b]) / 2
        np.testing.assert_allclose(rows.mean(axis=0), expected, atol=0.1)


def test_noise_has_unit_variance_at_the_edges():
    # Positions 1 and 21 are zero in every wave, so only the noise is left there.
    X, _, _ = Waveform(n_samples=20000, seed=2).to_numpy()
    for column in (0, 20):
        assert abs(X[:, column].var() - 1.0) < 0.05


def test_negatives_split_evenly_between_classes_2_and_3():
    _, y, _ = Waveform(n_samples=12000, binary=False, seed=5).to_numpy()
    assert set(np.unique(y)) == {1, 2, 3}
    assert abs(np.mean(y == 2) - np.mean(y == 3)) < 0.03


@pytest.mark.parametrize("ratio", [0, -1, float("nan"), float("inf")])
def test_bad_ratio_raises(ratio):
    with pytest.raises(ValueError, match="imbalance_ratio"):
        Waveform(imbalance_ratio=ratio)


def test_bad_length_raises_and_endless_to_numpy_raises():
    with pytest.raises(ValueError, match="n_samples"):
        Waveform(n_samples=-1)
    with pytest.raises(ValueError, match="n_samples"):
        Waveform().to_numpy()
