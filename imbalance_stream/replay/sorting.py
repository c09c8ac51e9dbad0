"""Reading a log whose rows are out of time order: the valid rows sorted by (event time, row)
through sorted runs spilled to disk, so that memory stays constant."""

from __future__ import annotations

import heapq
import itertools
import os
import pickle
import shutil
import tempfile

from .events import Reject
from .sources import DamagedLog, records

__all__ = ["sorted_events"]

#: Rows sorted in memory before a run is spilled to disk.
SORT_CHUNK = 100_000


def sorted_events(log, cell, state, bar, resumed, reject_row):
    """The valid rows sorted by (event time, row), through sorted runs spilled to disk (constant
    memory); ``ev.pos`` counts sorted rows."""
    folder = tempfile.mkdtemp(dir=cell.work, prefix=f"sort{cell.index}-")
    runs: list = []
    try:
        chunk: list = []

        def spill():
            chunk.sort(key=lambda ev: (ev.time, ev.row))
            path = os.path.join(folder, f"run{len(runs)}.pkl")
            with open(path, "wb") as handle:
                for start in range(0, len(chunk), 4096):
                    pickle.dump(chunk[start : start + 4096], handle, pickle.HIGHEST_PROTOCOL)
            runs.append(path)
            chunk.clear()

        try:
            for row, record in records(log, 0):
                if bar is not None and not resumed:
                    bar.update()
                try:
                    chunk.append(log.event(row, record))
                except Reject as error:
                    if not resumed:  # a resumed cell wrote and counted these before its checkpoint
                        reject_row(row, str(error))
                    continue
                if len(chunk) >= SORT_CHUNK:
                    spill()
        except DamagedLog as error:  # the rows read before the damage are sorted and replayed
            state.damaged = error.after(error.row)
        if chunk:
            spill()

        def read(path):
            with open(path, "rb") as handle:
                while True:
                    try:
                        yield from pickle.load(handle)
                    except EOFError:
                        return

        merged = heapq.merge(*(read(p) for p in runs), key=lambda ev: (ev.time, ev.row))
        for k, ev in enumerate(itertools.islice(merged, state.position, None), state.position):
            if bar is not None and resumed:
                bar.update()
            ev.pos = k + 1
            yield ev
    finally:
        shutil.rmtree(folder, ignore_errors=True)
