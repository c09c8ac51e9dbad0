"""Fewer garbage collections while a long loop runs.

A replay or a prequential run allocates a few short-lived containers per row (the row's features,
its prediction, the queue's entries) and keeps thousands alive (the rows whose labels are
pending). With CPython's default thresholds the cyclic collector then runs every 700
allocations and traverses the survivors again and again: a fifth to a quarter of a replay's CPU
time on a cheap model (``benchmarks/README.md``). None of those objects forms a reference cycle,
so :func:`fewer_collections` raises the thresholds while the loop runs: collection still happens
(a model that does make cycles is collected), 70 times less often.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["LOOP_THRESHOLDS", "fewer_collections"]

#: The collector's thresholds inside the loop (CPython's defaults are 700, 10, 10).
LOOP_THRESHOLDS = (50_000, 20, 20)


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run the block with the collector's thresholds at least :data:`LOOP_THRESHOLDS`, then put
    back the thresholds found (unless something else changed them meanwhile).

    >>> import gc
    >>> before = gc.get_threshold()
    >>> with fewer_collections():
    ...     gc.get_threshold()[0] >= 50_000
    True
    >>> gc.get_threshold() == before
    True
    """
    before = gc.get_threshold()
    during = tuple(max(old, new) for old, new in zip(before, LOOP_THRESHOLDS))
    gc.set_threshold(*during)
    try:
        yield
    finally:
        if gc.get_threshold() == during:
            gc.set_threshold(*before)
