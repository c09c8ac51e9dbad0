"""The stream re-weighters: windows, refresh, normalisation, clip, purity, bad input."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.base import InvalidFeature
from imbalance_stream.density_ratio import (
    KLIEP,
    KMM,
    ULSIF,
    KLIEPReweighter,
    KMMReweighter,
    Reweighter,
    ULSIFReweighter,
)


def shifted(seed, m=120, n=150):
    rng = np.random.default_rng(seed)
    source = rng.normal(0.0, 1.0, size=(m, 2))
    target = rng.normal(0.8, 0.6, size=(n, 2))
    return source, target


def as_dict(row):
    return {"a": float(row[0]), "b": float(row[1])}


def fed(reweighter, source, target):
    for i, row in enumerate(source):
        reweighter.learn_source_one(as_dict(row), i % 2 == 0)
    for row in target:
        reweighter.learn_target_one(as_dict(row))
    return reweighter


PAIRS = [
    (KMMReweighter(), KMM()),
    (KLIEPReweighter(seed=3), KLIEP(seed=3)),
    (ULSIFReweighter(seed=3), ULSIF(seed=3)),
]


@pytest.mark.parametrize("reweighter, estimator", PAIRS, ids=lambda o: type(o).__name__)
def test_windows_holding_everything_reproduce_the_batch_estimator(reweighter, estimator):
    """The acceptance test of a streaming component: one refresh over the whole data gives the
    batch method's weights (up to the normalisation to mean 1)."""
    source, target = shifted(1)
    reweighter = fed(reweighter.clone(), source, target)
    assert reweighter.refresh()
    estimator.fit(source, target)
    batch = estimator.weights_ if isinstance(estimator, KMM) else estimator.weight(source)
    batch = batch / batch.mean()
    stream = np.array([reweighter.weight_one(as_dict(row)) for row in source])
    np.testing.assert_allclose(stream, batch, rtol=1e-9, atol=1e-12)
    new = np.array([[0.8, 0.8], [-3.0, -3.0]])
    expected = estimator.weight(new) / (
        estimator.weights_.mean() if isinstance(estimator, KMM) else estimator.weight(source).mean()
    )
    got = [reweighter.weight_one(as_dict(row)) for row in new]
    np.testing.assert_allclose(got, expected, rtol=1e-9, atol=1e-12)
    assert got[0] > 1.0 > got[1]  # the target's region up, the source's far tail down


@pytest.mark.parametrize("cls", [KMMReweighter, KLIEPReweighter, ULSIFReweighter])
def test_before_a_refresh_every_weight_is_one_and_weighing_is_pure(cls):
    # a period longer than the 60 samples fed: no refresh before the explicit one (without
    # refresh_every, bounded windows would re-solve every n_target samples)
    reweighter = cls(n_source=30, n_target=30, refresh_every=1_000)
    source, target = shifted(2, m=30, n=30)
    assert reweighter.weight_one({"a": 1.0}) == 1.0
    fed(reweighter, source, target)
    assert reweighter.weight_one({"a": 1.0}) == 1.0  # no refresh yet
    reweighter.refresh()
    before = pickle.dumps(reweighter)
    for row in target[:5]:
        reweighter.weight_one(as_dict(row), True)
    reweighter.weight_one({"a": 1.0, "unseen": 2.0})
    assert pickle.dumps(reweighter) == before


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(10, 60), st.sampled_from([None, 1.5, 3.0]))
def test_weights_average_one_over_the_source_window_and_respect_the_clip(seed, n_source, clip):
    source, target = shifted(seed, m=80, n=40)
    reweighter = fed(ULSIFReweighter(n_source=n_source, clip=clip, seed=0), source, target)
    reweighter.refresh()
    weights = np.array([reweighter.weight_one(as_dict(row)) for row in source[-n_source:]])
    assert (weights >= 0).all()
    if clip is None:
        assert weights.mean() == pytest.approx(1.0, rel=1e-9)
    else:
        assert weights.max() <= clip
        assert weights.mean() <= 1.0 + 1e-9


def test_windows_are_bounded_and_refreshes_come_on_schedule():
    source, target = shifted(4, m=50, n=50)
    reweighter = KMMReweighter(n_source=20, n_target=10, refresh_every=25)
    calls = []
    original = reweighter._solve

    def counting(source_X, source_y, target_X):
        calls.append((source_X.shape[0], len(source_y), target_X.shape[0]))
        return original(source_X, source_y, target_X)

    reweighter._solve = counting
    fed(reweighter, source, target)
    assert reweighter.n_source_samples == 20 and reweighter.n_target_samples == 10
    # 100 samples taken in, a refresh due every 25: at 25 and 50 the target window is still
    # empty and nothing runs; at 75 and 100 both windows are full
    assert calls == [(20, 20, 10), (20, 20, 10)]


def test_a_zero_solution_gives_neutral_weights():
    class Nothing(Reweighter):
        def _solve(self, source_X, source_y, target_X):
            return np.zeros(source_X.shape[0])

        def _weight_at(self, vector, y):
            return 0.0

    reweighter = fed(Nothing(), *shifted(5, m=10, n=10))
    assert reweighter.refresh()
    assert reweighter.weight_one({"a": 0.0}) == 1.0


def test_a_subclass_needs_only_the_solve_and_the_value_at_a_point():
    """The abstract surface: a re-weighter that knows the class-conditional ratio by heart."""

    class ByLabel(Reweighter):
        def _solve(self, source_X, source_y, target_X):
            self.share_ = np.mean(source_y)
            return np.array([self._weight_at(row, y) for row, y in zip(source_X, source_y)])

        def _weight_at(self, vector, y):
            return 2.0 if y else 1.0

    reweighter = fed(ByLabel(), *shifted(6, m=10, n=4))
    reweighter.refresh()
    # half the source labels are True: mean raw weight 1.5
    assert reweighter.weight_one({"a": 0.0}, True) == pytest.approx(2.0 / 1.5)
    assert reweighter.weight_one({"a": 0.0}, False) == pytest.approx(1.0 / 1.5)


@pytest.mark.parametrize("cls", [KMMReweighter, KLIEPReweighter, ULSIFReweighter])
@pytest.mark.parametrize(
    "bad", [{"a": math.nan}, {"a": 1.0, "b": math.inf}, {"a": "1"}, {"new": None}]
)
def test_bad_input_is_refused_naming_the_feature_and_changes_nothing(cls, bad):
    reweighter = fed(cls(n_source=30, n_target=30), *shifted(7, m=30, n=30))
    reweighter.refresh()
    before = pickle.dumps(reweighter)
    name = next(k for k, v in bad.items() if not isinstance(v, float) or not math.isfinite(v))
    for call in (
        lambda: reweighter.learn_source_one(bad, True),
        lambda: reweighter.learn_target_one(bad),
        lambda: reweighter.weight_one(bad),
        lambda: reweighter.check_one(bad),
    ):
        with pytest.raises(InvalidFeature, match=repr(name)):
            call()
        assert pickle.dumps(reweighter) == before
