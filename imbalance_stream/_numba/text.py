"""Texts read where they lie in a buffer, without making a Python object of each: ids hashed (the
replay's count of repeated event ids over millions of rows) and the ids of each row found in the
lines of ``predictions.csv`` (the merge of a replay's only part file, which counts them as it
puts the file in place); and the prediction lines written a field at a time into one buffer."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["hash_spans", "place_texts", "row_id_spans"]

_OFFSET_BASIS = np.uint64(0xCBF29CE484222325)
_PRIME = np.uint64(0x100000001B3)
_MIX = np.uint64(0xFF51AFD7ED558CCD)


@njit(cache=True)
def hash_spans(data, starts, ends, out):
    """``out[i]``: the 64-bit FNV-1a hash of the bytes ``data[starts[i]:ends[i]]``, its bits then
    mixed by MurmurHash3's finaliser (so that the low bits, which the caller buckets by, depend
    on every bit), as int64. Equal texts hash alike; two different ones among 10 million share a
    hash with probability below 3e-6."""
    for i in range(out.shape[0]):
        code = _OFFSET_BASIS
        for k in range(starts[i], ends[i]):
            code = (code ^ np.uint64(data[k])) * _PRIME
        code ^= code >> np.uint64(33)
        code *= _MIX
        code ^= code >> np.uint64(33)
        out[i] = np.int64(code)


@njit(cache=True)
def row_id_spans(data, last_row, spans):
    """The event ids of the rows of a block of ``predictions.csv``'s lines (``data``, bytes as
    uint8, no quotes; each line ``row,event_id,...``, one line per model and row, a row's lines
    together): ``spans[i]`` gets the start and end of the id on the first line of the ``i``-th
    row whose number differs from the line before it (``last_row``: the row of the line before
    the block, -1 for none). Returns ``(rows found, the block's last row)``, or ``(-1,
    last_row)`` for a line whose row is not a number of at most 18 digits, that has no third
    field, or past the capacity of ``spans``: the caller then reads the file otherwise."""
    comma, newline = np.uint8(44), np.uint8(10)
    size = data.shape[0]
    found = 0
    at = 0
    previous = last_row
    while at < size:
        row = 0
        digits = 0
        while at < size and data[at] != comma:
            code = data[at]
            if code < 48 or code > 57 or digits == 18:
                return -1, last_row
            row = row * 10 + (code - 48)
            digits += 1
            at += 1
        if at == size or digits == 0:
            return -1, last_row
        start = at + 1
        at = start
        while at < size and data[at] != comma and data[at] != newline:
            at += 1
        if at == size or data[at] != comma:
            return -1, last_row
        if row != previous:
            if found == spans.shape[0]:
                return -1, last_row
            spans[found, 0] = start
            spans[found, 1] = at
            found += 1
            previous = row
        while at < size and data[at] != newline:
            at += 1
        at += 1
    return found, previous


@njit(cache=True)
def place_texts(out, at, offsets, data, index):
    """Copy text ``index[i]`` (the bytes ``data[offsets[k]:offsets[k + 1]]`` for ``k =
    index[i]``) into ``out`` at ``at[i]``, for every ``i``, and move ``at[i]`` past it: one field
    of every line of a block of lines whose places in ``out`` are known."""
    for i in range(at.shape[0]):
        k = index[i]
        start = offsets[k]
        size = offsets[k + 1] - start
        place = at[i]
        out[place : place + size] = data[start : start + size]
        at[i] = place + size
