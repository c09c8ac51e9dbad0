"""Imbalance schedules and ImbalancedStream."""

from __future__ import annotations

import itertools
import math
import pickle
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river.datasets import synth

from imbalance_stream.datasets import (
    Gradual,
    ImbalancedStream,
    Periodic,
    Piecewise,
    Static,
    Step,
    as_schedule,
)


def balanced_source(n, seed=0):
    """A re-iterable list of n samples alternating False/True, each with a unique id."""
    return [({"id": i, "v": float(i % 7)}, bool(i % 2)) for i in range(n)]


class CoinSource:
    """A fast, infinite, re-iterable stream whose labels are fair coin flips (1 / 0)."""

    n_features = 1

    def __init__(self, seed=0):
        self.seed = seed

    def __iter__(self):
        rng = random.Random(self.seed)
        for i in itertools.count():
            yield {"i": i}, int(rng.random() < 0.5)


def binomial_tolerance(n, p, z=4.5):
    return z * math.sqrt(p * (1 - p) / n) + 1e-9


# --- schedules ------------------------------------------------------------------------------------


def test_schedules_values():
    assert Static(0.2)(0) == 0.2 == Static(0.2)(10**9)
    step = Step(0.5, 0.1, at=10)
    assert [step(t) for t in (0, 9, 10, 11)] == [0.5, 0.5, 0.1, 0.1]
    grad = Gradual(0.4, 0.0, begin=10, end_at=20)
    assert grad(0) == grad(10) == 0.4
    assert grad(15) == pytest.approx(0.2)
    assert grad(20) == grad(100) == 0.0
    per = Periodic(0.0, 1.0, period=100)
    assert [per(t) for t in (0, 25, 50, 75, 100, 150)] == pytest.approx([0, 0.5, 1, 0.5, 0, 1])
    sine = Periodic(0.2, 0.6, period=10, shape="sine")
    assert sine(0) == pytest.approx(0.2) and sine(5) == pytest.approx(0.6)
    assert Periodic(0.0, 1.0, period=100, phase=50)(50) == 0.0
    piecewise = Piecewise([0.1, 0.5, 0.2], at=[10, 20])
    assert [piecewise(t) for t in (0, 9, 10, 19, 20, 10**6)] == [0.1, 0.1, 0.5, 0.5, 0.2, 0.2]
    step = Step(0.3, 0.7, at=15)
    assert all(Piecewise([0.3, 0.7], at=[15])(t) == step(t) for t in range(40))


@pytest.mark.parametrize(
    "make",
    [
        lambda: Static(1.5),
        lambda: Static(float("nan")),
        lambda: Static(-0.1),
        lambda: Step(0.5, 2.0, at=3),
        lambda: Step(0.5, 0.2, at=-1),
        lambda: Gradual(0.1, 0.2, begin=5, end_at=5),
        lambda: Periodic(0.1, 0.2, period=0),
        lambda: Periodic(0.1, 0.2, period=10, shape="square"),
        lambda: Piecewise([0.1, 0.2], at=[]),
        lambda: Piecewise([0.1, 0.2, 0.3], at=[5, 5]),
        lambda: Piecewise([0.1, 1.2], at=[5]),
    ],
)
def test_schedule_rejects_bad_parameters(make):
    with pytest.raises(ValueError):
        make()


def test_schedule_equality_repr_pickle():
    assert Step(0.5, 0.1, at=3) == Step(0.5, 0.1, at=3) != Step(0.5, 0.1, at=4)
    assert repr(Static(0.1)) == "Static(p=0.1)"
    schedule = Periodic(0.1, 0.3, period=7)
    assert pickle.loads(pickle.dumps(schedule)) == schedule
    assert as_schedule(0.3) == Static(0.3)
    assert as_schedule(schedule) is schedule
    assert as_schedule(lambda t: 0.5)(10) == 0.5
    with pytest.raises(TypeError):
        as_schedule("0.5")


# --- ratios -------------------------------------------------------------------------------------


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.9])
def test_static_share(p):
    n = 4000
    stream = ImbalancedStream(CoinSource(3), ratio=p, positive=1, n_samples=n, seed=11)
    labels = [y for _, y in stream]
    assert len(labels) == n
    share = sum(labels) / n
    assert abs(share - p) < binomial_tolerance(n, p)


def test_step_change_visible():
    stream = ImbalancedStream(
        CoinSource(2), ratio=Step(0.5, 0.05, at=3000), positive=1, n_samples=6000, seed=5
    )
    labels = [y for _, y in stream]
    before, after = sum(labels[:3000]) / 3000, sum(labels[3000:]) / 3000
    assert abs(before - 0.5) < binomial_tolerance(3000, 0.5)
    assert abs(after - 0.05) < binomial_tolerance(3000, 0.05)


def test_gradual_and_periodic_follow_schedule():
    n = 6000
    for schedule in (Gradual(0.6, 0.1, begin=1000, end_at=5000), Periodic(0.05, 0.5, period=2000)):
        stream = ImbalancedStream(CoinSource(1), schedule, positive=1, n_samples=n, seed=2)
        labels = [y for _, y in stream]
        for lo in range(0, n, 1000):
            window = labels[lo : lo + 1000]
            expected = sum(schedule(t) for t in range(lo, lo + 1000)) / 1000
            assert abs(sum(window) / 1000 - expected) < binomial_tolerance(1000, expected)


def test_extreme_shares():
    source = balanced_source(200)
    only_pos = [y for _, y in ImbalancedStream(source, 1.0, seed=0)]
    assert only_pos == [True] * 100  # stops when the positives are used up
    only_neg = [y for _, y in ImbalancedStream(source, 0.0, seed=0)]
    assert only_neg == [False] * 100


def test_callable_ratio_and_bad_values():
    source = balanced_source(100)
    labels = [y for _, y in ImbalancedStream(source, lambda t: float(t % 2), seed=0)]
    assert labels[:10] == [False, True] * 5
    with pytest.raises(ValueError, match="step 0"):
        list(ImbalancedStream(source, lambda t: 1.5))
    with pytest.raises(TypeError, match="not a number"):
        list(ImbalancedStream(source, lambda t: "x"))


# --- determinism, exhaustion, buffers -------------------------------------------------------------


def test_seeded_streams_are_reproducible():
    def make(seed):
        return ImbalancedStream(
            synth.SEA(seed=4), Step(0.3, 0.1, at=200), positive=True, n_samples=300, seed=seed
        )

    first, second = list(make(9)), list(make(9))
    assert first == second
    stream = make(9)
    assert list(stream) == list(stream)  # re-iterating restarts
    assert [y for _, y in make(10)] != [y for _, y in first]


def test_samples_are_source_samples_in_class_order():
    source = balanced_source(1000)
    out = list(ImbalancedStream(source, 0.2, seed=1))
    ids = [x["id"] for x, _ in out]
    assert len(set(ids)) == len(ids)  # each source sample at most once
    for label in (False, True):
        same = [x["id"] for x, y in out if y is label]
        assert same == sorted(same)  # within a class the source order is kept


def test_exhaustion_stops_or_resamples():
    source = balanced_source(100)  # 50 per class
    stopped = list(ImbalancedStream(source, 0.5, seed=3))
    assert len(stopped) < 100
    resampled = list(ImbalancedStream(source, 0.5, seed=3, replace=True, n_samples=1000))
    assert len(resampled) == 1000
    ids = {x["id"] for x, _ in resampled}
    assert ids <= set(range(100))
    # a class never seen cannot be resampled: the stream stops at its first draw
    negatives_only = [s for s in source if not s[1]]
    assert list(ImbalancedStream(negatives_only, 1.0, replace=True, n_samples=10)) == []


def test_resampled_dicts_are_copies():
    source = balanced_source(4)
    out = list(ImbalancedStream(source, 0.5, seed=0, replace=True, n_samples=50))
    out[-1][0]["id"] = -1
    assert all(x["id"] >= 0 for x, _ in source)


def test_buffers_are_bounded_and_drop_oldest():
    # 1 positive every 1000 samples; asking only for positives must not keep all negatives.
    def source():
        for i in itertools.count():
            yield {"i": i}, i % 1000 == 999

    stream = ImbalancedStream(source(), 1.0, buffer_size=50, n_samples=5)
    assert [x["i"] for x, _ in stream] == [999, 1999, 2999, 3999, 4999]


def test_buffer_keeps_newest_when_full():
    source = [({"i": i}, False) for i in range(100)] + [({"i": 100}, True)]

    def schedule(t):
        return 1.0 if t == 0 else 0.0

    out = list(ImbalancedStream(source, schedule, buffer_size=10))
    assert [x["i"] for x, _ in out] == [100] + list(range(90, 100))


def test_lazy_on_infinite_generator():
    stream = ImbalancedStream(synth.Agrawal(seed=0), 0.01, positive=1, seed=0)
    assert stream.n_samples is None
    assert len(list(itertools.islice(stream, 50))) == 50


def test_multiclass_source_labels_pass_through():
    stream = ImbalancedStream(
        synth.LED(seed=1), 0.3, positive=lambda y: y == 3, n_samples=3000, seed=4
    )
    labels = [y for _, y in stream]
    assert set(labels) <= set(range(10)) and len(set(labels)) > 2
    share = sum(y == 3 for y in labels) / len(labels)
    assert abs(share - 0.3) < binomial_tolerance(len(labels), 0.3)


def test_metadata_and_repr():
    source = synth.Agrawal(seed=0)
    stream = ImbalancedStream(source, Step(0.5, 0.1, at=10), positive=1, n_samples=20)
    assert stream.n_features == source.n_features and stream.task == source.task
    assert stream.n_samples == 20
    text = repr(stream)
    assert "Step(before=0.5, after=0.1, at=10)" in text
    with pytest.raises(ValueError):
        ImbalancedStream(source, 0.5, n_samples=-1)
    with pytest.raises(ValueError):
        ImbalancedStream(source, 0.5, buffer_size=0)
    with pytest.raises(ValueError):
        ImbalancedStream(source, 1.5)


# --- composition with ConceptDriftStream ---------------------------------------------------------


def test_composes_with_concept_drift_stream():
    before = ImbalancedStream(
        synth.Agrawal(seed=1, classification_function=0), 0.5, positive=1, seed=1
    )
    after = ImbalancedStream(
        synth.Agrawal(seed=2, classification_function=2), 0.05, positive=1, seed=2
    )
    drift = synth.ConceptDriftStream(
        stream=before, drift_stream=after, position=2000, width=50, seed=3
    )
    labels = [y for _, y in itertools.islice(drift, 4000)]
    assert len(labels) == 4000
    assert abs(sum(labels[:1800]) / 1800 - 0.5) < binomial_tolerance(1800, 0.5)
    assert abs(sum(labels[2200:]) / 1800 - 0.05) < binomial_tolerance(1800, 0.05)
    assert "ImbalancedStream" in repr(drift)
    # and the other way round: the drifting stream as the source of an imbalanced one
    source = synth.ConceptDriftStream(
        stream=synth.Agrawal(seed=1),
        drift_stream=synth.Agrawal(seed=1, classification_function=3),
        position=1000,
        width=10,
        seed=0,
    )
    stream = ImbalancedStream(source, 0.1, positive=1, n_samples=2000, seed=0)
    labels = [y for _, y in stream]
    assert abs(sum(labels) / 2000 - 0.1) < binomial_tolerance(2000, 0.1)


# --- properties ---------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    labels=st.lists(st.sampled_from(["a", "b", "c"]), max_size=60),
    shares=st.lists(st.floats(0.0, 1.0), min_size=1, max_size=20),
    seed=st.integers(0, 2**16),
    replace=st.booleans(),
)
def test_property_labels_from_source_and_exhaustion(labels, shares, seed, replace):
    source = [({"i": i}, y) for i, y in enumerate(labels)]
    stream = ImbalancedStream(
        source,
        lambda t: shares[t % len(shares)],
        positive="a",
        seed=seed,
        replace=replace,
        n_samples=200,
    )
    out = list(stream)
    assert len(out) <= 200
    assert {y for _, y in out} <= set(labels)
    for x, y in out:
        assert labels[x["i"]] == y  # each emitted pair is a pair of the source
    if not replace:
        ids = [x["i"] for x, _ in out]
        assert len(ids) == len(set(ids)) <= len(labels)
    if not labels:
        assert out == []


def test_patience_stops_a_hopeless_search():
    stream = ImbalancedStream(CoinSource(0), 0.5, positive="1", seed=0, patience=500)
    with pytest.raises(RuntimeError, match="without a positive one"):
        list(itertools.islice(stream, 10))
    with pytest.raises(ValueError):
        ImbalancedStream(CoinSource(0), 0.5, patience=0)

    # a rare but present class is found when patience allows it
    def rare():
        for i in itertools.count():
            yield {"i": i}, i % 1000 == 999

    found = ImbalancedStream(rare(), 1.0, patience=1000, buffer_size=5, n_samples=3)
    assert [x["i"] for x, _ in found] == [999, 1999, 2999]
    with pytest.raises(RuntimeError):
        list(ImbalancedStream(rare(), 1.0, patience=998, n_samples=3))
