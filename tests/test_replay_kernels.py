"""The replay's jitted kernels against their plain twins: the reading of ISO 8601 date-times
(``_numba.times.iso_micros``, used by the columnar reader), a whole column at a time, gives the
same microseconds or the same refusal for every column of texts; the hashing of the event ids
where they lie (``_numba.text.hash_spans``, used by the merge) the same hashes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.replay.events import MICRO, time_in_range

pa = pytest.importorskip("pyarrow")

from replay_helpers import ISO_TEXTS  # noqa: E402

from imbalance_stream.replay.vector_times import iso_micros  # noqa: E402

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


def numpy_iso_micros(texts) -> np.ndarray | None:
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


_STRAY = list("0-:T /+Z.9\x00é")


def _mutated(text: str, at: int, char: str) -> str:
    return text[: at % (len(text) + 1)] + char + text[at % (len(text) + 1) + 1 :]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            ISO_TEXTS,
            st.builds(
                _mutated, ISO_TEXTS, st.integers(0, 40), st.sampled_from(list("0-:T /+Z.9\x00é"))
            ),
            st.text(max_size=33),
        ),
        min_size=1,
        max_size=6,
    ),
    st.integers(0, 3),
)
def test_the_kernel_reads_a_column_as_its_numpy_twin(values, sliced):
    texts = pa.array(values, type=pa.string())[sliced % len(values) :]  # an offset array too
    if len(texts) == 0:
        return
    got, expected = iso_micros(texts), numpy_iso_micros(texts)
    if expected is None:
        assert got is None
    else:
        assert got is not None and got.tolist() == expected.tolist()


def test_the_extremes_of_the_iso_range():
    first, last = "0001-01-01T00:00:00", "9999-12-31T23:59:59.999999"
    column = pa.array([first, last, "9999-12-31T23:59:59-00:01"])
    assert iso_micros(column[:2]).tolist() == numpy_iso_micros(column[:2]).tolist()
    assert iso_micros(column[:2]).tolist() == [-62_135_596_800 * MICRO, 253_402_300_799_999_999]
    assert iso_micros(column) is None and numpy_iso_micros(column) is None  # past the year 9999


def _fnv1a_mixed(data: bytes) -> int:
    """The plain twin of ``hash_spans``: FNV-1a over the bytes, MurmurHash3's finaliser, int64."""
    mask = (1 << 64) - 1
    code = 0xCBF29CE484222325
    for byte in data:
        code = ((code ^ byte) * 0x100000001B3) & mask
    code ^= code >> 33
    code = (code * 0xFF51AFD7ED558CCD) & mask
    code ^= code >> 33
    return code - (1 << 64) if code >= 1 << 63 else code


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=8))
def test_ids_hash_where_they_lie_as_their_plain_twin(ids):
    from imbalance_stream._numba.text import hash_spans

    data = b"".join(ids)
    ends = np.cumsum([len(value) for value in ids], dtype=np.int64)
    starts = ends - np.array([len(value) for value in ids], dtype=np.int64)
    out = np.empty(len(ids), dtype=np.int64)
    hash_spans(np.frombuffer(data, dtype=np.uint8), starts, ends, out)
    assert out.tolist() == [_fnv1a_mixed(value) for value in ids]


def _row_id_spans_twin(data: bytes, last_row: int, capacity: int):
    """The plain twin of ``row_id_spans``: each line split at its commas by Python."""
    spans, at = [], 0
    for line in data.split(b"\n"):
        if at >= len(data):
            break
        fields = line.split(b",")
        row = fields[0]
        if not row.isdigit() or not row.isascii() or len(row) > 18 or len(fields) < 3:
            return -1, None
        if int(row) != last_row:
            if len(spans) == capacity:
                return -1, None
            start = at + len(row) + 1
            spans.append([start, start + len(fields[1])])
            last_row = int(row)
        at += len(line) + 1
    return len(spans), spans, last_row


_ROW = st.one_of(st.integers(0, 30).map(str), st.sampled_from(["", "x", "1x", "9" * 19]))
_FIELD_TEXT = st.text(alphabet="ab1-.:", max_size=6)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(_ROW, st.lists(_FIELD_TEXT, min_size=0, max_size=5)), min_size=1, max_size=10
    ),
    st.booleans(),
    st.integers(-1, 30),
    st.integers(0, 12),
)
def test_each_rows_id_is_found_as_by_its_plain_twin(lines, ended, last_row, capacity):
    from imbalance_stream._numba.text import row_id_spans

    data = b"\n".join(",".join([row, *fields]).encode() for row, fields in lines)
    if ended:
        data += b"\n"
    spans = np.full((capacity, 2), -7, dtype=np.int64)
    found, last = row_id_spans(np.frombuffer(data, dtype=np.uint8), last_row, spans)
    expected = _row_id_spans_twin(data, last_row, capacity)
    assert found == expected[0]
    if found >= 0:
        assert spans[:found].tolist() == expected[1] and last == expected[2]
        ids = [data[a:b] for a, b in spans[:found].tolist()]
        assert all(b"," not in value and b"\n" not in value for value in ids)
    else:
        assert last == last_row


def _place_texts_twin(out: bytearray, at: list, texts: list, index: list) -> None:
    """The plain twin of ``place_texts``: each chosen text copied by Python."""
    for i, k in enumerate(index):
        out[at[i] : at[i] + len(texts[k])] = texts[k]
        at[i] += len(texts[k])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=6), min_size=1, max_size=6), st.data())
def test_texts_are_placed_as_by_their_plain_twin(texts, data):
    from imbalance_stream._numba.text import place_texts

    index = data.draw(st.lists(st.integers(0, len(texts) - 1), max_size=8))
    sizes = [len(texts[k]) + 1 for k in index]  # a byte left between two places
    at = [sum(sizes[:i]) for i in range(len(index))]
    expected, want_at = bytearray(b"." * sum(sizes)), list(at)
    _place_texts_twin(expected, want_at, texts, index)
    offsets = np.cumsum([0, *map(len, texts)]).astype(np.int64)
    out = np.frombuffer(bytearray(b"." * sum(sizes)), dtype=np.uint8).copy()
    got_at = np.array(at, dtype=np.int64)
    place_texts(out, got_at, offsets, np.frombuffer(b"".join(texts) + b"\0", dtype=np.uint8),
                np.array(index, dtype=np.int64))  # fmt: skip
    assert out.tobytes() == bytes(expected) and got_at.tolist() == want_at


_TEXT = st.text(alphabet="ab1-.:é", max_size=5)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 6), st.integers(1, 3), st.data())
def test_lines_are_the_fields_joined_by_commas(n, models, data):
    """``csv_lines``: per row, each model's line, its fields (texts per row, chosen texts, one
    text for all) joined by commas, as Python joins them."""
    from imbalance_stream.replay.lines import Choice, csv_lines, field_values

    lines = []
    for _ in range(models):
        fields = []
        for kind in data.draw(st.lists(st.sampled_from("acs"), min_size=1, max_size=4)):
            if kind == "a":
                fields.append(
                    pa.array(data.draw(st.lists(_TEXT, min_size=n, max_size=n)), pa.string())
                )
            elif kind == "c":
                texts = data.draw(st.lists(_TEXT, min_size=1, max_size=3))
                picks = st.lists(st.integers(0, len(texts) - 1), min_size=n, max_size=n)
                fields.append(Choice(texts, np.array(data.draw(picks), dtype=np.int64)))
            else:
                fields.append(data.draw(_TEXT))
        lines.append(fields)
    values = [[field_values(field, n) for field in fields] for fields in lines]
    expected = "".join(
        ",".join(column[i] for column in values[j]) + "\n" for i in range(n) for j in range(models)
    )
    assert csv_lines(lines, n).tobytes() == expected.encode()
