"""Small-pool example selection for LASVM (Ertekin 2009, sections 3.3 and 4.2)."""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from imbalance_stream.base.validation import check_choice, check_int, check_real, check_seed

__all__ = ["SaturationStop", "SelectionRun", "SmallPoolSelection"]

STRATEGIES = ("random", "gradient", "active", "autoactive")


class SaturationStop:
    """Stop when the number of support vectors stabilises (section 4.2.3, D-LASVM-19, D-LASVM-48).

    Section 4.2.3 stops "if the number of the support vectors stabilizes" without a number.
    Here: after each selection, with ``n(t)`` the support vectors after ``t`` selections, stop at
    the first ``t >= window`` where the count stayed inside a band over the last ``window``
    selections: ``max n - min n < tolerance * n(t)`` over ``n(t - window), ..., n(t)`` (less than
    1% by default). A count that is still falling (REPROCESS evicting support vectors while the
    model moves) is not stable, so it does not stop the learning (D-LASVM-48).

    A flat count means no unlearned example is left inside the margin, the thesis's sign that
    the margin is exhausted; it does not see examples misclassified beyond the margin
    (``|f| > 1``), which ACTIVE picks only once the closer ones run out. On data where many such
    examples remain, the stop can fire on a plateau before the rare class is learned.

    >>> stop = SaturationStop(window=3, tolerance=0.1)
    >>> [stop.update(n) for n in [1, 2, 3, 4, 10, 10, 10, 10]]
    [False, False, False, False, False, False, False, True]
    >>> stop = SaturationStop(window=2, tolerance=0.1)
    >>> [stop.update(n) for n in [10, 20, 30, 25, 20, 20, 20]]
    [False, False, False, False, False, False, True]

    """

    def __init__(self, window: int = 100, tolerance: float = 0.01):
        check_int("window", window, low=1)
        check_real("tolerance", tolerance, low=0.0)
        self.window = window
        self.tolerance = tolerance
        self._recent: collections.deque[int] = collections.deque(maxlen=window + 1)

    def update(self, n_support: int) -> bool:
        """Record ``n(t)``; whether the count has stabilised over the last ``window``
        selections."""
        self._recent.append(int(n_support))
        if len(self._recent) <= self.window:
            return False
        return max(self._recent) - min(self._recent) < self.tolerance * self._recent[-1]


@dataclass
class SelectionRun:
    """What :meth:`SmallPoolSelection.run` did: the dataset indices learned, in order (the seeds
    first), the support vectors after each selection, the selection at which the stopping rule
    fired (None if it never did), and the virtual examples VIRTUAL made (index ``n + i`` is
    ``virtual[i]``, ``n`` the dataset's size) with their origin ``(s, nn, lambda)``:
    ``virtual[i] = lambda X[s] + (1 - lambda) X[nn]``."""

    selected: list[int] = field(default_factory=list)
    n_support: list[int] = field(default_factory=list)
    stopped_at: int | None = None
    virtual: list[dict] = field(default_factory=list)
    virtual_origin: list[tuple[int, int, float]] = field(default_factory=list)


class SmallPoolSelection:
    """Choose which example of a stored dataset LASVM learns next, from a small random pool.

    Section 3.3.2: drawing ``pool`` random examples and taking the best by a criterion finds, with
    probability ``1 - eta^pool``, one in the best ``1 - eta`` quantile of the whole set, whatever
    its size (``pool = 59`` gives 95% for the top 5%: the "59 trick" of section 4.2.1, eq. 4.2).
    Each step draws the pool among the examples not yet learned, learns the chosen one
    (``learn_one``: PROCESS and one REPROCESS) and leaves the others in the pool (D-LASVM-18).

    Strategies (section 3.3.4):

    * ``"random"``: one random example (plain LASVM);
    * ``"gradient"``: of ``pool`` draws, the smallest ``y f(x)`` (eq. 3.3; uses the labels of the
      whole pool);
    * ``"active"``: of ``pool`` draws, the smallest ``|f(x)|`` (eq. 3.4; uses only the label of the
      chosen one);
    * ``"autoactive"``: draw until ``in_margin`` draws have ``|f(x)| < 1 + delta/2`` or
      ``max_draws`` have been drawn, then the smallest ``|f(x)|``.

    Parameters
    ----------
    strategy
        One of the above.
    pool
        Draws per step (50 in chapter 3, 59 in chapters 4-5).
    in_margin, max_draws
        AUTOACTIVE's stopping counts (5 and 100 in section 3.3.4).
    n_seed
        Examples of each class learned first, in data order, before any selection (the
        reference code's 5; section 3.2.1 "a few examples of each class").
    seed
        Seed of the draws.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.active import SaturationStop, SmallPoolSelection
    >>> from imbalance_stream.svm import LASVM

    >>> data = list(datasets.Bananas())
    >>> X, y = [x for x, _ in data[:2000]], [label for _, label in data[:2000]]
    >>> model = LASVM(C=10.0, gamma=1.0)
    >>> run = SmallPoolSelection("active", pool=59, seed=1).run(
    ...     model, X, y, stop=SaturationStop(window=100))
    >>> run.stopped_at < 2000, model.n_support_ == run.n_support[-1]
    (True, True)

    """

    def __init__(
        self,
        strategy: str = "active",
        pool: int = 50,
        in_margin: int = 5,
        max_draws: int = 100,
        n_seed: int = 5,
        seed: int | None = None,
    ):
        check_choice("strategy", strategy, STRATEGIES)
        check_int("pool", pool, low=1)
        check_int("in_margin", in_margin, low=1)
        check_int("max_draws", max_draws, low=1)
        check_int("n_seed", n_seed, low=0)
        check_seed(seed)
        self.strategy = strategy
        self.pool = pool
        self.in_margin = in_margin
        self.max_draws = max_draws
        self.n_seed = n_seed
        self.seed = seed

    def run(
        self,
        model,
        X: Sequence[dict],
        y: Sequence,
        max_steps: int | None = None,
        stop: SaturationStop | None = None,
        callback: Callable[[int, object], None] | None = None,
    ) -> SelectionRun:
        """Learn ``model`` from ``(X, y)`` one selected example at a time until the examples
        run out, ``max_steps`` selections were made, or ``stop`` fires. ``callback(t, model)``
        is called after each selection (to record a learning curve)."""
        self._start_run(model, X)
        check_int("max_steps", max_steps, low=0, optional=True)
        if len(X) != len(y):
            raise ValueError(f"X has {len(X)} samples but y has {len(y)} labels")
        rng = np.random.default_rng(self.seed)
        result = SelectionRun()
        X, y = list(X), list(y)  # VIRTUAL appends to them
        remaining = self._learn_seeds(model, X, y, result)
        while remaining and (max_steps is None or len(result.n_support) < max_steps):
            slot = self._choose(model, X, y, remaining, rng)
            index = remaining[slot]
            remaining[slot] = remaining[-1]  # the others stay in the pool
            remaining.pop()
            model.learn_one(X[index], y[index])
            result.selected.append(index)
            self._after_learning(model, index, X, y, remaining, rng, result)
            result.n_support.append(model.n_support_)
            if callback is not None:
                callback(len(result.n_support), model)
            if stop is not None and stop.update(model.n_support_):
                result.stopped_at = len(result.n_support)
                break
        return result

    def _start_run(self, model, X) -> None:
        """What precedes a run, before anything is checked or learned (VIRTUAL checks its model
        and notes the real examples here)."""

    def _after_learning(self, model, index, X, y, remaining, rng, result) -> None:
        """What follows the learning of a selected example (VIRTUAL adds examples here)."""

    def _learn_seeds(self, model, X, y, result: SelectionRun) -> list[int]:
        """Learn the first ``n_seed`` examples of each class; the indices left."""
        seen: dict = {}
        seeds = []
        for index, label in enumerate(y):
            if seen.get(label, 0) < self.n_seed:
                seen[label] = seen.get(label, 0) + 1
                seeds.append(index)
        for index in seeds:
            model.learn_one(X[index], y[index])
        result.selected.extend(seeds)
        chosen = set(seeds)
        return [index for index in range(len(y)) if index not in chosen]

    def _choose(self, model, X, y, remaining: list[int], rng) -> int:
        """The slot in ``remaining`` of the example to learn next."""
        if self.strategy == "random":
            return int(rng.integers(len(remaining)))
        if self.strategy == "autoactive":
            return self._autoactive(model, X, remaining, rng)
        slots = rng.choice(len(remaining), size=min(self.pool, len(remaining)), replace=False)
        scores = np.array([model.decision_one(X[remaining[s]]) for s in slots.tolist()])
        if self.strategy == "active":
            return int(slots[np.argmin(np.abs(scores))])
        signs = np.array([1.0 if y[remaining[s]] == model.positive else -1.0 for s in slots])
        return int(slots[np.argmin(signs * scores)])

    def _autoactive(self, model, X, remaining: list[int], rng) -> int:
        margin = 1.0 + 0.5 * float(getattr(model, "delta_", 0.0))
        order = rng.permutation(len(remaining))[: self.max_draws]
        best, best_score, inside = -1, np.inf, 0
        for slot in order.tolist():
            score = abs(model.decision_one(X[remaining[slot]]))
            if score < best_score:
                best, best_score = slot, score
            inside += score < margin
            if inside >= self.in_margin:
                break
        return best
