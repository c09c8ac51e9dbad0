"""Small-pool example selection (seed 003, sections 3.3 and 4.2) and the saturation stop."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.active import SaturationStop, SmallPoolSelection
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.svm import LASVM


class FixedScores:
    """A stand-in model whose decision for ``{"id": i}`` is ``scores[i]``, whatever it learns."""

    positive = True

    def __init__(self, scores, delta=0.0):
        self.scores = scores
        self.delta_ = delta
        self.learned: list[int] = []
        self.calls = 0

    def decision_one(self, x):
        self.calls += 1
        return self.scores[x["id"]]

    def learn_one(self, x, y):
        self.learned.append(x["id"])

    @property
    def n_support_(self):
        return len(self.learned)


def fixed(scores, labels, delta=0.0):
    return FixedScores(np.asarray(scores, float), delta), [{"id": i} for i in range(len(scores))]


def test_saturation_stop_fires_on_the_first_flat_window():
    stop = SaturationStop(window=2, tolerance=0.1)
    assert [stop.update(n) for n in [5, 10, 20, 21, 21]] == [False, False, False, False, True]
    stop = SaturationStop(window=1, tolerance=0.0)
    assert [stop.update(n) for n in [3, 3]] == [False, False]  # a range of 0 is not < 0


def test_a_falling_count_is_not_saturation():
    """D-LASVM-48: the count of a model that is still moving can fall for a while (REPROCESS
    evicts support vectors); the rule waits until it stays in its band, rising or falling."""
    counts = [100, 200, 300, 290, 280, 270, 260, 250, 250, 250, 250]
    stop = SaturationStop(window=3, tolerance=0.01)
    fired = [stop.update(n) for n in counts]
    assert fired.index(True) == 10  # only once 250 held over the last 3 selections
    stop = SaturationStop(window=3, tolerance=0.01)
    # the count crossing back through its old level (down, then up) is not stable either
    assert not any(stop.update(n) for n in [300, 310, 300, 290, 300, 310, 320, 330])


def band_rule(counts, window, tolerance):
    """What SaturationStop answers after each count: the whole last window in the band."""
    answers = []
    for t in range(len(counts)):
        recent = counts[max(0, t - window) : t + 1]
        full = t >= window
        answers.append(full and max(recent) - min(recent) < tolerance * counts[t])
    return answers


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(st.integers(0, 60), min_size=1, max_size=80),
    window=st.integers(1, 12),
    tolerance=st.sampled_from([0.0, 0.01, 0.05, 0.3]),
)
def test_saturation_stop_is_the_band_rule_over_the_last_window(counts, window, tolerance):
    stop = SaturationStop(window=window, tolerance=tolerance)
    assert [stop.update(n) for n in counts] == band_rule(counts, window, tolerance)


@settings(max_examples=100, deadline=None)
@given(rates=st.lists(st.floats(0.02, 0.2), min_size=1, max_size=40))
def test_a_count_falling_by_more_than_the_tolerance_never_stops(rates):
    counts = [1_000_000]
    for rate in rates:  # each selection evicts at least 2% of the support vectors
        counts.append(int(counts[-1] * (1.0 - rate)))
    stop = SaturationStop(window=1, tolerance=0.01)
    assert not any(stop.update(n) for n in counts)


def test_full_search_active_and_gradient_follow_the_criterion():
    scores = [0.9, -0.1, 2.0, -3.0, 0.4, -0.5]
    labels = [True, False, True, True, False, False]
    for strategy, key in (
        ("active", np.abs(scores)),
        ("gradient", np.where(labels, 1.0, -1.0) * scores),
    ):
        model, X = fixed(scores, labels)
        run = SmallPoolSelection(strategy, pool=len(X), n_seed=0, seed=0).run(model, X, labels)
        # every draw holds the whole rest, and the fixed scores never change
        assert run.selected == np.argsort(key, kind="stable").tolist() == model.learned


def test_random_visits_every_example_once_and_seeds_come_first():
    labels = [False] * 6 + [True] * 4
    model, X = fixed(np.zeros(10), labels)
    run = SmallPoolSelection("random", n_seed=2, seed=3).run(model, X, labels)
    assert run.selected[:4] == [0, 1, 6, 7]
    assert sorted(run.selected) == list(range(10)) and model.calls == 0
    assert len(run.n_support) == 6 and run.stopped_at is None


def test_autoactive_stops_drawing_at_the_margin_count():
    scores = np.full(200, 5.0)
    scores[::10] = 0.5  # 20 examples inside the margin 1 + delta/2
    labels = [True] * 200
    model, X = fixed(scores, labels, delta=0.0)
    selection = SmallPoolSelection("autoactive", in_margin=5, max_draws=100, n_seed=0, seed=1)
    selection.run(model, X, labels, max_steps=1)
    assert model.learned[0] % 10 == 0  # the chosen one is inside the margin
    assert 5 <= model.calls < 100  # stopped at the 5th example inside, not at max_draws


def test_active_selection_stops_early_near_the_full_pass():
    """ACTIVE with the pool of 59 and the saturation stop learns a fraction of Banana and comes
    within 2 points of LASVM's one pass plus finishing (chapter 4's claim, on a small set)."""
    from river import datasets

    data = list(datasets.Bananas())
    X, y = [x for x, _ in data], [label for _, label in data]
    train, test = slice(0, 3000), slice(3000, None)
    full = LASVM(C=10.0, gamma=1.0)
    for x, label in zip(X[train], y[train]):
        full.learn_one(x, label)
    full.finish()
    active = LASVM(C=10.0, gamma=1.0)
    run = SmallPoolSelection("active", pool=59, seed=0).run(
        active, X[train], y[train], stop=SaturationStop(window=100)
    )
    active.finish()

    def accuracy(model):
        return np.mean([model.predict_one(x) == label for x, label in zip(X[test], y[test])])

    assert run.stopped_at is not None and len(run.selected) < 0.6 * 3000
    assert accuracy(active) > accuracy(full) - 0.02


@pytest.mark.parametrize(
    "params", [{"strategy": "best"}, {"pool": 0}, {"in_margin": 0}, {"n_seed": -1}]
)
def test_bad_parameters_are_named(params):
    with pytest.raises(InvalidParameter, match=next(iter(params))):
        SmallPoolSelection(**params)


def test_mismatched_lengths_are_refused():
    model, X = fixed([0.0, 1.0], [True, False])
    with pytest.raises(ValueError, match="2 samples but y has 1"):
        SmallPoolSelection().run(model, X, [True])
