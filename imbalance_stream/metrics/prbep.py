"""Precision-recall break-even point over the whole stream."""

from __future__ import annotations

from sortedcontainers import SortedList

from ._docs import pos_val_docs
from .ranking import RankingMetric

__all__ = ["PRBEP"]


@pos_val_docs
class PRBEP(RankingMetric):
    """Precision-recall break-even point of every score seen so far (exact, O(log n) per sample).

    The break-even point is where precision equals recall: ranking the samples by score and
    calling the top ``P`` positive, with ``P`` the number of positives, gives as many false
    positives as false negatives, so precision = recall = (positives among the top ``P``) / ``P``.
    The LASVM thesis (Ertekin 2009, chapters 4-6) reports it beside the AUC; it does not say how
    ties at the cutoff are broken (D-LASVM-17): here the samples tied with the ``P``-th score
    count in proportion, as if the tie were broken at random (its expectation), so the value does
    not depend on the arrival order. While no positive has been seen, ``get`` returns 0.

    The score of a sample is the probability of ``pos_val`` when the model gives a dict (as
    ``predict_proba_one`` does) or the number itself (a ``decision_one`` margin).

    %(pos_val_section)s

    Examples
    --------

    Three positives: the break-even point is the share of them among the three highest scores.

    >>> from imbalance_stream.metrics import PRBEP
    >>> metric = PRBEP()
    >>> for y_true, score in [(0, .1), (0, .4), (1, .35), (1, .8), (1, .9)]:
    ...     metric.update(y_true, score)
    >>> metric.get()  # the top 3 hold 2 of the 3 positives
    0.6666666666666666

    Beside the exact AUC, as the LASVM thesis reports them, in a progressive validation:

    >>> from river import datasets, evaluate, linear_model, preprocessing
    >>> from imbalance_stream.metrics import ExactROCAUC
    >>> model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, PRBEP() + ExactROCAUC())
    PRBEP: 87.41%
    ExactROCAUC: 95.34%

    """

    def __init__(self, pos_val=True):
        super().__init__(pos_val=pos_val)
        self._scores = SortedList()
        self._positive_scores = SortedList()

    def update(self, y_true, y_pred, w=1.0):
        is_positive, score = self._ranked(y_true, y_pred, w)
        self._scores.add(score)
        if is_positive:
            self._positive_scores.add(score)

    def revert(self, y_true, y_pred, w=1.0):
        is_positive, score = self._ranked(y_true, y_pred, w)
        self._scores.remove(score)
        if is_positive:
            self._positive_scores.remove(score)

    def get(self) -> float:
        n_positive = len(self._positive_scores)
        if not n_positive:
            return 0.0
        scores, positives = self._scores, self._positive_scores
        cutoff = scores[len(scores) - n_positive]  # the P-th largest score
        above = len(scores) - scores.bisect_right(cutoff)
        tied = scores.bisect_right(cutoff) - scores.bisect_left(cutoff)
        positive_above = n_positive - positives.bisect_right(cutoff)
        positive_tied = positives.bisect_right(cutoff) - positives.bisect_left(cutoff)
        taken = n_positive - above  # how many of the tied samples the top P includes
        return (positive_above + taken * positive_tied / tied) / n_positive
