"""The base class of the file-backed benchmark datasets, and the data home they read.

The data home, :class:`DataFile` and the errors of a missing or damaged file live in
:mod:`imbalance_stream.datasets.home` (no numpy, no River: ``imbalance-stream data`` reads them)
and are re-exported here. The data home is read when a file is needed, not when the package is
imported, so changing the variable at run time takes effect.

A file's checksum is verified once per process (per resolved path), and parsed arrays are cached
in memory per process; nothing is written to disk.
"""

from __future__ import annotations

import abc
import pathlib
import threading
import typing

import numpy as np
from river.datasets import base as river_base

from .home import (
    DATA_HOME_ENV,
    DEFAULT_DATA_HOME,
    ChecksumError,
    CorruptedFileError,
    DataFile,
    MissingDataFile,
    get_data_home,
    open_text,
    text_lines,
)

__all__ = [
    "DATA_HOME_ENV",
    "DEFAULT_DATA_HOME",
    "BenchmarkDataset",
    "ChecksumError",
    "CorruptedFileError",
    "DataFile",
    "MissingDataFile",
    "clear_cache",
    "get_data_home",
    "open_text",
    "text_lines",
]

BINARY_CLF = river_base.BINARY_CLF
MULTI_CLF = river_base.MULTI_CLF

_COLLECTIONS = (tuple, list, set, frozenset, range)


# Parsed arrays, per process: key -> (X, raw labels, feature names).
_CACHE: dict[tuple, tuple[np.ndarray, np.ndarray, tuple]] = {}
_CACHE_LOCK = threading.Lock()


def clear_cache() -> None:
    """Forget the parsed arrays of every dataset (they are re-read, not re-verified, on next
    use)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _freeze(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _positive_set(positive_class) -> frozenset | None:
    if positive_class is None:
        return None
    if isinstance(positive_class, _COLLECTIONS):
        return frozenset(positive_class)
    return frozenset([positive_class])


class BenchmarkDataset(river_base.FileDataset):
    """A dataset read from checksummed files of the data home (base class of the loaders).

    Subclasses declare their files, implement :meth:`_parse` (files -> dense ``float64`` matrix,
    raw labels, feature names) and, when they take options that change the parse, extend
    :meth:`_parse_key`. The class gives them iteration in River's ``(dict, label)`` protocol, a
    per-process cache of the parsed arrays, binarisation through ``positive_class`` and
    :meth:`to_numpy` for protocol code that works on arrays.

    Parameters
    ----------
    files
        The data files, in the order the parser reads them (none for data bundled by a package).
    positive_class
        Raw label (or collection of raw labels) that becomes the positive class ``True``; every
        other label becomes ``False``. ``None`` keeps the raw labels (multi-class task).
    n_features
        Number of features.
    n_samples
        Number of rows (after any documented row filtering), known in advance.
    n_classes
        Number of raw classes (used only when ``positive_class`` is None).
    sparse
        Whether iteration yields only the non-zero features of each row (LIBSVM-style data, where a
        missing feature is 0) instead of every feature.

    """

    def __init__(
        self,
        files: typing.Sequence[DataFile],
        positive_class,
        n_features: int,
        n_samples: int,
        n_classes: int | None = None,
        sparse: bool = False,
    ):
        self.files = tuple(files)
        self.positive_class = positive_class
        binary = positive_class is not None
        super().__init__(
            filename=self.files[0].path if self.files else "",
            task=BINARY_CLF if binary else MULTI_CLF,
            n_features=n_features,
            n_samples=n_samples,
            n_classes=2 if binary else n_classes,
            sparse=sparse,
        )

    # --- files ---------------------------------------------------------------------------------

    @property
    def path(self) -> pathlib.Path | None:
        """Location of the (first) data file in the current data home (None without files)."""
        return self.files[0].location() if self.files else None

    @property
    def paths(self) -> list[pathlib.Path]:
        """Locations of all the data files in the current data home."""
        return [f.location() for f in self.files]

    @property
    def is_available(self) -> bool:
        """Whether every data file exists in the current data home (checksums not checked)."""
        return all(p.is_file() for p in self.paths)

    def resolve(self) -> list[pathlib.Path]:
        """Check every file (existence, checksum) and return their paths."""
        return [f.resolve() for f in self.files]

    # --- parsing and cache -----------------------------------------------------------------------

    @abc.abstractmethod
    def _parse(self, paths: list[pathlib.Path]) -> tuple[np.ndarray, np.ndarray, typing.Sequence]:
        """Read the files into (X (n, d), raw labels (n,), feature names (d,)).

        ``X`` is float64, or a smaller numeric type (MNIST's uint8) that :meth:`to_numpy`
        converts on each call, so that the per-process cache stays compact.

        """

    def _parse_key(self) -> tuple:
        """Options that change what :meth:`_parse` returns (part of the cache key)."""
        return ()

    def _arrays(self) -> tuple[np.ndarray, np.ndarray, tuple]:
        paths = self.resolve()
        key = (type(self).__qualname__, tuple(str(p.resolve()) for p in paths), self._parse_key())
        with _CACHE_LOCK:
            cached = _CACHE.get(key)
        if cached is None:
            X, raw, names = self._parse(paths)
            X = np.ascontiguousarray(X)  # float64, or a compact type that to_numpy converts
            raw = np.asarray(raw)
            if X.shape != (len(raw), len(names)):
                raise RuntimeError(
                    f"{type(self).__name__}: parsed shapes disagree: X {X.shape}, "
                    f"{len(raw)} labels, {len(names)} feature names"
                )
            cached = (_freeze(X), _freeze(raw), tuple(names))
            with _CACHE_LOCK:
                _CACHE[key] = cached
        return cached

    def raw_labels(self) -> np.ndarray:
        """The labels as stored in the file (before binarisation), read-only."""
        return self._arrays()[1]

    def to_numpy(self) -> tuple[np.ndarray, np.ndarray, tuple]:
        """Return ``(X, y, feature_names)``.

        ``X`` is a dense C-contiguous ``float64`` matrix, ``y`` the labels (a ``bool`` array when
        ``positive_class`` is set, else the raw labels) and ``feature_names`` the keys used by
        iteration, in column order. The arrays are shared with the in-memory cache and read-only:
        copy them before changing them.

        """
        X, raw, names = self._arrays()
        if X.dtype != np.float64:  # compactly cached data (MNIST): a fresh float64 copy
            X = X.astype(np.float64)
        return X, self._binarise(raw), names

    def _binarise(self, raw: np.ndarray) -> np.ndarray:
        positives = _positive_set(self.positive_class)
        if positives is None:
            return raw
        y = np.isin(raw, list(positives))
        if not y.any():
            raise ValueError(
                f"{type(self).__name__}: positive_class={self.positive_class!r} matches no label; "
                f"the labels are {sorted(set(raw.tolist()), key=repr)}"
            )
        return _freeze(y)

    def __iter__(self):
        X, raw, names = self._arrays()
        labels = self._binarise(raw).tolist()  # Python bools / ints / strs, not numpy scalars
        if self.sparse:
            for row, label in zip(X, labels):
                nonzero = np.flatnonzero(row)
                values = row[nonzero].astype(np.float64).tolist()
                yield dict(zip([names[j] for j in nonzero], values)), label
        else:
            for row, label in zip(X, labels):
                yield dict(zip(names, row.astype(np.float64).tolist())), label

    @property
    def _repr_content(self):
        content = super()._repr_content
        if self.files:
            content["Path"] = ", ".join(str(p) for p in self.paths)
        else:
            content.pop("Path", None)
        if self.positive_class is not None:
            content["Positive class"] = repr(self.positive_class)
        return content
