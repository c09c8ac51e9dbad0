"""Download the benchmark files into the data home, from their public sources, checked by SHA-256.

The loaders never download anything: they read the data home (``$IMBALANCE_STREAM_DATA``). This
module fills it, for users with a network, through ``imbalance-stream data fetch NAME...`` or
:func:`fetch`. Each file comes from one public address, recorded in :data:`SOURCES` (mostly the
file at a fixed commit of a public GitHub repository, the exact bytes the checksums were taken
from; MNIST from a public mirror of the original files), is transformed as the data home stores it
(gzip-compressed, or a line range of the source), and is kept only if its SHA-256 (or, for a
compressed file, the SHA-256 of its content) is the one the loader expects.

Names (:data:`NAMES`; ``imbalance-stream data list`` prints them): the LIBSVM and UCI sets by
their loader's name in lower case (``a9a``, ``german``, ``car``, ``breast-cancer-wisconsin``, ...),
``mnist``, ``koil-<name>`` for one of the KOIL paper's sets with its fold files (``koil-glass``),
and ``koil`` for all of them.

``base_url`` (or the environment variable ``IMBALANCE_STREAM_DATA_URL``) replaces every source's
scheme and host part by a mirror that keeps the rest of the address:
``https://raw.githubusercontent.com/o/r/c/p`` is read from
``<base_url>/raw.githubusercontent.com/o/r/c/p``. The tests use it to serve files from a local
HTTP server.

>>> from imbalance_stream.datasets import fetch
>>> fetch.fetch_name_of("libsvm/a9a.t.gz")
'a9a'
>>> [s.path for s in fetch.sources_of("dna")]
['libsvm/dna.scale', 'libsvm/dna.scale.t']
>>> fetch.SOURCES["libsvm/a9a.gz"].url
'https://raw.githubusercontent.com/dtera/fl_xgboost/0abd2e16afeea63f53ff249f4e0ad15a8e5d663c/data/a9a'
>>> fetch.SOURCES["libsvm/a9a.gz"].transform
'gzip'

"""

from __future__ import annotations

import dataclasses
import gzip
import os
import pathlib
import shutil
import tempfile
import urllib.request

from .home import DECOMPRESSION_ERRORS, ChecksumError, DataFile, _sha256, get_data_home

__all__ = [
    "BASE_URL_ENV",
    "NAMES",
    "SOURCES",
    "Source",
    "check",
    "fetch",
    "fetch_name_of",
    "sources_of",
]

#: Environment variable naming a mirror of the sources (see the module docstring).
BASE_URL_ENV = "IMBALANCE_STREAM_DATA_URL"

_MNIST = "https://ossci-datasets.s3.amazonaws.com/mnist/"


@dataclasses.dataclass(frozen=True)
class Source:
    """Where one data-home file comes from and how it is stored.

    Attributes
    ----------
    file
        The :class:`~imbalance_stream.datasets.base.DataFile` (path in the data home, checksums).
    url
        The public address it is downloaded from.
    transform
        ``"copy"`` (stored as downloaded), ``"gzip"`` (stored gzip-compressed) or
        ``"gzip-from-line:N"`` (lines N, N+1, ... of the download, gzip-compressed).

    """

    file: DataFile
    url: str
    transform: str = "copy"

    @property
    def path(self) -> str:
        return self.file.path


def _raw(blob: str) -> str:
    """A GitHub blob address as the address of its raw bytes."""
    prefix = "https://github.com/"
    if not blob.startswith(prefix) or "/blob/" not in blob:
        raise ValueError(f"not a GitHub blob address: {blob!r}")
    repo, rest = blob[len(prefix) :].split("/blob/", 1)
    return f"https://raw.githubusercontent.com/{repo}/{rest}"


#: The files whose bytes are not their origin's as they are: MNIST's from a mirror of the original
#: files, and splice.t, the second part of a file that holds splice and splice.t (lines 1001-3175).
_MNIST_FILES = {
    "mnist/train-images.idx3-ubyte.gz": "train-images-idx3-ubyte.gz",
    "mnist/train-labels.idx1-ubyte.gz": "train-labels-idx1-ubyte.gz",
    "mnist/t10k-images.idx3-ubyte.gz": "t10k-images-idx3-ubyte.gz",
    "mnist/t10k-labels.idx1-ubyte.gz": "t10k-labels-idx1-ubyte.gz",
}
_TRANSFORMS = {"libsvm/splice.t.gz": "gzip-from-line:1001"}


def _source(file: DataFile) -> Source:
    if file.path in _MNIST_FILES:  # the canonical files (gzip); the checksums name their content
        return Source(file, _MNIST + _MNIST_FILES[file.path])
    url = _raw(file.origin or file.url)
    transform = _TRANSFORMS.get(file.path)
    if transform is None:
        compressed = file.path.endswith(".gz") and not url.endswith(".gz")
        transform = "gzip" if compressed else "copy"
    return Source(file, url, transform)


def _build() -> tuple[dict[str, Source], dict[str, tuple[str, ...]]]:
    """The sources of every file of the loaders' tables, and the fetch names, each the files
    that name it (:attr:`DataFile.fetch_name`), in the tables' order; ``koil`` names every KOIL
    file."""
    from ._files import koil, libsvm, mnist, uci

    every_koil = [
        file
        for stem in sorted(set(koil.DATASETS) | set(koil.FOLDS_ONLY))
        for file in koil.koil_files(stem)
    ]
    files = [*libsvm.FILES.values(), *uci.FILES.values(), *mnist.FILES.values(), *every_koil]
    sources = {file.path: _source(file) for file in files}
    names: dict[str, tuple[str, ...]] = {}
    for file in files:
        names[file.fetch_name] = (*names.get(file.fetch_name, ()), file.path)
    names["koil"] = tuple(file.path for file in every_koil)
    return sources, names


#: Data-home path -> :class:`Source`, for every file the loaders read.
SOURCES: dict[str, Source]
#: Fetch name -> the data-home paths it downloads.
NAMES: dict[str, tuple[str, ...]]
SOURCES, NAMES = _build()


def fetch_name_of(path: str) -> str:
    """The smallest fetch name that downloads the data-home file ``path`` (``""`` if none)."""
    found = [name for name, paths in NAMES.items() if path in paths]
    return min(found, key=lambda name: (len(NAMES[name]), name)) if found else ""


def sources_of(name: str) -> list[Source]:
    """The sources behind a fetch name (``KeyError`` naming the known ones if it is unknown)."""
    if name not in NAMES:
        from imbalance_stream.base.validation import did_you_mean

        hint = did_you_mean(name, NAMES)
        raise KeyError(f"unknown data set {name!r}{hint} (`imbalance-stream data list` names them)")
    return [SOURCES[path] for path in NAMES[name]]


def _mirror(url: str, base_url: str | None) -> str:
    if not base_url:
        return url
    rest = url.split("://", 1)[1]
    return base_url.rstrip("/") + "/" + rest


def _download(url: str, destination: pathlib.Path, timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "imbalance-stream data fetch"})
    with (
        urllib.request.urlopen(request, timeout=timeout) as response,
        open(destination, "wb") as out,
    ):
        shutil.copyfileobj(response, out, 1 << 20)


def _store(download: pathlib.Path, transform: str, target: pathlib.Path) -> None:
    if transform == "copy":
        shutil.copyfile(download, target)
        return
    first = 1
    if transform.startswith("gzip-from-line:"):
        first = int(transform.split(":", 1)[1])
    elif transform != "gzip":
        raise ValueError(f"unknown transform {transform!r}")
    # mtime=0 and no file name, as `gzip -n`: the same bytes in gives the same bytes out.
    with (
        open(download, "rb") as source,
        open(target, "wb") as raw,
        gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=raw, mtime=0) as out,
    ):
        for number, line in enumerate(source, start=1):
            if number >= first:
                out.write(line)


def _verify(file: DataFile, path: pathlib.Path) -> None:
    actual = _sha256(path)
    if actual == file.sha256:
        return
    if file.content_sha256:
        try:
            content = _sha256(path, decompress=True)
        except DECOMPRESSION_ERRORS as error:
            content = f"unreadable: {error}"
        if content == file.content_sha256:
            return
        raise ChecksumError(
            f"{file.path}: the download has SHA-256 {actual} and content {content}, expected "
            f"{file.sha256} or content {file.content_sha256}"
        )
    raise ChecksumError(f"{file.path}: the download has SHA-256 {actual}, expected {file.sha256}")


def _is_valid(file: DataFile, path: pathlib.Path) -> bool:
    try:
        _verify(file, path)
    except ChecksumError:
        return False
    return True


def fetch(
    names,
    home=None,
    base_url: str | None = None,
    force: bool = False,
    timeout: float = 60.0,
    log=None,
) -> list[pathlib.Path]:
    """Download the files of the fetch names ``names`` into the data home; return their paths.

    A file already present with the right checksum is kept (``force=True`` downloads it again).
    A download is written beside its target, checked, and only then moved into place, so a
    failed or wrong download never leaves a file that a loader would read.

    Parameters
    ----------
    names
        Fetch names (:data:`NAMES`), e.g. ``["a9a", "koil-glass"]``.
    home
        The data home (default: :func:`~imbalance_stream.datasets.base.get_data_home`); created
        if missing.
    base_url
        A mirror (see the module docstring); default ``$IMBALANCE_STREAM_DATA_URL``, else none.
    force
        Download files that are already present and valid.
    timeout
        Seconds to wait for a server.
    log
        Called with one line per file (e.g. ``print``), or ``None``.

    Raises
    ------
    KeyError
        An unknown name (nothing is downloaded).
    ChecksumError
        A download whose checksum is wrong (it is deleted).
    OSError
        The network or the disk failed (``urllib.error.URLError`` is one).

    """
    if isinstance(names, str):
        names = [names]
    wanted = [source for name in names for source in sources_of(name)]
    home = pathlib.Path(home) if home is not None else get_data_home()
    if base_url is None:
        base_url = os.environ.get(BASE_URL_ENV) or None
    return [
        _fetch_one(source, home, base_url, force, timeout, log)
        for source in dict.fromkeys(wanted)  # each file once, in order
    ]


def _fetch_one(source: Source, home, base_url, force: bool, timeout: float, log) -> pathlib.Path:
    target = pathlib.Path(home).joinpath(*source.path.split("/"))
    if target.is_file() and not force and _is_valid(source.file, target):
        if log:
            log(f"{source.path}: present")
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    url = _mirror(source.url, base_url)
    if log:
        log(f"{source.path}: downloading {url}")
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".fetch-") as scratch:
        download = pathlib.Path(scratch) / "download"
        stored = pathlib.Path(scratch) / target.name  # the suffix says how to decompress
        _download(url, download, timeout)
        _store(download, source.transform, stored)
        _verify(source.file, stored)
        os.replace(stored, target)
    return target


def check(names=None, home=None) -> dict[str, str]:
    """The state of each file of ``names`` (default: every file): ``"ok"``, ``"missing"`` or
    ``"bad checksum"``, keyed by data-home path."""
    if names is None:
        paths = list(SOURCES)
    else:
        if isinstance(names, str):
            names = [names]
        paths = list(dict.fromkeys(s.path for name in names for s in sources_of(name)))
    home = pathlib.Path(home) if home is not None else get_data_home()
    states = {}
    for path in paths:
        location = home.joinpath(*path.split("/"))
        if not location.is_file():
            states[path] = "missing"
        else:
            states[path] = "ok" if _is_valid(SOURCES[path].file, location) else "bad checksum"
    return states
