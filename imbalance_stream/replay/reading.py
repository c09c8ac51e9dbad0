"""Reading a cell's rows into batches: the events of its valid rows, numbered alike in every
cell, with the rows that cannot be read between them, a batch of ``BATCH`` rows at a time.

A CSV or Parquet log is read by the columnar reader (:class:`~.arrow_log.ArrowLog`) where it
can: its events made a block at a time from the block's columns, the blocks it does not vouch for
(but that hold no quote) read by the row reader, and from a CSV block with a quote on the rest of
the log row by row. Every other log (and a log to be sorted first) is read row by row, a chunk of
rows converted column by column (:func:`~.columns.read_batch`). Either way every row gets the
same event, or the same reason for its rejection.
"""

from __future__ import annotations

import zlib

from .arrow_log import ArrowLog, columnar_reader_fits
from .blocks import ColumnBlock, RecordBlock
from .columns import read_batch
from .config import ReplayError
from .events import Event, Reject
from .sorting import sorted_events
from .sources import DamagedLog, csv_block_records, records

__all__ = ["BATCH", "END", "Batch", "CellReader"]

#: Rows read ahead of the replay: the unit of the delayed-label order's computation.
BATCH = 2048
#: Rows read into events together, column by column (columns.read_batch).
_READ_CHUNK = 512


def partition_of(entity: str, n_partitions: int) -> int:
    """The partition of an entity: a hash that is the same in every process and on every run."""
    return zlib.crc32(entity.encode("utf-8")) % n_partitions


class CellReader:
    """The rows of ``cell`` from ``state``'s position on, in batches (:meth:`batches`).
    ``reject(row, reason)`` takes the unreadable rows of a log read whole before it is sorted;
    ``columnar``: whether a CSV log is read by the columnar reader where it can."""

    def __init__(self, cell, state, bar, resumed, reject, columnar=True, open_log=None):
        self.cell = cell
        self.open_log = open_log  # the columnar replay's reading, when it handed over
        self.log = cell.scenario.log
        self.state = state
        self.bar = bar
        self.resumed = resumed
        self.reject = reject
        self.columnar = columnar

    def batches(self):
        """The cell's valid rows (numbered ``seq`` alike in every cell) in batches of at most
        ``BATCH`` rows read, each with the rejects read between them. Reading runs a batch ahead
        of the replay, so everything the state records of it (the position, the number of valid
        rows, the last time) is set as the rows are replayed, not as they are read."""
        state, cell = self.state, self.cell
        entity_cell = cell.kind == "entity"
        valid, last_time = state.seq, state.last_time
        batch = Batch()
        read = 0
        for item in self._items():
            read += 1
            if isinstance(item, Event):
                ev = item
                if last_time is not None and ev.time < last_time:
                    batch.end = ReplayError(
                        f"row {ev.row}: event time {ev.time_text!r} is before the previous row's; "
                        'sort the log, or set out_of_order = "sort" in [log]'
                    )
                    break
                last_time = ev.time
                ev.seq = valid  # every cell numbers every valid row alike
                valid += 1
                if entity_cell and partition_of(ev.entity, cell.partitions) != cell.partition:
                    continue
                batch.events.append(ev)
            elif isinstance(item, DamagedLog):
                batch.end = item.after(item.row)
                break
            else:  # a row that could not be read: (row, reason)
                batch.rejects.setdefault(len(batch.events), []).append((*item, valid))
            if read >= BATCH:
                yield batch
                batch, read = Batch(), 0
        batch.valid = valid
        if batch.end is None:
            batch.end = END
        yield batch

    def _items(self):
        """The log from the checkpoint's position on: an :class:`Event` per valid row, ``(row,
        reason)`` per row that cannot be read, and a :class:`DamagedLog` where a damaged file
        ends it."""
        log = self.log
        if log.out_of_order == "sort":
            # every row is read (and every reject written) before the first is replayed; a
            # damaged file ends the reading there (sorted_events notes it in the state)
            yield from sorted_events(
                log, self.cell, self.state, self.bar, self.resumed, self.reject
            )
            return
        rest = None if self.open_log is None else self.open_log.rest(self.state.position)
        if rest is not None:  # a query's rows, read on from where the columnar replay stopped
            yield from self._read_rows(self.state.position, rest)
        elif self.columnar and columnar_reader_fits(log):
            yield from self._read_columns(self.state.position)
        else:
            yield from self._read_rows(self.state.position)

    def _read_columns(self, position):
        """The log read by the columnar reader (:class:`~.arrow_log.ArrowLog`): its events a
        block at a time, the blocks it does not vouch for by the row reader, and, from a block
        with a quote on, the rest of the log row by row."""
        log = self.log
        blocks = ArrowLog(log, lenient=True, start=position)
        for block in blocks:
            if isinstance(block, ColumnBlock):
                if self.bar is not None:
                    self.bar.update(len(block))
                yield from block.events(blocks.names, blocks.labels)
                continue
            if isinstance(block, RecordBlock):
                lines = block.records
            else:
                lines = csv_block_records(block.data, blocks.header, log.delimiter, log.paths[0])
            pairs = list(enumerate(lines, block.first))
            for start in range(0, len(pairs), _READ_CHUNK):
                yield from self._read_chunk(pairs[start : start + _READ_CHUNK])
        if blocks.stopped_at is not None:
            yield from self._read_rows(blocks.stopped_at, blocks.rest(blocks.stopped_at))

    def _read_rows(self, position, pairs=None):
        """The log from row ``position + 1`` on, row by row (``pairs``: those rows as ``(row,
        record)``, when they are not to be read again)."""
        chunk: list = []
        damaged = None
        try:
            for pair in records(self.log, position) if pairs is None else pairs:
                chunk.append(pair)
                if len(chunk) >= _READ_CHUNK:
                    yield from self._read_chunk(chunk)
                    chunk = []
        except DamagedLog as error:
            damaged = error
        yield from self._read_chunk(chunk)
        if damaged is not None:
            yield damaged

    def _read_chunk(self, chunk):
        """The items of a chunk of ``(row, record)``, read column by column."""
        if self.bar is not None and chunk:
            self.bar.update(len(chunk))
        for (row, _), item in zip(chunk, read_batch(self.log.reader, chunk)):
            if isinstance(item, Reject):
                yield (row, str(item))
            else:
                item.pos = row
                yield item


class Batch:
    """Rows read ahead of the replay: the cell's valid rows, the unreadable rows before each
    (``{index of the next valid row: [(row, reason, valid rows read before it)]}``), and, in the
    last batch, the number of valid rows read and how the log ended (``END``, a damaged file's
    message, or a :class:`ReplayError` that stops the replay there)."""

    __slots__ = ("end", "events", "rejects", "valid")

    def __init__(self):
        self.events: list = []
        self.rejects: dict = {}
        self.end = None
        self.valid = 0


END = "the end of the log"  # a batch's end that is neither damage nor a stop
