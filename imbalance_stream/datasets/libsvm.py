"""LIBSVM / svmlight text: a streaming reader and the dense-array helper the loaders share."""

from __future__ import annotations

import os
import typing

import numpy as np

from .base import CorruptedFileError, text_lines

__all__ = ["libsvm_arrays", "parse_label", "read_libsvm"]


def parse_label(token: str):
    """Parse a label token: ``"+1"``, ``"-1"``, ``"1.0"`` -> int when integral, else float.

    >>> parse_label("+1"), parse_label("-1.0"), parse_label("2"), parse_label("0.5")
    (1, -1, 2, 0.5)

    """
    value = float(token)
    if value.is_integer():
        return int(value)
    return value


def read_libsvm(
    path: os.PathLike | str, require_final_newline: bool = True
) -> typing.Iterator[tuple[dict[int, float], int | float]]:
    """Stream ``(features, label)`` pairs from a LIBSVM / svmlight text file.

    Each line is ``label index:value index:value ...`` with 1-based integer indices; features are
    yielded under their index as an ``int`` key, exactly as written (explicit zeros are kept).
    Tokens may be separated by any run of spaces or TABs (the KOIL files use TABs and a trailing
    TAB) and lines may end in LF or CRLF. Blank lines are skipped, ``# ...`` comments are stripped
    and ``qid:`` tokens ignored. Labels are parsed by :func:`parse_label` (``+1`` -> ``1``,
    ``1.0`` -> ``1``). Files ending in ``.gz`` or ``.bz2`` are decompressed on the fly.

    A malformed line (including one holding NUL bytes, a sign of a corrupted file) raises
    :class:`ValueError` naming the file and line number, and so does a damaged file
    (:class:`~imbalance_stream.datasets.CorruptedFileError`, a ``ValueError``): a byte that is not
    ASCII, compressed data damaged or cut short, or a last row without its newline, which is what
    a file cut in the middle of a line looks like (its last row would be read short).

    Parameters
    ----------
    path
        The file.
    require_final_newline
        Refuse a last row that does not end with a newline (the default). ``False`` reads such a
        row: only for a file known to be complete, such as LIBSVM's ``mushrooms`` (which the
        loader checks against its SHA-256 first).

    Examples
    --------
    >>> from imbalance_stream.datasets.libsvm_datasets import FILES
    >>> path = FILES["german.numer"].resolve()  # libsvm/german.numer in the data home
    >>> x, y = next(read_libsvm(path))
    >>> y, len(x), x[1], x[10]
    (-1, 24, 1.0, 67.0)

    """
    for number, line in enumerate(text_lines(path), start=1):
        if "\x00" in line:
            raise CorruptedFileError(
                f"{os.fspath(path)}, line {number}: NUL bytes; the file is corrupted"
            )
        comment = line.find("#")
        tokens = (line if comment < 0 else line[:comment]).split()
        if not tokens:
            continue
        if require_final_newline and not line.endswith("\n"):
            raise CorruptedFileError(
                f"{os.fspath(path)}, line {number}: the file ends in the middle of this row (no "
                "newline after it), as a file cut short does; pass require_final_newline=False "
                "if the file is known to be complete"
            )
        yield _parse_row(tokens, path, number)


def _parse_row(tokens: list[str], path, number: int) -> tuple[dict[int, float], int | float]:
    token = tokens[0]
    try:
        label = parse_label(token)
        features = {}
        for token in tokens[1:]:
            index, sep, value = token.partition(":")
            if index == "qid":
                continue
            column = int(index)
            if column < 1 or not sep:
                raise ValueError
            features[column] = float(value)
    except ValueError:
        raise ValueError(
            f"{os.fspath(path)}, line {number}: cannot parse {token!r} "
            "(expected 'label index:value ...' with 1-based integer indices)"
        ) from None
    return features, label


def libsvm_arrays(
    paths: typing.Iterable[os.PathLike | str], n_features: int, require_final_newline: bool = True
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """Read LIBSVM files (concatenated in order) into a dense matrix.

    Returns ``(X, labels, feature_names)`` with ``X`` of shape ``(n, n_features)``, column ``j``
    holding feature index ``j + 1`` (the names are ``1 .. n_features``). An index above
    ``n_features`` raises :class:`ValueError`; ``require_final_newline`` as in
    :func:`read_libsvm`.

    """
    rows: list[int] = []
    cols: list[int] = []
    vals: list[float] = []
    labels: list = []
    for path in paths:
        for x, y in read_libsvm(path, require_final_newline):
            n = len(labels)
            labels.append(y)
            rows.extend([n] * len(x))
            cols.extend(x.keys())
            vals.extend(x.values())
    col = np.asarray(cols, dtype=np.int64) - 1
    if col.size and col.max() >= n_features:
        raise ValueError(f"feature index {col.max() + 1} exceeds n_features={n_features}")
    X = np.zeros((len(labels), n_features), dtype=np.float64)
    X[np.asarray(rows, dtype=np.int64), col] = np.asarray(vals, dtype=np.float64)
    return X, np.asarray(labels), list(range(1, n_features + 1))
