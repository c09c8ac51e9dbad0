"""A covariate-shift stream from a labelled data set: a biased past, then the present."""

from __future__ import annotations

import typing

import numpy as np
from river.datasets import base as river_base

__all__ = ["SelectionShift"]


def _logistic(v: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-v))


class SelectionShift(river_base.SyntheticDataset):
    """A stream whose inputs, and with them the rare class's share, shift at one point, while the
    labelling ``p(y|x)`` stays the same: the sampling-bias benchmark of Miao (2015, Section 4.4.2)
    laid out in time.

    The source is read into memory, its features scaled to [-1, 1] (each by its range over the
    whole set, the thesis's convention) and shuffled with ``seed``. A share ``present`` of it,
    drawn uniformly, is the present; each remaining sample is kept for the past with probability
    ``P(s=1|x) = 1 / (1 + exp(-v))``, ``v = strength * w'(x - m) / std(w'(x - m))`` with
    ``w ~ U[-1, 1]^d`` and ``m`` the mean of the pool (the thesis's selection). Of ``candidates``
    draws of ``w``, the one that makes the positive class rarest in the past is taken, so the rare
    class grows at the shift. The stream emits the past, then the present: a model trained on the
    past is applied to inputs it has seen little of.

    Parameters
    ----------
    source
        A finite iterable of ``(x, y)`` pairs with numeric features (read once, into memory).
    positive
        The label that counts as positive (emitted as ``True``, every other as ``False``).
    present
        Share of the data drawn uniformly for the present.
    strength
        The ``4`` of the thesis's selection: larger makes the past more biased.
    candidates
        Draws of the selection direction ``w`` to choose from.
    seed
        Seed of the shuffle, the split, the directions and the selection.

    Attributes
    ----------
    shift_at
        The position of the first sample of the present.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.datasets import SelectionShift
    >>> stream = SelectionShift(datasets.ImageSegments(), positive="window", seed=1)
    >>> labels = [y for _, y in stream]
    >>> t = stream.shift_at
    >>> len(labels), t, round(sum(labels[:t]) / t, 3), round(sum(labels[t:]) / (len(labels) - t), 3)
    (1710, 555, 0.043, 0.133)

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 4.4.2.

    """

    def __init__(
        self,
        source: typing.Iterable,
        positive=True,
        present: float = 0.5,
        strength: float = 4.0,
        candidates: int = 10,
        seed: int | None = None,
    ):
        if not 0.0 < present < 1.0:
            raise ValueError(f"present must be a share in (0, 1), got {present!r}")
        if candidates < 1:
            raise ValueError(f"candidates must be at least 1, got {candidates!r}")
        self.source = source
        self.positive = positive
        self.present = present
        self.strength = strength
        self.candidates = candidates
        self.seed = seed
        self._names, self._X, self._y = self._read(source, positive)
        self._order = self._arrange()
        self.shift_at = int(self._n_past)
        super().__init__(
            task="Binary classification",
            n_features=len(self._names),
            n_samples=len(self._order),
            n_classes=2,
        )

    @staticmethod
    def _read(source, positive):
        rows = list(source)
        names = sorted({name for x, _ in rows for name in x}, key=str)
        X = np.array([[float(x.get(name, 0.0)) for name in names] for x, _ in rows])
        low, high = X.min(0), X.max(0)
        span = np.where(high > low, high - low, 1.0)  # a constant feature stays 0
        X = np.where(high > low, 2.0 * (X - low) / span - 1.0, 0.0)
        y = np.array([label == positive for _, label in rows])
        return names, X, y

    def _arrange(self) -> np.ndarray:
        """The emission order: the kept past, then the present."""
        rng = np.random.default_rng(self.seed)
        order = rng.permutation(len(self._y))
        n_present = int(round(self.present * len(order)))
        present, pool = order[:n_present], order[n_present:]
        centred = self._X[pool] - self._X[pool].mean(0)
        best_keep, best_share = None, np.inf
        for _ in range(self.candidates):
            direction = rng.uniform(-1.0, 1.0, size=self._X.shape[1])
            projection = centred @ direction
            v = self.strength * projection / max(float(projection.std()), 1e-12)
            keep = rng.random(len(pool)) < _logistic(v)
            share = self._y[pool][keep].mean() if keep.any() else np.inf
            if share < best_share:
                best_keep, best_share = keep, share
        assert best_keep is not None
        past = pool[best_keep]
        self._n_past = len(past)
        return np.concatenate([past, present])

    def __iter__(self):
        for row in self._order:
            yield dict(zip(self._names, self._X[row].tolist())), bool(self._y[row])
