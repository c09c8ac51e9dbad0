"""Metrics that River lacks, for streams where the interesting class is rare.

Each is a River metric (``update``, ``revert``, ``get``, ``works_with``) and works in
``river.evaluate.progressive_val_score``:

* :class:`ExactROCAUC`: whole-stream ROC AUC, exact (River's ``ROCAUC`` approximates it), on
  scores of any range (anomaly scores, margins, probabilities);
* :class:`PrecisionAtT`: Prec@t (R-precision), the share of positives among the ``t`` highest
  scores, ``t`` being the number of positives;
* :class:`PRBEP`: the precision-recall break-even point, exact (the same quantity as Prec@t,
  under the name of the SVM literature);
* :class:`WeightedSum`: alpha_p * sensitivity + alpha_n * specificity (balanced accuracy at 0.5);
* :class:`WeightedCost`: c_p * missed positives + c_n * false alarms;
* :class:`Sensitivity`, :class:`Specificity`: the two rates, correct for any ``pos_val``.

:mod:`imbalance_stream.metrics.batch` computes the same quantities on whole arrays
(:func:`~imbalance_stream.metrics.batch.roc_auc`,
:func:`~imbalance_stream.metrics.batch.precision_at_t`,
:func:`~imbalance_stream.metrics.batch.binary_rates`).
"""

from . import batch
from .exact_auc import ExactROCAUC
from .prbep import PRBEP
from .precision_at_t import PrecisionAtT
from .weighted import Sensitivity, Specificity, WeightedCost, WeightedSum

__all__ = [
    "PRBEP",
    "ExactROCAUC",
    "PrecisionAtT",
    "Sensitivity",
    "Specificity",
    "WeightedCost",
    "WeightedSum",
    "batch",
]
