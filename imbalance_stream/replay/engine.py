"""One cell of a replay: the rows of some entities (or all rows, for the global models) replayed in
time order with River's :func:`river.stream.simulate_qa`, checkpointed, resumable.

Every cell reads the whole log (so each decides the same rows are bad, and gives each valid row the
same place ``seq`` in replay order) and keeps the rows of its entities. River's ``simulate_qa``
then yields each row twice: as a question at its event time (predict with every model as it is
then) and as an answer at its label time (learn). An answer comes out before the first question
whose time is at or after its label time, answers in order of label time and, on ties, of their
questions. Whether an answer comes before a question depends on those two times only, so a cell
holding a subset of the entities sees, for each of them, exactly what a run over all rows would.

A cell writes four part files into ``<out>/.replay/``: predictions (in replay order), answers (the
records the metrics need, in label order), rejects and, at the end, per-entity sizes. The merge
(:mod:`imbalance_stream.replay.merge`) puts the cells' parts together.

Checkpoints. After a question, every ``checkpoint_every`` rows or ``checkpoint_seconds``, the part
files are flushed and the cell's state (models, the rows whose answers are pending with their
predictions, counters, the reader position and the sizes of the part files) is pickled to a
temporary file, synced, and renamed over ``cell<k>.ckpt`` (``os.replace``: a reader sees the old
checkpoint or the new one, never half of one). A resumed cell truncates its part files to the
recorded sizes, skips the rows already read, and rebuilds ``simulate_qa``'s queue by feeding it
the pending rows again (not predicted again): their answers were not due before the checkpoint's
question, so none comes out early, and ties keep their order. The run then continues exactly as
if it had never stopped.

Checkpoints are pickles: load only those your own runs wrote (unpickling runs code).
"""

from __future__ import annotations

import contextlib
import csv
import heapq
import itertools
import os
import pickle
import sys
import tempfile
import time
import zlib

from river import base as river_base
from river import compose
from river import stream as river_stream

from imbalance_stream.base import InvalidFeature, UnknownLabel

from .config import NEVER, Reject, ReplayError, _text
from .sources import records

__all__ = ["partition_of", "run_cell"]

#: Errors a model raises before any state changes: the row is rejected for that model.
MODEL_ERRORS = (InvalidFeature, UnknownLabel)
_SORT_CHUNK = 100_000
_ANSWER_BATCH = 4096


def partition_of(entity: str, n_partitions: int) -> int:
    """The partition of an entity: a hash that is the same in every process and on every run."""
    return zlib.crc32(entity.encode("utf-8")) % n_partitions


def _write_atomic(path: str, data: bytes) -> None:
    folder = os.path.dirname(path)
    handle, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-", suffix=".ckpt")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class _Model:
    """Predict and learn with one model, whatever its kind."""

    def __init__(self, model, positive):
        final = model
        while isinstance(final, compose.Pipeline):
            final = list(final.steps.values())[-1]
        self.detector = isinstance(final, river_base.AnomalyDetector) or (
            hasattr(final, "score_one") and not hasattr(final, "predict_one")
        )
        self.supervised = getattr(model, "_supervised", True)
        self.positive = positive

    def predict(self, model, x):
        """``(prediction, score, what the metrics take)``."""
        if self.detector:
            score = model.score_one(x)
            return "", score, score
        proba = model.predict_proba_one(x)
        prediction = model.predict_one(x)
        score = proba.get(self.positive, 0.0) if proba else ""
        return prediction, score, (prediction, proba)

    def learn(self, model, x, y):
        if self.supervised:
            model.learn_one(x, y)
        else:
            model.learn_one(x)


def _fresh_state(cell, slots, n_models):
    return {
        "fingerprint": cell["fingerprint"],
        "cell": cell["index"],
        "position": 0,
        "seq": 0,
        "last_time": None,
        "models": [{} if mode == "entity" else None for _, _, mode in slots],
        "pending": [],
        "skip": [set() for _ in slots],
        "entities": [{} for _ in slots],
        "counts": {
            "events": [0] * n_models,
            "labelled": [0] * n_models,
            "never": [0] * n_models,
            "rejected": [0] * n_models,
        },
        "read_rejects": 0,
        "sizes": {"pred": 0, "ans": 0, "rej": 0},
        "done": False,
    }


def _paths(cell):
    base = os.path.join(cell["work"], f"cell{cell['index']}")
    return {kind: f"{base}.{kind}" for kind in ("pred", "ans", "rej", "ent", "ckpt")}


def load_checkpoint(path):
    """A cell's checkpoint (a pickle: only load your own)."""
    with open(path, "rb") as handle:
        return pickle.load(handle)


def run_cell(cell: dict) -> dict:
    """Replay one cell (a module-level function, so processes and Dask workers can run it).

    ``cell`` holds the scenario, the cell's index, the number of entity partitions, which model
    slots it owns, the work folder, whether to resume, the checkpoint policy, ``max_rejects`` and
    whether to show progress. Returns the cell's final counts.
    """
    scenario = cell["scenario"]
    log = scenario.log
    all_slots = scenario.slots()
    owned = cell["slots"]  # indices into all_slots
    slots = [all_slots[i] for i in owned]
    paths = _paths(cell)
    state = None
    if cell["resume"] and os.path.exists(paths["ckpt"]):
        state = load_checkpoint(paths["ckpt"])
        if state["fingerprint"] != cell["fingerprint"]:
            raise ReplayError(
                f"the checkpoint in {cell['work']} is from another scenario or log; "
                "run without --resume to start over"
            )
        if state["done"]:
            return _summary(state)
    resumed = state is not None
    if state is None:
        state = _fresh_state(cell, slots, len(all_slots))
    models_built = scenario.make_models()
    templates = [models_built[name] for _, name, _ in slots]
    kinds = [_Model(model, log.positive) for model in templates]
    for j, (_, _, mode) in enumerate(slots):
        if mode == "global" and state["models"][j] is None:
            state["models"][j] = templates[j].clone()

    files = {}
    for kind in ("pred", "ans", "rej"):
        mode = "r+b" if resumed else "wb"
        if resumed and not os.path.exists(paths[kind]):
            mode = "wb"
        handle = open(paths[kind], mode)  # noqa: SIM115 - closed in the finally below
        handle.truncate(state["sizes"][kind] if resumed else 0)
        handle.seek(0, os.SEEK_END)
        files[kind] = handle
    try:
        _replay(cell, scenario, slots, owned, kinds, templates, state, files, paths, resumed)
    finally:
        for handle in files.values():
            handle.close()
    return _summary(state)


def _summary(state):
    return {"counts": state["counts"], "read_rejects": state["read_rejects"], "cell": state["cell"]}


class _Text:
    """A csv writer onto a binary file (the sizes recorded in checkpoints are byte offsets)."""

    def __init__(self, handle):
        import io

        self.handle = handle
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\n")

    def row(self, values):
        self.writer.writerow(values)
        if self.buffer.tell() > 1 << 16:
            self.flush()

    def flush(self):
        data = self.buffer.getvalue()
        if data:
            self.handle.write(data.encode("utf-8"))
            self.buffer.seek(0)
            self.buffer.truncate()
        self.handle.flush()


def _replay(cell, scenario, slots, owned, kinds, templates, state, files, paths, resumed):
    log = scenario.log
    n_partitions = cell["partitions"]
    is_entity_cell = cell["kind"] == "entity"
    reporter = cell["reporter"]  # the one cell that writes the read rejections
    max_rejects = cell.get("max_rejects")
    every = cell.get("checkpoint_every")
    seconds = cell.get("checkpoint_seconds")
    pred = _Text(files["pred"])
    rej = _Text(files["rej"])
    answers: list = []
    counts = state["counts"]
    models = state["models"]
    skip = state["skip"]
    entity_stats = state["entities"]
    pending: dict = dict((ev.seq, (ev, preds)) for ev, preds in state["pending"])
    replaying = set(pending)

    bar = None
    if cell.get("progress"):
        from tqdm.auto import tqdm

        every_bar = 0.1 if sys.stderr.isatty() else 5.0
        bar = tqdm(
            desc=cell["description"],
            unit=" rows",
            initial=state["position"],
            mininterval=every_bar,
            leave=False,
        )

    def reject(row, midx, model, reason):
        rej.row([row, midx, model, reason])

    def count_reject():
        total = state["read_rejects"] + sum(counts["rejected"])
        if max_rejects is not None and total > max_rejects:
            rej.flush()
            raise ReplayError(
                f"more than {max_rejects} rejected rows (the last: row {last_reject[0]}); "
                "see rejected rows in the output folder, fix the log or raise --max-rejects"
            )

    last_reject = [0]

    def valid_events():
        """The log's valid rows in replay order, numbered, from the checkpoint's position on."""
        if log.out_of_order == "sort":
            yield from _sorted_events(log, cell, state, bar, resumed, reject_row)
            return
        for row, record in records(log, state["position"]):
            if bar is not None:
                bar.update()
            try:
                ev = log.event(row, record)
            except Reject as error:
                reject_row(row, str(error), write=True)
                continue
            if state["last_time"] is not None and ev.time < state["last_time"]:
                raise ReplayError(
                    f"row {row}: event time {ev.time_text!r} is before the previous row's; "
                    'sort the log, or set out_of_order = "sort" in [log]'
                )
            state["last_time"] = ev.time
            ev.pos = row
            yield ev

    def reject_row(row, reason, write):
        if reporter and write:
            reject(row, -1, "", reason)
        state["read_rejects"] += 1
        last_reject[0] = row
        count_reject()

    def mine(events):
        for ev in events:
            ev.seq = state["seq"]
            state["seq"] += 1
            if is_entity_cell and partition_of(ev.entity, n_partitions) != cell["partition"]:
                continue
            yield ev

    def dataset():
        for ev, _ in state["pending"]:  # rebuild simulate_qa's queue (not predicted again)
            yield ev, ev.label if ev.label_time is not None else NEVER
        for ev in mine(valid_events()):
            yield ev, ev.label if ev.label_time is not None else NEVER

    def moment(ev):
        return ev.time

    def delay(ev, _):
        return 0 if ev.label_time is None else ev.label_time - ev.time

    since = 0
    last_save = time.monotonic()

    def save():
        nonlocal last_save, since
        pred.flush()
        rej.flush()
        _flush_answers(files["ans"], answers)
        for kind in ("pred", "ans", "rej"):
            state["sizes"][kind] = files[kind].tell()
        state["pending"] = list(pending.values())
        _write_atomic(paths["ckpt"], pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL))
        state["pending"] = []
        last_save = time.monotonic()
        since = 0

    slot_names = [label for label, _, _ in slots]
    try:
        for _, ev, y in river_stream.simulate_qa(dataset(), moment, delay, copy=False):
            if y is None:  # a question: predict at the event time
                if ev.seq in replaying:
                    replaying.discard(ev.seq)
                    continue
                preds = []
                for j, midx in enumerate(owned):
                    model = models[j]
                    if slots[j][2] == "entity":
                        stats = entity_stats[j].get(ev.entity)
                        if stats is None:
                            stats = entity_stats[j][ev.entity] = [0, 0]
                            models[j][ev.entity] = templates[j].clone()
                        stats[0] += 1
                        model = models[j][ev.entity]
                    try:
                        prediction, score, taken = kinds[j].predict(model, ev.x)
                    except MODEL_ERRORS as error:
                        counts["rejected"][midx] += 1
                        skip[j].add(ev.seq)
                        reject(ev.row, midx, slot_names[j], f"predict: {error}")
                        last_reject[0] = ev.row
                        count_reject()
                        preds.append(None)
                        continue
                    counts["events"][midx] += 1
                    labelled = ev.label_time is not None
                    if not labelled:
                        counts["never"][midx] += 1
                    pred.row(
                        [
                            ev.seq,
                            midx,
                            ev.row,
                            ev.id,
                            ev.time_text,
                            "" if ev.entity is None else ev.entity,
                            slot_names[j],
                            _text(prediction) if prediction is not None else "",
                            repr(float(score)) if score != "" else "",
                            _text(ev.label) if labelled else "",
                            ev.label_time_text,
                        ]
                    )
                    preds.append(taken)
                pending[ev.seq] = (ev, preds)
                state["position"] = ev.pos
                since += 1
                if (every is not None and since >= every) or (
                    seconds is not None
                    and since % 256 == 0
                    and time.monotonic() - last_save >= seconds
                ):
                    save()
                continue
            # an answer: the label arrives
            _, preds = pending.pop(ev.seq)
            if y is NEVER:
                for ids in skip:
                    ids.discard(ev.seq)
                continue
            for j, midx in enumerate(owned):
                if ev.seq in skip[j]:
                    skip[j].discard(ev.seq)
                    continue
                model = models[j][ev.entity] if slots[j][2] == "entity" else models[j]
                try:
                    kinds[j].learn(model, ev.x, y)
                except MODEL_ERRORS as error:
                    counts["rejected"][midx] += 1
                    reject(ev.row, midx, slot_names[j], f"learn: {error}")
                    last_reject[0] = ev.row
                    count_reject()
                    continue
                counts["labelled"][midx] += 1
                if slots[j][2] == "entity":
                    entity_stats[j][ev.entity][1] += 1
                answers.append((ev.label_time, ev.seq, midx, ev.time, y, preds[j]))
                if len(answers) >= _ANSWER_BATCH:
                    _flush_answers(files["ans"], answers)
    finally:
        if bar is not None:
            bar.close()
    # the end of the log: every answer is out
    state["done"] = True
    _write_entities(paths["ent"], slots, owned, models, entity_stats)
    save()


def _flush_answers(handle, answers):
    if answers:
        pickle.dump(answers, handle, protocol=pickle.HIGHEST_PROTOCOL)
        answers.clear()
    handle.flush()


def read_answers(path):
    """The answer records of a cell's part file, in its order."""
    with open(path, "rb") as handle:
        while True:
            try:
                batch = pickle.load(handle)
            except EOFError:
                return
            yield from batch


def _write_entities(path, slots, owned, models, entity_stats):
    rows = []
    for j, midx in enumerate(owned):
        if slots[j][2] != "entity":
            continue
        for entity, (events, labelled) in entity_stats[j].items():
            size = len(pickle.dumps(models[j][entity], protocol=pickle.HIGHEST_PROTOCOL))
            rows.append((midx, entity, events, labelled, size))
    rows.sort(key=lambda r: (r[0], r[1]))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        csv.writer(handle, lineterminator="\n").writerows(rows)


def _sorted_events(log, cell, state, bar, resumed, reject_row):
    """The valid rows sorted by (event time, row), through sorted runs spilled to disk (constant
    memory); ``ev.pos`` counts sorted rows."""
    folder = tempfile.mkdtemp(dir=cell["work"], prefix=f"sort{cell['index']}-")
    runs = []
    try:
        chunk: list = []

        def spill():
            chunk.sort(key=lambda ev: (ev.time, ev.row))
            path = os.path.join(folder, f"run{len(runs)}.pkl")
            with open(path, "wb") as handle:
                for start in range(0, len(chunk), 4096):
                    pickle.dump(chunk[start : start + 4096], handle, pickle.HIGHEST_PROTOCOL)
            runs.append(path)
            chunk.clear()

        for row, record in records(log, 0):
            if bar is not None and not resumed:
                bar.update()
            try:
                chunk.append(log.event(row, record))
            except Reject as error:
                if not resumed:  # a resumed cell wrote and counted these before its checkpoint
                    reject_row(row, str(error), write=True)
                continue
            if len(chunk) >= _SORT_CHUNK:
                spill()
        if chunk:
            spill()

        def read(path):
            with open(path, "rb") as handle:
                while True:
                    try:
                        yield from pickle.load(handle)
                    except EOFError:
                        return

        merged = heapq.merge(*(read(p) for p in runs), key=lambda ev: (ev.time, ev.row))
        for k, ev in enumerate(
            itertools.islice(merged, state["position"], None), state["position"]
        ):
            if bar is not None and resumed:
                bar.update()
            ev.pos = k + 1
            yield ev
    finally:
        import shutil

        shutil.rmtree(folder, ignore_errors=True)
