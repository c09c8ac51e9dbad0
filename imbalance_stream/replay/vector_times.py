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

from .events import MICRO, time_in_range

__all__ = ["column_micros", "iso_micros"]

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
    if pc.any(pc.match_substring(texts, ":")).as_py():
        # a time of day is never a number (float takes no colon): the ISO shapes, or none
        if not pc.all(pc.match_substring(texts, ":")).as_py():
            return None
        return iso_micros(texts)
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
    lengths = np.diff(offsets).astype(np.int64)
    data = np.frombuffer(texts.buffers()[2], dtype=np.uint8)
    out = np.empty(len(texts), dtype=np.int64)
    for width in np.unique(lengths).tolist():
        if width not in _SHAPES:
            return None
        at = np.flatnonzero(lengths == width)
        starts = offsets[at].astype(np.int64)
        chars = data[starts[:, None] + np.arange(width)]
        micros = _fixed_width(chars, *_SHAPES[width])
        if micros is None:
            return None
        out[at] = micros
    return out


def _number(digits: np.ndarray) -> np.ndarray:
    value = np.zeros(len(digits), dtype=np.int64)
    for k in range(digits.shape[1]):
        value = value * 10 + digits[:, k]
    return value


def _fixed_width(chars: np.ndarray, fraction: int, zone: str) -> np.ndarray | None:
    """The date-times of one width (rows of ``chars``, ASCII codes), or None if one is not
    valid."""
    digits = chars.astype(np.int64) - ord("0")
    digit_at = list(_DIGITS)
    if fraction:
        digit_at += list(range(20, 20 + fraction))
    end = 19 + (fraction + 1 if fraction else 0)
    if zone == "+":
        digit_at += [end + 1, end + 2, end + 4, end + 5]
    if ((digits[:, digit_at] < 0) | (digits[:, digit_at] > 9)).any():
        return None
    separators_ok = (
        (chars[:, 4] == _DASH)
        & (chars[:, 7] == _DASH)
        & ((chars[:, 10] == ord("T")) | (chars[:, 10] == ord(" ")))
        & (chars[:, 13] == _COLON)
        & (chars[:, 16] == _COLON)
    )
    if fraction:
        separators_ok &= chars[:, 19] == _DOT
    if zone == "Z":
        separators_ok &= chars[:, end] == ord("Z")
    elif zone == "+":
        separators_ok &= ((chars[:, end] == _PLUS) | (chars[:, end] == _MINUS)) & (
            chars[:, end + 3] == _COLON
        )
    if not separators_ok.all():
        return None
    year, month, day = _number(digits[:, 0:4]), _number(digits[:, 5:7]), _number(digits[:, 8:10])
    hour, minute, second = (_number(digits[:, k : k + 2]) for k in (11, 14, 17))
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
    shift = np.zeros(len(chars), dtype=np.int64)
    if zone == "+":
        zone_hours, zone_minutes = (
            _number(digits[:, end + 1 : end + 3]),
            _number(digits[:, end + 4 : end + 6]),
        )
        valid &= (zone_hours <= 23) & (zone_minutes <= 59)
        sign = np.where(chars[:, end] == _MINUS, -1, 1)
        shift = sign * (zone_hours * 3600 + zone_minutes * 60)
    if not valid.all():
        return None
    micros_of_second = np.zeros(len(chars), dtype=np.int64)
    if fraction:
        micros_of_second = _number(digits[:, 20 : 20 + fraction]) * 10 ** (6 - fraction)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    micros = (seconds - shift) * MICRO + micros_of_second
    if not (time_in_range(int(micros.min()), True) and time_in_range(int(micros.max()), True)):
        return None
    return micros


def _days_from_civil(year, month, day) -> np.ndarray:
    """Days since 1970-01-01 of proleptic Gregorian dates (years >= 1)."""
    year = year - (month <= 2)
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + np.where(month > 2, -3, 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468
