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

Imbalance: :class:`ImbalancedStream` makes any labelled stream follow a positive-class share
given by a float or a schedule: :class:`Static`, :class:`Step`, :class:`Gradual`,
:class:`Periodic`, :class:`Piecewise`, or any callable ``t -> p``.
"""

from imbalance_stream.base.deprecation import deprecated_aliases

from .base import (
    DATA_HOME_ENV,
    BenchmarkDataset,
    ChecksumError,
    DataFile,
    MissingDataFile,
    get_data_home,
)
from .csv_file import CSVFile
from .imbalance import (
    Gradual,
    ImbalancedStream,
    Periodic,
    Piecewise,
    Schedule,
    Static,
    Step,
    as_schedule,
)
from .koil import (
    CorruptedFileError,
    KOILBenchmark,
    check_koil_files,
    koil_cv_folds,
    koil_files,
    koil_inner_folds,
)
from .libsvm import read_libsvm
from .libsvm_datasets import (
    A9A,
    DNA,
    IJCNN1,
    W8A,
    Australian,
    CodRNA,
    German,
    Letter,
    Mushrooms,
    Satimage,
    Splice,
)
from .mnist import MNIST, read_idx
from .novelty import NoveltyStream
from .shift import SelectionShift
from .shuttle import ShuttleODDS, stratified_fold_matrix
from .uci import Abalone, BreastCancerWisconsin, Car, Iris, Magic04, PenDigits, Spambase

__all__ = [
    "NoveltyStream",
    "SelectionShift",
    "A9A",
    "DATA_HOME_ENV",
    "DNA",
    "IJCNN1",
    "KOILBenchmark",
    "MNIST",
    "W8A",
    "Abalone",
    "Australian",
    "BenchmarkDataset",
    "BreastCancerWisconsin",
    "CSVFile",
    "Car",
    "ChecksumError",
    "CodRNA",
    "CorruptedFileError",
    "DataFile",
    "German",
    "Gradual",
    "ImbalancedStream",
    "Iris",
    "Letter",
    "Magic04",
    "MissingDataFile",
    "Mushrooms",
    "PenDigits",
    "Periodic",
    "Piecewise",
    "Satimage",
    "Schedule",
    "ShuttleODDS",
    "Spambase",
    "Splice",
    "Static",
    "Step",
    "as_schedule",
    "check_koil_files",
    "get_data_home",
    "koil_cv_folds",
    "koil_files",
    "koil_inner_folds",
    "read_idx",
    "read_libsvm",
    "stratified_fold_matrix",
]

__getattr__ = deprecated_aliases(__name__, {"KOIL": "imbalance_stream.datasets:KOILBenchmark"})
