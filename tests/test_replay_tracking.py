"""imbalance_stream.replay.tracking: a metric track is River's metrics updated in label order; it
survives a checkpoint (pickle) at any label; and the merge's fold of answer records spread over any
number of partitions gives exactly the tracks (and curve rows) of one cell folding them all."""

from __future__ import annotations

import collections
import pickle

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from river import metrics

from imbalance_stream.replay.merge import _fold_answers
from imbalance_stream.replay.parts import write_answers
from imbalance_stream.replay.tracking import MetricTrack

STEP = 3
WINDOW = 10


def make_metrics():
    return {
        "BA": metrics.BalancedAccuracy(),
        "AUC": metrics.ROCAUC(),
        "F1": metrics.F1(),
    }


events = st.lists(
    st.tuples(
        st.integers(0, 5),  # gap to the previous event time
        st.integers(0, 30),  # label delay
        st.booleans(),  # label
        st.floats(0.0, 1.0),  # predicted probability of True
        st.integers(0, 1),  # model index
        st.integers(0, 4),  # entity (its partition, below)
    ),
    min_size=1,
    max_size=60,
)


def _answers(drawn):
    """The answer records ``(label time, seq, model, event time, y, taken)`` in label order."""
    records, time = [], 0
    for seq, (gap, delay, y, p, midx, _) in enumerate(drawn):
        time += gap
        taken = (p >= 0.5, {True: p, False: 1.0 - p})
        records.append((time + delay, seq, midx, time, y, taken))
    return sorted(records, key=lambda r: (r[0], r[1], r[2]))


def _fold(tracks, records):
    rows = []
    for label_time, seq, midx, event_time, y, taken in records:
        rows += tracks[midx].update(make_metrics, label_time, seq, event_time, y, taken)
    return rows


def _tracks():
    return [MetricTrack(midx, make_metrics, STEP, WINDOW) for midx in (0, 1)]


def _state(track):
    return track.seen, track.tail(), track.window_rows()


@settings(max_examples=60, deadline=None)
@given(events)
def test_a_track_is_rivers_metrics_in_label_order(drawn):
    tracks = _tracks()
    _fold(tracks, _answers(drawn))
    for midx, track in enumerate(tracks):
        expected = make_metrics()
        for _, _, m, _, y, (label, proba) in _answers(drawn):
            if m == midx:
                for metric in expected.values():
                    metric.update(y, label if metric.requires_labels else proba)
        assert {k: m.get() for k, m in track.metrics.items()} == {
            k: m.get() for k, m in expected.items()
        }


@settings(max_examples=60, deadline=None)
@given(events, st.data())
def test_a_track_resumes_exactly_from_a_pickle(drawn, data):
    records = _answers(drawn)
    cut = data.draw(st.integers(0, len(records)))
    whole = _tracks()
    whole_rows = _fold(whole, records)
    resumed = _tracks()
    rows = _fold(resumed, records[:cut])
    resumed = pickle.loads(pickle.dumps(resumed))  # what a checkpoint holds
    rows += _fold(resumed, records[cut:])
    assert rows == whole_rows
    assert [_state(t) for t in resumed] == [_state(t) for t in whole]


@settings(max_examples=40, deadline=None)
@given(events, st.integers(1, 4))
def test_folding_partitions_in_the_merge_equals_one_fold(tmp_path_factory, drawn, partitions):
    records = _answers(drawn)
    one = _tracks()
    one_rows = _fold(one, records)
    folder = tmp_path_factory.mktemp("parts")
    paths = []
    for p in range(partitions):
        mine = [r for r, ev in zip(records, _by_seq(drawn, records)) if ev[5] % partitions == p]
        paths.append(str(folder / f"cell{p}.ans"))
        with open(paths[-1], "wb") as handle:
            for start in range(0, len(mine), 7):  # several batches, as a cell writes them
                batch = mine[start : start + 7]
                write_answers(handle, batch)
    merged = _tracks()
    makers = [make_metrics] * len(merged)  # each model's metrics: the same here
    assert list(_fold_answers(paths, merged, makers)) == one_rows
    assert [_state(t) for t in merged] == [_state(t) for t in one]


def _by_seq(drawn, records):
    """The drawn event of each answer record (its entity decides its partition)."""
    return [drawn[seq] for _, seq, *_ in records]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2)), max_size=40),
    st.permutations([True, 1, "fraud", 0.0]),
    st.permutations([False, 1.0, "ok"]),
)
def test_coded_pairs_are_counted_as_a_counter_counts_the_labels(codes, label_table, guess_table):
    """Pairs of codes counted with numpy: the same counts, keys and order as a ``Counter`` of
    the labels (True, 1 and 1.0 are one key there, the first one's)."""
    from imbalance_stream.base.labels import CodedLabels
    from imbalance_stream.replay.tracking import _pair_counts

    ys = CodedLabels(np.array([y for y, _ in codes], dtype=np.int64), list(label_table))
    guesses = CodedLabels(np.array([g for _, g in codes], dtype=np.int64), list(guess_table))
    expected = collections.Counter(zip(list(ys), list(guesses)))
    got = _pair_counts(ys, guesses)
    assert list(got.items()) == list(expected.items())
    assert [tuple(map(type, key)) for key in got] == [tuple(map(type, key)) for key in expected]
