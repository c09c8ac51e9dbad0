"""Benchmark datasets, imbalance schedules and imbalanced streams.

File datasets (read from the data home ``$IMBALANCE_STREAM_DATA``, default
``~/imbalance_stream_data``; nothing is downloaded, every file is checksummed once per process):

* LIBSVM: :class:`German`, :class:`A9A`, :class:`IJCNN1`, :class:`Australian`,
  :class:`Mushrooms`, :class:`W8A`, :class:`DNA`, :class:`Satimage`, :class:`Letter`,
  :class:`Splice`, :class:`CodRNA`;
* UCI: :class:`Magic04`, :class:`Spambase`, :class:`Abalone`, :class:`BreastCancerWisconsin`,
  :class:`Car`, :class:`PenDigits`; :class:`Iris` (scikit-learn's bundled copy, optional);
* :class:`MNIST` (IDX files; :func:`read_idx` reads any IDX file);
* :class:`KOIL` (the KOIL paper's 26 datasets with their cross-validation folds;
  :func:`koil_cv_folds`, :func:`koil_inner_folds`, :func:`check_koil_files` and
  :class:`CorruptedFileError` for the files damaged upstream);
* helpers: :func:`read_libsvm` (stream any LIBSVM/svmlight file), :func:`get_data_home`,
  :class:`DataFile`, :class:`BenchmarkDataset` (base class), :class:`ChecksumError`.

Every loader is a River dataset (iterate ``(dict, label)``) with ``to_numpy()`` returning
``(X, y, feature_names)``; binary loaders label the positive class ``True`` (``positive_class``
names it; ``None`` keeps the raw labels, which ``raw_labels()`` always returns).

Imbalance: :class:`ImbalancedStream` makes any labelled stream follow a positive-class share
given by a float or a schedule: :class:`Static`, :class:`Step`, :class:`Gradual`,
:class:`Periodic`, :class:`Piecewise`, or any callable ``t -> p``.
"""

from .base import DATA_HOME_ENV, BenchmarkDataset, ChecksumError, DataFile, get_data_home
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
from .koil import KOIL, CorruptedFileError, check_koil_files, koil_cv_folds, koil_inner_folds
from .libsvm import read_libsvm
from .libsvm_datasets import (
    A9A,
    DNA,
    IJCNN1,
    Australian,
    CodRNA,
    German,
    Letter,
    Mushrooms,
    Satimage,
    Splice,
    W8A,
)
from .mnist import MNIST, read_idx
from .uci import Abalone, BreastCancerWisconsin, Car, Iris, Magic04, PenDigits, Spambase

__all__ = [
    "A9A",
    "Abalone",
    "Australian",
    "BenchmarkDataset",
    "BreastCancerWisconsin",
    "Car",
    "ChecksumError",
    "CodRNA",
    "CorruptedFileError",
    "DATA_HOME_ENV",
    "DNA",
    "DataFile",
    "German",
    "Gradual",
    "IJCNN1",
    "ImbalancedStream",
    "Iris",
    "KOIL",
    "Letter",
    "MNIST",
    "Magic04",
    "Mushrooms",
    "PenDigits",
    "Periodic",
    "Piecewise",
    "Satimage",
    "Schedule",
    "Spambase",
    "Splice",
    "Static",
    "Step",
    "W8A",
    "as_schedule",
    "check_koil_files",
    "get_data_home",
    "koil_cv_folds",
    "koil_inner_folds",
    "read_idx",
    "read_libsvm",
]
