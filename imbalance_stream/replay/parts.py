"""The part files that a replay's cells write and its merge reads: their layouts, in one place,
and how they are written, cut back on resuming, and read.

A cell writes one line per model and predicted row into its prediction part, and one line per
rejected row (or row a model refused) into its reject part; the merge orders the lines of all
cells by their first two fields and writes the user's columns. Each layout is a named tuple:
the cell builds one, the merge reads one back from the line's text by name.

The only cell of a replay (``Cell.alone``: a serial run of global models, or of per-entity
models in one partition) writes its lines in replay order already, so its prediction part is
``predictions.csv`` as it will be: the header, then each line's output columns alone
(:func:`prediction_fields`); the merge puts that file in place instead of writing it again.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import pickle
import tempfile
from typing import NamedTuple

__all__ = [
    "FIELD",
    "OUTPUT",
    "PARTS",
    "PREDICTION_COLUMNS",
    "REJECT_COLUMNS",
    "PartWriter",
    "PredictionLine",
    "RejectLine",
    "open_parts",
    "part_paths",
    "prediction_fields",
    "prediction_header",
    "read_answers",
    "write_answers",
    "write_atomic",
    "write_entities",
]

#: The columns of ``predictions.csv`` (and ``.parquet``).
PREDICTION_COLUMNS = (
    "row",
    "event_id",
    "time",
    "entity",
    "model",
    "prediction",
    "score",
    "label",
    "label_time",
)

#: The columns of ``rejected.csv``.
REJECT_COLUMNS = ("row", "model", "reason")


class PredictionLine(NamedTuple):
    """A line of a prediction part: the row's place in replay order and the model's index (which
    order the merge), then the columns of ``predictions.csv``."""

    seq: int | str
    model_index: int | str
    row: int | str
    event_id: str
    time: str
    entity: str
    model: str
    prediction: str
    score: str
    label: str
    label_time: str


#: Where a prediction line's fields stand, for a reader of many lines that would rather not
#: build a PredictionLine of each (the merge); and the slice of its ``predictions.csv`` columns.
FIELD = {name: i for i, name in enumerate(PredictionLine._fields)}
OUTPUT = slice(FIELD["row"], None)


class RejectLine(NamedTuple):
    """A line of a reject part: the row, the index of the model that refused it (-1: no model saw
    it, the row could not be read), that model's name (empty for -1) and the reason."""

    row: int | str
    model_index: int | str
    model: str
    reason: str

    def output(self) -> tuple:
        """The line's ``rejected.csv`` columns."""
        return self.row, self.model, self.reason

    def is_whole(self) -> bool:
        """Whether a line read back from a part that may end mid-line is complete."""
        return str(self.row).isdigit() and str(self.model_index).lstrip("-").isdigit()


def order_key(line) -> tuple[int, int]:
    """The merge's order of part lines read back as text: the row (or its place), then the model."""
    return int(line[0]), int(line[1])


#: The part files of a cell: predictions, answers (for the merge), rejects, curve rows.
PARTS = ("pred", "ans", "rej", "cur")


def prediction_fields(alone: bool) -> slice:
    """The fields of a :class:`PredictionLine` a cell writes to its prediction part: all of them,
    or only the columns of ``predictions.csv`` for the replay's only cell (see the module)."""
    return OUTPUT if alone else slice(None)


def prediction_header() -> bytes:
    """The first line of ``predictions.csv`` (and of the only cell's prediction part)."""
    return (",".join(PREDICTION_COLUMNS) + "\n").encode()


def part_paths(cell) -> dict[str, str]:
    """The paths of a cell's part files, per-entity sizes and checkpoint, by kind."""
    base = os.path.join(cell.work, f"cell{cell.index}")
    return {kind: f"{base}.{kind}" for kind in (*PARTS, "ent", "ckpt")}


def write_atomic(path: str, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, sync it and rename it over ``path``:
    a reader sees the old file or the new one, never half of one."""
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


def open_parts(paths, state, resumed, alone=False):
    """The cell's part files, cut back to the sizes of the checkpoint when resuming; a fresh
    prediction part of the replay's only cell (``alone``) starts with its header."""
    files = {}
    for kind in PARTS:
        mode = "r+b" if resumed and os.path.exists(paths[kind]) else "wb"
        handle = open(paths[kind], mode)  # closed by run_cell
        handle.truncate(state.sizes[kind] if resumed else 0)
        handle.seek(0, os.SEEK_END)
        if kind == "pred" and alone and handle.tell() == 0:
            handle.write(prediction_header())
        files[kind] = handle
    return files


class PartWriter:
    """A csv writer onto a binary file (the sizes recorded in checkpoints are byte offsets); the
    lines are held and written a few thousand at a time. ``fields``: the part of each line
    given to :meth:`row` that is written (all of it unless told)."""

    HELD = 4096

    def __init__(self, handle, fields: slice = slice(None)):
        self.handle = handle
        self.fields = fields
        self.buffer = io.StringIO()
        self.writer = csv.writer(self.buffer, lineterminator="\n")
        self.held: list = []

    def row(self, values):
        self.held.append(values[self.fields])
        if len(self.held) >= self.HELD:
            self.flush()

    def rows(self, lines):
        fields = self.fields
        self.held.extend(line[fields] for line in lines)
        if len(self.held) >= self.HELD:
            self.flush()

    def raw(self, data: bytes) -> None:
        """Append lines already written as UTF-8 text, of the fields it writes (after what the
        writer holds)."""
        self.flush()
        self.handle.write(data)

    def flush(self):
        if self.held:
            self.writer.writerows(self.held)
            self.held.clear()
        data = self.buffer.getvalue()
        if data:
            self.handle.write(data.encode("utf-8"))
            self.buffer.seek(0)
            self.buffer.truncate()
        self.handle.flush()


def write_answers(handle, answers) -> None:
    """Append the answer records ``answers`` (then emptied) to a cell's answer part."""
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


def write_entities(path, slots, owned, models, entity_stats) -> None:
    """A cell's per-entity sizes: model index, entity, events, labels learned, pickled bytes."""
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
