"""Active example selection for the online SVMs of seed 003 (Ertekin 2009, chapters 3-4).

* :class:`SmallPoolSelection`: pick each example to learn from a small random pool of a stored
  dataset: RANDOM, GRADIENT, ACTIVE and AUTOACTIVE (section 3.3), and the pool of 59 of
  chapter 4 (``pool=59``);
* :class:`SaturationStop`: the early stopping of chapter 4, when the number of support vectors
  stops growing.

VIRTUAL (chapter 5) and a stream-side selector are not built yet.
"""

from .small_pool import SaturationStop, SelectionRun, SmallPoolSelection

__all__ = ["SaturationStop", "SelectionRun", "SmallPoolSelection"]
