"""A plain-numpy KOIL step, written straight from the thesis's Algorithms 1-3 (eqs. 3.9, 3.10,
3.18, with the resolutions D-KOIL-1 to D-KOIL-7 of docs/decisions.md),
and the check that the jitted step with its Gram cache and incremental scores gives the same
weights over a stream.

The reference recomputes every opposite score from scratch (O(N^2 d) per step); the benchmark
``benchmarks/bench_koil.py`` times it against the package's step.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream.kernel import KOIL


def reference_kernel(name, gamma, degree):
    if name == "rbf":
        return lambda A, b: np.exp(-gamma * np.sum((A - b) ** 2, axis=-1))
    if name == "poly":
        return lambda A, b: (gamma * (A @ b)) ** degree
    return lambda A, b: A @ b


class NaiveKOIL:
    """KOIL on Python lists, one buffer per class; ``step`` takes the two uniforms the package
    draws per learned sample, so a shared seed gives the same reservoir decisions."""

    def __init__(
        self,
        budget=100,
        k=10,
        policy="rs++",
        loss="hinge",
        C=1.0,
        eta=0.01,
        kernel="rbf",
        gamma=1.0,
        degree=2,
        seed=None,
        knn_first=False,
        decay=None,
        similarity="kernel",
    ):
        self.budget, self.k, self.policy, self.loss = budget, k, policy, loss
        self.C, self.eta = C, eta
        self.decay = 1.0 - eta if decay is None else decay
        self.kernel = reference_kernel(kernel, gamma, degree)
        if similarity == "euclidean":
            self.similarity = lambda A, b: -np.sum((A - b) ** 2, axis=-1)
        else:
            self.similarity = self.kernel
        self.knn_first = knn_first
        self.vectors = {1: [], -1: []}
        self.alphas = {1: [], -1: []}
        self.head = {1: 0, -1: 0}
        self.seen = {1: 0, -1: 0}
        self.rng = np.random.default_rng(seed)

    def score(self, x):
        total = 0.0
        for label in (1, -1):
            if self.vectors[label]:
                total += np.asarray(self.alphas[label]) @ self.kernel(
                    np.asarray(self.vectors[label]), x
                )
        return total

    def learn(self, x, y):
        u_accept, u_slot = self.rng.random(2)
        return self.step(np.asarray(x, dtype=float), y, u_accept, u_slot)

    def step(self, x, y, u_accept, u_slot):
        self.seen[y] += 1
        same_x, same_a = self.vectors[y], self.alphas[y]
        opp_x, opp_a = self.vectors[-y], self.alphas[-y]
        f_t = self.score(x)
        f_opp = np.array([self.score(xi) for xi in opp_x])  # the O(N^2 d) part
        losses = 1.0 - y * (f_t - f_opp) if opp_x else np.zeros(0)
        similarity = self.similarity(np.asarray(opp_x), x) if opp_x else np.zeros(0)
        violators = np.flatnonzero(losses > 0)
        if self.knn_first:
            nearest = np.argsort(-similarity, kind="stable")[: self.k]
            selected = [i for i in nearest if losses[i] > 0]
        else:
            order = np.argsort(-similarity[violators], kind="stable")[: self.k]
            selected = list(violators[order])
        for label in (1, -1):
            self.alphas[label] = [self.decay * a for a in self.alphas[label]]
        same_a, opp_a = self.alphas[y], self.alphas[-y]
        step = self.eta * self.C * y
        if not opp_x or (not same_x and not len(violators)):
            alpha_t = step
        else:
            alpha_t = 0.0
            for i in selected:
                clipped = min(losses[i], 1e6)  # D-KOIL-27
                change = 2.0 * step * clipped if self.loss == "smooth" else step
                alpha_t += change
                opp_a[i] -= change
        if alpha_t == 0.0:
            return alpha_t
        removed = None
        if len(same_x) < self.budget or self.policy == "inf":
            same_x.append(x)
            same_a.append(alpha_t)
        elif self.policy in ("rs++", "rs"):
            if u_accept * self.seen[y] < self.budget:
                r = min(int(u_slot * self.budget), self.budget - 1)
                removed = (same_x[r], same_a[r])
                same_x[r], same_a[r] = x, alpha_t
            else:
                removed = (x, alpha_t)
        else:
            r = self.head[y]
            removed = (same_x[r], same_a[r])
            same_x[r], same_a[r] = x, alpha_t
            self.head[y] = (r + 1) % self.budget
        if removed is not None and self.policy.endswith("++"):
            c = int(np.argmax(self.similarity(np.asarray(same_x), removed[0])))
            same_a[c] += removed[1]
        return alpha_t


def imbalanced_stream(n, d, positive_rate, seed):
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < positive_rate, 1, -1)
    X = rng.normal(size=(n, d)) * 0.7 + 0.6 * y[:, None] * np.linspace(1, 0.2, d)
    return X, y


CONFIGS = [
    dict(policy="rs++", loss="hinge"),
    dict(policy="rs++", loss="smooth"),
    dict(policy="fifo++", loss="hinge"),
    dict(policy="fifo++", loss="smooth", neighbor_mode="knn_then_violators"),
    dict(policy="rs", loss="hinge", neighbor_mode="knn_then_violators"),
    dict(policy="fifo", loss="smooth"),
    dict(policy="inf", loss="hinge"),
    dict(policy="rs++", loss="hinge", kernel="poly", gamma=0.5, degree=3),
    dict(policy="fifo++", loss="hinge", kernel="linear"),
    dict(policy="rs++", loss="smooth", kernel="poly", gamma=0.5, degree=2, similarity="euclidean"),
    dict(policy="fifo++", loss="hinge", similarity="euclidean", neighbor_mode="knn_then_violators"),
    # a large step: the lazy decay scale passes 1e-100 and is folded back into the weights
    dict(policy="rs++", loss="hinge", eta=0.4, C=3.0),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(str(v) for v in c.values()))
def test_fast_step_matches_the_naive_step_over_a_stream(config):
    config = {"budget": 12, "k": 3, "C": 2.0, "eta": 0.05, "gamma": 0.3, "seed": 5, **config}
    # the unbounded reference grows quadratically in time: a shorter stream keeps the test quick
    X, y = imbalanced_stream(250 if config["policy"] == "inf" else 500, 4, 0.2, seed=3)
    model = KOIL(**config, positive=1)
    knn_first = config.pop("neighbor_mode", None) == "knn_then_violators"
    reference = NaiveKOIL(**config, knn_first=knn_first)
    names = [f"f{j}" for j in range(X.shape[1])]
    for t, (xi, yi) in enumerate(zip(X, y)):
        model.learn_one(dict(zip(names, xi)), int(yi))
        reference.learn(xi, int(yi))
        if t % 50 == 0 or t == len(y) - 1:
            for label, flag in ((1, True), (-1, False)):
                vectors, alphas = model.support_vectors(positive=flag)
                assert len(alphas) == len(reference.alphas[label])
                np.testing.assert_allclose(alphas, reference.alphas[label], rtol=1e-9, atol=1e-12)
                np.testing.assert_array_equal(
                    vectors, np.asarray(reference.vectors[label]).reshape(-1, 4)
                )
            x_new = dict(zip(names, X[(t + 7) % len(y)]))
            assert model.decision_one(x_new) == pytest.approx(
                reference.score(X[(t + 7) % len(y)]), rel=1e-9, abs=1e-12
            )


@settings(max_examples=30, deadline=None)
@given(
    labels=st.lists(st.sampled_from([1, -1]), min_size=1, max_size=60),
    budget=st.integers(1, 4),
    k=st.integers(1, 5),
    policy=st.sampled_from(["rs++", "fifo++", "rs", "fifo", "inf"]),
    loss=st.sampled_from(["hinge", "smooth"]),
    knn_first=st.booleans(),
    similarity=st.sampled_from(["kernel", "euclidean"]),
    seed=st.integers(0, 100),
)
def test_fast_step_matches_the_naive_step_on_small_random_streams(
    labels, budget, k, policy, loss, knn_first, similarity, seed
):
    """Tiny budgets and arbitrary label orders: full buffers, k above the buffer size, long
    one-class runs, budget 1 (the compensation target is then the new vector itself)."""
    config = dict(
        budget=budget,
        k=k,
        policy=policy,
        loss=loss,
        C=1.5,
        eta=0.1,
        gamma=0.7,
        seed=seed,
        similarity=similarity,
    )
    mode = "knn_then_violators" if knn_first else "violators_then_knn"
    model = KOIL(**config, positive=1, neighbor_mode=mode)
    reference = NaiveKOIL(**config, knn_first=knn_first)
    rng = np.random.default_rng(seed)
    for label in labels:
        x = rng.normal(size=3) + 0.8 * label
        model.learn_one(dict(zip(["a", "b", "c"], x)), label)
        reference.learn(x, label)
    for label, flag in ((1, True), (-1, False)):
        _, alphas = model.support_vectors(positive=flag)
        np.testing.assert_allclose(alphas, reference.alphas[label], rtol=1e-9, atol=1e-12)
