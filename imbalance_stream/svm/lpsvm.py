"""Batch linear proximal SVMs in closed form: LPSVM and class-weighted wLPSVM (seed 001, §2.2-2.3).

These are the references the incremental models are measured against: an incremental model that
has learned (and retired) samples must equal the batch solution on the samples it currently holds.
They work on whole arrays, not streams.

Conventions are the thesis's: ``E = [X, -e]`` (the bias column is **-1**), the solution is
``O = [w; b]`` and the decision value is ``f(x) = x'w - b = [x', -1] O``. The ridge ``I/C``
regularises ``b`` too.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from imbalance_stream.base.validation import check_real

__all__ = ["LPSVM", "WeightedLPSVM", "class_weights", "lpsvm_solution", "wlpsvm_solution"]


def _expanded(X) -> np.ndarray:
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got shape {X.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    return np.hstack([X, -np.ones((X.shape[0], 1))])


def _signs(y, n: int) -> np.ndarray:
    y = np.asarray(y, dtype=np.float64).ravel()
    if y.shape[0] != n:
        raise ValueError(f"y has {y.shape[0]} entries for {n} samples")
    if not np.all((y == 1.0) | (y == -1.0)):
        raise ValueError("y must hold +1 (positive) and -1 (negative) only")
    return y


def class_weights(n_positive: int, n_negative: int, kappa: float = 1.0) -> tuple[float, float]:
    """Weights (2.27) scaled by ``kappa``: ``sigma+ = kappa l-/(l+ + l-)``, ``sigma- = kappa l+/(l+
    + l-)``.

    The minority class gets the larger weight; with ``kappa = 1`` they sum to 1 (the printed
    equations), with ``kappa = 2`` both are 1 on balanced data (the thesis's §5.4 reading; see
    D-DCIL-1). With no samples at all both are 0.

    >>> class_weights(20, 80)
    (0.8, 0.2)
    >>> class_weights(30, 30, kappa=2.0)
    (1.0, 1.0)

    """
    total = n_positive + n_negative
    if total == 0:
        return 0.0, 0.0
    return kappa * n_negative / total, kappa * n_positive / total


def lpsvm_solution(X, y, C: float = 1.0) -> np.ndarray:
    """Batch LPSVM (Algorithm 1): ``O = (I/C + E'E)^{-1} E'De``, returned as ``[w; b]``.

    ``y`` holds +1 and -1.
    """
    E = _expanded(X)
    y = _signs(y, E.shape[0])
    A = np.eye(E.shape[1]) / C + E.T @ E
    return scipy.linalg.solve(A, E.T @ y, assume_a="pos")


def wlpsvm_solution(X, y, C: float = 1.0, kappa: float = 1.0) -> np.ndarray:
    """Batch weighted LPSVM (Algorithm 2, 2.28): ``O = (I/C + E'NE)^{-1} E'DNe`` as ``[w; b]``.

    ``N`` is diagonal with ``sigma+`` on the positive rows and ``sigma-`` on the negative rows,
    from :func:`class_weights`. The formula is evaluated as printed (with the n x n weights as a
    vector), not through the per-class statistics, so that it is an independent reference for the
    incremental models. If one class is absent the present class has weight 0 and ``O = 0``.
    """
    E = _expanded(X)
    y = _signs(y, E.shape[0])
    sigma_pos, sigma_neg = class_weights(int(np.sum(y > 0)), int(np.sum(y < 0)), kappa)
    n_diag = np.where(y > 0, sigma_pos, sigma_neg)
    A = np.eye(E.shape[1]) / C + E.T @ (E * n_diag[:, None])
    return scipy.linalg.solve(A, E.T @ (y * n_diag), assume_a="pos")


class LPSVM:
    """Batch linear proximal SVM (Fung & Mangasarian 2001), closed form.

    Parameters
    ----------
    C
        Trade-off between the squared training error and the ridge ``(w'w + b^2)/2``.
    positive
        The label written +1; every other label is -1.

    Attributes
    ----------
    solution_
        ``O = [w; b]`` after :meth:`fit`; the decision value is ``x'w - b``.

    Examples
    --------

    On German credit (30% positive), the unweighted plane favours the majority class:

    >>> from imbalance_stream.datasets import German
    >>> X, y, _ = German().to_numpy()
    >>> X = (X - X.mean(axis=0)) / X.std(axis=0)
    >>> model = LPSVM(C=1.0, positive=True).fit(X, y)
    >>> predicted = model.predict(X)
    >>> round(float(np.mean(predicted[y])), 3), round(float(np.mean(~predicted[~y])), 3)
    (0.497, 0.907)

    """

    def __init__(self, C: float = 1.0, positive=1):
        check_real("C", C, low=0.0, low_open=True)
        self.C = C
        self.positive = positive

    def _solve(self, X, signs):
        return lpsvm_solution(X, signs, self.C)

    def fit(self, X, y):
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        signs = np.where(y == self.positive, 1.0, -1.0)
        self.solution_ = self._solve(X, signs)
        return self

    @property
    def coef_(self) -> np.ndarray:
        return self.solution_[:-1]

    @property
    def bias_(self) -> float:
        return float(self.solution_[-1])

    def decision_function(self, X) -> np.ndarray:
        return _expanded(X) @ self.solution_

    def predict(self, X) -> np.ndarray:
        """The positive label where the decision value is > 0, else the other label seen."""
        others = [c for c in self.classes_ if c != self.positive]
        negative = others[0] if others else (not self.positive)
        return np.where(self.decision_function(X) > 0, self.positive, negative)


class WeightedLPSVM(LPSVM):
    """Batch class-weighted LPSVM (wLPSVM), closed form with the count weights (2.27).

    Parameters
    ----------
    C
        Trade-off between the weighted squared training error and the ridge.
    kappa
        Scale of the class weights (D-DCIL-1): 1 follows the printed equations, 2 makes both
        weights 1 on balanced data. Equivalent to using ``kappa * C``.
    positive
        The label written +1.

    Examples
    --------

    On German credit (30% positive) the weights (2.27) favour the minority, and trade
    specificity for sensitivity (:class:`LPSVM` gets 0.497 and 0.907):

    >>> from imbalance_stream.datasets import German
    >>> X, y, _ = German().to_numpy()
    >>> class_weights(int(np.sum(y)), int(np.sum(~y)))
    (0.7, 0.3)
    >>> X = (X - X.mean(axis=0)) / X.std(axis=0)
    >>> predicted = WeightedLPSVM(C=1.0, positive=True).fit(X, y).predict(X)
    >>> round(float(np.mean(predicted[y])), 3), round(float(np.mean(~predicted[~y])), 3)
    (0.77, 0.723)

    """

    def __init__(self, C: float = 1.0, kappa: float = 1.0, positive=1):
        super().__init__(C=C, positive=positive)
        check_real("kappa", kappa, low=0.0, low_open=True)
        self.kappa = kappa

    def _solve(self, X, signs):
        return wlpsvm_solution(X, signs, self.C, self.kappa)
