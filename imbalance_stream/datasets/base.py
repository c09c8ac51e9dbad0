"""Data home, checksummed data files and the base class of the file-backed benchmark datasets.

The benchmark files are never shipped with the package, and the loaders never download them. A
user puts them once in a *data home*, the directory named by the environment variable
``IMBALANCE_STREAM_DATA`` (default ``~/imbalance_stream_data``), laid out by folder
(``libsvm/a9a.gz``, ``uci/car.csv``, ...), either by hand or with ``imbalance-stream data fetch
NAME`` (:mod:`imbalance_stream.datasets.fetch`, which downloads them from their public sources and
checks them). Each loader knows the relative path of its files, where to get them and their
SHA-256. The data home is read when a file is
needed, not when the package is imported, so changing the variable at run time takes effect.

A file's checksum is verified once per process (per resolved path), and parsed arrays are cached
in memory per process; nothing is written to disk.
"""

from __future__ import annotations

import abc
import bz2
import gzip
import hashlib
import os
import pathlib
import threading
import typing
import zlib
from dataclasses import dataclass

import numpy as np
from river.datasets import base as river_base

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

DATA_HOME_ENV = "IMBALANCE_STREAM_DATA"

#: The data home when ``$IMBALANCE_STREAM_DATA`` is unset or empty.
DEFAULT_DATA_HOME = "~/imbalance_stream_data"

BINARY_CLF = river_base.BINARY_CLF
MULTI_CLF = river_base.MULTI_CLF

_COLLECTIONS = (tuple, list, set, frozenset, range)


class ChecksumError(ValueError):
    """A data file whose SHA-256 differs from the one the loader expects."""


class CorruptedFileError(ValueError):
    """A data file that cannot be read as it should be: damaged upstream (e.g. a run of NUL bytes),
    cut short, or holding bytes its format does not allow; the message names the file and line."""


#: What a damaged compressed file raises while it is decompressed: ``EOFError`` (cut short),
#: ``zlib.error`` (a flipped byte in a deflate stream), ``OSError`` (``gzip.BadGzipFile``, a CRC
#: mismatch, bz2's "Invalid data stream").
DECOMPRESSION_ERRORS = (EOFError, zlib.error, OSError)


class MissingDataFile(FileNotFoundError):
    """A benchmark file that is not in the data home.

    ``path`` is the file's path inside the data home (``"libsvm/a9a.gz"``) and ``fetch_name`` the
    name that ``imbalance-stream data fetch`` downloads it under (``"a9a"``), or ``""``.
    """

    def __init__(self, message: str, path: str = "", fetch_name: str = ""):
        super().__init__(message)
        self.path = path
        self.fetch_name = fetch_name

    def __reduce__(self):  # keep the attributes across processes (parallel runs)
        return type(self), (self.args[0], self.path, self.fetch_name)

    def hint(self) -> str:
        """One line: which file is missing and what to do about it."""
        fetch = (
            f"run `imbalance-stream data fetch {self.fetch_name}`, or " if self.fetch_name else ""
        )
        return (
            f"data file {self.path!r} is not in the data home {str(get_data_home())!r}: "
            f"{fetch}set {DATA_HOME_ENV} to the folder that holds it"
        )


def get_data_home() -> pathlib.Path:
    """Return the data home: ``$IMBALANCE_STREAM_DATA``, else ``~/imbalance_stream_data``.

    Read at every call (not cached), and never created: the package only reads from it.

    """
    home = os.environ.get(DATA_HOME_ENV) or DEFAULT_DATA_HOME
    return pathlib.Path(os.path.expanduser(home))


def open_text(path: os.PathLike | str):
    """Open a text file for reading, decompressing ``.gz`` and ``.bz2`` by extension.

    Line endings are passed through unchanged (``newline=""`` is not used: universal newlines turn
    CRLF and lone CR into ``\\n``).

    """
    path = str(path)
    if path.endswith(".gz"):
        return gzip.open(path, "rt", encoding="ascii", errors="strict")
    if path.endswith(".bz2"):
        return bz2.open(path, "rt", encoding="ascii", errors="strict")
    return open(path, encoding="ascii", errors="strict")


def text_lines(path: os.PathLike | str) -> typing.Iterator[str]:
    """The lines of an ASCII text file (``.gz`` and ``.bz2`` decompressed), line endings kept.

    A byte that is not ASCII, or compressed data that is damaged or cut short, raises
    :class:`CorruptedFileError` naming the file and the line (counted from 1) where reading
    stopped, instead of a bare ``UnicodeDecodeError``, ``EOFError`` or ``zlib.error``.
    """
    name = os.fspath(path)
    handle: typing.Any
    if name.endswith(".gz"):
        handle = gzip.open(name, "rb")
    elif name.endswith(".bz2"):
        handle = bz2.open(name, "rb")
    else:
        handle = open(name, "rb")
    number = 0
    with handle:
        lines = iter(handle)
        while True:
            try:
                raw = next(lines)
            except StopIteration:
                return
            except DECOMPRESSION_ERRORS as error:
                raise CorruptedFileError(
                    f"{name}, line {number + 1}: the compressed data is damaged or cut short "
                    f"({type(error).__name__}: {error}); replace the file"
                ) from None
            number += 1
            try:
                yield raw.decode("ascii")
            except UnicodeDecodeError as error:
                raise CorruptedFileError(
                    f"{name}, line {number}: byte {raw[error.start : error.start + 1]!r} at "
                    f"column {error.start + 1} is not ASCII; the file is damaged or not this format"
                ) from None


def _sha256(path: pathlib.Path, decompress: bool = False) -> str:
    hasher = hashlib.sha256()
    name = str(path)
    handle: typing.Any  # a gzip, bz2 or plain binary file
    if decompress and name.endswith(".gz"):
        handle = gzip.open(name, "rb")
    elif decompress and name.endswith(".bz2"):
        handle = bz2.open(name, "rb")
    else:
        handle = open(name, "rb")
    with handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            hasher.update(block)
    return hasher.hexdigest()


# Resolved paths whose checksum was verified in this process, with the checksum verified.
_VERIFIED: set[tuple[str, str]] = set()
_VERIFY_LOCK = threading.Lock()


def github_blob(repo: str, commit: str, path: str) -> str:
    """The address of ``path`` in the GitHub repository ``repo`` ("owner/name") at ``commit``:
    the ``origin`` of a stored file copied from there."""
    return f"https://github.com/{repo}/blob/{commit}/{path}"


@dataclass(frozen=True)
class DataFile:
    """One benchmark file: where it lives in the data home, where it comes from, its checksum.

    Parameters
    ----------
    path
        Path relative to the data home, with ``/`` separators (e.g. ``"libsvm/a9a.gz"``).
    sha256
        SHA-256 of the stored file.
    url
        Public page or file of the original data (LIBSVM site, UCI repository, ...).
    origin
        Where the exact stored bytes come from (a repository file at a commit), when this differs
        from ``url``.
    content_sha256
        For a compressed file, the SHA-256 of its decompressed content: a copy compressed with
        other settings is accepted when its content matches.
    note
        Extra instructions shown when the file is missing (e.g. "gzip the download").

    """

    path: str
    sha256: str
    url: str
    origin: str = ""
    content_sha256: str = ""
    note: str = ""

    def location(self) -> pathlib.Path:
        """Where the file is expected in the current data home (not checked)."""
        return get_data_home().joinpath(*self.path.split("/"))

    def resolve(self) -> pathlib.Path:
        """Return the file's path after checking it exists and has the expected checksum.

        Raises
        ------
        MissingDataFile
            The file is not in the data home (a :class:`FileNotFoundError`); the message says
            where it was looked for, where to download it and which environment variable sets the
            data home.
        ChecksumError
            The file's content differs from the expected one.

        """
        path = self.location()
        if not path.is_file():
            from .fetch import fetch_name_of  # the download table imports this module

            name = fetch_name_of(self.path)
            source = self.origin or self.url
            extra = f" {self.note}" if self.note else ""
            fetch = f"`imbalance-stream data fetch {name}` downloads it; or d" if name else "D"
            raise MissingDataFile(
                f"data file {self.path!r} not found: looked for {str(path)!r} (data home "
                f"{str(get_data_home())!r}). {fetch}ownload it from {source}"
                + (f" (original: {self.url})" if self.origin else "")
                + f" and store it as {self.path!r} inside the data home, or set the environment "
                f"variable {DATA_HOME_ENV} to the directory that holds it.{extra}",
                path=self.path,
                fetch_name=name,
            )
        key = (str(path.resolve()), self.sha256)
        with _VERIFY_LOCK:
            if key in _VERIFIED:
                return path
        actual = _sha256(path)
        if actual != self.sha256:
            content = None
            if self.content_sha256:
                try:
                    content = _sha256(path, decompress=True)
                except DECOMPRESSION_ERRORS as error:  # not (or not valid) gzip / bz2 data
                    content = f"unreadable: {error}"
            if content != self.content_sha256 or content is None:
                raise ChecksumError(
                    f"data file {str(path)!r} has SHA-256 {actual}, expected {self.sha256}"
                    + (
                        f" (or decompressed content {self.content_sha256}, found {content})"
                        if self.content_sha256
                        else ""
                    )
                    + f". The file is corrupted or a different version; replace it with the copy "
                    f"from {self.origin or self.url}."
                )
        with _VERIFY_LOCK:
            _VERIFIED.add(key)
        return path


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
