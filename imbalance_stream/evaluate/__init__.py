"""Evaluation: prequential runs, the papers' protocols, parallel sweeps, event-log replay."""

from .array_replay import ReplayResult, replay_array
from .parallel import map_cells
from .prequential import PrequentialResult, plot_curves, run_prequential

__all__ = [
    "PrequentialResult",
    "ReplayResult",
    "map_cells",
    "plot_curves",
    "replay_array",
    "run_prequential",
]
