"""Event times read a column at a time, for the columnar reader (:mod:`.arrow_log`).

:func:`column_micros` turns a column of time texts into integer microseconds with numpy, for the
forms it can vouch for: numbers (seconds, as :func:`~imbalance_stream.replay.events.parse_time`
reads them) and ISO 8601 date-times of the shape ``YYYY-MM-DD[T ]HH:MM:SS[.fff|.ffffff][Z|+HH:MM]``
(naive times are UTC). It gives exactly the row reader's microseconds for every value it accepts
(``tests/test_replay_columnar.py`` compares them), and None for a column holding any other value,
which the row reader then reads (and rejects, naming the reason, where it must).
"""

from __future__ import annotations

import numpy as np

from .events import MICRO, format_time, time_in_range

__all__ = ["column_micros", "format_times", "iso_micros", "iso_texts"]

#: Text length -> (digits of the fraction of a second, form of the offset: "", "Z" or "+HH:MM").
_SHAPES = {
    19: (0, ""),
    20: (0, "Z"),
    25: (0, "+"),
    23: (3, ""),
    24: (3, "Z"),
    29: (3, "+"),
    26: (6, ""),
    27: (6, "Z"),
    32: (6, "+"),
}
_DIGITS = [0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18]
_DASH, _COLON, _DOT, _PLUS, _MINUS = (ord(c) for c in "-:.+-")
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)


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
    """ISO 8601 date-times (a pyarrow string array) as microseconds since 1970 UTC, or None."""
    offsets = np.frombuffer(texts.buffers()[1], dtype=np.int32)[texts.offset :][: len(texts) + 1]
    data = np.frombuffer(texts.buffers()[2], dtype=np.uint8)
    lengths = np.diff(offsets)
    out = np.empty(len(texts), dtype=np.int64)
    shortest, longest = int(lengths.min()), int(lengths.max())
    for width in [shortest] if shortest == longest else np.unique(lengths).tolist():
        if width not in _SHAPES:
            return None
        at: slice | np.ndarray = slice(None)
        if shortest == longest:  # one width: the texts are a matrix as they lie
            chars = data[offsets[0] : offsets[-1]].reshape(-1, width)
        else:
            at = np.flatnonzero(lengths == width)
            chars = data[offsets[at].astype(np.int64)[:, None] + np.arange(width)]
        micros = _fixed_width(chars, *_SHAPES[width])
        if micros is None:
            return None
        out[at] = micros
    return out


def _fixed_width(chars: np.ndarray, fraction: int, zone: str) -> np.ndarray | None:
    """The date-times of one width (rows of ``chars``, ASCII codes), or None if one is not
    valid."""
    end = 19 + (fraction + 1 if fraction else 0)
    digit_at = list(_DIGITS) + list(range(20, 20 + fraction))
    if zone == "+":
        digit_at += [end + 1, end + 2, end + 4, end + 5]
    digits = chars[:, digit_at] - np.uint8(ord("0"))  # (a byte below "0" wraps above 9)
    if (digits > 9).any():
        return None
    separators = [(4, "-"), (7, "-"), (13, ":"), (16, ":")]
    if fraction:
        separators.append((19, "."))
    if zone == "Z":
        separators.append((end, "Z"))
    elif zone == "+":
        separators.append((end + 3, ":"))
    at = [k for k, _ in separators]
    if (chars[:, at] != np.array([ord(c) for _, c in separators], dtype=np.uint8)).any():
        return None
    middle = chars[:, 10]
    if not ((middle == ord("T")) | (middle == ord(" "))).all():
        return None
    # the fields as numbers: each a sum of its digits times powers of ten, one product
    fields = digits.astype(np.int64) @ _place_values(len(digit_at), fraction, zone)
    year, month, day, hour, minute, second = fields[:, :6].T
    leap = (year % 4 == 0) & ((year % 100 != 0) | (year % 400 == 0))
    month_ok = (month >= 1) & (month <= 12)
    days_in = _DAYS_IN_MONTH[np.where(month_ok, month, 0)] + ((month == 2) & leap)
    valid = (
        (year >= 1)
        & month_ok
        & (day >= 1)
        & (day <= days_in)
        & (hour <= 23)
        & (minute <= 59)
        & (second <= 59)
    )
    shift = 0
    if zone == "+":
        zone_hours, zone_minutes = fields[:, -2], fields[:, -1]
        valid &= (zone_hours <= 23) & (zone_minutes <= 59)
        sign = np.where(chars[:, end] == _MINUS, -1, 1)
        if not ((chars[:, end] == _PLUS) | (chars[:, end] == _MINUS)).all():
            return None
        shift = sign * (zone_hours * 3600 + zone_minutes * 60)
    if not valid.all():
        return None
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    micros = (seconds - shift) * MICRO
    if fraction:
        micros += fields[:, 6] * 10 ** (6 - fraction)
    if not (time_in_range(int(micros.min()), True) and time_in_range(int(micros.max()), True)):
        return None
    return micros


def _place_values(n_digits: int, fraction: int, zone: str) -> np.ndarray:
    """The matrix that turns a row of digits (the date's 14, the fraction's, the offset's 4) into
    the fields: year, month, day, hour, minute, second, then fraction and offset hours and
    minutes where present."""
    widths = [4, 2, 2, 2, 2, 2] + ([fraction] if fraction else []) + ([2, 2] if zone == "+" else [])
    weights = np.zeros((n_digits, len(widths)), dtype=np.int64)
    row = 0
    for column, width in enumerate(widths):
        for k in range(width):
            weights[row, column] = 10 ** (width - 1 - k)
            row += 1
    return weights


def _days_from_civil(year, month, day) -> np.ndarray:
    """Days since 1970-01-01 of proleptic Gregorian dates (years >= 1)."""
    year = year - (month <= 2)
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


def format_times(micros: np.ndarray, iso: bool) -> list[str]:
    """Times (int64 microseconds) written as :func:`~imbalance_stream.replay.events.format_time`
    writes a label time made by adding a delay: ISO 8601 in UTC (``+00:00``), by numpy a column
    at a time (:func:`iso_texts`); numbers in Python, as it does."""
    if not iso:
        return [format_time(int(m), 0) for m in micros.tolist()]
    return iso_texts(micros, "+00:00")


def iso_texts(micros: np.ndarray, zone: str) -> list[str]:
    """Times (int64 microseconds since 1970, in the ISO range) as Python's ``isoformat`` writes
    them: ``YYYY-MM-DDTHH:MM:SS``, the microseconds only when not zero, then ``zone`` (``""``
    for a naive time, ``"+00:00"`` for one in UTC)."""
    moments = micros.astype("datetime64[us]")
    seconds = np.datetime_as_string(moments, unit="s").astype(object)
    fractions = np.datetime_as_string(moments, unit="us").astype(object)
    return (np.where(micros % MICRO == 0, seconds, fractions) + zone).tolist()
