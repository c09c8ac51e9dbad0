"""Cost-sensitive summaries of a binary confusion matrix (seed 002, section 1)."""

from __future__ import annotations

from river import metrics

from ._docs import pos_val_docs

__all__ = ["Sensitivity", "Specificity", "WeightedCost", "WeightedSum"]


class _Rates(metrics.base.BinaryMetric):
    """Counts of the binary confusion matrix, keyed by whether a label is `pos_val`.

    River's binary metrics store booleans in their confusion matrix but look `pos_val` up in it,
    which gives 0 for a `pos_val` such as ``"fraud"``; these metrics read the boolean cells.
    """

    def __init__(self, pos_val=True):
        super().__init__(pos_val=pos_val)

    def _counts(self):
        cm = self.cm
        tp = cm.true_positives(True)
        fn = cm.false_negatives(True)
        fp = cm.false_positives(True)
        tn = cm.true_negatives(True)
        return tp, fn, fp, tn

    @property
    def sensitivity(self) -> float:
        """True-positive rate; 0 while no positive has been seen."""
        tp, fn, _, _ = self._counts()
        return tp / (tp + fn) if tp + fn else 0.0

    @property
    def specificity(self) -> float:
        """True-negative rate; 0 while no negative has been seen."""
        _, _, fp, tn = self._counts()
        return tn / (tn + fp) if tn + fp else 0.0


@pos_val_docs
class Sensitivity(_Rates):
    """Sensitivity (recall of the positive class): (Tp - Mp) / Tp.

    %(pos_val_section)s

    Examples
    --------

    Any label can be the positive one: here one fraud of two is caught.

    >>> from imbalance_stream.metrics import Sensitivity
    >>> metric = Sensitivity(pos_val="fraud")
    >>> for y_true, y_pred in [("fraud", "fraud"), ("fraud", "ok"), ("ok", "ok")]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()
    0.5

    """

    def get(self):
        return self.sensitivity


@pos_val_docs
class Specificity(_Rates):
    """Specificity (recall of the negative class): (Tn - Mn) / Tn.

    %(pos_val_section)s

    Examples
    --------

    Two of the three negatives are predicted negative:

    >>> from imbalance_stream.metrics import Specificity
    >>> metric = Specificity()
    >>> for y_true, y_pred in [(True, True), (False, True), (False, False), (False, False)]:
    ...     metric.update(y_true, y_pred)
    >>> round(metric.get(), 4)
    0.6667

    """

    def get(self):
        return self.specificity


@pos_val_docs
class WeightedSum(_Rates):
    """Weighted sum of sensitivity and specificity: alpha_p * sens + alpha_n * spec.

    The "sum" metric of cost-sensitive online classification; with ``alpha_p = 0.5`` it is the
    balanced accuracy. A class term is 0 while that class has not been seen, as in the reference
    code of the ACOG paper. Higher is better.

    Parameters
    ----------
    alpha_p
        Weight of sensitivity, in [0, 1]; specificity gets ``1 - alpha_p``.
    %(pos_val)s

    Examples
    --------

    Sensitivity 1/2 and specificity 1/2, whatever their weights:

    >>> from imbalance_stream.metrics import WeightedSum
    >>> metric = WeightedSum(alpha_p=0.7)
    >>> for y_true, y_pred in [(True, True), (True, False), (False, False), (False, True)]:
    ...     metric.update(y_true, y_pred)
    >>> metric.get()
    0.5

    """

    def __init__(self, alpha_p: float = 0.5, pos_val=True):
        if not 0.0 <= alpha_p <= 1.0:
            raise ValueError(f"alpha_p must lie in [0, 1], got {alpha_p!r}")
        super().__init__(pos_val=pos_val)
        self.alpha_p = alpha_p

    def get(self):
        return self.alpha_p * self.sensitivity + (1.0 - self.alpha_p) * self.specificity


@pos_val_docs
class WeightedCost(_Rates):
    """Weighted misclassification cost: c_p * M_p + c_n * M_n (lower is better).

    M_p counts the positives predicted negative (misses), M_n the negatives predicted positive
    (false alarms). The cumulative count over a stream, as in the ACOG paper's tables.

    Parameters
    ----------
    c_p
        Cost of a missed positive.
    c_n
        Cost of a false alarm.
    %(pos_val)s

    Examples
    --------

    A miss costs 0.9 and each of the two false alarms 0.1:

    >>> from imbalance_stream.metrics import WeightedCost
    >>> metric = WeightedCost(c_p=0.9, c_n=0.1)
    >>> for y_true, y_pred in [(True, False), (False, True), (False, True), (True, True)]:
    ...     metric.update(y_true, y_pred)
    >>> round(metric.get(), 6)
    1.1

    """

    _fmt = ",.4f"

    def __init__(self, c_p: float = 0.9, c_n: float = 0.1, pos_val=True):
        if c_p < 0 or c_n < 0:
            raise ValueError(f"costs must be non-negative, got c_p={c_p!r}, c_n={c_n!r}")
        super().__init__(pos_val=pos_val)
        self.c_p = c_p
        self.c_n = c_n

    @property
    def bigger_is_better(self):
        return False

    def get(self):
        _, fn, fp, _ = self._counts()
        return self.c_p * fn + self.c_n * fp
