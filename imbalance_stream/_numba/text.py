"""Texts hashed where they lie in a buffer, without making a Python object of each (the replay's
count of repeated event ids over millions of rows)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["hash_spans"]

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
