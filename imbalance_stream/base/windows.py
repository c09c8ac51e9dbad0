"""Sample windows of dense vectors over one feature space.

What the density-ratio components keep between refreshes: the novelty detectors of
:mod:`imbalance_stream.anomaly` (a reference and a test window) and the re-weighters of
:mod:`imbalance_stream.density_ratio` (a source and a target window). Feature dicts are mapped to
dense vectors over the names seen (a missing name is 0); the windows store those vectors as they
were when taken in, and a refresh reads them back as matrices over the columns known then.
"""

from __future__ import annotations

import collections

import numpy as np

from .features import KERNEL_MAX_FEATURES, FeatureSpace

__all__ = ["RefreshSchedule", "SampleWindows"]


class SampleWindows:
    """Named windows of dense vectors sharing one :class:`FeatureSpace`.

    Parameters
    ----------
    sizes
        ``{name: maximum length}``; None keeps every vector.

    A vector is validated and its new names are known only once :meth:`commit` is called, so a
    caller can validate a sample, do whatever else may fail, and then commit, leaving nothing
    changed when something refuses the sample. ``n_columns`` is the number of columns the last
    refresh saw (:meth:`freeze`); :meth:`query` maps a new sample onto those columns without
    changing anything.
    """

    def __init__(self, sizes: dict[str, int | None]):
        # windows hold dense vectors, as a kernel machine's support vectors: the same limit
        self.features = FeatureSpace(max_features=KERNEL_MAX_FEATURES)
        self.windows: dict[str, collections.deque] = {
            name: collections.deque(maxlen=size) for name, size in sizes.items()
        }
        self.n_columns = 0

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
        return left

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
    ``_since_refresh`` back to 0."""

    refresh_every: int | None
    _since_refresh: int

    @property
    def _refresh_period(self) -> int | None:
        return self.refresh_every

    def refresh(self) -> bool:  # pragma: no cover - every user defines it
        raise NotImplementedError

    def _count_sample(self) -> None:
        self._since_refresh += 1
        period = self._refresh_period
        if period is not None and self._since_refresh >= period:
            self.refresh()
