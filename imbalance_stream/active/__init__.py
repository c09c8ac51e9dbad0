"""Active example selection for the online SVMs of seed 003 (Ertekin 2009, chapters 3-4).

* :class:`SmallPoolSelection`: pick each example to learn from a small random pool of a stored
  dataset: RANDOM, GRADIENT, ACTIVE and AUTOACTIVE (section 3.3), and the pool of 59 of
  chapter 4 (``pool=59``);
* :class:`SaturationStop`: the early stopping of chapter 4, when the number of support vectors
  stops growing;
* :class:`Virtual`: VIRTUAL (chapter 5), ACTIVE selection that adds virtual positives around the
  real positives that become support vectors.

* :class:`MarginSampler`: the same on a stream, in River's active protocol (``predict_one``
  returns the prediction and whether to ask for the label): asks near the boundary, stops at
  saturation, optionally with VIRTUAL's virtual positives.
"""

from .margin_sampler import MarginSampler
from .small_pool import SaturationStop, SelectionRun, SmallPoolSelection
from .virtual import Virtual

__all__ = ["MarginSampler", "SaturationStop", "SelectionRun", "SmallPoolSelection", "Virtual"]
