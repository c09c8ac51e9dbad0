"""The layouts of the part files that a replay's cells write and its merge reads, in one place.

A cell writes one line per model and predicted row into its prediction part, and one line per
rejected row (or row a model refused) into its reject part; the merge orders the lines of all
cells by their first two fields and writes the user's columns. Each layout is a named tuple:
the cell builds one, the merge reads one back from the line's text by name.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["PREDICTION_COLUMNS", "REJECT_COLUMNS", "PredictionLine", "RejectLine"]

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

    def output(self) -> tuple:
        """The line's ``predictions.csv`` columns."""
        return self[2:]


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
