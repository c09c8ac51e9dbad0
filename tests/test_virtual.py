"""VIRTUAL (seed 003, chapter 5): where the virtual examples come from and how many there are."""

from __future__ import annotations

import numpy as np
import pytest
from river import datasets

from imbalance_stream.active import SaturationStop, Virtual
from imbalance_stream.active.virtual import Positives, interpolate
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
        alpha = model._model.alpha[: model.n_expansion_]
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


def sparse_samples(n, seed, d=12):
    """Dicts over random subsets of ``d`` features (names of two types), some empty."""
    rng = np.random.default_rng(seed)
    names = [f"f{j}" for j in range(d - 2)] + [("t", 0), 7]
    return [
        {names[j]: float(rng.normal()) for j in range(d) if rng.random() < 0.4} for _ in range(n)
    ]


def as_matrix(samples):
    names = sorted({name for x in samples for name in x}, key=repr)
    return np.array([[x.get(name, 0.0) for name in names] for x in samples]).reshape(
        len(samples), len(names)
    )


@pytest.mark.parametrize("maxlen", [None, 7])
def test_sparse_distances_are_the_dense_matrix_distances(maxlen):
    samples = sparse_samples(40, 1)
    samples[5] = {f"w{j}": 1.0 for j in range(300)} | samples[5]  # wider than any other
    samples[9] = dict(samples[8])  # a copy
    kept = Positives(maxlen=maxlen)
    for t, x in enumerate(samples):
        kept.append(x)
        window = samples[: t + 1][-maxlen:] if maxlen else samples[: t + 1]
        matrix = as_matrix(window)
        for s in range(len(window)):
            expected = ((matrix - matrix[s]) ** 2).sum(axis=1)
            expected[s] = np.inf
            np.testing.assert_allclose(kept.squared_distances(s), expected, rtol=1e-12)


def test_dense_distances_are_the_dense_matrix_distances_to_the_last_bit():
    X, y = imbalanced_bananas()
    positives = [x for x, label in zip(X, y) if label]
    kept = Positives()
    for x in positives:
        kept.append(x)
    matrix = as_matrix(positives)
    for s in (0, 17, len(positives) - 1):
        expected = ((matrix - matrix[s]) ** 2).sum(axis=1)
        expected[s] = np.inf
        assert kept.squared_distances(s).tolist() == expected.tolist()


def test_interpolate_works_on_the_two_samples_features():
    a, b = {"x": 1.0, 2: 2.0}, {"x": 3.0, "z": -4.0}
    assert interpolate(a, b, 0.25) == {2: 0.5, "x": 2.5, "z": -3.0}
    assert list(interpolate(a, b, 0.25)) == ["x", "z", 2]  # repr order, as a dense matrix's
    assert interpolate({"x": 1.0}, {"x": 1.0, "y": 0.0}, 0.5) == {"x": 1.0}  # zeros left out


def test_a_wide_positive_does_not_widen_later_neighbour_searches(monkeypatch):
    """A real positive with 100,000 features of its own: every search builds a block over the
    features a positive shares with another (Bananas' two), none over the wide one's."""
    shapes = []
    dense_block = Positives._dense

    def spy(self, names):
        block = dense_block(self, names)
        shapes.append(block.shape)
        return block

    monkeypatch.setattr(Positives, "_dense", spy)
    X, y = imbalanced_bananas(n_positive=200)
    first = y.index(True)
    X[first] = X[first] | {f"w{j}": 1.0 for j in range(100_000)}
    run = Virtual(seed=0).run(LASVM(C=10.0, gamma=1.0), X, y, max_steps=400)
    assert len(run.virtual) > 10 and len(shapes) == len(run.virtual)
    assert max(width for _, width in shapes) == 2
