"""Running one model of a replay, whatever its kind: a classifier (``predict_proba_one`` and
``predict_one``, then ``learn_one``), an active learner (River's active protocol: the prediction
comes with whether the model wants the label), an anomaly detector (``score_one``), and a model
that watches the unlabelled arrivals (``observe_one``)."""

from __future__ import annotations

import numpy as np
from river import base, compose
from river.active.base import ActiveLearningClassifier

from imbalance_stream.base import (
    InvalidFeature,
    UnknownLabel,
    is_anomaly_detector,
    last_step,
    watches_arrivals,
)

__all__ = ["MODEL_ERRORS", "ModelRunner", "StepsRunner", "predicts_by_argmax", "steps_taken"]

#: Errors a model raises before any state changes: the row is rejected for that model.
MODEL_ERRORS = (InvalidFeature, UnknownLabel)


#: Where the replay takes a classifier's predict_one from its probabilities: River's linear
#: classifiers, whose predictions leave them untouched, behind River's preprocessing and
#: composition steps, whose transform_one leaves them untouched. (A model whose prediction
#: changes its state, as River's Hoeffding trees' does, is asked both questions.)
_PURE_CLASSIFIERS = ("river.linear_model.",)
_PURE_TRANSFORMERS = ("river.preprocessing.", "river.compose.")


def steps_taken(positive, negative, is_positive: bool, p: float) -> tuple:
    """A prediction of a steps run as ``predict_one`` and ``predict_proba_one`` give it, the form
    the metrics take: ``(label, {positive: p, negative: 1 - p})``."""
    return (positive if is_positive else negative), {positive: p, negative: 1.0 - p}


def predicts_by_argmax(model) -> bool:
    """Whether the replay may take ``model.predict_one(x)`` from ``model.predict_proba_one(x)``:
    River's default predict_one (the label of highest probability), on a classifier whose
    predictions leave its state untouched, alone or at the end of a pipeline of such steps; the
    replay then runs the model once per prediction instead of twice. While River's
    ``learn_during_predict`` is on, each call also teaches the unsupervised steps, so both calls
    are made then."""
    steps = [model]
    if isinstance(model, compose.Pipeline):
        kind = type(model)
        if (
            kind.predict_one is not compose.Pipeline.predict_one
            or kind.predict_proba_one is not compose.Pipeline.predict_proba_one
        ):
            return False
        steps = list(model.steps.values())
        if not all(_from(step, _PURE_TRANSFORMERS) for step in steps[:-1]):
            return False
    final = steps[-1]
    return (
        isinstance(final, base.Classifier)
        and type(final).predict_one is base.Classifier.predict_one
        and _from(final, _PURE_CLASSIFIERS)
    )


def _from(step, modules) -> bool:
    return type(step).__module__.startswith(modules) and not isinstance(step, compose.Pipeline)


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
        self.argmax = predicts_by_argmax(model)

    def predict(self, model, ev):
        """``(prediction, score, what the metrics take, whether the label is wanted)``."""
        x = ev.x
        if self.detector:
            score = model.score_one(x)
            return "", score, score, True
        if self.active:
            # one call: asking may change the learner's state (a count, a pool of recent scores)
            proba, ask = model.predict_proba_one(x)
            prediction = max(proba, key=proba.get) if proba else None
        else:
            proba, ask = model.predict_proba_one(x), True
            if self.argmax and not compose.Pipeline._LEARN_UNSUPERVISED_DURING_PREDICT:
                # what River's predict_one computes from the same probabilities
                prediction = max(proba, key=proba.get) if proba else None
            else:
                prediction = model.predict_one(x)
        if self.observes:
            model.observe_one(x)
        score = proba.get(self.positive, 0.0) if proba else ""
        return prediction, score, (prediction, proba), ask

    def learn(self, model, ev, y):
        if self.supervised:
            model.learn_one(ev.x, y)
        else:
            model.learn_one(ev.x)


class StepsRunner(ModelRunner):
    """A classifier with a steps path (``has_steps_path``: ACOG, AROW, SACOG and the first-order
    baselines), run in jitted runs of steps.

    The cell hands it each batch's steps in order (:meth:`plan`: the answers and questions as
    :class:`~imbalance_stream.evaluate.delayed.DelayedLabels` orders them) and then calls
    :meth:`predict` and :meth:`learn` step by step, as for any model. The first call of a run
    computes the run at once: from that step on, every step the cell will make with this model
    (a label not lost, a row it did not refuse), up to a question after which the cell may write
    a checkpoint (so a checkpoint holds the model exactly as the dict path would have it) or a
    row whose features are not the log's columns; :meth:`BinaryClassifier.run_steps` runs them
    and the calls that follow take their results. A step the run cannot vouch for (the model
    would refuse it, or it would overflow) goes through ``learn_one`` / ``predict_one``, which
    raise what they raise. The outputs are the dict path's, bit for bit
    (``tests/test_replay_steps.py``).
    """

    #: Longest run, in steps; a run that stops early starts the next one shorter, so a log whose
    #: rows a model keeps refusing costs little more than the dict path.
    LONGEST = 4096

    def __init__(self, model, positive, skip, room):
        super().__init__(model, positive)
        self.names: tuple | None = None  # the log's columns, from its first row
        self.skip = skip  # the rows the model refused when predicting: their labels are not learned
        self.room = room  # questions the cell can ask before it may write a checkpoint
        self.flat: list = []
        self.at = 0  # the next step of ``flat`` not yet run
        self.run: list = []  # the steps of the current run, results in ``results``
        self.next = 0
        self.results: tuple = ((), (), None)
        self.span = 256

    def plan(self, steps) -> None:
        """The batch's steps: ``(answers, event)`` pairs, the event's question after the
        answers."""
        flat: list = []
        for answers, ev in steps:
            flat.extend((True, answer) for answer in answers)
            flat.append((False, ev))
        self.flat, self.at, self.run, self.next = flat, 0, [], 0

    def predict(self, model, ev):
        k = self._step(model, False, ev)
        if k is None:
            return super().predict(model, ev)
        decisions, probas, run = self.results
        taken = steps_taken(model.positive, run.negative_at(k), decisions[k] >= 0.0, probas[k])
        return taken[0], taken[1].get(self.positive, 0.0), taken, True

    def learn(self, model, ev, y):
        if self._step(model, True, ev) is None:
            super().learn(model, ev, y)

    def _step(self, model, learn, ev):
        """The step's place in the current run (its result), or None: through the dict path."""
        if self.next < len(self.run):
            k = self.next
            if self.run[k] != (learn, ev.seq):
                raise RuntimeError(f"replay step out of order at row {ev.row}")  # a bug
            self.next += 1
            return k
        flat = self.flat
        # the steps the cell does not make with this model (lost labels, refused rows)
        while self.at < len(flat) and (flat[self.at][1] is not ev or flat[self.at][0] != learn):
            self.at += 1
        if self.at == len(flat):  # a step after the batch's (the last labels): the dict path
            return None
        if self.names is None:
            self.names = tuple(ev.x)
        places = self._gather()
        if not places:
            self.at += 1
            return None
        steps = [flat[k] for k in places]
        rows = np.array([tuple(e.x.values()) for _, e in steps], dtype=np.float64)
        learns = np.array([flag for flag, _ in steps], dtype=bool)
        labels = [e.label if flag else None for flag, e in steps]
        run = model.run_steps(rows, self.names, learns, labels)
        done = run.done
        if done == len(steps):
            self.span = min(self.LONGEST, 2 * self.span)
        else:  # the next run starts at the step this one stopped at
            self.span = max(16, 2 * done)
            self.at = places[done]
        if done == 0:  # the model refuses the step: the dict path raises what it raises
            self.at += 1
            return None
        self.run = [(flag, e.seq) for flag, e in steps[:done]]
        self.results = (run.decisions.tolist(), run.probas.tolist(), run)
        self.next = 1
        return 0

    def _gather(self) -> list[int]:
        """The places in ``flat`` of the next run's steps, from ``at`` on (``at`` then moves past
        them): the cell's steps with this model, up to the question after which the cell may
        write a checkpoint, and before a row whose features are not the log's columns."""
        flat, names, skip = self.flat, self.names, self.skip
        places: list[int] = []
        room = self.room()
        end = min(len(flat), self.at + self.span)
        k = self.at
        while k < end:
            learn, ev = flat[k]
            if tuple(ev.x) != names:  # (an answer too: its row was asked through the dict path)
                break
            if learn:
                if ev.label_time is not None and ev.seq not in skip:
                    places.append(k)
            else:
                places.append(k)
                room -= 1
                if room == 0:  # a checkpoint may follow this question
                    k += 1
                    break
            k += 1
        self.at = k
        return places
