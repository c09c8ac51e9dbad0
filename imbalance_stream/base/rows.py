"""A labelled array seen as a stream: what an estimator's array path receives.

:func:`imbalance_stream.evaluate.replay_array` wraps ``X`` and ``y`` in :class:`ArrayRows` and
hands them to :meth:`BinaryClassifier.replay_rows`, which calls the estimator's own jitted loop
(``_learn_rows``, implemented beside its ``_learn``). The rows are CSR (zeros are absent
features, as in a dict) and have already been checked for NaN and infinities.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from imbalance_stream._numba import stream

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

    def first_positions(self) -> np.ndarray:
        """For each column, the position in the CSR data of its first nonzero (int64 max if
        none)."""
        indices = np.asarray(self.csr.indices, dtype=np.int64)  # one compiled signature
        return stream.first_positions(indices, self.csr.shape[1])
