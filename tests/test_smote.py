"""SMOTE's synthetic positives (the SMOTE baseline of seed 003) and the optional dependency."""

from __future__ import annotations

import builtins
import math

import numpy as np
import pytest

from imbalance_stream.imblearn import smote


def imbalanced(n_positive=30, n_negative=200, seed=0):
    rng = np.random.default_rng(seed)
    pos = rng.normal(size=(n_positive, 3)) + 2.0
    neg = rng.normal(size=(n_negative, 3))
    X = [{f"f{j}": float(v) for j, v in enumerate(row)} for row in np.vstack([pos, neg])]
    return X, ["rare"] * n_positive + ["common"] * n_negative, pos


@pytest.mark.parametrize("v", [1, 2])
def test_v_synthetic_positives_per_positive_on_segments_to_near_positives(v):
    pytest.importorskip("imblearn")
    X, y, pos = imbalanced()
    X2, y2 = smote(X, y, positive="rare", k=5, v=v, seed=1)
    assert X2[: len(X)] == X and y2[: len(y)] == y  # the original data first, unchanged
    synthetic = np.array([[x.get(f"f{j}", 0.0) for j in range(3)] for x in X2[len(X) :]])
    assert len(synthetic) == v * len(pos) and set(y2[len(y) :]) == {"rare"}
    for point in synthetic:
        on_a_segment = False
        for a in pos:
            near = pos[np.argsort(((pos - a) ** 2).sum(axis=1))[1:6]]
            for b in near:
                lam = float(np.dot(point - a, b - a) / np.dot(b - a, b - a))
                on_a_segment |= 0.0 <= lam <= 1.0 and np.allclose(point, a + lam * (b - a))
        assert on_a_segment


def test_bad_values_are_named():
    pytest.importorskip("imblearn")
    X, y, _ = imbalanced()
    X[3] = {"f0": math.nan}
    with pytest.raises(ValueError, match="'f0'"):
        smote(X, y, positive="rare")
    X[3] = {"f1": "1.0"}
    with pytest.raises(TypeError, match="'f1'"):
        smote(X, y, positive="rare")


def test_without_imbalanced_learn_the_error_says_what_to_install(monkeypatch):
    real_import = builtins.__import__

    def no_imblearn(name, *args, **kwargs):
        if name.startswith("imblearn"):
            raise ImportError("No module named 'imblearn'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_imblearn)
    X, y, _ = imbalanced()
    with pytest.raises(ImportError, match=r"imbalance-stream\[imblearn\]"):
        smote(X, y, positive="rare")
