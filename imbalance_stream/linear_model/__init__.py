"""Linear online learners: the ACOG family (seed 002) and, as they land, its baselines and the
incremental proximal SVMs of seed 001."""

from .acog import ACOG

__all__ = ["ACOG"]
