"""The density-ratio novelty detectors: windows, modes, purity, bad input, streaming equals batch,
and the qualitative claims of the thesis's Fig. 5.1 toy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import anomaly, compose, datasets, preprocessing
from scipy import optimize

from imbalance_stream.anomaly import (
    KDENovelty,
    KLIEPNovelty,
    KMMNovelty,
    LocKMMNovelty,
    ULSIFNovelty,
)
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.density_ratio import KLIEP, KMM, ULSIF
from imbalance_stream.density_ratio.kde_ratio import kde_log_density
from imbalance_stream.metrics.batch import roc_auc

DETECTORS = [KMMNovelty, LocKMMNovelty, ULSIFNovelty, KLIEPNovelty, KDENovelty]


def as_dicts(X):
    return [{f"x{j}": float(v) for j, v in enumerate(row)} for row in X]


def fitted_two_sample(detector, reference, test):
    for x in as_dicts(reference):
        detector.learn_one(x)
    for x in as_dicts(test):
        detector.observe_one(x)
    assert detector.refresh()
    return detector


def small_problem(seed=0, m=40, n=30):
    rng = np.random.default_rng(seed)
    reference = rng.normal(0.0, 1.0, size=(m, 2))
    test = np.vstack([rng.normal(0.0, 1.0, size=(n - 5, 2)), rng.normal(4.0, 0.3, size=(5, 2))])
    return reference, test


# ----------------------------------------------------------------------------------------------
# streaming equals batch: windows that hold the data, one refresh


def minus_log(ratio):
    """The detectors' score of a ratio (a ratio of 0 at the smallest positive float)."""
    return -np.log(np.maximum(ratio, np.finfo(np.float64).tiny))


def test_kmm_novelty_scores_are_the_batch_weights():
    reference, test = small_problem()
    detector = fitted_two_sample(KMMNovelty(tol=1e-9, max_iter=100000), reference, test)
    batch = KMM(epsilon=1e-10, tol=1e-9, max_iter=100000).fit(test, reference)
    scores = [detector.score_one(x) for x in as_dicts(test)]
    # the solution itself where it is positive, the zero weights kept in order (D-DR-51)
    positive = batch.weights_ > 0
    assert (~positive).sum() >= 5
    np.testing.assert_array_equal(batch.central_weights_[positive], batch.weights_[positive])
    np.testing.assert_allclose(scores, minus_log(batch.central_weights_), atol=1e-9)


@pytest.mark.parametrize(
    "detector, estimator",
    [
        (ULSIFNovelty(seed=3), ULSIF(seed=3)),
        (KLIEPNovelty(seed=3), KLIEP(seed=3)),
    ],
    ids=["ulsif", "kliep"],
)
def test_inductive_novelty_scores_are_the_batch_ratio(detector, estimator):
    reference, test = small_problem(1)
    fitted_two_sample(detector, reference, test)
    estimator.fit(test, reference)
    new = np.random.default_rng(2).normal(size=(5, 2))
    for X in (test, new):
        scores = [detector.score_one(x) for x in as_dicts(X)]
        np.testing.assert_allclose(scores, minus_log(estimator.weight(X)), rtol=1e-12, atol=1e-12)


def test_kde_novelty_scores_are_minus_the_log_density():
    reference, test = small_problem(2)
    detector = fitted_two_sample(KDENovelty(sigma=0.7), reference, test)
    scores = [detector.score_one(x) for x in as_dicts(test)]
    np.testing.assert_allclose(scores, -kde_log_density(reference, test, 0.7), rtol=1e-12)


def lockmm_reference(reference, test, k):
    """Algorithm 9 written out: k-NN widths over the pooled data, the local Gram matrix, the
    diagonal shift, and the KMM programme solved by SLSQP."""
    pooled = np.vstack([reference, test])
    distances = np.sqrt(((pooled[:, None, :] - pooled[None]) ** 2).sum(2))
    np.fill_diagonal(distances, np.inf)
    widths = np.sort(distances, axis=1)[:, k - 1]
    s_r, s_t = widths[: len(reference)], widths[len(reference) :]

    def local(A, s_a, B, s_b):
        d2 = ((A[:, None, :] - B[None]) ** 2).sum(2)
        return np.exp(-d2 / (2 * s_a[:, None] * s_b[None, :]))

    K = local(test, s_t, test, s_t)
    kappa = len(test) / len(reference) * local(test, s_t, reference, s_r).sum(1)
    K += (max(0.0, -np.linalg.eigvalsh(K)[0]) + 1e-10) * np.eye(len(test))
    n = len(test)
    result = optimize.minimize(
        lambda r: 0.5 * r @ K @ r - kappa @ r,
        np.ones(n),
        jac=lambda r: K @ r - kappa,
        bounds=[(0.0, 1000.0)] * n,
        constraints=[{"type": "eq", "fun": lambda r: r.sum() - n, "jac": lambda r: np.ones(n)}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    return result.x, K, kappa


def test_lockmm_novelty_solves_algorithm_9():
    reference, test = small_problem(3)
    detector = fitted_two_sample(LocKMMNovelty(k=5, tol=1e-10, max_iter=100000), reference, test)
    expected, K, kappa = lockmm_reference(reference, test, 5)
    weights = np.exp(-np.array([detector.score_one(x) for x in as_dicts(test)]))

    def objective(r):
        return 0.5 * r @ K @ r - kappa @ r

    assert objective(weights) <= objective(expected) + 1e-7 * abs(objective(expected))
    np.testing.assert_allclose(weights, expected, atol=1e-3)


def test_lockmm_new_point_is_the_smoothed_solution():
    reference, test = small_problem(4)
    detector = fitted_two_sample(LocKMMNovelty(k=5), reference, test)
    pooled = np.vstack([reference, test])
    x = np.array([0.3, -0.2])
    width = np.sort(np.sqrt(((pooled - x) ** 2).sum(1)))[4]
    kernel = np.exp(-((test - x) ** 2).sum(1) / (2 * width * detector._test_widths))
    expected = kernel @ detector.weights_ / (1 + kernel.sum())
    score = detector.score_one({"x0": 0.3, "x1": -0.2})
    assert score == pytest.approx(-np.log(expected), rel=1e-10)


# ----------------------------------------------------------------------------------------------
# the protocol


@pytest.mark.parametrize("detector_class", DETECTORS)
def test_score_one_is_pure_and_neutral_before_a_refresh(detector_class):
    detector = detector_class()
    reference, test = small_problem(5)
    assert detector.score_one({"x0": 1.0}) == 0.0
    fitted_two_sample(detector, reference, test)
    before = pickle.dumps(detector)
    for x in as_dicts(np.vstack([test, reference + 0.01])) + [{"x0": 1.0, "new": 3.0}, {}]:
        assert np.isfinite(detector.score_one(x))
    assert pickle.dumps(detector) == before


@pytest.mark.parametrize("detector_class", DETECTORS)
def test_a_min_max_scaler_in_front_works_from_the_first_sample(detector_class):
    """River's MinMaxScaler sends NaN before it has learned a sample: the detector has nothing
    solved yet, scores 0 without reading it, and the pipeline goes on; once solved, a NaN is
    refused as any bad value is."""
    detector = detector_class(mode="stream", n_reference=20, n_test=10, refresh_every=10)
    model = preprocessing.MinMaxScaler() | detector
    assert detector.score_one({"x0": float("nan")}) == 0.0
    scores = []
    for x, _ in datasets.Phishing().take(60):
        scores.append(model.score_one(x))
        model.learn_one(x)
    assert scores[0] == 0.0 and np.isfinite(scores).all() and len(set(scores[30:])) > 1
    with pytest.raises(ValueError, match="'x0'"):
        detector.score_one({"x0": float("nan")})


@pytest.mark.parametrize("detector_class", DETECTORS)
@pytest.mark.parametrize(
    "bad, message",
    [
        ({"x0": float("nan")}, "'x0'"),
        ({"x0": "high"}, "'x0'"),
        ({"x1": None}, "'x1'"),
        ({"x0": float("inf")}, "'x0'"),
    ],
)
def test_bad_input_is_refused_and_leaves_the_state_unchanged(detector_class, bad, message):
    reference, test = small_problem(6)
    detector = fitted_two_sample(detector_class(), reference, test)
    before = pickle.dumps(detector)
    for method in (detector.learn_one, detector.observe_one, detector.score_one):
        with pytest.raises(ValueError, match=message):
            method(bad)
        assert pickle.dumps(detector) == before


def test_stream_mode_moves_the_oldest_test_point_into_the_reference():
    detector = KDENovelty(sigma=1.0, mode="stream", n_reference=3, n_test=2)
    for value in range(6):
        detector.learn_one({"x": float(value)})
    assert [v[0] for v in detector._test] == [4.0, 5.0]
    assert [v[0] for v in detector._reference] == [1.0, 2.0, 3.0]
    assert (detector.n_reference_samples, detector.n_test_samples) == (3, 2)


def test_stream_mode_refreshes_every_test_window_unless_told():
    """Left to River's loop nobody calls refresh(): in stream mode a detector without
    refresh_every re-solves every n_test samples (and so scores something other than 0); in
    two-sample mode it waits for refresh()."""
    stream = KDENovelty(sigma=1.0, mode="stream", n_reference=10, n_test=4)
    for value in range(9):
        stream.learn_one({"x": float(value)})
    # refreshed at the 4th sample (no reference yet: nothing solved) and at the 8th
    assert stream._ratio._since_refresh == 1
    assert stream.score_one({"x": 100.0}) > 0.0
    two_sample = KDENovelty(sigma=1.0)
    for value in range(7):
        two_sample.learn_one({"x": float(value)})
        two_sample.observe_one({"x": float(value)})
    assert two_sample._ratio._since_refresh == 14 and two_sample.score_one({"x": 100.0}) == 0.0
    assert KDENovelty(mode="stream", n_test=4, refresh_every=2)._ratio._refresh_period == 2


def test_refresh_every_counts_samples_and_refresh_needs_two_points_a_window():
    detector = KDENovelty(sigma=1.0, mode="stream", n_reference=10, n_test=2, refresh_every=3)
    assert not detector.refresh()
    for value in range(3):
        detector.learn_one({"x": float(value)})
    assert detector.score_one({"x": 0.0}) == 0.0  # KDE's neutral: one reference point, no solve
    for value in range(3, 6):
        detector.learn_one({"x": float(value)})
    assert detector.score_one({"x": 100.0}) > detector.score_one({"x": 2.0})


def test_mode_errors_say_what_to_do():
    with pytest.raises(InvalidParameter, match="n_test"):
        KMMNovelty(mode="stream")
    with pytest.raises(InvalidParameter, match="mode"):
        KMMNovelty(mode="batch")
    with pytest.raises(RuntimeError, match="learn_one"):
        KMMNovelty(mode="stream", n_test=5).observe_one({"x": 1.0})


def test_new_features_after_a_refresh_are_ignored_until_the_next():
    reference, test = small_problem(7)
    detector = fitted_two_sample(KDENovelty(sigma=1.0), reference, test)  # frozen between
    score = detector.score_one({"x0": 0.1, "x1": 0.2})
    detector.learn_one({"x0": 0.1, "x1": 0.2, "extra": 5.0})
    assert detector.score_one({"x0": 0.1, "x1": 0.2, "extra": 5.0}) == score
    detector.refresh()
    assert detector.score_one({"x0": 0.1, "x1": 0.2, "extra": 5.0}) != score


@pytest.mark.parametrize("detector_class", [KMMNovelty, ULSIFNovelty, KDENovelty])
def test_in_a_pipeline_with_a_quantile_filter(detector_class):
    detector = detector_class(mode="stream", n_reference=150, n_test=50, refresh_every=50, seed=0)
    model = compose.Pipeline(
        preprocessing.StandardScaler(), anomaly.QuantileFilter(detector, q=0.95)
    )
    flagged = 0
    for x, _ in datasets.Shuttle().take(400):
        score = model.score_one(x)
        assert np.isfinite(score)
        flagged += model["QuantileFilter"].classify(score)
        model.learn_one(x)
    # the filter stops feeding its detector the points it flags: the warm-up must not be flagged,
    # or the detector is never fed and never refreshed
    assert detector._ratio.fitted and detector.n_reference_samples == 150
    assert 0 < flagged < 0.25 * 400


# ----------------------------------------------------------------------------------------------
# Fig. 5.1: a reference with a dense, a sparse and an empty region; the test set adds emerging
# points in the empty region, an evolving dense group inside the sparse region and a mixed cluster


def novelty_toy(seed=0):
    rng = np.random.default_rng(seed)
    reference = np.vstack(
        [rng.uniform([0, 0], [1, 1], (600, 2)), rng.uniform([1, 0], [2, 1], (150, 2))]
    )
    normal = np.vstack(
        [rng.uniform([0, 0], [1, 1], (480, 2)), rng.uniform([1, 0], [2, 1], (120, 2))]
    )
    emerging = rng.uniform([0.5, 1.3], [1.5, 1.8], (40, 2))
    evolving = rng.normal([1.5, 0.5], 0.05, (80, 2))
    mixed = rng.normal([1.9, 0.1], 0.08, (60, 2))
    test = np.vstack([normal, emerging, evolving, mixed])
    group = np.repeat(["normal", "emerging", "evolving", "mixed"], [600, 40, 80, 60])
    return reference, test, group


def group_auc(scores, group, novel):
    keep = (group == "normal") | (group == novel)
    return roc_auc(scores[keep], group[keep] == novel)


@pytest.fixture(scope="module")
def toy_scores():
    reference, test, group = novelty_toy()
    scores = {}
    for detector in (KDENovelty(seed=0), KMMNovelty()):
        fitted_two_sample(detector, reference, test)
        scores[type(detector).__name__] = np.array([detector.score_one(x) for x in as_dicts(test)])
    return scores, test, group


def test_toy_kde_raises_false_alarms_in_the_sparse_region(toy_scores):
    scores, test, group = toy_scores
    normal = group == "normal"
    in_sparse_region = test[normal, 0] > 1
    # the density alone ranks the sparse region's normal points as the most anomalous normals
    assert roc_auc(scores["KDENovelty"][normal], in_sparse_region) > 0.9


def test_toy_kmm_catches_the_evolving_group(toy_scores):
    scores, _, group = toy_scores
    assert group_auc(scores["KMMNovelty"], group, "evolving") > 0.95
    assert group_auc(scores["KMMNovelty"], group, "emerging") > 0.95


def test_toy_one_class_svm_and_lof_miss_the_evolving_group():
    svm = pytest.importorskip("sklearn.svm")
    neighbors = pytest.importorskip("sklearn.neighbors")
    reference, test, group = novelty_toy()
    for model in (
        svm.OneClassSVM(nu=0.1, gamma="scale").fit(reference),
        neighbors.LocalOutlierFactor(n_neighbors=7, novelty=True).fit(reference),
    ):
        scores = -model.decision_function(test)
        assert group_auc(scores, group, "emerging") > 0.95
        assert group_auc(scores, group, "evolving") < 0.5


# ----------------------------------------------------------------------------------------------
# the novelty stream


def test_novelty_stream_schedules_and_labels():
    from imbalance_stream.datasets import NoveltyStream

    source = [({"v": float(i)}, i % 4) for i in range(8000)]  # four classes of 2,000
    stream = NoveltyStream(
        source,
        emerging=0,
        evolving=1,
        emerge_at=2000,
        novelty_rate=0.1,
        evolving_before=0.05,
        seed=3,
    )
    pairs = list(stream)
    classes = [int(x["v"]) % 4 for x, _ in pairs]
    labels = [y for _, y in pairs]
    before, after = classes[:2000], classes[2000:]
    assert 0 not in before and 60 < before.count(1) < 140  # 5 % of 2,000
    assert not any(labels[:2000])
    assert all(y == (c in (0, 1)) for c, y in zip(after, labels[2000:]))
    assert 0.07 < sum(labels[2000:]) / len(after) < 0.13
    assert [y for _, y in stream] == labels  # seeded: the same stream again
    with pytest.raises(ValueError, match="emerging class 9"):
        NoveltyStream(source, emerging=9)


# ----------------------------------------------------------------------------------------------
# uLSIF between refreshes


def test_rank_one_update_matches_numpy():
    from imbalance_stream._numba.density_ratio import rank_one_update

    rng = np.random.default_rng(20)
    S, a, r = rng.normal(size=(5, 5)), rng.normal(size=5), rng.normal(size=5)
    expected = S + np.outer(a, a) - np.outer(r, r)
    rank_one_update(S, a, r)
    np.testing.assert_allclose(S, expected, rtol=1e-14)
    rank_one_update(S, a, np.empty(0))
    np.testing.assert_allclose(S, expected + np.outer(a, a), rtol=1e-14)


def cholesky_rank_one_reference(L, x, sign):
    """Plain numpy: the Cholesky factor of ``L L' + sign x x'``, or None if not definite."""
    A = L @ L.T + sign * np.outer(x, x)
    try:
        return np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return None


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
    st.floats(0.01, 3.0),
)
def test_cholesky_rank_one_and_solve_match_numpy(b, seed, size):
    """The jitted update, downdate and solve of ULSIFNovelty against numpy's factorisation."""
    from imbalance_stream._numba.density_ratio import cholesky_rank_one, cholesky_solve

    rng = np.random.default_rng(seed)
    P = rng.normal(size=(b, 2 * b))
    L = np.linalg.cholesky(P @ P.T + 0.1 * np.eye(b))
    x, work = size * rng.normal(size=b), np.empty(b)
    for sign in (1.0, -1.0):
        expected = cholesky_rank_one_reference(L, x, sign)
        got = L.copy()
        ok = cholesky_rank_one(got, x, sign, work)
        if expected is None or not ok:
            # numpy and the rotations agree on definiteness except within round-off of 0
            smallest = np.linalg.eigvalsh(L @ L.T + sign * np.outer(x, x))[0]
            assert (expected is None) == (not ok) or abs(smallest) < 1e-8
            continue
        np.testing.assert_allclose(np.tril(got), expected, rtol=1e-9, atol=1e-9)
    h, out = rng.normal(size=b), np.empty(b)
    cholesky_solve(L, h, out)
    np.testing.assert_allclose(out, np.linalg.solve(L @ L.T, h), rtol=1e-8, atol=1e-8)


def closed_form_alpha(detector):
    """uLSIF's closed form (eq. 3.28) on the detector's windows of the moment, with the centres,
    width and ridge of its last refresh, in plain numpy."""
    from imbalance_stream.density_ratio.gaussian import gaussian_gram
    from imbalance_stream.density_ratio.ulsif import ulsif_alpha

    fitted = detector.estimator_
    R, T = np.array(detector._reference), np.array(detector._test)
    H = gaussian_gram(T, fitted.centres_, fitted.sigma_)
    h = gaussian_gram(R, fitted.centres_, fitted.sigma_).mean(0)
    return ulsif_alpha(H.T @ H / len(T), h, fitted.ridge_)


def test_ulsif_follows_a_full_window_for_many_samples_by_rank_one_steps():
    """A full test window: every sample updates and downdates the Cholesky factor instead of
    refactoring; after 300 of them alpha is still the closed form on the windows."""
    rng = np.random.default_rng(23)
    detector = ULSIFNovelty(mode="stream", n_reference=40, n_test=20, refresh_every=10_000, seed=0)
    for x in as_dicts(rng.normal(size=(60, 3))):
        detector.learn_one(x)
    detector.refresh()
    for x in as_dicts(rng.normal(0.3, 1.2, size=(300, 3))):
        detector.learn_one(x)
    assert detector._factor is not None  # the factor was followed, not rebuilt at the end
    np.testing.assert_allclose(detector._alpha, closed_form_alpha(detector), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("mode", ["two-sample", "stream"])
def test_ulsif_between_refreshes_is_the_fit_on_the_current_windows(mode):
    """After a refresh, each sample updates h and H exactly: alpha equals uLSIF's closed form on
    the windows of that moment with the centres, width and ridge of the refresh."""
    from imbalance_stream.density_ratio.gaussian import gaussian_gram

    rng = np.random.default_rng(21)
    detector = ULSIFNovelty(mode=mode, n_reference=40, n_test=15, seed=0)
    if mode == "stream":
        detector = ULSIFNovelty(mode=mode, n_reference=40, n_test=15, seed=0)
        for x in as_dicts(rng.normal(size=(60, 2))):
            detector.learn_one(x)
        detector.refresh()
        for x in as_dicts(rng.normal(0.5, 1.0, size=(20, 2))):
            detector.learn_one(x)
    else:
        reference, test = small_problem(22)
        fitted_two_sample(detector, reference, test)
        for x in as_dicts(rng.normal(size=(7, 2))):
            detector.learn_one(x)
        for x in as_dicts(rng.normal(3.0, 1.0, size=(5, 2))):
            detector.observe_one(x)
    fitted = detector.estimator_
    expected = closed_form_alpha(detector)
    np.testing.assert_allclose(detector._alpha, expected, rtol=1e-8, atol=1e-12)
    x = {"x0": 0.2, "x1": -0.4}
    phi = gaussian_gram(np.array([[0.2, -0.4]]), fitted.centres_, fitted.sigma_)[0]
    assert detector.score_one(x) == pytest.approx(-np.log(phi @ expected), rel=1e-8, abs=1e-12)


def test_a_scenario_evaluates_anomaly_detectors_prequentially():
    """The novelty-stream example's parts, small: detectors as scenario models, scored before
    they learn, with the ranking metrics."""
    from imbalance_stream.scenario import parse, run

    text = """
[stream]
source = { class = "NoveltyStream", params = { source = { class = "river.datasets.ImageSegments" }, emerging = "grass", evolving = "sky", emerge_at = 200, novelty_rate = 0.1, seed = 1 } }
n_samples = 400
[models]
ULSIF = ["river.preprocessing.StandardScaler", { class = "ULSIFNovelty", params = { mode = "stream", n_reference = 100, n_test = 40, refresh_every = 40, seed = 0 } }]
HST = ["river.preprocessing.MinMaxScaler", { class = "river.anomaly.HalfSpaceTrees", params = { seed = 0 } }]
[metrics]
AUC = { class = "ExactROCAUC", params = { pos_val = true } }
PrecAtT = { class = "PrecisionAtT", params = { pos_val = true } }
[output]
step = 100
"""  # noqa: E501
    result = run(parse(text, name="novelty"))
    rows = {row["model"]: row for row in result.table}
    assert set(rows) == {"ULSIF", "HST"}
    for row in rows.values():
        assert row["samples"] == 400 and 0.0 <= row["PrecAtT"] <= 1.0
        assert 0.5 < row["AUC"] <= 1.0
