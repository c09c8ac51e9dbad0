"""A batch of rows read column by column gives the events and reasons of reading them one by one."""

from __future__ import annotations

import pathlib

from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.replay.columns import read_batch
from imbalance_stream.replay.config import parse_log
from imbalance_stream.replay.events import Event, Reject

NUMBERS = ["1", "2.5", " 3 ", "-0", "1e3", "1_000", "+.5", "7."]
HOSTILE = ["", " ", "nan", "NaN", "inf", "-inf", "1e400", "x", "1,5", "0x10", "١٢", None, True]
TIMES = [
    *("5", "5.5", "1e12", "9.3e12", "-3", "1e303", "inf", ""),
    *("2024-01-01T00:00:00", "2024-01-01 10:00:00+02:00", "9999-12-31T23:59:00"),
    *("0001-01-01T00:00:00+01:00", "2024-02-30"),
]
LABELS = ["0", "1", "true", "FALSE", " 1 ", "2", "", "x", 1, 0.0, None, 1.5]


def value(kinds):
    """A value from ``kinds`` or any float (a JSON log's numbers)."""
    return st.one_of(st.sampled_from(kinds), st.floats(allow_nan=True), st.integers(-5, 10**20))


@st.composite
def batches(draw):
    n = draw(st.integers(1, 25))
    text_only = draw(st.booleans())  # a CSV file's rows are all text
    pool = (lambda ks: st.sampled_from([k for k in ks if type(k) is str])) if text_only else value
    rows = []
    for i in range(n):
        record = {
            "t": draw(pool(TIMES + NUMBERS)),
            "id": draw(pool(["a", "b", "", " ", "7"])),
            "entity": draw(pool(["e1", "e2", ""])),
            "y": draw(pool(LABELS)),
            "lt": draw(pool(TIMES + NUMBERS)),
            "f1": draw(pool(NUMBERS + HOSTILE)),
            "f2": draw(pool(NUMBERS + HOSTILE)),
            "kind": draw(pool(["a", "", "3", "true", "no"])),
        }
        if not text_only and draw(st.integers(0, 9)) == 0:
            record = dict(reversed(record.items()))  # another column order
        if draw(st.integers(0, 19)) == 0:
            record = Reject("invalid JSON")
        rows.append((i + 1, record))
    return text_only, rows


SPECS = {
    "label time": {"label_time": "lt"},
    "delay": {"label_delay": "1d"},
    "typed, drop": {"label_delay": 60, "missing": "drop", "features": {"types": {"kind": "bool"}}},
    "labels, str": {"labels": [0, 1], "features": {"types": {"kind": "str"}, "exclude": ["lt"]}},
    "include": {"labels": [False, True], "features": {"include": ["f2", "f1"]}},
}


def spec(name, text_only, folder: pathlib.Path):
    """The ``[log]`` section ``name`` (its file is never read here, but must exist)."""
    (folder / "log.csv").touch()
    log = {"path": "log.csv", "time": "t", "id": "id", "entity": "entity", "label": "y"}
    log.update(SPECS[name])
    log["format"] = "csv" if text_only else "jsonl"
    return parse_log(log, folder)


def as_comparable(result):
    if isinstance(result, Event):
        return ("event", result.__getstate__())
    assert isinstance(result, Reject)
    return ("reject", str(result))


@settings(max_examples=300, deadline=None)
@given(batches(), st.sampled_from(sorted(SPECS)))
def test_a_batch_gives_the_events_and_reasons_of_its_rows(tmp_path_factory, batch, name):
    text_only, rows = batch
    reader = spec(name, text_only, tmp_path_factory.getbasetemp()).reader
    one_by_one = []
    for row, record in rows:
        try:
            one_by_one.append(reader.event(row, record))
        except Reject as error:
            one_by_one.append(error)
    together = read_batch(reader, rows)
    assert [as_comparable(r) for r in together] == [as_comparable(r) for r in one_by_one]
