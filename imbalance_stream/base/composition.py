"""What a composed model is made of: the estimator at the end of a pipeline or inside River's
anomaly filters, whether a model is an anomaly detector, whether it watches the unlabelled
arrivals. One rule for the scenario checks,
the prequential runner, the event-log replay and the importance-weighting wrapper."""

from __future__ import annotations

from river import base, compose

__all__ = ["is_anomaly_detector", "last_step", "watches_arrivals"]


def last_step(model):
    """The estimator that learns: a pipeline's last step (recursively), the detector inside one
    of River's anomaly filters (``QuantileFilter``, ``ThresholdFilter``), else ``model``."""
    while True:
        if isinstance(model, compose.Pipeline):
            model = list(model.steps.values())[-1]
        elif isinstance(model, base.AnomalyFilter):
            model = model.anomaly_detector
        else:
            return model


def is_anomaly_detector(model) -> bool:
    """Whether ``model`` ends in an anomaly detector: River's kind, or anything that scores
    (``score_one``) without predicting (no ``predict_one``)."""
    final = last_step(model)
    return isinstance(final, base.AnomalyDetector) or (
        hasattr(final, "score_one") and not hasattr(final, "predict_one")
    )


def watches_arrivals(model) -> bool:
    """Whether ``model`` is a classifier that is shown the unlabelled arrivals (``observe_one``:
    a re-weighter's target window), as the prequential runner and the replay show them. Anomaly
    detectors' ``observe_one`` is their two-sample mode's, not this."""
    return isinstance(model, base.Classifier) and getattr(model, "observe_one", None) is not None
