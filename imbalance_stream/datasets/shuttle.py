"""River's bundled Shuttle (ODDS version) with seeded stratified folds in the KOIL fold layout.

The KOIL thesis's shuttle (LIBSVM/UCI shuttle training file, 43,500 rows, positive = class 3, 132
rows) has fold files in the KOIL repository but no data file. River ships another version of the
same UCI data, the ODDS anomaly-detection benchmark, inside its package: 49,097 rows, 9 features,
the rare classes merged into one ``anomaly`` label (3,511 rows, 7.2%) and class 4 removed. Class 3
cannot be recovered from it, so this is a *different task* from the thesis's (7% positives
against 0.3%); :class:`ShuttleODDS` makes it usable by the KOIL protocol without pretending
otherwise.
"""

from __future__ import annotations

import numpy as np

from .base import BenchmarkDataset
from .koil import splits_from_folds

__all__ = ["ShuttleODDS", "stratified_fold_matrix"]


def stratified_fold_matrix(
    labels, repetitions: int = 4, n_folds: int = 5, seed: int = 0
) -> np.ndarray:
    """A seeded, stratified ``repetitions`` x ``n_folds`` cross-validation in KOIL's layout.

    Returns an ``int8`` matrix (N, ``repetitions``) whose column ``r`` gives every row's fold
    (1..``n_folds``) in repetition ``r``, as a KOIL ``_IdxCv`` file does. In each repetition the
    rows of every class are permuted (``numpy.random.default_rng(seed)``, one generator for the
    whole matrix) and dealt round-robin to the folds, so each fold holds
    ``floor`` or ``ceil`` of ``1 / n_folds`` of each class.

    >>> folds = stratified_fold_matrix([True] * 3 + [False] * 12, repetitions=2, n_folds=3)
    >>> np.bincount(folds[:3, 0]).tolist(), np.bincount(folds[3:, 1]).tolist()
    ([0, 1, 1, 1], [0, 4, 4, 4])

    """
    labels = np.asarray(labels)
    rng = np.random.default_rng(seed)
    folds = np.empty((len(labels), repetitions), dtype=np.int8)
    classes = np.unique(labels)
    for r in range(repetitions):
        for label in classes:
            rows = rng.permutation(np.flatnonzero(labels == label))
            folds[rows, r] = np.arange(len(rows)) % n_folds + 1
    return folds


class ShuttleODDS(BenchmarkDataset):
    """Statlog Shuttle as River bundles it (ODDS anomaly version), scaled to [0, 1], with folds.

    The rows of River's ``datasets.Shuttle`` in its file order (the file is shuffled: the
    anomalies are spread over it), the anomaly label (``1``, the merged rare classes) positive.
    Every feature is min-max scaled to [0, 1] over the whole file, as the KOIL authors' data files
    are (a constant feature would become 0). ``cv_folds()`` is a seeded stratified 4 x 5-fold
    cross-validation (:func:`stratified_fold_matrix`, ``seed`` 0 by default) in the layout of a
    KOIL ``_IdxCv`` file, and ``cv_splits()`` its 20 (train, test) pairs exactly as
    :meth:`KOIL.cv_splits` builds them. There is no inner fold file.

    This is **not** the thesis's shuttle task (class 3 vs rest, 132 positives in the 43,500 rows
    of the LIBSVM training file): the ODDS version merges the rare classes (3,511 positives, 7.2%)
    and drops class 4, so results on it cannot be compared with the thesis's.

    Reading it needs no data home: River's copy is inside the installed package.

    Parameters
    ----------
    seed
        Seed of the cross-validation folds.

    Examples
    --------
    >>> from imbalance_stream.datasets import ShuttleODDS
    >>> shuttle = ShuttleODDS()
    >>> X, y, names = shuttle.to_numpy()
    >>> X.shape, int(y.sum()), float(X.min()), float(X.max())
    ((49097, 9), 3511, 0.0, 1.0)
    >>> train, test = shuttle.cv_splits()[0]
    >>> len(train) + len(test), int(y[test].sum())
    (49097, 703)

    """

    def __init__(self, seed: int = 0):
        self.seed = int(seed)
        super().__init__(files=(), positive_class=1, n_features=9, n_samples=49_097)

    def _parse(self, paths):
        from river import datasets

        source = datasets.Shuttle()
        names = [f"f{i}" for i in range(1, 10)]
        X = np.empty((source.n_samples, len(names)))
        y = np.empty(source.n_samples, dtype=np.int64)
        for i, (x, label) in enumerate(source):
            X[i] = [x[name] for name in names]
            y[i] = label
        low, span = X.min(axis=0), np.ptp(X, axis=0)
        X = (X - low) / np.where(span > 0, span, 1.0)
        return X, y, names

    def cv_folds(self) -> np.ndarray:
        """The N x 4 fold matrix (``int8``, values 1..5) of the seeded stratified 4 x 5-fold CV."""
        return stratified_fold_matrix(self.to_numpy()[1], seed=self.seed)

    def cv_splits(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The 20 (train rows, test rows) pairs, trial ``5 r + j`` testing fold ``j + 1`` of
        repetition ``r``; both in file order."""
        return splits_from_folds(self.cv_folds())
