"""SMOTE's synthetic positives for a stored dataset of dicts (the SMOTE baseline of seed 003)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from imbalance_stream.base.validation import check_int, check_seed

__all__ = ["smote"]


def smote(
    X: Sequence[dict], y: Sequence, positive=True, k: int = 5, v: int = 1, seed: int | None = None
) -> tuple[list[dict], list]:
    """The dataset with ``v`` synthetic positives per positive appended (SMOTE, Chawla et al.
    2002; the baseline of Ertekin 2009, sections 4.3 and 5.2: ``k = 5``, ``v = 1``).

    Each synthetic positive is ``x + lambda (x_nn - x)`` with ``x`` a positive, ``x_nn`` one of
    its ``k`` nearest positives (Euclidean) and ``lambda ~ U(0, 1)``; imbalanced-learn's
    ``SMOTE`` makes them, which draws the positives ``x`` at random with replacement, so the
    total is ``v`` times the positives but one positive may seed several (D-LASVM-42). The
    synthetic samples come after the original ones, over the features of the original samples
    (absent features are 0 and left out of the dicts).

    Needs imbalanced-learn (``pip install imbalance-stream[imblearn]``).

    >>> X = [{"a": 0.0}, {"a": 1.0}, {"a": 2.0}, {"a": 10.0}, {"a": 11.0}]
    >>> y = [True, True, True, False, False]
    >>> X2, y2 = smote(X, y, k=2, seed=0)
    >>> len(X2), y2[5:], all(0.0 <= x["a"] <= 2.0 for x in X2[5:])
    (8, [True, True, True], True)

    """
    check_int("k", k, low=1)
    check_int("v", v, low=1)
    check_seed(seed)
    try:
        from imblearn.over_sampling import SMOTE
    except ImportError as error:  # pragma: no cover - exercised by a test that hides the package
        raise ImportError(
            "smote needs imbalanced-learn: pip install imbalance-stream[imblearn]"
        ) from error
    X, y = list(X), list(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)} labels")
    names = sorted({name for x in X for name in x}, key=repr)
    matrix = _dense(X, names)
    is_positive = np.array([label == positive for label in y])
    n_positive = int(is_positive.sum())
    if n_positive < 2:
        raise ValueError(f"SMOTE needs at least 2 samples of the positive label {positive!r}")
    sampler = SMOTE(
        sampling_strategy={True: (1 + v) * n_positive},
        k_neighbors=min(k, n_positive - 1),
        random_state=seed,
    )
    resampled, _ = sampler.fit_resample(matrix, is_positive)
    synthetic = [
        {name: float(value) for name, value in zip(names, row) if value != 0.0}
        for row in resampled[len(X) :]
    ]
    return X + synthetic, y + [positive] * len(synthetic)


def _dense(X: list[dict], names: list) -> np.ndarray:
    """The samples as rows over ``names``; a value that is not a finite number is named."""
    column = {name: j for j, name in enumerate(names)}
    matrix = np.zeros((len(X), len(names)))
    for i, x in enumerate(X):
        for name, value in x.items():
            if isinstance(value, (str, bytes)) or value is None:
                raise TypeError(f"feature {name!r} of sample {i} is {value!r}, not a number")
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(f"feature {name!r} of sample {i} is {value!r}, not finite")
            matrix[i, column[name]] = number
    return matrix
