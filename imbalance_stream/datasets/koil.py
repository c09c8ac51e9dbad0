"""KOIL's benchmark files with their exact cross-validation folds (data home folder ``koil/``).

The KOIL authors (Hu et al., AAAI 2015; repository ``zengjichuan/KOIL``) ship each dataset as a
TAB-separated LIBSVM-like file (features scaled to [0, 1] except ``logs_12t`` and ``poker``, labels
``1`` positive / ``-1``) with two index files: ``<name>_IdxCv`` (N x 4: column r is the fold, 1..5,
of each row in repetition r of 5-fold cross-validation: 4 x 5 = 20 trials) and ``<name>_IdxAsso``
(the inner 5-fold assignments used for parameter search). :class:`KOILBenchmark` reads all three;
:func:`koil_cv_folds` reads the folds alone (also for ``w8a`` and ``shuttle``, whose data files are
not available).

Known defects of the upstream files are detected, never silently used:

* ``dna`` has a run of 13,039 NUL bytes that swallowed 20 of its 3,186 rows.
  ``KOILBenchmark("dna")`` refuses it; ``KOILBenchmark("dna", repair=True)`` rebuilds it from LIBSVM
  ``dna.scale`` + ``dna.scale.t`` (see :class:`KOILBenchmark`).
* ``segment``, ``svmguide1_sub``, ``svmguide4``, ``vehicle`` and ``vowel``: the ``_IdxAsso`` file
  holds a NUL run, so their inner folds raise :class:`CorruptedFileError`; their data and outer
  folds are intact. :func:`check_koil_files` lists every such problem.
"""

from __future__ import annotations

import collections
import gzip
import os

import numpy as np

from ._files.koil import _SHA, DATASETS, FOLDS_ONLY, _data_file, koil_files
from .base import BenchmarkDataset, CorruptedFileError
from .libsvm import libsvm_arrays, parse_label

__all__ = [
    "CorruptedFileError",
    "KOILBenchmark",
    "check_koil_files",
    "koil_cv_folds",
    "koil_files",
    "koil_inner_folds",
]


def _read_bytes(path) -> bytes:
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as handle:
        return handle.read()


def _nul_report(data: bytes, path) -> str | None:
    start = data.find(b"\x00")
    if start < 0:
        return None
    end = start
    while end < len(data) and data[end] == 0:
        end += 1
    more = data.count(b"\x00", end)
    return (
        f"{os.fspath(path)}: run of {end - start} NUL bytes at byte offset {start}"
        + (f" (and {more} more NUL bytes)" if more else "")
        + ", corrupted in the upstream KOIL repository"
    )


def _index_matrix(path, rows: int | None = None) -> np.ndarray:
    data = _read_bytes(path)
    problem = _nul_report(data, path)
    if problem:
        raise CorruptedFileError(problem)
    lines = [line.split() for line in data.splitlines() if line.strip()]
    bad = next((i for i, line in enumerate(lines) if len(line) != 4), None)
    if bad is not None:
        raise CorruptedFileError(f"{os.fspath(path)}, line {bad + 1}: expected 4 columns")
    matrix = np.array(lines, dtype=np.int8)
    if matrix.size and (matrix.min() < 1 or matrix.max() > 5):
        raise CorruptedFileError(f"{os.fspath(path)}: fold numbers outside 1..5")
    if rows is not None and len(matrix) != rows:
        raise CorruptedFileError(f"{os.fspath(path)}: {len(matrix)} rows, expected {rows}")
    return matrix


def _check_name(name: str) -> int:
    if name in DATASETS:
        return DATASETS[name][0]
    if name in FOLDS_ONLY:
        return FOLDS_ONLY[name]
    raise ValueError(
        f"unknown KOIL dataset {name!r}; choose from {sorted(DATASETS) + sorted(FOLDS_ONLY)}"
    )


def splits_from_folds(folds: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train rows, test rows) pairs of an N x R fold matrix (values 1..5): trial ``5 r + j``
    tests on the rows whose column ``r`` is ``j + 1`` and trains on the others, both in row
    order."""
    splits = []
    for r in range(folds.shape[1]):
        for j in range(1, 6):
            test = folds[:, r] == j
            splits.append((np.flatnonzero(~test), np.flatnonzero(test)))
    return splits


def koil_cv_folds(name: str) -> np.ndarray:
    """The outer fold matrix of ``<name>_IdxCv``: ``int8`` array (N, 4) with values 1..5.

    Column ``r`` assigns every row (in the data file's order) to a fold of repetition ``r``.

    >>> koil_cv_folds("heart").shape
    (270, 4)

    """
    rows = _check_name(name)
    return _index_matrix(_data_file(f"{name}_IdxCv").resolve(), rows)


def koil_inner_folds(name: str) -> np.ndarray:
    """The inner fold matrix of ``<name>_IdxAsso``: ``int8`` array (5 N, 4), values 1..5.

    Raises :class:`CorruptedFileError` for the five files with a NUL run (``segment``,
    ``svmguide1_sub``, ``svmguide4``, ``vehicle``, ``vowel``): the rows after the run are
    shifted, so no inner fold of those files can be trusted.

    """
    rows = _check_name(name)
    return _index_matrix(_data_file(f"{name}_IdxAsso").resolve(), 5 * rows)


def check_koil_files() -> dict[str, str]:
    """Scan every stored KOIL file (checksum, NUL bytes, index shapes); return the problems found.

    Keys are file names relative to ``koil/``, values describe the defect.

    >>> sorted(check_koil_files())
    ['dna.gz', 'segment_IdxAsso', 'svmguide1_sub_IdxAsso', 'svmguide4_IdxAsso', 'vehicle_IdxAsso',
     'vowel_IdxAsso']

    """
    problems = {}
    for stored in _SHA:
        stem = stored.removesuffix(".gz")
        path = _data_file(stem).resolve()
        data = _read_bytes(path)
        report = _nul_report(data, path)
        if report:
            problems[stored] = report
            continue
        if stem.endswith(("_IdxCv", "_IdxAsso")):
            name, _, kind = stem.rpartition("_")
            rows = _check_name(name) * (5 if kind == "IdxAsso" else 1)
            try:
                _index_matrix(path, rows)
            except CorruptedFileError as error:
                problems[stored] = str(error)
    return problems


def _parse_koil_lines(path) -> tuple[list, int | None, bytes]:
    """Parse a KOIL data file into [(features, label)], skipping (and locating) a NUL line.

    Returns the parsed rows, the position (row index) of a line holding NUL bytes (or None) and
    that line.

    """
    rows: list[tuple[dict[int, float], int | float]] = []
    corrupted, corrupted_line = None, b""
    for line in _read_bytes(path).splitlines():
        if not line.strip():
            continue
        if b"\x00" in line:
            if corrupted is not None:
                raise CorruptedFileError(f"{os.fspath(path)}: more than one corrupted line")
            corrupted, corrupted_line = len(rows), line
            continue
        tokens = line.decode("ascii").split()
        features = {}
        for token in tokens[1:]:
            index, _, value = token.partition(":")
            features[int(index)] = float(value)
        rows.append((features, parse_label(tokens[0])))
    return rows, corrupted, corrupted_line


def _dense(features: dict, n_features: int) -> np.ndarray:
    row = np.zeros(n_features)
    for index, value in features.items():
        row[index - 1] = value
    return row


def _repair_dna(koil_path, libsvm_paths) -> tuple[np.ndarray, np.ndarray, range, range]:
    """Rebuild KOIL's dna (3,186 rows in KOIL's order) from its intact rows and LIBSVM dna.

    KOIL's file is a shuffle of LIBSVM ``dna.scale`` + ``dna.scale.t`` (binary features, unchanged
    by the [0, 1] scaling) with class 1 (EI) as the positive class. Its NUL run replaced 20
    consecutive rows by one line holding the head of the first and the tail of the last of them.
    The 20 missing rows are the multiset difference between the LIBSVM rows and the intact KOIL
    rows; the first and the last are identified by the surviving head and tail; the order of the
    18 in between is lost, and they are placed in LIBSVM file order.

    Returns X, labels (1 / -1), the range of rebuilt rows and the range of rows whose order is
    unknown.

    """
    rows, position, line = _parse_koil_lines(koil_path)
    if position is None:
        raise CorruptedFileError(f"{os.fspath(koil_path)}: no corrupted line, nothing to repair")
    X_lib, y_lib, _ = libsvm_arrays(libsvm_paths, 180)
    labels_lib = np.where(y_lib == 1, 1, -1)
    pool = collections.defaultdict(list)  # row bytes + label -> LIBSVM row numbers
    for i, (row, label) in enumerate(zip(X_lib, labels_lib)):
        pool[(row.tobytes(), int(label))].append(i)
    X_koil = np.array([_dense(f, 180) for f, _ in rows])
    y_koil = np.array([label for _, label in rows])
    for row, label in zip(X_koil, y_koil):
        matches = pool.get((row.tobytes(), int(label)))
        if not matches:
            raise CorruptedFileError(
                f"{os.fspath(koil_path)}: a row is not in LIBSVM dna; the repair does not apply"
            )
        matches.pop()
    missing = sorted(i for numbers in pool.values() for i in numbers)
    n_missing = len(X_lib) - len(X_koil)
    if len(missing) != n_missing or n_missing < 2:
        raise CorruptedFileError(
            f"{os.fspath(koil_path)}: {len(missing)} rows missing, cannot repair"
        )

    text = line.decode("ascii", errors="replace")
    head_text, tail_text = text[: text.index("\x00")], text[text.rindex("\x00") + 1 :]
    head_tokens, tail_tokens = head_text.split(), tail_text.split()
    head_label = parse_label(head_tokens[0])
    head = {int(t.split(":")[0]): float(t.split(":")[1]) for t in head_tokens[1:]}
    tail = {int(t.split(":")[0]): float(t.split(":")[1]) for t in tail_tokens}
    last_head, first_tail = max(head), min(tail)

    def features(i):
        return {j + 1: v for j, v in enumerate(X_lib[i]) if v != 0.0}

    first = [
        i
        for i in missing
        if labels_lib[i] == head_label
        and {k: v for k, v in features(i).items() if k <= last_head} == head
    ]
    last = [i for i in missing if {k: v for k, v in features(i).items() if k >= first_tail} == tail]
    if not first or not last:
        raise CorruptedFileError(f"{os.fspath(koil_path)}: cannot identify the damaged rows")
    first_row = first[0]
    last_row = next(i for i in last if i != first_row)
    middle = [i for i in missing if i not in (first_row, last_row)]
    rebuilt = [first_row] + middle + [last_row]
    X = np.vstack([X_koil[:position], X_lib[rebuilt], X_koil[position:]])
    y = np.concatenate([y_koil[:position], labels_lib[rebuilt], y_koil[position:]])
    return (
        X,
        y,
        range(position, position + n_missing),
        range(position + 1, position + n_missing - 1),
    )


class KOILBenchmark(BenchmarkDataset):
    """One of the KOIL paper's datasets, as shipped by its authors, with its cross-validation folds.

    Rows are in the order of the authors' file, which is the order the fold files index. Labels:
    raw ``1`` (positive, the minority) and ``-1``; yielded as ``True`` / ``False``. Features are
    the authors' (scaled to [0, 1] except ``logs_12t`` and ``poker``), named by their 1-based
    index; rows are sparse in the file and yielded sparse (zeros omitted).

    ``cv_folds()`` gives the N x 4 fold matrix (values 1..5), ``cv_splits()`` the 20 (train, test)
    row-index pairs of the paper's protocol (trial ``5 r + j`` tests on the rows whose column ``r``
    is ``j + 1``), ``inner_folds(r, j)`` the inner 5-fold assignment of that trial's training rows
    read from ``_IdxAsso`` the way KOIL's ``online.cpp`` does.

    ``dna`` is corrupted upstream (a NUL run swallowed 20 of its 3,186 rows). It is refused unless
    ``repair=True``: the 20 rows are then rebuilt from LIBSVM ``dna.scale`` + ``dna.scale.t`` (of
    which KOIL's file is a shuffle, class 1 positive), the first and last of them identified by the
    surviving bytes and the 18 in between, whose order is lost, placed in LIBSVM order. Only those
    18 rows (``unordered_rows``) may sit in other folds than in the authors' experiments.
    ``w8a`` and ``shuttle`` have fold files but no data file: use :func:`koil_cv_folds`
    (:class:`ShuttleODDS` is River's ODDS version of shuttle, a different task).

    Parameters
    ----------
    name
        One of ``KOILBenchmark.NAMES``.
    repair
        Rebuild ``dna`` as described above (ignored for the other datasets).
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps ``1`` / ``-1``.

    Attributes
    ----------
    repaired_rows
        Rows rebuilt by the ``dna`` repair (an empty range otherwise).
    unordered_rows
        Rebuilt rows whose position within ``repaired_rows`` is unknown.

    Examples
    --------
    >>> from imbalance_stream.datasets import KOILBenchmark
    >>> heart = KOILBenchmark("heart")
    >>> heart.n_samples, heart.n_features, int(heart.to_numpy()[1].sum())
    (270, 13, 120)
    >>> train, test = heart.cv_splits()[0]
    >>> len(train), len(test)
    (216, 54)
    >>> from imbalance_stream.datasets import CorruptedFileError
    >>> try:
    ...     KOILBenchmark("dna")
    ... except CorruptedFileError as error:
    ...     print(str(error)[:34])
    KOIL dna is corrupted upstream: a
    >>> KOILBenchmark("dna", repair=True).n_samples
    3186

    """

    NAMES = tuple(DATASETS)

    def __init__(self, name: str, repair: bool = False, positive_class=1):
        if name in FOLDS_ONLY:
            raise ValueError(
                f"the KOIL {name!r} data file is not available (it could not be obtained); only "
                f"its fold files are: use koil_cv_folds({name!r})"
                + (" with W8A() (same 49,749 rows; row order unverified)" if name == "w8a" else "")
            )
        if name not in DATASETS:
            raise ValueError(f"unknown KOIL dataset {name!r}; choose from {sorted(DATASETS)}")
        if name == "dna" and not repair:
            raise CorruptedFileError(
                "KOIL dna is corrupted upstream: a run of 13,039 NUL bytes at byte 63,925 "
                "swallowed 20 of its 3,186 rows, so it does not match dna_IdxCv. Use "
                "KOILBenchmark('dna', repair=True) to rebuild it from LIBSVM dna.scale + "
                "dna.scale.t, or DNA(split='all') for the LIBSVM data in LIBSVM order."
            )
        self.name = name
        self.repair = bool(repair) and name == "dna"
        rows, n_features, _ = DATASETS[name]
        files = [_data_file(name)]
        if self.repair:
            from .libsvm_datasets import FILES as LIBSVM_FILES

            files += [LIBSVM_FILES["dna.scale"], LIBSVM_FILES["dna.scale.t"]]
        self.repaired_rows = range(0)
        self.unordered_rows = range(0)
        super().__init__(
            files=files,
            positive_class=positive_class,
            n_features=n_features,
            n_samples=rows,
            n_classes=2,
            sparse=True,
        )
        if self.repair:
            self.repaired_rows = range(96, 116)
            self.unordered_rows = range(97, 115)

    def _parse_key(self):
        return (self.name, self.repair)

    def _parse(self, paths):
        n_features = self.n_features
        if self.repair:
            X, y, repaired, unordered = _repair_dna(paths[0], paths[1:])
            if (repaired, unordered) != (self.repaired_rows, self.unordered_rows):
                raise CorruptedFileError(f"dna repair rebuilt rows {repaired}, not the known ones")
            return X, y, list(range(1, n_features + 1))
        rows, corrupted, _ = _parse_koil_lines(paths[0])
        if corrupted is not None:
            raise CorruptedFileError(_nul_report(_read_bytes(paths[0]), paths[0]))
        X = np.array([_dense(f, n_features) for f, _ in rows])
        y = np.array([label for _, label in rows], dtype=np.int64)
        return X, y, list(range(1, n_features + 1))

    def cv_folds(self) -> np.ndarray:
        """The N x 4 outer fold matrix (``int8``, values 1..5) of ``<name>_IdxCv``."""
        return koil_cv_folds(self.name)

    def cv_splits(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """The 20 (train rows, test rows) pairs, trial ``5 r + j`` testing fold ``j + 1`` of
        column ``r``."""
        return splits_from_folds(self.cv_folds())

    def inner_folds(self, repetition: int, fold: int) -> np.ndarray:
        """Inner 5-fold assignment (values 1..5) of the training rows of trial (repetition, fold).

        Both are 0-based (``repetition`` in 0..3, ``fold`` in 0..4). As in KOIL's ``online.cpp``,
        the entries are the next ``n_train`` consecutive values of column ``repetition`` of
        ``_IdxAsso``, starting at its first row for ``fold = 0``; entry ``i`` belongs to the
        ``i``-th training row of the trial (in row order). Raises :class:`CorruptedFileError`
        for the five damaged ``_IdxAsso`` files.

        """
        if not (0 <= repetition < 4 and 0 <= fold < 5):
            raise ValueError(
                f"need 0 <= repetition < 4 and 0 <= fold < 5, got {repetition}, {fold}"
            )
        outer = self.cv_folds()[:, repetition]
        inner = koil_inner_folds(self.name)[:, repetition]
        sizes = [int((outer != j).sum()) for j in range(1, 6)]
        start = sum(sizes[:fold])
        return inner[start : start + sizes[fold]]
