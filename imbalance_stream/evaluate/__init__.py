"""Evaluation: prequential runs, the papers' protocols, parallel sweeps, the array replay.

The event-log replay is :func:`imbalance_stream.replay.replay`, a floor above this package (it
runs on its executor, :mod:`imbalance_stream.evaluate.delayed`).
"""

from imbalance_stream.base.deprecation import deprecated_aliases

from ..parallel import map_cells
from .array_replay import ArrayReplayResult, has_array_path, replay_array
from .prequential import (
    ModelFailed,
    PrequentialResult,
    StreamFailed,
    plot_curves,
    run_prequential,
)

# renamed in 0.2: the array replay's result shared its name with the event-log replay's
__getattr__ = deprecated_aliases(
    __name__,
    {
        "ReplayResult": "imbalance_stream.evaluate:ArrayReplayResult",
        "replay": "imbalance_stream.replay:replay",
    },
)


__all__ = [
    "ArrayReplayResult",
    "ModelFailed",
    "PrequentialResult",
    "StreamFailed",
    "has_array_path",
    "map_cells",
    "plot_curves",
    "replay_array",
    "run_prequential",
]
