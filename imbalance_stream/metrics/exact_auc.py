"""Exact area under the ROC curve over the whole stream."""

from __future__ import annotations

from sortedcontainers import SortedList

from ._docs import pos_val_docs
from .ranking import RankingMetric

__all__ = ["ExactROCAUC"]


@pos_val_docs
class ExactROCAUC(RankingMetric):
    """Exact ROC AUC of every score seen so far, updated in O(log n) per sample.

    River's `metrics.ROCAUC` discretises the ROC curve over a few thresholds in [0, 1]: a fine
    approximation for calibrated probabilities, but not the number a paper reports, and useless for
    raw decision scores. This metric keeps the scores of each class in a sorted list and maintains
    the Mann-Whitney count of correctly ordered (positive, negative) pairs, ties counting one half,
    so that `get` is exactly ``sklearn.metrics.roc_auc_score`` on the scores seen. Memory grows with
    the stream (one float per sample); for a bounded window use River's `metrics.RollingROCAUC`.

    The score of a sample is the probability of `pos_val` when the model gives a dict (as
    `predict_proba_one` does) or the number itself (e.g. a `decision_one` margin or an anomaly
    score). While only one class has been seen the AUC is undefined, and `get` returns 0.5.

    %(pos_val_section)s

    Examples
    --------

    Beside River's ``metrics.ROCAUC``, which reads the curve at a few thresholds, in a
    progressive validation:

    >>> from river import datasets, evaluate, linear_model, metrics, preprocessing
    >>> from imbalance_stream.metrics import ExactROCAUC

    >>> model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    >>> both = metrics.ROCAUC() + ExactROCAUC()
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, both)
    ROCAUC: 95.07%
    ExactROCAUC: 95.34%

    Five scores, one positive ranked below a negative and one tied with another:

    >>> metric = ExactROCAUC()
    >>> for y_true, score in zip([0, 0, 1, 1, 1], [.1, .4, .35, .8, .4]):
    ...     metric.update(y_true, score)
    >>> metric.get()
    0.75

    """

    def __init__(self, pos_val=True):
        super().__init__(pos_val=pos_val)
        self._positive_scores = SortedList()
        self._negative_scores = SortedList()
        self._ordered_pairs = 0.0  # (positive, negative) pairs ranked correctly, ties count 1/2

    @staticmethod
    def _below(scores: SortedList, score: float) -> float:
        """How many of ``scores`` are below ``score``, ties counting one half."""
        left = scores.bisect_left(score)
        return left + 0.5 * (scores.bisect_right(score) - left)

    def _pairs(self, is_positive: bool, score: float) -> float:
        if is_positive:
            return self._below(self._negative_scores, score)
        return len(self._positive_scores) - self._below(self._positive_scores, score)

    def update(self, y_true, y_pred, w=1.0):
        is_positive, score = self._ranked(y_true, y_pred, w)
        self._ordered_pairs += self._pairs(is_positive, score)
        (self._positive_scores if is_positive else self._negative_scores).add(score)

    def revert(self, y_true, y_pred, w=1.0):
        is_positive, score = self._ranked(y_true, y_pred, w)
        (self._positive_scores if is_positive else self._negative_scores).remove(score)
        self._ordered_pairs -= self._pairs(is_positive, score)

    def get(self) -> float:
        n_pairs = len(self._positive_scores) * len(self._negative_scores)
        if not n_pairs:
            return 0.5
        return self._ordered_pairs / n_pairs
