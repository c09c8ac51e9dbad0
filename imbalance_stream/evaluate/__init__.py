"""Evaluation: prequential runs, the papers' protocols, parallel sweeps, event-log replay."""

from .parallel import map_cells

__all__ = ["map_cells"]
