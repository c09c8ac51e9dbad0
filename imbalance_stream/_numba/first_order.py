"""Kernels of the first-order baselines of the ACOG paper (its section 4.1): Perceptron, PAUM, COG
(additive steps), PA-I and CPA_PB / CPA_ML (passive-aggressive steps), ROMMA.

All are linear with no bias (an estimator adds one as a constant feature), start from ``w = 0``,
predict ``+1`` when ``w.x >= 0`` (ties go to the rare class, LIBOL's rule, D-ACOG-2) and take
labels ``y`` in {+1, -1}. Each kernel updates ``weights`` in place and returns whether it did
(ROMMA's returns ``UPDATED``, ``NO_UPDATE`` or ``REFUSED``, as the kernels of
:mod:`~imbalance_stream._numba.linear` do).
"""

from __future__ import annotations

import math

from numba import njit

from .linear import NO_UPDATE, REFUSED, UPDATED, sparse_dot

__all__ = [
    "additive_step",
    "cost_sensitive_pa_step",
    "passive_aggressive_step",
    "romma_step",
    "squared_norm",
]


@njit(cache=True)
def squared_norm(values):
    total = 0.0
    for k in range(values.shape[0]):
        total += values[k] * values[k]
    return total


@njit(cache=True)
def _triggers(margin, threshold, inclusive):
    """Whether the margin ``y w.x`` is below ``threshold`` (or equal to it when ``inclusive``).

    Written as "not above", so that a NaN margin triggers the step."""
    return not (margin > threshold or (margin == threshold and not inclusive))


@njit(cache=True)
def _add_scaled(weights, indices, values, scale):
    """``w += scale * x`` on the sample's entries."""
    for k in range(indices.shape[0]):
        weights[indices[k]] += scale * values[k]


@njit(cache=True)
def additive_step(weights, indices, values, y, threshold, inclusive, step):
    """``w += step * y * x`` when ``y w.x < threshold`` (``<=`` when ``inclusive``).

    * Perceptron: ``threshold = 0``, ``inclusive = (y < 0)``, ``step = 1``: exactly the mistakes
      under the tie rule (a positive is missed when ``w.x < 0``, a negative when ``w.x >= 0``);
    * PAUM: ``threshold = tau_y``, ``inclusive = True``, ``step = eta``;
    * COG: ``threshold = margin_y``, ``inclusive = False`` (loss > 0), ``step = eta * slope_y``.
    """
    margin = y * sparse_dot(weights, indices, values)
    if not _triggers(margin, threshold, inclusive):
        return False
    _add_scaled(weights, indices, values, step * y)
    return True


@njit(cache=True)
def passive_aggressive_step(weights, indices, values, y, threshold, inclusive, target, C):
    """Passive-aggressive step: when ``y w.x < threshold`` (``<=`` when ``inclusive``),
    ``tau = min(C, (target - y w.x) / |x|^2)`` and ``w += tau * y * x``.

    * PA-I: ``threshold = target = 1``, ``inclusive = False`` (hinge loss > 0), finite ``C``;
    * CPA_PB in its binary form (``Phi(x, r) = r x / 2``): the trigger is a mistake
      (``threshold = 0``, ``inclusive = (y < 0)``), ``target = sqrt(cost of the mistake)`` and
      ``C = inf`` (plain PA);
    * CPA_ML (max-loss): ``threshold = target = sqrt(cost of missing y)``, ``inclusive = False``.

    The two CPA rules are :func:`cost_sensitive_pa_step`.
    """
    margin = y * sparse_dot(weights, indices, values)
    if not _triggers(margin, threshold, inclusive):
        return False
    norm = squared_norm(values)
    if not norm > 0.0:
        return False
    tau = min(C, (target - margin) / norm)
    _add_scaled(weights, indices, values, tau * y)
    return True


@njit(cache=True)
def cost_sensitive_pa_step(weights, indices, values, y, cost, max_loss):
    """One cost-sensitive PA round in the binary form ``Phi(x, r) = r x / 2`` (D-ACOG-15), where
    ``cost`` is the price of predicting ``-y`` (``rho`` for a positive, 1 for a negative): the
    prediction-based rule (CPA_PB) steps on a mistake under the tie rule, the max-loss rule
    (CPA_ML, ``max_loss``) whenever ``y w.x < sqrt(cost)``; both to the target ``sqrt(cost)``."""
    target = math.sqrt(cost)
    if max_loss:  # the loss of the costliest wrong label is positive
        threshold, inclusive = target, False
    else:  # a mistake, with ties predicted positive
        threshold, inclusive = 0.0, y < 0
    return passive_aggressive_step(
        weights, indices, values, y, threshold, inclusive, target, math.inf
    )


@njit(cache=True)
def romma_step(weights, n, indices, values, y):
    """One ROMMA round (Li and Long 2000, non-aggressive; LIBOL ``ROMMA.m``).

    On a mistake (tie rule as above): if ``w = 0``, ``w = y x``; otherwise, with
    ``D = |x|^2 |w|^2 - (w.x)^2``, ``c = (|x|^2 |w|^2 - y w.x) / D`` and
    ``e = |w|^2 (y - w.x) / D``, ``w <- c w + e x`` (no update if ``D = 0``, x parallel to w).
    ``|w|^2`` is computed over the leading ``n`` entries: O(n) on mistake rounds only.

    Returns ``UPDATED``, ``NO_UPDATE`` (no mistake, or ``D = 0``) or ``REFUSED``: the rescaling
    reaches every weight, not only the sample's, so the step checks that every new value is finite
    (``c``, ``e``, ``c max|w|`` and the sample's ``c w_i + e x_i``) and writes nothing otherwise.
    """
    score = sparse_dot(weights, indices, values)
    if (score >= 0.0) == (y > 0):
        return NO_UPDATE
    w_norm = 0.0
    w_max = 0.0
    for i in range(n):
        w_norm += weights[i] * weights[i]
        w_max = max(w_max, abs(weights[i]))
    if w_norm == 0.0:
        for k in range(indices.shape[0]):
            weights[indices[k]] = y * values[k]
        return UPDATED
    x_norm = squared_norm(values)
    denominator = x_norm * w_norm - score * score
    if denominator == 0.0:
        return NO_UPDATE
    c = (x_norm * w_norm - y * score) / denominator
    e = w_norm * (y - score) / denominator
    if not (math.isfinite(c) and math.isfinite(e) and math.isfinite(c * w_max)):
        return REFUSED
    for k in range(indices.shape[0]):  # the same arithmetic as the writes below
        if not math.isfinite(c * weights[indices[k]] + e * values[k]):
            return REFUSED
    for i in range(n):
        weights[i] *= c
    _add_scaled(weights, indices, values, e)
    return UPDATED


@njit(cache=True)
def logistic(score):
    """``1 / (1 + exp(-score))`` without overflow: the probability the first-order baselines
    report (the paper never thresholds probabilities, D-ACOG-23)."""
    if score >= 0.0:
        return 1.0 / (1.0 + math.exp(-score))
    z = math.exp(score)
    return z / (1.0 + z)
