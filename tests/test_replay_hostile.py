"""The replay and its logs under hostile input: every bad log ends in rejected rows (exit 0) or in
one line (exit 2), never a traceback; nothing is written outside ``--out``; rows predicted plus
rows rejected are the rows of the log; two replays of one log are identical.

Each case runs the command line in-process (``cli.main``) in a temporary root that holds only the
scenario and its log, and checks, besides its own outcome, that the root holds nothing new but
the output folder afterwards.
"""

from __future__ import annotations

import csv
import gzip
import json
import os
import pathlib
import sqlite3

import pytest

from imbalance_stream import cli
from imbalance_stream.replay import IncompleteReplay, parse, replay

HEADER = "event_id,t,amount,fraud"
GOOD = ["e1,1,1.0,0", "e2,2,2.0,1", "e3,3,3.0,0", "e4,4,4.0,1", "e5,5,5.0,0", "e6,6,6.0,1"]


def scenario_text(
    path="log.csv", extra_log="", extra="", model='"river.linear_model.PAClassifier"'
):
    return (
        f'name = "h"\nkind = "replay"\n[log]\npath = "{path}"\ntime = "t"\nid = "event_id"\n'
        f'label = "fraud"\npositive = 1\nlabels = [0, 1]\nlabel_delay = 1\n{extra_log}'
        f"[models]\nM = {model}\n{extra}"
    )


def literal_query(query: str) -> str:
    """``query = ...`` as a TOML literal string (the queries hold both kinds of quotes)."""
    return "query = " + "'" * 3 + query + "'" * 3 + "\n"


def files_under(root: pathlib.Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


class Run:
    """One replay through the command line in ``root``; ``code``, ``err`` and the outputs."""

    def __init__(self, root, capsys, args=(), out="out"):
        self.root = root
        before = files_under(root)
        cwd = os.getcwd()
        os.chdir(root)
        try:
            self.code = cli.main(["replay", "h.toml", "--out", out, "--quiet", *args])
        finally:
            os.chdir(cwd)
        captured = capsys.readouterr()
        self.err = captured.err
        self.out_dir = root / out
        stray = {p for p in files_under(root) - before if p != out and not p.startswith(f"{out}/")}
        assert not stray, f"written outside --out: {sorted(stray)}"
        assert "Traceback" not in self.err

    def one_line_error(self) -> str:
        assert self.code == 2, self.err
        lines = [line for line in self.err.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("imbalance-stream: error: "), self.err
        return lines[0]

    def rows(self, name):
        with open(self.out_dir / name, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))

    def accounted(self) -> tuple[set[int], set[int]]:
        """(rows predicted, rows rejected before any model saw them)."""
        predicted = {int(r["row"]) for r in self.rows("predictions.csv")}
        rejected = {int(r["row"]) for r in self.rows("rejected.csv") if r["model"] == ""}
        assert not predicted & rejected
        return predicted, rejected


def write_log(root, lines, name="log.csv", header=HEADER, raw: bytes | None = None):
    data = raw if raw is not None else ("\n".join([header, *lines]) + "\n").encode("utf-8")
    (root / name).write_bytes(data)


@pytest.fixture
def root(tmp_path):
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "h.toml").write_text(scenario_text())
    return folder


def finishes_with(root, capsys, n_rows, n_rejected, **kwargs) -> Run:
    run = Run(root, capsys, **kwargs)
    assert run.code == 0, run.err
    predicted, rejected = run.accounted()
    assert len(predicted) + len(rejected) == n_rows
    assert len(rejected) == n_rejected
    return run


# ---- unreadable rows: rejected, the rest read -------------------------------------------------


def test_a_byte_that_is_not_utf8_rejects_its_row(root, capsys):
    lines = [line.encode() for line in GOOD]
    lines[2] = b"e3,3,3.0\xff\xfe,0"
    write_log(root, [], raw=HEADER.encode() + b"\n" + b"\n".join(lines) + b"\n")
    run = finishes_with(root, capsys, 6, 1)
    reason = run.rows("rejected.csv")[0]
    assert reason["row"] == "3" and "0xff" in reason["reason"] and "UTF-8" in reason["reason"]


def test_a_header_that_is_not_utf8_stops_in_one_line(root, capsys):
    write_log(root, [], raw=b"event_id,t,amount\xff,fraud\n" + "\n".join(GOOD).encode() + b"\n")
    assert "UTF-8" in Run(root, capsys).one_line_error()


def test_a_field_past_the_csv_limit_rejects_its_row(root, capsys):
    lines = list(GOOD)
    lines[1] = "e2,2," + "9" * 200_000 + ",1"
    write_log(root, lines)
    run = finishes_with(root, capsys, 6, 1)
    assert "field larger than field limit" in run.rows("rejected.csv")[0]["reason"]


def test_a_nul_byte_rejects_its_row(root, capsys):
    lines = list(GOOD)
    lines[4] = "e5,5,5\x00.0,0"
    write_log(root, lines)
    finishes_with(root, capsys, 6, 1)


@pytest.mark.parametrize("where", [1, 3, 5])
def test_an_unterminated_quote_rejects_one_row_and_reads_on(root, capsys, where):
    lines = list(GOOD)
    lines[where] = f'e{where + 1},{where + 1},"2.0,0'
    write_log(root, lines)
    run = finishes_with(root, capsys, 6, 1)
    rejected = run.rows("rejected.csv")[0]
    assert rejected["row"] == str(where + 1) and "unterminated quote" in rejected["reason"]


def test_a_quoted_field_over_several_lines_is_still_one_row(root, capsys):
    (root / "h.toml").write_text(scenario_text(extra_log='[log.features]\nexclude = ["note"]\n'))
    lines = [f"{line},plain" for line in GOOD]
    lines[2] = 'e3,3,3.0,0,"two\nlines"'
    write_log(root, lines, header=HEADER + ",note")
    finishes_with(root, capsys, 6, 0)


@pytest.mark.parametrize(
    "time, label_delay",
    [
        ("1e303", None),
        ("-1e303", None),
        ("9.3e12", None),
        ("inf", None),
        ("1e400", None),
        ("9999-12-31T23:00:00", '"1d"'),
        ("0001-01-01T00:00:00+05:00", None),
    ],
)
def test_an_out_of_range_time_rejects_its_row(root, capsys, time, label_delay):
    iso = "T" in time
    first = ["e1,2024-01-01T00:00:00,1.0,0"] if iso else ["e1,1,1.0,0"]
    last = ["e3,9999-12-31T23:30:00,1.0,1"] if iso else ["e3,5,1.0,1"]
    if label_delay is not None:
        (root / "h.toml").write_text(
            scenario_text().replace("label_delay = 1", f"label_delay = {label_delay}")
        )
    write_log(root, [*first, f"e2,{time},2.0,1", *last])
    run = finishes_with(root, capsys, 3, 1 + (label_delay is not None))
    assert (
        "range" in run.rows("rejected.csv")[0]["reason"]
        or "finite" in run.rows("rejected.csv")[0]["reason"]
    )


def test_a_label_time_column_out_of_range_rejects_its_row(root, capsys):
    (root / "h.toml").write_text(scenario_text().replace("label_delay = 1", 'label_time = "lt"'))
    write_log(root, ["e1,1,1.0,0,2", "e2,2,2.0,1,1e303", "e3,3,3.0,0,4"], header=HEADER + ",lt")
    finishes_with(root, capsys, 3, 1)


def test_invalid_jsonl_lines_are_rejected_rows(root, capsys):
    (root / "h.toml").write_text(scenario_text(path="log.jsonl"))
    lines = [
        b'{"event_id": "e1", "t": 1, "amount": 1.0, "fraud": 0}',
        b'{"event_id": "e2", "t": 2, "amount": 2.0, "fraud": 1\xff}',
        b"[" * 100_000,
        b'{"event_id": "e4", "t": 4, "amount": 1e999, "fraud": 0}',
        b'{"event_id": "e5", "t": 5, "amount": 5.0, "fraud": 1}',
        b'{"event_id": "e6", "t": 6, "amount": 6.0, "fraud": 0, "amount": 1e3}',
        b'{"event_id": "e7", "t": 7, "amount": 7.0, "fraud": 1}',
    ]
    (root / "log.jsonl").write_bytes(b"\xef\xbb\xbf" + b"\n".join(lines) + b"\n")
    run = finishes_with(root, capsys, 7, 4)
    assert "the key 'amount' is given twice" in (run.out_dir / "rejected.csv").read_text()


@pytest.mark.parametrize("layout", ["csv", "json lines"])
def test_a_carriage_return_in_a_copied_value_rejects_its_row(root, capsys, layout):
    """An id or a time holding a lone carriage return would split its row in predictions.csv
    (CSV writers quote "\n", not "\r"): the row is rejected, naming the column, and every
    output reads back whole."""
    if layout == "csv":
        lines = list(GOOD)
        lines[1] = '"e2\rx",2,2.0,1'
        lines[4] = 'e5,"5\r",5.0,0'
        write_log(root, lines)
    else:
        (root / "h.toml").write_text(scenario_text(path="log.jsonl"))
        records = [dict(zip(HEADER.split(","), line.split(","))) for line in GOOD]
        records[1]["event_id"] = "e2\rx"
        records[4]["t"] = "5\r"
        (root / "log.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    run = finishes_with(root, capsys, 6, 2)
    reasons = [r["reason"] for r in run.rows("rejected.csv")]
    assert reasons == [
        f"column {column!r}: the value holds a carriage return, which would split the row in "
        "the outputs; remove it"
        for column in ("event_id", "t")
    ]


# ---- the header -------------------------------------------------------------------------------


def test_a_bom_is_stripped(root, capsys):
    write_log(root, [], raw=b"\xef\xbb\xbf" + ("\n".join([HEADER, *GOOD]) + "\n").encode())
    finishes_with(root, capsys, 6, 0)


def test_duplicate_column_names_stop_in_one_line(root, capsys):
    write_log(root, [line + ",7" for line in GOOD], header=HEADER + ",amount")
    assert "two columns named 'amount'" in Run(root, capsys).one_line_error()


def test_duplicate_event_ids_are_kept_and_counted(root, capsys):
    lines = list(GOOD)
    lines[3] = lines[3].replace("e4", "e1")
    lines[5] = lines[5].replace("e6", "e1")
    write_log(root, lines)
    run = finishes_with(root, capsys, 6, 0)
    assert {row["duplicate_ids"] for row in run.rows("table.csv")} == {"2"}


def test_empty_and_header_only_logs_finish_empty(root, capsys):
    write_log(root, [], raw=b"")
    assert Run(root, capsys).code == 0
    write_log(root, [])
    assert Run(root, capsys, out="out2").code == 0


# ---- damaged files ----------------------------------------------------------------------------


def test_a_truncated_gzip_log_writes_what_was_read_then_stops_in_one_line(root, capsys):
    lines = [f"e{i},{i},{i % 7}.0,{i % 3 == 0:d}" for i in range(1, 3001)]
    data = gzip.compress(("\n".join([HEADER, *lines]) + "\n").encode())
    (root / "log.csv.gz").write_bytes(data[: len(data) // 2])
    (root / "h.toml").write_text(scenario_text(path="log.csv.gz"))
    run = Run(root, capsys)
    line = run.one_line_error()
    assert "damaged" in line and "cannot be read past row" in line
    predicted, rejected = run.accounted()
    read = int(line.split("past row ")[1].split()[0])
    assert 0 < read < 3000 and len(predicted) + len(rejected) == read
    assert (run.out_dir / "table.csv").exists() and (run.out_dir / "run.json").exists()


@pytest.mark.parametrize("layout", ["sorted csv", "json lines"])
def test_a_truncated_log_read_otherwise_also_writes_what_was_read(root, capsys, layout):
    lines = [f"e{i},{3000 - i},{i % 7}.0,{i % 3 == 0:d}" for i in range(1, 3001)]
    if layout == "json lines":
        name, extra = "log.jsonl.gz", 'format = "jsonl"\n'
        text = "".join(
            f'{{"event_id": "e{i}", "t": {i}, "amount": {i % 7}.0, "fraud": {int(i % 3 == 0)}}}\n'
            for i in range(1, 3001)
        )
    else:
        name, extra = "log.csv.gz", 'out_of_order = "sort"\n'
        text = "\n".join([HEADER, *lines]) + "\n"
    data = gzip.compress(text.encode())
    (root / name).write_bytes(data[: len(data) // 2])
    (root / "h.toml").write_text(scenario_text(path=name, extra_log=extra))
    run = Run(root, capsys)
    line = run.one_line_error()
    read = int(line.split("past row ")[1].split()[0])
    predicted, rejected = run.accounted()
    assert 0 < read < 3000 and len(predicted) + len(rejected) == read


def test_a_file_that_is_not_gzip_stops_in_one_line(root, capsys):
    (root / "log.csv.gz").write_bytes(b"not gzip at all\n")
    (root / "h.toml").write_text(scenario_text(path="log.csv.gz"))
    assert "damaged" in Run(root, capsys).one_line_error()


def test_a_damaged_parquet_file_stops_in_one_line(root, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    table = pa.table(
        {
            "event_id": [f"e{i}" for i in range(50)],
            "t": list(range(50)),
            "amount": [float(i) for i in range(50)],
            "fraud": [i % 2 for i in range(50)],
        }
    )
    pq.write_table(table, root / "log.parquet")
    data = (root / "log.parquet").read_bytes()
    (root / "log.parquet").write_bytes(data[: len(data) // 2])
    (root / "h.toml").write_text(scenario_text(path="log.parquet"))
    assert "Parquet" in Run(root, capsys).one_line_error()


# ---- stops keep their rejects -----------------------------------------------------------------


def test_rows_out_of_order_stop_with_the_rejects_so_far_written(root, capsys):
    lines = [f"e{i},{i},oops,0" for i in range(1, 17)] + ["e17,17,1.0,1", "e18,3,1.0,0"]
    write_log(root, lines)
    line = Run(root, capsys).one_line_error()
    assert "before the previous row's" in line
    with open(root / "out" / "rejected.csv", newline="") as handle:
        assert len(list(csv.DictReader(handle))) == 16


# ---- --out ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["replay", "run"])
@pytest.mark.parametrize("kind", ["under a file", "a file", "null device"])
def test_out_problems_are_one_line(root, capsys, command, kind):
    write_log(root, GOOD)
    (root / "file.txt").write_text("x")
    out = {"under a file": "file.txt/sub", "a file": "file.txt", "null device": os.devnull}[kind]
    scenario = "h.toml" if command == "replay" else "quickstart"
    cwd = os.getcwd()
    os.chdir(root)
    try:
        code = cli.main([command, scenario, "--out", out, "--quiet"])
    finally:
        os.chdir(cwd)
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "output folder" in err


# ---- SQL logs only read -----------------------------------------------------------------------


def _sqlite_log(root):
    connection = sqlite3.connect(root / "log.db")
    connection.execute("CREATE TABLE events (event_id TEXT, t REAL, amount REAL, fraud INTEGER)")
    connection.executemany(
        "INSERT INTO events VALUES (?, ?, ?, ?)",
        [(f"e{i}", i, float(i), i % 2) for i in range(1, 21)],
    )
    connection.commit()
    connection.close()


@pytest.mark.parametrize(
    "query",
    [
        "VACUUM INTO '../elsewhere.db'",
        "ATTACH DATABASE '../other.db' AS p",
        "ATTACH DATABASE 'other.db' AS p",
        "CREATE TABLE x (a)",
        "INSERT INTO events VALUES ('x', 1, 1, 1)",
        "PRAGMA journal_mode = WAL",
        "SELECT load_extension('evil')",
        "DROP TABLE events",
    ],
)
def test_a_sqlite_query_cannot_write(root, capsys, query):
    _sqlite_log(root)
    before = (root / "log.db").read_bytes()
    (root / "h.toml").write_text(scenario_text(path="log.db", extra_log=literal_query(query)))
    line = Run(root, capsys).one_line_error()
    assert "log.query" in line
    assert (root / "log.db").read_bytes() == before
    assert not (root.parent / "elsewhere.db").exists() and not (root.parent / "other.db").exists()


def test_a_sqlite_query_that_reads_still_works(root, capsys):
    _sqlite_log(root)
    (root / "h.toml").write_text(
        scenario_text(
            path="log.db", extra_log='query = "SELECT * FROM events WHERE t > 0 ORDER BY t"\n'
        )
    )
    finishes_with(root, capsys, 20, 0)


def test_sqlite_text_that_is_not_utf8_rejects_its_row(root, capsys):
    _sqlite_log(root)
    connection = sqlite3.connect(root / "log.db")
    connection.execute("UPDATE events SET event_id = CAST(x'65ff' AS TEXT) WHERE t = 3")
    connection.commit()
    connection.close()
    (root / "h.toml").write_text(
        scenario_text(path="log.db", extra_log='query = "SELECT * FROM events ORDER BY t"\n')
    )
    finishes_with(root, capsys, 20, 1)


@pytest.mark.parametrize(
    "query",
    [
        "COPY events TO '../x.csv'",
        "ATTACH '../o.duckdb' AS p",
        "SELECT * FROM read_csv('h.toml')",
        "SET enable_external_access = true",
        "CREATE TABLE y (a INTEGER)",
        "INSTALL httpfs",
    ],
)
def test_a_duckdb_query_cannot_write_or_reach_files(root, capsys, query):
    duckdb = pytest.importorskip("duckdb")
    connection = duckdb.connect(str(root / "log.duckdb"))
    connection.execute("CREATE TABLE events (event_id TEXT, t DOUBLE, amount DOUBLE, fraud INT)")
    connection.execute("INSERT INTO events VALUES ('e1', 1, 1.0, 0), ('e2', 2, 2.0, 1)")
    connection.close()
    before = (root / "log.duckdb").read_bytes()
    (root / "h.toml").write_text(scenario_text(path="log.duckdb", extra_log=literal_query(query)))
    assert "log.query" in Run(root, capsys).one_line_error()
    assert (root / "log.duckdb").read_bytes() == before
    assert not (root.parent / "x.csv").exists() and not (root.parent / "o.duckdb").exists()


# ---- reproducible -----------------------------------------------------------------------------

STREAM_DETECTOR = 'params = { mode = "stream", n_reference = 30, n_test = 10, refresh_every = 10 }'
SEEDED_MODELS = {
    "SACOG": '"SACOG"',
    "OAMSeq": '"OAMSeq"',
    "KOIL": '"KOIL"',
    "KOILMKL": '"KOILMKL"',
    "RBP": '"RBP"',
    "LASVM": '"LASVM"',
    "KDENovelty": f'{{ class = "KDENovelty", {STREAM_DETECTOR} }}',
    "ULSIFNovelty": f'{{ class = "ULSIFNovelty", {STREAM_DETECTOR} }}',
    "KMMNovelty": f'{{ class = "KMMNovelty", {STREAM_DETECTOR} }}',
    "KLIEPNovelty": f'{{ class = "KLIEPNovelty", {STREAM_DETECTOR} }}',
    "LocKMMNovelty": f'{{ class = "LocKMMNovelty", {STREAM_DETECTOR} }}',
    "ImportanceWeighted": '{ class = "ImportanceWeighted", params = { classifier = { class = '
    '"river.linear_model.LogisticRegression" }, reweighter = { class = "KMMReweighter", params = '
    "{ n_source = 30, n_target = 10, refresh_every = 10 } } } }",
    "MarginSampler": '{ class = "MarginSampler", params = { classifier = { class = "LASVM" } } }',
}


def _seeded_log(folder: pathlib.Path):
    import random

    draw = random.Random(0)
    lines = []
    for i in range(80):
        y = int(draw.random() < 0.3)
        lines.append(f"e{i},{i},{draw.gauss(y, 1):.4f},{draw.gauss(-y, 1):.4f},{y}")
    write_log(folder, lines, header="event_id,t,a,b,fraud")


def test_every_public_estimator_that_takes_a_seed_is_replayed_twice():
    import inspect

    from test_river_checks import public_estimators

    seeded = {
        cls.__name__ for cls in public_estimators() if "seed" in inspect.signature(cls).parameters
    }
    assert seeded <= set(SEEDED_MODELS), sorted(seeded - set(SEEDED_MODELS))


@pytest.mark.parametrize("name", sorted(SEEDED_MODELS))
def test_two_replays_of_a_log_are_identical_for_every_seeded_model(tmp_path, name):
    _seeded_log(tmp_path)
    text = scenario_text(model=SEEDED_MODELS[name])
    outputs = []
    for k in range(2):
        result = replay(parse(text, base=tmp_path), out_dir=tmp_path / f"out{k}")
        outputs.append(
            {f: (tmp_path / f"out{k}" / f).read_bytes() for f in ("predictions.csv", "table.csv")}
        )
    assert outputs[0] == outputs[1]
    model = result.models["M"]
    assert getattr(model, "seed", 42) == 42  # the default seed reached the model


def test_the_seed_option_reaches_the_models(tmp_path):
    _seeded_log(tmp_path)
    text = scenario_text(model='"KOIL"', extra="[replay]\nseed = 3\n")
    assert replay(parse(text, base=tmp_path), out_dir=tmp_path / "a").models["M"].seed == 3
    assert replay(parse(text, base=tmp_path), out_dir=tmp_path / "b", seed=5).models["M"].seed == 5


def test_a_damaged_log_through_the_api_carries_its_result(tmp_path):
    lines = [f"e{i},{i},1.0,{i % 2}" for i in range(1, 2001)]
    data = gzip.compress(("\n".join([HEADER, *lines]) + "\n").encode())
    (tmp_path / "log.csv.gz").write_bytes(data[:-40])
    with pytest.raises(IncompleteReplay) as stopped:
        replay(parse(scenario_text(path="log.csv.gz"), base=tmp_path), out_dir=tmp_path / "o")
    assert stopped.value.result.table[0]["events"] > 0
