"""MarginSampler: LASVM's active learning on a stream (seed 003, chapters 4 and 5)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from river import preprocessing
from test_reliability import BAD_LABELS, BAD_SAMPLES

from imbalance_stream.active import MarginSampler
from imbalance_stream.active.virtual import Positives
from imbalance_stream.base import UnknownLabel
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.linear_model import ACOG
from imbalance_stream.svm import LASVM, LASVMG


def stream(n, seed, positive_rate=0.2, d=2, shift=1.5):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < positive_rate
    X = rng.normal(size=(n, d)) + shift * labels[:, None]
    return [
        ({f"f{j}": float(v) for j, v in enumerate(row)}, bool(lab)) for row, lab in zip(X, labels)
    ]


def run_protocol(model, samples):
    """River's active loop: predict, and pass the label only when asked. The asked samples."""
    asked = []
    for x, y in samples:
        _, ask = model.predict_one(x)
        if ask:
            model.learn_one(x, y)
            asked.append((x, y))
    return asked


# ---- the rules ------------------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), rule=st.sampled_from(["margin", "pool"]))
def test_it_learns_exactly_the_samples_it_asked_for(seed, rule):
    """The classifier inside equals a LASVM fed the asked-for samples alone, in order."""
    samples = stream(150, seed)
    model = MarginSampler(LASVM(C=5.0, gamma=0.5), rule=rule, pool=7, stop_window=None)
    asked = run_protocol(model, samples)
    alone = LASVM(C=5.0, gamma=0.5)
    for x, y in asked:
        alone.learn_one(x, y)
    probes = [x for x, _ in samples[:20]]
    assert [model.classifier.decision_one(x) for x in probes] == [
        alone.decision_one(x) for x in probes
    ]
    assert model.n_asked_ == model.n_learned_ == len(asked)
    assert model.n_seen_ == len(samples)


def test_the_margin_rule_asks_inside_the_band_after_the_seeds():
    model = MarginSampler(LASVM(C=5.0, gamma=0.5), n_seed=3, stop_window=None)
    learned: dict = {}
    for x, y in stream(300, 1):
        seeding = len(learned) < 2 or min(learned.values()) < 3
        band = 1.0 + model.classifier.delta_ / 2
        inside = abs(model.classifier.decision_one(x)) < band
        _, ask = model.predict_one(x)
        assert ask == (seeding or inside)
        if ask:
            model.learn_one(x, y)
            learned[y] = learned.get(y, 0) + 1
    assert 0 < model.n_asked_ < 300


def test_the_pool_rule_asks_for_the_closest_of_the_last_pool_arrivals():
    pool = 5
    model = MarginSampler(
        LASVM(C=5.0, gamma=0.5), rule="pool", pool=pool, n_seed=0, stop_window=None
    )
    scores: list[float] = []
    for x, y in stream(200, 2):
        score = abs(model.classifier.decision_one(x))
        previous = scores[-(pool - 1) :]
        _, ask = model.predict_one(x)
        assert ask == (not previous or score <= min(previous))
        scores.append(score)
        if ask:
            model.learn_one(x, y)
    assert 200 / pool / 3 < model.n_asked_ < 200 / 2


def test_saturation_stops_asking_and_learning():
    samples = stream(3000, 3, positive_rate=0.1)
    model = MarginSampler(LASVM(C=1.0, gamma=0.5), stop_window=30, stop_tolerance=0.05)
    run_protocol(model, samples)
    assert model.stopped_
    frozen = pickle.dumps(model.classifier)
    asked_before = model.n_asked_
    for x, y in samples[:50]:
        assert model.predict_one(x)[1] is False
        model.learn_one(x, y)  # a caller that passes labels anyway changes nothing
    assert pickle.dumps(model.classifier) == frozen
    assert model.n_asked_ == asked_before


def test_asking_for_fewer_labels_keeps_the_accuracy_on_an_easy_imbalanced_stream():
    """Chapter 4's claim on a stream: the margin rule learns a fraction of the labels and
    predicts a held-out set as well as the model that learned them all (within 2 points)."""
    train = stream(3000, 4, positive_rate=0.1, shift=3.0)
    test = stream(1000, 5, positive_rate=0.1, shift=3.0)
    active = MarginSampler(LASVM(C=10.0, gamma=0.05), stop_window=None)
    run_protocol(active, train)
    full = LASVM(C=10.0, gamma=0.05)
    for x, y in train:
        full.learn_one(x, y)

    def accuracy(clf):
        return np.mean([clf.predict_one(x) == y for x, y in test])

    assert active.n_asked_ < 0.2 * len(train)
    assert accuracy(active.classifier) > accuracy(full) - 0.02


# ---- VIRTUAL on the stream ------------------------------------------------------------------


def test_virtual_positives_lie_between_a_learned_positive_and_a_near_one():
    model = MarginSampler(LASVM(C=5.0, gamma=0.5), virtual=1, stop_window=None, seed=0)
    positives: list[np.ndarray] = []
    made: list[dict] = []
    original = model._make_virtual

    def recording():
        before = len(model._queue)
        original()
        made.extend(list(model._queue)[before:])
        newest = positives[-1]
        for v in list(model._queue)[before:]:
            point = np.array([v.get("f0", 0.0), v.get("f1", 0.0)])
            others = np.array(positives[:-1])
            nearest = others[np.argsort(((others - newest) ** 2).sum(axis=1))[:5]]
            lam = [
                np.linalg.lstsq((newest - p)[:, None], point - p, rcond=None)[0][0] for p in nearest
            ]
            assert any(
                np.allclose(point, l * newest + (1 - l) * p) and 0 <= l <= 1
                for l, p in zip(lam, nearest)
            )

    model._make_virtual = recording
    for x, y in stream(400, 6, positive_rate=0.15):
        _, ask = model.predict_one(x)
        if ask:
            if y:
                positives.append(np.array([x["f0"], x["f1"]]))
            model.learn_one(x, y)
    assert made and model.n_virtual_ == len(made)
    assert 0 < model.n_virtual_learned_ <= model.n_virtual_
    assert model.n_learned_ == model.n_asked_ + model.n_virtual_learned_


def test_a_wide_positive_does_not_widen_later_neighbour_searches(monkeypatch):
    """One positive with 100,000 features of its own, then a few hundred samples: each later
    neighbour search builds a block over the shared features only (two here), where a dense
    matrix over every feature the kept positives hold would be 100,002 wide every time."""
    shapes = []
    dense = Positives._dense

    def spy(self, names):
        block = dense(self, names)
        shapes.append(block.shape)
        return block

    monkeypatch.setattr(Positives, "_dense", spy)
    model = MarginSampler(LASVM(C=5.0, gamma=0.5), virtual=1, stop_window=None, seed=0)
    wide = {"f0": 1.5, "f1": 1.5, **{f"w{j}": 1.0 for j in range(100_000)}}
    run_protocol(model, [(wide, True)] + stream(600, 8, positive_rate=0.3))
    assert any(len(x) == len(wide) for x in model._positives._rows)  # still kept
    assert len(shapes) > 100 and model.n_virtual_ == len(shapes)
    assert max(width for _, width in shapes) == 2
    assert max(rows for rows, _ in shapes) <= model.n_positives


def test_virtual_positives_add_positive_support_vectors():
    """Chapter 5 (Table 5.2): VIRTUAL lowers the ratio of negative to positive support vectors."""
    samples = stream(2000, 7, positive_rate=0.05)

    def ratio(v):
        model = MarginSampler(LASVM(C=5.0, gamma=0.5), virtual=v, stop_window=None, seed=0)
        run_protocol(model, samples)
        alpha = model.classifier._model.alpha[: model.classifier.n_expansion_]
        return np.sum(alpha < 0) / max(1, np.sum(alpha > 0))

    assert ratio(1) < ratio(0)


# ---- bad input ------------------------------------------------------------------------------


def warmed(**params):
    model = MarginSampler(LASVM(C=5.0, gamma=0.5), **params)
    run_protocol(model, stream(200, 8, positive_rate=0.3))
    return model


@pytest.mark.parametrize("params", [{}, {"virtual": 1, "seed": 0}, {"stop_window": 1}])
def test_bad_samples_are_refused_naming_the_feature_and_change_nothing(params):
    model = warmed(**params)
    for case, x, culprit in BAD_SAMPLES:
        if culprit is None:
            continue
        for action in (lambda x=x: model.predict_one(x), lambda x=x: model.learn_one(x, True)):
            before = pickle.dumps(model)
            with pytest.raises((ValueError, TypeError), match=repr(culprit)):
                action()
            assert pickle.dumps(model) == before, case


@pytest.mark.parametrize("params", [{}, {"stop_window": 1}])
def test_bad_labels_are_refused_and_change_nothing(params):
    model = warmed(**params)
    for label in [*BAD_LABELS, "unseen"]:
        before = pickle.dumps(model)
        with pytest.raises(UnknownLabel):
            model.learn_one({"f0": 1.0}, label)
        assert pickle.dumps(model) == before


@pytest.mark.parametrize(
    "params",
    [
        {"rule": "nearest"},
        {"pool": 0},
        {"n_seed": -1},
        {"stop_window": 0},
        {"virtual": -1},
        {"k": 0},
    ],
)
def test_bad_parameters_are_named(params):
    with pytest.raises(InvalidParameter, match=next(iter(params))):
        MarginSampler(LASVM(), **params)


@pytest.mark.parametrize(
    ("classifier", "virtual", "message"),
    [
        (ACOG(), 0, "ACOG: it has no n_support_; wrap a LASVM"),
        (preprocessing.StandardScaler() | LASVM(), 0, r"put the scaler in front of the sampler"),
        (LASVMG(), 1, "LASVMG: it has no last_alpha_; virtual > 0 needs"),
    ],
)
def test_a_classifier_the_sampler_cannot_drive_is_refused_when_built(classifier, virtual, message):
    """Found at the first learned sample instead, the classifier would be half-updated."""
    with pytest.raises(TypeError, match=message):
        MarginSampler(classifier, virtual=virtual)
    MarginSampler(LASVMG())  # every LASVM drives the margin rule; only VIRTUAL needs LASVM
