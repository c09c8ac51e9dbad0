"""Replay a whole labelled array through a model, test-then-train, in one jitted loop.

:func:`replay_array` is the array fast path of the River protocol: for every row of ``X`` it predicts
with the current model, records the prediction, then learns the row, exactly as

>>> for x, y in stream:                                     # doctest: +SKIP
...     predictions.append(model.predict_one(x))
...     model.learn_one(x, y)

would with ``x = {name_j: X[t, j] for the nonzero j, in column order}``. For the models that have an
array path it runs the model's own step kernels over the model's own state arrays, so predictions and
final state are identical to the dict path (bit for bit: the same arithmetic in the same order), and
the model stays usable through ``learn_one`` / ``predict_one`` afterwards. Models without an array
path go through ``predict_one`` / ``learn_one`` (``method="auto"``, the default) or raise
(``method="array"``).

Input handling follows the dict path: zeros are absent features; NaN or infinite values raise
:class:`~imbalance_stream.base.InvalidFeature` naming the feature and row, and a third label raises
:class:`~imbalance_stream.base.UnknownLabel`, both before the model changes. An all-zero row is
predicted (score 0, so the positive label) and not learned, as ``learn_one({}, y)`` is a no-op.
Column ``j`` is the feature named ``feature_names[j]`` (default: the integer ``j``), so a model fed
dicts with the same names continues seamlessly.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse

from imbalance_stream._numba import stream as stream_kernels
from imbalance_stream.base import InvalidFeature, UnknownLabel

__all__ = ["ReplayResult", "has_array_path", "register_array_path", "replay_array"]

#: model class -> runner(model, indptr, indices, values, signs) -> int8 predictions (+1 / -1)
_ARRAY_PATHS: dict[type, Callable] = {}


def register_array_path(cls: type):
    """Decorator registering the array runner of ``cls`` (and its subclasses).

    The runner receives the model, a CSR stream whose columns are already the model's columns
    (the state has been grown to hold them), and the labels as +1.0 / -1.0. It must update the
    model's state arrays in place with the kernels ``learn_one`` uses and return the predictions.
    """

    def decorate(runner: Callable) -> Callable:
        _ARRAY_PATHS[cls] = runner
        return runner

    return decorate


def _runner_for(model) -> Callable | None:
    for cls in type(model).__mro__:
        if cls in _ARRAY_PATHS:
            return _ARRAY_PATHS[cls]
    return None


def has_array_path(model) -> bool:
    """Whether :func:`replay_array` can replay ``model`` in a jitted loop."""
    _register_builtin_paths()
    return _runner_for(model) is not None


@dataclasses.dataclass
class ReplayResult:
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
) -> ReplayResult:
    """Predict then learn every row of ``X`` in order; return the predictions.

    Parameters
    ----------
    model
        A River classifier. Models with an array path (see :func:`has_array_path`: ACOG full and
        diagonal, SACOG dense and sparse, and the seed-002 baselines Perceptron, ROMMA, PA, CPA,
        PAUM, COG and AROW) run in a jitted loop over their own state (for SACOG, whose sketch
        depends on when features arrive, the rows that bring a new feature take the dict path);
        any other goes through ``predict_one`` and ``learn_one``.
    X
        A dense array or a scipy sparse matrix, one row per sample.
    y
        The labels, one per row (any two labels, e.g. -1/+1 or the model's ``positive`` and another).
    feature_names
        Name of each column (default: the column number).
    method
        ``"auto"`` (the array path when the model has one, else the dict path), ``"array"`` (raise
        ``TypeError`` if the model has none) or ``"dict"`` (always the River protocol).
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
    >>> print(f"{result.weighted_sum():.3f}, {result.mistakes_positive} + {result.mistakes_negative} mistakes")
    0.809, 167 + 54 mistakes
    >>> model.predict_one(dict(enumerate(X[0])))  # the model goes on through the dict API
    True

    """
    if method not in ("auto", "array", "dict"):
        raise ValueError(f"method must be 'auto', 'array' or 'dict', got {method!r}")
    _register_builtin_paths()
    runner = None if method == "dict" else _runner_for(model)
    if runner is None and method == "array":
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
    _check_finite(csr, feature_names)

    if runner is None:
        positive = getattr(model, "positive", True) if positive is None else positive
        return _replay_dicts(model, csr, y, feature_names, positive)

    if positive is not None and positive != model.positive:
        raise ValueError(
            f"positive={positive!r} but the model's positive label is {model.positive!r}"
        )
    positive = model.positive
    is_positive = np.asarray(y == positive, dtype=bool)
    non_empty = np.diff(csr.indptr) > 0
    if model._features.intercept:
        non_empty[:] = True  # the constant feature makes every row learnable
    first_negative = _check_labels(model, y, is_positive, non_empty)

    start = time.perf_counter()
    signs = np.where(is_positive, 1.0, -1.0)
    if first_negative is not None:
        model._negative = first_negative
    if getattr(runner, "hybrid", False):
        predicted = runner(model, csr, y, feature_names, signs)
    else:
        indptr, indices, values = _map_columns(model, csr, feature_names, bool(non_empty.any()))
        predicted = runner(model, indptr, indices, values, signs)
    seconds = time.perf_counter() - start
    return _result(
        predicted > 0, is_positive, seconds, "array", positive=positive, negative=model.negative
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
    return ReplayResult(labels, is_positive, predicted_positive, seconds, path)


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


def _check_finite(csr, feature_names):
    bad = ~np.isfinite(csr.data)
    if bad.any():
        position = int(np.argmax(bad))
        row = int(np.searchsorted(csr.indptr, position, side="right") - 1)
        name = feature_names[int(csr.indices[position])]
        raise InvalidFeature(
            f"feature {name!r} has non-finite value {csr.data[position]!r} in row {row}"
        )


def _check_labels(model, y, is_positive, non_empty):
    """Validate the labels as ``learn_one`` would; return the negative label to adopt, if any."""
    negatives = y[~is_positive]
    # only an object array can hold None; scanning a bool or numeric one would be wasted time
    if negatives.dtype == object and any(label is None for label in negatives.tolist()):
        raise UnknownLabel("label is None; a binary model needs one of two labels")
    known = model._negative
    first = None
    if known is None and len(negatives):
        learned = ~is_positive & non_empty
        if learned.any():
            first = y[int(np.argmax(learned))]
            if isinstance(first, np.generic):  # the label learn_one would have stored
                first = first.item()
        known = first if first is not None else negatives[0]
    distinct = negatives if negatives.dtype == object else np.unique(negatives)
    for label in dict.fromkeys(distinct.tolist()):  # distinct, any mix of types
        if label != known:
            raise UnknownLabel(
                f"label {label!r} is neither the positive label {model.positive!r} nor the negative "
                f"label {known!r}; {type(model).__name__} is a binary classifier"
            )
    return first


def _map_columns(model, csr, feature_names, learns: bool):
    """Commit the stream's new feature names (in order of first appearance, as the dict path
    would), grow the state as ``learn_one`` would if any row is learned, and return the CSR arrays
    over the model's columns, intercept appended to each row."""
    space = model._features
    column_map, _, new_names = _new_columns(space, csr, feature_names)
    if new_names:
        space.commit(new_names)
    if learns and len(space) > getattr(model, "_state_size", 0):
        model._grow(len(space))
        model._state_size = len(space)
    return _with_intercept(space, csr, column_map[csr.indices])


def _new_columns(space, csr, feature_names):
    """Column of every feature of ``csr`` (names not in ``space`` get the columns the dict path
    would give them, in order of first appearance), the positions of those new columns' first
    appearance in the CSR data, and the new names in that order."""
    d = csr.shape[1]
    never = np.iinfo(np.int64).max
    first_position = np.full(d, never, dtype=np.int64)
    np.minimum.at(first_position, csr.indices, np.arange(csr.indices.shape[0], dtype=np.int64))
    present = np.flatnonzero(first_position < never)
    present = present[np.argsort(first_position[present], kind="stable")]
    column_map = np.full(d, -1, dtype=np.int64)
    new_names, new_columns = [], []
    for j in present.tolist():
        column = space.index.get(feature_names[j])
        if column is None:
            new_names.append(feature_names[j])
            new_columns.append(j)
        else:
            column_map[j] = column
    column_map[new_columns] = np.arange(len(space), len(space) + len(new_names))
    return column_map, first_position[new_columns], new_names


def _with_intercept(space, csr, indices):
    """CSR arrays over the model's columns, with the constant feature appended to every row
    when the space has an intercept (the dict path appends it last)."""
    values = csr.data.astype(np.float64, copy=False)
    indptr = csr.indptr.astype(np.int64)
    if space.intercept:
        n_rows = csr.shape[0]
        new_indptr = indptr + np.arange(n_rows + 1, dtype=np.int64)
        slots = new_indptr[1:] - 1
        keep = np.ones(new_indptr[-1], dtype=bool)
        keep[slots] = False
        new_indices = np.zeros(new_indptr[-1], dtype=np.int64)
        new_values = np.ones(new_indptr[-1], dtype=np.float64)
        new_indices[keep] = indices
        new_values[keep] = values
        return new_indptr, new_indices, new_values
    return indptr, np.ascontiguousarray(indices), np.ascontiguousarray(values)


def _replay_dicts(model, csr, y, feature_names, positive):
    """The River protocol, row by row: the fallback and the reference of the array path."""
    predicted = np.zeros(csr.shape[0], dtype=bool)
    labels = np.empty(csr.shape[0], dtype=object)
    names = list(feature_names)
    start = time.perf_counter()
    indptr, indices, data = csr.indptr, csr.indices, csr.data
    for t in range(csr.shape[0]):
        a, b = indptr[t], indptr[t + 1]
        x = {names[j]: float(v) for j, v in zip(indices[a:b].tolist(), data[a:b].tolist())}
        labels[t] = model.predict_one(x)
        predicted[t] = labels[t] == positive
        model.learn_one(x, y[t].item() if isinstance(y[t], np.generic) else y[t])
    seconds = time.perf_counter() - start
    is_positive = np.asarray(y == positive, dtype=bool)
    return _result(predicted, is_positive, seconds, "dict", labels=labels)


# ---- the package's array paths -----------------------------------------------------------------

_registered = False


def _register_builtin_paths():
    """Register the runners of the package's estimators (imported lazily, on first use)."""
    global _registered
    if _registered:
        return
    _registered = True
    from imbalance_stream.linear_model.acog import ACOG

    no_covariance, no_variance = np.zeros((0, 0)), np.zeros(0)

    @register_array_path(ACOG)
    def _replay_acog(model, indptr, indices, values, signs):
        predictions = stream_kernels.empty_predictions(len(signs))
        counts = np.array([model._n_positive, model._n_negative], dtype=np.int64)
        laplace = model.rho is None
        rho = 1.0 if laplace else float(model.rho)
        loss_one = model.loss == "I"
        full = model.covariance == "full"
        n_updates = stream_kernels.replay_acog(
            indptr, indices, values, signs, model._mean, full,
            model._cov if full else no_covariance, no_variance if full else model._cov,
            len(model._features), loss_one, rho, laplace, counts, float(model.eta),
            float(model.gamma), predictions,
        )  # fmt: skip
        model._n_positive, model._n_negative = int(counts[0]), int(counts[1])
        model.n_updates += int(n_updates)
        return predictions

    try:
        from imbalance_stream.linear_model import AROW, COG, CPA, PA, PAUM, ROMMA, Perceptron
    except ImportError:  # pragma: no cover - the baselines are part of the package
        return
    kinds = {Perceptron: stream_kernels.PERCEPTRON, PAUM: stream_kernels.PAUM,
             PA: stream_kernels.PA, CPA: stream_kernels.CPA, ROMMA: stream_kernels.ROMMA}  # fmt: skip

    def _replay_baseline(model, indptr, indices, values, signs):
        predictions = stream_kernels.empty_predictions(len(signs))
        if isinstance(model, AROW):
            kind, weights, cov = stream_kernels.AROW, model._mean, model._cov
        else:
            weights, cov = model._weights, no_covariance
            if isinstance(model, COG):
                kind = stream_kernels.COG_I if model.loss == "I" else stream_kernels.COG_II
            elif isinstance(model, CPA) and model.rule == "max-loss":
                kind = stream_kernels.CPAML
            else:
                kind = kinds[type(model)]
        rho = getattr(model, "rho", 1.0)
        laplace = rho is None
        counts = np.array(
            [getattr(model, "_n_positive", 0), getattr(model, "_n_negative", 0)], dtype=np.int64
        )
        n_updates = stream_kernels.replay_baseline(
            kind, indptr, indices, values, signs, weights, cov, len(model._features),
            1.0 if laplace else float(rho), laplace, counts, float(getattr(model, "eta", 1.0)),
            float(getattr(model, "C", math.inf)), float(getattr(model, "tau_negative", 1.0)),
            float(getattr(model, "r", 1.0)), predictions,
        )  # fmt: skip
        if hasattr(model, "_n_positive"):
            model._n_positive, model._n_negative = int(counts[0]), int(counts[1])
        model.n_updates += int(n_updates)
        return predictions

    for cls in (Perceptron, PAUM, COG, PA, CPA, ROMMA, AROW):
        register_array_path(cls)(_replay_baseline)

    from imbalance_stream.linear_model.sacog import REBASE_THRESHOLD, SACOG

    @register_array_path(SACOG)
    def _replay_sacog(model, csr, y, feature_names, signs):
        """SACOG's state depends on when each feature arrives (its sketch is drawn, and spare
        columns handed out, as features appear), so the rows that bring a new feature (and the
        first learned row) go through ``predict_one`` / ``learn_one``; the runs of rows between
        them go through the jitted kernels."""
        space = model._features
        n_rows = csr.shape[0]
        names = list(feature_names)
        column_map, new_positions, _ = _new_columns(space, csr, feature_names)
        indptr, indices, values = _with_intercept(space, csr, column_map[csr.indices])
        special = set((np.searchsorted(csr.indptr, new_positions, side="right") - 1).tolist())
        if not model._state_size:
            learned = np.flatnonzero(np.diff(indptr) > 0)
            if len(learned):
                special.add(int(learned[0]))
        special = sorted(special)
        predictions = stream_kernels.empty_predictions(n_rows)
        labels = y.tolist()
        boundaries = [*special, n_rows]
        previous = 0
        for stop in boundaries:
            if stop > previous:  # jitted run over rows previous .. stop-1
                counts = np.array([model._n_positive, model._n_negative], dtype=np.int64)
                laplace = model.rho is None
                n_updates = stream_kernels.replay_sacog(
                    np.arange(previous, stop, dtype=np.int64), indptr, indices, values, signs,
                    bool(model.sparse), model._mean, model._offsets, model._basis,
                    model._transform, model._gram, model._eigen, model._rounds,
                    model._n_columns, model.loss == "I", 1.0 if laplace else float(model.rho),
                    laplace, counts, float(model.eta), float(model.gamma),
                    float(model.oja_step), bool(model.sketch_on_loss_only), REBASE_THRESHOLD,
                    predictions,
                )  # fmt: skip
                model._n_positive, model._n_negative = int(counts[0]), int(counts[1])
                model.n_updates += int(n_updates)
            if stop < n_rows:  # a row with a new feature: the dict path, exactly
                a, b = csr.indptr[stop], csr.indptr[stop + 1]
                x = {
                    names[j]: float(v)
                    for j, v in zip(csr.indices[a:b].tolist(), csr.data[a:b].tolist())
                }  # fmt: skip
                predictions[stop] = 1 if model.predict_one(x) == model.positive else -1
                model.learn_one(x, labels[stop])
            previous = stop + 1
        return predictions

    _replay_sacog.hybrid = True
