"""Baseline variants that test the stated causes of the KOIL page's remaining gaps.

The thesis names its baselines without their variants. Two readings other than the package's are
tested here, as plain-numpy learners with River's ``learn_one`` / ``decision_one`` (reproduction
code only, not part of the package):

* :class:`PerClassRBP`: the randomised budget perceptron with "a buffer of 100 for each class"
  (Section 3.5) read literally, one buffer per class, a full buffer evicting one of its own class
  uniformly at random; the package's :class:`~imbalance_stream.kernel.RBP` keeps one buffer
  (D-KOIL-21).
* :class:`FixedMarginNORMA`: NORMA for classification with a fixed margin (Kivinen, Smola and
  Williamson 2004, the hinge loss ``max(0, rho - y f(x))`` with rho constant), optionally with an
  offset ``b`` learnt at the same rate; the package's :class:`~imbalance_stream.kernel.NORMA` is
  the nu-version, whose margin adapts.

Both use the Gaussian kernel ``exp(-gamma |x - x'|^2)`` on the sparse dict rows of the protocol.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FixedMarginNORMA", "PerClassRBP"]


class _Store:
    """Stored rows as a growing matrix (capacity doubling), the Gaussian kernel against them."""

    def __init__(self, gamma: float):
        self.gamma = gamma
        self.rows = np.zeros((8, 1))
        self.size = 0

    def widen(self, width: int) -> None:
        if width > self.rows.shape[1]:
            self.rows = np.pad(self.rows, ((0, 0), (0, width - self.rows.shape[1])))

    def vector(self, x: dict, width: int = 0) -> np.ndarray:
        """The dict row as a dense vector of at least ``width`` entries, widening the store if
        it names a new feature."""
        self.widen(max(width, max(x) + 1 if x else 0))
        v = np.zeros(self.rows.shape[1])
        for j, value in x.items():
            v[j] = value
        return v

    def add(self, v: np.ndarray) -> None:
        if self.size == len(self.rows):
            self.rows = np.vstack([self.rows, np.zeros_like(self.rows)])
        self.rows[self.size] = v
        self.size += 1

    def remove(self, i: int) -> None:
        self.rows[i] = self.rows[self.size - 1]
        self.size -= 1

    def kernel(self, v: np.ndarray) -> np.ndarray:
        """k(s, v) for every stored row ``s``."""
        stored = self.rows[: self.size]
        return np.exp(-self.gamma * ((stored - v) ** 2).sum(axis=1))


class PerClassRBP:
    """Kernel perceptron with two buffers of ``budget`` vectors, one per class: on a mistake
    (``y f(x) <= 0``) the sample is stored with coefficient ``y``; when its class's buffer is
    full, one of that class's vectors, chosen uniformly at random, is removed first."""

    def __init__(self, budget: int = 100, gamma: float = 1.0, seed: int | None = None):
        self.budget = budget
        self.gamma = gamma
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self._stores = {True: _Store(gamma), False: _Store(gamma)}

    def _vector(self, x: dict) -> np.ndarray:
        width = max(store.rows.shape[1] for store in self._stores.values())
        width = max(width, max(x) + 1 if x else 0)
        for store in self._stores.values():
            store.widen(width)
        return self._stores[True].vector(x)

    def _score(self, v: np.ndarray) -> float:
        positive, negative = self._stores[True], self._stores[False]
        return float(positive.kernel(v).sum() - negative.kernel(v).sum())

    def decision_one(self, x: dict) -> float:
        return self._score(self._vector(x))

    def learn_one(self, x: dict, y: bool) -> None:
        v = self._vector(x)
        sign = 1.0 if y else -1.0
        if sign * self._score(v) > 0.0:
            return
        store = self._stores[bool(y)]
        if store.size >= self.budget:
            store.remove(int(self._rng.integers(store.size)))
        store.add(v)


class FixedMarginNORMA:
    """NORMA with a fixed margin: every sample shrinks the expansion by ``(1 - eta lam)``; when
    ``y f(x) < margin`` the sample joins it with coefficient ``eta y`` (and, with ``offset``, the
    offset moves by ``eta y``). Unbounded, as the thesis runs NORMA."""

    def __init__(
        self,
        eta: float = 0.01,
        lam: float = 0.01,
        margin: float = 1.0,
        gamma: float = 1.0,
        offset: bool = False,
    ):
        self.eta, self.lam, self.margin, self.offset = eta, lam, margin, offset
        self.gamma = gamma
        self._store = _Store(gamma)
        self._coef = np.zeros(8)
        self._scale = 1.0  # the common shrink factor of every stored coefficient
        self.b = 0.0

    def _score(self, v: np.ndarray) -> float:
        n = self._store.size
        if not n:
            return self.b
        return self._scale * float(self._coef[:n] @ self._store.kernel(v)) + self.b

    def decision_one(self, x: dict) -> float:
        return self._score(self._store.vector(x))

    def learn_one(self, x: dict, y: bool) -> None:
        v = self._store.vector(x)
        sign = 1.0 if y else -1.0
        score = self._score(v)
        self._scale *= 1.0 - self.eta * self.lam
        if self._scale < 1e-100:  # fold the shrink into the coefficients before it underflows
            self._coef *= self._scale
            self._scale = 1.0
        if sign * score < self.margin:
            n = self._store.size
            if n == len(self._coef):
                self._coef = np.concatenate([self._coef, np.zeros_like(self._coef)])
            self._coef[n] = self.eta * sign / self._scale
            self._store.add(v)
            if self.offset:
                self.b += self.eta * sign
