"""Evaluation: prequential runs, the papers' protocols, parallel sweeps, event-log replay."""

from .array_replay import ReplayResult, replay_array
from .parallel import map_cells

__all__ = ["ReplayResult", "map_cells", "replay_array"]
