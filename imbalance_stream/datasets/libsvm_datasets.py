"""Loaders for the LIBSVM benchmark sets (binary and multi-class), and cod-rna.

All read the files of the data home's ``libsvm/`` folder (see
:mod:`imbalance_stream.datasets.base`). Feature names are the LIBSVM indices as ``int`` (1-based).
Labels are ``True`` for the positive class and ``False`` otherwise; ``positive_class=None`` keeps
the raw labels (``-1``/``1``, ``1..k``), which
:meth:`~imbalance_stream.datasets.base.BenchmarkDataset.raw_labels` always gives. The default
positive classes are those of the papers the project reproduces (ACOG, KOIL, LASVM), each named in
the class docstring.
"""

from __future__ import annotations

import numpy as np

from . import _EXPORTS
from ._files.libsvm import FILES
from .base import BenchmarkDataset
from .libsvm import libsvm_arrays

#: The public names, listed once in the package's export table (``datasets._EXPORTS``).
__all__ = list(_EXPORTS["libsvm_datasets"])


def _train_test(name: str, train: int, test: int) -> dict[str, tuple[tuple[str, ...], int]]:
    """The splits of a set published as a training file ``name`` (``train`` rows) and a test file
    ``name.t`` (``test`` rows): ``"train"``, ``"test"``, and ``"all"`` (both, the training file
    first)."""
    return {
        "train": ((name,), train),
        "test": ((f"{name}.t",), test),
        "all": ((name, f"{name}.t"), train + test),
    }


class _LIBSVMDataset(BenchmarkDataset):
    """A LIBSVM text dataset whose splits are files (shared implementation)."""

    _splits: dict[str, tuple[tuple[str, ...], int]]  # split -> (file keys, rows)
    _n_features: int
    _n_classes = 2
    _sparse = False
    #: Whether the files end with a newline (``mushrooms`` does not; it is checksummed first).
    _final_newline = True

    def __init__(self, split: str, positive_class):
        if split not in self._splits:
            raise ValueError(
                f"{type(self).__name__}: unknown split {split!r}; "
                f"choose from {sorted(self._splits)}"
            )
        self.split = split
        keys, rows = self._splits[split]
        super().__init__(
            files=[FILES[k] for k in keys],
            positive_class=positive_class,
            n_features=self._n_features,
            n_samples=rows,
            n_classes=self._n_classes,
            sparse=self._sparse,
        )

    def _parse_key(self):
        return (self.split,)

    def _parse(self, paths):
        return libsvm_arrays(paths, self._n_features, self._final_newline)


class German(_LIBSVMDataset):
    """Statlog German credit, LIBSVM ``german.numer`` (1,000 rows, 24 numeric features).

    Unscaled. Labels: ``+1`` bad credit (300), ``-1`` good credit (700). The positive class is
    bad credit, as in ACOG (Table II/III) and KOIL.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``: bad credit); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import German
    >>> dataset = German()
    >>> x, y = next(iter(dataset))
    >>> len(x), x[10], y
    (24, 67.0, False)
    >>> X, y, names = dataset.to_numpy()
    >>> X.shape, int(y.sum())
    ((1000, 24), 300)

    """

    _splits = {"train": (("german.numer",), 1000)}
    _n_features = 24

    def __init__(self, positive_class=1):
        super().__init__("train", positive_class)


class A9A(_LIBSVMDataset):
    """Adult (census income > 50K), LIBSVM ``a9a`` / ``a9a.t``: 123 binary features.

    ``split="all"`` (the default) concatenates the training file (32,561 rows) and the test file
    (16,281 rows) into 48,842 rows, as the ACOG paper does; ``"train"`` and ``"test"`` give one
    file. The positive class is income > 50K (label ``+1``: 7,841 + 3,846 = 11,687 rows). The test
    file uses features up to 122 only; the matrix always has 123 columns.

    Parameters
    ----------
    split
        ``"all"``, ``"train"`` or ``"test"``.
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import A9A
    >>> dataset = A9A(split="test")
    >>> dataset.n_samples, dataset.n_features
    (16281, 123)
    >>> x, y = next(iter(dataset))
    >>> sorted(x)[:3], y
    ([1, 6, 17], False)

    """

    _splits = _train_test("a9a", 32561, 16281)
    _n_features = 123
    _sparse = True

    def __init__(self, split: str = "all", positive_class=1):
        super().__init__(split, positive_class)


class IJCNN1(_LIBSVMDataset):
    """IJCNN 2001 challenge, LIBSVM ``ijcnn1`` training file (49,990 rows, 22 features).

    The file is LIBSVM's ``ijcnn1.tr`` + ``ijcnn1.val`` as written by tick (labels ``-1.0`` /
    ``1.0``, read as ``-1`` / ``1``). Features 1-10 are one-hot, 11-22 continuous. The ACOG paper
    prints 141,691 rows but its cost figures match this 49,990-row file (4,853 positives,
    45,137 negatives), which is therefore the one provided. Positive class: ``1``.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import IJCNN1
    >>> X, y, _ = IJCNN1().to_numpy()
    >>> X.shape, int(y.sum())
    ((49990, 22), 4853)

    """

    _splits = {"train": (("ijcnn1",), 49990)}
    _n_features = 22

    def __init__(self, positive_class=1):
        super().__init__("train", positive_class)


class Australian(_LIBSVMDataset):
    """Statlog Australian credit approval, LIBSVM ``australian`` (690 rows, 14 features, unscaled).

    Labels ``+1`` (307) and ``-1`` (383); positive ``+1``, as in ACOG (Table VIII) and KOIL.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import Australian
    >>> X, y, names = Australian().to_numpy()
    >>> X.shape, int(y.sum()), names[:3]
    ((690, 14), 307, (1, 2, 3))

    """

    _splits = {"train": (("australian",), 690)}
    _n_features = 14

    def __init__(self, positive_class=1):
        super().__init__("train", positive_class)


class Mushrooms(_LIBSVMDataset):
    """UCI mushrooms in LIBSVM coding (8,124 rows, 112 binary features).

    LIBSVM labels: ``1`` poisonous (3,916), ``2`` edible (4,208). **The default positive class is
    ``2``, the majority**, because ACOG's cost figures (Tp = 4,208, Tn = 3,916) fit only that
    choice (spec of seed 002, section 6).

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``2``: edible); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import Mushrooms
    >>> X, y, _ = Mushrooms().to_numpy()
    >>> int(y.sum()), int((~y).sum())
    (4208, 3916)

    """

    _splits = {"train": (("mushrooms",), 8124)}
    _n_features = 112
    _sparse = True
    _final_newline = False  # the published file's last row has no newline

    def __init__(self, positive_class=2):
        super().__init__("train", positive_class)


class W8A(_LIBSVMDataset):
    """LIBSVM ``w8a`` (web page classification, 49,749 rows, 300 binary features).

    Labels ``+1`` (1,479) and ``-1`` (48,270); positive ``+1``.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import W8A
    >>> x, y = next(iter(W8A()))
    >>> x, y
    ({41: 1.0, 54: 1.0, 117: 1.0, 250: 1.0}, False)

    """

    _splits = {"train": (("w8a",), 49749)}
    _n_features = 300
    _sparse = True

    def __init__(self, positive_class=1):
        super().__init__("train", positive_class)


class DNA(_LIBSVMDataset):
    """Statlog DNA splice junctions, LIBSVM ``dna.scale`` / ``dna.scale.t`` (180 binary features).

    Three classes: ``1`` exon/intron boundary (EI), ``2`` intron/exon (IE), ``3`` neither.
    Defaults follow ACOG (Table VIII): the 2,000-row training split with class ``1`` (464) as the
    positive class against the other 1,536, which is the only choice matching the printed 1:3.31.
    ``split="all"`` gives the 3,186 rows that KOIL's (NUL-corrupted) ``dna`` file was made from.

    Parameters
    ----------
    split
        ``"train"`` (2,000 rows), ``"test"`` (1,186) or ``"all"`` (3,186).
    positive_class
        Raw label(s) of the positive class (``1``); ``None`` keeps the three raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import DNA
    >>> X, y, _ = DNA().to_numpy()
    >>> X.shape, int(y.sum())
    ((2000, 180), 464)

    """

    _splits = _train_test("dna.scale", 2000, 1186)
    _n_features = 180
    _n_classes = 3
    _sparse = True

    def __init__(self, split: str = "train", positive_class=1):
        super().__init__(split, positive_class)


class Satimage(_LIBSVMDataset):
    """Statlog Landsat satellite, LIBSVM ``satimage.scale`` / ``.t`` (36 features in [-1, 1]).

    Six classes ``1..6`` (LIBSVM's ``6`` is the original class 7). Default: the 4,435-row training
    file with class ``4`` (damp grey soil, 415 rows) positive, as in KOIL and LASVM.

    Parameters
    ----------
    split
        ``"train"`` (4,435 rows), ``"test"`` (2,000) or ``"all"`` (6,435).
    positive_class
        Raw label(s) of the positive class (``4``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import Satimage
    >>> _, y, _ = Satimage().to_numpy()
    >>> int(y.sum()), len(y)
    (415, 4435)

    """

    _splits = _train_test("satimage.scale", 4435, 2000)
    _n_features = 36
    _n_classes = 6

    def __init__(self, split: str = "train", positive_class=4):
        super().__init__(split, positive_class)


class Letter(_LIBSVMDataset):
    """Letter recognition, LIBSVM ``letter.scale`` / ``.t`` (16 features in [-1, 1], 26 classes).

    Classes ``1..26`` are the letters A..Z. Default: the 15,000-row training file with class ``8``
    (H, 538 rows) positive: KOIL's letter set has 538 positives out of 15,000, and ``8`` is the only
    class of this file with 538 rows (KOIL's own file, :class:`KOIL` ``("letter")``, has another row
    order and [0, 1] scaling). LASVM's "Letter-A" is ``positive_class=1``.

    Parameters
    ----------
    split
        ``"train"`` (15,000 rows), ``"test"`` (5,000) or ``"all"`` (20,000).
    positive_class
        Raw label(s) of the positive class (``8``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import Letter
    >>> _, y, _ = Letter().to_numpy()
    >>> int(y.sum()), len(y)
    (538, 15000)

    """

    _splits = _train_test("letter.scale", 15000, 5000)
    _n_features = 16
    _n_classes = 26

    def __init__(self, split: str = "train", positive_class=8):
        super().__init__(split, positive_class)


class Splice(_LIBSVMDataset):
    """LIBSVM ``splice`` / ``splice.t`` (60 features, unscaled values 1..4).

    Labels ``+1`` and ``-1`` (training file: 517 / 483). Positive ``+1``. The density-ratio
    seed (004) uses ``split="all"`` (3,175 rows).

    Parameters
    ----------
    split
        ``"train"`` (1,000 rows), ``"test"`` (2,175) or ``"all"`` (3,175).
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import Splice
    >>> X, y, _ = Splice(split="all").to_numpy()
    >>> X.shape, int(y.sum()), float(X.min()), float(X.max())
    ((3175, 60), 1648, 1.0, 4.0)

    """

    _splits = _train_test("splice", 1000, 2175)
    _n_features = 60

    def __init__(self, split: str = "train", positive_class=1):
        super().__init__(split, positive_class)


class CodRNA(BenchmarkDataset):
    """cod-rna training set (59,535 rows, 8 features), standardised, from a MATLAB file.

    The unscaled LIBSVM text was not obtainable; the stored ``cor_rna_scaled.mat`` holds ``X``
    (sparse 59,535 x 8, features standardised by the copy's author) and ``y`` (``-1`` / ``1``),
    read with :func:`scipy.io.loadmat`. Feature names are ``1..8`` as in LIBSVM. Positive ``1``
    (19,845 rows; ``-1``: 39,690).

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps the raw labels.

    Examples
    --------
    >>> from imbalance_stream.datasets import CodRNA
    >>> X, y, _ = CodRNA().to_numpy()
    >>> X.shape, int(y.sum())
    ((59535, 8), 19845)

    """

    def __init__(self, positive_class=1):
        super().__init__(
            files=[FILES["cod-rna"]], positive_class=positive_class, n_features=8, n_samples=59535
        )

    def _parse(self, paths):
        from scipy import io, sparse

        mat = io.loadmat(str(paths[0]))
        X = mat["X"]
        X = X.toarray() if sparse.issparse(X) else np.asarray(X)
        y = np.asarray(mat["y"]).ravel().astype(np.int64)
        return X.astype(np.float64), y, list(range(1, X.shape[1] + 1))
