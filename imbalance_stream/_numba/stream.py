"""Whole-stream runners: test-then-train over a CSR array, and schedules of steps, in jitted loops.

The array runners (``replay_acog``, ``replay_baseline``, ``replay_sacog``) replay rows ``t = start
.. T-1`` of a CSR matrix (``indptr``, ``indices``, ``values``: no explicit zeros, and the constant
feature, column 0, appended to every row of a model with an intercept) with labels ``signs`` in
{+1.0, -1.0}. For every row they predict with the current state (``+1`` when the score is
``>= 0``: ties go to the rare class), write the prediction, then learn the row with the **same**
step kernel, and the same check of what it wrote, that ``learn_one`` runs, so that the array path
and the dict path do the same arithmetic in the same order. A row is encoded as ``predict_one``
and ``learn_one`` encode its dict (its nonzero values in column order, then the constant feature),
and a learned row commits the names it brings as ``learn_one`` does, in ``new_names`` (in the order
committed) and ``sizes`` (the counters :data:`N_NAMES` ...), for the caller to commit to the
feature space.

The columns of ``indices`` are *provisional*: the model's column of each name committed when the
run starts, and for the others the column each would get if the names were committed in order of
first appearance, as they are unless a step that brings names is refused; ``colmap`` gives the
model column of each provisional column (-1: not committed), and ``brings[t]`` says whether a name
appears first in row ``t``. While every committed name has its provisional column
(``sizes[FAITHFUL]``), a row that brings no name is its own encoding, read as it stands, without a
look-up per value; any other row is encoded through ``colmap``.

A step ``learn_one`` refuses (an overflow: ``NumericalError``, the model unchanged) keeps nothing
here either, neither its values, nor its label count, nor its names: the loop goes on with the
next row, as a loop of ``predict_one`` and ``learn_one`` that catches the error goes on
(``sizes[FIRST_NEGATIVE]`` is the first row whose negative label was learned, which
``learn_one`` would have adopted then). A runner returns the row it stopped at: the end, or a row
whose learning needs the state to grow past its arrays, which the caller learns with
``learn_one`` before it runs the rest (for SACOG, also a row whose round left a value not finite:
its caller puts the state back, :meth:`~imbalance_stream.linear_model.SACOG._kept_unless_spoilt`).

An empty row is predicted (score 0, so +1) and not learned, as ``learn_one({}, y)`` is a no-op.
The cost ratio is either fixed (``laplace=False``) or the Laplace estimate ``(t_n + 1) / (t_p + 1)``
with the current label counted first; ``counts = [t_p, t_n]`` is read and updated in place.

The steps runners (``steps_acog``, ``steps_baseline``, ``steps_sacog``) run dense rows in any order
of predictions and learning steps, with the same encoders of a row
(:func:`~imbalance_stream._numba.stream_rows.known_row`,
:func:`~imbalance_stream._numba.stream_rows.row_to_learn`), the same step kernels, and the same
check and rollback of a learning step as the array runners (for SACOG,
:func:`sketch_round_finite`).

The runners live in :mod:`~imbalance_stream._numba.stream_replay` (the array runners) and
:mod:`~imbalance_stream._numba.stream_steps` (the steps runners), on the row encoders and counters
of :mod:`~imbalance_stream._numba.stream_rows` and the rounds each family's ``learn_one`` takes,
of :mod:`~imbalance_stream._numba.stream_rounds`; this module states their contract and names
them all, for the estimators to import from one place.
"""

from __future__ import annotations

from .stream_replay import replay_acog, replay_baseline, replay_sacog
from .stream_rounds import (
    AROW,
    COG_I,
    COG_II,
    CPA,
    CPAML,
    IN_USE,
    NAMED,
    PA,
    PAUM,
    PERCEPTRON,
    ROMMA,
    SPOILT,
    sketch_round_finite,
)
from .stream_rows import (
    FAITHFUL,
    FIRST_NEGATIVE,
    GROW_TO,
    N_NAMES,
    N_NEW,
    N_STATE,
    N_UPDATES,
    NEVER,
    NO_MATRIX,
    NO_VECTOR,
    empty_predictions,
    first_positions,
)
from .stream_steps import steps_acog, steps_baseline, steps_sacog

__all__ = [
    "AROW",
    "COG_I",
    "COG_II",
    "CPA",
    "CPAML",
    "FAITHFUL",
    "FIRST_NEGATIVE",
    "GROW_TO",
    "IN_USE",
    "NAMED",
    "NEVER",
    "NO_MATRIX",
    "NO_VECTOR",
    "N_NAMES",
    "N_NEW",
    "N_STATE",
    "N_UPDATES",
    "PA",
    "PAUM",
    "PERCEPTRON",
    "ROMMA",
    "SPOILT",
    "empty_predictions",
    "first_positions",
    "replay_acog",
    "replay_baseline",
    "replay_sacog",
    "sketch_round_finite",
    "steps_acog",
    "steps_baseline",
    "steps_sacog",
]
