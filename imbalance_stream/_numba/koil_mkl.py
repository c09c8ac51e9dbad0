"""The multiple-kernel KOIL trial (the thesis's Algorithm 4) over a stack of KOIL learners, one
per kernel: a :class:`~imbalance_stream._numba.koil.KOILState` whose arrays have a leading axis
(the learner), each learner stepped by :func:`~imbalance_stream._numba.koil.koil_step`."""

from __future__ import annotations

import numpy as np
from numba import njit

from .koil import KOILParams, KOILState, koil_score, koil_step

__all__ = ["koil_mkl_score", "koil_mkl_step"]


@njit(cache=True)
def _learner(stack, l):
    """Learner ``l`` of a stack of learners (a :class:`KOILState` of arrays with a leading
    axis, KOIL-MKL's)."""
    return KOILState(
        stack.X[l],
        stack.beta[l],
        stack.h[l],
        stack.G[l],
        stack.members[l],
        stack.ints[l],
        stack.floats[l],
    )


@njit(cache=True)
def koil_mkl_step(
    stack,
    x,
    y,
    selected,
    uniforms,
    kinds,
    gammas,
    degrees,
    coef0s,
    C,
    eta,
    k,
    budget,
    policy,
    smooth,
    knn_first,
    euclidean,
    losses,
):
    """The classifier part of one multiple-kernel KOIL trial (Algorithm 4): for every kernel
    ``l`` with ``selected[l]``, the un-regularised step (eqs. 4.2/4.3, no decay) of learner ``l``
    (:func:`_learner`) with its own kernel; its loss goes to ``losses[l]`` (0 if not selected).
    KOIL-MKL's transactions copy the state, so no step keeps an undo."""
    no_undo = np.empty(0)
    for l in range(kinds.shape[0]):
        losses[l] = 0.0
        if selected[l]:
            p = KOILParams(
                kinds[l],
                gammas[l],
                degrees[l],
                coef0s[l],
                C,
                eta,
                1.0,
                k,
                budget,
                policy,
                smooth,
                knn_first,
                euclidean,
            )
            _, losses[l] = koil_step(
                _learner(stack, l), p, x, y, uniforms[l, 0], uniforms[l, 1], no_undo, no_undo
            )


@njit(cache=True)
def koil_mkl_score(stack, x, kinds, gammas, degrees, coef0s, q, sign_vote):
    """``sum_l q_l f_l(x)``, or with ``sign_vote`` the thesis's ``sum_l q_l sign(f_l(x))``
    (eq. 4.1); kernels with ``q_l == 0`` are skipped."""
    total = 0.0
    for l in range(kinds.shape[0]):
        if q[l] == 0.0:
            continue
        score = koil_score(
            stack.X[l],
            stack.beta[l],
            stack.ints[l],
            stack.floats[l],
            x,
            kinds[l],
            gammas[l],
            degrees[l],
            coef0s[l],
        )
        if sign_vote:
            score = 1.0 if score > 0.0 else (-1.0 if score < 0.0 else 0.0)
        total += q[l] * score
    return total
