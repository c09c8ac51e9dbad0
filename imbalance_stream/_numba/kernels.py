"""Kernel functions, kernel rows and a cached Gram matrix over stored vectors.

Shared by every kernel machine of the package (KOIL, the budget perceptrons, LASVM, the density
ratio estimators). Stored vectors live in a dense 2-D buffer ``X`` (one row per slot, zero-padded
columns) of which the first ``count`` rows are in use; a query ``x`` is a dense vector. Every
function works on the first ``x.shape[0]`` columns, so ``X`` may have more (zero) columns than
``x``, never fewer.

A kernel is named by an integer id and three parameters, always passed in the same order
``(kind, gamma, degree, coef0)`` so that each function compiles once:

* ``RBF`` (0): ``exp(-gamma ||a - b||^2)``  (``degree`` and ``coef0`` unused);
* ``POLY`` (1): ``(gamma a.b + coef0) ** degree``  (``degree`` a float holding an integer);
* ``LINEAR`` (2): ``a.b``  (all three unused).

The Gram cache is a square float64 matrix ``G`` with ``G[i, j] = k(X[i], X[j])`` over the slots in
use; :func:`gram_update` rewrites one slot's row and column after that slot changed (O(count d)),
:func:`gram_fill` rebuilds the leading ``count x count`` block (O(count^2 d)).
"""

from __future__ import annotations

import math

from numba import njit

__all__ = [
    "KERNELS",
    "LINEAR",
    "POLY",
    "RBF",
    "argmax_over",
    "expansion",
    "gram_fill",
    "gram_update",
    "kernel",
    "kernel_id",
    "kernel_row",
    "option_id",
    "sq_distance_row",
]

RBF = 0
POLY = 1
LINEAR = 2

#: Kernel names accepted by the estimators, mapped to the ids of this module.
KERNELS = {"rbf": RBF, "poly": POLY, "linear": LINEAR}


def option_id(options: dict[str, int], what: str, name) -> int:
    """The id ``options[name]`` of an option the estimators take by name (the kernel, the budget
    policy); ``ValueError`` naming ``what`` and the choices otherwise."""
    try:
        return options[name]
    except (KeyError, TypeError):
        listed = ", ".join(repr(key) for key in options)
        raise ValueError(f"{what} must be one of {listed}, got {name!r}") from None


def kernel_id(name: str) -> int:
    """The id of kernel ``name`` (``"rbf"``, ``"poly"`` or ``"linear"``); ``ValueError``
    otherwise."""
    return option_id(KERNELS, "kernel", name)


@njit(cache=True)
def kernel(kind, a, b, gamma, degree, coef0):
    """``k(a, b)`` over the first ``a.shape[0]`` columns (``b`` may be longer)."""
    n = a.shape[0]
    if kind == RBF:
        total = 0.0
        for j in range(n):
            diff = a[j] - b[j]
            total += diff * diff
        return math.exp(-gamma * total)
    total = 0.0
    for j in range(n):
        total += a[j] * b[j]
    if kind == POLY:
        return (gamma * total + coef0) ** degree
    return total


@njit(cache=True)
def kernel_row(kind, X, count, x, gamma, degree, coef0, out):
    """``out[i] = k(X[i], x)`` for ``i < count``; returns ``out``. O(count d)."""
    for i in range(count):
        out[i] = kernel(kind, x, X[i], gamma, degree, coef0)
    return out


@njit(cache=True)
def sq_distance_row(X, count, x, out):
    """``out[i] = ||X[i] - x||^2`` for ``i < count``; returns ``out``. O(count d)."""
    n = x.shape[0]
    for i in range(count):
        row = X[i]
        total = 0.0
        for j in range(n):
            diff = row[j] - x[j]
            total += diff * diff
        out[i] = total
    return out


@njit(cache=True)
def expansion(kind, X, weights, count, x, gamma, degree, coef0):
    """``sum_{i < count} weights[i] k(X[i], x)``: the score of a kernel expansion. O(count d)."""
    total = 0.0
    for i in range(count):
        if weights[i] != 0.0:
            total += weights[i] * kernel(kind, x, X[i], gamma, degree, coef0)
    return total


@njit(cache=True)
def gram_update(kind, X, count, slot, gamma, degree, coef0, G):
    """Rewrite row and column ``slot`` (< ``count``) of the Gram cache from ``X[slot]``.

    O(count d), over all ``X.shape[1]`` columns.
    """
    row = X[slot]
    for i in range(count):
        value = kernel(kind, row, X[i], gamma, degree, coef0)
        G[slot, i] = value
        G[i, slot] = value


@njit(cache=True)
def gram_fill(kind, X, count, gamma, degree, coef0, G):
    """Rebuild the leading ``count x count`` block of the Gram cache. O(count^2 d)."""
    for i in range(count):
        row = X[i]
        for j in range(i + 1):
            value = kernel(kind, row, X[j], gamma, degree, coef0)
            G[i, j] = value
            G[j, i] = value


@njit(cache=True)
def argmax_over(values, slots, count):
    """Position ``p < count`` maximising ``values[slots[p]]``; the first one on ties, -1 if empty.

    A true argmax (it starts from the first candidate, not from 0), so it also works for kernels
    that take negative values.
    """
    best = -1
    best_value = 0.0
    for p in range(count):
        value = values[slots[p]]
        if best < 0 or value > best_value:
            best = p
            best_value = value
    return best
