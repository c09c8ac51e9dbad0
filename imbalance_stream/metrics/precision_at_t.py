"""Prec@t (R-precision) over a stream."""

from __future__ import annotations

import numpy as np

from .batch import precision_at_t
from .exact_auc import ExactROCAUC

__all__ = ["PrecisionAtT"]


class PrecisionAtT(ExactROCAUC):
    """Prec@t: the share of positives among the ``t`` highest scores seen, ``t`` being the number
    of positives seen (R-precision, the novelty-detection measure of Chapter 5 of Miao, 2015).

    Like :class:`ExactROCAUC` it ranks scores of any range (an anomaly detector's ``score_one``, a
    ``decision_one`` margin, or the probability of ``pos_val``) and keeps every score seen, one
    sorted list per class; ties at the cut share the remaining places in proportion
    (:func:`~imbalance_stream.metrics.batch.precision_at_t`). 0.0 before the first positive.

    Parameters
    ----------
    pos_val
        Value to treat as "positive" (the novelty).

    Examples
    --------

    >>> from imbalance_stream.metrics import PrecisionAtT
    >>> metric = PrecisionAtT()
    >>> for y_true, score in zip([0, 0, 1, 1, 1], [.1, .4, .35, .8, .4]):
    ...     metric.update(y_true, score)
    >>> metric.get()  # t = 3: 0.8, then the two 0.4s (one a positive) and 0.35 for the last place
    0.6666666666666666

    """

    def get(self) -> float:
        n_positive = len(self._positive_scores)
        if not n_positive:
            return 0.0
        scores = np.concatenate([np.asarray(self._positive_scores), self._negative_scores])
        positive = np.arange(scores.size) < n_positive
        return precision_at_t(scores, positive)
