"""One cell of a replay: the rows of some entities (or all rows, for the global models) replayed in
time order as River's :func:`river.stream.simulate_qa` orders them, checkpointed, resumable.

Every cell reads the whole log (so each decides the same rows are bad, and gives each valid row the
same place ``seq`` in replay order) and keeps the rows of its entities. Each row is then a question
at its event time (predict with every model as it is then; a model that watches the arrivals,
``observe_one``, is shown the row) and an answer at its label time (learn). An answer comes out
before the first question whose time is at or after its label time, answers in order of label time
and, on ties, of their questions: ``simulate_qa``'s order, which
:class:`~imbalance_stream.evaluate.delayed.DelayedLabels` computes for a batch of rows at once
(:mod:`~imbalance_stream.replay.reading` reads ``BATCH`` rows ahead of the replay; the
prequential runner's delayed loop uses the same executor). Whether an answer comes before a
question depends on those two times only, so a cell holding a subset of the entities sees, for
each of them, exactly what a run over all rows would.
A row that cannot be read is rejected where ``simulate_qa`` would meet it: after the question
before it, before the answers due ahead of the next question.

Models. Each model runs through a runner (:mod:`imbalance_stream.replay.runners`): one call per
question and answer, or, for a global model with a steps path (ACOG, AROW, SACOG, the
first-order baselines) under ``replay.compiled``, jitted runs over the batch's steps
(:class:`~imbalance_stream.replay.runners.StepsRunner`, planned with each batch) whose results the
same calls then take: the loop below is the same either way.

Metrics. River's progressive validation updates a metric when the label of a prediction arrives.
A cell that sees every row of its models (the global models, and every model of a run in one
partition) does that itself: each label is folded into its model's
:class:`~imbalance_stream.replay.tracking.MetricTrack` (cumulative, and per window of event time)
as it arrives. Per-entity models spread over several partitions have their labels in several
cells, and a metric must take them in label order over all the cells, so those cells record each
label instead (an answer record: label time, the question's place, the model, the event time, the
label and the prediction) and the merge folds the records of all the cells, in label order, into
the same tracks.

A cell writes its part files into ``<out>/.replay/``: predictions (in replay order), answer
records (for the merge, in label order), rejects, curve rows (in label order) and, at the end,
per-entity sizes. The merge (:mod:`imbalance_stream.replay.merge`) puts the cells' parts together.

Checkpoints. After a question, every ``checkpoint_every`` rows or ``checkpoint_seconds``, the part
files are flushed and the cell's state (the models, the rows whose labels are pending with their
predictions, the metric tracks, the counters, the reader position and the sizes of the part
files) is pickled to a temporary file, synced, and renamed over ``cell<k>.ckpt``
(``os.replace``: a reader sees the old checkpoint or the new one, never half of one). A resumed
cell truncates its part files to the recorded sizes, skips the rows already replayed, and queues
the pending rows' answers again (by label time, then row: the order the queue held them in). The
reader's position, the number of valid rows and the last time are recorded as the rows are
replayed, not as they are read ahead, so a checkpoint never counts a row it has not replayed.
The run then continues exactly as if it had never stopped. (For the records a cell leaves to the
merge, its checkpoint holds the size of the answer file: the metric state they make is the fold of
exactly those records, which the merge does once every cell has finished.)

Checkpoints are pickles: load only those your own runs wrote (unpickling runs code).
"""

from __future__ import annotations

import os
import pickle
import sys
import time

from imbalance_stream.base import (
    REFUSALS,
)
from imbalance_stream.evaluate.collector import fewer_collections
from imbalance_stream.evaluate.delayed import DelayedLabels

from .cells import Cell, CellState, load_checkpoint
from .columnar import ColumnarCell, columnar_fits
from .config import ReplayError
from .events import NEVER, text
from .parts import (
    PARTS,
    PartWriter,
    PredictionLine,
    RejectLine,
    open_parts,
    part_paths,
    prediction_fields,
    write_answers,
    write_atomic,
    write_entities,
)
from .reading import END, Batch, CellReader, partition_of
from .runners import MODEL_ERRORS, ModelRunner, StepsRunner
from .tracking import DueLabels

__all__ = ["partition_of", "run_cell"]

#: Whether cells that can run columnar (:mod:`.columnar`) do; the row-by-row replay is the
#: reference the columnar one is tested against.
COLUMNAR = True
#: A log whose first this many rows are all unreadable does not fit its scenario (a column
#: misnamed, labels written otherwise): the replay stops instead of rejecting every row.
NOTHING_READ_AFTER = 1000
_ANSWER_BATCH = 4096


def _checkpoint_of(cell, paths):
    """The state of the cell's last checkpoint, when resuming from one that matches."""
    if not (cell.resume and os.path.exists(paths["ckpt"])):
        return None
    state = load_checkpoint(paths["ckpt"])
    if state.fingerprint != cell.fingerprint:
        raise ReplayError(
            f"the checkpoint in {cell.work} is from another scenario or log; "
            "run without --resume to start over"
        )
    return state


def run_cell(cell: Cell) -> dict:
    """Replay one cell (a module-level function, so processes and Dask workers can run it), from
    its checkpoint when resuming; returns its :meth:`CellState.summary`."""
    paths = part_paths(cell)
    state = _checkpoint_of(cell, paths)
    if state is not None and state.done:
        return state.summary()
    resumed = state is not None
    if state is None:
        state = CellState.fresh(cell)
    files = open_parts(paths, state, resumed, cell.alone)
    try:
        with fewer_collections():
            loop = _CellRun(cell, state, files, paths, resumed)
            if not (
                COLUMNAR
                and not resumed
                and columnar_fits(cell, loop.templates, loop.text_labels)
                and ColumnarCell(loop).run()
            ):
                loop.run()  # the whole log, or the rest from where the columnar replay stopped
    finally:
        for handle in files.values():
            handle.close()
    return state.summary()


def _progress_bar(cell, state):
    if not cell.progress:
        return None
    from tqdm.auto import tqdm

    return tqdm(
        desc=cell.description,
        unit=" rows",
        initial=state.position,
        mininterval=0.1 if sys.stderr.isatty() else 5.0,
        leave=False,
    )


class _CellRun:
    """The replay loop of one cell over ``state`` (a fresh one or a checkpoint's)."""

    def __init__(self, cell, state, files, paths, resumed):
        scenario = cell.scenario
        self.cell = cell
        self.log = scenario.log
        self.state = state
        self.files = files
        self.paths = paths
        self.resumed = resumed
        self.open_log = None  # the columnar replay's reading of the log, if it ran first
        all_slots = scenario.slots()
        self.owned = cell.slots  # indices into all_slots
        self.slots = [all_slots[i] for i in self.owned]
        self.labels = [label for label, _, _ in self.slots]
        self.per_entity = [mode == "entity" for _, _, mode in self.slots]
        built = scenario.make_models()
        self.templates = [built[name] for _, name, _ in self.slots]
        self.kinds = [self._runner(j, model) for j, model in enumerate(self.templates)]
        self.planned = [kind for kind in self.kinds if isinstance(kind, StepsRunner)]
        # a prediction written as the log writes its label: River's True is the log's 1
        self.as_logged = {label: label for label in self.log.labels or ()}
        self._label_texts: dict = {}
        self.text_labels = bool(self.log.labels) and all(
            isinstance(label, str) for label in self.log.labels
        )
        for j, model in enumerate(state.models):
            if model is None:  # a global model, before its first checkpoint
                state.models[j] = self.templates[j].clone()
        makers = scenario.slot_metrics(built)
        self.make_metrics = [makers[midx] for midx in self.owned]
        self.pred = PartWriter(files["pred"], prediction_fields(cell.alone))
        self.rej, self.cur = PartWriter(files["rej"]), PartWriter(files["cur"])
        self.answers: list = []
        self.due = DueLabels(len(self.slots))  # labels arrived, not yet in their metrics
        self.pending = {ev.seq: (ev, preds) for ev, preds in state.pending}
        self.since_save = 0
        self.last_save = time.monotonic()
        self.last_reject = 0
        self.bar = _progress_bar(cell, state)

    def _runner(self, j, model):
        """The model's runner: jitted runs of steps for a global model with a steps path over a
        log of plain numbers (``replay.compiled``), else one call per step."""
        if (
            self.cell.scenario.compiled
            and not self.per_entity[j]
            and getattr(model, "has_steps_path", False)
            and not self.log.reader.types
        ):
            return StepsRunner(model, self.log.positive, self.state.skip[j], self._room)
        return ModelRunner(model, self.log.positive)

    def _room(self) -> int:
        """The questions the cell can ask before it may write a checkpoint (see _question)."""
        every, seconds = self.cell.checkpoint_every, self.cell.checkpoint_seconds
        room = StepsRunner.LONGEST
        if every is not None:
            room = min(room, every - self.since_save)
        if seconds is not None:
            room = min(room, 256 - self.since_save % 256)
        return max(room, 1)

    def run(self):
        state = self.state
        # simulate_qa's queue: a resumed run's pending labels, by label time then row
        queued = sorted(
            self.pending.values(), key=lambda item: (_answer_time(item[0]), item[0].seq)
        )
        labels = DelayedLabels((_answer_time(ev), ev) for ev, _ in queued)
        try:
            reader = CellReader(
                self.cell, state, self.bar, self.resumed, self._reject, COLUMNAR, self.open_log
            )
            for batch in reader.batches():
                self._execute(batch, labels)
            for ev in labels.drain():  # the end of the log: every answer comes out
                self._answer(ev, _label_of(ev))
            self._fold_due()
        except BaseException:
            # whatever stops the replay, the rows rejected so far reach rejected.csv
            self.rej.flush()
            raise
        finally:
            if self.bar is not None:
                self.bar.close()
        if state.seq == 0 and state.read_rejects:
            raise self._nothing_read(f"every row of the log ({state.read_rejects})")
        self.finish()

    def finish(self) -> None:
        """The log is replayed: the per-entity sizes, and the last checkpoint, marked done."""
        state = self.state
        state.done = True
        write_entities(self.paths["ent"], self.slots, self.owned, state.models, state.entities)
        self.save_checkpoint()

    def _execute(self, batch: Batch, labels: DelayedLabels) -> None:
        """Replay one batch in simulate_qa's order. Before each of the cell's rows: the rows
        rejected since the one before (as they were read), then the labels due, then the row's
        question; at the batch's end, the rejects after its last row and, for a log that stops
        there (rows out of order), the stop."""
        events = batch.events
        steps = labels.feed_grouped(
            events, [ev.time for ev in events], [_answer_time(ev) for ev in events]
        )
        for runner in self.planned:
            runner.plan(steps)
        for k, (answers, ev) in enumerate(steps):
            for reject in batch.rejects.get(k, ()):
                self._reject(*reject)
            for answer in answers:
                self._answer(answer, _label_of(answer))
            self._question(ev)
        for reject in batch.rejects.get(len(events), ()):
            self._reject(*reject)
        self._fold_due()
        if batch.end is not None:
            self.state.seq = batch.valid
            if isinstance(batch.end, ReplayError):
                raise batch.end
            if batch.end is not END:
                self.state.damaged = batch.end

    # ---- the rows ----------------------------------------------------------------------------

    # ---- questions and answers ---------------------------------------------------------------

    def _model(self, j, ev):
        model = self.state.models[j]
        return model[ev.entity] if self.per_entity[j] else model

    def _question(self, ev):
        preds = [self._predict(j, midx, ev) for j, midx in enumerate(self.owned)]
        self.pending[ev.seq] = (ev, preds)
        state = self.state
        state.position, state.seq, state.last_time = ev.pos, ev.seq + 1, ev.time
        self.since_save += 1
        if self.checkpoint_due(self.since_save % 256 == 0):
            self.save_checkpoint()

    def checkpoint_due(self, read_clock: bool) -> bool:
        """Whether a checkpoint is due now: ``checkpoint_every`` questions since the last one, or
        ``checkpoint_seconds`` (the clock read only when ``read_clock``: every 256 questions of
        this loop, every block of the columnar replay)."""
        every, seconds = self.cell.checkpoint_every, self.cell.checkpoint_seconds
        if every is not None and self.since_save >= every:
            return True
        return seconds is not None and read_clock and time.monotonic() - self.last_save >= seconds

    def _predict(self, j, midx, ev):
        """Model ``j``'s prediction of ``ev``, written out; what its metrics take, or None when
        the model rejects the row."""
        state = self.state
        if self.per_entity[j]:
            stats = state.entities[j].get(ev.entity)
            if stats is None:
                stats = state.entities[j][ev.entity] = [0, 0]
                state.models[j][ev.entity] = self.templates[j].clone()
            stats[0] += 1
        counts = state.counts
        try:
            prediction, score, taken, ask = self.kinds[j].predict(self._model(j, ev), ev)
        except MODEL_ERRORS as error:
            state.skip[j].add(ev.seq)
            self._reject_for_model(ev, j, midx, f"predict: {error}")
            return None
        except REFUSALS:
            raise  # the other refusals stop the replay as themselves (the CLI says so)
        except (TypeError, ValueError) as error:
            raise self._model_failed(j, "predict", ev, error) from error
        if self.text_labels and not self.kinds[j].detector:
            self._check_predicted_labels(j, taken[1])
        if not ask:
            state.unasked[j].add(ev.seq)
        counts["events"][midx] += 1
        labelled = ev.label_time is not None
        if not labelled:
            counts["never"][midx] += 1
        self.pred.row(
            PredictionLine(
                seq=ev.seq,
                model_index=midx,
                row=ev.row,
                event_id=ev.id,
                time=ev.time_text,
                entity="" if ev.entity is None else ev.entity,
                model=self.labels[j],
                prediction=self._written(prediction),
                score=repr(float(score)) if score != "" else "",
                label=self._written(ev.label) if labelled else "",
                label_time=ev.label_time_text,
            )
        )
        return taken

    def _written(self, label) -> str:
        """A label (predicted, or the log's) as the outputs write it: as the log's ``labels``
        write it (River's True as 1 where the labels are 0 and 1), else :func:`text`."""
        if label is None:
            return ""
        key = (type(label), label)
        try:
            return self._label_texts[key]
        except KeyError:
            pass
        except TypeError:  # a label that cannot be a key
            return text(self.as_logged.get(label, label))
        written = self._label_texts[key] = text(self.as_logged.get(label, label))
        return written

    def _answer(self, ev, y):
        _, preds = self.pending.pop(ev.seq)
        skip, unasked = self.state.skip, self.state.unasked
        if y is NEVER:
            for ids in (*skip, *unasked):
                ids.discard(ev.seq)
            return
        for j, midx in enumerate(self.owned):
            if ev.seq in skip[j]:  # the model rejected the row when predicting
                skip[j].discard(ev.seq)
                continue
            if ev.seq in unasked[j]:
                # an active learner that did not ask: scored, as River's progressive validation
                # scores it, but not learned
                unasked[j].discard(ev.seq)
                self._score(j, midx, ev, y, preds[j])
                continue
            try:
                self.kinds[j].learn(self._model(j, ev), ev, y)
            except MODEL_ERRORS as error:
                self._reject_for_model(ev, j, midx, f"learn: {error}")
                continue
            except REFUSALS:
                raise
            except (TypeError, ValueError) as error:
                raise self._model_failed(j, "learn", ev, error) from error
            self.state.counts["labelled"][midx] += 1
            if self.per_entity[j]:
                self.state.entities[j][ev.entity][1] += 1
            self._score(j, midx, ev, y, preds[j])

    def _score(self, j, midx, ev, y, taken):
        """The label reaches the metrics: folded here (a batch of labels at a time,
        :meth:`_fold_due`), or recorded for the merge."""
        if self.state.tracks is not None:
            self.due.add(j, ev.label_time, ev.seq, ev.time, y, taken)
            return
        self.answers.append((ev.label_time, ev.seq, midx, ev.time, y, taken))
        if len(self.answers) >= _ANSWER_BATCH:
            write_answers(self.files["ans"], self.answers)

    # ---- rejects and checkpoints -------------------------------------------------------------

    def _reject(self, row, reason, valid=None):
        """A row that cannot be read: every cell counts it, the reporter cell writes it.
        ``valid``: the valid rows read before it (None: no row is replayed before the log is
        read whole, as when sorting)."""
        if valid is not None:
            self.state.seq = valid
        if self.cell.reporter:
            self.rej.row(RejectLine(row, -1, "", reason))
        self.state.read_rejects += 1
        if self.state.first_reject is None:
            self.state.first_reject = (row, reason)
        self.last_reject = row
        if (
            self.log.out_of_order != "sort"  # sorting reads every row before the first is used
            and self.state.seq == 0
            and self.state.read_rejects >= NOTHING_READ_AFTER
        ):
            raise self._nothing_read(f"the first {NOTHING_READ_AFTER} rows of the log")
        self._check_rejects()

    def _nothing_read(self, which) -> ReplayError:
        self.rej.flush()
        row, reason = self.state.first_reject
        return ReplayError(
            f"{which} could not be read (row {row}: {reason}); "
            "check the column names and the labels in [log] against the log"
        )

    def _reject_for_model(self, ev, j, midx, reason):
        self.state.counts["rejected"][midx] += 1
        self.rej.row(RejectLine(ev.row, midx, self.labels[j], reason))
        self.last_reject = ev.row
        self._check_rejects()

    def _check_predicted_labels(self, j, proba) -> None:
        """A classifier that answers only true/false on a log whose labels are all text would be
        scored against labels it never predicts: River's binary classifiers do, and take the
        text labels "0" and "1" both as true. (This package's classifiers key their answer by
        the log's positive; before a negative is learned they say ``False`` for it, beside the
        positive, which is why only an answer made of true/false alone is refused.)"""
        if proba and all(isinstance(label, bool) for label in proba):
            self.rej.flush()
            shown = ", ".join(repr(label) for label in proba)
            allowed = ", ".join(repr(label) for label in self.log.labels)
            raise ReplayError(
                f"model {self.labels[j]!r} predicts {shown}, which the log's labels "
                f"({allowed}) do not include: River's binary classifiers predict true/false, so "
                "write the labels so (labels = [0, 1] or [false, true]), or use a classifier "
                "that takes positive"
            )

    def _model_failed(self, j, step, ev, error) -> ReplayError:
        """A model that fails on a valid row with an error of its own (not a refused feature or
        label, which reject the row for that model only) stops the replay: its state may be half
        updated, so going on would replay a corrupted model."""
        self.rej.flush()  # the rows rejected so far are written out with the error
        hint = ""
        if isinstance(ev.label, str) and ev.label in str(error):  # the label failed, no feature
            hint = (
                "; River's linear classifiers take only true/false or 0/1 labels: write the "
                "labels so (labels = [0, 1]) or use a classifier that takes positive"
            )
        return ReplayError(
            f"model {self.labels[j]!r} could not {step} row {ev.row} (label {ev.label!r}): "
            f"{type(error).__name__}: {error}{hint}"
        )

    def _check_rejects(self):
        limit = self.cell.max_rejects
        total = self.state.read_rejects + sum(self.state.counts["rejected"])
        if limit is not None and total > limit:
            self.rej.flush()
            raise ReplayError(
                f"more than {limit} rejected rows (the last: row {self.last_reject}); "
                "see rejected rows in the output folder, fix the log or raise --max-rejects"
            )

    def _fold_due(self) -> None:
        """The labels arrived since the last fold reach their metrics (before a checkpoint, so
        that it holds them), and their curve rows the curve part."""
        if self.state.tracks is not None:
            self.cur.rows(self.due.fold(self.state.tracks, self.make_metrics))

    def save_checkpoint(self):
        """Flush the part files and write the checkpoint atomically (the pending rows with their
        predictions, the models, the metric tracks, the counters and the part files' sizes)."""
        self._fold_due()
        state = self.state
        self.pred.flush()
        self.rej.flush()
        self.cur.flush()
        write_answers(self.files["ans"], self.answers)
        for kind in PARTS:
            state.sizes[kind] = self.files[kind].tell()
        state.pending = list(self.pending.values())
        write_atomic(self.paths["ckpt"], pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
        state.pending = []
        self.last_save = time.monotonic()
        self.since_save = 0


def _answer_time(ev) -> int:
    """When the row's answer comes out: its label time, or its own time for a row never
    labelled (whose answer only frees its place)."""
    return ev.time if ev.label_time is None else ev.label_time


def _label_of(ev):
    return NEVER if ev.label_time is None else ev.label
