"""Batch versions of the metrics, for arrays of scores and labels known all at once.

The streaming metrics of this package (:class:`ExactROCAUC`, :class:`Sensitivity`, ...) are River
metrics updated one sample at a time; these functions give the same quantities for whole arrays,
as the papers' protocols compute them at the end of a run.

>>> import numpy as np
>>> from imbalance_stream.metrics import batch
>>> scores = np.array([0.9, 0.4, 0.4, 0.1])
>>> positive = np.array([True, True, False, False])
>>> batch.roc_auc(scores, positive), batch.roc_auc(scores, positive, ties="strict")
(0.875, 0.75)
>>> batch.binary_rates(positive, scores > 0.3)["specificity"]
0.5
>>> batch.precision_at_t(scores, positive)  # t = 2: the 0.9, then one of the two 0.4s
0.75

"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["binary_rates", "prbep", "precision_at_t", "roc_auc"]


def roc_auc(scores, positive, ties: str = "half") -> float:
    """Exact ROC AUC of ``scores`` for the boolean labels ``positive``; ``nan`` when a class is
    absent.

    ``ties="half"`` counts a tie between a positive and a negative as 1/2 (the Mann-Whitney
    statistic from mid-ranks, O(n log n)); ``ties="strict"`` counts it as 0, which is how the KOIL
    authors' code computes the AUC of Eq. (3.1) of the KOIL thesis.
    """
    scores = np.asarray(scores, dtype=float)
    positive = np.asarray(positive, dtype=bool)
    n_pos = int(positive.sum())
    n_neg = positive.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return math.nan
    if ties == "strict":
        below = np.searchsorted(np.sort(scores[~positive]), scores[positive], side="left")
        return float(below.sum() / (n_pos * n_neg))
    if ties != "half":
        raise ValueError(f"ties must be 'half' or 'strict', got {ties!r}")
    ranks = stats.rankdata(scores)
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def prbep(scores, positive) -> float:
    """Precision-recall break-even point of ``scores`` for the boolean labels ``positive``:
    the share of positives among the ``P`` best-scored samples, ``P`` the number of positives,
    the samples tied with the ``P``-th score counting in proportion (D-LASVM-17); 0 without
    positives.

    >>> prbep(np.array([0.9, 0.8, 0.5, 0.5, 0.1]), np.array([True, False, True, False, True]))
    0.5
    """
    scores = np.asarray(scores, dtype=float)
    positive = np.asarray(positive, dtype=bool)
    n_positive = int(positive.sum())
    if n_positive == 0:
        return 0.0
    cutoff = np.sort(scores)[scores.size - n_positive]
    above = scores > cutoff
    tied = scores == cutoff
    taken = n_positive - int(above.sum())
    hits = int((positive & above).sum()) + taken * int((positive & tied).sum()) / int(tied.sum())
    return hits / n_positive


#: Prec@t (R-precision), the novelty-detection name of the same quantity: the share of positives
#: among the ``t`` highest scores, ``t`` being the number of positives (Smola et al., 2009, used in
#: Chapter 5 of Miao, 2015).
precision_at_t = prbep


def binary_rates(y_true, y_pred, f_undefined: str = "nan") -> dict:
    """Sensitivity, specificity, F1, RS and G-mean of boolean predictions (positive = True).

    Rates are fractions. F1 = 2PR / (P + R); with no positive prediction the precision is
    undefined and F1 is ``nan`` (``f_undefined="nan"``) or 0 (``"zero"``). RS = sensitivity /
    specificity is ``nan`` when the specificity is 0; a rate is ``nan`` when its class is absent.
    """
    y_true, y_pred = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    tp = int(np.sum(y_true & y_pred))
    fn = int(np.sum(y_true & ~y_pred))
    tn = int(np.sum(~y_true & ~y_pred))
    fp = int(np.sum(~y_true & y_pred))
    sensitivity = tp / (tp + fn) if tp + fn else math.nan
    specificity = tn / (tn + fp) if tn + fp else math.nan
    if tp + fp == 0:
        f_measure = math.nan if f_undefined == "nan" else 0.0
    else:
        precision = tp / (tp + fp)
        total = precision + sensitivity
        f_measure = 2 * precision * sensitivity / total if total else 0.0
    rs = sensitivity / specificity if specificity else math.nan
    return {
        "sensitivity": sensitivity,
        "specificity": specificity,
        "f_measure": f_measure,
        "rs": rs,
        "g_mean": math.sqrt(sensitivity * specificity),
    }
