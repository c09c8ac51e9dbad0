"""Kernels of the sketched ACOG learners (seed 002, Algorithms 2-6): Oja's sketch of the
second-order matrix, dense (SACOG) and in the sparse re-parametrisation (sparse SACOG).

Notation of the paper's sections 3.1 and 3.2. The to-sketch vector is ``xh = x / sqrt(gamma)``;
the sketch keeps ``m`` orthonormal directions ``V`` (m x d, rows) with running eigenvalue estimates
``lam`` (m) after ``t`` sketch rounds, so that the covariance is
``Sigma = I - V' diag(D) V`` with ``D_i = t lam_i / (1 + t lam_i)``. The sparse form stores
``V = F Z`` and the mean as ``mu = w + Z' b`` so that a round costs O(m^3 + m s) instead of
O(m^2 d).

Only the leading ``n`` columns of the state matrices are read or written: the estimators keep
spare capacity beyond them (filled with zeros).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .linear import sparse_dot

__all__ = [
    "DEGENERATE_TOLERANCE",
    "oja_rate",
    "orthonormalise_rows",
    "rebase_sparse_sketch",
    "sacog_step",
    "sketch_scratch",
    "sketch_variance",
    "sparse_sacog_score",
    "sparse_sacog_score_into",
    "sparse_sacog_step",
    "sparse_sketch_variance",
]

# A row whose Gram-Schmidt residual falls below this fraction of its norm is numerically in the
# span of the earlier rows. In exact arithmetic this never happens (an Oja step multiplies V by
# the invertible I + xh xh' / t), so it only guards against rounding (D-ACOG-8).
DEGENERATE_TOLERANCE = 1e-12


@njit(cache=True)
def _row_square_norm(matrix, i, n):
    """``|matrix[i, :n]|^2``."""
    total = 0.0
    for j in range(n):
        total += matrix[i, j] * matrix[i, j]
    return total


@njit(cache=True)
def _subtract_row(matrix, i, r, coefficient, n):
    """``matrix[i, :n] -= coefficient * matrix[r, :n]``."""
    for j in range(n):
        matrix[i, j] -= coefficient * matrix[r, j]


@njit(cache=True)
def orthonormalise_rows(matrix, n):
    """Modified Gram-Schmidt of the rows of ``matrix[:, :n]``, in row order, in place.

    Row ``i`` keeps its place (and so its eigenvalue estimate, D-ACOG-7). A row that is
    numerically dependent on the earlier ones (residual norm below ``DEGENERATE_TOLERANCE`` times
    its norm) is replaced by the standard basis vector that is least explained by the earlier
    rows, orthogonalised against them: deterministic, so no random state is needed (D-ACOG-8).
    Returns the number of rows replaced.
    """
    m = matrix.shape[0]
    replaced = 0
    for i in range(m):
        before = _row_square_norm(matrix, i, n)
        for r in range(i):
            coefficient = 0.0
            for j in range(n):
                coefficient += matrix[r, j] * matrix[i, j]
            _subtract_row(matrix, i, r, coefficient, n)
        norm = _row_square_norm(matrix, i, n)
        if not norm > (DEGENERATE_TOLERANCE * DEGENERATE_TOLERANCE) * before or norm == 0.0:
            replaced += 1
            best, best_residual = 0, -1.0
            for j in range(n):
                explained = 0.0
                for r in range(i):
                    explained += matrix[r, j] * matrix[r, j]
                if 1.0 - explained > best_residual:
                    best, best_residual = j, 1.0 - explained
            for j in range(n):
                matrix[i, j] = 0.0
            matrix[i, best] = 1.0
            for r in range(i):
                _subtract_row(matrix, i, r, matrix[r, best], n)
            norm = _row_square_norm(matrix, i, n)
        scale = 1.0 / math.sqrt(norm)
        for j in range(n):
            matrix[i, j] *= scale
    return replaced


@njit(cache=True)
def _count_round(rounds, gamma):
    """Count a sketch round in ``rounds``; return ``(t, 1 / sqrt(gamma))``, the round's number
    and the scale of ``xh = x / sqrt(gamma)``, as both forms' rounds start."""
    rounds[0] += 1
    return float(rounds[0]), 1.0 / math.sqrt(gamma)


@njit(cache=True)
def oja_rate(oja_step, t):
    """The scalar step ``Gamma_t = min(oja_step / t, 1)``: ``1/t`` as printed for
    ``oja_step = 1``; Luo et al.'s code defaults to ``oja_step = 2`` (D-ACOG-6)."""
    return min(oja_step / t, 1.0)


@njit(cache=True)
def _oja_eigenvalues(eigen, projection, rate):
    """Eq. 11/16 with a scalar Gamma_t: ``lam_i <- (1 - rate) lam_i + rate p_i^2``."""
    for i in range(eigen.shape[0]):
        eigen[i] = (1.0 - rate) * eigen[i] + rate * projection[i] * projection[i]


@njit(cache=True)
def _shrinkage(eigen, t):
    """``D = t Lam H`` (Eq. 13): ``D_i = t lam_i / (1 + t lam_i)``."""
    out = np.empty(eigen.shape[0])
    for i in range(eigen.shape[0]):
        scaled = t * eigen[i]
        out[i] = scaled / (1.0 + scaled)
    return out


@njit(cache=True)
def _rows_times_sparse(matrix, indices, values, scale):
    """``scale * matrix[:, indices] @ values``: an m-vector in O(m s)."""
    out = np.empty(matrix.shape[0])
    _rows_times_sparse_into(matrix, indices, values, scale, out)
    return out


@njit(cache=True)
def _rows_times_sparse_into(matrix, indices, values, scale, out):
    """:func:`_rows_times_sparse` written into ``out`` (m)."""
    m = matrix.shape[0]
    for i in range(m):
        out[i] = 0.0
    for k in range(indices.shape[0]):
        j = indices[k]
        value = values[k] * scale
        for i in range(m):
            out[i] += matrix[i, j] * value


@njit(cache=True)
def sketch_scratch(m):
    """The working memory of one round of either form, ``(2 m + 5) x m``, so that a loop over
    many rows allocates it once: rows ``0 .. m-1`` and ``m .. 2m-1`` hold Algorithm 6's ``Q``
    and ``K Q'``, the last five the m-vectors of a round."""
    return np.empty((2 * m + 5, m))


@njit(cache=True)
def sacog_step(
    mean, basis, eigen, rounds, n, indices, values, y, margin, slope, eta, gamma, oja_step,
    on_loss_only, score=None, scratch=None,
):  # fmt: skip
    """One SACOG round (Algorithms 2 and 3) on the dense state.

    ``mean`` (d), ``basis`` = V (m x d, orthonormal rows), ``eigen`` = lam (m) and ``rounds``
    (int64[1], the sketch's ``t``) are updated in place. The loss is taken at the current mean;
    then the sketch takes the Oja step (rate :func:`oja_rate`) with ``xh = x / sqrt(gamma)``
    *whatever the loss* (as
    printed; ``on_loss_only`` skips it on zero-loss rounds, D-ACOG-4), and if the loss is positive
    the mean steps along the sketched covariance of the new sketch (Eq. 10):
    ``mean += eta * slope * y * (x - V' (D * V x))``. Loss I passes ``margin = rho_y, slope = 1``,
    loss II ``margin = 1, slope = rho_y``. Returns whether the mean changed.

    A caller that has ``score = mean . x`` at the current state (the array path, from its
    prediction) passes it, and a loop over many rows passes one :func:`sketch_scratch` for all
    (overwritten); otherwise the step computes the one and allocates the other.
    """
    if score is None:
        score = sparse_dot(mean, indices, values)
    if scratch is None:
        scratch = sketch_scratch(basis.shape[0])
    suffers = y * score < margin
    if on_loss_only and not suffers:
        return False
    m = basis.shape[0]
    t, inv_root_gamma = _count_round(rounds, gamma)
    rate = oja_rate(oja_step, t)
    projection = scratch[0]  # V_{t-1} xh
    _rows_times_sparse_into(basis, indices, values, inv_root_gamma, projection)
    _oja_eigenvalues(eigen, projection, rate)
    for k in range(indices.shape[0]):
        j = indices[k]
        value = values[k] * inv_root_gamma * rate
        for i in range(m):
            basis[i, j] += projection[i] * value
    orthonormalise_rows(basis, n)
    if not suffers:
        return False
    _dense_mean_step(mean, basis, eigen, t, indices, values, eta * slope * y, scratch[1], n)
    return True


@njit(cache=True)
def _dense_mean_step(mean, basis, eigen, t, indices, values, step, coordinates, n):
    """The loss step of dense SACOG (Eq. 10 with ``Sigma = I - V' D V``, Eq. 13):
    ``mu += step (x - V' D V x)`` on the new sketch; ``coordinates`` is an m-vector of scratch."""
    _rows_times_sparse_into(basis, indices, values, 1.0, coordinates)  # V_t x
    for k in range(indices.shape[0]):
        mean[indices[k]] += step * values[k]
    for i in range(basis.shape[0]):
        scaled = t * eigen[i]  # D_i (Eq. 13), as _shrinkage
        coefficient = step * (scaled / (1.0 + scaled)) * coordinates[i]
        if coefficient != 0.0:
            for j in range(n):
                mean[j] -= coefficient * basis[i, j]


@njit(cache=True)
def sketch_variance(basis, eigen, rounds, indices, values):
    """``x' Sigma x = |x|^2 - sum_i D_i (V x)_i^2`` for the dense sketch."""
    total = 0.0
    for k in range(values.shape[0]):
        total += values[k] * values[k]
    if rounds[0] == 0:
        return total
    shrink = _shrinkage(eigen, float(rounds[0]))
    coordinates = _rows_times_sparse(basis, indices, values, 1.0)
    for i in range(basis.shape[0]):
        total -= shrink[i] * coordinates[i] * coordinates[i]
    return total


# ---- sparse SACOG -------------------------------------------------------------------------------


@njit(cache=True)
def sparse_sacog_score(weights, offsets, directions, indices, values):
    """``mu . x = w . x + b . (Z x)`` without materialising ``mu``: O(m s)."""
    projected = np.empty(directions.shape[0])
    return sparse_sacog_score_into(weights, offsets, directions, indices, values, projected)


@njit(cache=True)
def sparse_sacog_score_into(weights, offsets, directions, indices, values, projected):
    """:func:`sparse_sacog_score`, leaving ``Z x`` in ``projected`` (m) for the round that
    follows (:func:`sparse_sacog_step`)."""
    _rows_times_sparse_into(directions, indices, values, 1.0, projected)
    total = sparse_dot(weights, indices, values)
    for i in range(offsets.shape[0]):
        total += offsets[i] * projected[i]
    return total


@njit(cache=True)
def _gram_square_norm(beta, gram):
    """``beta' K beta``: the squared norm of ``beta' Z`` from ``K = Z Z'``."""
    m = beta.shape[0]
    total = 0.0
    for a in range(m):
        for c in range(m):
            total += beta[a] * gram[a, c] * beta[c]
    return total


@njit(cache=True)
def _decompose(transform, gram, scratch):
    """Algorithm 6: replace ``F`` by ``Q`` such that the rows of ``Q Z`` are the Gram-Schmidt
    orthonormalisation of the rows of ``F Z``, computed from ``K = Z Z'`` only (inner product
    ``<a, b> = a' K b``). The projections are removed one at a time (modified Gram-Schmidt; the
    paper's classical form is equal in exact arithmetic) so that it matches
    :func:`orthonormalise_rows` on the dense sketch. O(m^3). Returns False, leaving ``F``
    unchanged, if a row is numerically dependent (the caller then re-bases). ``scratch`` is
    :func:`sketch_scratch` memory; only rows ``0 .. 2m`` are used.
    """
    m = transform.shape[0]
    q = scratch[:m]  # row r written before it is read
    kq = scratch[m : 2 * m]  # K q_r for the rows already accepted
    beta = scratch[2 * m]
    for i in range(m):
        for a in range(m):
            beta[a] = transform[i, a]
        before = _gram_square_norm(beta, gram)
        for r in range(i):
            coefficient = 0.0
            for a in range(m):
                coefficient += kq[r, a] * beta[a]
            for a in range(m):
                beta[a] -= coefficient * q[r, a]
        norm = _gram_square_norm(beta, gram)
        if not norm > (DEGENERATE_TOLERANCE * DEGENERATE_TOLERANCE) * before or norm <= 0.0:
            return False
        scale = 1.0 / math.sqrt(norm)
        for a in range(m):
            q[i, a] = beta[a] * scale
        for a in range(m):
            total = 0.0
            for c in range(m):
                total += gram[a, c] * q[i, c]
            kq[i, a] = total
    for i in range(m):
        for a in range(m):
            transform[i, a] = q[i, a]
    return True


@njit(cache=True)
def rebase_sparse_sketch(weights, offsets, directions, transform, gram, n, orthonormalise):
    """Make the implicit form explicit without changing ``mu`` (D-ACOG-19, numerical safeguard):
    ``w <- w + Z' b``, ``b <- 0``, ``Z <- F Z``, ``F <- I``, ``K <- Z Z'``. With
    ``orthonormalise`` the new ``Z`` is also re-orthonormalised (used when :func:`_decompose`
    meets a dependent row, as the dense sketch would). O(m^2 n)."""
    m = directions.shape[0]
    for i in range(m):
        coefficient = offsets[i]
        if coefficient != 0.0:
            for j in range(n):
                weights[j] += coefficient * directions[i, j]
        offsets[i] = 0.0
    row = np.empty(m)
    for j in range(n):
        for i in range(m):
            total = 0.0
            for a in range(m):
                total += transform[i, a] * directions[a, j]
            row[i] = total
        for i in range(m):
            directions[i, j] = row[i]
    if orthonormalise:
        orthonormalise_rows(directions, n)
    for i in range(m):
        for a in range(m):
            transform[i, a] = 1.0 if i == a else 0.0
    for i in range(m):
        for a in range(i, m):
            total = 0.0
            for j in range(n):
                total += directions[i, j] * directions[a, j]
            gram[i, a] = total
            gram[a, i] = total


@njit(cache=True)
def sparse_sacog_step(
    weights, offsets, directions, transform, gram, eigen, rounds, n, indices, values, y, margin,
    slope, eta, gamma, oja_step, on_loss_only, rebase_threshold, projected=None, score=None,
    scratch=None,
):  # fmt: skip
    """One sparse-SACOG round (Algorithms 4-6, eqs. 14-18, with D-ACOG-21 and D-ACOG-22).

    State, updated in place: ``w`` = ``weights`` (d), ``b`` = ``offsets`` (m), ``Z`` =
    ``directions`` (m x d), ``F`` = ``transform`` (m x m), ``K`` = ``gram`` = Z Z' (m x m),
    ``lam`` = ``eigen`` (m) and ``rounds`` (int64[1], ``t``); the mean is ``mu = w + Z' b``.

    Gamma_t is the scalar :func:`oja_rate` (``1/t`` as printed), so
    ``delta = F^-1 Gamma_t F Z xh = rate Z xh`` (no inverse; D-ACOG-22). The
    correction D-ACOG-21 is applied: ``w <- w - xh (delta . b)`` on *every* sketch update, as Z
    changes every round; this keeps ``mu`` exact and makes the sparse form equal to
    :func:`sacog_step`. On a positive loss ``w += eta c y x`` and, from Eq. 15 with
    ``g = -c y x``, ``b -= eta c y F' D F Z x`` (new F and Z). When ``max |K_ij|`` exceeds
    ``rebase_threshold`` the form is re-based (``mu`` unchanged). O(m^3 + m s) per round.
    Returns whether the mean was updated by the loss step.

    A caller that has ``projected = Z x`` and ``score = mu . x`` at the current state (the array
    path, from its prediction, :func:`sparse_sacog_score_into`) passes them, and a loop over many
    rows passes one :func:`sketch_scratch` for all (overwritten; ``projected`` may be one of its
    rows); otherwise the step computes them and allocates the scratch.
    """
    if scratch is None:
        scratch = sketch_scratch(directions.shape[0])
    if score is None:
        projected = scratch[2 * directions.shape[0] + 1]  # Z_{t-1} x
        score = sparse_sacog_score_into(weights, offsets, directions, indices, values, projected)
    suffers = y * score < margin
    if on_loss_only and not suffers:
        return False
    m = directions.shape[0]
    t, inv_root_gamma = _count_round(rounds, gamma)
    residual = scratch[2 * m + 2]  # r = Z_{t-1} xh
    for i in range(m):
        residual[i] = projected[i] * inv_root_gamma
    projection = scratch[2 * m + 3]  # p = F_{t-1} r = V_{t-1} xh
    for i in range(m):
        total = 0.0
        for a in range(m):
            total += transform[i, a] * residual[a]
        projection[i] = total
    rate = oja_rate(oja_step, t)
    _oja_eigenvalues(eigen, projection, rate)
    delta = scratch[2 * m + 4]
    for i in range(m):
        delta[i] = residual[i] * rate
    squared_norm = 0.0
    for k in range(values.shape[0]):
        hat = values[k] * inv_root_gamma
        squared_norm += hat * hat
    # Eq. 18 with delta = rate r: K += (2 rate + |xh|^2 rate^2) r r'
    factor = 2.0 * rate + squared_norm * rate * rate
    for i in range(m):
        for a in range(m):
            gram[i, a] += factor * residual[i] * residual[a]
    along = 0.0  # delta . b
    for i in range(m):
        along += delta[i] * offsets[i]
    for k in range(indices.shape[0]):
        j = indices[k]
        hat = values[k] * inv_root_gamma
        for i in range(m):
            directions[i, j] += delta[i] * hat
        weights[j] -= hat * along  # D-ACOG-21: keep mu = w + Z' b exact as Z changes
    if not _decompose(transform, gram, scratch):
        rebase_sparse_sketch(weights, offsets, directions, transform, gram, n, True)
    if suffers:
        step = eta * slope * y
        _sparse_mean_step(
            weights, offsets, directions, transform, eigen, t, indices, values, step, scratch
        )
    largest = 0.0
    for i in range(m):
        for a in range(m):
            largest = max(largest, abs(gram[i, a]))
    if largest > rebase_threshold:
        rebase_sparse_sketch(weights, offsets, directions, transform, gram, n, False)
    return suffers


@njit(cache=True)
def _sparse_mean_step(
    weights, offsets, directions, transform, eigen, t, indices, values, step, scratch
):
    """The loss step of sparse SACOG (Eq. 15 with ``g = -c y x``): ``w += step x`` and
    ``b -= step F' D F Z_t x``, on the new ``F`` and ``Z``; two rows of ``scratch``."""
    m = directions.shape[0]
    for k in range(indices.shape[0]):
        weights[indices[k]] += step * values[k]
    projected = scratch[2 * m + 1]  # Z_t x
    _rows_times_sparse_into(directions, indices, values, 1.0, projected)
    coordinates = scratch[2 * m + 2]  # D F Z_t x
    for i in range(m):
        total = 0.0
        for a in range(m):
            total += transform[i, a] * projected[a]
        scaled = t * eigen[i]  # D_i (Eq. 13), as _shrinkage
        coordinates[i] = (scaled / (1.0 + scaled)) * total
    for a in range(m):
        total = 0.0
        for i in range(m):
            total += transform[i, a] * coordinates[i]
        offsets[a] -= step * total


@njit(cache=True)
def sparse_sketch_variance(directions, transform, eigen, rounds, indices, values):
    """``x' Sigma x = |x|^2 - sum_i D_i (F Z x)_i^2`` for the sparse sketch: O(m s + m^2)."""
    total = 0.0
    for k in range(values.shape[0]):
        total += values[k] * values[k]
    if rounds[0] == 0:
        return total
    m = directions.shape[0]
    shrink = _shrinkage(eigen, float(rounds[0]))
    projected = _rows_times_sparse(directions, indices, values, 1.0)
    for i in range(m):
        coordinate = 0.0
        for a in range(m):
            coordinate += transform[i, a] * projected[a]
        total -= shrink[i] * coordinate * coordinate
    return total
