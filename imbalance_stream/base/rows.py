"""A labelled array seen as a stream: what an estimator's array path receives.

:func:`imbalance_stream.evaluate.replay_array` wraps ``X`` and ``y`` in :class:`ArrayRows` and
hands them to :meth:`BinaryClassifier.replay_rows`, which calls the estimator's own jitted loop
(``_replay_kernel``, implemented beside its ``_learn``). The rows are CSR (zeros are absent
features, as in a dict); :meth:`ArrayRows.check_values` refuses what the dict path refuses.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from imbalance_stream._numba import stream

from .features import MAX_ABS_VALUE, InvalidFeature

__all__ = ["ArrayRows"]


@dataclasses.dataclass
class ArrayRows:
    """The rows of a labelled array, in stream order.

    Attributes
    ----------
    csr
        The samples, one CSR row each, column ``j`` being the feature ``feature_names[j]``.
    labels
        One label per row.
    feature_names
        The name of each column.

    """

    csr: sparse.csr_matrix
    labels: np.ndarray
    feature_names: Sequence

    def __len__(self) -> int:
        return self.csr.shape[0]

    def row_dict(self, t: int) -> dict:
        """Row ``t`` as the dict ``learn_one`` would receive (nonzero features, column order)."""
        a, b = self.csr.indptr[t], self.csr.indptr[t + 1]
        names = self.feature_names
        return {
            names[j]: float(v)
            for j, v in zip(self.csr.indices[a:b].tolist(), self.csr.data[a:b].tolist())
        }

    def label(self, t: int):
        """Label of row ``t`` as a Python object (numpy scalars unwrapped, as River passes them)."""
        label = self.labels[t]
        return label.item() if isinstance(label, np.generic) else label

    def check_values(self) -> None:
        """Raise :class:`~imbalance_stream.base.InvalidFeature` naming the feature and the row of
        the first value the dict path would refuse: NaN, an infinity, or beyond
        :data:`~imbalance_stream.base.features.MAX_ABS_VALUE` (1e15) in magnitude."""
        data = self.csr.data
        with np.errstate(invalid="ignore"):
            bad = ~(np.abs(data) <= MAX_ABS_VALUE)  # NaN compares False: one pass for all three
        if not bad.any():
            return
        position = int(np.argmax(bad))
        row = int(np.searchsorted(self.csr.indptr, position, side="right") - 1)
        name = self.feature_names[int(self.csr.indices[position])]
        value = float(data[position])
        if not math.isfinite(value):
            raise InvalidFeature(f"feature {name!r} has non-finite value {value!r} in row {row}")
        raise InvalidFeature(
            f"feature {name!r} has value {value!r} in row {row}, beyond the limit of "
            f"{MAX_ABS_VALUE:g} in magnitude that the models' arithmetic can carry; scale it "
            "first (e.g. with river.preprocessing.StandardScaler)"
        )

    def first_positions(self) -> np.ndarray:
        """For each column, the position in the CSR data of its first nonzero (int64 max if
        none)."""
        indices = np.asarray(self.csr.indices, dtype=np.int64)  # one compiled signature
        return stream.first_positions(indices, self.csr.shape[1])
