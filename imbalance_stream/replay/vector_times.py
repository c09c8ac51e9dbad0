"""Event times read a column at a time, for the columnar reader (:mod:`.arrow_log`).

:func:`column_micros` turns a column of time texts into integer microseconds, for the forms it
can vouch for: numbers (seconds, as :func:`~imbalance_stream.replay.events.parse_time` reads them,
with numpy) and ISO 8601 date-times of the shape ``YYYY-MM-DD[T ]HH:MM:SS[.fff|.ffffff][Z|+HH:MM]``
(naive times are UTC; read from the column's bytes by a jitted kernel,
:func:`imbalance_stream._numba.times.iso_micros`). It gives exactly the row reader's
microseconds for every value it accepts (``tests/test_replay_columnar.py`` compares them), and
None for a column holding any other value, which the row reader then reads (and rejects, naming
the reason, where it must).
"""

from __future__ import annotations

import numpy as np

from .events import MICRO, format_time

__all__ = ["column_micros", "format_times", "iso_micros", "iso_texts", "string_buffers"]


def column_micros(texts) -> np.ndarray | None:
    """The times ``texts`` (a pyarrow string array with no nulls) as int64 microseconds, or None
    when a value is not a number or ISO 8601 date-time of the shapes above, or out of range."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if len(texts) == 0:
        return np.zeros(0, dtype=np.int64)
    colons = pc.match_substring(texts, ":")
    if pc.any(colons).as_py():
        # a time of day is never a number (float takes no colon): the ISO shapes, or none
        return iso_micros(texts) if pc.all(colons).as_py() else None
    try:
        seconds = pc.cast(texts, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        micros = seconds * MICRO
        ok = np.isfinite(micros) & (micros < 2.0**63) & (micros > -(2.0**63))
    if not ok.all():
        return None
    return np.rint(micros).astype(np.int64)


def iso_micros(texts) -> np.ndarray | None:
    """ISO 8601 date-times (a pyarrow string array) as microseconds since 1970 UTC, or None:
    read from the array's bytes by a jitted kernel
    (:func:`imbalance_stream._numba.times.iso_micros`)."""
    from imbalance_stream._numba.times import iso_micros as read

    offsets, data = string_buffers(texts)
    out = np.empty(len(texts), dtype=np.int64)
    return out if read(data, offsets.astype(np.int64), out) else None


def string_buffers(texts) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, data)`` of a pyarrow string array, read in place: value ``k`` is the bytes
    ``data[offsets[k]:offsets[k + 1]]`` (int32 offsets, the array's own slice of them)."""
    buffers = texts.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[texts.offset :][: len(texts) + 1]
    data = np.frombuffer(buffers[2] or b"\0", dtype=np.uint8)  # (no data buffer: all empty)
    return offsets, data


def format_times(micros: np.ndarray, iso: bool, given: np.ndarray | None = None):
    """Times (int64 microseconds) written as :func:`~imbalance_stream.replay.events.format_time`
    writes a label time made by adding a delay, as a pyarrow string array (an empty text where
    ``given`` is False): ISO 8601 in UTC (``+00:00``, :func:`iso_texts`); numbers of seconds, by
    jitted kernels for whole seconds, else in Python, as it does."""
    import pyarrow as pa

    from imbalance_stream._numba.times import whole_second_offsets, write_whole_seconds

    if given is None:
        given = np.ones(len(micros), dtype=bool)
    if iso:
        return iso_texts(micros, "+00:00", given)
    # a quotient of whole seconds that float division gives exactly: the kernels write it
    whole = (micros % MICRO == 0) & (np.abs(micros) <= 2**53)
    if not whole[given].all():
        texts = [format_time(m, 0) if g else "" for m, g in zip(micros.tolist(), given.tolist())]
        return pa.array(texts, type=pa.string())
    return _strings(micros, given, whole_second_offsets, write_whole_seconds)


def iso_texts(micros: np.ndarray, zone: str, given: np.ndarray | None = None):
    """Times (int64 microseconds since 1970, in the ISO range) as Python's ``isoformat`` writes
    them, as a pyarrow string array: ``YYYY-MM-DDTHH:MM:SS``, the microseconds only when not
    zero, then ``zone`` (``""`` for a naive time, ``"+00:00"`` for one in UTC); an empty text
    where ``given`` is False. Written by jitted kernels
    (:func:`imbalance_stream._numba.times.write_iso_texts`)."""
    from imbalance_stream._numba.times import iso_text_offsets, write_iso_texts

    if given is None:
        given = np.ones(len(micros), dtype=bool)
    zone_bytes = np.frombuffer(zone.encode("ascii"), dtype=np.uint8)
    return _strings(
        micros,
        given,
        lambda m, g, offsets: iso_text_offsets(m, g, len(zone_bytes), offsets),
        lambda m, g, offsets, data: write_iso_texts(m, g, zone_bytes, offsets, data),
    )


def _strings(micros, given, lay_out, write):
    """A pyarrow string array of the texts ``write`` writes where ``lay_out`` places them."""
    import pyarrow as pa

    micros = np.ascontiguousarray(micros, dtype=np.int64)
    given = np.ascontiguousarray(given, dtype=np.bool_)
    offsets = np.empty(len(micros) + 1, dtype=np.int64)
    size = lay_out(micros, given, offsets)
    data = np.empty(size, dtype=np.uint8)
    write(micros, given, offsets, data)
    buffers = [None, pa.py_buffer(offsets.astype(np.int32)), pa.py_buffer(data)]  # (a block's)
    return pa.Array.from_buffers(pa.string(), len(micros), buffers)
