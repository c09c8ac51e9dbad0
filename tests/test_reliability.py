"""Reliability: no input, however hostile, corrupts a model or escapes as an unclear error.

Every public estimator is found by introspection (``public_estimators`` of
``tests/test_river_checks.py``, over its ``MODULES``), in every configuration of its
``_unit_test_params``, so an estimator added to a public module is covered without editing this
file. Classifiers are driven through ``learn_one(x, y)``; River anomaly detectors (subclasses of
``river.base.AnomalyDetector``, defined in ``river.anomaly.base``) through ``learn_one(x)`` (or
``learn_one(x, y)`` for a ``SupervisedAnomalyDetector``) and ``score_one(x)``; active learners
(River's ``ActiveLearningClassifier``) like classifiers, their ``predict_proba_one`` read as River's
``(proba, ask)`` pair.

* The bad-input corpus: each sample is either refused with a clear ``ValueError`` / ``TypeError``
  that names the culprit, the model pickling exactly as before, or accepted, with finite outputs
  afterwards.
* Fuzzed streams (hypothesis): scales from 1e-6 to 1e6, duplicated rows, constant columns,
  one-class prefixes, 1:1000 imbalance; every output finite, no sample refused.
* Budgeted and windowed models keep a flat memory (pickle size) over a long stream.
* One regression test per finding of the reliability probe (issue 15).
"""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from river.active.base import ActiveLearningClassifier
from river.base import AnomalyDetector, SupervisedAnomalyDetector
from test_river_checks import public_estimators

from imbalance_stream.base import FeatureSpaceFull, InvalidFeature, NumericalError, UnknownLabel
from imbalance_stream.base.features import MAX_ABS_VALUE, as_float

# ---- the estimators, by introspection --------------------------------------------------------


def configurations():
    """``(id, factory)`` for every public estimator and every ``_unit_test_params`` entry."""
    for cls in public_estimators():
        for i, params in enumerate(cls._unit_test_params()):
            yield pytest.param(cls, params, id=f"{cls.__name__}[{i}]")


CONFIGURATIONS = list(configurations())


def is_detector(model) -> bool:
    return isinstance(model, (AnomalyDetector, SupervisedAnomalyDetector))


def positive_label(model):
    return getattr(model, "positive", True)


def negative_label(model):
    positive = positive_label(model)
    return (not positive) if isinstance(positive, bool) else "other"


def learn(model, x, y=None):
    if isinstance(model, AnomalyDetector):
        model.learn_one(x)
    else:
        model.learn_one(x, y)


def outputs(model, x) -> list[float]:
    """Every number the model says about ``x``."""
    if is_detector(model):
        return [float(model.score_one(x))]
    proba = model.predict_proba_one(x)
    if isinstance(model, ActiveLearningClassifier):
        # River's active protocol: the prediction comes with whether to ask for the label.
        proba, ask = proba
        assert isinstance(ask, bool)
    numbers = [float(p) for p in proba.values()]
    model.predict_one(x)
    decision = getattr(model, "decision_one", None)
    if decision is not None:
        value = decision(x)
        numbers.extend(value.values() if isinstance(value, dict) else [value])
    return numbers


def assert_finite_outputs(model, samples):
    for x in samples:
        values = outputs(model, x)
        assert all(math.isfinite(v) for v in values), (x, values)


def labelled_stream(n, d, seed, positive_rate=0.3, scale=1.0):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < positive_rate
    X = scale * (rng.normal(size=(n, d)) + 0.8 * labels[:, None])
    return X, labels


def as_samples(model, X, labels):
    positive, negative = positive_label(model), negative_label(model)
    return [
        ({f"f{j}": float(v) for j, v in enumerate(row)}, positive if label else negative)
        for row, label in zip(X, labels)
    ]


def warmed(cls, params, n=40):
    model = cls(**params)
    X, labels = labelled_stream(n, 3, seed=0)
    labels[:2] = [True, False]  # both classes known
    for x, y in as_samples(model, X, labels):
        learn(model, x, y)
    return model


VALID = [{"f0": 0.5, "f1": -1.0, "f2": 2.0}, {"f0": -3.0}, {"f1": 1e-9, "f3": 4.0}]

# ---- the bad-input corpus --------------------------------------------------------------------

#: (case id, sample, the feature name the error must name, or None if the sample is acceptable)
BAD_SAMPLES = [
    ("nan", {"f0": 1.0, "bad": math.nan}, "bad"),
    ("inf", {"bad": math.inf}, "bad"),
    ("-inf", {"f1": 2.0, "bad": -math.inf}, "bad"),
    ("numpy-nan", {"bad": np.float64("nan")}, "bad"),
    ("string", {"bad": "1.5"}, "bad"),
    ("bytes", {"bad": b"1"}, "bad"),
    ("none", {"bad": None}, "bad"),
    ("complex", {"bad": 1j}, "bad"),
    ("list", {"bad": [1.0, 2.0]}, "bad"),
    ("nested-dict", {"bad": {"inner": 1.0}}, "bad"),
    ("array", {"bad": np.array([1.0, 2.0])}, "bad"),
    ("huge-int", {"bad": 10**400}, "bad"),
    ("extreme-1e155", {"f0": 1.0, "bad": 1e155}, "bad"),
    ("extreme-neg-1e300", {"bad": -1e300}, "bad"),
    ("just-beyond-limit", {"bad": 2 * MAX_ABS_VALUE}, "bad"),
    ("new-name-and-nan", {"brand_new": 1.0, "bad": math.nan}, "bad"),
    # acceptable: numbers in other clothes, other keys, edge magnitudes, empty samples
    ("bools", {"f0": True, "f1": False}, None),
    ("numpy-scalars", {"f0": np.float32(1.5), "f1": np.int64(2), "f2": np.bool_(True)}, None),
    ("non-string-keys", {1: 1.0, (2, "t"): -2.0, 3.5: 0.5}, None),
    ("empty", {}, None),
    ("zeros", {"f0": 0.0, "f1": -0.0}, None),
    ("at-the-limit", {"f0": MAX_ABS_VALUE, "f1": -MAX_ABS_VALUE}, None),
    ("tiny", {"f0": 5e-324, "f1": 1e-300}, None),
]

#: labels that are no class label
BAD_LABELS = [None, math.nan, np.float64("nan"), np.array([True, False]), [1], {"a": 1}, {1}]


def check_refusal_or_acceptance(model, action, culprit):
    """Run ``action``; a refusal must be clear and change nothing, an acceptance must leave the
    outputs finite."""
    before = pickle.dumps(model)
    try:
        action()
    except (ValueError, TypeError) as error:
        message = str(error)
        assert message, "an error without a message"
        if culprit is not None:
            assert repr(culprit) in message, message
        assert pickle.dumps(model) == before, "a refused sample changed the model"
        return error
    assert culprit is None, f"accepted a sample with a bad feature {culprit!r}"
    assert_finite_outputs(model, VALID)
    return None


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
def test_the_bad_input_corpus_is_refused_clearly_or_learned_finitely(cls, params):
    check_bad_input_corpus(warmed(cls, params))


def check_bad_input_corpus(model):
    y = positive_label(model)
    for case, x, culprit in BAD_SAMPLES:
        check_refusal_or_acceptance(model, lambda x=x: learn(model, x, y), culprit)
        # prediction: a clear error naming the feature, or finite outputs
        try:
            values = outputs(model, x)
        except (ValueError, TypeError) as error:
            assert culprit is not None and repr(culprit) in str(error), (case, error)
        else:
            assert culprit is None, case
            assert all(math.isfinite(v) for v in values), (case, values)
    for not_a_dict in ([1.0, 2.0], None, "f0=1", np.array([1.0])):
        before = pickle.dumps(model)
        with pytest.raises(TypeError, match="dict"):
            learn(model, not_a_dict, y)
        assert pickle.dumps(model) == before


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
def test_a_pickle_round_trip_gives_the_same_bytes(cls, params):
    """A model read back from its pickle pickles to the same bytes: a resumed replay (models
    read back from a checkpoint) writes the model sizes of a run never stopped."""
    model = warmed(cls, params)
    data = pickle.dumps(model, protocol=pickle.HIGHEST_PROTOCOL)
    assert pickle.dumps(pickle.loads(data), protocol=pickle.HIGHEST_PROTOCOL) == data


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
def test_labels_that_are_no_class_label_are_refused(cls, params):
    model = warmed(cls, params)
    if is_detector(model):
        pytest.skip("an anomaly detector learns without labels")
    for label in BAD_LABELS:
        before = pickle.dumps(model)
        with pytest.raises(UnknownLabel, match=r"not a class label|label is None"):
            model.learn_one(VALID[0], label)
        assert pickle.dumps(model) == before
    # an unseen label: a binary model refuses it naming it, a multi-class one learns a class
    check = check_refusal_or_acceptance(model, lambda: model.learn_one(VALID[0], "unseen"), None)
    assert check is None or "'unseen'" in str(check)


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
def test_an_oversized_sample_is_refused_before_anything_changes_or_learned(cls, params):
    """Finding 2: 100,000 new names at once; refused against the model's documented limit (a
    model with a dense matrix over the features) or learned with finite outputs (a model whose
    memory is linear in them), never half-committed."""
    model = warmed(cls, params)
    huge = {f"n{j}": 1.0 for j in range(100_000)}
    error = check_refusal_or_acceptance(
        model, lambda: learn(model, huge, positive_label(model)), None
    )
    assert error is None or isinstance(error, FeatureSpaceFull), error
    features = getattr(model, "_features", None)
    if features is not None:
        assert len(features) <= features.max_features


# ---- fuzzed streams --------------------------------------------------------------------------


@st.composite
def recipes(draw):
    """A stream recipe: size, per-column scales 1e-6..1e6, constant columns, duplicated rows, a
    one-class prefix, the positive rate."""
    d = draw(st.integers(1, 5))
    return {
        "n": draw(st.integers(10, 80)),
        "d": d,
        "exponents": draw(st.lists(st.integers(-6, 6), min_size=d, max_size=d)),
        "constant": draw(st.lists(st.booleans(), min_size=d, max_size=d)),
        "duplicates": draw(st.integers(0, 20)),
        "prefix": draw(st.integers(0, 30)),
        "prefix_label": draw(st.booleans()),
        "positive_rate": draw(st.sampled_from([0.5, 0.2, 0.05, 0.001])),
        "seed": draw(st.integers(0, 2**16)),
    }


def fuzzed_stream(recipe):
    rng = np.random.default_rng(recipe["seed"])
    n, d = recipe["n"], recipe["d"]
    labels = rng.random(n) < recipe["positive_rate"]
    X = rng.normal(size=(n, d)) + 1.5 * labels[:, None]
    X *= 10.0 ** np.array(recipe["exponents"])
    X[:, np.array(recipe["constant"])] = (
        10.0 ** np.array(recipe["exponents"])[np.array(recipe["constant"])]
    )
    if recipe["duplicates"]:
        rows = rng.integers(0, n, recipe["duplicates"])
        X = np.vstack([X, X[rows]])
        labels = np.concatenate([labels, labels[rows]])
    labels[: recipe["prefix"]] = recipe["prefix_label"]
    return X, labels


def run_prequentially(model, samples, refusals=()):
    """Predict, then learn, every sample; every output finite and no sample refused but by one of
    ``refusals``, which must leave the model exactly as it was."""
    for x, y in samples:
        values = outputs(model, x)
        assert all(math.isfinite(v) for v in values), (x, values)
        before = pickle.dumps(model) if refusals else None
        try:
            learn(model, x, y)
        except refusals:
            assert pickle.dumps(model) == before
    assert_finite_outputs(model, [x for x, _ in samples[-5:]])


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(recipe=recipes())
def test_fuzzed_streams_give_finite_outputs(cls, params, recipe):
    model = cls(**params)
    # the interior-point KMM solve refuses a window whose KKT system turns singular short of
    # tol (documented by KMM): that sample is refused whole, and the stream goes on
    refusals = (NumericalError,) if params.get("solver") == "interior-point" else ()
    run_prequentially(model, as_samples(model, *fuzzed_stream(recipe)), refusals)


@pytest.mark.parametrize("cls, params", CONFIGURATIONS)
def test_a_1_to_1000_imbalanced_stream_at_extreme_scales_gives_finite_outputs(cls, params):
    model = cls(**params)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(1000, 4)) * np.array([1e-6, 1.0, 1e3, 1e6])
    labels = np.zeros(1000, dtype=bool)
    labels[[0, 700]] = True  # two positives in a thousand, the first one first
    run_prequentially(model, as_samples(model, X, labels))


# ---- memory of budgeted models -----------------------------------------------------------------


def bounded(params, cls) -> bool:
    """Configurations whose memory the parameters bound: a budget or a window."""
    model = cls(**params)
    return any(
        isinstance(getattr(model, name, None), int) for name in ("budget", "window")
    ) and getattr(model, "policy", None) not in ("inf",)


BOUNDED = [c for c in CONFIGURATIONS if bounded(c.values[1], c.values[0])]


def memory_sizes(model, n=2400, halves=2):
    """Pickle sizes of ``model`` after each of ``halves`` equal parts of a hard stream: 8
    features, labels independent of them, so that a kernel model errs and stores support vectors
    fast and meets its budget (500 by default) in the first part."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(n, 8))
    labels = rng.random(n) < 0.3
    samples = as_samples(model, X, labels)
    sizes = []
    for part in np.array_split(np.arange(n), halves):
        for i in part:
            learn(model, *samples[i])
        sizes.append(len(pickle.dumps(model)))
    return sizes


@pytest.mark.parametrize("cls, params", BOUNDED)
def test_budgeted_models_keep_a_flat_memory_over_a_long_stream(cls, params):
    sizes = memory_sizes(cls(**params))
    # twice the stream, the same memory (a few counters may gain digits)
    assert sizes[1] <= 1.02 * sizes[0] + 256, sizes


# ---- one regression test per finding of the probe (issue 15) ---------------------------------


def test_finding_1_opauc_stays_finite_and_learns_on_unscaled_data():
    from imbalance_stream.linear_model import OPAUC

    model = OPAUC()
    X, labels = labelled_stream(1000, 10, seed=1, positive_rate=0.5, scale=10.0)
    samples = as_samples(model, X, labels)
    run_prequentially(model, samples)
    scores = [model.decision_one(x) for x, _ in samples[-300:]]
    positives = [s for s, (_, y) in zip(scores, samples[-300:]) if y]
    negatives = [s for s, (_, y) in zip(scores, samples[-300:]) if not y]
    assert np.mean(positives) > np.mean(negatives)  # it still ranks, it did not just survive


def test_finding_3_an_extreme_finite_value_is_refused_and_poisons_nothing():
    from imbalance_stream.linear_model import COG, PAUM, ROMMA, SACOG, Perceptron

    for cls in (COG, PAUM, Perceptron, ROMMA, SACOG):
        model = warmed(cls, {})
        before = pickle.dumps(model)
        with pytest.raises(InvalidFeature, match=r"'f0'.*beyond the limit"):
            model.learn_one({"f0": 1e155}, True)
        with pytest.raises(InvalidFeature, match=r"'f0'.*beyond the limit"):
            model.predict_proba_one({"f0": -1e200})
        assert pickle.dumps(model) == before


def test_finding_3_an_update_that_overflows_is_rolled_back_whole():
    """Where only the update can tell: a step that overflows leaves the model as it was."""
    from imbalance_stream.linear_model import PA, ROMMA

    for model in (ROMMA(), PA(C=math.inf)):
        model.learn_one({"a": 1.0}, True)
        model._weights[0] = -1.7e308  # a state at the edge of the float range
        before = pickle.dumps(model)
        with pytest.raises(NumericalError, match=r"non-finite|overflow"):
            # the margin overflows to -inf, and the step with it; the sample adds a name first
            model.learn_one({"a": MAX_ABS_VALUE, "new": 1.0}, True)
        assert pickle.dumps(model) == before
        assert "new" not in model._features.index


def test_a_refused_romma_step_leaves_the_weights_of_absent_features_as_they_were():
    """ROMMA's rescaling reaches the weights of every feature, not only the sample's: a step that
    would overflow is refused before it writes (a rollback of the sample's weights alone would
    have left the others NaN, and every later decision with them)."""
    from imbalance_stream.linear_model import ROMMA

    model = ROMMA()
    model.learn_one({"a": 1.0, "z": 1.0}, True)
    model.learn_one({"a": -1.0, "z": 0.5}, False)
    model._weights[:] *= 1e160  # where a noisy stream takes ROMMA's weights
    before = pickle.dumps(model)
    with pytest.raises(NumericalError, match="not linearly separable"):
        model.learn_one({"a": 1.0}, False)
    assert pickle.dumps(model) == before
    assert math.isfinite(model.decision_one({"a": 1.0, "z": 1.0}))


def test_finding_3_a_failed_update_of_a_full_state_is_rolled_back_whole():
    from imbalance_stream.linear_model import AROW

    model = warmed(AROW, {})
    model._cov[0, 0] = 1.7e308
    before = pickle.dumps(model)
    with pytest.raises(NumericalError):
        model.learn_one({"f0": 1e15, "g": 1.0}, False)  # a large loss: an update
    assert pickle.dumps(model) == before


@pytest.mark.parametrize("covariance", ["diag", "full"])
def test_finding_3_an_acog_step_that_overflows_is_refused_by_its_kernel(covariance):
    """ACOG's steps check their new values before writing any (no copy of the state is taken):
    a step that would overflow raises, and the model, its label counts and its feature space are
    exactly as they were."""
    from imbalance_stream.linear_model import ACOG

    model = warmed(ACOG, {"covariance": covariance})
    model.eta = 1e308  # a huge step size, set after warming up on it
    index = model._features.index
    model._mean[index["f0"]], model._mean[index["f1"]] = 1.7e308, -1.7e308  # at the edge
    before = pickle.dumps(model)
    with pytest.raises(NumericalError, match="non-finite"):
        # a score of 0, so an update, whose step of about 1e308 overflows the first weight
        model.learn_one({"f0": 1.0, "f1": 1.0, "new": 1.0}, True)
    assert pickle.dumps(model) == before
    assert "new" not in model._features.index
    model.learn_one({"f2": 1.0}, False)  # and it goes on learning


@pytest.mark.parametrize("policy, budget", [("rs++", 50), ("fifo", 4), ("inf", 4)])
def test_finding_3_a_koil_step_that_overflows_is_rolled_back_whole(policy, budget):
    """KOIL's transaction copies only its O(budget) arrays; the step keeps the stored vector and
    Gram row it overwrites. A sample stored (into a fresh slot, over the oldest vector, into a
    grown pool) with a weight of about 1e300 and linear kernel values of about 1e15 overflows the
    scores; it is rolled back: the model pickles exactly as before."""
    from imbalance_stream.kernel import KOIL

    params = {"kernel": "linear", "budget": budget, "k": 2, "seed": 3, "policy": policy}
    model = warmed(KOIL, params, n=60)
    model.C = 1e300  # a huge penalty, set after warming up
    before = pickle.dumps(model)
    with pytest.raises(NumericalError, match="non-finite"):
        model.learn_one({"f0": 1e15, "f1": -1e15, "f2": 1e15, "new": 1.0}, False)
    assert model._undo[0] >= 0  # the step did store the vector before the check
    assert pickle.dumps(model) == before
    assert "new" not in model._features.index
    model.learn_one({"f0": 0.5, "f1": 0.1}, False)  # and it goes on learning


def test_finding_2_a_memory_error_during_growth_is_rolled_back(monkeypatch):
    from imbalance_stream.linear_model import ACOG

    model = warmed(ACOG, {"covariance": "full"})
    before = pickle.dumps(model)

    def no_memory(n_features):
        raise MemoryError("simulated")

    monkeypatch.setattr(model, "_grow", no_memory)
    with pytest.raises(MemoryError):
        model.learn_one({f"n{j}": 1.0 for j in range(100)}, True)
    monkeypatch.undo()
    assert pickle.dumps(model) == before
    model.learn_one({"f0": 1.0}, True)  # and it goes on learning


@pytest.mark.parametrize("eta, C", [(0.1, 100.0), (0.5, 20.0), (0.01, 1000.0)])
def test_finding_4_koil_smooth_with_a_large_step_stays_finite(eta, C):
    from imbalance_stream.kernel import KOIL

    model = KOIL(loss="smooth", eta=eta, C=C, budget=20, k=3, seed=1)
    X, labels = labelled_stream(1500, 4, seed=2)
    run_prequentially(model, as_samples(model, X, labels))


@pytest.mark.parametrize("name", ["Projectron", "ProjectronPlusPlus"])
def test_finding_5_projectron_defaults_are_budgeted(name):
    from imbalance_stream import kernel

    cls = getattr(kernel, name)
    assert cls().budget == 500
    model = cls(budget=30, eta=1e-6)  # a threshold that would store nearly every mistake
    X, labels = labelled_stream(1500, 4, seed=4)
    samples = as_samples(model, X, labels)
    run_prequentially(model, samples)
    assert model.n_support == 30
    # the documented opt-in to unbounded growth, which the memory measurement does see
    unbounded = cls(budget=None)
    assert unbounded.budget is None
    sizes = memory_sizes(unbounded, n=1200)
    assert sizes[1] > 1.5 * sizes[0], sizes


# ---- the suite drives anomaly detectors too ----------------------------------------------------


class DistanceToMean(AnomalyDetector):
    """A toy River anomaly detector (squared distance to the running mean) that validates its
    input as the package's models do: the shape of the detectors the suite must cover."""

    def __init__(self):
        self.n = 0
        self.means: dict = {}

    def _validated(self, x) -> dict:
        if not isinstance(x, dict):
            raise TypeError(f"features must be a dict, got {type(x).__name__}")
        return {name: as_float(name, value) for name, value in x.items()}

    def learn_one(self, x):
        values = self._validated(x)  # before any state changes
        self.n += 1
        for name in set(self.means) | set(values):
            mean = self.means.get(name, 0.0)
            self.means[name] = mean + (values.get(name, 0.0) - mean) / self.n

    def score_one(self, x):
        values = self._validated(x)
        names = set(self.means) | set(values)
        return sum((values.get(k, 0.0) - self.means.get(k, 0.0)) ** 2 for k in names)


def test_the_corpus_and_the_fuzzing_drive_an_anomaly_detector():
    """A detector exported from a module of ``MODULES`` is collected like any estimator
    (``public_estimators`` takes every ``river.base.Estimator``), and driven with
    ``learn_one(x)`` / ``score_one(x)``."""
    from river.base import Estimator

    assert issubclass(AnomalyDetector, Estimator)
    check_bad_input_corpus(warmed(DistanceToMean, {}))
    recipe = {
        "n": 60,
        "d": 3,
        "exponents": [-6, 0, 6],
        "constant": [False, True, False],
        "duplicates": 5,
        "prefix": 10,
        "prefix_label": False,
        "positive_rate": 0.05,
        "seed": 1,
    }
    model = DistanceToMean()
    run_prequentially(model, as_samples(model, *fuzzed_stream(recipe)))
