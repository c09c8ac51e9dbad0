"""Loaders for the UCI originals of the data home's ``uci/`` folder.

Features are named as in the UCI documentation. Binary loaders label the positive class ``True``;
``positive_class=None`` keeps the raw labels. Categorical attributes are encoded as documented in
each class (``one_hot`` switches to indicator columns).
"""

from __future__ import annotations

import csv

import numpy as np

from ._files.uci import FILES
from .base import BenchmarkDataset, text_lines

__all__ = ["Abalone", "BreastCancerWisconsin", "Car", "Iris", "Magic04", "PenDigits", "Spambase"]


def _rows(path, header_starts: str | None = None) -> list[list[str]]:
    """Comma-separated rows, stripped, blank lines and a header line (if any) skipped."""
    # text_lines names the file and line of a damaged or non-ASCII file
    rows = [[field.strip() for field in row] for row in csv.reader(text_lines(path)) if row]
    if header_starts is not None and rows and rows[0][0] == header_starts:
        rows = rows[1:]
    return rows


def _int_or_str(label: str):
    try:
        return int(label)
    except ValueError:
        return label


class _StoredFile(BenchmarkDataset):
    """A UCI set read from one file of the data home (shared implementation)."""

    def __init__(self, key: str, positive_class, n_features: int, n_samples: int, n_classes: int):
        super().__init__(
            files=[FILES[key]],
            positive_class=positive_class,
            n_features=n_features,
            n_samples=n_samples,
            n_classes=n_classes,
        )


class _CategoricalFile(_StoredFile):
    """A :class:`_StoredFile` whose categorical columns are coded as one ordinal column each or,
    with ``one_hot=True``, as indicator columns: the coding is part of the parsed arrays' key."""

    one_hot: bool

    def _parse_key(self):
        return (self.one_hot,)


class Magic04(_StoredFile):
    """MAGIC gamma telescope (UCI), 19,020 rows, 10 numeric features.

    Labels ``"g"`` (gamma, signal, 12,332) and ``"h"`` (hadron, background, 6,688). The default
    positive class is **hadron**, as in ACOG (Table VIII), which treats hadrons as the outliers.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``"h"``); ``None`` keeps ``"g"`` / ``"h"``.

    Examples
    --------
    >>> from imbalance_stream.datasets import Magic04
    >>> x, y = next(iter(Magic04()))
    >>> x["fLength"], y
    (28.7967, False)

    """

    FEATURES = (
        "fLength",
        "fWidth",
        "fSize",
        "fConc",
        "fConc1",
        "fAsym",
        "fM3Long",
        "fM3Trans",
        "fAlpha",
        "fDist",
    )

    def __init__(self, positive_class="h"):
        super().__init__("magic04", positive_class, 10, 19020, 2)

    def _parse(self, paths):
        rows = _rows(paths[0])
        X = np.array([r[:10] for r in rows], dtype=np.float64)
        return X, np.array([r[10] for r in rows]), self.FEATURES


class Spambase(_StoredFile):
    """Spambase (UCI), 4,601 e-mails, 57 numeric features; ``1`` = spam (1,813), ``0`` (2,788).

    Unscaled (the features are heavy-tailed; the density-ratio seed recommends min-max scaling to
    [-1, 1] in its protocol). Positive class: spam.

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``1``); ``None`` keeps ``0`` / ``1``.

    Examples
    --------
    >>> from imbalance_stream.datasets import Spambase
    >>> X, y, names = Spambase().to_numpy()
    >>> X.shape, int(y.sum()), names[0], names[-1]
    ((4601, 57), 1813, 'word_freq_make', 'capital_run_length_total')

    """

    WORDS = (
        "make",
        "address",
        "all",
        "3d",
        "our",
        "over",
        "remove",
        "internet",
        "order",
        "mail",
        "receive",
        "will",
        "people",
        "report",
        "addresses",
        "free",
        "business",
        "email",
        "you",
        "credit",
        "your",
        "font",
        "000",
        "money",
        "hp",
        "hpl",
        "george",
        "650",
        "lab",
        "labs",
        "telnet",
        "857",
        "data",
        "415",
        "85",
        "technology",
        "1999",
        "parts",
        "pm",
        "direct",
        "cs",
        "meeting",
        "original",
        "project",
        "re",
        "edu",
        "table",
        "conference",
    )
    FEATURES = (
        tuple(f"word_freq_{w}" for w in WORDS)
        + tuple(f"char_freq_{c}" for c in ";([!$#")
        + ("capital_run_length_average", "capital_run_length_longest", "capital_run_length_total")
    )

    def __init__(self, positive_class=1):
        super().__init__("spambase", positive_class, 57, 4601, 2)

    def _parse(self, paths):
        data = np.array(_rows(paths[0]), dtype=np.float64)
        return data[:, :57], data[:, 57].astype(np.int64), self.FEATURES


class Abalone(_CategoricalFile):
    """Abalone (UCI), 4,177 rows: sex plus 7 measurements; the label is the number of rings.

    Raw labels are the ring counts (1..29). The default positive class is "less than 5 rings"
    (rings 1-4, 74 rows against 4,103), the minority of the DCIL seed (001, Table 5.2); LASVM's
    "Abalone-7" is ``positive_class=7``. ``Sex`` (M / F / I) is coded as one numeric variable
    ``M=0, F=1, I=2`` (the seed counts 8 variables, so sex is one column); with ``one_hot=True``
    it becomes three indicator columns ``Sex_M``, ``Sex_F``, ``Sex_I`` (10 features).

    Parameters
    ----------
    positive_class
        Ring count(s) of the positive class (default ``(1, 2, 3, 4)``); ``None`` keeps the ring
        counts (a 28-class task).
    one_hot
        Encode sex with indicator columns instead of one ordinal column.

    Examples
    --------
    >>> from imbalance_stream.datasets import Abalone
    >>> X, y, names = Abalone().to_numpy()
    >>> X.shape, int(y.sum()), names[:2]
    ((4177, 8), 74, ('Sex', 'Length'))

    """

    MEASUREMENTS = (
        "Length",
        "Diameter",
        "Height",
        "Whole weight",
        "Shucked weight",
        "Viscera weight",
        "Shell weight",
    )
    SEX = ("M", "F", "I")

    def __init__(self, positive_class=(1, 2, 3, 4), one_hot: bool = False):
        self.one_hot = one_hot
        super().__init__("abalone", positive_class, 10 if one_hot else 8, 4177, 28)

    def _parse(self, paths):
        rows = _rows(paths[0])
        sex = np.array([self.SEX.index(r[0]) for r in rows])
        measures = np.array([r[1:8] for r in rows], dtype=np.float64)
        rings = np.array([int(r[8]) for r in rows], dtype=np.int64)
        if self.one_hot:
            indicators = (sex[:, None] == np.arange(3)[None, :]).astype(np.float64)
            names = tuple(f"Sex_{s}" for s in self.SEX) + self.MEASUREMENTS
            return np.hstack([indicators, measures]), rings, names
        return (
            np.column_stack([sex.astype(np.float64), measures]),
            rings,
            ("Sex",) + self.MEASUREMENTS,
        )


class BreastCancerWisconsin(_StoredFile):
    """Breast Cancer Wisconsin (Original) (UCI): 683 complete rows of 9 integer features (1..10).

    The file has 699 rows; the 16 rows with a missing ``bare_nuclei`` (``?``) are **dropped**, the
    complete-case version every seed uses (444 benign, 239 malignant), and the sample id column is
    not a feature. Labels: ``2`` benign, ``4`` malignant; positive (minority, "abnormal") is
    malignant. Not sklearn's ``load_breast_cancer`` (that is WDBC, 569 x 30).

    Parameters
    ----------
    positive_class
        Raw label of the positive class (``4``: malignant); ``None`` keeps ``2`` / ``4``.

    Examples
    --------
    >>> from imbalance_stream.datasets import BreastCancerWisconsin
    >>> X, y, names = BreastCancerWisconsin().to_numpy()
    >>> X.shape, int(y.sum()), names[5]
    ((683, 9), 239, 'bare_nuclei')

    """

    FEATURES = (
        "clump_thickness",
        "unif_cell_size",
        "unif_cell_shape",
        "marg_adhesion",
        "single_epith_cell_size",
        "bare_nuclei",
        "bland_chrom",
        "norm_nucleoli",
        "mitoses",
    )

    def __init__(self, positive_class=4):
        super().__init__("breast-cancer-wisconsin", positive_class, 9, 683, 2)

    def _parse(self, paths):
        rows = [r for r in _rows(paths[0], header_starts="id") if "?" not in r]
        data = np.array([r[1:] for r in rows], dtype=np.int64)
        return data[:, :9].astype(np.float64), data[:, 9], self.FEATURES


class Car(_CategoricalFile):
    """Car evaluation (UCI), 1,728 rows, 6 ordinal categorical attributes.

    Classes ``unacc`` (1,210), ``acc`` (384), ``good`` (69), ``vgood`` (65). The default positive
    class is ``vgood`` ("Very Good / Remainder", DCIL seed 001, Table 5.2). The attributes are
    ordered categories, coded by **ordinal encoding** (0, 1, ... in the UCI order: ``buying`` and
    ``maint`` low < med < high < vhigh; ``doors`` 2 < 3 < 4 < 5more; ``persons`` 2 < 4 < more;
    ``lug_boot`` small < med < big; ``safety`` low < med < high; D-DCIL-16), which keeps the 6
    variables;
    ``one_hot=True`` gives the 21 indicator columns ``"attribute=value"`` instead.

    Parameters
    ----------
    positive_class
        Raw label(s) of the positive class (``"vgood"``); ``None`` keeps the four classes.
    one_hot
        Indicator columns instead of ordinal codes.

    Examples
    --------
    >>> from imbalance_stream.datasets import Car
    >>> x, y = next(iter(Car()))
    >>> x, y
    ({'buying': 3.0, 'maint': 3.0, 'doors': 0.0, 'persons': 0.0, 'lug_boot': 0.0, 'safety': 0.0},
     False)
    >>> Car(one_hot=True).n_features, int(Car().to_numpy()[1].sum())
    (21, 65)

    """

    LEVELS = {
        "buying": ("low", "med", "high", "vhigh"),
        "maint": ("low", "med", "high", "vhigh"),
        "doors": ("2", "3", "4", "5more"),
        "persons": ("2", "4", "more"),
        "lug_boot": ("small", "med", "big"),
        "safety": ("low", "med", "high"),
    }

    def __init__(self, positive_class="vgood", one_hot: bool = False):
        self.one_hot = one_hot
        super().__init__("car", positive_class, 21 if one_hot else 6, 1728, 4)

    def _parse(self, paths):
        rows = _rows(paths[0], header_starts="buying")
        codes = np.array(
            [[levels.index(v) for v, levels in zip(r[:6], self.LEVELS.values())] for r in rows]
        )
        labels = np.array([r[6] for r in rows])
        if not self.one_hot:
            return codes.astype(np.float64), labels, tuple(self.LEVELS)
        columns, names = [], []
        for j, (attribute, levels) in enumerate(self.LEVELS.items()):
            for k, level in enumerate(levels):
                columns.append(codes[:, j] == k)
                names.append(f"{attribute}={level}")
        return np.column_stack(columns).astype(np.float64), labels, tuple(names)


class PenDigits(BenchmarkDataset):
    """Pen-based recognition of handwritten digits (UCI): 16 integer features (0..100), digits 0-9.

    The features are 8 resampled pen positions ``x1, y1, ..., x8, y8``. Splits: ``"train"``
    (``pendigits.tra``, 7,494 rows), ``"test"`` (``pendigits.tes``, 3,498) or ``"all"`` (10,992).
    Default positive class ``6``, one side of the density-ratio thesis's "PenDigits (6 vs 8)" task;
    ``classes=(6, 8)`` keeps only those two digits for that task.

    Parameters
    ----------
    split
        ``"train"``, ``"test"`` or ``"all"``.
    positive_class
        Digit(s) of the positive class (``6``); ``None`` keeps the ten digits.
    classes
        If given, only rows whose digit is in ``classes`` are kept.

    Examples
    --------
    >>> from imbalance_stream.datasets import PenDigits
    >>> dataset = PenDigits(classes=(6, 8))
    >>> X, y, names = dataset.to_numpy()
    >>> X.shape, int(y.sum()), names[:3]
    ((1439, 16), 720, ('x1', 'y1', 'x2'))

    """

    FEATURES = tuple(f"{axis}{i}" for i in range(1, 9) for axis in "xy")
    _SPLITS = {
        "train": (("pendigits.tra",), 7494),
        "test": (("pendigits.tes",), 3498),
        "all": (("pendigits.tra", "pendigits.tes"), 10992),
    }
    _COUNTS = {
        "pendigits.tra": (780, 779, 780, 719, 780, 720, 720, 778, 719, 719),
        "pendigits.tes": (363, 364, 364, 336, 364, 335, 336, 364, 336, 336),
    }

    def __init__(self, split: str = "train", positive_class=6, classes=None):
        if split not in self._SPLITS:
            raise ValueError(
                f"PenDigits: unknown split {split!r}; choose from {sorted(self._SPLITS)}"
            )
        self.split = split
        self.classes = None if classes is None else tuple(sorted(set(classes)))
        keys, rows = self._SPLITS[split]
        if self.classes is not None:
            rows = sum(self._COUNTS[k][c] for k in keys for c in self.classes if 0 <= c <= 9)
        super().__init__(
            files=[FILES[k] for k in keys],
            positive_class=positive_class,
            n_features=16,
            n_samples=rows,
            n_classes=10 if self.classes is None else len(self.classes),
        )

    def _parse_key(self):
        return (self.split, self.classes)

    def _parse(self, paths):
        data = np.vstack([np.array(_rows(p), dtype=np.int64) for p in paths])
        if self.classes is not None:
            data = data[np.isin(data[:, 16], self.classes)]
        return data[:, :16].astype(np.float64), data[:, 16], self.FEATURES


class Iris(BenchmarkDataset):
    """Iris (UCI), 150 rows, 4 features, 3 classes of 50, as bundled by scikit-learn.

    Needs the optional dependency scikit-learn (``pip install imbalance-stream[sklearn]``); the
    data come with it, so no file of the data home is read. Raw labels ``0`` setosa,
    ``1`` versicolor, ``2`` virginica. The DCIL seed (001, Table 5.1) uses the three one-vs-rest
    tasks "1 to 2,3", "2 to 1,3", "3 to 1,2" (50 vs 100), i.e. ``positive_class=0``, ``1``, ``2``;
    the default is ``0``.

    Parameters
    ----------
    positive_class
        Raw label(s) of the positive class (``0``: setosa); ``None`` keeps the three classes.

    Examples
    --------
    >>> from imbalance_stream.datasets import Iris
    >>> X, y, names = Iris(positive_class=2).to_numpy()
    >>> X.shape, int(y.sum()), names[0]
    ((150, 4), 50, 'sepal length (cm)')

    """

    def __init__(self, positive_class=0):
        super().__init__(
            files=(), positive_class=positive_class, n_features=4, n_samples=150, n_classes=3
        )

    def _parse(self, paths):
        try:
            from sklearn.datasets import load_iris
        except ImportError as error:  # pragma: no cover - scikit-learn is installed in the tests
            raise ImportError(
                "Iris reads the copy bundled with scikit-learn: pip install scikit-learn"
            ) from error
        bunch = load_iris()
        return bunch.data, bunch.target.astype(np.int64), tuple(bunch.feature_names)
