"""KOIL datasets, their fold files and the detection / repair of the upstream defects."""

from __future__ import annotations

import numpy as np
import pytest

from imbalance_stream import datasets
from imbalance_stream.datasets import CorruptedFileError, KOILBenchmark
from imbalance_stream.datasets import koil as koil_module


def _koil(name):
    return pytest.param(name, marks=pytest.mark.requires_data("koil-" + name))


@pytest.mark.parametrize("name", [_koil(n) for n in KOILBenchmark.NAMES if n != "dna"])
def test_koil_dataset_matches_readme(name):
    rows, n_features, positives = koil_module.DATASETS[name]
    dataset = KOILBenchmark(name)
    X, y, names = dataset.to_numpy()
    assert X.shape == (rows, n_features) == (dataset.n_samples, dataset.n_features)
    assert int(y.sum()) == positives
    assert set(dataset.raw_labels().tolist()) == {-1, 1}
    if name not in ("logs_12t", "poker"):
        assert X.min() >= 0.0 and X.max() <= 1.0
    folds = dataset.cv_folds()
    assert folds.shape == (rows, 4) and folds.min() == 1 and folds.max() == 5


@pytest.mark.requires_data("koil-heart")
def test_cv_splits_partition_rows():
    dataset = KOILBenchmark("heart")
    splits = dataset.cv_splits()
    assert len(splits) == 20
    for r in range(4):
        tests = [splits[5 * r + j][1] for j in range(5)]
        assert np.array_equal(np.sort(np.concatenate(tests)), np.arange(270))
        for j in range(5):
            train, test = splits[5 * r + j]
            assert len(train) + len(test) == 270 and not set(train) & set(test)
            assert len(test) == 54  # the 2016 heart_IdxCv: each fold exactly 54 rows


@pytest.mark.requires_data("koil-german")
def test_inner_folds_follow_online_cpp():
    dataset = KOILBenchmark("german")
    inner = koil_module.koil_inner_folds("german")
    outer = dataset.cv_folds()
    assert inner.shape == (5000, 4)
    start = 0
    for j in range(5):
        assignment = dataset.inner_folds(2, j)
        n_train = int((outer[:, 2] != j + 1).sum())
        assert len(assignment) == n_train
        assert np.array_equal(assignment, inner[start : start + n_train, 2])
        start += n_train
    assert start == 4 * 1000
    with pytest.raises(ValueError):
        dataset.inner_folds(4, 0)


@pytest.mark.parametrize(
    "name", [_koil(n) for n in ("segment", "svmguide1_sub", "svmguide4", "vehicle", "vowel")]
)
def test_corrupted_inner_fold_files_are_refused(name):
    dataset = KOILBenchmark(name)
    assert dataset.cv_folds().shape[0] == dataset.n_samples  # outer folds are intact
    with pytest.raises(CorruptedFileError, match=f"{name}_IdxAsso: run of .* NUL bytes"):
        dataset.inner_folds(0, 0)


@pytest.mark.requires_data("koil")
def test_check_koil_files_reports_exactly_the_known_defects():
    assert sorted(datasets.check_koil_files()) == [
        "dna.gz",
        "segment_IdxAsso",
        "svmguide1_sub_IdxAsso",
        "svmguide4_IdxAsso",
        "vehicle_IdxAsso",
        "vowel_IdxAsso",
    ]


def test_dna_refused_without_repair():
    with pytest.raises(CorruptedFileError, match="repair=True"):
        KOILBenchmark("dna")


@pytest.mark.requires_data("koil-dna", "dna")
def test_dna_repair():
    repaired = KOILBenchmark("dna", repair=True)
    X, y, _ = repaired.to_numpy()
    assert X.shape == (3186, 180) and len(repaired.cv_folds()) == 3186
    assert repaired.repaired_rows == range(96, 116) and repaired.unordered_rows == range(97, 115)
    # the intact rows are those of the KOIL file, in its order
    intact, _, _ = koil_module._parse_koil_lines(repaired.files[0].resolve())
    kept = np.r_[0:96, 116:3186]
    assert [int(v) for v in repaired.raw_labels()[kept]] == [label for _, label in intact]
    # the whole is a permutation of LIBSVM dna (train + test), class 1 positive
    X_lib, y_lib, _ = datasets.DNA("all").to_numpy()
    assert sorted(map(bytes, np.column_stack([X, y]))) == sorted(
        map(bytes, np.column_stack([X_lib, y_lib]))
    )


@pytest.mark.requires_data("koil-w8a", "koil-shuttle")
def test_fold_only_names_and_unknown():
    assert datasets.koil_cv_folds("w8a").shape == (49749, 4)
    assert datasets.koil_cv_folds("shuttle").shape == (43500, 4)
    with pytest.raises(ValueError, match="koil_cv_folds"):
        KOILBenchmark("w8a")
    with pytest.raises(ValueError, match="unknown KOIL dataset"):
        KOILBenchmark("iris")


@pytest.mark.requires_data("koil-german")
def test_koil_iteration_is_sparse_and_boolean():
    x, y = next(iter(KOILBenchmark("german")))
    assert y is False and all(isinstance(k, int) for k in x) and 0.0 not in x.values()
