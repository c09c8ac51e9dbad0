"""A log's rows as events: the rules that read one row (its times, label, entity, id and
features) into an :class:`Event`, or refuse it with a :class:`Reject` naming the reason.

:class:`RowReader` applies them to one row (:meth:`RowReader.event`);
:func:`~imbalance_stream.replay.columns.read_batch` to a batch of rows column by column, with the
same events and the same reasons.
Times are held as integer microseconds, so that ``time + delay`` is exact and ties are ties.
"""

from __future__ import annotations

import datetime as dt
import decimal
import math
import numbers
import re

__all__ = [
    "MICRO",
    "NEVER",
    "Event",
    "Reject",
    "RowReader",
    "check_time_range",
    "format_time",
    "is_number",
    "iso_time",
    "parse_time",
    "text",
    "time_in_range",
]

MICRO = 1_000_000
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)


class Reject(Exception):
    """A row that cannot be replayed; ``str(error)`` is the reason written to ``rejected.csv``."""


class _Never:
    """The label of a row whose label never arrives (predicted, never learned)."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __reduce__(self):
        return (_Never, ())

    def __repr__(self):
        return "NEVER"


NEVER = _Never()


class Event:
    """One valid row: ``seq`` its place in replay order, ``row`` its 1-based row in the source,
    ``time`` and ``label_time`` integer microseconds (``label_time`` None: never labelled),
    ``pos`` the reader position just after it."""

    __slots__ = (
        "seq",
        "row",
        "pos",
        "id",
        "time",
        "time_text",
        "entity",
        "x",
        "label",
        "label_time",
        "label_time_text",
    )

    def __init__(self, row, id, time, time_text, entity, x, label, label_time, label_time_text):
        self.seq = -1
        self.pos = -1
        self.row = row
        self.id = id
        self.time = time
        self.time_text = time_text
        self.entity = entity
        self.x = x
        self.label = label
        self.label_time = label_time
        self.label_time_text = label_time_text

    def __getstate__(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state):
        for name, value in zip(self.__slots__, state):
            setattr(self, name, value)


#: Numeric times are held as integer microseconds that must fit 64 bits: |t| < 9.2e12 (seconds,
#: or milliseconds since 1970: any unit up to milliseconds for today's dates).
_NUMERIC_LIMIT = 2**63 - 1
#: ISO 8601 times must be dates Python can write back: years 1 to 9999.
_ISO_FIRST = -62_135_596_800 * MICRO  # 0001-01-01T00:00:00Z
_ISO_LAST = 253_402_300_799 * MICRO + 999_999  # 9999-12-31T23:59:59.999999Z


def time_in_range(micros: float, iso: bool) -> bool:
    """Whether a time of that kind (ISO 8601 or a number) can hold ``micros``: the one range
    rule of the rows read alone, of a batch and of a label time made by adding a delay."""
    if iso:
        return _ISO_FIRST <= micros <= _ISO_LAST
    return -_NUMERIC_LIMIT <= micros <= _NUMERIC_LIMIT


def _numeric_time(number: float, value) -> int:
    if not math.isfinite(number):
        raise Reject(f"time {value!r} is not finite")
    micros = number * MICRO
    if not time_in_range(micros, False):
        raise Reject(
            f"time {value!r} is out of range: a numeric time is held in microseconds and must be "
            "below 9.2e12 in absolute value"
        )
    return round(micros)


def check_time_range(micros: int, iso: bool, what: str, value) -> int:
    """``micros`` if a time of that kind can hold it (a label time made by adding a delay may
    not); raises :class:`Reject` naming ``what``."""
    if time_in_range(micros, iso):
        return micros
    if iso:
        raise Reject(f"{what} {value} is out of range: ISO 8601 times end in the year 9999")
    raise Reject(f"{what} {value} is out of range: |time| must be below 9.2e12")


def parse_time(value) -> int:
    """An event time (a number, or an ISO 8601 date/time; naive times are UTC) as integer
    microseconds; raises :class:`Reject`, also for a time out of range (see
    :func:`check_time_range`)."""
    if isinstance(value, bool):
        raise Reject(f"cannot read {value!r} as a time")
    if isinstance(value, numbers.Real):
        try:
            number = float(value)
        except OverflowError:  # an integer beyond the float range
            raise Reject(f"time {value!r} is out of range") from None
        return _numeric_time(number, value)
    if isinstance(value, dt.datetime):
        moment = value
    elif isinstance(value, dt.date):
        moment = dt.datetime(value.year, value.month, value.day)
    elif isinstance(value, str):
        stripped = value.strip()
        try:
            number = float(stripped)
        except ValueError:
            return iso_time(stripped, value)
        return _numeric_time(number, value)
    else:
        raise Reject(f"cannot read {value!r} as a time")
    return _micros_of(moment, value)


def iso_time(stripped: str, value) -> int:
    """The ISO 8601 time ``stripped`` (``value`` without surrounding white space)."""
    try:
        moment = dt.datetime.fromisoformat(stripped.replace("Z", "+00:00"))
    except ValueError:
        raise Reject(f"cannot read {value!r} as a time (a number or ISO 8601)") from None
    return _micros_of(moment, value)


def _micros_of(moment: dt.datetime, value) -> int:
    """A date and time (naive: UTC) as microseconds since 1970, within the ISO range."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=dt.timezone.utc)
    delta = moment - _EPOCH
    micros = (delta.days * 86400 + delta.seconds) * MICRO + delta.microseconds
    if time_in_range(micros, True):
        return micros
    return check_time_range(micros, True, "time", repr(text(value)))  # raises, naming it


def text(value) -> str:
    """A value as the outputs write it: a float by its ``repr``, a date and time in ISO 8601,
    anything else by ``str``."""
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, dt.datetime):
        return value.isoformat()
    return str(value)


def check_copied(column, value) -> None:
    """Raise :class:`Reject` if ``value``, copied as written into the outputs (an id, an entity, a
    time), holds a carriage return: CSV writers quote a field for ``"\n"`` but not for a lone
    ``"\r"``, which readers take for the end of a line, so the row would split in two."""
    if type(value) is str and "\r" in value:
        raise Reject(
            f"column {column!r}: the value holds a carriage return, which would split the row in "
            "the outputs; remove it"
        )


def is_empty(value) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def to_float(name, value) -> float:
    kind = type(value)
    if kind is str:
        try:
            number = float(value)
        except ValueError:
            raise Reject(f"column {name!r}: cannot read {value!r} as a number") from None
    elif kind is float or kind is int or isinstance(value, (numbers.Real, decimal.Decimal)):
        # (bool, numpy numbers and a SQL DECIMAL too)
        number = float(value)
    else:
        raise Reject(f"column {name!r}: cannot read {value!r} as a number")
    if number - number != 0.0:  # NaN or infinite
        if math.isnan(number):
            raise Reject(f"column {name!r}: NaN")
        raise Reject(f"column {name!r}: infinite value {value!r}")
    return number


def to_int(name, value) -> int:
    number = to_float(name, value)
    if number != int(number):
        raise Reject(f"column {name!r}: {value!r} is not an integer")
    return int(number)


def to_bool(name, value) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "yes", "t"):
        return True
    if text in ("false", "0", "no", "f"):
        return False
    raise Reject(f"column {name!r}: cannot read {value!r} as true or false")


CONVERTERS = {
    "float": to_float,
    "int": to_int,
    "str": lambda name, value: str(value),
    "bool": to_bool,
}


def guess_label(value):
    """A label read without a declared list: booleans and integers from their text."""
    if isinstance(value, str):
        text = value.strip()
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        if re.fullmatch(r"[+-]?[0-9]+", text):
            return int(text)
        return text
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


MISSING = object()


def is_iso(value) -> bool:
    """Whether a time was given as a date (ISO 8601 text or a date object), not a number."""
    return isinstance(value, (dt.datetime, dt.date)) or (
        isinstance(value, str) and not is_number(value)
    )


def format_time(micros: int, like) -> str:
    """``micros`` written the way the event time ``like`` was (ISO 8601 or a number)."""
    if is_iso(like):
        moment = _EPOCH + dt.timedelta(microseconds=micros)
        return moment.isoformat()
    seconds = micros / MICRO
    return str(int(seconds)) if seconds.is_integer() else repr(seconds)


def is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True


class RowReader:
    """Reads rows of a log into events, following its ``[log]`` section (a
    :class:`~imbalance_stream.replay.config.LogSpec`)."""

    def __init__(self, spec):
        self.format: str = spec.format
        self.time: str = spec.time
        self.label: str = spec.label
        self.labels: list | None = spec.labels
        self.id: str | None = spec.id
        self.entity: str | None = spec.entity
        self.label_time: str | None = spec.label_time
        self.label_delay: int | None = spec.label_delay
        self.missing: str = spec.missing
        self.include: list[str] | None = spec.include
        self.types: dict[str, str] = spec.types
        reserved = {self.time, self.label, self.id, self.entity, self.label_time} - {None}
        self.reserved = reserved | set(spec.exclude)
        self._label_map = None
        if self.labels is not None:
            self._label_map = {}
            for label in self.labels:
                self._label_map[label] = label
                self._label_map[text(label)] = label
                if isinstance(label, bool):
                    self._label_map[str(label).lower()] = label

    def label_of(self, value):
        if self._label_map is None:
            return guess_label(value)
        key = value.strip() if isinstance(value, str) else value
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        try:
            return self._label_map[key]
        except (KeyError, TypeError):
            pass
        if isinstance(key, str) and key.lower() in self._label_map:
            return self._label_map[key.lower()]
        allowed = ", ".join(repr(label) for label in self.labels or ())
        raise Reject(f"unknown label {value!r} (labels: {allowed})")

    def event(self, row: int, record) -> Event:
        """The event of source row ``row`` (1-based); raises :class:`Reject` with the reason."""
        if isinstance(record, Reject):
            raise record
        if None in record:  # csv.DictReader's restkey: more fields than the header
            raise Reject(f"{len(record[None])} more field(s) than the header")

        def get(column):
            value = record.get(column, MISSING)
            if value is MISSING or (value is None and self.format == "csv"):
                raise Reject(f"missing column {column!r}")
            return value

        def copied(column, what):
            """A value the outputs copy as written: present, not empty, of one line."""
            value = get(column)
            if is_empty(value):
                raise Reject(f"column {column!r}: empty {what}")
            check_copied(column, value)
            return value

        raw_time = copied(self.time, "event time")
        time = parse_time(raw_time)
        entity = None if self.entity is None else text(copied(self.entity, "entity"))
        event_id = str(row) if self.id is None else text(copied(self.id, "event id"))

        raw_label = get(self.label)
        label, label_time, label_time_text = None, None, ""
        if not is_empty(raw_label):
            label = self.label_of(raw_label)
            if self.label_time is not None:
                value = get(self.label_time)
                if not is_empty(value):
                    check_copied(self.label_time, value)
                    try:
                        label_time = parse_time(value)
                    except Reject as error:
                        raise Reject(f"column {self.label_time!r}: {error}") from None
                    if label_time < time:
                        raise Reject(
                            f"label time {text(value)!r} is before the event time "
                            f"{text(raw_time)!r}"
                        )
                    label_time_text = text(value)
            else:
                label_time = check_time_range(
                    time + (self.label_delay or 0),
                    is_iso(raw_time),
                    "label time",
                    f"(event time {text(raw_time)!r} plus log.label_delay)",
                )
                label_time_text = format_time(label_time, raw_time)

        columns = (
            self.include
            if self.include is not None
            else ([c for c in record if c not in self.reserved])
        )
        x = {}
        types = self.types
        drop = self.missing == "drop"
        for column in columns:
            value = record.get(column, MISSING)
            if value is MISSING or value is None or (type(value) is str and not value.strip()):
                if value is MISSING or (value is None and self.format == "csv"):
                    raise Reject(f"missing column {column!r}")
                if drop:
                    continue
                raise Reject(f"column {column!r}: empty value")
            kind = types.get(column)
            x[column] = to_float(column, value) if kind is None else CONVERTERS[kind](column, value)
        if label is None:
            label_time = None
        return Event(
            row, event_id, time, text(raw_time), entity, x, label, label_time, label_time_text
        )
