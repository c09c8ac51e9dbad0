"""Replay a whole labelled array through a model, test-then-train, in one jitted loop.

:func:`replay_array` is the array fast path of the River protocol: for every row of ``X`` it
predicts with the current model, records the prediction, then learns the row, exactly as

>>> for x, y in stream:                                     # doctest: +SKIP
...     predictions.append(model.predict_one(x))
...     try:
...         model.learn_one(x, y)
...     except NumericalError:  # a step that would overflow: refused, the model unchanged
...         pass

would with ``x = {name_j: X[t, j] for the nonzero j, in column order}``. For the models that have an
array path it runs the model's own step kernels over the model's own state arrays, so predictions
and final state are identical to the dict path (bit for bit: the same arithmetic in the same order,
pickle for pickle), and the model stays usable through ``learn_one`` / ``predict_one`` afterwards.
Models without an array path go through ``predict_one`` / ``learn_one`` (``method="auto"``, the
default) or raise (``method="array"``).

Input handling follows the dict path: zeros are absent features; NaN, infinite values and values
beyond 1e15 in magnitude (which ``learn_one`` refuses too) raise
:class:`~imbalance_stream.base.InvalidFeature` naming the feature and row, and a third label raises
:class:`~imbalance_stream.base.UnknownLabel`, both before the model changes. An all-zero row is
predicted (score 0, so the positive label) and not learned, as ``learn_one({}, y)`` is a no-op.
A step the model refuses because it would leave a value not finite in its state (an overflow:
a huge step size, extreme values), which ``learn_one`` raises as
:class:`~imbalance_stream.base.NumericalError` with the model unchanged, is skipped by both paths,
nothing of it kept (its values, its label count, the names it brings), and the replay goes on with
the next row: the loop above. Column ``j`` is the feature named ``feature_names[j]`` (default: the
integer ``j``), so a model fed dicts with the same names continues seamlessly.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from imbalance_stream.base import NumericalError
from imbalance_stream.base.deprecation import deprecated_aliases
from imbalance_stream.base.rows import ArrayRows

__all__ = ["ArrayReplayResult", "has_array_path", "replay_array"]


def has_array_path(model) -> bool:
    """Whether :func:`replay_array` can replay ``model`` in a jitted loop (the estimator
    implements the array path of :class:`~imbalance_stream.base.BinaryClassifier`)."""
    return bool(getattr(model, "has_array_path", False))


@dataclasses.dataclass
class ArrayReplayResult:
    """What a test-then-train replay produced.

    ``predictions`` holds the labels predicted before each row was learned; ``is_positive`` and
    ``predicted_positive`` the truth and the prediction as booleans (positive = the model's positive
    label). ``seconds`` is the wall time of the replay and ``path`` which path ran (``"array"`` or
    ``"dict"``).
    """

    predictions: np.ndarray
    is_positive: np.ndarray
    predicted_positive: np.ndarray
    seconds: float
    path: str

    @property
    def n_positive(self) -> int:
        """T_p, the number of positive rows."""
        return int(self.is_positive.sum())

    @property
    def n_negative(self) -> int:
        """T_n, the number of negative rows."""
        return int(len(self.is_positive) - self.is_positive.sum())

    @property
    def mistakes_positive(self) -> int:
        """Positive rows predicted negative (false negatives), the paper's M_p."""
        return int(np.sum(self.is_positive & ~self.predicted_positive))

    @property
    def mistakes_negative(self) -> int:
        """Negative rows predicted positive (false positives), the paper's M_n."""
        return int(np.sum(~self.is_positive & self.predicted_positive))

    def sensitivity(self) -> float:
        """``(T_p - M_p) / T_p`` (NaN without positive rows)."""
        return 1.0 - self.mistakes_positive / self.n_positive if self.n_positive else float("nan")

    def specificity(self) -> float:
        """``(T_n - M_n) / T_n`` (NaN without negative rows)."""
        return 1.0 - self.mistakes_negative / self.n_negative if self.n_negative else float("nan")

    def weighted_sum(self, alpha_p: float = 0.5) -> float:
        """``alpha_p * sensitivity + (1 - alpha_p) * specificity`` (balanced accuracy at 0.5)."""
        return alpha_p * self.sensitivity() + (1.0 - alpha_p) * self.specificity()

    def cost(self, c_p: float = 0.9) -> float:
        """``c_p * M_p + (1 - c_p) * M_n``: the weighted count of online mistakes."""
        return c_p * self.mistakes_positive + (1.0 - c_p) * self.mistakes_negative


def replay_array(
    model,
    X,
    y,
    *,
    feature_names: Sequence | None = None,
    method: str = "auto",
    positive=None,
) -> ArrayReplayResult:
    """Predict then learn every row of ``X`` in order; return the predictions.

    Parameters
    ----------
    model
        A River classifier. Models with an array path (see :func:`has_array_path`: ACOG full and
        diagonal, SACOG dense and sparse, and the seed-002 baselines Perceptron, ROMMA, PA, CPA,
        PAUM, COG and AROW) run in a jitted loop over their own state (a row whose learning must
        grow the state first goes through ``learn_one``: for SACOG, whose sketch depends on
        when features arrive and on their names, each row that brings a feature while the sketch
        takes shape); any other goes through ``predict_one`` and ``learn_one``. Both paths skip
        a step the model refuses with :class:`~imbalance_stream.base.NumericalError` (see the
        module's docstring).
    X
        A dense array or a scipy sparse matrix, one row per sample.
    y
        The labels, one per row (any two labels, e.g. -1/+1 or the model's ``positive`` and
        another).
    feature_names
        Name of each column (default: the column number).
    method
        ``"auto"`` (the array path when the model has one, else the dict path), ``"array"``
        (raise ``TypeError`` if the model has none) or ``"dict"`` (always the River protocol).
    positive
        The label whose rows count as positive in the result's metrics. The package's binary
        classifiers know theirs (``model.positive``) and this must be ``None`` or agree; for
        other models it defaults to ``True``.

    Examples
    --------

    >>> import numpy as np
    >>> from river import datasets
    >>> from imbalance_stream.evaluate import replay_array
    >>> from imbalance_stream.linear_model import ACOG

    >>> rows = list(datasets.Phishing())
    >>> X = np.array([list(x.values()) for x, _ in rows])
    >>> y = np.array([label for _, label in rows])
    >>> model = ACOG(loss="II", covariance="diag", eta=1.0)
    >>> result = replay_array(model, X, y)
    >>> result.path, len(result.predictions)
    ('array', 1250)
    >>> mistakes = f"{result.mistakes_positive} + {result.mistakes_negative} mistakes"
    >>> print(f"{result.weighted_sum():.3f}, {mistakes}")
    0.809, 167 + 54 mistakes
    >>> model.predict_one(dict(enumerate(X[0])))  # the model goes on through the dict API
    True

    """
    if method not in ("auto", "array", "dict"):
        raise ValueError(f"method must be 'auto', 'array' or 'dict', got {method!r}")
    array_path = method != "dict" and has_array_path(model)
    if method == "array" and not array_path:
        raise TypeError(
            f"{type(model).__name__} has no array path; use method='auto' to replay it through "
            "predict_one/learn_one"
        )
    csr = _as_csr(X)
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != csr.shape[0]:
        raise ValueError(f"y must hold one label per row: {y.shape} labels for {csr.shape[0]} rows")
    if feature_names is None:
        feature_names = range(csr.shape[1])
    elif len(feature_names) != csr.shape[1]:
        raise ValueError(f"{len(feature_names)} feature names for {csr.shape[1]} columns")
    rows = ArrayRows(csr, y, list(feature_names))

    if not array_path:
        rows.check_values()  # (the array path checks them itself)
        positive = getattr(model, "positive", True) if positive is None else positive
        return _replay_dicts(model, rows, positive)

    if positive is not None and positive != model.positive:
        raise ValueError(
            f"positive={positive!r} but the model's positive label is {model.positive!r}"
        )
    start = time.perf_counter()
    predicted = model.replay_rows(rows)
    seconds = time.perf_counter() - start
    is_positive = np.asarray(y == model.positive, dtype=bool)
    return _result(
        predicted > 0,
        is_positive,
        seconds,
        "array",
        positive=model.positive,
        negative=model.negative,
    )


# ---- helpers -----------------------------------------------------------------------------------


def _result(
    predicted_positive, is_positive, seconds, path, labels=None, positive=None, negative=None
):
    predicted_positive = np.asarray(predicted_positive, dtype=bool)
    if labels is None:
        labels = np.empty(len(predicted_positive), dtype=object)
        labels[predicted_positive] = positive
        labels[~predicted_positive] = negative
    return ArrayReplayResult(labels, is_positive, predicted_positive, seconds, path)


def _as_csr(X) -> sparse.csr_matrix:
    if sparse.issparse(X):
        csr = sparse.csr_matrix(X, dtype=np.float64, copy=True)
        csr.eliminate_zeros()
        csr.sort_indices()
        return csr
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got shape {X.shape}")
    # NaN is nonzero, so it survives into the CSR data and is caught by _check_finite
    return sparse.csr_matrix(X)


def _replay_dicts(model, rows: ArrayRows, positive):
    """The River protocol, row by row: the fallback and the reference of the array path (a step
    refused with NumericalError, the model unchanged, is skipped)."""
    n_rows = len(rows)
    predicted = np.zeros(n_rows, dtype=bool)
    labels = np.empty(n_rows, dtype=object)
    start = time.perf_counter()
    for t in range(n_rows):
        x = rows.row_dict(t)
        labels[t] = model.predict_one(x)
        predicted[t] = labels[t] == positive
        with contextlib.suppress(NumericalError):
            model.learn_one(x, rows.label(t))
    seconds = time.perf_counter() - start
    is_positive = np.asarray(rows.labels == positive, dtype=bool)
    return _result(predicted, is_positive, seconds, "dict", labels=labels)


__getattr__ = deprecated_aliases(
    __name__, {"ReplayResult": "imbalance_stream.evaluate:ArrayReplayResult"}
)
