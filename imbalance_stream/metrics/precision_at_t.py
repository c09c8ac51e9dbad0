"""Prec@t (R-precision) over a stream."""

from __future__ import annotations

from .prbep import PRBEP

__all__ = ["PrecisionAtT"]


class PrecisionAtT(PRBEP):
    """Prec@t: the share of positives among the ``t`` highest scores seen, ``t`` being the number
    of positives seen (R-precision, the novelty-detection measure of Smola et al., 2009, used in
    Chapter 5 of Miao, 2015).

    It is the precision-recall break-even point under the name of the novelty-detection
    literature, computed by :class:`PRBEP` (exact, O(log n) per sample, ties at the cut counted in
    proportion, 0.0 before the first positive). Scores of any range are ranked: an anomaly
    detector's ``score_one``, a ``decision_one`` margin, or the probability of ``pos_val``.

    Parameters
    ----------
    pos_val
        Value to treat as "positive" (the novelty).

    Examples
    --------

    Three novelties among five scores, so ``t = 3``: 0.8, then the two 0.4s (one a novelty) and
    0.35 for the last place, a tie counted in proportion:

    >>> from imbalance_stream.metrics import PrecisionAtT
    >>> metric = PrecisionAtT(pos_val="novel")
    >>> labels = ["usual", "usual", "novel", "novel", "novel"]
    >>> for y_true, score in zip(labels, [.1, .4, .35, .8, .4]):
    ...     metric.update(y_true, score)
    >>> metric.get()
    0.6666666666666666

    """
