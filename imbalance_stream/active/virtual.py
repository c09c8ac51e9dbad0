"""VIRTUAL: active selection with virtual positive examples (Ertekin 2009, chapter 5)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from imbalance_stream.base.validation import check_int

from .small_pool import SaturationStop, SelectionRun, SmallPoolSelection

__all__ = ["Virtual"]


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

    def run(
        self,
        model,
        X: Sequence[dict],
        y: Sequence,
        max_steps: int | None = None,
        stop: SaturationStop | None = None,
        callback: Callable[[int, object], None] | None = None,
    ) -> SelectionRun:
        """As :meth:`SmallPoolSelection.run`; ``model`` must report ``last_alpha_`` (LASVM)."""
        if not hasattr(model, "last_alpha_"):
            raise TypeError(
                f"VIRTUAL needs to know whether an example became a support vector; "
                f"{type(model).__name__} has no last_alpha_ (use imbalance_stream.svm.LASVM)"
            )
        self._n_real = len(X)
        self._positives: tuple[list, np.ndarray, list[int]] | None = None
        return super().run(model, X, y, max_steps=max_steps, stop=stop, callback=callback)

    def _after_learning(self, model, index, X, y, remaining, rng, result) -> None:
        if index >= self._n_real or y[index] != model.positive or model.last_alpha_ == 0.0:
            return
        names, matrix, rows = self._real_positives(X, y, model.positive)
        own = rows.index(index)
        distances = ((matrix - matrix[own]) ** 2).sum(axis=1)
        distances[own] = np.inf
        n_near = min(self.k, len(rows) - 1)
        if n_near < 1:
            return
        nearest = np.argpartition(distances, n_near - 1)[:n_near]
        for _ in range(self.v):
            lam = float(rng.random())
            partner = int(rng.choice(nearest))
            mixed = lam * matrix[own] + (1.0 - lam) * matrix[partner]
            virtual = {name: float(value) for name, value in zip(names, mixed) if value != 0.0}
            X.append(virtual)
            y.append(y[index])
            remaining.append(len(X) - 1)
            result.virtual.append(virtual)
            result.virtual_origin.append((index, rows[partner], lam))

    def _real_positives(self, X, y, positive):
        """The real positives as a dense matrix over their features (built once per run)."""
        if self._positives is None:
            rows = [i for i in range(self._n_real) if y[i] == positive]
            names = sorted({name for i in rows for name in X[i]}, key=repr)
            column = {name: j for j, name in enumerate(names)}
            matrix = np.zeros((len(rows), len(names)))
            for r, i in enumerate(rows):
                for name, value in X[i].items():
                    matrix[r, column[name]] = value
            self._positives = (names, matrix, rows)
        return self._positives
