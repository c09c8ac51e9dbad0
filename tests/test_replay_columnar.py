"""The columnar replay (replay.columnar, replay.arrow_log, replay.vector_times) against the
row-by-row replay it stands for: the same files, byte for byte, on clean logs (where it runs the
whole log) and on hostile ones (where it hands over to the row-by-row replay at the first block
it cannot vouch for); its times against the row reader's; checkpoints it writes resumed by the
row-by-row replay."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets

pa = pytest.importorskip("pyarrow")

from replay_helpers import ISO_TEXTS, replay_scenario  # noqa: E402

from imbalance_stream.evaluate.delayed import DelayedLabels, answer_order, interleave  # noqa: E402
from imbalance_stream.replay import ReplayError, engine, parse, replay  # noqa: E402
from imbalance_stream.replay import columnar as columnar_module  # noqa: E402
from imbalance_stream.replay.events import Reject, parse_time  # noqa: E402
from imbalance_stream.replay.parts import PREDICTION_COLUMNS  # noqa: E402
from imbalance_stream.replay.sources import events_from_dataset, write_csv_log  # noqa: E402
from imbalance_stream.replay.tracking import foldable  # noqa: E402
from imbalance_stream.replay.vector_times import column_micros  # noqa: E402

# ---- times ----------------------------------------------------------------------------------


def _row_reader_micros(value):
    try:
        return parse_time(value)
    except Reject:
        return None


_NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(-(10**14), 10**14).map(str),
    st.sampled_from(["1e3", "+1", ".5", "5.", "1_0", " 1", "0x10", "1e400", "", "nan", "-0"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(ISO_TEXTS, _NUMBERS), min_size=1, max_size=5))
def test_a_column_of_times_reads_as_the_row_reader_reads_each(values):
    """Whatever the columnar reading accepts, it reads to the row reader's microseconds; it may
    give up on a column (None), never read a value otherwise."""
    got = column_micros(pa.array(values, type=pa.string()))
    if got is not None:
        assert got.tolist() == [_row_reader_micros(value) for value in values]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(st.floats(), st.sampled_from([0.0, -0.0, 1.0, 1.0 - 2**-53, 2**-1074])),
        max_size=30,
    )
)
def test_the_scores_are_written_as_repr_writes_them(values):
    from imbalance_stream.replay.lines import field_values

    texts = columnar_module._float_texts(np.array(values, dtype=float))
    assert field_values(texts, len(values)) == [repr(value) for value in values]


def test_the_usual_time_shapes_are_read_a_column_at_a_time():
    values = [
        "2024-01-01T00:00:40+00:00",
        "2024-01-01 00:00:40",
        "2024-02-29T23:59:59.999999Z",
        "1999-12-31T23:00:00.500-05:30",
    ]
    for value in values:
        assert column_micros(pa.array([value])).tolist() == [parse_time(value)]
    assert column_micros(pa.array(["1700000000", "1.5", "-3"])).tolist() == [
        1_700_000_000_000_000,
        1_500_000,
        -3_000_000,
    ]
    assert column_micros(pa.array(["2023-02-29T00:00:00"])) is None  # not a date
    assert column_micros(pa.array(["1", "2024-01-01T00:00:00"])) is None  # mixed


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 4))
def test_the_array_order_of_answers_is_the_queue_order(seed, batches):
    rng = np.random.default_rng(seed)
    queue = DelayedLabels()
    carried_ids: list = []
    carried_times = np.zeros(0, dtype=np.int64)
    clock = 0
    for b in range(batches):
        n = int(rng.integers(0, 9))
        times = np.sort(rng.integers(clock, clock + 10, n))
        clock = int(times[-1]) if n else clock
        answers = times + rng.integers(0, 12, n)
        ids = [(b, i) for i in range(n)]
        expected = queue.feed(ids, times, answers)
        pool_times = np.concatenate([carried_times, answers])
        order, emit, cut = answer_order(len(carried_ids), times, pool_times)
        steps, is_answer = interleave(len(carried_ids), n, order, emit, cut)
        pool = carried_ids + ids
        assert [(bool(a), pool[p]) for p, a in zip(steps.tolist(), is_answer.tolist())] == expected
        carried_ids = [pool[i] for i in order[cut:].tolist()]
        carried_times = pool_times[order[cut:]]


# ---- the replay, both ways --------------------------------------------------------------------


MODELS = """
D = { class = "ACOG", params = { covariance = "diag" } }
F = { class = "ACOG", params = { covariance = "full", loss = "I", intercept = true } }
"""
FOLDED = 'BA = "river.metrics.BalancedAccuracy"\nF1 = "river.metrics.F1"\n'
MIXED = FOLDED + 'AUC = { class = "ExactROCAUC", params = { pos_val = true } }\n'


def _scenario(models=MODELS, metrics=FOLDED, options="", log="", labels="[false, true]"):
    return replay_scenario(models, metrics, options, log, labels)


def _phishing_log(path, **events):
    options = {"seed": 3, "interval": 60.0, "entities": 3, "delay_scale": 3600.0, **events}
    write_csv_log(events_from_dataset(datasets.Phishing(), **options), path)


def _outputs(folder):
    return {
        path.name: path.read_bytes()
        for path in sorted(folder.iterdir())
        if path.is_file() and path.name not in ("run.json", "curves.png")
    }


def _both(tmp_path, monkeypatch, text, **run):
    """The outputs of the replay with and without the columnar replay, and how the columnar one
    ended (True: it replayed the whole log; False: it handed over; None: it did not run)."""
    ended: list = []
    original = columnar_module.ColumnarCell.run

    def recorded(self):
        ended.append(original(self))
        return ended[-1]

    monkeypatch.setattr(columnar_module.ColumnarCell, "run", recorded)
    outputs, errors = [], []
    for on in (True, False):
        monkeypatch.setattr(engine, "COLUMNAR", on)
        folder = tmp_path / ("columnar" if on else "rows")
        try:
            replay(parse(text, base=tmp_path), out_dir=folder, **run)
            errors.append(None)
        except ReplayError as error:
            errors.append(str(error))
        outputs.append(_outputs(folder) if folder.exists() else {})
    assert errors[0] == errors[1]
    assert outputs[0] == outputs[1]
    return outputs[0], (ended[0] if ended else None), errors[0]


@pytest.mark.parametrize(
    "events,options,metrics",
    [
        ({"never": 0.1}, "", FOLDED),
        ({"never": 0.1}, "", MIXED),
        ({"never": 0.3, "delay_scale": 36000.0}, "checkpoint_every = 37\n", FOLDED),
        ({"interval": 0.0}, "", MIXED),  # every row at the same time: ties throughout
        ({"delay_scale": 0.0}, "checkpoint_seconds = 0.001\n", FOLDED),
    ],
    ids=["lost-labels", "unfoldable-metric", "checkpoints", "equal-times", "no-delay"],
)
def test_clean_logs_replay_whole_and_write_the_same_files(
    tmp_path, monkeypatch, events, options, metrics
):
    _phishing_log(tmp_path / "log.csv", **events)
    outputs, ended, _ = _both(tmp_path, monkeypatch, _scenario(metrics=metrics, options=options))
    assert ended is True
    assert outputs["predictions.csv"].count(b"\n") == 2 * 1250 + 1


def test_models_without_a_steps_path_keep_the_row_by_row_replay(tmp_path, monkeypatch):
    _phishing_log(tmp_path / "log.csv")
    models = MODELS + 'R = "river.linear_model.LogisticRegression"\n'
    _, ended, _ = _both(tmp_path, monkeypatch, _scenario(models=models))
    assert ended is None


def _lines(n=700, seed=0):
    rng = np.random.default_rng(seed)
    out = ["event_id,time,entity,label,label_time,a,b,c"]
    for i in range(n):
        a, b, c = rng.normal(size=3).round(4)
        label = "true" if rng.random() < 0.15 else "false"
        if i % 11 == 3:
            label = ""  # no label
        late = "" if i % 17 == 5 else str(i * 30 + int(rng.integers(0, 400)))
        out.append(f"e{i},{i * 30},x{i % 3},{label},{late},{a},{b},{c}")
    return out


def _write(path, lines, end="\n"):
    path.write_bytes(end.join(lines).encode() + end.encode())


def _hostile(kind, lines):
    """A clean log made hostile at row 401, labelled (the columnar replay hands over mid-way)."""
    at = 401
    if kind == "nan":
        lines[at] = lines[at].rsplit(",", 1)[0] + ",nan"
    elif kind == "quote":
        lines[at] = lines[at].replace(f"e{at - 1}", f'"e{at - 1}"')
    elif kind == "lone-return":
        lines[at] = lines[at].replace(f"e{at - 1}", f"e\r{at - 1}")
    elif kind == "third-label":
        lines[at] = lines[at].replace(",false,", ",maybe,").replace(",true,", ",maybe,")
    elif kind == "huge":
        lines[at] = lines[at].rsplit(",", 1)[0] + ",1e16"
    elif kind == "short-row":
        lines[at] = lines[at].rsplit(",", 1)[0]
    elif kind == "empty-line":
        lines[at] = ""
    elif kind == "out-of-order":
        lines[at] = lines[at].replace(f",{(at - 1) * 30},", ",5,", 1)
    elif kind == "label-before-time":
        parts = lines[at].split(",")
        parts[3], parts[4] = "true", "1"
        lines[at] = ",".join(parts)
    elif kind == "nul":
        lines[at] = lines[at].replace(f"e{at - 1}", f"e\0{at - 1}")
    elif kind == "blank-id":  # white space to Python's str.strip, not to a space-and-tab trim
        lines[at] = lines[at].replace(f"e{at - 1}", "\x0b\u2003")
    elif kind == "late-quote":  # a quote in the last block only
        lines[-1] = lines[-1].replace(f"e{len(lines) - 2}", f'"e{len(lines) - 2}"')
    return lines


HOSTILE = [
    "nan",
    "quote",
    "lone-return",
    "third-label",
    "huge",
    "short-row",
    "empty-line",
    "out-of-order",
    "label-before-time",
    "nul",
    "blank-id",
    "late-quote",
]


@pytest.mark.parametrize("kind", HOSTILE)
def test_a_hostile_row_hands_over_to_the_row_by_row_replay(tmp_path, monkeypatch, kind):
    from imbalance_stream.replay import arrow_log

    monkeypatch.setattr(arrow_log, "BLOCK_BYTES", 4096)  # blocks of about 100 rows
    _write(tmp_path / "log.csv", _hostile(kind, _lines()))
    text = _scenario(options="checkpoint_every = 60\n").replace('window = "2h"', "")
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert ended is False
    if kind == "out-of-order":
        assert "is before the previous row's" in error
    else:
        assert error is None
        assert outputs["predictions.csv"].count(b"\n") > 500


@pytest.mark.parametrize("kind", [*HOSTILE, "rejects-everywhere"])
def test_river_models_read_the_log_a_column_at_a_time_and_bad_blocks_row_by_row(
    tmp_path, monkeypatch, kind
):
    """A River model runs row by row, on events the columnar reader makes of the blocks it
    vouches for; the others are read by the row reader, block by block (or, from a quote on, the
    rest of the log): the same files either way, with checkpoints resumed."""
    from imbalance_stream.replay import arrow_log

    monkeypatch.setattr(arrow_log, "BLOCK_BYTES", 4096)
    lines = _lines()
    if kind == "rejects-everywhere":
        for k in range(5, len(lines), 37):
            lines[k] = lines[k].rsplit(",", 1)[0] + ",x"
    else:
        lines = _hostile(kind, lines)
    _write(tmp_path / "log.csv", lines)
    models = 'R = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]\n'
    text = _scenario(models=models, options="checkpoint_every = 60\n")
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert ended is None
    assert (error is None) == (kind != "out-of-order")


@pytest.mark.parametrize(
    "variant",
    ["crlf", "gzip", "tab", "text-labels", "include", "no-id", "unicode", "commas-in-values"],
)
def test_log_variants_replay_whole(tmp_path, monkeypatch, variant):
    lines, log, labels, models = _lines(), "", "[false, true]", MODELS
    name = "log.csv"
    end = "\n"
    if variant == "crlf":
        end = "\r\n"
    elif variant == "tab":
        lines = [line.replace(",", "\t") for line in lines]
        log = 'delimiter = "\\t"'
    elif variant == "text-labels":
        lines = [line.replace(",true,", ",fraud,").replace(",false,", ",ok,") for line in lines]
        labels = '["ok", "fraud"]'
        log = 'positive = "fraud"'
        models = 'D = { class = "ACOG", params = { covariance = "diag", positive = "fraud" } }\n'
    elif variant == "unicode":
        lines = [line.replace(",x1,", ",é\u2003x,") for line in lines]
    elif variant == "commas-in-values":  # a tab-separated log whose ids hold commas: quoted
        lines = [lines[0].replace(",", "\t")] + [
            "e," + line[1:].replace(",", "\t") for line in lines[1:]
        ]
        log = 'delimiter = "\\t"'
        models = MODELS.replace("D = ", '"D, diag" = ')
    elif variant == "include":
        log = '[log.features]\ninclude = ["c", "a"]'
    elif variant == "no-id":
        lines = [line.split(",", 1)[1] for line in lines]
    text = _scenario(models=models, log=log, labels=labels)
    if variant == "no-id":
        text = text.replace('id = "event_id"\n', "")
    if variant == "gzip":
        name = "log.csv.gz"
        with gzip.open(tmp_path / name, "wb") as handle:
            handle.write(("\n".join(lines) + "\n").encode())
        text = text.replace('path = "log.csv"', f'path = "{name}"')
    else:
        _write(tmp_path / name, lines, end)
    if variant == "tab":
        text = text.replace('path = "log.csv"', 'path = "log.csv"\nformat = "csv"')
    _, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is True


def test_a_checkpoint_of_the_columnar_replay_resumes_row_by_row(tmp_path, monkeypatch):
    """A replay stopped after some checkpoints the columnar replay wrote, resumed (row by row,
    from the checkpoint), writes the uninterrupted run's files byte for byte."""
    _phishing_log(tmp_path / "log.csv", never=0.2, delay_scale=20000.0)
    scenario = parse(_scenario(options="checkpoint_every = 100\n"), base=tmp_path)
    resumed, whole = _resumed_after_a_stop(
        tmp_path, monkeypatch, scenario, columnar_module.ColumnarCell, "_segment", 7
    )
    assert _outputs(resumed.out_dir) == _outputs(whole.out_dir)


def _resumed_after_a_stop(tmp_path, monkeypatch, scenario, owner, name, calls):
    """``scenario`` replayed once whole and once stopped (an interrupt) at the ``calls``-th call
    of ``owner.name``, then resumed: the two results, resumed first."""
    whole = replay(scenario, out_dir=tmp_path / "whole")
    original = getattr(owner, name)
    count = [0]

    def stopping(self, *args):
        count[0] += 1
        if count[0] == calls:
            raise KeyboardInterrupt
        return original(self, *args)

    monkeypatch.setattr(owner, name, stopping)
    with pytest.raises(KeyboardInterrupt):
        replay(scenario, out_dir=tmp_path / "stopped")
    monkeypatch.setattr(owner, name, original)
    return replay(scenario, out_dir=tmp_path / "stopped", resume=True), whole


def test_only_confusion_matrix_metrics_are_folded():
    from river import metrics

    assert foldable(metrics.BalancedAccuracy()) and foldable(metrics.F1())
    assert foldable(metrics.GeometricMean()) and foldable(metrics.MCC())
    assert not foldable(metrics.ROCAUC()) and not foldable(metrics.LogLoss())


@pytest.mark.parametrize("models", [MODELS, 'R = "river.linear_model.LogisticRegression"\n'])
def test_duplicate_ids_are_counted_by_the_merge_of_one_part(tmp_path, monkeypatch, models):
    """The merge of a single part counts repeated ids by hashing their bytes where they lie: the
    count a plain set gives, one model or several."""
    from imbalance_stream.replay import merge

    monkeypatch.setattr(merge, "_CHUNK", 2048)  # ids spread over many blocks of the part
    lines = _lines(900)
    rng = np.random.default_rng(5)
    ids = [f"id{int(k)}" for k in rng.integers(0, 400, len(lines) - 1)]
    lines = [lines[0]] + [f"{i}," + line.split(",", 1)[1] for i, line in zip(ids, lines[1:])]
    _write(tmp_path / "log.csv", lines)
    result = replay(parse(_scenario(models=models), base=tmp_path), out_dir=tmp_path / "out")
    expected = len(ids) - len(set(ids))
    assert {row["duplicate_ids"] for row in result.table} == {expected}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab,é", max_size=4), max_size=60),
    st.booleans(),
    st.sampled_from([1, 7, 1 << 22]),
)
def test_repeated_ids_are_counted_held_or_spilled(ids, where_they_lie, memory):
    """The count of repeated ids is a plain set's, whether the hashes stay in memory or are
    spilled to the bucket files (and those files are gone after)."""
    import os
    import tempfile

    from imbalance_stream.replay.merge import _DuplicateIds

    with tempfile.TemporaryDirectory() as folder:
        counter = _DuplicateIds(folder)
        counter.MEMORY = memory
        if where_they_lie:
            for start in range(0, len(ids), 5):  # a few ids at a time, as blocks of a part
                texts = [value.encode() for value in ids[start : start + 5]]
                ends = np.cumsum([len(t) for t in texts], dtype=np.int64)
                starts = ends - np.array([len(t) for t in texts], dtype=np.int64)
                data = np.frombuffer(b"".join(texts) or b"-", dtype=np.uint8)
                counter.add_spans(data, starts, ends)
        else:
            for value in ids:
                counter.add(value)
        assert counter.count() == len(ids) - len(set(ids))
        assert os.listdir(folder) == []


def test_repeated_ids_that_need_quotes_are_counted_by_the_csv_module(tmp_path):
    """A tab-separated log whose ids hold commas: the only cell's part quotes them, so the merge
    counts them with the csv module; the count is a plain set's and the file the csv module's."""
    import csv

    lines = [line.replace(",", "\t") for line in _lines(300)]
    rng = np.random.default_rng(6)
    ids = [f"id,{int(k)}" for k in rng.integers(0, 120, len(lines) - 1)]
    lines = [lines[0]] + [f"{i}\t" + line.split("\t", 1)[1] for i, line in zip(ids, lines[1:])]
    _write(tmp_path / "log.csv", lines)
    text = _scenario(log='delimiter = "\\t"')
    result = replay(parse(text, base=tmp_path), out_dir=tmp_path / "out")
    assert {row["duplicate_ids"] for row in result.table} == {len(ids) - len(set(ids))}
    with open(tmp_path / "out" / "predictions.csv", newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0] == list(PREDICTION_COLUMNS)
    assert [r[1] for r in records[1:] if r[4] == "D"] == ids


def test_the_only_cells_part_is_put_in_place_as_a_merge_would_write_it(tmp_path, monkeypatch):
    """A serial run's only cell writes predictions.csv as it will be; the merge links it into
    place (or copies it where no link can be made): the same bytes either way, and the work
    files gone."""
    import os

    _write(tmp_path / "log.csv", _lines(500))
    scenario = parse(_scenario(), base=tmp_path)
    linked = _outputs(replay(scenario, out_dir=tmp_path / "linked").out_dir)

    def no_link(source, target):
        raise OSError("no hard links here")

    monkeypatch.setattr(os, "link", no_link)
    copied = _outputs(replay(scenario, out_dir=tmp_path / "copied").out_dir)
    assert linked == copied
    assert linked["predictions.csv"].startswith(",".join(PREDICTION_COLUMNS).encode() + b"\n")
    assert os.stat(tmp_path / "linked" / "predictions.csv").st_nlink == 1


def test_a_prediction_taken_from_the_probabilities_is_river_predict_one(tmp_path, monkeypatch):
    """Where River's predict_one is the label of highest probability and predicting leaves the
    model as it was (a pipeline ending in its logistic regression), the replay takes it from
    predict_proba_one's answer: the files of a replay that calls predict_one too, byte for byte;
    another model is asked both."""
    from imbalance_stream.replay import runners

    _phishing_log(tmp_path / "log.csv", never=0.1)
    models = (
        'P = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]\n'
        'A = { class = "OAMSeq" }\n'  # its own predict_one, and no steps path
    )
    text = _scenario(models=models, metrics=MIXED)
    calls = set()
    original = runners.ModelRunner.predict

    def counted(self, model, ev):
        calls.add((type(model).__name__, self.argmax))
        return original(self, model, ev)

    monkeypatch.setattr(runners.ModelRunner, "predict", counted)
    taken = replay(parse(text, base=tmp_path), out_dir=tmp_path / "taken")
    assert calls == {("Pipeline", True), ("OAMSeq", False)}
    monkeypatch.setattr(runners, "predicts_by_argmax", lambda model: False)
    called = replay(parse(text, base=tmp_path), out_dir=tmp_path / "called")
    assert _outputs(taken.out_dir) == _outputs(called.out_dir)


def test_a_classifier_with_its_own_predict_one_is_asked():
    import pickle

    from river import base, compose, linear_model, preprocessing, tree

    from imbalance_stream.linear_model import ACOG
    from imbalance_stream.replay.runners import predicts_by_argmax

    class Contrary(base.Classifier):
        def learn_one(self, x, y):
            pass

        def predict_proba_one(self, x):
            return {True: 0.9, False: 0.1}

        def predict_one(self, x):
            return False

    assert predicts_by_argmax(preprocessing.StandardScaler() | linear_model.LogisticRegression())
    assert not predicts_by_argmax(Contrary())
    assert not predicts_by_argmax(preprocessing.StandardScaler() | Contrary())
    assert not predicts_by_argmax(ACOG())  # its own predict_one (the steps path's twin)
    assert not predicts_by_argmax(tree.HoeffdingTreeClassifier())
    model = preprocessing.StandardScaler() | linear_model.LogisticRegression()
    twin = model.clone()
    for x, y in datasets.Phishing():  # predictions leave the pipeline as it was
        for m in (model, twin):
            m.predict_proba_one(x)
        twin.predict_one(x)
        for m in (model, twin):
            m.learn_one(x, y)
    assert pickle.dumps(model) == pickle.dumps(twin)
    with compose.learn_during_predict():  # each call teaches the scaler: both calls are made
        assert compose.Pipeline._LEARN_UNSUPERVISED_DURING_PREDICT


def test_the_first_order_baselines_replay_columnar(tmp_path, monkeypatch):
    """PA, Perceptron, PAUM, COG, CPA and ROMMA have a steps path too: the columnar replay runs
    the whole log and writes the row-by-row replay's files."""
    _phishing_log(tmp_path / "log.csv", never=0.1)
    models = "\n".join(
        f'{name} = {{ class = "{name}" }}' for name in ("PA", "Perceptron", "PAUM", "COG", "CPA")
    )
    models += '\nROMMA = { class = "ROMMA", params = { intercept = true } }\n'
    outputs, ended, error = _both(tmp_path, monkeypatch, _scenario(models=models, metrics=MIXED))
    assert error is None and ended is True


#: AROW and SACOG, dense and sparse, with and without an intercept (SACOG's sketch is then drawn
#: at construction), m below and above Phishing's 9 features (spare columns waiting throughout).
SECOND_ORDER = """
A = { class = "AROW" }
AI = { class = "AROW", params = { r = 0.1, intercept = true } }
S = { class = "SACOG", params = { seed = 1 } }
SS = { class = "SACOG", params = { sparse = true, m = 3, loss = "II", intercept = true, seed = 2 } }
SM = { class = "SACOG", params = { m = 12, sketch_on_loss_only = true, seed = 3 } }
"""


def test_arow_and_sacog_replay_columnar(tmp_path, monkeypatch):
    """AROW and SACOG have a steps path too: the columnar replay runs the whole log and writes the
    row-by-row replay's files (whose jitted runs write the dict path's:
    tests/test_replay_steps.py)."""
    _phishing_log(tmp_path / "log.csv", never=0.1)
    text = _scenario(models=SECOND_ORDER, metrics=MIXED, options="checkpoint_every = 300\n")
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is True
    assert outputs["predictions.csv"].count(b"\n") == 5 * 1250 + 1


@pytest.mark.parametrize("kind", ["huge", "third-label", "nan"])
def test_arow_and_sacog_hand_over_to_the_row_by_row_replay(tmp_path, monkeypatch, kind):
    from imbalance_stream.replay import arrow_log

    monkeypatch.setattr(arrow_log, "BLOCK_BYTES", 4096)  # blocks of about 100 rows
    _write(tmp_path / "log.csv", _hostile(kind, _lines()))
    text = _scenario(models=SECOND_ORDER, options="checkpoint_every = 60\n")
    outputs, ended, error = _both(tmp_path, monkeypatch, text.replace('window = "2h"', ""))
    assert ended is False and error is None


def test_a_checkpoint_of_the_columnar_replay_of_sacog_resumes_row_by_row(tmp_path, monkeypatch):
    _phishing_log(tmp_path / "log.csv", never=0.2, delay_scale=20000.0)
    text = _scenario(models=SECOND_ORDER, options="checkpoint_every = 100\n")
    resumed, whole = _resumed_after_a_stop(
        tmp_path, monkeypatch, parse(text, base=tmp_path), columnar_module.ColumnarCell,
        "_segment", 7,
    )  # fmt: skip
    assert _outputs(resumed.out_dir) == _outputs(whole.out_dir)


@pytest.mark.parametrize("kind", ["quote", "nan"])
def test_a_resumed_replay_skips_its_rows_a_block_at_a_time(tmp_path, monkeypatch, kind):
    """A River model's replay stopped after some checkpoints and resumed: the columnar reader
    skips the rows already replayed (a quote among them: the row reader skips them instead), and
    the files are the uninterrupted run's."""
    from imbalance_stream.replay import arrow_log
    from imbalance_stream.replay import engine as engine_module

    monkeypatch.setattr(arrow_log, "BLOCK_BYTES", 4096)
    lines = _hostile(kind, _lines())
    lines[30] = lines[30].replace("e29", '"e29"') if kind == "quote" else lines[30]
    _write(tmp_path / "log.csv", lines)
    models = 'R = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]\n'
    scenario = parse(_scenario(models=models, options="checkpoint_every = 50\n"), base=tmp_path)
    resumed, whole = _resumed_after_a_stop(
        tmp_path, monkeypatch, scenario, engine_module._CellRun, "save_checkpoint", 10
    )
    assert _outputs(resumed.out_dir) == _outputs(whole.out_dir)


@pytest.mark.parametrize("delay", ['"1h"', '"0s"', None])
@pytest.mark.parametrize("times", ["iso", "numbers"])
def test_labels_a_fixed_delay_after_their_events_replay_columnar(
    tmp_path, monkeypatch, delay, times
):
    """label_delay instead of a label-time column (or neither: each label with its event): the
    label times made by adding it, and written as the row reader writes them (ISO 8601 in UTC,
    or numbers), by the columnar replay too."""
    if times == "iso":
        _phishing_log(tmp_path / "log.csv", never=0.1)
    else:
        _write(tmp_path / "log.csv", _lines())
    text = _scenario(log='[log.features]\nexclude = ["label_time"]')
    text = text.replace('label_time = "label_time"\n', "")
    if delay is not None:
        text = text.replace('label = "label"\n', f'label = "label"\nlabel_delay = {delay}\n')
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is True
    assert b"+00:00" in outputs["predictions.csv"] or times == "numbers"


_MICROS = st.one_of(
    st.integers(-62_135_596_800_000_000, 253_402_300_799_999_999),
    st.integers(-62_135_596_800, 253_402_300_799).map(lambda seconds: seconds * 1_000_000),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_MICROS, st.booleans()), min_size=1))
def test_label_times_are_written_as_the_row_reader_writes_them(pairs):
    """The jitted writing of times (ISO 8601, whole seconds; other numbers in Python) against
    the row reader's own ``format_time``, its plain twin; an empty text where not given."""
    import datetime as dt

    from imbalance_stream.replay.events import format_time
    from imbalance_stream.replay.vector_times import format_times, iso_texts

    micros = [m for m, _ in pairs]
    given = np.array([g for _, g in pairs])
    values = np.array(micros, dtype=np.int64)
    iso = [format_time(m, "2024-01-01T00:00:00") if g else "" for m, g in pairs]
    assert format_times(values, True, given).to_pylist() == iso
    numbers = [format_time(m, "0") if g else "" for m, g in pairs]
    assert format_times(values, False, given).to_pylist() == numbers
    epoch = dt.datetime(1970, 1, 1)
    naive = [(epoch + dt.timedelta(microseconds=m)).isoformat() for m in micros]
    assert iso_texts(values, "").to_pylist() == naive


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2**62), 2**62).map(lambda m: m - m % 1_000_000), min_size=1))
def test_whole_seconds_are_written_as_the_row_reader_writes_them(micros):
    from imbalance_stream.replay.events import format_time
    from imbalance_stream.replay.vector_times import format_times

    texts = format_times(np.array(micros, dtype=np.int64), False).to_pylist()
    assert texts == [format_time(m, "0") for m in micros]


# ---- Parquet logs ---------------------------------------------------------------------------


def _table(lines=None):
    """``_lines()`` as a pyarrow table of the types a Parquet log usually holds: integer seconds,
    boolean labels, a label time that may be missing, numbers."""
    import io

    import pyarrow.csv as pa_csv

    data = "\n".join(lines or _lines()).encode()
    return pa_csv.read_csv(
        io.BytesIO(data),
        convert_options=pa_csv.ConvertOptions(
            column_types={
                "event_id": pa.string(),
                "entity": pa.string(),
                "label": pa.bool_(),
                "time": pa.int64(),
                "label_time": pa.int64(),
            }
        ),
    )


def _set(table, name, column):
    return table.set_column(table.schema.get_field_index(name), name, column)


def _parquet_variant(table, variant):
    import pyarrow.compute as pc

    seconds = table.column("time").combine_chunks()
    late = table.column("label_time").combine_chunks()
    if variant == "float-seconds":
        table = _set(table, "time", pc.divide(seconds.cast(pa.float64()), 7.0))
        table = _set(table, "label_time", pc.divide(late.cast(pa.float64()), 7.0))
    elif variant in ("timestamps", "timestamps-utc-ns"):
        unit, tz = ("us", None) if variant == "timestamps" else ("ns", "UTC")
        second = 10**6 if unit == "us" else 10**9
        for name, column in (("time", seconds), ("label_time", late)):
            ticks = pc.multiply(column.cast(pa.int64()), second + 1000)  # some microseconds
            moments = pc.add(ticks, 1_600_000_000 * second).cast(pa.timestamp(unit, tz))
            table = _set(table, name, moments)
    elif variant == "iso-texts":
        for name, column in (("time", seconds), ("label_time", late)):
            moments = pc.add(column.cast(pa.int64()), 1_700_000_000).cast(pa.timestamp("s"))
            table = _set(table, name, pc.strftime(moments, "%Y-%m-%dT%H:%M:%SZ"))
    elif variant == "text-labels-categories":
        labels = pc.if_else(table.column("label"), "fraud", "ok")
        table = _set(table, "label", labels.dictionary_encode())
        table = _set(table, "entity", table.column("entity").dictionary_encode())
    elif variant == "integer-ids-and-features":
        ids = pa.array(np.arange(table.num_rows) * 3 + 10**12)
        table = _set(table, "event_id", ids)
        table = _set(table, "a", pc.round(pc.multiply(table.column("a"), 100)).cast(pa.int32()))
        table = _set(table, "b", pc.greater(table.column("b"), 0))
    elif variant == "commas-quotes-newlines":
        ids = pc.binary_join_element_wise(table.column("event_id"), 'x,"\n', "")
        table = _set(table, "event_id", ids)
    return table


def _parquet_scenario(table, tmp_path, models=MODELS, log=""):
    import pyarrow.parquet as pq

    pq.write_table(table, tmp_path / "log.parquet", row_group_size=250)
    labels = "[false, true]"
    text_labels = not pa.types.is_boolean(table.schema.field("label").type)
    if text_labels:
        labels = '["ok", "fraud"]'
        if models == MODELS:
            models = 'D = { class = "ACOG", params = { covariance = "diag", positive = "fraud" } }'
    text = _scenario(models=models, log=log, labels=labels)
    if text_labels:
        text = text.replace("[log]\n", '[log]\npositive = "fraud"\n', 1)
    return text.replace('path = "log.csv"', 'path = "log.parquet"')


PARQUET_VARIANTS = [
    "integer-seconds",
    "float-seconds",
    "timestamps",
    "timestamps-utc-ns",
    "iso-texts",
    "text-labels-categories",
    "integer-ids-and-features",
    "commas-quotes-newlines",
]


@pytest.mark.parametrize("variant", PARQUET_VARIANTS)
def test_parquet_logs_replay_whole_and_write_the_same_files(tmp_path, monkeypatch, variant):
    from imbalance_stream.replay import arrow_log

    monkeypatch.setattr(arrow_log, "BLOCK_ROWS", 128)
    table = _parquet_variant(_table(), variant)
    text = _parquet_scenario(table, tmp_path, log='[log.features]\nexclude = ["c"]')
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is True
    assert outputs["predictions.csv"].count(b"\n") > 700


def _hostile_parquet(table, kind, at=401):
    import pyarrow.compute as pc

    def changed(name, value, kind_=None):
        values = table.column(name).to_pylist()
        values[at] = value
        return _set(table, name, pa.array(values, type=kind_ or table.schema.field(name).type))

    if kind == "nan":
        return changed("a", float("nan"))
    if kind == "missing-feature":
        return changed("a", None)
    if kind == "missing-time":
        return changed("time", None)
    if kind == "third-label":
        labels = pc.if_else(table.column("label"), "fraud", "ok").to_pylist()
        labels[at] = "maybe"
        return _set(table, "label", pa.array(labels))
    if kind == "return-in-id":
        return changed("event_id", "e\r1")
    if kind == "text-feature":
        return _set(table, "a", table.column("a").cast(pa.string()))
    if kind == "out-of-order":
        return changed("time", 5)
    if kind == "nanoseconds":
        ticks = pc.multiply(table.column("time"), 10**9).to_pylist()
        ticks[at] += 1
        return _set(table, "time", pa.array(ticks).cast(pa.timestamp("ns")))
    raise AssertionError(kind)


PARQUET_HOSTILE = [
    "nan",
    "missing-feature",
    "missing-time",
    "third-label",
    "return-in-id",
    "text-feature",
    "out-of-order",
    "nanoseconds",
]


@pytest.mark.parametrize("kind", PARQUET_HOSTILE)
@pytest.mark.parametrize("river", [False, True], ids=["acog", "river"])
def test_a_hostile_parquet_row_is_read_by_the_row_reader(tmp_path, monkeypatch, kind, river):
    """A batch the columnar reader does not vouch for: the columnar replay hands over to the
    row-by-row replay there; a River model's replay reads that batch with the row reader and
    the others a column at a time. The same files either way."""
    from imbalance_stream.replay import arrow_log

    monkeypatch.setattr(arrow_log, "BLOCK_ROWS", 100)
    table = _hostile_parquet(_table(), kind)
    models = MODELS
    if river:
        models = (
            'R = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]\n'
        )
    text = _parquet_scenario(table, tmp_path, models=models)
    text = text.replace("[replay]", "[replay]\ncheckpoint_every = 60", 1)
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert ended is (None if river else False)
    if kind == "out-of-order":
        assert "is before the previous row's" in error
    elif river and kind == "third-label":  # text labels, which River's models do not predict
        assert "predicts False, True" in error
    else:
        assert error is None
        assert outputs["predictions.csv"].count(b"\n") > 500
    if kind == "nanoseconds":
        assert b"whole number of microseconds" in outputs["rejected.csv"]


def test_a_resumed_parquet_replay_skips_its_rows_a_batch_at_a_time(tmp_path, monkeypatch):
    from imbalance_stream.replay import arrow_log
    from imbalance_stream.replay import engine as engine_module

    monkeypatch.setattr(arrow_log, "BLOCK_ROWS", 64)
    table = _hostile_parquet(_table(), "missing-feature", at=30)
    models = 'R = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]\n'
    text = _parquet_scenario(table, tmp_path, models=models)
    scenario = parse(text.replace("[replay]", "[replay]\ncheckpoint_every = 50", 1), base=tmp_path)
    resumed, whole = _resumed_after_a_stop(
        tmp_path, monkeypatch, scenario, engine_module._CellRun, "save_checkpoint", 10
    )
    assert _outputs(resumed.out_dir) == _outputs(whole.out_dir)


def test_parquet_times_in_nanoseconds_read_to_the_microsecond_or_are_refused():
    """Whatever pandas' presence would make of them: a whole number of microseconds is that
    time, another is a rejected row naming the column."""
    from imbalance_stream.replay.sources import parquet_records

    ticks = pa.array([1_000, 1_500, None], type=pa.int64()).cast(pa.timestamp("ns"))
    batch = pa.record_batch([ticks, pa.array([1.0, 2.0, 3.0])], names=["t", "x"])
    records = parquet_records(batch)
    assert parse_time(records[0]["t"]) == 1
    assert isinstance(records[1], Reject) and "column 't'" in str(records[1])
    assert records[2] == {"t": None, "x": 3.0}


# ---- JSON-lines and SQL logs ------------------------------------------------------------------


def _records(kind="clean"):
    """``_lines()`` as records of Python values, as JSON or a database gives them: integer and
    float features, integer times, boolean labels, missing label times as None; made hostile at
    row 401 by ``kind``."""
    records = _table().to_pylist()
    for k, record in enumerate(records):
        if k % 5 == 0:
            record["a"] = round(record["a"] * 1000)  # an integer among floats
    at = 400
    if kind == "extra-key":
        records[at]["d"] = 1.0
    elif kind == "missing-key":
        del records[at]["b"]
    elif kind == "text-feature":
        records[at]["a"] = "1.5"
    elif kind == "missing-feature":
        records[at]["a"] = None
    elif kind == "boolean-feature":
        records[at]["a"] = True
    elif kind == "float-time":
        records[at]["time"] = float(records[at]["time"])
    elif kind == "huge-integer":
        records[at]["a"] = 2**70
    elif kind == "out-of-order":
        records[at]["time"] = 5
    return records


def _jsonl_log(path, records, broken=False):
    import json

    lines = [json.dumps(record) for record in records]
    if broken:
        lines[400] = lines[400][:-3]
    path.write_text("\n".join(lines) + "\n")


def _sqlite_log(path, records):
    import sqlite3

    columns = ["event_id", "time", "entity", "label", "label_time", "a", "b", "c"]
    with sqlite3.connect(path) as db:
        db.execute(f"CREATE TABLE log ({', '.join(columns)})")
        db.executemany(
            f"INSERT INTO log VALUES ({', '.join('?' * len(columns))})",
            [tuple(record.get(c) for c in columns) for record in records],
        )
    db.close()


def _record_scenario(fmt, models=MODELS, log=""):
    text = _scenario(models=models, options="checkpoint_every = 60\n", log=log)
    if fmt == "jsonl":
        return text.replace('path = "log.csv"', 'path = "log.jsonl"')
    path, order = ("log.db", "rowid") if fmt == "sqlite" else ("log.duckdb", "time, event_id")
    query = f'query = "SELECT * FROM log ORDER BY {order}"'
    return text.replace('path = "log.csv"', f'path = "{path}"\nformat = "{fmt}"\n{query}')


RECORD_KINDS = [
    "clean",
    "extra-key",
    "missing-key",
    "text-feature",
    "missing-feature",
    "boolean-feature",
    "float-time",
    "huge-integer",
    "out-of-order",
    "broken-line",
]


@pytest.mark.parametrize("kind", RECORD_KINDS)
@pytest.mark.parametrize("fmt", ["jsonl", "sqlite"])
@pytest.mark.parametrize("river", [False, True], ids=["acog", "river"])
def test_json_lines_and_sql_logs_read_a_column_at_a_time(tmp_path, monkeypatch, kind, fmt, river):
    """The row reader's records, a block at a time, made columns where every value is one this
    reader vouches for: the same files as the row-by-row replay; the columnar replay runs the
    whole of a clean log and hands over at a hostile block."""
    from imbalance_stream.replay import arrow_log

    if fmt == "sqlite" and kind in ("extra-key", "missing-key", "broken-line", "huge-integer"):
        pytest.skip("a table's rows all have its columns, and its integers 64 bits")
    monkeypatch.setattr(arrow_log, "BLOCK_ROWS", 100)
    records = _records(kind)
    if fmt == "jsonl":
        _jsonl_log(tmp_path / "log.jsonl", records, broken=kind == "broken-line")
    else:
        _sqlite_log(tmp_path / "log.db", records)
    models = MODELS
    if river:
        models = (
            'R = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]'
        )
    outputs, ended, error = _both(tmp_path, monkeypatch, _record_scenario(fmt, models))
    # (SQLite keeps a boolean as the integer 1)
    whole = kind == "clean" or (fmt == "sqlite" and kind == "boolean-feature")
    assert ended is (None if river else whole)
    if kind == "out-of-order":
        assert "is before the previous row's" in error
    else:
        assert error is None
        assert outputs["predictions.csv"].count(b"\n") > 650


def test_a_query_is_run_once_when_the_columnar_replay_hands_over(tmp_path, monkeypatch):
    """Handing over, the row-by-row replay reads the rest of the query's rows from the columnar
    replay's own reading: the query is not run again (rows of equal sort keys could come in
    another order)."""
    from imbalance_stream.replay import arrow_log, sources

    monkeypatch.setattr(arrow_log, "BLOCK_ROWS", 100)
    _sqlite_log(tmp_path / "log.db", _records("text-feature"))
    runs = []
    original = sources._sql

    def counted(spec, path):
        runs.append(path)
        return original(spec, path)

    monkeypatch.setattr(sources, "_sql", counted)
    outputs, ended, error = _both(tmp_path, monkeypatch, _record_scenario("sqlite"))
    assert ended is False and error is None
    assert len(runs) == 2  # once for each of the two replays _both compares


def test_duckdb_logs_read_a_column_at_a_time(tmp_path, monkeypatch):
    duckdb = pytest.importorskip("duckdb")
    import datetime as dt

    records = _records()
    with duckdb.connect(str(tmp_path / "log.duckdb")) as db:
        db.execute(
            "CREATE TABLE log (event_id TEXT, time TIMESTAMP, entity TEXT, label BOOLEAN, "
            "label_time TIMESTAMP, a DOUBLE, b DOUBLE, c DECIMAL(8, 4))"
        )
        start = dt.datetime(2024, 1, 1)
        rows = []
        for record in records:
            late = record["label_time"]
            rows.append(
                (
                    record["event_id"],
                    start + dt.timedelta(seconds=record["time"], microseconds=7),
                    record["entity"],
                    record["label"],
                    None if late is None else start + dt.timedelta(seconds=late, microseconds=7),
                    record["a"],
                    record["b"],
                    record["c"] if int(record["event_id"][1:]) >= 400 else None,
                )
            )
        db.executemany("INSERT INTO log VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)
    text = _record_scenario("duckdb", log='[log.features]\nexclude = ["c"]')
    _, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is True
    # c: a DECIMAL (read as float() reads it), missing before row 401 (rejected)
    text = _record_scenario("duckdb", log='[log.features]\ninclude = ["a", "b", "c"]')
    for name in ("columnar", "rows"):
        (tmp_path / name / "predictions.csv").unlink()
    outputs, ended, error = _both(tmp_path, monkeypatch, text)
    assert error is None and ended is False
    assert b"column 'c': empty value" in outputs["rejected.csv"]
