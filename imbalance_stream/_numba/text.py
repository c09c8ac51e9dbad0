"""Texts read where they lie in a buffer, without making a Python object of each: ids hashed (the
replay's count of repeated event ids over millions of rows) and lines cut at their first fields
(the merge of a replay's part file into ``predictions.csv``)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["cut_lines", "hash_spans"]

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
def cut_lines(data, ends, n_fields, keep_from, marks, out):
    """Cut each line of ``data`` (bytes as uint8, no quotes; ``ends``: the positions of its line
    ends, ``\\n``, in order, the last one its last byte) at its commas: ``marks[i]`` gets line
    ``i``'s start, the positions of its first ``n_fields`` commas and of its end; its bytes after
    its comma number ``keep_from`` (1-based), through the end, are appended to ``out``. Returns
    the number of bytes written, or -1 when a line has fewer than ``n_fields`` commas (the caller
    reads such a file otherwise). ``marks`` holds a row per line and ``out`` ``len(data)`` bytes
    at least."""
    comma = np.uint8(44)
    written = 0
    start = 0
    for line in range(ends.shape[0]):
        end = ends[line]
        marks[line, 0] = start
        seen = 0
        at = start
        while seen < n_fields and at < end:
            if data[at] == comma:
                seen += 1
                marks[line, seen] = at
            at += 1
        if seen < n_fields:
            return -1
        marks[line, n_fields + 1] = end
        first = marks[line, keep_from] + 1
        size = end + 1 - first
        out[written : written + size] = data[first : end + 1]
        written += size
        start = end + 1
    return written
