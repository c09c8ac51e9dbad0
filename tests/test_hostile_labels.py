"""Labels that slip past a wrapper, a re-weighter or a multi-class proximal SVM: each must be
refused with ``UnknownLabel`` before anything changes (pickle for pickle), after the model has
learned some valid samples, and the labels it can take (0/1, True/False, 1.0) must be taken."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from river import linear_model, naive_bayes

from imbalance_stream.base import UnknownLabel
from imbalance_stream.density_ratio import (
    IWLSPC,
    DDRReweighter,
    ImportanceWeighted,
    ULSIFReweighter,
)
from imbalance_stream.linear_model import ACOG
from imbalance_stream.svm import MulticlassDCILIncLPSVM, MulticlassIncLPSVM

#: No class label for any model: None, NaN, infinities and unhashable values.
NO_LABEL = [None, math.nan, np.float64("nan"), math.inf, -math.inf, np.float64("inf"), [1], {1}]
#: Hashable labels that a model taking numbers only (True/False, 0/1) cannot take.
NOT_A_NUMBER = ["x", (1, 2), object()]


def shown(label) -> str:
    """A test id that is the same in every worker process (an object's repr has its address)."""
    return "object()" if type(label) is object else repr(label)


def ddr(refresh_every=25):
    return DDRReweighter(
        IWLSPC(sigma=1.0, ridge=0.1, n_centres=10, seed=0),
        n_per_class=30,
        max_iter=1,
        n_centres=10,
        sigma=1.0,
        ridge=0.1,
        n_source=60,
        n_target=30,
        refresh_every=refresh_every,
        seed=0,
    )


def stream(n, labels, seed=0):
    """``n`` samples whose class (taken from ``labels`` in turn) shifts the first feature."""
    rng = np.random.default_rng(seed)
    for t in range(n):
        y = labels[t % len(labels)]
        yield {"a": float(rng.normal(2.0 * (t % len(labels)), 1.0)), "b": float(rng.normal())}, y


def warmed_reweighter(labels=(0, 1)):
    reweighter = ddr()
    for x, y in stream(60, labels):
        reweighter.learn_target_one(x)
        reweighter.learn_source_one(x, y)
    assert reweighter.refresh() and reweighter.ddr_ is not None
    return reweighter


def warmed_wrapper(classifier, reweighter, labels=(False, True)):
    model = ImportanceWeighted(classifier, reweighter, seed=0)
    for x, y in stream(60, labels):
        model.observe_one(x)
        model.learn_one(x, y)
    assert model.reweighter._ratio.fitted
    return model


def warmed_svm(cls, labels=(0, (1, 2), "x")):
    model = cls()
    for x, y in stream(12, labels):
        model.learn_one(x, y)
    return model


def assert_refused(learn, model, label):
    before = pickle.dumps(model)
    with pytest.raises(Exception) as refused:
        learn({"a": 0.5, "b": -0.5}, label)
    assert pickle.dumps(model) == before  # whatever refused it, nothing changed
    assert isinstance(refused.value, UnknownLabel), repr(refused.value)
    message = str(refused.value)  # one line, naming the label
    assert "\n" not in message and ("None" in message if label is None else "label" in message)


# ---- DDRReweighter ---------------------------------------------------------------------------


@pytest.mark.parametrize("label", NO_LABEL + NOT_A_NUMBER, ids=shown)
def test_ddr_reweighter_refuses_what_it_cannot_sort_with_its_classes(label):
    """Its classes are sorted at each refresh: NaN, infinities, text among numbers, tuples and
    objects used to be kept and the next refresh raised TypeError, the sample half applied."""
    reweighter = warmed_reweighter()
    assert_refused(reweighter.learn_source_one, reweighter, label)
    text = warmed_reweighter(("a", "b"))
    assert_refused(text.learn_source_one, text, 1 if isinstance(label, str) else label)


def test_ddr_reweighter_takes_1_true_and_1_0_as_one_class():
    reweighter = warmed_reweighter()
    for x, y in stream(10, (True, 1.0, False, np.int64(0))):
        reweighter.learn_source_one(x, y)
    assert reweighter.refresh()  # raised "unseen label(s) ['True']" before
    assert sorted(reweighter._per_class) == [0, 1]
    weights = [reweighter.weight_one({"a": 1.0, "b": 0.0}, y) for y in (1, True, 1.0)]
    assert weights[0] == weights[1] == weights[2] != 1.0


def test_ddr_reweighter_takes_a_third_class_of_the_same_kind():
    reweighter = warmed_reweighter()
    reweighter.learn_source_one({"a": 4.0, "b": 0.0}, 2)
    assert reweighter.refresh() and list(reweighter.ddr_.classes_) == [0, 1, 2]


# ---- ImportanceWeighted around River's binary classifiers --------------------------------------


@pytest.mark.parametrize("reweighter", [ULSIFReweighter, ddr], ids=["ULSIF", "DDR"])
@pytest.mark.parametrize("label", NO_LABEL + NOT_A_NUMBER + [2, -1, 0.5], ids=shown)
def test_a_river_binary_classifier_takes_true_false_only(reweighter, label):
    """River's LogisticRegression raised its own ValueError/TypeError/OverflowError for text,
    tuples and inf, and learned 2 silently."""
    kwargs = {"n_source": 60, "n_target": 30, "refresh_every": 25, "seed": 0}
    inner = ULSIFReweighter(**kwargs) if reweighter is ULSIFReweighter else ddr()
    model = warmed_wrapper(linear_model.LogisticRegression(), inner)
    assert_refused(model.learn_one, model, label)


@pytest.mark.parametrize("labels", [(False, True), (0, 1)], ids=["bool", "int"])
def test_a_river_binary_classifier_takes_0_1_true_false_and_1_0_with_ddr(labels):
    """DDR's weights compared labels as text: 1 and 1.0 after True/False, and True after 0/1,
    were refused as unseen labels."""
    model = warmed_wrapper(linear_model.LogisticRegression(), ddr(), labels)
    for y in (1, 0, 1.0, 0.0, True, False, np.int64(1), np.bool_(False)):
        model.learn_one({"a": 1.0, "b": 0.0}, y)
    model.reweighter.refresh()
    assert sorted(model.reweighter.ddr_.classes_.tolist()) == [0, 1]


def test_this_package_s_binary_classifier_refuses_its_own_third_label():
    model = warmed_wrapper(ACOG(), ddr())
    assert_refused(model.learn_one, model, "third")
    assert_refused(model.learn_one, model, math.inf)


@pytest.mark.parametrize("label", NO_LABEL + NOT_A_NUMBER, ids=shown)
def test_a_multiclass_classifier_with_ddr_refuses_what_ddr_cannot_take(label):
    """GaussianNB takes any class, DDR numbers or text of one kind: the wrapper refuses what
    either cannot take before the classifier learns it."""
    model = warmed_wrapper(naive_bayes.GaussianNB(), ddr(), (0, 1))
    assert_refused(model.learn_one, model, label)
    model.learn_one({"a": 4.0, "b": 0.0}, 2)  # a third class: both take it


# ---- the multi-class proximal SVMs -------------------------------------------------------------


@pytest.mark.parametrize("cls", [MulticlassIncLPSVM, MulticlassDCILIncLPSVM])
@pytest.mark.parametrize("label", NO_LABEL, ids=shown)
def test_multiclass_proximal_svms_refuse_infinities_as_nan(cls, label):
    """inf was answered with NumericalError ("scale the features"), and the rollback copied the
    tuple label it held, so the model no longer pickled as before."""
    model = warmed_svm(cls)
    assert_refused(model.learn_one, model, label)
    assert_refused(model.forget_one, model, label)


@pytest.mark.parametrize("cls", [MulticlassIncLPSVM, MulticlassDCILIncLPSVM])
def test_multiclass_proximal_svms_take_any_class_label(cls):
    model = warmed_svm(cls)
    thing = object()
    for y in (thing, (3, 4), "y", 1, True, 1.0):
        model.learn_one({"a": 1.0, "b": 2.0}, y)
    assert model.counts[thing] == 1 and model.counts[1] == 3  # 1, True and 1.0: one class
