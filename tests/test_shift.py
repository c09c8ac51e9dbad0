"""SelectionShift: a biased past, then a uniform present, the labelling unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from river import datasets

from imbalance_stream.datasets import SelectionShift


@pytest.fixture(scope="module")
def segments():
    return list(datasets.ImageSegments())


def test_the_past_is_biased_the_present_uniform_and_labels_unchanged(segments):
    stream = SelectionShift(segments, positive="foliage", seed=1)
    rows = list(stream)
    assert len(rows) == stream.n_samples
    t = stream.shift_at
    past = np.mean([y for _, y in rows[:t]])
    present = np.mean([y for _, y in rows[t:]])
    assert past < present  # the direction that makes the rare class rarest in the past
    assert len(rows) - t == round(0.5 * len(segments))
    values = np.array([list(x.values()) for x, _ in rows])
    assert values.min() >= -1.0 and values.max() <= 1.0
    # p(y|x) is the source's: every emitted row is a source row with its own label
    assert sum(y for _, y in rows) <= sum(y == "foliage" for _, y in segments)


def test_the_stream_is_seeded_and_re_iterable(segments):
    a = SelectionShift(segments, positive="foliage", seed=3)
    b = SelectionShift(segments, positive="foliage", seed=3)
    assert list(a) == list(b) == list(a)
    assert list(SelectionShift(segments, positive="foliage", seed=4)) != list(a)


def test_bad_parameters_are_refused(segments):
    with pytest.raises(ValueError, match="present"):
        SelectionShift(segments, present=1.0)
    with pytest.raises(ValueError, match="candidates"):
        SelectionShift(segments, candidates=0)
