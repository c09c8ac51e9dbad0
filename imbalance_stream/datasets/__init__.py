"""Benchmark datasets, imbalance schedules and imbalanced streams.

File datasets (read from the data home ``$IMBALANCE_STREAM_DATA``, default
``~/imbalance_stream_data``; the loaders download nothing, every file is checksummed once per
process; ``imbalance-stream data fetch NAME`` or :func:`fetch.fetch` downloads the files from their
public sources into the data home):

* LIBSVM: :class:`German`, :class:`A9A`, :class:`IJCNN1`, :class:`Australian`,
  :class:`Mushrooms`, :class:`W8A`, :class:`DNA`, :class:`Satimage`, :class:`Letter`,
  :class:`Splice`, :class:`CodRNA`;
* UCI: :class:`Magic04`, :class:`Spambase`, :class:`Abalone`, :class:`BreastCancerWisconsin`,
  :class:`Car`, :class:`PenDigits`; :class:`Iris` (scikit-learn's bundled copy, optional);
* :class:`MNIST` (IDX files; :func:`read_idx` reads any IDX file);
* :class:`KOILBenchmark` (the KOIL paper's 26 datasets with their cross-validation folds;
  :func:`koil_cv_folds`, :func:`koil_inner_folds`, :func:`check_koil_files` and
  :class:`CorruptedFileError` for the files damaged upstream); :class:`ShuttleODDS` (River's
  bundled ODDS Shuttle, a different task from KOIL's missing shuttle, with seeded stratified folds
  in the KOIL layout: :func:`stratified_fold_matrix`);
* helpers: :func:`read_libsvm` (stream any LIBSVM/svmlight file), :func:`get_data_home`,
  :class:`DataFile`, :class:`BenchmarkDataset` (base class), :class:`ChecksumError`,
  :class:`MissingDataFile` (a file not in the data home; a ``FileNotFoundError``);
* :class:`CSVFile`: any CSV file as a stream, through River's ``stream.iter_csv``.

Every loader is a River dataset (iterate ``(dict, label)``) with ``to_numpy()`` returning
``(X, y, feature_names)``; binary loaders label the positive class ``True`` (``positive_class``
names it; ``None`` keeps the raw labels, which ``raw_labels()`` always returns).

Default positive classes (those of the papers the project reproduces; see each docstring):

=========================  ===============  ===================================
loader                     rows x features  positive (raw label)
=========================  ===============  ===================================
German                     1,000 x 24       ``1`` bad credit (300)
A9A (split="all")          48,842 x 123     ``1`` income > 50K (11,687)
IJCNN1                     49,990 x 22      ``1`` (4,853)
Australian                 690 x 14         ``1`` (307)
Mushrooms                  8,124 x 112      ``2`` edible (4,208, the majority)
W8A                        49,749 x 300     ``1`` (1,479)
DNA (split="train")        2,000 x 180      ``1`` EI boundary (464)
Satimage (split="train")   4,435 x 36       ``4`` damp grey soil (415)
Letter (split="train")     15,000 x 16      ``8`` H (538)
Splice (split="train")     1,000 x 60       ``1`` (517)
CodRNA                     59,535 x 8       ``1`` (19,845)
Magic04                    19,020 x 10      ``"h"`` hadron (6,688)
Spambase                   4,601 x 57       ``1`` spam (1,813)
Abalone                    4,177 x 8        rings 1-4 (74)
BreastCancerWisconsin      683 x 9          ``4`` malignant (239)
Car                        1,728 x 6        ``"vgood"`` (65)
PenDigits (split="train")  7,494 x 16       ``6`` (720)
Iris                       150 x 4          ``0`` setosa (50)
MNIST (split="train")      60,000 x 784     ``8`` (5,851)
KOILBenchmark(name)                 as shipped       ``1`` (the authors' minority class)
ShuttleODDS                49,097 x 9       ``1`` anomaly, merged rare classes (3,511)
=========================  ===============  ===================================

Generator: :class:`Waveform` (Breiman's waveforms, class 1 positive, with the negatives-per-positive
ratio of the thesis' imbalance sweeps).

Imbalance: :class:`ImbalancedStream` makes any labelled stream follow a positive-class share
given by a float or a schedule: :class:`Static`, :class:`Step`, :class:`Gradual`,
:class:`Periodic`, :class:`Piecewise`, or any callable ``t -> p``.
"""

import importlib
import importlib.util

#: Submodule -> the public names it gives the package. They are imported on first use (PEP 562),
#: so that reading the data home or the file tables (``imbalance-stream data``) does not import
#: numpy, River and every loader.
_EXPORTS = {
    "home": (
        "DATA_HOME_ENV",
        "ChecksumError",
        "CorruptedFileError",
        "DataFile",
        "MissingDataFile",
        "get_data_home",
    ),
    "base": ("BenchmarkDataset",),
    "csv_file": ("CSVFile",),
    "imbalance": (
        "Gradual",
        "ImbalancedStream",
        "Periodic",
        "Piecewise",
        "Schedule",
        "Static",
        "Step",
        "as_schedule",
    ),
    "koil": (
        "KOILBenchmark",
        "check_koil_files",
        "koil_cv_folds",
        "koil_files",
        "koil_inner_folds",
    ),
    "libsvm": ("read_libsvm",),
    "libsvm_datasets": (
        "A9A",
        "DNA",
        "IJCNN1",
        "W8A",
        "Australian",
        "CodRNA",
        "German",
        "Letter",
        "Mushrooms",
        "Satimage",
        "Splice",
    ),
    "mnist": ("MNIST", "read_idx"),
    "novelty": ("NoveltyStream",),
    "shift": ("SelectionShift",),
    "shuttle": ("ShuttleODDS", "stratified_fold_matrix"),
    "uci": ("Abalone", "BreastCancerWisconsin", "Car", "Iris", "Magic04", "PenDigits", "Spambase"),
    "waveform": ("Waveform",),
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}

__all__ = sorted(_WHERE)

#: Old names, importable with a DeprecationWarning until 0.3.
_DEPRECATED = {"KOIL": "imbalance_stream.datasets:KOILBenchmark"}


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    elif name in _DEPRECATED:
        from imbalance_stream.base.deprecation import deprecated_aliases

        return deprecated_aliases(__name__, _DEPRECATED, stacklevel=3)(name)
    elif importlib.util.find_spec(f"{__name__}.{name}") is not None:
        value = importlib.import_module(f".{name}", __name__)  # a submodule
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
