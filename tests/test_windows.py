"""SampleWindows: validation without change, eviction, padding to the refresh's columns."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.base import InvalidFeature
from imbalance_stream.base.windows import SampleWindows


def test_encode_validates_and_changes_nothing_until_commit():
    windows = SampleWindows({"a": 2})
    vector, new = windows.encode({"x": 1.0, "y": 2.0})
    assert vector.tolist() == [1.0, 2.0] and new == ["x", "y"]
    assert len(windows.features) == 0
    windows.commit(new)
    assert len(windows.features) == 2
    before = pickle.dumps(windows)
    with pytest.raises(InvalidFeature, match="'z'"):
        windows.encode({"x": 1.0, "z": math.nan})
    assert pickle.dumps(windows) == before


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), st.lists(st.integers(0, 4), min_size=1, max_size=20))
def test_windows_keep_the_latest_and_pad_old_vectors(size, names):
    windows = SampleWindows({"w": size})
    pushed = []
    for t, name in enumerate(names):
        vector = windows.vector({f"f{name}": float(t + 1)})
        left = windows.push("w", vector)
        pushed.append((dict(zip(windows.features.names, vector.tolist())), left))
    assert len(windows.windows["w"]) == min(size, len(names))
    width = windows.freeze()
    matrix = windows.matrix("w")
    assert matrix.shape == (min(size, len(names)), width)
    # each row is its sample over every column known now, later names 0
    for row, (sample, _) in zip(matrix, pushed[-size:]):
        expected = [sample.get(name, 0.0) for name in windows.features.names]
        np.testing.assert_array_equal(row, expected)


def test_query_maps_onto_the_refresh_columns_and_ignores_newer_names():
    windows = SampleWindows({"w": None})
    windows.push("w", windows.vector({"a": 1.0}))
    windows.freeze()
    windows.push("w", windows.vector({"b": 2.0}))  # learned after the refresh
    np.testing.assert_array_equal(windows.query({"a": 3.0, "b": 4.0, "c": 5.0}), [3.0])
    np.testing.assert_array_equal(windows.at_columns(np.array([7.0, 8.0])), [7.0])


# ---- selection once, not at every refresh (RefreshSchedule) -----------------------------------

import itertools  # noqa: E402

from river import datasets  # noqa: E402

from imbalance_stream.anomaly import KDENovelty, KLIEPNovelty, KMMNovelty, ULSIFNovelty  # noqa: E402
from imbalance_stream.base import InvalidParameter  # noqa: E402
from imbalance_stream.base.windows import RESELECT_EVERY, RefreshSchedule  # noqa: E402
from imbalance_stream.density_ratio import (  # noqa: E402
    KLIEPReweighter,
    KMMReweighter,
    ULSIFReweighter,
)
from imbalance_stream.density_ratio.gaussian import gaussian_gram  # noqa: E402

PHISHING = list(datasets.Phishing().take(400))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 5), st.integers(1, 12))
def test_carried_keeps_the_rows_still_held_and_fills_the_new(size, before, since):
    windows = SampleWindows({"w": size})
    for t in range(before + 1):
        windows.push("w", np.array([float(t)]))
    held = np.array([row[0] for row in windows.windows["w"]])  # a value per row: its push
    pushed_then = windows.pushed["w"]
    for t in range(since):
        windows.push("w", np.array([float(before + 1 + t)]))
    carried = windows.carried("w", held, pushed_then, fill=-1.0)
    now = [row[0] for row in windows.windows["w"]]
    expected = [value if value <= before else -1.0 for value in now]
    np.testing.assert_array_equal(carried, expected)


class _Schedule(RefreshSchedule):
    """The selection rule alone: every refresh runs and records whether it selected."""

    def __init__(self, reselect_every):
        self.refresh_every = None
        self._since_refresh = 0
        self._init_selection(reselect_every)
        self.selected: list[bool] = []

    def refresh(self) -> bool:
        held = self._held_selection()
        self._selection_done({"sigma": 1.0} if held is None else None)
        self.selected.append(held is None)
        return True


@settings(max_examples=60, deadline=None)
@given(
    st.one_of(st.none(), st.integers(1, 5)),
    st.lists(st.sampled_from(["refresh", "reselect"]), max_size=40),
)
def test_selection_runs_at_the_first_refresh_every_k_and_when_asked(every, calls):
    schedule, expected = _Schedule(every), []
    since, asked = None, False  # refreshes since the last selection (None: none yet)
    for call in calls:
        if call == "reselect":
            schedule.reselect()
            asked = True
            continue
        due = since is None or asked or (every is not None and since >= every)
        expected.append(due)
        since, asked = (1, False) if due else (since + 1, asked)
        schedule.refresh()
    assert schedule.selected == expected


def _selected_refreshes(detector, rows):
    """Whether each refresh of ``detector`` over ``rows`` selected uLSIF's width and ridge (a
    selecting fit scores the whole 9 x 9 grid, a held one a single candidate)."""
    selected = []
    for x, _ in rows:
        detector.score_one(x)
        detector.learn_one(x)
        if detector._ratio._since_refresh == 0 and detector._ratio.fitted:
            selected.append(bool(np.isfinite(detector.estimator_.loocv_).sum() > 1))
    return selected


@pytest.mark.parametrize("every", [1, 3, None])
def test_ulsif_novelty_selects_at_the_first_refresh_then_every_k(every):
    detector = ULSIFNovelty(
        mode="stream", n_reference=40, n_test=20, refresh_every=20, seed=0, reselect_every=every
    )
    selected = _selected_refreshes(detector, PHISHING[:260])
    assert len(selected) >= 10
    k = every if every is not None else len(selected) + 1
    assert selected == [i % k == 0 for i in range(len(selected))]


def test_reselect_makes_the_next_refresh_select():
    detector = ULSIFNovelty(
        mode="stream", n_reference=40, n_test=20, refresh_every=20, seed=0, reselect_every=None
    )
    first = _selected_refreshes(detector, PHISHING[:120])
    detector.reselect()
    then = _selected_refreshes(detector, PHISHING[120:200])
    assert first == [True] + [False] * (len(first) - 1)
    assert then == [True] + [False] * (len(then) - 1)


def test_held_refreshes_keep_the_selected_values():
    detector = KLIEPNovelty(mode="stream", n_reference=40, n_test=20, refresh_every=20, seed=0)
    widths = set()
    for x, _ in PHISHING[:300]:
        detector.learn_one(x)
        if detector._ratio._since_refresh == 0 and detector._ratio.fitted:
            widths.add(detector.estimator_.sigma_)
    assert detector.reselect_every == RESELECT_EVERY
    assert len(widths) == 1


def _fit_from_scratch(estimator, source, target, window):
    """The refresh as it was before selections were held: the batch fit, from scratch."""
    return estimator.fit(source, target)


def _old_ulsif(**params):
    detector = ULSIFNovelty(**params)
    detector._ratio._fit_selected = _fit_from_scratch
    return detector


def _old_kde(**params):
    detector = KDENovelty(**params)
    detector._ratio._held_selection = lambda: None
    return detector


def _old_kmm_reweighter(**params):
    reweighter = KMMReweighter(**params)
    reweighter._ratio._fit_selected = _fit_from_scratch
    return reweighter


@pytest.mark.parametrize(
    "new, old",
    [
        (ULSIFNovelty, _old_ulsif),
        (KDENovelty, _old_kde),
    ],
)
def test_reselect_every_1_gives_the_scores_of_a_selection_at_every_refresh(new, old):
    params = {"mode": "stream", "n_reference": 40, "n_test": 20, "refresh_every": 20, "seed": 0}
    now, before = new(reselect_every=1, **params), old(**params)
    for x, _ in PHISHING[:300]:
        assert now.score_one(x) == before.score_one(x)
        now.learn_one(x)
        before.learn_one(x)


def _reweigh(reweighter, rows):
    weights = []
    for i, (x, _) in enumerate(rows):
        reweighter.learn_target_one(x)
        if i >= 30:
            x_late, y_late = rows[i - 30]
            weights.append(reweighter.weight_one(x_late, y_late))
            reweighter.learn_source_one(x_late, y_late)
    return weights


def test_kmm_reweighter_with_reselect_every_1_is_the_cold_solve_at_every_refresh():
    params = {"n_source": 60, "n_target": 30, "refresh_every": 20}
    now = _reweigh(KMMReweighter(reselect_every=1, **params), PHISHING[:300])
    before = _reweigh(_old_kmm_reweighter(**params), PHISHING[:300])
    assert now == before


def test_kmm_held_refreshes_start_warm_and_solve_the_same_programme():
    reweighter = KMMReweighter(n_source=60, n_target=30, refresh_every=20, reselect_every=None)
    _reweigh(reweighter, PHISHING[:300])
    assert reweighter.refresh()  # one more held refresh, on the windows compared below
    assert reweighter._ratio._since_selection > 3  # held refreshes ran, warm-started
    fitted = reweighter.estimator_
    source = reweighter._windows.matrix("source")
    target = reweighter._windows.matrix("target")
    cold = type(fitted)(sigma=fitted.sigma_).fit(source, target)
    K = gaussian_gram(source, source, fitted.sigma_)
    k = (len(source) / len(target)) * gaussian_gram(source, target, fitted.sigma_).sum(1)

    def objective(b):
        return 0.5 * b @ K @ b - k @ b

    assert objective(fitted.weights_) == pytest.approx(objective(cold.weights_), rel=1e-4)
    assert abs(fitted.weights_.mean() - 1.0) <= 1.0 - 1 / math.sqrt(len(source)) + 1e-9


@pytest.mark.parametrize(
    "make",
    [
        lambda: KMMNovelty(mode="stream", n_reference=30, n_test=15, refresh_every=15),
        lambda: ULSIFNovelty(mode="stream", n_reference=30, n_test=15, reselect_every=2, seed=0),
    ],
)
def test_a_detector_pickled_mid_stream_goes_on_as_the_original(make):
    detector = make()
    for x, _ in PHISHING[:100]:
        detector.learn_one(x)
    copy = pickle.loads(pickle.dumps(detector))
    for x, _ in PHISHING[100:220]:
        assert copy.score_one(x) == detector.score_one(x)
        detector.learn_one(x)
        copy.learn_one(x)


@pytest.mark.parametrize("make", [ULSIFReweighter, KLIEPReweighter, KMMReweighter])
def test_a_reweighter_pickled_mid_stream_goes_on_as_the_original(make):
    reweighter = make(n_source=40, n_target=20, refresh_every=10, seed=0, reselect_every=3)
    rows = PHISHING[:200]
    _reweigh(reweighter, rows[:80])
    copy = pickle.loads(pickle.dumps(reweighter))
    for i, (x, _) in enumerate(rows[80:], 80):
        for model in (reweighter, copy):
            model.learn_target_one(x)
            model.learn_source_one(*rows[i - 30])
        assert copy.weight_one(x) == reweighter.weight_one(x)


@pytest.mark.parametrize("bad", [0, -1, 1.5, "3"])
def test_reselect_every_is_checked(bad):
    with pytest.raises(InvalidParameter, match="reselect_every"):
        ULSIFNovelty(reselect_every=bad)
    with pytest.raises(InvalidParameter, match="reselect_every"):
        KMMReweighter(reselect_every=bad)


def test_clone_keeps_reselect_every_and_starts_fresh():
    detector = ULSIFNovelty(mode="stream", n_test=10, reselect_every=None, seed=0)
    for x, _ in itertools.islice(PHISHING, 50):
        detector.learn_one(x)
    detector.reselect()
    clone = detector.clone()
    assert clone.reselect_every is None
    assert clone._ratio._selection is None and not clone._ratio._reselect_asked


@pytest.mark.parametrize("kind", ["detector", "reweighter"])
def test_a_sample_whose_refresh_fails_is_refused_whole(kind, monkeypatch):
    """The refresh a sample calls for fails (a solve that stops short, say): the sample is
    refused whole, the detector or re-weighter left as it was, and the stream goes on."""
    import pickle

    from imbalance_stream.anomaly import ULSIFNovelty
    from imbalance_stream.base import NumericalError
    from imbalance_stream.density_ratio import ULSIF, ULSIFReweighter

    rng = np.random.default_rng(0)
    rows = [dict(enumerate(row)) for row in rng.normal(size=(60, 3))]
    if kind == "detector":
        model = ULSIFNovelty(mode="stream", n_reference=20, n_test=10, refresh_every=10, seed=0)
        take = model.learn_one
    else:
        model = ULSIFReweighter(n_source=20, n_target=20, refresh_every=10, seed=0)
        take = model.learn_target_one
        for x in rows[30:45]:  # a source window to weigh
            model.learn_source_one(x)
    for x in rows[:29]:
        take(x)
    while not model._ratio.refresh_due_next():
        take(rows[0])
    assert model._ratio.refresh_due_next()
    before = pickle.dumps(model)

    def stops_short(self, *args, **kwargs):
        raise NumericalError("the solve stopped short")

    with monkeypatch.context() as patch:
        patch.setattr(ULSIF, "fit", stops_short)
        with pytest.raises(NumericalError, match="stopped short"):
            take(rows[29])
    assert pickle.dumps(model) == before
    for x in rows[29:]:  # the same sample again, and the rest: refreshed as usual
        take(x)
    assert model._ratio.fitted
