"""Metrics River lacks: exact AUC against scikit-learn, weighted sum and cost against counts."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets, evaluate, linear_model, metrics, preprocessing
from sklearn.metrics import roc_auc_score

from imbalance_stream.metrics import (
    ExactROCAUC,
    Sensitivity,
    Specificity,
    WeightedCost,
    WeightedSum,
)
from imbalance_stream.metrics.batch import binary_rates


@pytest.mark.parametrize("seed", range(5))
def test_exact_auc_equals_scikit_learn_with_ties(seed):
    rng = np.random.default_rng(seed)
    y = rng.random(3000) < 0.1
    scores = np.round(rng.normal(size=3000) + y, 1)  # rounding makes many ties
    metric = ExactROCAUC()
    for label, score in zip(y, scores):
        metric.update(bool(label), float(score))
    assert abs(metric.get() - roc_auc_score(y, scores)) < 1e-12


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 5)), min_size=2, max_size=60), st.data())
def test_revert_undoes_update_exactly(pairs, data):
    metric = ExactROCAUC(pos_val=True)
    for label, score in pairs:
        metric.update(label, float(score))
    k = data.draw(st.integers(0, len(pairs)))
    for label, score in reversed(pairs[k:]):
        metric.revert(label, float(score))
    kept = pairs[:k]
    labels = [label for label, _ in kept]
    if len(set(labels)) == 2:
        expected = roc_auc_score(labels, [score for _, score in kept])
        assert abs(metric.get() - expected) < 1e-12
    else:
        assert metric.get() == 0.5


def test_exact_auc_reads_the_positive_probability_of_a_dict():
    metric = ExactROCAUC(pos_val="fraud")
    metric.update("fraud", {"fraud": 0.9, "ok": 0.1})
    metric.update("ok", {"fraud": 0.2, "ok": 0.8})
    assert metric.get() == 1.0
    with pytest.raises(ValueError, match="NaN"):
        metric.update("ok", float("nan"))
    with pytest.raises(ValueError, match="weights"):
        metric.update("ok", 0.3, w=2.0)


def test_exact_auc_in_progressive_validation_is_close_to_rivers_approximation():
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    exact = evaluate.progressive_val_score(datasets.Phishing(), model, ExactROCAUC()).get()
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    approx = evaluate.progressive_val_score(
        datasets.Phishing(), model, metrics.ROCAUC(n_thresholds=200)
    ).get()
    assert abs(exact - approx) < 0.01


def confusion_stream(seed=0, n=500):
    rng = np.random.default_rng(seed)
    y_true = rng.random(n) < 0.2
    y_pred = np.where(rng.random(n) < 0.7, y_true, ~y_true)
    return [bool(v) for v in y_true], [bool(v) for v in y_pred]


def test_weighted_sum_at_one_half_is_rivers_balanced_accuracy():
    y_true, y_pred = confusion_stream()
    ours, rivers = WeightedSum(alpha_p=0.5), metrics.BalancedAccuracy()
    for t, p in zip(y_true, y_pred):
        ours.update(t, p)
        rivers.update(t, p)
    assert abs(ours.get() - rivers.get()) < 1e-12


@pytest.mark.parametrize("alpha_p", [0.1, 0.5, 0.9])
def test_weighted_sum_and_cost_from_counts(alpha_p):
    y_true, y_pred = confusion_stream(seed=3)
    t, p = np.array(y_true), np.array(y_pred)
    tp, fn = np.sum(t & p), np.sum(t & ~p)
    tn, fp = np.sum(~t & ~p), np.sum(~t & p)
    sens, spec = tp / (tp + fn), tn / (tn + fp)
    weighted_sum, cost = WeightedSum(alpha_p=alpha_p), WeightedCost(c_p=0.9, c_n=0.1)
    sensitivity, specificity = Sensitivity(), Specificity()
    for metric in (weighted_sum, cost, sensitivity, specificity):
        for a, b in zip(y_true, y_pred):
            metric.update(a, b)
    assert weighted_sum.get() == pytest.approx(alpha_p * sens + (1 - alpha_p) * spec, abs=1e-12)
    assert cost.get() == pytest.approx(0.9 * fn + 0.1 * fp, abs=1e-12)
    assert sensitivity.get() == pytest.approx(sens) and specificity.get() == pytest.approx(spec)
    assert not cost.bigger_is_better and weighted_sum.bigger_is_better


def test_rates_work_with_any_positive_label_and_revert():
    metric = WeightedSum(pos_val="fraud")
    stream = [("fraud", "fraud"), ("fraud", "ok"), ("ok", "ok"), ("ok", "fraud"), ("ok", "ok")]
    for t, p in stream:
        metric.update(t, p)
    assert metric.get() == pytest.approx(0.5 * 0.5 + 0.5 * 2 / 3)
    metric.revert(*stream[-1])
    assert metric.get() == pytest.approx(0.5)


def test_a_class_term_is_zero_until_that_class_is_seen():
    metric = WeightedSum()
    metric.update(False, False)
    assert metric.get() == 0.5


@pytest.mark.parametrize("bad", [dict(alpha_p=1.5), dict(alpha_p=-0.1)])
def test_weighted_sum_refuses_bad_weights(bad):
    with pytest.raises(ValueError):
        WeightedSum(**bad)


def test_weighted_cost_refuses_negative_costs():
    with pytest.raises(ValueError):
        WeightedCost(c_p=-1.0)


def test_metrics_work_with_progressive_validation_of_a_binary_model():
    from imbalance_stream.linear_model import ACOG

    model = preprocessing.StandardScaler() | ACOG()
    metric = WeightedSum() + WeightedCost() + ExactROCAUC()
    evaluate.progressive_val_score(datasets.Phishing(), model, metric)
    values = [m.get() for m in metric]
    assert 0.8 < values[0] <= 1.0 and values[1] > 0 and 0.8 < values[2] <= 1.0


# ---- Prec@t -------------------------------------------------------------------------------------


def _precision_at_t_by_tie_breaking(scores, positive, draws=4000, seed=0):
    """The mean precision of the top t over random tie-breaks: what the batch formula computes."""
    rng = np.random.default_rng(seed)
    t = int(np.sum(positive))
    total = 0.0
    for _ in range(draws):
        order = np.lexsort((rng.random(len(scores)), -np.asarray(scores)))
        total += np.asarray(positive)[order[:t]].mean()
    return total / draws


def test_precision_at_t_counts_ties_at_the_cut_in_proportion():
    from imbalance_stream.metrics.batch import precision_at_t

    scores = np.array([5.0, 3.0, 3.0, 3.0, 1.0, 0.0])
    positive = np.array([True, False, True, False, True, False])
    assert precision_at_t(scores, positive) == pytest.approx((1 + 2 / 3) / 3)
    assert precision_at_t(scores, positive) == pytest.approx(
        _precision_at_t_by_tie_breaking(scores, positive), abs=0.02
    )
    assert precision_at_t(scores, np.zeros(6, bool)) == 0.0
    assert precision_at_t([-3.0, -1.0, -2.0], [False, True, False]) == 1.0


@settings(max_examples=50, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.sampled_from([-2.0, -1.0, 0.0, 0.5, 3.0, 1e6])),
        min_size=1,
        max_size=40,
    )
)
def test_streaming_precision_at_t_equals_the_batch_value(pairs):
    from imbalance_stream.metrics import PrecisionAtT
    from imbalance_stream.metrics.batch import precision_at_t

    metric = PrecisionAtT()
    for label, score in pairs:
        metric.update(label, score)
    labels = np.array([label for label, _ in pairs])
    expected = precision_at_t([s for _, s in pairs], labels) if labels.any() else 0.0
    assert metric.get() == pytest.approx(expected)
    label, score = pairs[-1]
    metric.revert(label, score)
    rest = pairs[:-1]
    rest_labels = np.array([lab for lab, _ in rest], dtype=bool)
    expected = precision_at_t([s for _, s in rest], rest_labels) if rest_labels.any() else 0.0
    assert metric.get() == pytest.approx(expected)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=60))
def test_rivers_geometric_mean_is_the_theses_g_means_on_two_classes(pairs):
    """Ertekin 2009, Table 4.1: g = sqrt(sensitivity x specificity); the seed-003 reproductions
    use River's GeometricMean for it (the geometric mean of the classes' recalls)."""
    truth, predicted = [t for t, _ in pairs], [p for _, p in pairs]
    metric = metrics.GeometricMean()
    for t, p in pairs:
        metric.update(t, p)
    rates = binary_rates(truth, predicted)
    if len(set(truth)) < 2:
        return  # one class: the thesis's g-means is undefined (nan), River's is its recall
    assert math.isclose(metric.get(), rates["g_mean"], abs_tol=1e-12)
