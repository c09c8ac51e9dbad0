"""ImportanceWeighted: weights passed on or replayed, target feeding, purity, bad input."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import base, compose, linear_model, naive_bayes, preprocessing, stream

from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.density_ratio import ImportanceWeighted, Reweighter, ULSIFReweighter
from imbalance_stream.density_ratio.importance_weighted import accepts_weight
from imbalance_stream.linear_model import ACOG


class Recorder(base.Classifier):
    """Remembers every ``(x, y, w)`` it learns."""

    def __init__(self):
        self.seen = []

    def learn_one(self, x, y, w=1.0):
        self.seen.append((x, y, w))

    def predict_proba_one(self, x):
        return {True: 0.5, False: 0.5}


class Counter(base.Classifier):
    """Counts how often it learns; takes no weight."""

    def __init__(self):
        self.count = 0

    def learn_one(self, x, y):
        self.count += 1

    def predict_proba_one(self, x):
        return {True: 0.5, False: 0.5}


class Fixed(Reweighter):
    """Every weight ``value`` (its raw weights are constant, so the mean-1 normalisation is
    undone by returning ``value`` at the source and ``value`` elsewhere)."""

    def __init__(self, value: float = 2.5):
        super().__init__()
        self.value = value

    def _solve(self, source_X, source_y, target_X):
        return np.ones(source_X.shape[0])

    def _weight_at(self, vector, y):
        return self.value


def drifting(seed, n):
    rng = np.random.default_rng(seed)
    for t in range(n):
        x = rng.normal(1.5 * t / n, 1.0, size=2)
        yield {"a": float(x[0]), "b": float(x[1])}, bool(x[0] + 0.3 * rng.normal() > 0.8)


def test_a_bounded_target_window_refreshes_by_itself_unless_told():
    """On a stream nobody calls refresh(): with a bounded target window and no refresh_every a
    re-weighter re-solves every n_target samples taken in; unbounded (the batch setting), it
    waits for refresh()."""
    streaming = ULSIFReweighter(n_source=50, n_target=20, seed=0)
    batch = ULSIFReweighter(seed=0)
    for x, y in drifting(2, 45):
        for reweighter in (streaming, batch):
            reweighter.learn_source_one(x, y)
            reweighter.learn_target_one(x)
    assert streaming._ratio._since_refresh == 90 % 20 and streaming._ratio.fitted
    assert batch._ratio._since_refresh == 90 and not batch._ratio.fitted
    assert ULSIFReweighter(n_target=20, refresh_every=7)._ratio._refresh_period == 7


def test_the_weight_reaches_a_learner_that_takes_one():
    reweighter = ULSIFReweighter(n_source=50, n_target=50, seed=0)
    model = ImportanceWeighted(Recorder(), reweighter)
    data = list(drifting(1, 200))
    for x, y in data[:100]:
        model.learn_one(x, y)
    for x, _ in data[100:]:
        model.observe_one(x)
    reweighter.refresh()
    for x, y in data[100:120]:
        expected = reweighter.weight_one(x, y)
        model.learn_one(x, y, w=2.0)
        assert model.classifier.seen[-1][2] == pytest.approx(2.0 * expected)
    weights = [w for _, _, w in model.classifier.seen[100:]]
    assert len(set(weights)) > 1  # weights vary with x
    assert all(w == 1.0 for _, _, w in model.classifier.seen[:100])  # before any refresh


def test_a_learner_without_weights_gets_seeded_whole_numbers_of_updates():
    counts = []
    for seed in (0, 0, 1):
        reweighter = Fixed(2.5)
        model = ImportanceWeighted(Counter(), reweighter, seed=seed)
        for x, _ in drifting(2, 4):
            model.observe_one(x)
        for x, y in drifting(3, 4):
            model.learn_one(x, y)
        reweighter.refresh()
        per_sample = []
        for x, y in drifting(4, 2000):
            before = model.classifier.count
            model.learn_one(x, y)
            per_sample.append(model.classifier.count - before)
        counts.append(sum(per_sample))
        assert set(per_sample) == {2, 3}  # floor(2.5), plus one half the time
    assert counts[0] == counts[1] != counts[2]  # seeded
    # 2 + Bernoulli(0.5) copies per sample: 5000 in expectation, standard deviation about 22
    assert abs(counts[0] - 5000) < 120


@pytest.mark.parametrize("weight", [1.0, 3.0])
def test_a_whole_weight_is_exactly_that_many_updates(weight):
    reweighter = Fixed(weight)
    model = ImportanceWeighted(Counter(), reweighter, seed=0)
    for x, _ in drifting(2, 4):
        model.observe_one(x)
    for x, y in drifting(3, 4):
        model.learn_one(x, y)
    reweighter.refresh()
    before = model.classifier.count
    for x, y in drifting(4, 500):
        model.learn_one(x, y)
    assert model.classifier.count - before == 500 * weight


def test_weights_are_found_through_pipelines():
    assert accepts_weight(linear_model.LogisticRegression())
    assert not accepts_weight(naive_bayes.GaussianNB())
    assert accepts_weight(preprocessing.StandardScaler() | linear_model.LogisticRegression())
    assert not accepts_weight(compose.Pipeline(preprocessing.StandardScaler(), Counter()))


def test_observing_feeds_the_target_window_and_predicting_changes_nothing():
    model = ImportanceWeighted(
        linear_model.LogisticRegression(), ULSIFReweighter(refresh_every=40, seed=0)
    )
    for x, y in drifting(5, 30):
        model.learn_one(x, y)
        model.observe_one(x)
    assert model.reweighter.n_source_samples == 30
    assert model.reweighter.n_target_samples == 30
    before = pickle.dumps(model)
    for x, _ in drifting(6, 20):
        model.predict_one(x)
        model.predict_proba_one({**x, "unseen": 1.0})
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("seed", range(4))  # ACOG takes no weight: its rounding draws vary with it
@pytest.mark.parametrize("classifier", [ACOG(), naive_bayes.GaussianNB()], ids=type)
def test_a_refused_sample_changes_nothing_after_refreshes(classifier, seed):
    model = ImportanceWeighted(
        classifier, ULSIFReweighter(n_source=40, n_target=40, seed=0), seed=seed
    )
    for x, y in drifting(7, 60):
        model.observe_one(x)
        model.learn_one(x, y)
    model.reweighter.refresh()
    before = pickle.dumps(model)
    with pytest.raises(InvalidFeature, match="'bad'"):
        model.learn_one({"a": 1.0, "bad": math.nan}, True)
    with pytest.raises(InvalidFeature, match="'bad'"):
        model.observe_one({"bad": "x"})
    with pytest.raises(InvalidFeature, match="'bad'"):
        model.predict_proba_one({"bad": math.inf})
    with pytest.raises(UnknownLabel, match="label is None"):
        model.learn_one({"a": 1.0}, None)
    if isinstance(classifier, ACOG):  # a binary learner refuses a third label itself
        with pytest.raises(UnknownLabel, match="'third'"):
            model.learn_one({"a": 1.0}, "third")
    assert pickle.dumps(model) == before


def test_the_delayed_label_loop():
    """River's simulate_qa: observe on the question, learn on the answer; every label is learned
    once, and the target window holds the most recent arrivals."""
    model = ImportanceWeighted(Recorder(), ULSIFReweighter(n_target=30, refresh_every=25, seed=0))
    asked = {}
    for i, x, y in stream.simulate_qa(drifting(8, 150), moment=None, delay=20):
        if y is None:
            asked[i] = model.predict_one(x)
            model.observe_one(x)
        else:
            asked.pop(i)
            model.learn_one(x, y)
    assert not asked and len(model.classifier.seen) == 150
    assert model.reweighter.n_target_samples == 30
    assert model.reweighter._ratio.fitted


def test_the_prequential_runner_shows_every_arrival_even_with_labels_at_once():
    """River's progressive_val_score never calls observe_one (the target window would stay
    empty and the classifier learn unweighted); run_prequential shows each arrival, so with
    labels at once it is the loop of delay = 0."""
    from river import datasets, metrics

    from imbalance_stream.evaluate import run_prequential

    def model():
        return ImportanceWeighted(
            preprocessing.StandardScaler() | linear_model.LogisticRegression(),
            ULSIFReweighter(n_source=100, n_target=50, refresh_every=25, clip=10.0, seed=0),
        )

    def log_loss(delay):
        result = run_prequential(
            datasets.Phishing(), {"IW": model()}, {"LL": metrics.LogLoss()}, step=500, delay=delay
        )
        return result.final["IW"]["LL"]

    plain = run_prequential(
        datasets.Phishing(),
        {"LR": preprocessing.StandardScaler() | linear_model.LogisticRegression()},
        {"LL": metrics.LogLoss()},
        step=500,
    ).final["LR"]["LL"]
    assert log_loss(None) == log_loss(0) != plain
