"""Labels that are no class label, and the feature name of the bias: refused or kept apart, for
every estimator (found by introspection), with the model exactly as before."""

from __future__ import annotations

import inspect
import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream import kernel, linear_model, svm
from imbalance_stream.base import BinaryClassifier, UnknownLabel
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.metrics import ExactROCAUC

ESTIMATORS = [
    getattr(package, name)
    for package in (linear_model, kernel, svm)
    for name in package.__all__
    if inspect.isclass(getattr(package, name)) and hasattr(getattr(package, name), "learn_one")
]
BAD_LABELS = [None, math.nan, np.float64("nan"), np.array([True]), [1], {"a": 1}]


def _warmed(cls):
    model = cls()
    positive = model.positive if isinstance(model, BinaryClassifier) else "a"
    model.learn_one({"x": 1.0, "y": -0.5}, positive)
    model.learn_one({"x": -1.0, "y": 0.5}, "other" if positive == "a" else (not positive))
    return model


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("label", BAD_LABELS, ids=repr)
def test_a_value_that_is_no_label_is_refused_and_changes_nothing(cls, label):
    for model in (cls(), _warmed(cls)):  # before and after the classes are known
        before = pickle.dumps(model)
        with pytest.raises(UnknownLabel, match=r"not a class label|label is None"):
            model.learn_one({"x": 1.0}, label)
        assert pickle.dumps(model) == before


def test_a_nan_label_does_not_become_the_negative_class():
    model = linear_model.ACOG()
    with pytest.raises(UnknownLabel):
        model.learn_one({"x": 1.0}, math.nan)
    model.learn_one({"x": -1.0}, False)  # refused in 0.1, once NaN had taken the negative slot
    assert model.classes == (True, False)


def test_a_feature_named_like_the_intercept_is_an_ordinary_feature():
    model = linear_model.ACOG(intercept=True)
    model.learn_one({"__intercept__": 5.0, "x": 1.0}, True)
    assert set(model.weights) == {"__intercept__", "x"}  # a feature of its own, not the bias
    restored = pickle.loads(pickle.dumps(model))
    assert restored.weights == model.weights and restored.intercept_ == model.intercept_


@pytest.mark.parametrize("label", [None, math.nan, np.array([1])], ids=repr)
def test_exact_auc_refuses_what_is_no_label(label):
    metric = ExactROCAUC()
    metric.update(True, 0.7)
    with pytest.raises(UnknownLabel):
        metric.update(label, 0.2)
    assert metric.get() == 0.5  # unchanged: one positive, no negative yet


BINARY = [cls for cls in ESTIMATORS if issubclass(cls, BinaryClassifier)]


@pytest.mark.parametrize("cls", BINARY, ids=lambda c: c.__name__)
@pytest.mark.parametrize("positive", BAD_LABELS, ids=repr)
def test_a_positive_that_is_no_label_is_refused_when_built(cls, positive):
    with pytest.raises(InvalidParameter, match="positive must be the rare class's label"):
        cls(positive=positive)


@pytest.mark.parametrize("cls", BINARY, ids=lambda c: c.__name__)
def test_text_labels_with_the_default_positive_suggest_naming_it(cls):
    model = cls()
    model.learn_one({"x": 1.0}, "phish")
    with pytest.raises(UnknownLabel, match=r"positive='phish'\) or .*positive='legit'\)"):
        model.learn_one({"x": -1.0}, "legit")


def test_a_named_positive_inside_river_one_vs_rest_says_to_leave_it_at_true():
    from river import multiclass

    model = multiclass.OneVsRestClassifier(linear_model.ACOG(positive="sky"))
    model.learn_one({"x": 1.0}, "sky")
    with pytest.raises(UnknownLabel, match="leave positive at True inside them"):
        model.learn_one({"x": -1.0}, "grass")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-1, 5), max_size=30), st.data())
def test_coded_labels_distinct_is_numpys_unique(codes, data):
    """``CodedLabels.distinct``: the distinct codes at some positions and each one's place among
    them, as ``np.unique`` with ``return_inverse`` gives them."""
    from imbalance_stream.base.labels import CodedLabels

    labels = CodedLabels(np.array(codes, dtype=np.int64), list("abcdefg"))
    at = np.array(data.draw(st.lists(st.integers(0, max(len(codes) - 1, 0)))) if codes else [],
                  dtype=np.int64)  # fmt: skip
    used, where = labels.distinct(at)
    want_used, want_where = np.unique(np.array(codes, dtype=np.int64)[at], return_inverse=True)
    assert used.tolist() == want_used.tolist() and where.tolist() == want_where.tolist()
