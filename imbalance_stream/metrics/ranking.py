"""The common part of the metrics that rank scores (:class:`ExactROCAUC`, :class:`PRBEP`)."""

from __future__ import annotations

import math

from river import base, metrics

from imbalance_stream.base.binary import check_label

__all__ = ["RankingMetric"]


class RankingMetric(metrics.base.BinaryMetric):
    """A binary metric over the ranking of scores: it reads the probability of ``pos_val`` when
    the model gives a dict (as ``predict_proba_one`` does) or the number itself (a
    ``decision_one`` margin, an anomaly detector's ``score_one``), so it works with classifiers
    and anomaly detectors alike; it needs no hard labels and takes no sample weights."""

    @property
    def requires_labels(self):
        return False

    @property
    def works_with_weights(self):
        return False

    def works_with(self, model) -> bool:
        return super().works_with(model) or isinstance(
            model, (base.AnomalyDetector, base.AnomalyFilter)
        )

    def _ranked(self, y_true, y_pred, w) -> tuple[bool, float]:
        """``(is_positive, score)`` of one sample, or a ValueError for a weight, a NaN score or a
        value that is no class label."""
        name = type(self).__name__
        if w != 1.0:
            raise ValueError(f"{name} does not support sample weights")
        score = y_pred.get(self.pos_val, 0.0) if isinstance(y_pred, dict) else y_pred
        score = float(score)
        if math.isnan(score):
            raise ValueError(f"{name} cannot rank a NaN score")
        return check_label(y_true) == self.pos_val, score
