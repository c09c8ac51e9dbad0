"""Running one model of a replay, whatever its kind: a classifier (``predict_proba_one`` and
``predict_one``, then ``learn_one``), an active learner (River's active protocol: the prediction
comes with whether the model wants the label), an anomaly detector (``score_one``), and a model
that watches the unlabelled arrivals (``observe_one``)."""

from __future__ import annotations

from river.active.base import ActiveLearningClassifier

from imbalance_stream.base import (
    InvalidFeature,
    UnknownLabel,
    is_anomaly_detector,
    last_step,
    watches_arrivals,
)

__all__ = ["MODEL_ERRORS", "ModelRunner"]

#: Errors a model raises before any state changes: the row is rejected for that model.
MODEL_ERRORS = (InvalidFeature, UnknownLabel)


class ModelRunner:
    """Predict and learn with one model, whatever its kind."""

    def __init__(self, model, positive):
        final = last_step(model)
        self.detector = is_anomaly_detector(model)
        # a re-weighter's target window: shown every row as it is predicted, as in a
        # prequential run
        self.observes = watches_arrivals(model)
        self.supervised = getattr(model, "_supervised", True)
        # River's active protocol: predictions come with whether the model wants the label
        self.active = isinstance(final, ActiveLearningClassifier)
        self.positive = positive

    def predict(self, model, x):
        """``(prediction, score, what the metrics take, whether the label is wanted)``."""
        if self.detector:
            score = model.score_one(x)
            return "", score, score, True
        if self.active:
            # one call: asking may change the learner's state (a count, a pool of recent scores)
            proba, ask = model.predict_proba_one(x)
            prediction = max(proba, key=proba.get) if proba else None
        else:
            proba, ask = model.predict_proba_one(x), True
            prediction = model.predict_one(x)
        if self.observes:
            model.observe_one(x)
        score = proba.get(self.positive, 0.0) if proba else ""
        return prediction, score, (prediction, proba), ask

    def learn(self, model, x, y):
        if self.supervised:
            model.learn_one(x, y)
        else:
            model.learn_one(x)
