"""The floors of benchmarks/bench_acog.py: its plain jitted loops do the arithmetic of the array
paths they are compared with (same final mean as ``replay_array``), so the ratio it reports is
against the same work."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_acog

from imbalance_stream.evaluate import replay_array
from imbalance_stream.linear_model import ACOG, SACOG


def _stream(n=400, d=30, density=0.25, seed=0, m=5):
    """A sparse imbalanced stream, rows L2-normalised, a few all-zero rows, a third of the
    features appearing only after row n/3, and at least ``m`` features in the first row."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < density)
    X[: n // 3, 2 * d // 3 :] = 0.0
    X[0, :m] = rng.normal(size=m) + 2.0
    X[1 + rng.choice(n - 1, size=3, replace=False)] = 0.0
    y = X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0.8
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    X = np.divide(X, norms, out=np.zeros_like(X), where=norms > 0)
    return sparse.csr_matrix(X), y


def _plain_and_replayed(X, y, sparse_form, m=5, seed=0):
    rows = bench_acog.first_appearance(X)
    state = bench_acog.sacog_start(X, m, seed, sparse_form)
    bench_acog.plain_sacog(rows, np.where(y, 1.0, -1.0), state, sparse_form)
    model = SACOG(loss="II", m=m, sparse=sparse_form, seed=seed)
    result = replay_array(model, X, y)
    assert result.path == "array"
    return bench_acog.plain_sacog_weights(rows, state, sparse_form), model.weights


@pytest.mark.parametrize("sparse_form", [False, True], ids=["dense", "sparse"])
def test_plain_sacog_loop_ends_at_the_replays_mean(sparse_form):
    plain, replayed = _plain_and_replayed(*_stream(), sparse_form)
    assert plain.keys() == replayed.keys()
    names = sorted(plain)
    np.testing.assert_allclose(
        [plain[j] for j in names], [replayed[j] for j in names], rtol=0, atol=1e-9
    )
    assert any(abs(value) > 1e-3 for value in plain.values())  # the mean did move
    bench_acog.check_same_mean(plain, replayed)


@pytest.mark.parametrize("sparse_form", [False, True], ids=["dense", "sparse"])
def test_jitted_replay_ends_at_the_plain_loops_mean(sparse_form):
    """The array path's loop alone, from the state the first row draws, is the same arithmetic."""
    X, y = _stream()
    rows, signs = bench_acog.first_appearance(X), np.where(y, 1.0, -1.0)
    means = []
    for loop in (bench_acog.plain_sacog, bench_acog.jitted_replay):
        state = bench_acog.sacog_start(X, 5, 0, sparse_form)
        loop(rows, signs, state, sparse_form)
        means.append(bench_acog.plain_sacog_weights(rows, state, sparse_form))
    bench_acog.check_same_mean(*means)


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    m=st.integers(1, 6),
    density=st.floats(0.1, 0.6),
    sparse_form=st.booleans(),
)
def test_plain_sacog_loop_is_the_replay_on_any_stream(seed, m, density, sparse_form):
    X, y = _stream(n=150, d=20, density=density, seed=seed, m=m)
    plain, replayed = _plain_and_replayed(X, y, sparse_form, m=m, seed=seed)
    bench_acog.check_same_mean(plain, replayed)


def test_check_same_mean_notices_a_different_mean():
    """The check the benchmark runs after every repetition can fail."""
    X, y = _stream()
    plain, replayed = _plain_and_replayed(X, y, sparse_form=True)
    name = next(iter(plain))
    with pytest.raises(AssertionError, match="from the replay's"):
        bench_acog.check_same_mean({**plain, name: plain[name] + 1e-8}, replayed)
    with pytest.raises(AssertionError, match="different features"):
        bench_acog.check_same_mean({j: v for j, v in plain.items() if j != name}, replayed)


def test_sacog_start_needs_m_features_in_the_first_row():
    X, _ = _stream(m=5)
    X = X.tolil()
    X[0, :] = 0.0
    X[0, 0] = 1.0
    with pytest.raises(ValueError, match="fewer than m = 5"):
        bench_acog.sacog_start(X.tocsr(), 5, 0, sparse_form=False)


def test_plain_full_loop_ends_at_the_replays_mean():
    """Section 4's floor of ACOG-full (loss II, rho estimated): the same final mean."""
    X, y = _stream()
    rows = bench_acog.first_appearance(X)
    indptr, indices, values, _, order = rows
    n = order.shape[0]
    mean, cov = np.zeros(n), np.eye(n)
    signs = np.where(y, 1.0, -1.0)
    bench_acog.plain_full_loop(indptr, indices, values, signs, mean, cov, n, 1.0, 1.0)
    model = ACOG(loss="II", covariance="full", eta=1.0)
    replay_array(model, X, y)
    bench_acog.check_same_mean(dict(zip(order.tolist(), mean.tolist())), model.weights)
