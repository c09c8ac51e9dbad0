"""The data home and its checksummed files, on the standard library alone.

The benchmark files are never shipped with the package, and the loaders never download them. A
user puts them once in a *data home*, the directory named by the environment variable
``IMBALANCE_STREAM_DATA`` (default ``~/imbalance_stream_data``), laid out by folder
(``libsvm/a9a.gz``, ``uci/car.csv``, ...), either by hand or with ``imbalance-stream data fetch
NAME`` (:mod:`imbalance_stream.datasets.fetch`). A :class:`DataFile` knows a file's path there,
where to get it, its SHA-256 and the name that command downloads it under; the files of every
loader are listed in :mod:`imbalance_stream.datasets._files`, the catalogue that the loaders and
the fetching read. Neither module imports numpy or River, so that
``imbalance-stream data`` starts at once; :mod:`imbalance_stream.datasets.base` re-exports them
beside the loaders' base class.

A file's checksum is verified once per process (per resolved path).
"""

from __future__ import annotations

import bz2
import gzip
import hashlib
import os
import pathlib
import threading
import typing
import zlib
from dataclasses import dataclass

__all__ = [
    "DATA_HOME_ENV",
    "DEFAULT_DATA_HOME",
    "ChecksumError",
    "CorruptedFileError",
    "DataFile",
    "MissingDataFile",
    "get_data_home",
    "github_blob",
    "open_text",
    "text_lines",
]

DATA_HOME_ENV = "IMBALANCE_STREAM_DATA"

#: The data home when ``$IMBALANCE_STREAM_DATA`` is unset or empty.
DEFAULT_DATA_HOME = "~/imbalance_stream_data"


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
    fetch_name
        The name that ``imbalance-stream data fetch`` downloads the file under (``"a9a"``), named
        when the file is missing; ``""`` for a file it does not download. The loaders' file
        tables (:mod:`imbalance_stream.datasets._files`) give every file its name, and
        :mod:`imbalance_stream.datasets.fetch` reads its names from them.

    """

    path: str
    sha256: str
    url: str
    origin: str = ""
    content_sha256: str = ""
    note: str = ""
    fetch_name: str = ""

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
            name = self.fetch_name
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
