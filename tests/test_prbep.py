"""PRBEP: the streaming metric against the batch function and a tie-free brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.metrics import PRBEP, batch


def brute_force(scores, positive, rng, repeats=2000):
    """The mean, over random tie-breaks, of the precision at the top P (P = #positives); also
    the recall there, which must be the same number."""
    n_positive = int(positive.sum())
    precisions, recalls = [], []
    for _ in range(repeats):
        order = np.lexsort((rng.random(scores.size), -scores))
        top = np.zeros(scores.size, bool)
        top[order[:n_positive]] = True
        hits = int((top & positive).sum())
        precisions.append(hits / top.sum())
        recalls.append(hits / n_positive)
    return float(np.mean(precisions)), float(np.mean(recalls))


def test_tie_free_prbep_is_where_precision_equals_recall():
    rng = np.random.default_rng(0)
    positive = rng.random(500) < 0.2
    scores = rng.normal(size=500) + positive
    precision, recall = brute_force(scores, positive, rng, repeats=1)
    assert precision == recall == pytest.approx(batch.prbep(scores, positive), abs=1e-12)


def test_ties_count_as_a_random_tie_break_in_expectation():
    rng = np.random.default_rng(1)
    positive = rng.random(60) < 0.3
    scores = np.round(rng.normal(size=60) + positive, 0)  # heavy ties
    precision, _ = brute_force(scores, positive, rng)
    assert batch.prbep(scores, positive) == pytest.approx(precision, abs=0.01)


@settings(max_examples=60, deadline=None)
@given(
    data=st.lists(st.tuples(st.booleans(), st.integers(-3, 3).map(float)), min_size=1, max_size=80),
    n_revert=st.integers(0, 5),
)
def test_streaming_equals_batch_and_revert_undoes(data, n_revert):
    metric = PRBEP()
    for label, score in data:
        metric.update(label, score)
    labels = np.array([label for label, _ in data])
    scores = np.array([score for _, score in data])
    assert metric.get() == pytest.approx(batch.prbep(scores, labels), abs=1e-12)
    n_revert = min(n_revert, len(data) - 1)
    for label, score in data[len(data) - n_revert :]:
        metric.revert(label, score)
    kept = len(data) - n_revert
    assert metric.get() == pytest.approx(batch.prbep(scores[:kept], labels[:kept]), abs=1e-12)


def test_probabilities_no_positives_and_bad_input():
    metric = PRBEP(pos_val="yes")
    assert metric.get() == 0.0
    metric.update("no", {"yes": 0.2, "no": 0.8})
    metric.update("yes", {"yes": 0.9, "no": 0.1})
    assert metric.get() == 1.0
    with pytest.raises(ValueError, match="NaN"):
        metric.update("yes", float("nan"))
    with pytest.raises(ValueError, match="weights"):
        metric.update("yes", 0.3, w=2.0)
