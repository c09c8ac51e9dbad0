"""ISO 8601 date-times read from the bytes of a column of texts (the replay's columnar reader).

:func:`iso_micros` reads the shapes ``YYYY-MM-DD[T ]HH:MM:SS[.fff|.ffffff][Z|+HH:MM]`` (naive times
are UTC) to integer microseconds since 1970, exactly as Python's ``datetime.fromisoformat`` and a
subtraction of the epoch read them, and refuses the whole column at the first text of another
shape, an impossible date or time, or a time outside the years 1 to 9999.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["iso_micros"]

MICRO = 1_000_000
_FIRST = -62_135_596_800 * MICRO  # 0001-01-01T00:00:00Z
_LAST = 253_402_300_799 * MICRO + 999_999  # 9999-12-31T23:59:59.999999Z
_DAYS_IN_MONTH = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], dtype=np.int64)
_ZERO, _NINE = ord("0"), ord("9")


@njit(cache=True)
def _number(data, at, width):
    """The decimal number of ``width`` digits at ``data[at]``, or -1 if one is not a digit."""
    value = 0
    for k in range(at, at + width):
        digit = data[k]
        if digit < _ZERO or digit > _NINE:
            return -1
        value = value * 10 + (digit - _ZERO)
    return value


@njit(cache=True)
def _days_from_civil(year, month, day):
    """Days since 1970-01-01 of a proleptic Gregorian date (year >= 1)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - 719468


@njit(cache=True)
def iso_micros(data, offsets, out):
    """Read text ``i`` (the bytes ``data[offsets[i]:offsets[i + 1]]``) into ``out[i]``; returns
    False (``out`` then partly written) at the first text it refuses."""
    for i in range(out.shape[0]):
        at = offsets[i]
        width = offsets[i + 1] - at
        if width == 19 or width == 20 or width == 25:
            fraction = 0
        elif width == 23 or width == 24 or width == 29:
            fraction = 3
        elif width == 26 or width == 27 or width == 32:
            fraction = 6
        else:
            return False
        end = 19 + (fraction + 1 if fraction else 0)  # where the offset begins
        zone = width - end  # 0: naive, 1: "Z", 6: "+HH:MM"
        year = _number(data, at, 4)
        month = _number(data, at + 5, 2)
        day = _number(data, at + 8, 2)
        hour = _number(data, at + 11, 2)
        minute = _number(data, at + 14, 2)
        second = _number(data, at + 17, 2)
        middle = data[at + 10]
        if (
            data[at + 4] != ord("-")
            or data[at + 7] != ord("-")
            or (middle != ord("T") and middle != ord(" "))
            or data[at + 13] != ord(":")
            or data[at + 16] != ord(":")
        ):
            return False
        micros = 0
        if fraction:
            digits = _number(data, at + 20, fraction)
            if data[at + 19] != ord(".") or digits < 0:
                return False
            micros = digits * (1000 if fraction == 3 else 1)
        shift = 0
        if zone == 1:
            if data[at + end] != ord("Z"):
                return False
        elif zone == 6:
            sign = data[at + end]
            zone_hours = _number(data, at + end + 1, 2)
            zone_minutes = _number(data, at + end + 4, 2)
            if (sign != ord("+") and sign != ord("-")) or data[at + end + 3] != ord(":"):
                return False
            if zone_hours < 0 or zone_minutes < 0 or zone_hours > 23 or zone_minutes > 59:
                return False
            shift = zone_hours * 3600 + zone_minutes * 60
            if sign == ord("-"):
                shift = -shift
        if year < 1 or month < 1 or month > 12 or day < 1 or hour < 0 or minute < 0:
            return False
        if second < 0 or hour > 23 or minute > 59 or second > 59:
            return False
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        if day > _DAYS_IN_MONTH[month] + (month == 2 and leap):
            return False
        seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
        micros += (seconds - shift) * MICRO
        if micros < _FIRST or micros > _LAST:
            return False
        out[i] = micros
    return True
