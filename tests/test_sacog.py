"""SACOG and sparse SACOG (seed 002, Algorithms 2-6): numpy references of both forms, their
agreement with the jitted kernels, the equality of the two forms on real data, the feature-space
conventions and bad input (River's checks: tests/test_river_checks.py)."""

from __future__ import annotations

import math
import pickle
import random
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets, preprocessing
from test_linear_baselines import assert_bad_input_leaves_unchanged

from imbalance_stream._numba import sketch as kernels
from imbalance_stream._numba import stream
from imbalance_stream.datasets import get_data_home
from imbalance_stream.linear_model import SACOG
from imbalance_stream.linear_model.sacog import initial_sketch

# ---- plain-numpy references, written from the paper's algorithms --------------------------------


def orthonormal_rows(matrix):
    """Orthonormalise the rows in order through numpy's QR (Gram-Schmidt up to row signs, which
    the sketch does not depend on: each row enters as v v')."""
    q, r = np.linalg.qr(matrix.T)
    return (q * np.sign(np.diag(r))).T


def cost_sensitive_hinge(loss, rho, x, y, score):
    """Whether ACOG's loss I (rho in the margin) or II (rho in the slope) is positive, and its
    gradient in w."""
    rho_y = rho if y > 0 else 1.0
    if loss == "I":
        return y * score < rho_y, -y * x
    return y * score < 1.0, -rho_y * y * x


class DenseReference:
    """Algorithms 2 and 3 as printed: S = (t Lam)^1/2 V, H = diag(1 / (1 + t Lam)),
    mu <- mu - eta (g - S' H S g) with the covariance materialised."""

    def __init__(self, start, loss, rho, eta, gamma):
        self.V = start.copy()
        self.lam = np.zeros(start.shape[0])
        self.t = 0
        self.mu = np.zeros(start.shape[1])
        self.loss, self.rho, self.eta, self.gamma = loss, rho, eta, gamma

    def score(self, x):
        return self.mu @ x

    def learn(self, x, y):
        suffers, gradient = cost_sensitive_hinge(self.loss, self.rho, x, y, self.score(x))
        xh = x / math.sqrt(self.gamma)
        self.t += 1
        rate = 1.0 / self.t
        self.lam = (1 - rate) * self.lam + rate * (self.V @ xh) ** 2
        self.V = orthonormal_rows(self.V + rate * np.outer(self.V @ xh, xh))
        S = np.sqrt(self.t * self.lam)[:, None] * self.V
        H = np.diag(1.0 / (1.0 + self.t * self.lam))
        if suffers:
            self.mu = self.mu - self.eta * (gradient - S.T @ H @ S @ gradient)
        return suffers


def decompose(F, K):
    """Algorithm 6 as printed (classical Gram-Schmidt in the K inner product)."""
    m = F.shape[0]
    L, Q = np.zeros((m, m)), np.zeros((m, m))
    for i in range(m):
        f = F[i]
        alpha = Q @ K @ f
        beta = f - Q.T @ alpha
        c = math.sqrt(beta @ K @ beta)
        if c != 0:
            Q[i] = beta / c
        alpha[i] = c
        L[i] = alpha
    return L, Q


class SparseReference:
    """Algorithms 4-6 with the corrections D-ACOG-21 and D-ACOG-22: delta = F^-1 Gamma F Z xh
    (column vector), w corrected on every Z change, b updated with Eq. 15."""

    def __init__(self, start, loss, rho, eta, gamma):
        m, d = start.shape
        self.Z = start.copy()
        self.F = np.eye(m)
        self.K = np.eye(m)
        self.lam = np.zeros(m)
        self.t = 0
        self.w = np.zeros(d)
        self.b = np.zeros(m)
        self.loss, self.rho, self.eta, self.gamma = loss, rho, eta, gamma

    @property
    def mu(self):
        return self.w + self.Z.T @ self.b

    def score(self, x):
        return self.w @ x + self.b @ (self.Z @ x)

    def learn(self, x, y):
        suffers, gradient = cost_sensitive_hinge(self.loss, self.rho, x, y, self.score(x))
        xh = x / math.sqrt(self.gamma)
        # Algorithm 5
        self.t += 1
        gamma_t = np.eye(len(self.b)) / self.t
        self.lam = (1 - 1 / self.t) * self.lam + (1 / self.t) * (self.F @ self.Z @ xh) ** 2
        delta = np.linalg.solve(self.F, gamma_t @ self.F @ self.Z @ xh)
        self.K = (
            self.K
            + np.outer(self.Z @ xh, delta)
            + np.outer(delta, self.Z @ xh)
            + (xh @ xh) * np.outer(delta, delta)
        )
        self.Z = self.Z + np.outer(delta, xh)
        _, Q = decompose(self.F, self.K)
        self.F = Q
        D = np.diag(self.t * self.lam / (1 + self.t * self.lam))  # t Lam H
        # Algorithm 4, with the w correction applied on every round (D-ACOG-21)
        self.w = self.w - xh * (delta @ self.b)
        if suffers:
            self.w = self.w - self.eta * gradient
            self.b = self.b + self.eta * self.F.T @ D @ self.F @ self.Z @ gradient
        return suffers


def random_stream(rng, n, d, density=1.0):
    """Unit-norm samples, some sparse, labels from a noisy hyperplane (about 1:3 positive)."""
    truth = rng.standard_normal(d)
    samples = []
    for _ in range(n):
        x = rng.standard_normal(d) * (rng.random(d) < density)
        if not x.any():
            x[rng.integers(d)] = 1.0
        x /= np.linalg.norm(x)
        y = 1.0 if x @ truth + 0.3 * rng.standard_normal() > 0.5 else -1.0
        samples.append((x, y))
    return samples


def run_dense_kernel(start, samples, loss, rho, eta, gamma, on_loss_only=False, oja_step=1.0):
    m, d = start.shape
    mean, basis = np.zeros(d), start.copy()
    eigen, rounds = np.zeros(m), np.zeros(1, dtype=np.int64)
    scores = []
    for x, y in samples:
        idx = np.flatnonzero(x).astype(np.int64)
        val = x[idx]
        scores.append(mean[idx] @ val)
        rho_y = rho if y > 0 else 1.0
        margin, slope = (rho_y, 1.0) if loss == "I" else (1.0, rho_y)
        kernels.sacog_step(
            mean,
            basis,
            eigen,
            rounds,
            d,
            idx,
            val,
            y,
            margin,
            slope,
            eta,
            gamma,
            oja_step,
            on_loss_only,
        )
    return np.array(scores), mean


def run_sparse_kernel(
    start, samples, loss, rho, eta, gamma, threshold=1e7, on_loss_only=False, oja_step=1.0
):
    m, d = start.shape
    w, b, Z = np.zeros(d), np.zeros(m), start.copy()
    F, K = np.eye(m), np.eye(m)
    eigen, rounds = np.zeros(m), np.zeros(1, dtype=np.int64)
    scores = []
    for x, y in samples:
        idx = np.flatnonzero(x).astype(np.int64)
        val = x[idx]
        scores.append(kernels.sparse_sacog_score(w, b, Z, idx, val))
        rho_y = rho if y > 0 else 1.0
        margin, slope = (rho_y, 1.0) if loss == "I" else (1.0, rho_y)
        kernels.sparse_sacog_step(
            w,
            b,
            Z,
            F,
            K,
            eigen,
            rounds,
            d,
            idx,
            val,
            y,
            margin,
            slope,
            eta,
            gamma,
            oja_step,
            on_loss_only,
            threshold,
        )
    return np.array(scores), w + Z.T @ b


# ---- kernels against the references --------------------------------------------------------------


def assert_kernel_matches_reference(reference_cls, run_kernel, loss, density, seed, sketch_seed):
    rng = np.random.default_rng(seed)
    samples = random_stream(rng, 400, 12, density)
    start = initial_sketch(4, 12, seed=sketch_seed)
    reference = reference_cls(start, loss, rho=2.5, eta=0.7, gamma=0.8)
    expected, updates = [], 0
    for x, y in samples:
        expected.append(reference.score(x))
        updates += reference.learn(x, y)
    assert 0 < updates < len(samples)  # both branches, including zero-loss sketch updates
    scores, mean = run_kernel(start, samples, loss, 2.5, 0.7, 0.8)
    np.testing.assert_allclose(scores, expected, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(mean, reference.mu, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("loss", ["I", "II"])
@pytest.mark.parametrize("density", [1.0, 0.3])
def test_dense_kernel_matches_reference(loss, density):
    assert_kernel_matches_reference(DenseReference, run_dense_kernel, loss, density, 7, 3)


@pytest.mark.parametrize("loss", ["I", "II"])
@pytest.mark.parametrize("density", [1.0, 0.3])
def test_sparse_kernel_matches_reference(loss, density):
    assert_kernel_matches_reference(SparseReference, run_sparse_kernel, loss, density, 11, 5)


def test_the_two_references_are_the_same_algorithm():
    """Sparse SACOG (Algorithms 4-6) re-parametrises SACOG (Algorithms 2-3) exactly, given
    D-ACOG-21, at the level of the printed algorithms."""
    rng = np.random.default_rng(2)
    samples = random_stream(rng, 300, 10, 0.5)
    start = initial_sketch(3, 10, seed=0)
    dense = DenseReference(start, "II", 3.0, 1.0, 1.0)
    sparse = SparseReference(start, "II", 3.0, 1.0, 1.0)
    for x, y in samples:
        assert dense.score(x) == pytest.approx(sparse.score(x), rel=1e-8, abs=1e-10)
        dense.learn(x, y)
        sparse.learn(x, y)
    np.testing.assert_allclose(dense.mu, sparse.mu, rtol=1e-8, atol=1e-10)


def test_without_the_s3_correction_the_sparse_form_drifts():
    """The correction is needed: Algorithm 4 as printed (w untouched on zero-loss rounds) gives a
    different mean from SACOG as soon as a zero-loss round follows an update."""
    rng = np.random.default_rng(2)
    samples = random_stream(rng, 200, 10, 0.5)
    start = initial_sketch(3, 10, seed=0)
    dense = DenseReference(start, "I", 1.0, 1.0, 1.0)
    printed = SparseReference(start, "I", 1.0, 1.0, 1.0)
    for x, y in samples:
        dense.learn(x, y)
        before = printed.w.copy()
        suffers = printed.learn(x, y)
        if not suffers:
            printed.w = before  # Algorithm 4, line 14: w_{t+1} = w_t
    assert np.abs(dense.mu - printed.mu).max() > 1e-3


def test_rebasing_keeps_the_mean():
    """Re-basing often (threshold just above 1) changes nothing but rounding."""
    rng = np.random.default_rng(4)
    samples = random_stream(rng, 300, 9, 0.6)
    start = initial_sketch(3, 9, seed=1)
    scores, mean = run_dense_kernel(start, samples, "I", 2.0, 1.0, 0.5)
    rebased_scores, rebased_mean = run_sparse_kernel(start, samples, "I", 2.0, 1.0, 0.5, 1.5)
    np.testing.assert_allclose(rebased_scores, scores, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(rebased_mean, mean, rtol=1e-8, atol=1e-10)


def test_oja_step_scales_gamma_t():
    """Gamma_t = min(c / t, 1): c = 2 (Luo et al.'s default) changes the model, and the sparse
    form still equals the dense one for any scalar step."""
    rng = np.random.default_rng(8)
    samples = random_stream(rng, 200, 9, 0.6)
    start = initial_sketch(3, 9, seed=2)
    printed, _ = run_dense_kernel(start, samples, "II", 2.0, 1.0, 1.0)
    dense, _ = run_dense_kernel(start, samples, "II", 2.0, 1.0, 1.0, oja_step=2.0)
    sparse, _ = run_sparse_kernel(start, samples, "II", 2.0, 1.0, 1.0, oja_step=2.0)
    np.testing.assert_allclose(sparse, dense, rtol=1e-8, atol=1e-10)
    assert np.abs(dense - printed).max() > 1e-3
    assert kernels.oja_rate(2.0, 1.0) == 1.0 and kernels.oja_rate(2.0, 8.0) == 0.25


def test_sketch_on_loss_only_skips_zero_loss_rounds():
    rng = np.random.default_rng(5)
    samples = random_stream(rng, 200, 8)
    start = initial_sketch(3, 8, seed=1)
    m, d = start.shape
    mean, basis, eigen, rounds = np.zeros(d), start.copy(), np.zeros(m), np.zeros(1, np.int64)
    updates = 0
    for x, y in samples:
        idx = np.flatnonzero(x).astype(np.int64)
        updates += kernels.sacog_step(
            mean, basis, eigen, rounds, d, idx, x[idx], y, 1.0, 1.0, 1.0, 1.0, 1.0, True
        )
    assert rounds[0] == updates < len(samples)
    dense_scores, _ = run_dense_kernel(start, samples, "I", 1.0, 1.0, 1.0, True)
    sparse_scores, _ = run_sparse_kernel(start, samples, "I", 1.0, 1.0, 1.0, 1e7, True)
    np.testing.assert_allclose(sparse_scores, dense_scores, rtol=1e-8, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(0, 6),
    st.integers(0, 2**31 - 1),
    st.booleans(),
)
def test_orthonormalise_rows(m, extra, seed, duplicate):
    """Rows come out orthonormal, each spanning what the earlier input rows span; a dependent row
    (a duplicate) is replaced by a vector orthogonal to the others."""
    n = m + extra
    rng = np.random.default_rng(seed)
    matrix = rng.standard_normal((m, n + 2))
    matrix[:, n:] = 7.0  # columns beyond n are not touched
    if duplicate and m > 1:
        matrix[m - 1, :n] = matrix[0, :n]
    original = matrix.copy()
    replaced = kernels.orthonormalise_rows(matrix, n)
    np.testing.assert_allclose(matrix[:, :n] @ matrix[:, :n].T, np.eye(m), atol=1e-10)
    assert (matrix[:, n:] == 7.0).all()
    assert replaced == (1 if duplicate and m > 1 else 0)
    for i in range(m - replaced):
        # row i lies in the span of the first i + 1 input rows
        basis = original[: i + 1, :n]
        coefficients, *_ = np.linalg.lstsq(basis.T, matrix[i, :n], rcond=None)
        np.testing.assert_allclose(basis.T @ coefficients, matrix[i, :n], atol=1e-8)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**31 - 1))
def test_decompose_orthonormalises_in_the_gram_metric(m, seed):
    """Algorithm 6: with K = Z Z', the new F makes F Z orthonormal, row by row the same as
    Gram-Schmidt of the rows of (old F) Z; L Q Z = F Z with L lower triangular."""
    rng = np.random.default_rng(seed)
    Z = rng.standard_normal((m, m + 4))
    F = rng.standard_normal((m, m)) + 3 * np.eye(m)
    K = Z @ Z.T
    expected = F @ Z
    kernels.orthonormalise_rows(expected, m + 4)
    transform = F.copy()
    assert kernels._decompose(transform, K.copy(), kernels.sketch_scratch(m))
    np.testing.assert_allclose(transform @ Z, expected, atol=1e-8)
    L, Q = decompose(F, K)  # the printed algorithm
    np.testing.assert_allclose(L @ Q @ Z, F @ Z, atol=1e-8)
    np.testing.assert_allclose(np.triu(L, 1), 0.0, atol=1e-12)
    np.testing.assert_allclose(Q @ Z, expected, atol=1e-8)


# ---- the estimator on real data ---------------------------------------------------------------


def libsvm_rows(name, n, n_features, positive):
    """The first ``n`` rows of a LIBSVM file of the data home, each scaled to unit L2 norm as in
    the paper, labelled ``label == positive``."""
    from sklearn.datasets import load_svmlight_file

    path = get_data_home() / "libsvm" / name
    X, y = load_svmlight_file(str(path), n_features=n_features)
    X = X.tocsr()
    rows = []
    for i in range(n):
        start, stop = X.indptr[i], X.indptr[i + 1]
        values = X.data[start:stop] / np.linalg.norm(X.data[start:stop])
        rows.append((dict(zip(X.indices[start:stop].tolist(), values.tolist())), y[i] == positive))
    return rows


@pytest.mark.parametrize(
    "name, n_features, positive, loss",
    [
        # sparse, 112 binary features; positive = edible, the majority (as the ACOG paper's
        # Table IV counts imply)
        pytest.param("mushrooms", 112, 2, "I", marks=pytest.mark.requires_data("mushrooms")),
        # sparse, 123 binary features, about 1:3.2
        pytest.param("a9a.gz", 123, 1, "II", marks=pytest.mark.requires_data("libsvm/a9a.gz")),
    ],
)
def test_sparse_and_dense_sacog_agree_on_real_data(name, n_features, positive, loss):
    stream = libsvm_rows(name, 3000, n_features, positive)
    dense = SACOG(loss=loss, eta=1.0, seed=7)
    sparse = SACOG(loss=loss, eta=1.0, seed=7, sparse=True)
    zero_loss_rounds = 0
    for x, y in stream:
        a, b = dense.decision_one(x), sparse.decision_one(x)
        assert a == pytest.approx(b, rel=1e-8, abs=1e-8)
        assert dense.predict_one(x) == sparse.predict_one(x)
        updates = dense.n_updates
        dense.learn_one(x, y)
        sparse.learn_one(x, y)
        zero_loss_rounds += dense.n_updates == updates
    assert dense.n_updates == sparse.n_updates > 20
    assert dense.n_sketch_updates == sparse.n_sketch_updates == len(stream)
    assert zero_loss_rounds > 100  # the sketch moved on these rounds too
    dw, sw = dense.weights, sparse.weights
    assert dw.keys() == sw.keys()
    np.testing.assert_allclose([sw[k] for k in dw], [dw[k] for k in dw], rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(sparse.directions, dense.directions, atol=1e-8)
    x = stream[0][0]
    assert sparse.predict_proba_one(x)[True] == pytest.approx(
        dense.predict_proba_one(x)[True], abs=1e-8
    )


def test_learning_on_phishing_beats_chance():
    from river import evaluate, metrics

    for sparse in (False, True):
        model = preprocessing.StandardScaler() | SACOG(loss="II", eta=0.1, sparse=sparse, seed=1)
        metric = evaluate.progressive_val_score(
            datasets.Phishing(), model, metrics.BalancedAccuracy()
        )
        assert metric.get() > 0.75


def test_variance_matches_the_sketched_covariance():
    model = SACOG(seed=3, m=3)
    for x, y in datasets.Phishing().take(50):
        model.learn_one(x, y)
    x = next(iter(datasets.Phishing()))[0]
    idx, val, _ = model._features.encode(x, grow=False)
    dense = model._features.dense(idx, val, model._n_columns)
    V = model.directions
    D = model.eigenvalues / (1 + model.eigenvalues)
    sigma = np.eye(len(dense)) - V.T @ np.diag(D) @ V
    assert model._variance(idx, val) == pytest.approx(dense @ sigma @ dense)
    score = model.decision_one(x)
    expected = 0.5 * math.erfc(-score / math.sqrt(dense @ sigma @ dense) / math.sqrt(2))
    assert model.predict_proba_one(x)[True] == pytest.approx(expected)


# ---- feature space --------------------------------------------------------------------------


def test_key_order_does_not_matter_even_with_spare_columns():
    """Fewer features than m on the first sample: the spare starting columns go to later features
    in sorted-name order, so a shuffled copy of the stream gives the same model."""
    rng = random.Random(0)
    stream = [({"b": 1.0, "a": -0.5}, True), ({"d": 0.3, "c": 1.0, "e": 2.0}, False)]
    stream += [({k: rng.uniform(-1, 1) for k in "abcdefg"}, rng.random() < 0.3) for _ in range(60)]
    for sparse in (False, True):
        one, two = SACOG(m=4, seed=1, sparse=sparse), SACOG(m=4, seed=1, sparse=sparse)
        for x, y in stream:
            keys = list(x)
            rng.shuffle(keys)
            assert one.decision_one(x) == pytest.approx(
                two.decision_one({k: x[k] for k in keys}), rel=1e-9, abs=1e-12
            )
            one.learn_one(x, y)
            two.learn_one({k: x[k] for k in keys}, y)
        assert one.weights == pytest.approx(two.weights, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("sparse", [False, True])
def test_growing_feature_space_is_the_fixed_space_with_zero_columns(sparse):
    """A model whose features appear over time equals Algorithm 2 run on the final space from a
    start whose late columns are zero; the first sample's columns take the seeded
    start in sorted-name order whatever the order of the dict's keys."""
    rng = np.random.default_rng(9)
    d, early, m = 10, 6, 3
    samples = random_stream(rng, 200, d, 0.7)
    for x, _ in samples[:40]:
        x[early:] = 0.0  # features 6..9 appear only after 40 samples
    samples[0][0][:early] = rng.uniform(0.5, 1.0, early)
    start = np.zeros((m, d))
    start[:, :early] = initial_sketch(m, early, seed=4)
    reference = DenseReference(start, "II", 2.0, 0.5, 1.0)
    model = SACOG(loss="II", m=m, rho=2.0, eta=0.5, seed=4, sparse=sparse)
    for x, y in samples:
        keys = [int(j) for j in np.flatnonzero(x)][::-1]  # reversed: not the sorted order
        sample = {j: float(x[j]) for j in keys}
        assert model.decision_one(sample) == pytest.approx(reference.score(x), abs=1e-9)
        model.learn_one(sample, y > 0)
        reference.learn(x, y)
    weights = model.weights
    np.testing.assert_allclose([weights[j] for j in range(d)], reference.mu, atol=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_the_steps_runner_is_the_reference_on_a_growing_feature_space(sparse):
    """``stream.steps_sacog`` (through ``run_steps``: predictions and learned labels in any
    order, the sketch drawn at the first learned sample, late features entering as zero columns
    inside the run) against Algorithm 2 on the final space as above, the predictions by numpy:
    ``mu.x`` and ``Phi(mu.x / sqrt(x' Sigma x))`` with ``Sigma = I - V' D V`` materialised, over
    the features learned so far (the model leaves out the names it has not learned)."""
    rng = np.random.default_rng(9)
    d, early, m = 10, 6, 3
    samples = random_stream(rng, 300, d, 0.7)
    for x, _ in samples[:80]:
        x[early:] = 0.0  # features 6..9 appear only after 80 samples
    samples[0][0][:early] = rng.uniform(0.5, 1.0, early)
    learn = rng.random(len(samples)) < 0.5
    learn[0] = True
    start = np.zeros((m, d))
    start[:, :early] = initial_sketch(m, early, seed=4)
    reference = DenseReference(start, "II", 2.0, 0.5, 1.0)
    model = SACOG(loss="II", m=m, rho=2.0, eta=0.5, seed=4, sparse=sparse)
    rows = np.array([x for x, _ in samples])
    names = [f"f{j}" for j in range(d)]  # sorted as the columns: the start's order
    run = model.run_steps(rows, names, learn, [y > 0 for _, y in samples])
    assert run.done == len(rows)
    seen = np.zeros(d, dtype=bool)
    scores, probas = [], []
    for (x, y), learned in zip(samples, learn):
        if learned:
            reference.learn(x, y)
            seen |= x != 0.0
            continue
        known = np.where(seen, x, 0.0)
        shrink = reference.t * reference.lam / (1.0 + reference.t * reference.lam)
        sigma = np.eye(d) - reference.V.T @ np.diag(shrink) @ reference.V
        score = reference.mu @ known
        scores.append(score)
        probas.append(statistics.NormalDist().cdf(score / math.sqrt(known @ sigma @ known)))
    np.testing.assert_allclose(run.decisions[~learn], scores, atol=1e-9)
    np.testing.assert_allclose(run.probas[~learn], probas, atol=1e-9)
    weights = model.weights
    np.testing.assert_allclose([weights[name] for name in names], reference.mu, atol=1e-9)
    assert model.n_sketch_updates == reference.t == learn.sum()


def round_finite_reference(sparse, mean, offsets, basis, transform, gram, eigen):
    """Plain numpy: every value of the form's state finite (``learn_one``'s check; the dense
    form has no ``b``, ``F`` or ``K``)."""
    state = (mean, offsets, basis, transform, gram, eigen) if sparse else (mean, basis, eigen)
    return all(np.isfinite(a).all() for a in state)


@settings(max_examples=200, deadline=None)
@given(
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**31 - 1),
    st.sampled_from([None, "mean", "basis", "offsets", "transform", "gram", "eigen"]),
    st.sampled_from([math.nan, math.inf, -math.inf]),
)
def test_the_check_of_a_round_is_numpys_check_of_the_state(sparse, rebased, seed, where, bad):
    """``stream.sketch_round_finite`` against numpy on a state a round may have left with a
    value not finite where it writes: the columns in use of a dense round or of a sparse one that
    re-based (its ``F`` then the identity), the row's columns of another sparse round. What
    lies elsewhere, which no round writes, it does not read; nor, in the dense form, the
    sparse form's ``b``, ``F`` and ``K``."""
    rng = np.random.default_rng(seed)
    m, n, capacity = 3, 7, 16
    mean, basis = np.zeros(capacity), np.zeros((m, capacity))
    mean[:n], basis[:, :n] = rng.normal(size=n), rng.normal(size=(m, n))
    offsets, eigen = rng.normal(size=m), rng.random(m)
    transform = np.eye(m) if rebased else rng.normal(size=(m, m))
    gram = rng.normal(size=(m, m))
    indices = np.sort(rng.choice(n, size=3, replace=False)).astype(np.int64)
    written = indices if sparse and not rebased else np.arange(n)
    state = {"mean": mean, "basis": basis, "offsets": offsets}
    state.update(transform=transform, gram=gram, eigen=eigen)
    if where == "mean":
        mean[rng.choice(written)] = bad
    elif where == "basis":
        basis[rng.integers(m), rng.choice(written)] = bad
    elif where is not None:
        array = state[where]
        array.flat[rng.integers(array.size)] = bad
    arrays = (mean, offsets, basis, transform, gram, eigen)
    expected = round_finite_reference(sparse, *arrays)
    assert stream.sketch_round_finite(sparse, *arrays, n, indices) == expected
    unwritten = np.setdiff1d(np.arange(capacity), written)
    mean[unwritten] = basis[:, unwritten] = math.nan  # never written by the round: not read
    assert stream.sketch_round_finite(sparse, *arrays, n, indices) == expected


@settings(max_examples=25, deadline=None)
@given(
    st.integers(0, 2**31 - 1),
    st.sampled_from(["I", "II"]),
    st.floats(0.05, 20.0),
    st.floats(0.01, 10.0),
    st.floats(0.2, 1.0),
    st.integers(1, 4),
)
def test_sparse_equals_dense_on_any_stream(seed, loss, gamma, eta, density, m):
    rng = np.random.default_rng(seed)
    samples = random_stream(rng, 60, 7, density)
    start = initial_sketch(m, 7, seed=seed)
    dense_scores, dense_mean = run_dense_kernel(start, samples, loss, 3.0, eta, gamma)
    sparse_scores, sparse_mean = run_sparse_kernel(start, samples, loss, 3.0, eta, gamma)
    scale = max(1.0, np.abs(dense_mean).max())
    np.testing.assert_allclose(sparse_scores, dense_scores, atol=1e-8 * scale)
    np.testing.assert_allclose(sparse_mean, dense_mean, atol=1e-8 * scale)


def test_new_features_enter_with_zero_columns():
    model = SACOG(m=2, seed=0)
    model.learn_one({"a": 1.0, "b": 2.0, "c": 0.5}, True)
    model.learn_one({"a": 1.0, "z": 1.0}, False)
    V = model.directions
    np.testing.assert_allclose(V @ V.T, np.eye(2), atol=1e-12)
    fresh = SACOG(m=2, seed=0)
    fresh.learn_one({"a": 1.0, "b": 2.0, "c": 0.5}, True)
    before = fresh.directions
    assert before.shape == (2, 3)
    model.learn_one({"q": 1.0}, True)  # q's column is zero until q is learned: stays orthonormal
    V = model.directions
    np.testing.assert_allclose(V @ V.T, np.eye(2), atol=1e-12)


def test_seed_controls_the_start():
    stream = list(datasets.Phishing().take(100))
    runs = []
    for seed in (1, 1, 2):
        model = SACOG(seed=seed)
        for x, y in stream:
            model.learn_one(x, y)
        runs.append(model.weights)
    assert runs[0] == runs[1]
    assert runs[0] != runs[2]
    start = initial_sketch(5, 9, seed=4)
    np.testing.assert_allclose(start @ start.T, np.eye(5), atol=1e-12)
    with pytest.raises(ValueError, match="at least 5 columns"):
        initial_sketch(5, 4)


def test_intercept_before_learning():
    model = SACOG(intercept=True, seed=0)
    assert model.predict_proba_one({"a": 1.0}) == {True: 0.5, False: 0.5}
    model.learn_one({}, True)  # the constant feature alone
    assert model.intercept_ > 0


# ---- River citizenship and bad input -------------------------------------------------------------


# River's own checks (river.checks.check_estimator's list, every configuration of
# ``_unit_test_params``) run in tests/test_river_checks.py, which collects every exported estimator.


@pytest.mark.parametrize("sparse", [False, True])
def test_bad_input_leaves_the_model_unchanged(sparse):
    assert_bad_input_leaves_unchanged(
        SACOG(sparse=sparse, seed=0, rho=2.0), SACOG(sparse=sparse, seed=0)
    )


def test_first_thousand_samples_of_one_class():
    model = SACOG(sparse=True, seed=0)
    rng = np.random.default_rng(0)
    for _ in range(1000):
        model.learn_one({f"f{j}": v for j, v in enumerate(rng.standard_normal(6))}, False)
    assert model.current_rho() == pytest.approx(1001.0)
    proba = model.predict_proba_one({"f0": 1.0})
    assert set(proba) == {True, False} and sum(proba.values()) == pytest.approx(1.0)
    assert all(math.isfinite(w) for w in model.weights.values())


def test_invalid_parameters():
    for params in (
        {"loss": "III"},
        {"m": 0},
        {"m": 2.5},
        {"rho": -1.0},
        {"eta": 0},
        {"gamma": -1},
        {"oja_step": 0},
    ):
        with pytest.raises(ValueError):
            SACOG(**params)


@pytest.mark.parametrize("sparse", [False, True])
def test_an_update_that_overflows_is_rolled_back_whole(sparse):
    """SACOG's own transaction (copies of its arrays, one finiteness check): a step that
    overflows, on a sample that also brings a new feature, leaves the model exactly as it was."""
    from test_reliability import warmed

    from imbalance_stream.base import NumericalError

    model = warmed(SACOG, {"m": 3, "sparse": sparse, "seed": 0})
    model._mean[0] = 1.7e308  # a state at the edge of the float range
    model.eta = 1e300
    before = pickle.dumps(model)
    with pytest.raises(NumericalError, match="non-finite"):
        model.learn_one({"f0": -1e15, "g": 1.0}, True)
    assert pickle.dumps(model) == before
    assert "g" not in model._features.index
