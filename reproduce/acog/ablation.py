"""ACOG with either mean-update rule, in plain numpy, for the paper's Fig. 7 ablation.

Section 4.4.3 compares ACOG's mean step along the *updated* covariance, ``mu <- mu - eta
Sigma_{t+1} g_t`` (eq. 7, what :class:`~imbalance_stream.linear_model.ACOG` does), with the same
step along the *old* one, ``mu <- mu - eta Sigma_t g_t`` (D-ACOG-25). The package implements only
the paper's rule, so the ablation runs both rules through this one reference loop, which the tests
check against the package's ACOG on the ``"new"`` rule. Slow (a Python loop over the rows): the
figure's scenario runs it on subsets.
"""

from __future__ import annotations

import numpy as np

__all__ = ["acog_mistakes"]


def _margin_slope(sign: float, rho: float, loss: str) -> tuple[float, float]:
    """The cost-sensitive hinge of the paper's eq. (4): loss I puts rho_y in the margin, loss II
    in the slope; rho_y is rho for the positive class and 1 for the negative one."""
    rho_y = rho if sign > 0 else 1.0
    return (rho_y, 1.0) if loss == "I" else (1.0, rho_y)


def acog_mistakes(
    X: np.ndarray,
    y: np.ndarray,
    *,
    loss: str,
    covariance: str,
    rho: float,
    eta: float,
    gamma: float = 1.0,
    mean_rule: str = "new",
) -> tuple[int, int, np.ndarray]:
    """One test-then-train pass of ACOG over the dense rows ``X`` (labels ``y``, True positive).

    Returns ``(Mp, Mn, mean)``: the mistakes on positive and negative rows (a score >= 0 predicts
    positive) and the final mean. ``mean_rule="new"`` steps along Sigma_{t+1} (eq. 7),
    ``"old"`` along Sigma_t (Fig. 7's other curve); the covariance update is the same.
    """
    if mean_rule not in ("new", "old"):
        raise ValueError(f"mean_rule must be 'new' or 'old', got {mean_rule!r}")
    n, d = X.shape
    mean = np.zeros(d)
    cov = np.eye(d) if covariance == "full" else np.ones(d)
    mp = mn = 0
    for x, label in zip(X, y):
        sign = 1.0 if label else -1.0
        score = float(mean @ x)
        if (score >= 0.0) != bool(label):
            mp, mn = (mp + 1, mn) if label else (mp, mn + 1)
        margin, slope = _margin_slope(sign, rho, loss)
        if sign * score >= margin:
            continue
        if covariance == "full":
            u = cov @ x
            v = float(x @ u)
            shrink = gamma / (gamma + v) if mean_rule == "new" else 1.0
            mean += eta * slope * sign * shrink * u
            cov -= np.outer(u, u) / (gamma + v)
        else:
            new = gamma * cov / (gamma + cov * x * x)
            mean += eta * slope * sign * (new if mean_rule == "new" else cov) * x
            cov = new
    return mp, mn, mean
