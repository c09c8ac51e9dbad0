"""ShuttleODDS: River's bundled ODDS Shuttle, scaled to [0, 1], with seeded stratified folds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.datasets import ShuttleODDS, stratified_fold_matrix


@pytest.fixture(scope="module")
def shuttle():
    return ShuttleODDS()


def test_shape_positives_and_scaling(shuttle):
    X, y, names = shuttle.to_numpy()
    assert X.shape == (49_097, 9) and names == tuple(f"f{i}" for i in range(1, 10))
    assert y.dtype == bool and int(y.sum()) == 3_511
    # min-max over the whole file: every feature spans exactly [0, 1]
    assert np.array_equal(X.min(axis=0), np.zeros(9)) and np.array_equal(X.max(axis=0), np.ones(9))
    # file order kept: River's first rows (raw f1 = 50, 53, 37; first one an anomaly)
    from river import datasets

    raw = [x["f1"] for x, _ in datasets.Shuttle().take(3)]
    low, high = 27.0, 126.0  # the file's range of f1
    assert X[:3, 0] == pytest.approx([(v - low) / (high - low) for v in raw])
    assert y[:3].tolist() == [True, False, False]


def test_twenty_splits_partition_the_rows_and_are_stratified(shuttle):
    _, y, _ = shuttle.to_numpy()
    splits = shuttle.cv_splits()
    assert len(splits) == 20
    counts = np.zeros(len(y), dtype=int)
    for train, test in splits:
        assert len(train) + len(test) == len(y) and not np.intersect1d(train, test).size
        assert np.all(np.diff(train) > 0)  # training order = file order
        counts[test] += 1
        # each test fold holds a fifth of each class (3,511 / 5 and 45,586 / 5, rounded)
        assert int(y[test].sum()) in (702, 703)
        assert int((~y[test]).sum()) in (9117, 9118)
    assert np.all(counts == 4)  # 4 repetitions, each a partition into 5 folds
    folds = shuttle.cv_folds()
    assert folds.shape == (49_097, 4) and folds.dtype == np.int8
    assert not np.array_equal(folds[:, 0], folds[:, 1])  # repetitions differ


def test_folds_are_deterministic_in_the_seed(shuttle):
    assert np.array_equal(shuttle.cv_folds(), ShuttleODDS().cv_folds())
    assert np.array_equal(shuttle.cv_folds(), ShuttleODDS(seed=0).cv_folds())
    assert not np.array_equal(shuttle.cv_folds(), ShuttleODDS(seed=1).cv_folds())


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(0, 2), min_size=1, max_size=60),
    st.integers(1, 3),
    st.integers(2, 5),
    st.integers(0, 2**16),
)
def test_stratified_fold_matrix_balances_every_class(labels, repetitions, n_folds, seed):
    labels = np.array(labels)
    folds = stratified_fold_matrix(labels, repetitions, n_folds, seed)
    assert folds.shape == (len(labels), repetitions)
    assert folds.min() >= 1 and folds.max() <= n_folds
    for r in range(repetitions):
        for label in np.unique(labels):
            sizes = np.bincount(folds[labels == label, r], minlength=n_folds + 1)[1:]
            assert sizes.max() - sizes.min() <= 1
    assert np.array_equal(folds, stratified_fold_matrix(labels, repetitions, n_folds, seed))
