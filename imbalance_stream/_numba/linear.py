"""Kernels of the linear learners: sparse dot products, quadratic forms, second-order updates."""

from __future__ import annotations

import math

import numpy as np
from numba import njit, types

from .cost import hinge_margin_slope_jit, laplace_ratio_jit
from .guard import EXPONENT_BITS

__all__ = [
    "ACOG_ENTRY_TYPES",
    "BOUND_UNKNOWN",
    "DOWNDATE_SAFE",
    "NO_UPDATE",
    "REFUSED",
    "UPDATED",
    "acog_diag_learn",
    "acog_diag_step",
    "acog_full_learn",
    "acog_full_step",
    "acog_full_step_bounded",
    "arow_full_step",
    "compiled_entry",
    "covariance_times_sparse",
    "downdate_is_finite",
    "probit",
    "quad_form_diag",
    "quad_form_full",
    "rank_one_downdate",
    "sparse_dot",
]


@njit(cache=True)
def sparse_dot(weights, indices, values):
    """``weights[indices] . values``."""
    total = 0.0
    for k in range(indices.shape[0]):
        total += weights[indices[k]] * values[k]
    return total


@njit(cache=True)
def quad_form_diag(diagonal, indices, values):
    """``x' diag(diagonal) x`` for a sparse ``x``."""
    total = 0.0
    for k in range(indices.shape[0]):
        total += diagonal[indices[k]] * values[k] * values[k]
    return total


@njit(cache=True)
def quad_form_full(matrix, indices, values):
    """``x' M x`` for a sparse ``x`` and a dense square ``M``: O(s^2)."""
    total = 0.0
    for a in range(indices.shape[0]):
        row = indices[a]
        partial = 0.0
        for b in range(indices.shape[0]):
            partial += matrix[row, indices[b]] * values[b]
        total += values[a] * partial
    return total


@njit(cache=True)
def probit(z):
    """Standard normal CDF."""
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


@njit(cache=True)
def covariance_times_sparse(cov, n, indices, values):
    """``u = cov x`` over the leading ``n`` rows, for a sparse ``x`` and a symmetric ``cov``:
    O(n s)."""
    u = np.zeros(n)
    for k in range(indices.shape[0]):
        # cov is symmetric: read row j (contiguous) instead of column j
        row = cov[indices[k]]
        value = values[k]
        for i in range(n):
            u[i] += row[i] * value
    return u


@njit(cache=True)
def _covariance_and_quadratic(cov, n, indices, values):
    """``(u, v)``: ``u = cov x`` (:func:`covariance_times_sparse`) and ``v = x' u``, the two
    products a full-covariance round (ACOG, AROW) starts with."""
    u = covariance_times_sparse(cov, n, indices, values)
    v = 0.0
    for k in range(indices.shape[0]):
        v += values[k] * u[indices[k]]
    return u, v


@njit(cache=True)
def rank_one_downdate(cov, n, u, denominator):
    """``cov -= u u' / denominator`` on the leading ``n`` rows and columns: the Woodbury form of
    the precision update ``cov^-1 += x x' / r`` when ``u = cov x`` and
    ``denominator = r + x' cov x``, shared by ACOG and AROW. O(n^2)."""
    for i in range(n):
        scaled = u[i] / denominator
        if scaled != 0.0:
            for j in range(n):
                cov[i, j] -= scaled * u[j]


@njit(cache=True)
def downdate_is_finite(cov, n, u, denominator):
    """Whether :func:`rank_one_downdate` would leave every entry finite, without writing: a
    read-only pass over the same arithmetic, so that an update can be refused before it changes
    anything (transactions, ``imbalance_stream.base.transaction``). Each row's new values go to a
    scratch row, whose bit patterns are then counted for an all-ones exponent: two loops that the
    compiler vectorises (a floating-point test in one loop would not be, without fastmath)."""
    scratch = np.empty(n)
    bits = scratch.view(np.int64)
    for i in range(n):
        scaled = u[i] / denominator
        if scaled != 0.0:
            row = cov[i]
            for j in range(n):
                scratch[j] = row[j] - scaled * u[j]
            bad = 0
            for j in range(n):
                bad += (bits[j] & EXPONENT_BITS) == EXPONENT_BITS
            if bad:
                return False
    return True


@njit(cache=True)
def _steps_finite(mean, n, u, step):
    """Whether ``mean[:n] + step * u[:n]`` is finite everywhere."""
    for i in range(n):
        if not math.isfinite(mean[i] + step * u[i]):
            return False
    return True


#: What the second-order steps return: no loss (nothing changed), an update, or an update refused
#: because it would have made the state non-finite (nothing changed either).
NO_UPDATE, UPDATED, REFUSED = 0, 1, -1


@njit(cache=True)
def acog_full_step(mean, cov, n, indices, values, y, margin, slope, eta, gamma):
    """One ACOG round with a full covariance (seed 002, Algorithm 1, Eq. 6 and 7).

    With ``u = cov x``, ``v = x' u``: if ``y (mean . x) < margin`` the covariance takes the
    Woodbury downdate ``cov -= u u' / (gamma + v)`` and the mean steps along the *updated*
    covariance, ``mean += eta * slope * y * gamma / (gamma + v) * u`` (because
    ``cov_new x = gamma / (gamma + v) * u``). Loss I passes ``margin = rho_y, slope = 1``, loss II
    ``margin = 1, slope = rho_y``. Only the leading ``n`` rows and columns are touched. Returns
    ``UPDATED``, ``NO_UPDATE`` (no loss), or ``REFUSED`` when some new value would not be finite
    (a zero ``gamma + v`` too, which rounding can give a covariance downdated by huge values),
    checked before anything is written, so that the state is then exactly as it was.
    """
    if y * sparse_dot(mean, indices, values) >= margin:
        return NO_UPDATE
    finite, u, denominator, step = _full_round(mean, cov, n, indices, values, y, slope, eta, gamma)
    if not finite:
        return REFUSED
    if not downdate_is_finite(cov, n, u, denominator):
        return REFUSED
    _full_write(mean, cov, n, u, denominator, step)
    return UPDATED


#: What :func:`acog_full_step_bounded` lets the covariance's largest magnitude and the
#: downdate's largest product reach before it checks the downdate's values one by one: a new
#: value is then at most 2^1021 in magnitude (see there), far from float64's 2^1024.
DOWNDATE_SAFE = 2.0**1020
#: A bound of :func:`acog_full_step_bounded` that proves nothing (the largest float: finite, so
#: that a model's state stays finite, and above :data:`DOWNDATE_SAFE`): not known yet.
BOUND_UNKNOWN = 1.7976931348623157e308


@njit(cache=True)
def acog_full_step_bounded(mean, cov, n, indices, values, y, margin, slope, eta, gamma, bound):
    """:func:`acog_full_step`, its arithmetic and its refusals, with one pass over the
    covariance instead of two where a bound proves the downdate finite.

    ``bound[0]``, when at most :data:`DOWNDATE_SAFE`, is at least the magnitude of every
    entry of ``cov`` (the whole array: its spare capacity holds the prior, 0 and 1, which a
    growth brings into the leading block); a larger value (:data:`BOUND_UNKNOWN` when not
    known) proves nothing. The step keeps it so. The downdate writes
    ``fl(cov[i, j] - fl(s_i u_j))`` with ``s_i = fl(u_i / (gamma + v))``. With ``P =
    fl(max |s_i| max |u_j|)`` (every ``s_i`` and ``u_j`` finite), rounding being monotone,
    ``|fl(s_i u_j)| <= P`` and the new value is at most ``fl(bound + P)`` in magnitude; when
    both ``bound`` and ``P`` are at most :data:`DOWNDATE_SAFE` (2^1020), that is at most 2^1021:
    every new value is finite, which the read-only pass of :func:`downdate_is_finite` would
    have found entry by entry, and the step writes at once, the bound becoming
    ``fl(bound + P)`` (the entries it does not write are within the old one). Otherwise (a
    huge or unknown bound, a huge product) it runs that pass first, as
    :func:`acog_full_step` does, and after a write takes the bound from the covariance itself
    (at least 1, the prior's: the largest magnitude, or :data:`BOUND_UNKNOWN` if an entry is
    not finite, which sends every later round through the pass). A bound below the truth
    would let a non-finite value in: anything that writes the covariance other than these
    steps must set it to :data:`BOUND_UNKNOWN` (``ACOG`` does, see its ``_reset_derived``)."""
    if y * sparse_dot(mean, indices, values) >= margin:
        return NO_UPDATE
    finite, u, denominator, step = _full_round(mean, cov, n, indices, values, y, slope, eta, gamma)
    if not finite:
        return REFUSED
    largest = bound[0]
    product = _downdate_product(u, n, denominator)
    if largest <= DOWNDATE_SAFE and product <= DOWNDATE_SAFE:
        _full_write(mean, cov, n, u, denominator, step)
        bound[0] = largest + product
        return UPDATED
    if not downdate_is_finite(cov, n, u, denominator):
        return REFUSED
    _full_write(mean, cov, n, u, denominator, step)
    bound[0] = min(max(_largest_magnitude(cov), 1.0), BOUND_UNKNOWN)
    return UPDATED


@njit(cache=True)
def _full_round(mean, cov, n, indices, values, y, slope, eta, gamma):
    """An ACOG full-covariance round with a loss, up to the downdate's check: ``(finite, u,
    denominator, step)``, ``finite`` False for a zero denominator or a new mean not finite."""
    u, v = _covariance_and_quadratic(cov, n, indices, values)
    denominator = gamma + v
    if denominator == 0.0:  # x' cov x = -gamma, a covariance rounded indefinite: an overflow
        return False, u, denominator, 0.0
    step = eta * slope * y * gamma / denominator
    return _steps_finite(mean, n, u, step), u, denominator, step


@njit(cache=True)
def _full_write(mean, cov, n, u, denominator, step):
    """Write an ACOG full-covariance round whose new values are known to be finite."""
    for i in range(n):
        mean[i] += step * u[i]
    rank_one_downdate(cov, n, u, denominator)


@njit(cache=True)
def _downdate_product(u, n, denominator):
    """``fl(max_i |u_i / denominator| * max_j |u_j|)`` over the leading ``n`` entries, each
    quotient computed as :func:`rank_one_downdate` computes it; infinity if one of them, or
    an entry of ``u``, is not finite. O(n)."""
    largest_u = 0.0
    largest_s = 0.0
    for i in range(n):
        value = abs(u[i])
        scaled = abs(u[i] / denominator)
        if not (math.isfinite(value) and math.isfinite(scaled)):
            return math.inf
        largest_u = max(largest_u, value)
        largest_s = max(largest_s, scaled)
    return largest_s * largest_u


@njit(cache=True)
def _largest_magnitude(matrix):
    """The largest magnitude of an entry of the float64 array ``matrix``, or infinity if one is
    not finite."""
    largest = 0.0
    for value in matrix.ravel():
        if not math.isfinite(value):
            return math.inf
        largest = max(largest, abs(value))
    return largest


@njit(cache=True)
def arow_full_step(mean, cov, n, indices, values, y, r):
    """One AROW round (Crammer, Kulesza and Dredze 2009; LIBOL ``AROW.m``).

    With ``u = cov x``, ``v = x' u`` and the hinge loss ``l = max(0, 1 - y mean.x)``: if
    ``l > 0``, ``mean += l / (v + r) * y * u`` (a step along the *old* covariance, proportional
    to the loss) and ``cov -= u u' / (v + r)``, the same downdate as ACOG with ``gamma = r``.
    Returns ``UPDATED``, ``NO_UPDATE`` or ``REFUSED`` as :func:`acog_full_step` does.
    """
    loss = 1.0 - y * sparse_dot(mean, indices, values)
    if not loss > 0.0:
        return NO_UPDATE
    u, v = _covariance_and_quadratic(cov, n, indices, values)
    denominator = v + r
    if denominator == 0.0:  # x' cov x = -r, a covariance rounded indefinite: an overflow
        return REFUSED
    step = loss / denominator * y
    if not (_steps_finite(mean, n, u, step) and downdate_is_finite(cov, n, u, denominator)):
        return REFUSED
    for i in range(n):
        mean[i] += step * u[i]
    rank_one_downdate(cov, n, u, denominator)
    return UPDATED


@njit(cache=True)
def acog_diag_step(mean, variance, indices, values, y, margin, slope, eta, gamma):
    """One ACOG-diag round (D-ACOG-1): per touched coordinate ``sigma_i <- gamma sigma_i /
    (gamma + sigma_i x_i^2)``, then ``mean_i += eta * slope * y * sigma_i(new) * x_i``. O(s).
    Returns ``UPDATED``, ``NO_UPDATE`` or ``REFUSED`` as :func:`acog_full_step` does: the new
    values are checked for finiteness before the first is written."""
    score = sparse_dot(mean, indices, values)
    if y * score >= margin:
        return NO_UPDATE
    for k in range(indices.shape[0]):
        j = indices[k]
        x = values[k]
        sigma = gamma * variance[j] / (gamma + variance[j] * x * x)
        if not (math.isfinite(sigma) and math.isfinite(mean[j] + eta * slope * y * sigma * x)):
            return REFUSED
    for k in range(indices.shape[0]):
        j = indices[k]
        x = values[k]
        sigma = gamma * variance[j] / (gamma + variance[j] * x * x)
        variance[j] = sigma
        mean[j] += eta * slope * y * sigma * x
    return UPDATED


@njit(cache=True)
def acog_diag_learn(
    mean, variance, indices, values, y, loss_one, rho, n_positive, n_negative, eta, gamma
):
    """``learn_one``'s whole ACOG-diag round in one call: the cost ratio after counting the label
    ``y`` (the Laplace estimate from the counts before it when ``rho`` is NaN, else ``rho``), the
    margin and slope of the loss, then :func:`acog_diag_step`, whose code it returns. The counts
    are the caller's to add the label to (nothing here is written on ``REFUSED``)."""
    margin, slope = _cost_margin_slope(y, loss_one, rho, n_positive, n_negative)
    return acog_diag_step(mean, variance, indices, values, y, margin, slope, eta, gamma)


@njit(cache=True)
def acog_full_learn(
    mean, cov, n, indices, values, y, loss_one, rho, n_positive, n_negative, eta, gamma, bound
):
    """:func:`acog_diag_learn` with the full covariance (:func:`acog_full_step_bounded`, which
    keeps ``bound``)."""
    margin, slope = _cost_margin_slope(y, loss_one, rho, n_positive, n_negative)
    return acog_full_step_bounded(
        mean, cov, n, indices, values, y, margin, slope, eta, gamma, bound
    )


@njit(cache=True)
def _cost_margin_slope(y, loss_one, rho, n_positive, n_negative):
    """The hinge's ``(margin, slope)`` after counting the label ``y``: ``rho`` NaN for the
    Laplace estimate from the counts before it."""
    if math.isnan(rho):
        rho = laplace_ratio_jit(n_positive + (y > 0), n_negative + (y < 0))
    return hinge_margin_slope_jit(y, rho, loss_one)


@njit(cache=True)
def gaussian_weight_proba(score, variance):
    """P(w.x > 0) for Gaussian weights: ``Phi(score / sqrt(variance))``; 1/2 at a zero score, a
    step when the variance vanishes."""
    if score == 0.0:
        return 0.5
    if not variance > 0.0:
        return 1.0 if score > 0.0 else 0.0
    return probit(score / math.sqrt(variance))


@njit(cache=True)
def proba_diag(mean, variance, indices, values):
    """Probit predictive probability of a diagonal-covariance Gaussian weight model, one call."""
    return gaussian_weight_proba(
        sparse_dot(mean, indices, values), quad_form_diag(variance, indices, values)
    )


@njit(cache=True)
def proba_full(mean, cov, indices, values):
    """Probit predictive probability of a full-covariance Gaussian weight model, one call."""
    return gaussian_weight_proba(
        sparse_dot(mean, indices, values), quad_form_full(cov, indices, values)
    )


# ---- direct entries ---------------------------------------------------------------------------

_VECTOR = types.Array(types.float64, 1, "C")
_MATRIX = types.Array(types.float64, 2, "C")
_COLUMNS = types.Array(types.int64, 1, "C")
_LEARN_SCALARS = (types.float64, types.boolean, types.float64, types.int64, types.int64)
#: The argument types of ACOG's kernels on the dict path, by covariance: ``(learn, proba)``
#: for :func:`acog_diag_learn` / :func:`proba_diag` and :func:`acog_full_learn` /
#: :func:`proba_full`, as numba types the arguments ``learn_one`` and ``predict_proba_one``
#: pass on the usual round (the model's float64 arrays, writable and C-ordered; the sample's
#: int64 and float64 arrays; Python floats, bools and ints; ``eta`` and ``gamma`` floats).
ACOG_ENTRY_TYPES = {
    "diag": (
        (_VECTOR, _VECTOR, _COLUMNS, _VECTOR, *_LEARN_SCALARS, types.float64, types.float64),
        (_VECTOR, _VECTOR, _COLUMNS, _VECTOR),
    ),
    "full": (
        (
            *(_VECTOR, _MATRIX, types.int64, _COLUMNS, _VECTOR),
            *(*_LEARN_SCALARS, types.float64, types.float64, _VECTOR),
        ),
        (_VECTOR, _MATRIX, _COLUMNS, _VECTOR),
    ),
}


def compiled_entry(kernel, argument_types):
    """The compiled function of the jitted ``kernel`` for ``argument_types`` (compiled, or
    loaded from numba's cache, at the first request: ``Dispatcher.compile``), which runs the
    same machine code as calling ``kernel`` with arguments of those types, without the
    dispatcher's typing of each argument at every call (about 0.25 us of the 0.6 us a call of
    :func:`acog_diag_learn` costs, with its eleven arguments). The caller must pass exactly
    those types: the entry converts scalars as numba does, but of an array it checks only the
    item size, not the number of dimensions nor whether it may be written."""
    return kernel.compile(argument_types)
