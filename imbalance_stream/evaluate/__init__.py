"""Evaluation: prequential runs, the papers' protocols, parallel sweeps, event-log replay."""

from .array_replay import ReplayResult, has_array_path, replay_array
from .parallel import map_cells
from .prequential import (
    ModelFailed,
    PrequentialResult,
    StreamFailed,
    plot_curves,
    run_prequential,
)


def __getattr__(name):
    if name == "replay":  # event-log replay (imbalance_stream.replay), imported when first used
        from imbalance_stream.replay import replay

        return replay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ModelFailed",
    "StreamFailed",
    "PrequentialResult",
    "ReplayResult",
    "has_array_path",
    "map_cells",
    "plot_curves",
    "replay",
    "replay_array",
    "run_prequential",
]
