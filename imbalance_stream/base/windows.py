"""Sample windows of dense vectors over one feature space.

What the density-ratio components keep between refreshes: the novelty detectors of
:mod:`imbalance_stream.anomaly` (a reference and a test window) and the re-weighters of
:mod:`imbalance_stream.density_ratio` (a source and a target window). Feature dicts are mapped to
dense vectors over the names seen (a missing name is 0); the windows store those vectors as they
were when taken in, and a refresh reads them back as matrices over the columns known then.
"""

from __future__ import annotations

import collections
import sys

import numpy as np

from .features import KERNEL_MAX_FEATURES, FeatureSpace
from .validation import check_int

__all__ = ["RESELECT_EVERY", "RefreshSchedule", "SampleWindows"]

#: Default ``reselect_every`` of the windowed detectors and re-weighters: their hyper-parameters
#: are chosen at the first refresh and again every 20 refreshes (see :class:`RefreshSchedule`).
RESELECT_EVERY = 20


class SampleWindows:
    """Named windows of dense vectors sharing one :class:`FeatureSpace`.

    A vector is validated and its new names are known only once :meth:`commit` is called, so a
    caller can validate a sample, do whatever else may fail, and then commit, leaving nothing
    changed when something refuses the sample. ``n_columns`` is the number of columns the last
    refresh saw (:meth:`freeze`); :meth:`query` maps a new sample onto those columns without
    changing anything.

    Parameters
    ----------
    sizes
        ``{name: maximum length}``; None keeps every vector.
    """

    def __init__(self, sizes: dict[str, int | None]):
        # windows hold dense vectors, as a kernel machine's support vectors: the same limit
        self.features = FeatureSpace(max_features=KERNEL_MAX_FEATURES)
        self.windows: dict[str, collections.deque] = {
            name: collections.deque(maxlen=size) for name, size in sizes.items()
        }
        self.n_columns = 0
        self.pushed = dict.fromkeys(sizes, 0)  # vectors ever pushed into each window

    def encode(self, x: dict) -> tuple[np.ndarray, list]:
        """``x`` as a dense vector over every name seen and the names it would add; validates
        ``x`` (a bad value raises naming the feature) and changes nothing."""
        indices, values, new = self.features.encode(x, grow=True)
        return self.features.dense(indices, values, len(self.features) + len(new)), new

    def commit(self, new: list) -> None:
        """Make the names returned by :meth:`encode` known."""
        if new:
            self.features.commit(new)

    def vector(self, x: dict) -> np.ndarray:
        """:meth:`encode` and :meth:`commit` in one step."""
        vector, new = self.encode(x)
        self.commit(new)
        return vector

    def push(self, name: str, vector: np.ndarray) -> np.ndarray | None:
        """Append ``vector`` to window ``name``; return the vector it pushed out, if any."""
        window = self.windows[name]
        left = window[0] if len(window) == window.maxlen else None
        window.append(vector)
        self.pushed[name] += 1
        return left

    def __setstate__(self, state: dict) -> None:
        # windows pickled before the pushes were counted: count what they hold
        state.setdefault("pushed", {name: len(rows) for name, rows in state["windows"].items()})
        self.__dict__.update(state)

    def carried(self, name: str, values: np.ndarray, pushed_then: int, fill: float) -> np.ndarray:
        """``values``, one per row of window ``name`` when it had been pushed ``pushed_then``
        vectors, carried over to the window's rows now: a row still held keeps its value (the
        oldest rows are the ones that left), a row pushed since gets ``fill``."""
        length = len(self.windows[name])
        kept = max(length - (self.pushed[name] - pushed_then), 0)
        out = np.full(length, float(fill))
        out[:kept] = values[len(values) - kept :]
        return out

    def matrix(self, name: str, n_columns: int | None = None) -> np.ndarray:
        """Window ``name`` as a matrix over ``n_columns`` (default: :attr:`n_columns`), vectors
        stored before a name was learned padded with zeros."""
        window = self.windows[name]
        width = self.n_columns if n_columns is None else n_columns
        matrix = np.zeros((len(window), width))
        for row, vector in enumerate(window):
            kept = min(len(vector), width)
            matrix[row, :kept] = vector[:kept]
        return matrix

    def freeze(self) -> int:
        """Take the current feature space as the refresh's columns; returns their number."""
        self.n_columns = len(self.features)
        return self.n_columns

    def at_columns(self, vector: np.ndarray) -> np.ndarray:
        """``vector`` over the columns of the last refresh: names learned since are dropped, names
        learned since the vector was stored are 0."""
        out = np.zeros(self.n_columns)
        kept = min(len(vector), self.n_columns)
        out[:kept] = vector[:kept]
        return out

    def query(self, x: dict) -> np.ndarray:
        """``x`` over the columns of the last refresh, names not learned then ignored; validates
        ``x`` and changes nothing (for pure scoring)."""
        indices, values, _ = self.features.encode(x, grow=False)
        covered = indices < self.n_columns
        return self.features.dense(indices[covered], values[covered], self.n_columns)


class RefreshSchedule:
    """Mixin of the components that re-solve on their windows: :meth:`_count_sample` calls
    ``refresh()`` after every :attr:`_refresh_period` samples taken in (``refresh_every``
    unless a component says otherwise; never when it is None), and ``refresh()`` sets
    ``_since_refresh`` back to 0.

    It also says when a refresh selects the hyper-parameters that the component's batch method
    chooses when they are not given (a width by the thesis's leave-one-out or likelihood
    cross-validation, KMM's median distance): at the first refresh that runs, then at every
    ``reselect_every``-th refresh after it (None: never again), and at the next refresh after
    :meth:`reselect`. Every other refresh solves the batch method on the current windows with
    the values of the last selection held, and a KMM solve starts from the last solution at the
    rows still in the window (:meth:`_fit_selected`). ``reselect_every=1`` is the
    thesis's procedure, a selection at every refresh.
    """

    refresh_every: int | None
    _since_refresh: int
    _windows: SampleWindows
    # Class-level values for components pickled before selections were held, which then go on
    # as they ran: a selection at every refresh.
    reselect_every: int | None = 1
    _selection: dict | None = None  # the values held since the last selecting refresh
    _since_selection: int = 0  # refreshes run since then, the selecting one included
    _reselect_asked: bool = False
    _warm: tuple[np.ndarray, int] | None = None  # a solution over a window's rows, its pushes then

    def __setstate__(self, state: dict) -> None:
        # The held selection is keyed by parameter names, the very (interned) strings of the
        # instances' attribute names, so a pickle writes each once. Unpickling interns an
        # instance's attribute names (when the class has no __setstate__: here, so this does it)
        # but not a plain dict's keys: intern both, so that a component read back pickles to
        # the same bytes (a resumed replay's model sizes).
        selection = state.get("_selection")
        if selection is not None:
            state["_selection"] = {sys.intern(name): value for name, value in selection.items()}
        self.__dict__.update((sys.intern(name), value) for name, value in state.items())

    def _init_selection(self, reselect_every: int | None) -> None:
        self.reselect_every = check_int("reselect_every", reselect_every, low=1, optional=True)
        self._selection = None
        self._since_selection = 0
        self._reselect_asked = False
        self._warm = None

    def reselect(self) -> None:
        """Make the next refresh select the hyper-parameters again (as the first refresh does),
        whatever ``reselect_every`` says; the refreshes after it count from there."""
        self._reselect_asked = True

    @property
    def _selection_due(self) -> bool:
        """Whether the next refresh that runs selects the hyper-parameters."""
        return (
            self._selection is None
            or self._reselect_asked
            or (self.reselect_every is not None and self._since_selection >= self.reselect_every)
        )

    def _held_selection(self) -> dict | None:
        """The values a refresh solves with: those of the last selection, or None when this
        refresh selects."""
        return None if self._selection_due else self._selection

    def _selection_done(self, selection: dict | None) -> None:
        """Count a refresh that ran: ``selection`` is what it selected (``{name: value}`` of the
        parameters left None), or None if it held the last selection."""
        if selection is not None:
            self._selection = selection
            self._since_selection = 1
            self._reselect_asked = False
        else:
            self._since_selection += 1

    def _fit_selected(self, estimator, source: np.ndarray, target: np.ndarray, window: str):
        """Fit the batch ``estimator`` on a refresh's matrices, ``source`` being the rows of
        ``window``, at the held selection unless this refresh selects; returns it fitted.

        ``estimator.SELECTED`` maps each parameter the estimator chooses when it is None to the
        attribute holding its choice. A held refresh sets those parameters to the held values and
        gives an estimator that takes a start (KMM) the last solution carried over to the
        window's rows, new rows at 1 (the cold start's value); a selecting refresh fits exactly
        as the batch estimator does on its own.
        """
        held = self._held_selection()
        kwargs = {}
        if held is not None:
            for name, value in held.items():
                setattr(estimator, name, value)
            if self._warm is not None and estimator.WARM_START:
                solution, pushed_then = self._warm
                kwargs["start"] = self._windows.carried(window, solution, pushed_then, fill=1.0)
        estimator.fit(source, target, **kwargs)
        selected = None
        if held is None:
            selected = {
                name: getattr(estimator, attribute)
                for name, attribute in estimator.SELECTED.items()
                if getattr(estimator, name) is None
            }
        self._selection_done(selected)
        self._warm = None
        if estimator.WARM_START:  # its solution, one weight per row of ``window``
            self._warm = (estimator.weights_, self._windows.pushed[window])
        return estimator

    @property
    def _refresh_period(self) -> int | None:
        return self.refresh_every

    def refresh(self) -> bool:  # pragma: no cover - every user defines it
        raise NotImplementedError

    def _sample_counted(self) -> bool:
        """Count one sample taken in; returns whether a refresh is due now."""
        self._since_refresh += 1
        period = self._refresh_period
        return period is not None and self._since_refresh >= period

    def _count_sample(self) -> None:
        if self._sample_counted():
            self.refresh()
