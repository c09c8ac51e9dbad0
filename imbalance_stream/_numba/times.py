"""Times read from and written into the bytes of a column of texts (the replay's columnar reader).

:func:`iso_micros` reads the shapes ``YYYY-MM-DD[T ]HH:MM:SS[.fff|.ffffff][Z|+HH:MM]`` (naive times
are UTC) to integer microseconds since 1970, exactly as Python's ``datetime.fromisoformat`` and a
subtraction of the epoch read them, and refuses the whole column at the first text of another
shape, an impossible date or time, or a time outside the years 1 to 9999.
:func:`write_iso_texts` and :func:`write_whole_seconds` write times back as the row reader writes
them (``datetime.isoformat``; ``str`` of whole seconds), each after its ``*_offsets`` function
has laid out the strings.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "iso_micros",
    "iso_text_offsets",
    "whole_second_offsets",
    "write_iso_texts",
    "write_whole_seconds",
]

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


# ---- writing times --------------------------------------------------------------------------


@njit(cache=True)
def _civil_from_days(days):
    """The proleptic Gregorian ``(year, month, day)`` of a day count since 1970-01-01."""
    days += 719468
    era = days // 146097
    day_of_era = days - era * 146097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    shifted_month = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * shifted_month + 2) // 5 + 1
    month = shifted_month + 3 if shifted_month < 10 else shifted_month - 9
    return year_of_era + era * 400 + (month <= 2), month, day


@njit(cache=True)
def _put(data, at, value, width):
    """Write ``value`` (>= 0) in ``width`` decimal digits at ``data[at]``; returns the end."""
    for k in range(width - 1, -1, -1):
        data[at + k] = _ZERO + value % 10
        value //= 10
    return at + width


@njit(cache=True)
def iso_text_offsets(micros, given, zone_width, offsets):
    """The string offsets of :func:`write_iso_texts`'s texts: ``YYYY-MM-DDTHH:MM:SS`` (19
    bytes), ``.ffffff`` where the microseconds are not zero, the zone; an empty text where
    ``given`` is False. Returns the bytes needed."""
    offsets[0] = 0
    for i in range(micros.shape[0]):
        width = 0
        if given[i]:
            width = 19 + zone_width + (7 if micros[i] % MICRO != 0 else 0)
        offsets[i + 1] = offsets[i] + width
    return offsets[micros.shape[0]]


@njit(cache=True)
def write_iso_texts(micros, given, zone, offsets, data):
    """Write the times ``micros`` (microseconds since 1970, in the years 1 to 9999) as Python's
    ``datetime.isoformat`` writes them, then ``zone`` (bytes), at ``data[offsets[i]]``."""
    for i in range(micros.shape[0]):
        if not given[i]:
            continue
        seconds = micros[i] // MICRO
        fraction = micros[i] - seconds * MICRO
        days = seconds // 86400
        second_of_day = seconds - days * 86400
        year, month, day = _civil_from_days(days)
        at = _put(data, offsets[i], year, 4)
        data[at] = ord("-")
        at = _put(data, at + 1, month, 2)
        data[at] = ord("-")
        at = _put(data, at + 1, day, 2)
        data[at] = ord("T")
        at = _put(data, at + 1, second_of_day // 3600, 2)
        data[at] = ord(":")
        at = _put(data, at + 1, second_of_day // 60 % 60, 2)
        data[at] = ord(":")
        at = _put(data, at + 1, second_of_day % 60, 2)
        if fraction:
            data[at] = ord(".")
            at = _put(data, at + 1, fraction, 6)
        for k in range(zone.shape[0]):
            data[at + k] = zone[k]


@njit(cache=True)
def _digits(value):
    """The number of decimal digits of ``value`` >= 0."""
    count = 1
    while value >= 10:
        value //= 10
        count += 1
    return count


@njit(cache=True)
def whole_second_offsets(micros, given, offsets):
    """The string offsets of :func:`write_whole_seconds`'s texts (an empty text where ``given``
    is False). Returns the bytes needed."""
    offsets[0] = 0
    for i in range(micros.shape[0]):
        width = 0
        if given[i]:
            seconds = micros[i] // MICRO
            width = _digits(abs(seconds)) + (seconds < 0)
        offsets[i + 1] = offsets[i] + width
    return offsets[micros.shape[0]]


@njit(cache=True)
def write_whole_seconds(micros, given, offsets, data):
    """Write the times ``micros`` (whole seconds) as integers of seconds, as ``str`` writes them,
    at ``data[offsets[i]]``."""
    for i in range(micros.shape[0]):
        if not given[i]:
            continue
        seconds = micros[i] // MICRO
        at = offsets[i]
        if seconds < 0:
            data[at] = ord("-")
            at += 1
        _put(data, at, abs(seconds), offsets[i + 1] - at)
