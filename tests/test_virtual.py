"""VIRTUAL (seed 003, chapter 5): where the virtual examples come from and how many there are."""

from __future__ import annotations

import numpy as np
import pytest
from river import datasets

from imbalance_stream.active import SaturationStop, Virtual
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.svm import LASVM


def imbalanced_bananas(n_positive=80, n=2000):
    data = list(datasets.Bananas())[:n]
    rare = [(x, y) for x, y in data if y][:n_positive] + [(x, y) for x, y in data if not y]
    order = np.random.default_rng(0).permutation(len(rare))
    return [rare[i][0] for i in order], [rare[i][1] for i in order]


def dense(x):
    return np.array([x.get(name, 0.0) for name in (1, 2)])


def test_virtual_examples_interpolate_a_new_positive_sv_and_a_near_positive():
    X, y = imbalanced_bananas()
    model = LASVM(C=10.0, gamma=1.0)
    alphas = []
    run = Virtual(k=5, v=2, seed=0).run(
        model, X, y, max_steps=600, callback=lambda t, m: alphas.append(m.last_alpha_)
    )
    assert run.virtual, "no virtual example was made"
    positives = np.array([dense(X[i]) for i in range(len(X)) if y[i]])
    positive_rows = [i for i in range(len(X)) if y[i]]
    for virtual, (s, nn, lam) in zip(run.virtual, run.virtual_origin):
        assert s < len(X) and y[s] and y[nn] and s != nn  # real positives only
        np.testing.assert_allclose(dense(virtual), lam * dense(X[s]) + (1 - lam) * dense(X[nn]))
        distances = ((positives - dense(X[s])) ** 2).sum(axis=1)
        distances[positive_rows.index(s)] = np.inf
        assert distances[positive_rows.index(nn)] <= np.sort(distances)[4]  # among the 5 nearest
    # exactly v per selected real positive that became a support vector, none for the others
    n_seed = len(run.selected) - len(run.n_support)
    chosen = run.selected[n_seed:]
    expected = sum(
        2 for index, alpha in zip(chosen, alphas) if index < len(X) and y[index] and alpha != 0.0
    )
    assert len(run.virtual) == expected
    assert any(index >= len(X) for index in chosen)  # virtual examples get selected too


def test_virtual_examples_balance_the_support_vectors():
    """Chapter 5: VIRTUAL adds positive support vectors, so the ratio of negative to positive
    support vectors is lower than ACTIVE's alone at the same number of selections."""
    from imbalance_stream.active import SmallPoolSelection

    X, y = imbalanced_bananas(n_positive=60)

    def ratio(selection):
        model = LASVM(C=10.0, gamma=1.0)
        selection.run(model, X, y, max_steps=500)
        alpha = model._model[0][: model.n_expansion_]
        return np.sum(alpha < 0) / max(1, np.sum(alpha > 0))

    assert ratio(Virtual(seed=0)) < ratio(SmallPoolSelection("active", pool=59, seed=0))


def test_virtual_needs_to_know_the_new_support_vectors():
    from river import linear_model

    with pytest.raises(TypeError, match="last_alpha_"):
        Virtual().run(linear_model.LogisticRegression(), [{1: 0.0}], [True])


@pytest.mark.parametrize("params", [{"k": 0}, {"v": 0}, {"pool": 0}])
def test_bad_parameters_are_named(params):
    with pytest.raises(InvalidParameter, match=next(iter(params))):
        Virtual(**params)


def test_saturation_stop_ends_a_virtual_run():
    X, y = imbalanced_bananas(n_positive=40, n=1200)
    run = Virtual(seed=1).run(LASVM(C=10.0, gamma=1.0), X, y, stop=SaturationStop(window=50))
    assert run.stopped_at is not None and run.stopped_at < len(X)
