"""A replay's units of work and what each checkpoints: typed, where they were dicts of keys.

A :class:`Cell` is one partition of the per-entity models, or the global models: what a process
(or a Dask worker) is given to replay. Its :class:`CellState` is what it carries from row to row
and writes to its checkpoint, so that a resumed cell goes on exactly where it stopped.
"""

from __future__ import annotations

import dataclasses
import pickle
from typing import TYPE_CHECKING

from .parts import PARTS
from .tracking import MetricTrack

if TYPE_CHECKING:
    from .config import ReplayScenario

__all__ = ["Cell", "CellState", "load_checkpoint"]


@dataclasses.dataclass
class Cell:
    """One unit of a replay: which models (``slots``, indices into the scenario's slots) of
    which entities (``kind`` "entity", the entities of ``partition`` out of ``partitions``; or
    "global"), where its part files go (``work``), and the replay's policy."""

    scenario: ReplayScenario
    index: int
    kind: str
    partition: int | None
    partitions: int
    slots: list[int]
    reporter: bool  # the one cell that writes the rows no model saw (unreadable rows)
    fold_metrics: bool  # whether it sees every row of its models, so folds their metrics
    alone: bool  # the replay's only cell: its prediction part is predictions.csv as it will be
    work: str
    fingerprint: str
    resume: bool
    progress: bool
    description: str
    max_rejects: int | None = None
    checkpoint_every: int | None = None
    checkpoint_seconds: float | None = None


@dataclasses.dataclass
class CellState:
    """What a cell carries from row to row, and its checkpoint holds.

    ``position`` is the reader's place after the last row replayed, ``seq`` the number of valid
    rows before it (every cell numbers them alike), ``last_time`` the last event time; per model
    slot of the cell: ``models`` (one model, or ``{entity: model}``), the rows it refused when
    predicting (``skip``), the rows an active learner did not ask for (``unasked``), ``entities``
    (``{entity: [events, labels]}``) and its metric ``tracks`` (when the cell folds them);
    ``pending``, the rows whose labels have not arrived, with their predictions; the counters;
    the first unreadable row; a damaged file's message; the part files' sizes.
    """

    fingerprint: str
    cell: int
    models: list
    skip: list
    unasked: list
    entities: list
    tracks: list | None
    counts: dict
    position: int = 0
    seq: int = 0
    last_time: int | None = None
    pending: list = dataclasses.field(default_factory=list)
    read_rejects: int = 0
    first_reject: tuple | None = None
    damaged: str | None = None
    sizes: dict = dataclasses.field(default_factory=lambda: dict.fromkeys(PARTS, 0))
    done: bool = False

    @classmethod
    def fresh(cls, cell: Cell) -> CellState:
        """The state of a cell before its first row."""
        scenario = cell.scenario
        all_slots = scenario.slots()
        slots = [all_slots[i] for i in cell.slots]
        n_models = len(all_slots)
        tracks = None
        if cell.fold_metrics:
            makers = scenario.slot_metrics()
            tracks = [
                MetricTrack(midx, makers[midx], scenario.step, scenario.window)
                for midx in cell.slots
            ]
        return cls(
            fingerprint=cell.fingerprint,
            cell=cell.index,
            models=[{} if mode == "entity" else None for _, _, mode in slots],
            skip=[set() for _ in slots],
            unasked=[set() for _ in slots],
            entities=[{} for _ in slots],
            tracks=tracks,
            counts={key: [0] * n_models for key in ("events", "labelled", "never", "rejected")},
        )

    @classmethod
    def restored(cls, saved) -> CellState:
        """The state of a checkpoint: itself, or one written as a dict (before 0.3), with the
        fields added since at their defaults."""
        if isinstance(saved, cls):
            return saved
        saved = dict(saved)
        saved.setdefault("unasked", [set() for _ in saved["skip"]])
        saved["sizes"] = {**dict.fromkeys(PARTS, 0), **saved["sizes"]}
        return cls(**saved)

    def summary(self) -> dict:
        """What the cell returns when it ends: its counts, unreadable rows and any damage."""
        return {
            "counts": self.counts,
            "read_rejects": self.read_rejects,
            "cell": self.cell,
            "damaged": self.damaged,
        }


def load_checkpoint(path) -> CellState:
    """A cell's checkpoint (a pickle: only load your own)."""
    with open(path, "rb") as handle:
        return CellState.restored(pickle.load(handle))
