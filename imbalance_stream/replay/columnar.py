"""The columnar replay of a cell whose models all have a steps path: whole blocks of rows at a
time, the same outputs as the row-by-row replay, byte for byte.

When a cell holds only global models with a steps path (``has_steps_path``: ACOG, AROW, SACOG
and the first-order baselines) and its log is one the columnar reader reads (CSV, Parquet, JSON
lines, a SQL query: :func:`~.arrow_log.columnar_reader_fits`), the replay runs here first. Each
block of rows (:class:`~.arrow_log.ArrowLog`), cut where a checkpoint is due, is one segment: the
order of its questions and answers is computed on arrays
(:func:`~imbalance_stream.evaluate.delayed.answer_order`, the rule of
:class:`~imbalance_stream.evaluate.delayed.DelayedLabels`), each model runs the segment's steps in
one jitted run (:meth:`~imbalance_stream.base.BinaryClassifier.run_steps`), and the prediction
lines are written a segment at a time. The metrics take each label as it arrives, in the order the
row-by-row replay gives them.

The moment anything cannot be vouched for (a block the columnar reader does not take, a step a
model would refuse, an event time before the last), the segment is undone (its models put back
as they were before it; nothing of it was written) and :meth:`ColumnarCell.run` returns False
with the cell's state at that point: the rows replayed, the labels pending with their
predictions, exactly what a checkpoint would hold there. The row-by-row replay goes on from it as
it would from that checkpoint, and rejects, refuses or stops where it must, naming the reason.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from imbalance_stream.base.labels import CodedLabels
from imbalance_stream.evaluate.delayed import answer_order, interleave

from .arrow_log import ArrowLog, columnar_reader_fits
from .blocks import ColumnBlock
from .events import text
from .lines import Choice, csv_lines, field_values
from .parts import PredictionLine
from .runners import steps_taken
from .tracking import fold_labels

__all__ = ["ColumnarCell", "columnar_fits"]


def columnar_fits(cell, templates, text_labels) -> bool:
    """Whether ``cell`` can run here: global models only, each with a steps path, under
    ``replay.compiled``, over a log the columnar reader reads. (A model answering true/false on
    a log of text labels is left to the row-by-row replay, which stops with the reason.)"""
    scenario = cell.scenario
    if cell.kind != "global" or cell.resume or not scenario.compiled:
        return False
    for model in templates:
        if not getattr(model, "has_steps_path", False):
            return False
        if text_labels and isinstance(model.positive, bool):
            return False
    return columnar_reader_fits(scenario.log)


def _needs_quotes(value: str) -> bool:
    """Whether the csv module quotes ``value`` (minimal quoting, lines ended by "\\n")."""
    return any(c in value for c in ',"\r\n')


def _float_texts(values: np.ndarray) -> Choice:
    """``repr`` of each float of ``values``. A confident classifier's probabilities are mostly
    exactly 0.0 or 1.0 (nine in ten of ACOG's on a long log): those two texts are written once
    and chosen by index, and only the other values go through ``repr``."""
    zero = (values == 0.0) & ~np.signbit(values)  # (not -0.0, whose repr differs)
    one = values == 1.0
    other = ~(zero | one)
    index = one.astype(np.int64)
    index[other] = 2 + np.arange(int(other.sum()))
    return Choice(["0.0", "1.0", *map(repr, values[other].tolist())], index)


class _Predictions:
    """One model's predictions of the pool's rows: whether it predicted its positive, the
    probability of its positive, and the negative label it held then (an index into
    ``negatives``)."""

    __slots__ = ("is_positive", "negative", "p")

    def __init__(self, is_positive, p, negative):
        self.is_positive = is_positive
        self.p = p
        self.negative = negative

    def take(self, at) -> _Predictions:
        return _Predictions(self.is_positive[at], self.p[at], self.negative[at])

    @staticmethod
    def concat(parts) -> _Predictions:
        return _Predictions(
            *(
                np.concatenate([getattr(part, name) for part in parts])
                for name in ("is_positive", "p", "negative")
            )
        )


class ColumnarCell:
    """The columnar replay of one cell, on behalf of ``loop``, the cell's row-by-row loop
    (``engine._CellRun``, over a fresh state): its models, writers, counters and checkpoints are
    the loop's, so that either can go on from where the other stopped. See the module's
    docstring."""

    def __init__(self, loop):
        self.loop = loop
        self.cell, self.state = loop.cell, loop.state
        self.models = loop.state.models
        self.log = loop.log
        self.blocks = loop.open_log = ArrowLog(self.log)
        # what may need quoting in a text copied from the log (see _write_predictions)
        log = self.log
        self._quoted: str | None = "," if log.format == "csv" else '[,"\n]'
        if log.format == "csv" and log.delimiter == ",":
            self._quoted = None  # nothing: a field of a comma-separated block holds no comma
        n_models = len(self.models)
        self.negatives: list = []  # the negative labels the models held
        self.carry: ColumnBlock | None = None  # the rows asked whose answers are queued
        self.carry_seqs = np.zeros(0, dtype=np.int64)
        self.carry_preds = [
            _Predictions(np.zeros(0, bool), np.zeros(0), np.zeros(0, np.int64))
        ] * n_models

    # ---- the loop -----------------------------------------------------------------------------

    def run(self) -> bool:
        """Replay what this can; True when the whole log was replayed, False when the row-by-row
        replay must go on from the state as it is left."""
        for block in self.blocks:
            start = 0
            while start < len(block):
                size = self._segment_size(len(block) - start)
                if not self._segment(block.take(slice(start, start + size))):
                    self.hand_over()
                    return False
                start += size
                self._maybe_save()
        if self.blocks.stopped_at is not None or not self._drain():
            self.hand_over()
            return False
        return True

    def _segment_size(self, left: int) -> int:
        every = self.cell.checkpoint_every
        if every is None:
            return left
        return min(left, every - self.loop.since_save)

    def _maybe_save(self) -> None:
        if self.loop.checkpoint_due(read_clock=True):
            self.hand_over()
            self.loop.save_checkpoint()

    # ---- one segment --------------------------------------------------------------------------

    def _segment(self, block: ColumnBlock) -> bool:
        state = self.state
        n = len(block)
        if state.last_time is not None and block.times[0] < state.last_time:
            return False  # the row-by-row replay stops there, naming the row
        carried = 0 if self.carry is None else len(self.carry)
        pool = block if self.carry is None else ColumnBlock.concat([self.carry, block])
        seqs = np.concatenate([self.carry_seqs, state.seq + np.arange(n, dtype=np.int64)])
        answer_times = np.where(pool.labelled, pool.label_times, pool.times)
        order, emit, cut = answer_order(carried, block.times, answer_times)
        steps, is_answer = interleave(carried, n, order, emit, cut)
        # a label that never arrives only frees its row's place
        made = ~is_answer | pool.labelled[steps]
        steps, learn = steps[made], is_answer[made]
        results = self._run_models(pool, steps, learn)
        if results is None:
            return False
        preds = [_Predictions.concat([self.carry_preds[j], new]) for j, new in enumerate(results)]
        self._write_predictions(
            block, seqs[carried:], [p.take(slice(carried, None)) for p in preds]
        )
        answered = steps[learn]
        self._score(pool, seqs, preds, answered)
        counts = state.counts
        labelled = int(block.labelled.sum())
        for midx in self.loop.owned:
            counts["events"][midx] += n
            counts["never"][midx] += n - labelled
            counts["labelled"][midx] += len(answered)
        later = order[cut:]
        self.carry = pool.take(later)
        self.carry_seqs = seqs[later]
        self.carry_preds = [p.take(later) for p in preds]
        state.position, state.seq = int(block.rows[-1]), state.seq + n
        state.last_time = int(block.times[-1])
        self.loop.since_save += n
        if self.loop.bar is not None:
            self.loop.bar.update(n)
        return True

    def _run_models(self, pool, steps, learn) -> list | None:
        """Each model's predictions of the segment's questions (rows of the pool past the carried
        ones), or None (the models as before) when a model would refuse a step."""
        rows = pool.x[steps]
        codes = np.where(learn, pool.codes[steps], -1)
        labels = CodedLabels(codes, [*self.blocks.labels, None])  # (code -1: none)
        before = [copy.deepcopy(model) for model in self.models]
        out = []
        for model in self.models:
            run = model.run_steps(rows, self.blocks.names, learn, labels)
            if run.done < len(steps):
                self.models[:] = before
                return None
            asked = np.flatnonzero(~learn)
            negative = np.full(len(asked), self._negative(run.negative_before), dtype=np.int64)
            negative[asked > run.adopted_at] = self._negative(run.negative_after)
            out.append(
                _Predictions(run.decisions[asked] >= 0.0, run.probas[asked].copy(), negative)
            )
        return out

    def _negative(self, label) -> int:
        for k, known in enumerate(self.negatives):
            if type(known) is type(label) and known == label:
                return k
        self.negatives.append(label)
        return len(self.negatives) - 1

    # ---- outputs ------------------------------------------------------------------------------

    def _write_predictions(self, block, seqs, preds) -> None:
        """The segment's prediction lines, in the order (row, model), as the row-by-row replay
        writes them with the csv module: joined here a field at a time (:func:`.lines.csv_lines`)
        when no value needs quoting (no comma, quote or line break: a CSV block has no quote nor
        line break, so only a comma in a text copied from a log whose delimiter is not one, in a
        Parquet log's texts, or in a model's name or a label, could), else written with the csv
        module."""
        import pyarrow as pa
        import pyarrow.compute as pc

        loop = self.loop
        n = len(block)
        label_texts = [text(label) for label in self.blocks.labels]
        label = Choice([*label_texts, ""], np.where(block.labelled, block.codes, len(label_texts)))
        entities = block.entities if block.entities is not None else ""
        copied = [c for c in (block.ids, block.time_texts, block.entities) if c is not None]
        copied.append(block.label_time_texts)
        fixed = [*label_texts, *loop.labels]
        written = PredictionLine._fields[loop.pred.fields]
        seq_texts = pa.array(seqs).cast(pa.string()) if "seq" in written else ""
        row_texts = pa.array(block.rows).cast(pa.string())
        lines = []
        for j, midx in enumerate(loop.owned):
            model, pred = self.models[j], preds[j]
            guesses = [model.positive, *self.negatives]
            guess_texts = [text(loop.as_logged.get(label, label)) for label in guesses]
            fixed += guess_texts
            columns: dict[str, Any] = dict(
                seq=seq_texts,
                model_index=str(midx),
                row=row_texts,
                event_id=block.ids,
                time=block.time_texts,
                entity=entities,
                model=loop.labels[j],
                prediction=Choice(guess_texts, np.where(pred.is_positive, 0, 1 + pred.negative)),
                score=self._scores(model.positive, pred),
                label=label,
                label_time=block.label_time_texts,
            )  # as columns, chosen texts, or one text for every row
            lines.append(PredictionLine(**columns))
        quoted = self._quoted
        plain = not any(_needs_quotes(value) for value in fixed) and not (
            quoted and any(pc.any(pc.match_substring_regex(c, quoted)).as_py() for c in copied)
        )
        if not plain:
            as_lists = [[field_values(field, n) for field in line] for line in lines]
            per_model = [list(zip(*values)) for values in as_lists]
            loop.pred.rows([line for group in zip(*per_model) for line in group])
            return
        loop.pred.raw(csv_lines([list(line)[loop.pred.fields] for line in lines], n).data)

    def _scores(self, positive, pred) -> Choice:
        """The score of each prediction as the replay writes it: the probability of the log's
        positive (``repr`` of the float)."""
        wanted = self.log.positive
        if positive == wanted:
            values = pred.p
        else:
            is_wanted = np.array([label == wanted for label in self.negatives] or [False])
            values = np.where(is_wanted[pred.negative], 1.0 - pred.p, 0.0)
        return _float_texts(values)

    def _score(self, pool, seqs, preds, answered) -> None:
        """Each learned label reaches its metrics, in the order the labels arrive (the curve rows
        of one label in the order of the models, as the row-by-row replay writes them)."""
        ys = CodedLabels(pool.codes[answered], self.blocks.labels)
        label_times = pool.label_times[answered].tolist()
        times = pool.times[answered].tolist()
        answered_seqs = seqs[answered].tolist()
        order = range(len(ys))  # every model learns every label: one order for all
        due = {}
        for j, pred in enumerate(preds):
            guesses = [self.models[j].positive, *self.negatives]
            guess_at = np.where(pred.is_positive[answered], 0, 1 + pred.negative[answered])
            due[j] = (
                order, label_times, answered_seqs, times, ys, CodedLabels(guess_at, guesses),
                lambda j=j, pred=pred: self._taken(j, pred, answered),
            )  # fmt: skip
        self.loop.cur.rows(fold_labels(self.state.tracks, self.loop.make_metrics, due))

    def _taken(self, j, pred, at) -> list:
        """What the metrics take of model ``j``'s predictions of the pool rows ``at``: the
        prediction and the probabilities, as the row-by-row replay hands them."""
        positive, negatives = self.models[j].positive, self.negatives
        return [
            steps_taken(positive, negatives[negative], is_positive, p)
            for is_positive, p, negative in zip(
                pred.is_positive[at].tolist(), pred.p[at].tolist(), pred.negative[at].tolist()
            )
        ]

    # ---- the end, and handing over ------------------------------------------------------------

    def _drain(self) -> bool:
        """The end of the log: every queued answer comes out, in order."""
        if self.carry is not None and len(self.carry):
            pool = self.carry
            steps = np.flatnonzero(pool.labelled)
            learn = np.ones(len(steps), dtype=bool)
            if self._run_models(pool, steps, learn) is None:
                return False
            self._score(pool, self.carry_seqs, self.carry_preds, steps)
            for midx in self.loop.owned:
                self.state.counts["labelled"][midx] += len(steps)
            self.carry = None
        self.hand_over()
        self.loop.finish()
        return True

    def hand_over(self) -> None:
        """Put the pending rows, with their predictions, where the row-by-row loop keeps them."""
        loop = self.loop
        loop.pending = {}
        if self.carry is None:
            return
        carry = self.carry
        taken = [self._taken(j, pred, slice(None)) for j, pred in enumerate(self.carry_preds)]
        events = carry.events(self.blocks.names, self.blocks.labels)
        for k, (ev, seq) in enumerate(zip(events, self.carry_seqs.tolist())):
            ev.seq = seq
            loop.pending[seq] = (ev, [t[k] for t in taken])
