"""SampleWindows: validation without change, eviction, padding to the refresh's columns."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.base import InvalidFeature
from imbalance_stream.base.windows import SampleWindows


def test_encode_validates_and_changes_nothing_until_commit():
    windows = SampleWindows({"a": 2})
    vector, new = windows.encode({"x": 1.0, "y": 2.0})
    assert vector.tolist() == [1.0, 2.0] and new == ["x", "y"]
    assert len(windows.features) == 0
    windows.commit(new)
    assert len(windows.features) == 2
    before = pickle.dumps(windows)
    with pytest.raises(InvalidFeature, match="'z'"):
        windows.encode({"x": 1.0, "z": math.nan})
    assert pickle.dumps(windows) == before


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(0, 4), min_size=1, max_size=20))
def test_windows_keep_the_latest_and_pad_old_vectors(size, names):
    windows = SampleWindows({"w": size})
    pushed = []
    for t, name in enumerate(names):
        vector = windows.vector({f"f{name}": float(t + 1)})
        left = windows.push("w", vector)
        pushed.append((dict(zip(windows.features.names, vector.tolist())), left))
    assert len(windows.windows["w"]) == min(size, len(names))
    width = windows.freeze()
    matrix = windows.matrix("w")
    assert matrix.shape == (min(size, len(names)), width)
    # each row is its sample over every column known now, later names 0
    for row, (sample, _) in zip(matrix, pushed[-size:]):
        expected = [sample.get(name, 0.0) for name in windows.features.names]
        np.testing.assert_array_equal(row, expected)


def test_query_maps_onto_the_refresh_columns_and_ignores_newer_names():
    windows = SampleWindows({"w": None})
    windows.push("w", windows.vector({"a": 1.0}))
    windows.freeze()
    windows.push("w", windows.vector({"b": 2.0}))  # learned after the refresh
    np.testing.assert_array_equal(windows.query({"a": 3.0, "b": 4.0, "c": 5.0}), [3.0])
    np.testing.assert_array_equal(windows.at_columns(np.array([7.0, 8.0])), [7.0])
