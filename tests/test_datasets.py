"""Dataset loaders against the figures of the data README, data home errors, LIBSVM parsing."""

from __future__ import annotations

import bz2
import collections
import gzip
import hashlib
import os
import pathlib
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river.datasets import base as river_base

from imbalance_stream import datasets
from imbalance_stream.datasets import base as dbase
from imbalance_stream.datasets import get_data_home, read_libsvm
from imbalance_stream.datasets import home as dhome
from imbalance_stream.datasets.libsvm_datasets import FILES as libsvm_files

DATA = get_data_home()

ABALONE_RINGS = dict(
    zip(
        [
            1,
            2,
            3,
            4,
            5,
            6,
            7,
            8,
            9,
            10,
            11,
            12,
            13,
            14,
            15,
            16,
            17,
            18,
            19,
            20,
            21,
            22,
            23,
            24,
            25,
            26,
            27,
            29,
        ],
        [
            1,
            1,
            15,
            57,
            115,
            259,
            391,
            568,
            689,
            634,
            487,
            267,
            203,
            126,
            103,
            67,
            58,
            42,
            32,
            26,
            14,
            6,
            9,
            2,
            1,
            1,
            2,
            1,
        ],
    )
)
CAR = {"unacc": 1210, "acc": 384, "good": 69, "vgood": 65}
PEN_TRA = dict(enumerate([780, 779, 780, 719, 780, 720, 720, 778, 719, 719]))
PEN_TES = dict(enumerate([363, 364, 364, 336, 364, 335, 336, 364, 336, 336]))
MNIST_TEST = dict(enumerate([980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009]))
MNIST_TRAIN = dict(enumerate([5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949]))

# (factory, rows, features, raw label counts, positives) -- figures from the data README.
LOADERS = {
    "German": (
        datasets.German,
        1000,
        24,
        {-1: 700, 1: 300},
        300,
    ),
    "A9A-all": (datasets.A9A, 48842, 123, {-1: 24720 + 12435, 1: 7841 + 3846}, 11687),
    "A9A-train": (lambda: datasets.A9A("train"), 32561, 123, {-1: 24720, 1: 7841}, 7841),
    "A9A-test": (lambda: datasets.A9A("test"), 16281, 123, {-1: 12435, 1: 3846}, 3846),
    "IJCNN1": (datasets.IJCNN1, 49990, 22, {-1: 45137, 1: 4853}, 4853),
    "Australian": (datasets.Australian, 690, 14, {-1: 383, 1: 307}, 307),
    "Mushrooms": (datasets.Mushrooms, 8124, 112, {1: 3916, 2: 4208}, 4208),
    "W8A": (datasets.W8A, 49749, 300, {-1: 48270, 1: 1479}, 1479),
    "DNA-train": (datasets.DNA, 2000, 180, {1: 464, 2: 485, 3: 1051}, 464),
    "DNA-test": (lambda: datasets.DNA("test"), 1186, 180, {1: 303, 2: 280, 3: 603}, 303),
    "Satimage-train": (
        datasets.Satimage,
        4435,
        36,
        {1: 1072, 2: 479, 3: 961, 4: 415, 5: 470, 6: 1038},
        415,
    ),
    "Satimage-test": (
        lambda: datasets.Satimage("test"),
        2000,
        36,
        {1: 461, 2: 224, 3: 397, 4: 211, 5: 237, 6: 470},
        211,
    ),
    "Letter-train": (datasets.Letter, 15000, 16, None, 538),
    "Letter-test": (lambda: datasets.Letter("test"), 5000, 16, None, 196),
    "Splice-train": (datasets.Splice, 1000, 60, {-1: 483, 1: 517}, 517),
    "Splice-test": (lambda: datasets.Splice("test"), 2175, 60, {-1: 1044, 1: 1131}, 1131),
    "CodRNA": (datasets.CodRNA, 59535, 8, {-1: 39690, 1: 19845}, 19845),
    "Magic04": (datasets.Magic04, 19020, 10, {"g": 12332, "h": 6688}, 6688),
    "Spambase": (datasets.Spambase, 4601, 57, {0: 2788, 1: 1813}, 1813),
    "Abalone": (datasets.Abalone, 4177, 8, ABALONE_RINGS, 1 + 1 + 15 + 57),
    "Abalone-onehot": (lambda: datasets.Abalone(one_hot=True), 4177, 10, ABALONE_RINGS, 74),
    "BreastCancerWisconsin": (datasets.BreastCancerWisconsin, 683, 9, {2: 444, 4: 239}, 239),
    "Car": (datasets.Car, 1728, 6, CAR, 65),
    "Car-onehot": (lambda: datasets.Car(one_hot=True), 1728, 21, CAR, 65),
    "PenDigits-train": (datasets.PenDigits, 7494, 16, PEN_TRA, 720),
    "PenDigits-test": (lambda: datasets.PenDigits("test"), 3498, 16, PEN_TES, 336),
    "PenDigits-6vs8": (
        lambda: datasets.PenDigits("all", classes=(6, 8)),
        1056 + 1055,
        16,
        {6: 720 + 336, 8: 719 + 336},
        1056,
    ),
    "Iris": (lambda: datasets.Iris(positive_class=1), 150, 4, {0: 50, 1: 50, 2: 50}, 50),
    "MNIST-test": (lambda: datasets.MNIST("test"), 10000, 784, MNIST_TEST, 974),
    "KOIL-dna-repaired": (
        lambda: datasets.KOILBenchmark("dna", repair=True),
        3186,
        180,
        {1: 767, -1: 2419},
        767,
    ),
}

LETTER_TRAIN = [
    594,
    567,
    554,
    598,
    565,
    565,
    547,
    538,
    567,
    575,
    572,
    560,
    607,
    605,
    574,
    597,
    594,
    568,
    563,
    599,
    606,
    581,
    576,
    583,
    602,
    543,
]


def _needs_files(factory):
    """The loader's files, as a requires_data mark (constructing a loader reads nothing)."""
    return pytest.mark.requires_data(*[f.path for f in factory().files])


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=_needs_files(LOADERS[name][0])) for name in sorted(LOADERS)]
)
def test_loader_matches_readme(name):
    factory, rows, n_features, counts, positives = LOADERS[name]
    dataset = factory()
    assert isinstance(dataset, river_base.Dataset)
    assert dataset.task == river_base.BINARY_CLF
    assert (dataset.n_samples, dataset.n_features) == (rows, n_features)
    X, y, names = dataset.to_numpy()
    assert X.shape == (rows, n_features) and X.dtype == np.float64 and X.flags.c_contiguous
    assert np.isfinite(X).all()
    assert y.dtype == bool and int(y.sum()) == positives
    assert len(names) == n_features == len(set(names))
    raw = collections.Counter(dataset.raw_labels().tolist())
    if counts is not None:
        assert raw == counts
    elif name == "Letter-train":
        assert [raw[k] for k in range(1, 27)] == LETTER_TRAIN
    # iteration agrees with the arrays on the first rows (missing keys are zeros)
    for i, (x, label) in enumerate(dataset.take(5)):
        assert type(label) is bool and label == y[i]
        dense = np.array([x.get(k, 0.0) for k in names])
        assert np.array_equal(dense, X[i])
        assert all(type(v) is float for v in x.values())


@pytest.mark.requires_data("dna")
def test_multiclass_when_positive_class_is_none():
    dataset = datasets.DNA(positive_class=None)
    assert dataset.task == river_base.MULTI_CLF and dataset.n_classes == 3
    _, y, _ = dataset.to_numpy()
    assert sorted(set(y.tolist())) == [1, 2, 3]
    x, label = next(iter(dataset))
    assert type(label) is int


@pytest.mark.requires_data("dna", "german")
def test_positive_class_collection_and_unknown():
    _, y, _ = datasets.DNA(positive_class=(1, 2)).to_numpy()
    assert int(y.sum()) == 464 + 485
    with pytest.raises(ValueError, match="matches no label"):
        datasets.German(positive_class=7).to_numpy()


@pytest.mark.requires_data("a9a")
def test_splits_and_cache_are_consistent():
    X_all, y_all, _ = datasets.A9A("all").to_numpy()
    X_tr, y_tr, _ = datasets.A9A("train").to_numpy()
    X_te, _, _ = datasets.A9A("test").to_numpy()
    assert np.array_equal(X_all, np.vstack([X_tr, X_te]))
    assert np.array_equal(y_all[: len(y_tr)], y_tr)
    # cached arrays are shared and read-only
    X_again, _, _ = datasets.A9A("train").to_numpy()
    assert X_again is X_tr
    with pytest.raises(ValueError):
        X_tr[0, 0] = 5.0


@pytest.mark.requires_data("mushrooms", "australian")
def test_sparse_iteration_drops_zeros_dense_keeps_them():
    x, _ = next(iter(datasets.Mushrooms()))
    assert datasets.Mushrooms().sparse and len(x) == 21 and set(x.values()) == {1.0}
    x, _ = next(iter(datasets.Australian()))
    assert len(x) == 14 and x[8] == 0.0


@pytest.mark.requires_data("cod-rna")
def test_codrna_is_standardised():
    X, _, _ = datasets.CodRNA().to_numpy()
    assert np.allclose(X.mean(axis=0), 0.0, atol=1e-6)
    assert X.min() > -7.5 and X.max() < 5.7


# --- data home -----------------------------------------------------------------------------------


def test_data_home_read_at_use_time(monkeypatch, tmp_path):
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    assert dbase.get_data_home() == tmp_path
    assert datasets.German().path == tmp_path / "libsvm" / "german.numer"
    monkeypatch.delenv("IMBALANCE_STREAM_DATA")
    assert dbase.get_data_home() == pathlib.Path(os.path.expanduser("~/imbalance_stream_data"))


def test_missing_file_error(monkeypatch, tmp_path):
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    dataset = datasets.German()
    assert not dataset.is_available
    with pytest.raises(FileNotFoundError) as info:
        next(iter(dataset))
    message = str(info.value)
    assert "libsvm/german.numer" in message
    assert str(tmp_path / "libsvm" / "german.numer") in message
    assert "IMBALANCE_STREAM_DATA" in message
    assert "https://" in message and "german.numer" in message.split("https://")[1]


@pytest.mark.requires_data("german")
def test_checksum_mismatch(monkeypatch, tmp_path):
    target = tmp_path / "libsvm" / "german.numer"
    target.parent.mkdir()
    content = (DATA / "libsvm" / "german.numer").read_bytes()
    target.write_bytes(content.replace(b"67.000000", b"68.000000", 1))
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    with pytest.raises(datasets.ChecksumError, match="SHA-256") as info:
        datasets.German().to_numpy()
    assert str(target) in str(info.value)
    # an intact copy in another home is accepted, verified once and then parsed from there
    target.write_bytes(content)
    X, _, _ = datasets.German().to_numpy()
    assert X.shape == (1000, 24)
    assert (str(target.resolve()), datasets.German().files[0].sha256) in dhome._VERIFIED


@pytest.mark.requires_data("libsvm/a9a.t.gz")
def test_recompressed_copy_accepted_by_content(monkeypatch, tmp_path):
    source = DATA / "libsvm" / "a9a.t.gz"
    target = tmp_path / "libsvm" / "a9a.t.gz"
    target.parent.mkdir()
    with gzip.open(source, "rb") as fin, gzip.open(target, "wb", compresslevel=1) as fout:
        shutil.copyfileobj(fin, fout)
    assert hashlib.sha256(target.read_bytes()).hexdigest() != datasets.A9A("test").files[0].sha256
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    assert datasets.A9A("test").resolve() == [target]


@pytest.mark.requires_data("libsvm/a9a.t.gz")
def test_non_gzip_content_under_gz_name_is_a_checksum_error(monkeypatch, tmp_path):
    target = tmp_path / "libsvm" / "a9a.t.gz"
    target.parent.mkdir()
    with gzip.open(DATA / "libsvm" / "a9a.t.gz", "rb") as fin:
        target.write_bytes(fin.read())  # decompressed bytes under the .gz name
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    with pytest.raises(datasets.ChecksumError, match="unreadable"):
        datasets.A9A("test").resolve()


@pytest.mark.requires_data(*[f.path for f in libsvm_files.values()])
def test_every_declared_file_matches_its_checksum():
    for data_file in libsvm_files.values():
        data_file.resolve()


# --- LIBSVM parser --------------------------------------------------------------------------------


def write(path: pathlib.Path, text: str) -> pathlib.Path:
    if path.suffix == ".gz":
        with gzip.open(path, "wt", encoding="ascii", newline="") as f:
            f.write(text)
    elif path.suffix == ".bz2":
        with bz2.open(path, "wt", encoding="ascii", newline="") as f:
            f.write(text)
    else:
        path.write_bytes(text.encode("ascii"))
    return path


EXPECTED = [({1: 0.5, 3: -2.0}, 1), ({2: 1e-3}, -1), ({}, 1), ({4: 7.0}, 2)]


@pytest.mark.parametrize(
    "name, text",
    [
        ("plain", "+1 1:0.5 3:-2\n-1 2:1e-3\n1\n2 4:7\n"),
        ("crlf", "+1 1:0.5 3:-2\r\n-1 2:1e-3\r\n1\r\n2 4:7\r\n"),
        ("no-final-newline", "+1 1:0.5 3:-2\n-1 2:1e-3\n1\n2 4:7"),
        ("crlf-no-final-newline", "+1 1:0.5 3:-2\r\n-1 2:1e-3\r\n1\r\n2 4:7"),
        ("tabs-trailing", "1\t1:0.5\t3:-2\t\n-1\t2:1e-3\t\n1\t\n2\t4:7\t\n"),
        ("float-labels", "1.0 1:0.5 3:-2\n-1.0 2:1e-3\n+1.0\n2.0 4:7\n"),
        ("blank-comment-qid", "\n+1 qid:3 1:0.5 3:-2 # note\n\n-1 2:1e-3\n1\n2 4:7\n\n"),
    ],
)
@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2"])
def test_read_libsvm_variants(tmp_path, name, text, suffix):
    path = write(tmp_path / f"data{suffix}", text)
    got = list(read_libsvm(path, require_final_newline="no-final-newline" not in name))
    assert got == EXPECTED
    assert all(type(y) is int for _, y in got)
    assert all(type(k) is int for x, _ in got for k in x)


def test_read_libsvm_non_integral_labels_stay_float(tmp_path):
    path = write(tmp_path / "r", "0.25 1:1\n-3.5 2:1\n")
    assert [y for _, y in read_libsvm(path)] == [0.25, -3.5]


@pytest.mark.parametrize(
    "text, bad",
    [
        ("1 1:0.5\n1 0:1\n", "'0:1'"),
        ("1 a:0.5\n", "'a:0.5'"),
        ("1 3\n", "'3'"),
        ("x 1:1\n", "'x'"),
        ("1 1:abc\n", "'1:abc'"),
        ("1 1:1\n1 2:1\x00\x00\n", "NUL"),
    ],
)
def test_read_libsvm_errors_name_the_line(tmp_path, text, bad):
    path = write(tmp_path / "bad", text)
    with pytest.raises(ValueError) as info:
        list(read_libsvm(path))
    assert bad in str(info.value) and "line" in str(info.value) and str(path) in str(info.value)


@pytest.mark.requires_data("mushrooms", "ijcnn1", "koil/german")
def test_read_libsvm_real_files_edge_cases():
    # mushrooms: CRLF and no final newline; w8a: an extra empty last line; ijcnn1: bz2, '1.0' labels
    mushrooms = DATA / "libsvm" / "mushrooms"
    assert sum(1 for _ in read_libsvm(mushrooms, require_final_newline=False)) == 8124
    with pytest.raises(ValueError, match="line 8124: the file ends in the middle of this row"):
        list(read_libsvm(mushrooms))
    x, y = next(read_libsvm(DATA / "libsvm" / "ijcnn1.trn.bz2"))
    assert y == -1 and type(y) is int and x[13] == 0.0  # an explicit zero is kept
    x, y = next(read_libsvm(DATA / "koil" / "german"))
    assert y == -1 and max(x) == 24


# --- UCI specifics -------------------------------------------------------------------------------


@pytest.mark.requires_data("breast-cancer-wisconsin")
def test_breast_cancer_drops_missing_rows_and_id():
    X, _, names = datasets.BreastCancerWisconsin().to_numpy()
    assert "id" not in names and X.min() >= 1 and X.max() <= 10
    assert X.shape[0] == 699 - 16


@pytest.mark.requires_data("car")
def test_car_encodings_agree():
    X, _, names = datasets.Car().to_numpy()
    H, _, hot_names = datasets.Car(one_hot=True).to_numpy()
    assert names == ("buying", "maint", "doors", "persons", "lug_boot", "safety")
    assert np.array_equal(H.sum(axis=1), np.full(1728, 6.0))
    # the one-hot column "safety=high" is exactly the ordinal code 2 of safety
    assert np.array_equal(H[:, hot_names.index("safety=high")], (X[:, 5] == 2).astype(float))
    assert [X[:, j].max() for j in range(6)] == [3, 3, 3, 2, 2, 2]


@pytest.mark.requires_data("abalone")
def test_abalone_sex_encoding_and_multiclass():
    X, _, _ = datasets.Abalone().to_numpy()
    H, _, names = datasets.Abalone(one_hot=True).to_numpy()
    assert collections.Counter(X[:, 0].tolist()) == {0.0: 1528, 1.0: 1307, 2.0: 1342}
    assert H[:, :3].sum(axis=0).tolist() == [1528, 1307, 1342] and names[:3] == (
        "Sex_M",
        "Sex_F",
        "Sex_I",
    )
    _, y, _ = datasets.Abalone(positive_class=7).to_numpy()
    assert int(y.sum()) == 391
    assert datasets.Abalone(positive_class=None).task == river_base.MULTI_CLF


@pytest.mark.requires_data("magic04")
def test_magic_string_labels():
    _, y, _ = datasets.Magic04(positive_class=None).to_numpy()
    assert set(y.tolist()) == {"g", "h"}
    x, label = next(iter(datasets.Magic04(positive_class=None)))
    assert label == "g" and type(label) is str


# --- MNIST ---------------------------------------------------------------------------------------


@pytest.mark.requires_data("mnist")
def test_mnist_train_header_labels_and_slice():
    from imbalance_stream.datasets.mnist import FILES

    images = datasets.read_idx(FILES["train-images"].resolve())
    assert images.shape == (60000, 28, 28) and images.dtype == np.uint8
    dataset = datasets.MNIST()
    assert collections.Counter(dataset.raw_labels().tolist()) == MNIST_TRAIN
    assert images.mean() == pytest.approx(33.318, abs=1e-3)  # the canonical mean pixel value
    for i, (x, y) in enumerate(dataset.take(3)):
        assert y == (dataset.raw_labels()[i] == 8)
        dense = np.zeros(784)
        dense[list(x)] = list(x.values())
        assert np.array_equal(dense.reshape(28, 28), images[i])


def test_read_idx_rejects_bad_files(tmp_path):
    bad = tmp_path / "bad.idx"
    bad.write_bytes(b"\x00\x00\x08\x01\x00\x00\x00\x05abc")
    with pytest.raises(ValueError, match="header"):
        datasets.read_idx(bad)
    bad.write_bytes(b"PK\x03\x04")
    with pytest.raises(ValueError, match="not an IDX"):
        datasets.read_idx(bad)


def test_unknown_splits_rejected():
    for factory in (datasets.A9A, datasets.DNA, datasets.MNIST, datasets.PenDigits):
        with pytest.raises(ValueError, match="split"):
            factory(split="validation")


@settings(max_examples=50, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.integers(-3, 3),
            st.dictionaries(
                st.integers(1, 40),
                st.floats(allow_nan=False, allow_infinity=False, width=32),
                max_size=8,
            ),
        ),
        max_size=12,
    ),
    separator=st.sampled_from([" ", "\t"]),
    newline=st.sampled_from(["\n", "\r\n"]),
    final_newline=st.booleans(),
    suffix=st.sampled_from(["", ".gz", ".bz2"]),
)
def test_read_libsvm_round_trip(tmp_path_factory, rows, separator, newline, final_newline, suffix):
    lines = []
    for label, features in rows:
        tokens = [f"{label:+d}"] + [f"{k}:{v!r}" for k, v in sorted(features.items())]
        lines.append(separator.join(tokens) + (separator if separator == "\t" else ""))
    text = newline.join(lines) + (newline if final_newline and lines else "")
    path = write(tmp_path_factory.mktemp("rt") / f"data{suffix}", text)
    got = list(read_libsvm(path, require_final_newline=final_newline))
    assert got == [(dict(sorted(f.items())), label) for label, f in rows]


@pytest.mark.requires_data("german", "car", "koil/glass")
def test_reprs_and_lengths():
    for factory in (datasets.German, datasets.Car, lambda: datasets.KOILBenchmark("glass")):
        dataset = factory()
        text = repr(dataset)
        assert type(dataset).__name__ in text and "Positive class" in text
        assert sum(1 for _ in dataset) == dataset.n_samples


@pytest.mark.requires_data("car")
def test_loader_as_imbalanced_stream_source():
    stream = datasets.ImbalancedStream(datasets.Car(), ratio=0.5, seed=0)
    labels = [y for _, y in stream]
    assert set(labels) == {True, False}
    assert sum(labels) == 65  # stops once the 65 'vgood' cars are used up


@pytest.mark.requires_data("car")
def test_checksum_computed_once_per_file(monkeypatch, tmp_path):
    target = tmp_path / "uci" / "car.csv"
    target.parent.mkdir()
    target.write_bytes((DATA / "uci" / "car.csv").read_bytes())
    monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
    calls = []
    real = dhome._sha256
    monkeypatch.setattr(dhome, "_sha256", lambda *a, **k: calls.append(a) or real(*a, **k))
    for _ in range(3):
        datasets.Car().resolve()
    assert len(calls) == 1


@pytest.mark.requires_data("car")
def test_clear_cache_reparses():
    first = datasets.Car().to_numpy()[0]
    assert datasets.Car().to_numpy()[0] is first
    dbase.clear_cache()
    again = datasets.Car().to_numpy()[0]
    assert again is not first and np.array_equal(again, first)


# ---- damaged files: an error naming the file and the line (issue 15) ---------------------------

ROWS = "".join(f"{1 if i % 3 else -1} 1:{i}.5 3:-2 7:0.25\n" for i in range(4000))


def test_a_file_cut_mid_line_is_refused(tmp_path):
    path = write(tmp_path / "cut", ROWS[: ROWS.index("\n", 500) - 3])  # "... 7:0." at the end
    with pytest.raises(ValueError, match=r"cut, line \d+: the file ends in the middle"):
        list(read_libsvm(path))
    assert len(list(read_libsvm(path, require_final_newline=False))) == ROWS[:500].count("\n") + 1


@pytest.mark.parametrize("suffix", [".gz", ".bz2"])
def test_a_truncated_compressed_file_names_the_file_and_line(tmp_path, suffix):
    whole = write(tmp_path / f"whole{suffix}", ROWS).read_bytes()
    path = tmp_path / f"cut{suffix}"
    path.write_bytes(whole[: len(whole) // 2])
    with pytest.raises(datasets.CorruptedFileError) as info:
        list(read_libsvm(path))
    message = str(info.value)
    assert str(path) in message and "line " in message and "damaged or cut short" in message


def test_a_non_ascii_byte_names_the_file_line_and_column(tmp_path):
    path = tmp_path / "latin1"
    path.write_bytes(b"1 1:0.5\n-1 2:1\n1 3:\xe90\n")
    with pytest.raises(
        datasets.CorruptedFileError, match=r"latin1, line 3: byte b'\\xe9' at column 5"
    ):
        list(read_libsvm(path))


def test_a_flipped_byte_in_a_gz_is_a_checksum_error(tmp_path, monkeypatch):
    """Whatever the decompressor raises on the damaged stream (zlib.error, a CRC error, EOF),
    the loader reports a ChecksumError naming the file."""
    from imbalance_stream.datasets import base

    raw = ROWS.encode()
    packed = bytearray(gzip.compress(raw))
    for offset in (30, len(packed) // 2, len(packed) - 6):  # header, deflate data, CRC
        damaged = bytearray(packed)
        damaged[offset] ^= 0xFF
        (tmp_path / "rows.gz").write_bytes(bytes(damaged))
        file = base.DataFile(
            path="rows.gz",
            sha256=hashlib.sha256(bytes(packed)).hexdigest(),
            url="https://example.org/rows.gz",
            content_sha256=hashlib.sha256(raw).hexdigest(),
        )
        monkeypatch.setenv("IMBALANCE_STREAM_DATA", str(tmp_path))
        with pytest.raises(datasets.ChecksumError, match=r"rows.gz"):
            file.resolve()
