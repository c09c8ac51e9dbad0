"""Breiman's waveform stream with a controlled class imbalance (Ertekin 2009, section 5.2.1)."""

from __future__ import annotations

import numpy as np
from river.datasets import base as river_base

__all__ = ["Waveform"]

N_FEATURES = 21


def _base_waves() -> np.ndarray:
    """The three triangular waves v1, v2, v3 of section 5.2.1, one row each, over j = 1..21."""
    j = np.arange(1, N_FEATURES + 1, dtype=np.float64)

    def v1(at: np.ndarray) -> np.ndarray:
        return np.maximum(6.0 - np.abs(at - 11.0), 0.0)

    return np.vstack([v1(j), v1(j - 4.0), v1(j + 4.0)])


# The pair of base waves each class mixes (section 5.2.1): class 1 = (v1, v2), class 2 =
# (v1, v3), class 3 = (v2, v3).
_CLASS_WAVES = ((0, 1), (0, 2), (1, 2))


class Waveform(river_base.SyntheticDataset):
    """Breiman's three-class waveform data as a binary stream whose imbalance is set by the user.

    Each sample is a random convex mix of two of three triangular waves over 21 positions plus
    unit Gaussian noise (Ertekin 2009, section 5.2.1): with ``v1(j) = max(6 - |j - 11|, 0)``,
    ``v2(j) = v1(j - 4)`` and ``v3(j) = v1(j + 4)``,

    * class 1: ``x_j = u v1(j) + (1 - u) v2(j) + e_j``,
    * class 2: ``x_j = u v1(j) + (1 - u) v3(j) + e_j``,
    * class 3: ``x_j = u v2(j) + (1 - u) v3(j) + e_j``,

    with ``u ~ U(0, 1)`` drawn once per sample and ``e_j ~ N(0, 1)``. Class 1 is the positive
    class, classes 2 and 3 (equally likely) the negative one, so the natural ratio of negatives
    to positives is 2. The imbalance sweeps of chapters 4 and 5 undersample the positives to a
    ratio of 2, 4, ..., 32; ``imbalance_ratio`` does that at the source:

    * with ``n_samples`` given, exactly ``round(n_samples / (1 + imbalance_ratio))`` samples are
      positive, at seeded random places of the stream (the thesis' 2,757 training samples at
      ratio 32 hold 83 positives; ``Waveform(32, n_samples=2757)`` holds 84, the rounding of
      2757 / 33);
    * without it, the stream is endless and each sample is positive with probability
      ``1 / (1 + imbalance_ratio)``.

    The features are keyed 0 to 20 (position ``j - 1``). River's ``datasets.synth.Waveform`` is
    the same source without the imbalance control (and labels 0, 1, 2).

    Parameters
    ----------
    imbalance_ratio
        Negatives per positive (> 0); 2 is the natural waveform mix.
    n_samples
        Length of the stream; None for an endless stream.
    binary
        True labels a sample ``True`` for class 1 and ``False`` otherwise; False yields the class
        number 1, 2 or 3.
    seed
        Seed of every draw: iterating twice gives the same stream.

    Examples
    --------

    >>> from imbalance_stream.datasets import Waveform
    >>> stream = Waveform(imbalance_ratio=32, n_samples=2757, seed=1)
    >>> labels = [y for _, y in stream]
    >>> len(labels), sum(labels)
    (2757, 84)
    >>> x, y = next(iter(Waveform(seed=1)))
    >>> len(x), round(x[10], 3), y
    (21, 1.837, False)

    References
    ----------
    Breiman, L., Friedman, J., Olshen, R. and Stone, C. (1984). Classification and Regression
    Trees. Wadsworth.

    Ertekin, S. (2009). Learning in Extreme Conditions: Online and Active Learning with Massive,
    Imbalanced and Noisy Data. PhD thesis, The Pennsylvania State University. Section 5.2.1.

    """

    def __init__(
        self,
        imbalance_ratio: float = 2.0,
        n_samples: int | None = None,
        binary: bool = True,
        seed: int | None = None,
    ):
        ratio = float(imbalance_ratio)
        if not np.isfinite(ratio) or ratio <= 0.0:
            raise ValueError(f"imbalance_ratio must be a positive number, got {imbalance_ratio!r}")
        if n_samples is not None and (not isinstance(n_samples, int) or n_samples < 0):
            raise ValueError(f"n_samples must be a non-negative int or None, got {n_samples!r}")
        super().__init__(
            task=river_base.BINARY_CLF if binary else river_base.MULTI_CLF,
            n_features=N_FEATURES,
            n_samples=n_samples,
            n_classes=2 if binary else 3,
        )
        self.imbalance_ratio = ratio
        self.binary = binary
        self.seed = seed

    @property
    def positive_share(self) -> float:
        """The share of positives (class 1) the stream is drawn with."""
        return 1.0 / (1.0 + self.imbalance_ratio)

    def _positive_flags(self, rng: np.random.Generator) -> np.ndarray | None:
        """Which places of a finite stream are positive: an exact count, seeded places."""
        if self.n_samples is None:
            return None
        flags = np.zeros(self.n_samples, dtype=bool)
        flags[: int(round(self.n_samples * self.positive_share))] = True
        rng.shuffle(flags)
        return flags

    def _sample(self, cls: int, rng: np.random.Generator, waves: np.ndarray) -> np.ndarray:
        first, second = _CLASS_WAVES[cls - 1]
        u = rng.random()
        noise = rng.standard_normal(N_FEATURES)
        return u * waves[first] + (1.0 - u) * waves[second] + noise

    def __iter__(self):
        rng = np.random.default_rng(self.seed)
        waves = _base_waves()
        flags = self._positive_flags(rng)
        t = 0
        while self.n_samples is None or t < self.n_samples:
            positive = bool(flags[t]) if flags is not None else rng.random() < self.positive_share
            cls = 1 if positive else 2 + int(rng.integers(2))
            row = self._sample(cls, rng, waves)
            x = {j: float(row[j]) for j in range(N_FEATURES)}
            yield x, (positive if self.binary else cls)
            t += 1

    def to_numpy(self) -> tuple[np.ndarray, np.ndarray, list[int]]:
        """The finite stream as ``(X, y, feature_names)``, like the file loaders."""
        if self.n_samples is None:
            raise ValueError("to_numpy needs a finite stream: give n_samples")
        X = np.empty((self.n_samples, N_FEATURES))
        y = np.empty(self.n_samples, dtype=bool if self.binary else np.int64)
        for t, (x, label) in enumerate(self):
            X[t] = [x[j] for j in range(N_FEATURES)]
            y[t] = label
        return X, y, list(range(N_FEATURES))
