"""The prediction lines of a columnar segment, joined into one buffer by a jitted copy per field.

A field of the lines is a pyarrow string array (a value per row: ids, times), a :class:`Choice`
(one of a few texts per row, by index: a prediction, a score of 0.0 or 1.0, a label) or one text
for every row (a model's name). The lines are comma-separated, in the order (row, model), each
ended by ``\\n``; the caller has made sure no value needs quoting.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .vector_times import string_buffers

__all__ = ["Choice", "csv_lines", "field_values"]


class Choice(NamedTuple):
    """A field that is one of ``texts`` on each row: ``texts[picks[i]]`` on row ``i``."""

    texts: list[str]
    picks: np.ndarray


def _as_buffers(field, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(offsets, data, index)``: row ``i``'s text is ``data[offsets[k]:offsets[k + 1]]``, ``k =
    index[i]``."""
    if isinstance(field, str):
        field = Choice([field], np.zeros(n, dtype=np.int64))
    if isinstance(field, Choice):
        encoded = [value.encode() for value in field.texts]
        # int32 offsets and writable bytes, as an arrow array's: one compiled kernel for both
        offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
        np.cumsum([len(value) for value in encoded], out=offsets[1:])
        data = np.frombuffer(bytearray(b"".join(encoded) or b"\0"), dtype=np.uint8)
        return offsets, data, np.ascontiguousarray(field.picks, dtype=np.int64)
    offsets, data = string_buffers(field)
    return offsets, data, np.arange(n, dtype=np.int64)


def csv_lines(lines: list[list], n: int) -> np.ndarray:
    """The bytes (uint8) of ``n`` rows of lines, ``lines[j]`` the fields of model ``j``'s line:
    the line of each model for the first row, then for the second, and so on."""
    from imbalance_stream._numba.text import place_texts

    models = len(lines)
    buffers = [[_as_buffers(field, n) for field in fields] for fields in lines]
    sizes = np.empty((n, models), dtype=np.int64)
    for j, fields in enumerate(buffers):
        sizes[:, j] = len(fields)  # the commas and the line end
        for offsets, _, index in fields:
            sizes[:, j] += np.diff(offsets)[index]
    ends = np.cumsum(sizes.ravel())
    out = np.empty(int(ends[-1]) if len(ends) else 0, dtype=np.uint8)
    starts = (ends - sizes.ravel()).reshape(n, models)
    for j, fields in enumerate(buffers):
        at = starts[:, j].copy()
        for f, (offsets, data, index) in enumerate(fields):
            place_texts(out, at, offsets, data, index)
            out[at] = ord("\n") if f == len(fields) - 1 else ord(",")
            at += 1
    return out


def field_values(field, n: int) -> list[str]:
    """A field's ``n`` texts, as a list (for the csv module)."""
    if isinstance(field, str):
        return [field] * n
    if isinstance(field, Choice):
        return [field.texts[k] for k in field.picks.tolist()]
    return field.to_pylist()
