"""The array path (``BinaryClassifier.replay_rows``, ``evaluate.replay_array``) on streams whose
steps ``learn_one`` refuses (an overflow: ``NumericalError``, the model unchanged): the same as
``predict_one`` then ``learn_one`` row by row with that error caught, bit for bit: the same
predictions, the same pickle, and never a value that is not finite in the state."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from imbalance_stream._numba import guard
from imbalance_stream.base import BinaryClassifier, FeatureSpaceFull, InvalidFeature, NumericalError
from imbalance_stream.base.rows import ArrayRows
from imbalance_stream.base.transaction import is_finite_state
from imbalance_stream.catalog import CLASSES
from imbalance_stream.evaluate import replay_array
from imbalance_stream.linear_model import ACOG, AROW, COG, CPA, PA, PAUM, ROMMA, SACOG, Perceptron

#: Every estimator with an array path, in settings whose steps overflow on large values (a huge
#: step size, a tiny regularisation) or do not (so that refusals meet ordinary rounds too).
CONFIGS = [
    (ACOG, {"covariance": "diag", "eta": 1e308}),
    (ACOG, {"covariance": "diag", "loss": "I", "eta": 1e300, "intercept": True}),
    (ACOG, {"covariance": "full", "eta": 1e308, "rho": 1e10}),
    (ACOG, {"covariance": "full", "loss": "I", "intercept": True}),
    (ACOG, {"covariance": "diag", "rho": 3.0}),
    (SACOG, {"eta": 1e308, "seed": 1}),
    (SACOG, {"eta": 1e308, "m": 2, "intercept": True, "seed": 2}),
    (SACOG, {"sparse": True, "eta": 1e308, "seed": 3}),
    (SACOG, {"sparse": True, "eta": 1e308, "m": 3, "intercept": True, "seed": 4}),
    (SACOG, {"sparse": True, "loss": "II", "sketch_on_loss_only": True, "eta": 1e300, "seed": 5}),
    (SACOG, {"m": 8, "eta": 1e200, "oja_step": 2.0, "seed": 6}),  # spare columns throughout
    (SACOG, {"sparse": True, "seed": 7}),
    (AROW, {"r": 1e-300}),
    (AROW, {"r": 1e-300, "intercept": True}),
    (AROW, {}),
    (Perceptron, {}),
    (Perceptron, {"intercept": True}),
    (PAUM, {"eta": 1e308}),
    (PAUM, {"eta": 1e308, "rho": 1e10, "intercept": True}),
    (COG, {"eta": 1e308}),
    (COG, {"loss": "I", "eta": 1e308, "intercept": True}),
    (PA, {}),
    (PA, {"C": float("inf"), "intercept": True}),
    (CPA, {}),
    (CPA, {"rule": "max-loss", "rho": 1e300}),
    (ROMMA, {}),
    (ROMMA, {"intercept": True}),
]

#: Magnitudes that provoke overflows (near the 1e15 the feature space accepts), underflows (whose
#: squares vanish, so that a division by a norm overflows) and ordinary rounds.
EXTREMES = [1e15, 9.99e14, 3e14, 1e10, 1e-160, 1e-300, 5e-324]
VALUES = st.one_of(
    st.just(0.0),
    st.just(0.0),
    st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False),
    st.sampled_from(EXTREMES).flatmap(lambda v: st.sampled_from([v, -v])),
)


def test_every_estimator_with_an_array_path_is_driven():
    """The configurations above cover every public estimator whose ``replay_rows`` runs a
    jitted loop (a new one must be added to them)."""
    with_array_path = set()
    for dotted, kind in CLASSES.values():
        if kind != "estimator":
            continue
        module, _, name = dotted.rpartition(".")
        cls = getattr(importlib.import_module(module), name)
        if (
            isinstance(cls, type)
            and issubclass(cls, BinaryClassifier)
            and object.__new__(cls).has_array_path
        ):
            with_array_path.add(cls)
    assert with_array_path == {kind for kind, _ in CONFIGS}


def _finite(model) -> bool:
    """Whether every float of the model's state is finite (its parameters aside: ``C = inf`` is
    a setting)."""
    parameters = inspect.signature(type(model)).parameters
    return all(is_finite_state(v) for k, v in vars(model).items() if k not in parameters)


def _dict_loop(model, rows: ArrayRows) -> np.ndarray:
    """The reference: predict_one, then learn_one with NumericalError caught, row by row."""
    predictions = np.zeros(len(rows), dtype=np.int8)
    for t in range(len(rows)):
        x = rows.row_dict(t)
        predictions[t] = 1 if model.predict_one(x) == model.positive else -1
        with contextlib.suppress(NumericalError):
            model.learn_one(x, rows.label(t))
    return predictions


@st.composite
def streams(draw):
    """Rows of 1 to 6 columns (named in a drawn order, which SACOG's sketch depends on), values
    from :data:`VALUES`, two labels (text, or numpy integers), and a warm-up of dicts."""
    n_columns = draw(st.integers(1, 6))
    n_rows = draw(st.integers(1, 30))
    X = np.array(
        draw(st.lists(st.lists(VALUES, min_size=n_columns, max_size=n_columns), min_size=n_rows,
                      max_size=n_rows))
    )  # fmt: skip
    positive_rows = draw(st.lists(st.booleans(), min_size=n_rows, max_size=n_rows))
    if draw(st.booleans()):
        positive, labels = "fraud", np.array(["fraud" if p else "ok" for p in positive_rows])
    else:
        positive, labels = 1, np.array([1 if p else 0 for p in positive_rows])
    order = draw(st.permutations(range(n_columns)))
    names = [f"f{j}" for j in order]
    warm = draw(st.integers(0, 3))
    return X, labels, positive, names, warm


def _warm_up(model, rows: ArrayRows, warm: int) -> None:
    for t in range(min(warm, len(rows))):
        with contextlib.suppress(NumericalError):
            model.learn_one(rows.row_dict(t), rows.label(t))


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(CONFIGS), streams())
def test_the_array_path_is_the_dict_loop_that_catches_refusals(config, stream):
    kind, params = config
    X, labels, positive, names, warm = stream
    rows = ArrayRows(sparse.csr_matrix(X), labels, names)
    fast, slow = kind(positive=positive, **params), kind(positive=positive, **params)
    _warm_up(fast, rows, warm)
    _warm_up(slow, rows, warm)
    expected = _dict_loop(slow, rows)
    predictions = fast.replay_rows(rows)
    assert predictions.tolist() == expected.tolist()
    assert _finite(fast)
    assert pickle.dumps(fast) == pickle.dumps(slow)
    # and the model goes on through the dict API as the other one does
    x = dict.fromkeys(names[:2], 1.0)
    assert repr(fast.predict_proba_one(x)) == repr(slow.predict_proba_one(x))


def _overflowing(kind, params, n=300, d=4, seed=0):
    """A stream whose every few steps overflow for ``kind(**params)``, and the two paths' runs."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.7)
    X[rng.random(n) < 0.1] *= 1e14
    y = np.where(rng.random(n) < 0.3, 1, -1)
    fast, slow = kind(positive=1, **params), kind(positive=1, **params)
    result = replay_array(fast, X, y, method="array")
    refused = 0
    predictions = []
    for row, label in zip(X, y.tolist()):  # Python labels, as River passes them
        x = {j: float(v) for j, v in enumerate(row) if v != 0.0}
        predictions.append(slow.predict_one(x) == 1)
        try:
            slow.learn_one(x, label)
        except NumericalError:
            refused += 1
    return result, predictions, refused, fast, slow


@pytest.mark.parametrize(
    "kind,params",
    [
        (SACOG, {"eta": 1e308, "seed": 1}),
        (SACOG, {"sparse": True, "eta": 1e308, "seed": 1}),
        (ACOG, {"eta": 1e308}),
        (ACOG, {"covariance": "full", "eta": 1e308}),
        (PAUM, {"eta": 1e308}),
        (COG, {"eta": 1e308}),
    ],
    ids=lambda v: v.__name__ if isinstance(v, type) else "-".join(map(str, v.values())),
)
def test_refused_steps_are_skipped_and_nothing_of_them_is_kept(kind, params):
    """A longer stream than the hypothesis test's, with many refusals (the report that started
    this: SACOG with eta = 1e308 kept values not finite in its mean)."""
    result, predictions, refused, fast, slow = _overflowing(kind, params)
    assert refused > 0
    assert result.predicted_positive.tolist() == predictions
    assert _finite(fast)
    assert pickle.dumps(fast) == pickle.dumps(slow)


def test_the_dict_method_of_replay_array_skips_refused_steps_too():
    """``method="dict"``, the reference of the array path, catches NumericalError the same way."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 3)) * 1e14
    y = np.where(rng.random(200) < 0.4, 1, -1)
    fast, slow = SACOG(eta=1e308, seed=2, positive=1), SACOG(eta=1e308, seed=2, positive=1)
    by_array = replay_array(fast, X, y, method="array")
    by_dicts = replay_array(slow, X, y, method="dict")
    assert by_array.predictions.tolist() == by_dicts.predictions.tolist()
    assert pickle.dumps(fast) == pickle.dumps(slow)


@pytest.mark.parametrize("value", [1.0000001e15, -2e15, 1e300])
def test_values_beyond_the_limit_raise_before_the_model_changes(value):
    """The dict path refuses a value beyond 1e15 in magnitude (InvalidFeature); so does the array
    path, before anything changes, as for NaN."""
    X = np.ones((5, 3))
    X[3, 1] = value
    model = ACOG()
    model.learn_one({"c0": 1.0}, True)
    before = pickle.dumps(model)
    with pytest.raises(InvalidFeature, match=r"feature 'c1'.*row 3"):
        replay_array(model, X, [1, -1, 1, -1, 1], feature_names=["c0", "c1", "c2"])
    assert pickle.dumps(model) == before
    rows = ArrayRows(sparse.csr_matrix(X), np.array([1, -1, 1, -1, 1]), ["c0", "c1", "c2"])
    with pytest.raises(InvalidFeature, match=r"feature 'c1'.*row 3"):
        model.replay_rows(rows)
    assert pickle.dumps(model) == before


def test_names_a_refused_step_brings_are_committed_where_they_come_again():
    """The first row (names a, b) overflows and is refused: learn_one keeps neither name, so c,
    in the next row, takes the first column and the others come after it; the array path reads
    later rows over the columns the names then have, not in order of first appearance (its fast
    reading of rows is off from there on)."""
    X = np.array([[1e15, 1e15, 0.0], [0.0, 0.0, 1.0], [0.5, 0.0, 1.0], [0.0, 2.0, -1.0]] * 3)
    y = np.array([1, -1, 1, 1] * 3)
    params = {"eta": 1e308, "rho": 1e10, "covariance": "full"}
    fast, slow = ACOG(positive=1, **params), ACOG(positive=1, **params)
    rows = ArrayRows(sparse.csr_matrix(X), y, ["a", "b", "c"])
    expected = _dict_loop(slow, rows)
    assert slow._features.names[0] == "c"  # (the order learn_one commits them in)
    assert fast.replay_rows(rows).tolist() == expected.tolist()
    assert pickle.dumps(fast) == pickle.dumps(slow)


def test_rows_that_could_overflow_the_feature_space_raise_before_anything_changes():
    model = ACOG(covariance="full")
    model.learn_one({"a": 1.0}, True)
    model._features.max_features = 3
    before = pickle.dumps(model)
    rows = ArrayRows(sparse.csr_matrix(np.ones((2, 4))), np.array([True, False]), list("abcd"))
    with pytest.raises(FeatureSpaceFull, match="3 new feature names"):
        model.replay_rows(rows)
    assert pickle.dumps(model) == before


def count_not_finite_reference(values, n):
    """Plain numpy: how many of the first ``n`` values are NaN or infinite."""
    return int(np.count_nonzero(~np.isfinite(values[:n])))


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
            st.sampled_from([math.nan, -math.nan, math.inf, -math.inf, -0.0, 5e-324, 1.8e308]),
        ),
        max_size=40,
    ),
    st.integers(0, 40),
)
def test_count_not_finite_is_numpys_count(values, n):
    array = np.array(values, dtype=np.float64)
    n = min(n, len(array))
    assert guard.count_not_finite(array, n) == count_not_finite_reference(array, n)
