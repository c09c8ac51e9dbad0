"""VIRTUAL: active selection with virtual positive examples (Ertekin 2009, chapter 5)."""

from __future__ import annotations

import collections
import math

import numpy as np

from imbalance_stream.base.validation import check_int

from .small_pool import SmallPoolSelection

__all__ = ["Positives", "Virtual", "interpolate"]


def interpolate(a: dict, b: dict, lam: float) -> dict:
    """The virtual example ``lam a + (1 - lam) b``, over the features of ``a`` and ``b`` only.

    A feature neither holds would be ``0`` in the mix, so nothing wider is built. The names come
    in ``repr`` order and zeros are left out.

    >>> interpolate({"x": 1.0, "y": 2.0}, {"x": 3.0, "z": 4.0}, 0.25)
    {'x': 2.5, 'y': 0.5, 'z': 3.0}

    """
    names = sorted(a.keys() | b.keys(), key=repr)
    pair = np.array([[a.get(name, 0.0) for name in names], [b.get(name, 0.0) for name in names]])
    mixed = lam * pair[0] + (1.0 - lam) * pair[1]
    return {name: float(value) for name, value in zip(names, mixed) if value != 0.0}


class Positives:
    """The real positives of VIRTUAL's neighbour search, kept as the dicts they came as.

    :meth:`squared_distances` finds the squared Euclidean distances from one of them, ``x_s``,
    to all the others without a dense matrix over every feature they hold, which one sample with
    many features of its own would make as wide as itself for every later search. The distance
    to ``x`` splits over the features:

    * those of ``x_s`` that another kept positive holds too: a dense block, one row per kept
      positive and one column per such feature (in ``repr`` order), ``((B - B[s]) ** 2).sum(1)``;
    * those of ``x_s`` that no other positive holds: the same ``sum x_s[f] ** 2`` for every row;
    * those of ``x`` that ``x_s`` lacks: ``sum x[f] ** 2``, zero when ``x``'s names are among
      ``x_s``'s; read from ``x`` when ``x`` is not wider than ``x_s``, and otherwise as ``x``'s
      squared norm (summed once, when ``x`` was kept) less its part on ``x_s``'s features, so
      that a wide positive costs only ``len(x_s)`` in later searches.

    The work of a search is then about ``len(self) * len(x_s)``, whatever the features the kept
    positives hold between them. When every positive holds the same features (dense data) the
    block is the dense matrix of all of them and the other two terms are zero, so the distances
    are those of the dense matrix to the last bit. The block is kept until a positive is added,
    since the next ``x_s`` with the same shared features (on dense data, every one) reuses it.

    Parameters
    ----------
    maxlen
        Positives kept: adding one more drops the oldest (None: no limit).

    """

    def __init__(self, maxlen: int | None = None):
        self.maxlen = maxlen
        self._rows: collections.deque[dict] = collections.deque()
        self._norms: collections.deque[float] = collections.deque()
        self._counts: dict = {}  # feature name -> kept positives holding it
        self._block: tuple[list, np.ndarray] | None = None

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, i: int) -> dict:
        return self._rows[i]

    def append(self, x: dict) -> None:
        """Keep ``x`` (dropping the oldest positive when ``maxlen`` are kept)."""
        if self.maxlen is not None and len(self._rows) == self.maxlen:
            self._norms.popleft()
            for name in self._rows.popleft():
                self._counts[name] -= 1
                if not self._counts[name]:
                    del self._counts[name]
        self._rows.append(x)
        self._norms.append(math.fsum(float(value) ** 2 for value in x.values()))
        for name in x:
            self._counts[name] = self._counts.get(name, 0) + 1
        self._block = None

    def squared_distances(self, s: int) -> np.ndarray:
        """The squared Euclidean distances from the ``s``-th kept positive to each one, in the
        order kept (its own: ``inf``)."""
        own = self._rows[s]
        shared = sorted((name for name in own if self._counts[name] > 1), key=repr)
        block = self._dense(shared)
        distances = ((block - block[s]) ** 2).sum(axis=1)
        alone = math.fsum(float(own[name]) ** 2 for name in own if self._counts[name] == 1)
        outside = np.array([self._outside(r, own) for r in range(len(self._rows))])
        distances += alone + outside  # zeros on dense data: the block's sums are kept exactly
        distances[s] = np.inf
        return distances

    def _dense(self, names: list) -> np.ndarray:
        """The kept positives' values on ``names``, one row each (zeros where one lacks a name)."""
        if self._block is None or self._block[0] != names:
            rows = [[row.get(name, 0.0) for name in names] for row in self._rows]
            self._block = (names, np.array(rows, float).reshape(len(rows), len(names)))
        return self._block[1]

    def _outside(self, r: int, own: dict) -> float:
        """``sum x[f] ** 2`` over the features of the ``r``-th positive ``x`` that ``own`` lacks."""
        row = self._rows[r]
        if len(row) <= len(own):
            if row.keys() <= own.keys():
                return 0.0
            return math.fsum(float(v) ** 2 for name, v in row.items() if name not in own)
        inside = math.fsum(float(row[name]) ** 2 for name in own if name in row)
        return max(self._norms[r] - inside, 0.0)


class Virtual(SmallPoolSelection):
    """VIRTUAL (Algorithm 5.1): ACTIVE selection from a small pool that oversamples the rare class
    where it matters, around the real positive examples that become support vectors.

    Each step draws ``pool`` (59) examples not yet learned and learns the one closest to the
    boundary (smallest ``|f(x)|``), as :class:`SmallPoolSelection` with ``"active"`` does. When
    the learned example is a *real* positive and becomes a support vector (its coefficient is
    nonzero after PROCESS and REPROCESS, ``LASVM.last_alpha_``), ``v`` virtual positives
    ``lambda x_s + (1 - lambda) x_nn`` join the pool, each with a fresh ``lambda ~ U(0, 1)`` and
    ``x_nn`` drawn among the ``k`` nearest real positives of ``x_s`` (Euclidean, which for the
    RBF kernel is the kernel space's order; never ``x_s`` itself nor a virtual example, so
    virtual examples make no further ones). The learner then selects them like any other. The
    run's ``virtual`` lists what was made (D-LASVM-20).

    Samples are dicts, often sparse (text, one-hot codes), so nothing is built over every feature
    the positives hold: the neighbour search works on the features of ``x_s`` and adds what each
    other positive holds beyond them (:class:`Positives`), and a virtual example is computed
    over the features of ``x_s`` and ``x_nn`` alone (:func:`interpolate`; a feature neither holds
    stays absent). One positive with many features of its own therefore costs its own width, not
    a matrix that wide in every later step. On dense data the results are those of the dense
    matrix to the last bit.

    Parameters
    ----------
    pool
        Draws per step (59 in chapter 5).
    k
        Nearest real positives to interpolate with (5, as SMOTE).
    v
        Virtual examples per new positive support vector (1).
    n_seed
        Examples of each class learned first, in data order (D-LASVM-18).
    seed
        Seed of the draws and of the interpolation.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.active import SaturationStop, Virtual
    >>> from imbalance_stream.svm import LASVM

    >>> data = list(datasets.Bananas())[:1500]
    >>> rare = [(x, y) for x, y in data if y][:60] + [(x, y) for x, y in data if not y]
    >>> model = LASVM(C=10.0, gamma=1.0)
    >>> run = Virtual(seed=0).run(model, [x for x, _ in rare], [y for _, y in rare],
    ...                           stop=SaturationStop())
    >>> len(run.virtual) > 0
    True

    """

    def __init__(
        self, pool: int = 59, k: int = 5, v: int = 1, n_seed: int = 5, seed: int | None = None
    ):
        check_int("k", k, low=1)
        check_int("v", v, low=1)
        super().__init__("active", pool=pool, n_seed=n_seed, seed=seed)
        self.k = k
        self.v = v

    def _start_run(self, model, X) -> None:
        """``model`` must report ``last_alpha_`` (LASVM); the examples given are the real ones."""
        if not hasattr(model, "last_alpha_"):
            raise TypeError(
                f"VIRTUAL needs to know whether an example became a support vector; "
                f"{type(model).__name__} has no last_alpha_ (use imbalance_stream.svm.LASVM)"
            )
        self._n_real = len(X)
        self._positives: tuple[Positives, list[int]] | None = None

    def _after_learning(self, model, index, X, y, remaining, rng, result) -> None:
        if index >= self._n_real or y[index] != model.positive or model.last_alpha_ == 0.0:
            return
        positives, rows = self._real_positives(X, y, model.positive)
        own = rows.index(index)
        distances = positives.squared_distances(own)
        n_near = min(self.k, len(rows) - 1)
        if n_near < 1:
            return
        nearest = np.argpartition(distances, n_near - 1)[:n_near]
        for _ in range(self.v):
            lam = float(rng.random())
            partner = int(rng.choice(nearest))
            virtual = interpolate(X[index], positives[partner], lam)
            X.append(virtual)
            y.append(y[index])
            remaining.append(len(X) - 1)
            result.virtual.append(virtual)
            result.virtual_origin.append((index, rows[partner], lam))

    def _real_positives(self, X, y, positive) -> tuple[Positives, list[int]]:
        """The real positives and their indices in ``X`` (gathered once per run)."""
        if self._positives is None:
            rows = [i for i in range(self._n_real) if y[i] == positive]
            positives = Positives()
            for i in rows:
                positives.append(X[i])
            self._positives = (positives, rows)
        return self._positives
