"""The chapter 6 family of seed 003 (LASVM-G, LASVM-NC, LASVM-I, FULL SVM): the jitted loop
against a plain-numpy transcription, its invariants, CLEAN, and the River protocol."""

from __future__ import annotations

import math
import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imbalance_stream._numba import lasvm_gap as gap_core
from imbalance_stream._numba.lasvm import expansion
from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.svm import LASVMG, LASVMI, LASVMNC, FullSVM

FAMILY = (LASVMG, LASVMNC, LASVMI, FullSVM)

# ---- a plain-numpy chapter 6 loop (Ertekin 2009, sections 6.1-6.4) ------------------------------


class ReferenceGapSVM:
    """PROCESS, REPROCESS, the gap, the gap target and CLEAN of chapter 6 on dense vectors, with
    the corrections and choices of the package (D-LASVM-9 to 16): members in slots, removal by
    moving the last slot into the hole; and Table 6.1's bookkeeping (D-LASVM-53): each member's
    Ramp region at admission, the admissions and CLEAN's removals by region."""

    def __init__(
        self, C, gamma, tau, ramp="none", s=-1.0, min_support=0, every=0, keep=0, n_seed=0
    ):
        self.C, self.gamma, self.tau, self.ramp = C, gamma, tau, ramp
        self.s, self.min_support, self.every, self.keep = s, min_support, every, keep
        self.n_seed, self.admitted = n_seed, {1.0: 0, -1.0: 0}
        self.X: list[np.ndarray] = []
        self.alpha, self.g, self.A, self.B, self.y, self.key = [], [], [], [], [], []
        self.arrivals = self.skipped = self.flat = self.cleaned = 0
        self.region: list[str] = []  # Table 6.1: "left" (z < s), "slope", "right" (z > 1)
        self.admitted_by = dict.fromkeys(("left", "slope", "right"), 0)
        self.cleaned_by = dict.fromkeys(("left", "slope", "right"), 0)

    def columns(self):
        """The lists that hold one entry per member, in slot order."""
        return (self.X, self.alpha, self.g, self.A, self.B, self.y, self.key, self.region)

    @staticmethod
    def sequential_dot(a, b):
        """``a.b`` summed in order over the nonzeros of ``b``, as the jitted kernels do (ties
        between gradients must break alike)."""
        total = 0.0
        for j in np.flatnonzero(b).tolist():
            total += float(b[j]) * float(a[j])
        return total

    def k(self, a, b):
        dot = self.sequential_dot(a, b)
        sq_a, sq_b = self.sequential_dot(a, a), self.sequential_dot(b, b)
        return math.exp(-self.gamma * max(0.0, sq_a + sq_b - 2.0 * dot))

    def row(self, x):
        return np.array([self.k(x, xs) for xs in self.X])

    def step(self, k):
        """The corrected single-coordinate step (D-LASVM-9)."""
        g, low, high = self.g[k], self.A[k] - self.alpha[k], self.B[k] - self.alpha[k]
        lam = min(high, g) if g >= 0.0 else max(low, g)  # K_kk = 1 for the RBF kernel
        if lam == 0.0:
            return False
        if lam == high:
            self.alpha[k] = self.B[k]
        elif lam == low:
            self.alpha[k] = self.A[k]
        else:
            self.alpha[k] += lam
        row = self.row(self.X[k]).astype(np.float32)  # the cache's float32 row (D-LASVM-52)
        self.g = list(np.array(self.g) - lam * row.astype(np.float64))
        return True

    def reprocess(self):
        alpha, g = np.array(self.alpha), np.array(self.g)
        down = (alpha > np.array(self.A)) & (g < 0.0)
        up = (alpha < np.array(self.B)) & (g > 0.0)
        i_min = int(np.flatnonzero(down)[np.argmin(g[down])]) if down.any() else -1
        i_max = int(np.flatnonzero(up)[np.argmax(g[up])]) if up.any() else -1
        g_min = g[i_min] if i_min >= 0 else 0.0
        g_max = g[i_max] if i_max >= 0 else 0.0
        k = i_min if g_min + g_max < 0.0 else i_max
        if k < 0:
            return False
        if (g[k] < 0.0 and g_max - g[k] < self.tau) or (g[k] >= 0.0 and g[k] - g_min < self.tau):
            return False
        return self.step(k)

    def gap(self):
        """Eq. 6.4 as corrected (D-LASVM-10)."""
        total = 0.0
        for a, g, low, high in zip(self.alpha, self.g, self.A, self.B):
            total += max(low * g, high * g) - a * g
        return total

    def target(self):
        """Eq. 6.3 (D-LASVM-11)."""
        if not self.X:
            return 0.0
        total = squares = 0.0
        for g, low, high, y in zip(self.g, self.A, self.B, self.y):
            h = (high - low) * y * g
            total += h
            squares += h * h
        return math.sqrt(max(0.0, squares - total * total / len(self.X)))

    def learn(self, x, y, c_y):
        self.arrivals += 1
        qrow = self.row(x)
        f = 0.0
        for a, value in zip(self.alpha, qrow.tolist()):
            f += a * value
        z = y * f
        seeded = self.admitted[y] >= self.n_seed  # LASVM-I's seeds (D-LASVM-49)
        if self.ramp == "I" and seeded and (z > 1.0 or z < self.s):
            self.skipped += 1
        else:
            self.admitted[y] += 1
            n_support = int(np.count_nonzero(self.alpha))
            beta = c_y if self.ramp == "NC" and z < self.s and n_support > self.min_support else 0
            self.flat += beta > 0
            threshold = max(self.C, self.target())
            g_new = y
            for a, value in zip(self.alpha, qrow.tolist()):
                g_new -= a * value
            low, high = min(0.0, c_y * y) - beta * y, max(0.0, c_y * y) - beta * y  # eq. 6.13
            region = "left" if z < self.s else "right" if z > 1.0 else "slope"
            self.admitted_by[region] += 1
            for array, value in zip(
                self.columns(), (x, 0.0, g_new, low, high, y, float(self.arrivals), region)
            ):
                array.append(value)
            self.step(len(self.X) - 1)
            while self.gap() > threshold and self.reprocess():
                pass
        if self.every and self.arrivals % self.every == 0:
            self.clean(self.keep)

    def clean(self, keep):
        zero = [s for s in range(len(self.X)) if self.alpha[s] == 0.0]
        if len(zero) <= keep:
            return
        ranked = sorted(zero, key=lambda s: (abs(self.g[s]), -self.key[s]))
        for s in sorted(ranked[keep:], reverse=True):
            self.cleaned_by[self.region[s]] += 1
            for array in self.columns():
                array[s] = array[-1]
                array.pop()
            self.cleaned += 1


def stream(n, d=5, seed=0, sparsity=0.3, noise=0.3):
    """A nonlinear binary stream with label noise (outliers for the Ramp), partly sparse."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X[rng.random(size=(n, d)) < sparsity] = 0.0
    y = X[:, 0] * X[:, 1] + 0.5 * X[:, 2] > 0
    flip = rng.random(n) < noise / 3
    return X, y ^ flip


def as_dicts(X):
    return [{j: float(v) for j, v in enumerate(row) if v != 0.0} for row in X]


def members(model):
    count = model.n_expansion_
    return tuple(a[:count] for a in model._model)


def regions(model) -> list[str]:
    """Each member's Ramp region at admission, by slot."""
    names = ("left", "slope", "right", "unknown")
    return [names[code] for code in model._region[: model.n_expansion_].tolist()]


# ---- the jitted loop against the reference ------------------------------------------------------


@pytest.mark.parametrize(
    "cls, params, ramp",
    [
        (LASVMG, {"clean_every": 40, "clean_keep": 15}, "none"),
        (LASVMG, {"C": 10.0, "cache_mb": 1e-4, "clean_every": 25, "clean_keep": 0}, "none"),
        (FullSVM, {"C": 3.0}, "none"),
        (LASVMNC, {"min_support": 10, "clean_every": 40, "clean_keep": 15}, "NC"),
        (LASVMNC, {"C": 5.0, "s": 0.0, "min_support": 0, "clean_every": 30}, "NC"),
        (LASVMI, {"clean_every": 40, "clean_keep": 15}, "I"),
        (LASVMI, {"clean_every": 40, "clean_keep": 15, "n_seed": 0}, "I"),
        (LASVMI, {"C": 2.0, "s": -0.5, "class_weight": {True: 3.0}, "n_seed": 30}, "I"),
    ],
)
def test_gap_loop_matches_numpy_reference(cls, params, ramp):
    X, y = stream(300, seed=1)
    params = {"gamma": 0.5, "tau": 1e-3, **params}
    model = cls(**params)
    every = params.get("clean_every", 300) if cls is not FullSVM else 0
    ref = ReferenceGapSVM(
        params.get("C", 1.0),
        params["gamma"],
        params["tau"],
        ramp,
        params.get("s", -1.0),
        params.get("min_support", 100),
        every,
        params.get("clean_keep", 300),
        params.get("n_seed", 5),
    )
    weights = params.get("class_weight") or {}
    for t, (x, label) in enumerate(zip(X, y)):
        model.learn_one({j: float(v) for j, v in enumerate(x) if v != 0.0}, bool(label))
        if x.any():
            c_y = params.get("C", 1.0) * weights.get(bool(label), 1.0)
            ref.learn(x, 1.0 if label else -1.0, c_y)
        if t % 30 == 29 or t == len(X) - 1:
            alpha, grad, lower, upper, labels, _, keys = members(model)
            assert model.n_expansion_ == len(ref.X)
            np.testing.assert_allclose(alpha, ref.alpha, rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(grad, ref.g, rtol=1e-9, atol=1e-12)
            np.testing.assert_array_equal(labels, ref.y)
            np.testing.assert_array_equal(lower, ref.A)
            np.testing.assert_array_equal(keys, ref.key)
            assert regions(model) == ref.region
    assert (model.n_skipped_, model.n_admitted_flat_, model.n_cleaned_) == (
        ref.skipped,
        ref.flat,
        ref.cleaned,
    )
    assert model.n_admitted_by_region_ == ref.admitted_by
    assert model.n_cleaned_by_region_ == ref.cleaned_by
    assert model.duality_gap_ == pytest.approx(ref.gap(), rel=1e-9, abs=1e-12)
    assert model.n_capped_ == 0


def test_the_ramp_and_the_filter_act():
    """On a noisy stream the Ramp shifts some boxes and the filter skips samples, and both keep
    fewer support vectors than LASVM-G (section 6.2-6.3)."""
    X, y = stream(800, seed=2, noise=0.5)
    models = {
        "G": LASVMG(gamma=0.5),
        "NC": LASVMNC(gamma=0.5, min_support=20),
        "I": LASVMI(gamma=0.5),
    }
    for x, label in zip(as_dicts(X), y):
        for model in models.values():
            model.learn_one(x, bool(label))
    assert models["NC"].n_admitted_flat_ > 0 and models["I"].n_skipped_ > 0
    assert models["NC"].n_support_ < models["G"].n_support_
    assert models["I"].n_support_ < models["G"].n_support_
    # a shifted box of LASVM-NC: [-C, 0] for y = +1, [0, C] for y = -1 (eq. 6.13)
    _, _, lower, upper, labels, _, _ = members(models["NC"])
    shifted = (labels > 0) & (upper == 0.0)
    assert np.all(lower[shifted] == -1.0)


def test_nc_with_a_far_hinge_is_lasvm_g():
    X, y = stream(300, seed=3)
    g, nc = LASVMG(gamma=0.5, clean_every=50), LASVMNC(gamma=0.5, clean_every=50, s=-1e9)
    for x, label in zip(as_dicts(X), y):
        g.learn_one(x, bool(label))
        nc.learn_one(x, bool(label))
    np.testing.assert_array_equal(members(g)[0], members(nc)[0])
    assert nc.n_admitted_flat_ == 0


def test_full_svm_keeps_every_sample_and_lasvm_i_accounts_for_all():
    X, y = stream(250, seed=4, sparsity=0.0)
    full, lasvm_i = FullSVM(gamma=0.5), LASVMI(gamma=0.5, clean_every=60, clean_keep=5)
    for x, label in zip(as_dicts(X), y):
        full.learn_one(x, bool(label))
        lasvm_i.learn_one(x, bool(label))
    assert full.n_expansion_ == len(X) and full.n_cleaned_ == 0
    assert lasvm_i.n_expansion_ + lasvm_i.n_skipped_ + lasvm_i.n_cleaned_ == len(X)


def test_lasvm_i_filters_as_the_thesis_prints_it():
    """Section 6.3's LASVM-I, on a linear model whose scores are exact: the filter applies from
    the first sample (no warm-up, unlike LASVM-NC's S), a sample is skipped iff ``z > 1`` or
    ``z < s`` (so ``z = 1`` and ``z = s`` are processed, D-LASVM-16), a skipped sample changes no
    member, and CLEAN counts arrivals, skipped ones included (D-LASVM-14). ``n_seed = 0`` is the
    filter as printed, without the seeds of D-LASVM-49."""
    model = LASVMI(kernel="linear", C=10.0, clean_every=0, n_seed=0)
    model.learn_one({0: 1.0}, True)  # z = 0 with alpha = 0: processed, alpha = g / K = 1
    assert model.n_expansion_ == 1 and members(model)[0][0] == 1.0
    before = [a.copy() for a in members(model)]
    for x, label in [({0: 2.0}, True), ({0: 2.0}, False), ({0: 1.0 + 1e-9}, True)]:
        model.learn_one(x, label)  # z = 2, z = -2, z just above 1: skipped
    assert model.n_skipped_ == 3 and model.n_expansion_ == 1
    for now, then in zip(members(model), before):
        np.testing.assert_array_equal(now, then)
    model.learn_one({0: 1.0}, True)  # z = 1
    model.learn_one({0: 1.0}, False)  # z = -1 = s
    assert model.n_skipped_ == 3 and model.n_expansion_ == 3

    model = LASVMI(kernel="linear", C=10.0, clean_every=3, clean_keep=0, n_seed=0)
    model.learn_one({0: 1.0}, True)  # processed, alpha = 1
    model.learn_one({0: 2.0}, True)  # skipped
    model.learn_one({0: 1.0}, True)  # z = 1: joins with alpha = 0; third arrival, CLEAN runs
    assert model.n_skipped_ == 1 and model.n_cleaned_ == 1 and model.n_expansion_ == 1


def test_lasvm_i_seeds_keep_a_one_class_opening_from_locking_the_filter():
    """A stream that opens with 15 negatives on a nearly flat kernel (as Adult's gamma = 0.005
    is): without seeds the negatives put f below -1 everywhere and the filter skips every later
    sample of both classes; with the first 5 samples of each class learned whatever their z
    (D-LASVM-49), LASVM-I learns the boundary."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 2))
    y = X[:, 0] + 0.3 * rng.normal(size=400) > 0.5
    opening = np.flatnonzero(~y)[:15]
    order = np.r_[opening, rng.permutation(np.setdiff1d(np.arange(400), opening))]
    accuracy = {}
    for n_seed in (0, 5):
        model = LASVMI(C=100.0, gamma=0.01, n_seed=n_seed)
        for i in order:
            model.learn_one({0: X[i, 0], 1: X[i, 1]}, bool(y[i]))
        predicted = [model.predict_one({0: a, 1: b}) for a, b in X]
        accuracy[n_seed] = np.mean(np.array(predicted) == y)
        if n_seed == 0:
            assert model.n_skipped_ > 380 and not any(predicted)  # locked: all negative
        else:
            assert min(model._admitted) >= 5
    assert accuracy[0] == pytest.approx(1.0 - y.mean()) and accuracy[5] > 0.9


# ---- invariants ---------------------------------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(
    labels=st.lists(st.booleans(), min_size=1, max_size=60),
    seed=st.integers(0, 2**16),
    C=st.sampled_from([0.1, 1.0, 100.0]),
    cls=st.sampled_from(FAMILY),
    finish=st.booleans(),
)
def test_box_gradient_and_gap_invariants(labels, seed, C, cls, finish):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(len(labels), 3)), 1)
    params = {"C": C, "gamma": 0.7}
    if cls is not FullSVM:
        params.update(clean_every=7, clean_keep=3)
    if cls is LASVMNC:
        params["min_support"] = 2
    model = cls(**params)
    for x, label in zip(as_dicts(X), labels):
        model.learn_one(x, label)
    if finish:
        model.finish()
    alpha, grad, lower, upper, label, _, _ = members(model)
    assert np.all(lower <= alpha) and np.all(alpha <= upper)
    assert np.all(upper - lower == C)  # the box's width is the class's C, shifted or not
    dense = np.zeros((model.n_expansion_, 3))
    names = model._features.names
    for s in range(model.n_expansion_):
        begin, end = model._start[s], model._start[s] + model._nnz[s]
        dense[s, [names[j] for j in model._flat_indices[begin:end]]] = model._flat_values[begin:end]
    gram = np.exp(-0.7 * ((dense[:, None, :] - dense[None, :, :]) ** 2).sum(axis=2))
    # eq. 6.5, to the float32 rounding of the cached kernel rows the steps use (D-LASVM-52)
    np.testing.assert_allclose(grad, label - gram @ alpha, atol=1e-6 * max(1.0, C))
    terms = np.maximum(lower * grad, upper * grad) - alpha * grad
    assert np.all(terms >= -1e-9 * max(1.0, C))  # every term of the gap (D-LASVM-10)
    if finish:  # no coordinate violates by more than tau
        assert not gap_core.reprocess_gap(expansion(model._state), 1e-3)


REGIONS = ("left", "slope", "right")


def assert_table_6_1_adds_up(model, n_arrivals):
    """Every admitted sample is a support vector, a member with alpha = 0, or cleaned, in the
    region of the Ramp it was admitted in; and the regions together are the model's counts."""
    admitted, cleaned = model.n_admitted_by_region_, model.n_cleaned_by_region_
    support, non_support = model.n_support_by_region_, model.n_non_support_by_region_
    assert tuple(admitted) == tuple(cleaned) == tuple(support) == tuple(non_support) == REGIONS
    for region in REGIONS:
        assert admitted[region] == support[region] + non_support[region] + cleaned[region]
    assert sum(admitted.values()) == n_arrivals - model.n_skipped_
    assert sum(admitted.values()) == model.n_expansion_ + model.n_cleaned_
    assert sum(cleaned.values()) == model.n_cleaned_
    assert sum(support.values()) == model.n_support_


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 80),
    noise=st.sampled_from([0.0, 0.1, 0.3]),
    seed=st.integers(0, 2**16),
    cls=st.sampled_from(FAMILY),
    every=st.integers(0, 9),
    keep=st.integers(0, 4),
    s=st.sampled_from([-1.0, -0.3, 0.5]),
    extra_clean=st.lists(st.integers(0, 79), max_size=3),
)
def test_table_6_1_counts_add_up(n, noise, seed, cls, every, keep, s, extra_clean):
    """Table 6.1's bookkeeping (D-LASVM-53), whatever the stream, the CLEAN schedule, the calls
    of ``clean`` and the Ramp's ``s``: admitted = #SV + #non-SV + cleaned in each region. The
    labels follow a linear rule (flipped at random with probability ``noise``), so that samples
    arrive in every region and CLEAN has members with alpha = 0 to remove."""
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(scale=2.0, size=(n, 3)), 1)
    labels = ((X[:, 0] + 0.5 * X[:, 1] > 0) ^ (rng.random(n) < noise)).tolist()
    params: dict = {"C": 3.0, "gamma": 0.7}
    if cls is not FullSVM:
        params.update(clean_every=every, clean_keep=keep)
    if cls in (LASVMNC, LASVMI):
        params["s"] = s
    if cls is LASVMNC:
        params["min_support"] = 2
    model = cls(**params)
    n_arrivals = 0
    for t, (x, label) in enumerate(zip(as_dicts(X), labels)):
        model.learn_one(x, label)
        n_arrivals += bool(x)  # an empty sample is not an arrival
        if t in extra_clean:
            model.clean(keep=int(rng.integers(0, 3)))
        assert_table_6_1_adds_up(model, n_arrivals)
    if cls is FullSVM and not extra_clean:
        assert model.n_cleaned_by_region_ == dict.fromkeys(REGIONS, 0)
    if cls is LASVMNC:  # beta = C only for a sample admitted with z < s (eq. 6.12)
        assert model.n_admitted_flat_ <= model.n_admitted_by_region_["left"]
    copy = pickle.loads(pickle.dumps(model))
    assert copy.n_admitted_by_region_ == model.n_admitted_by_region_
    assert copy.n_support_by_region_ == model.n_support_by_region_


def test_table_6_1_regions_on_exact_scores():
    """A linear model whose scores are exact: a sample's region is where its ``z = y f(x)`` lay
    before it was learned, with Table 6.1's strict inequalities (``z = s`` and ``z = 1`` are on
    the slope), and CLEAN's removals are counted in the region of their admission."""
    model = LASVMG(kernel="linear", C=10.0, clean_every=0)
    model.learn_one({0: 1.0}, True)  # z = 0: slope; alpha = g / K = 1, so f(x) = x
    assert model.n_admitted_by_region_ == {"left": 0, "slope": 1, "right": 0}
    model.learn_one({0: 3.0}, True)  # z = 3 > 1: right; g = -2 < 0 at alpha = A = 0: no step
    model.learn_one({0: 3.0}, False)  # z = -3 < s = -1: left, whatever learning it sets off
    assert model.n_admitted_by_region_ == {"left": 1, "slope": 1, "right": 1}
    # its step raised the gradient of the positive at 3, which REPROCESS made a support
    # vector: a member keeps the region of its admission whatever it became
    assert model.n_support_by_region_ == {"left": 1, "slope": 1, "right": 1}
    assert model.decision_one({0: 10.0}) > 1.0
    model.learn_one({0: 10.0}, True)  # z > 1: right, g < 0 at alpha = A = 0: stays at 0
    assert model.n_non_support_by_region_ == {"left": 0, "slope": 0, "right": 1}
    assert model.clean(keep=0) == 1
    assert model.n_cleaned_by_region_ == {"left": 0, "slope": 0, "right": 1}
    assert regions(model) == ["slope", "right", "left"]
    model.learn_one({0: -9.0}, True)  # z < s: left, in slot 3
    model.learn_one({0: 0.1}, True)  # slot 4
    members_before = regions(model)
    alpha = members(model)[0]
    removed = [region for region, a in zip(members_before, alpha.tolist()) if a == 0.0]
    cleaned = dict(model.n_cleaned_by_region_)
    model.clean(keep=0)
    for region in REGIONS:  # each removal counted in its member's region, the others moved
        assert model.n_cleaned_by_region_[region] == cleaned[region] + removed.count(region)
    kept = [region for region, a in zip(members_before, alpha.tolist()) if a != 0.0]
    assert sorted(regions(model)) == sorted(kept)

    for label in (True, False):  # z = 1, then z = -1 = s: on the slope, not in a flat part
        exact = LASVMG(kernel="linear", C=10.0, clean_every=0)
        exact.learn_one({0: 1.0}, True)
        exact.learn_one({0: 1.0}, label)
        assert exact.n_admitted_by_region_ == {"left": 0, "slope": 2, "right": 0}
    # LASVM-NC's s is its own: z = -3 is left of s = -1 but not of s = -5
    for s, expected in ((-1.0, "left"), (-5.0, "slope")):
        nc = LASVMNC(kernel="linear", C=10.0, s=s, min_support=0, clean_every=0)
        nc.learn_one({0: 1.0}, True)
        nc.learn_one({0: 3.0}, False)
        assert regions(nc)[1] == expected


def test_a_model_pickled_before_the_bookkeeping_counts_from_then_on():
    """A model pickled without Table 6.1's arrays unpickles with its members in no region (their
    admission was not recorded) and counts every later admission and removal; its learning is
    the same as the original's."""
    X, y = stream(200, seed=8)
    dicts = as_dicts(X)
    model = LASVMG(gamma=0.5, clean_every=30, clean_keep=5)
    for x, label in zip(dicts[:100], y[:100]):
        model.learn_one(x, bool(label))
    state = dict(pickle.loads(pickle.dumps(model)).__getstate__())  # arrays not shared
    del state["_region"], state["_region_counts"]
    old = object.__new__(LASVMG)
    old.__setstate__(state)
    assert old.n_admitted_by_region_ == dict.fromkeys(REGIONS, 0)
    assert old.n_support_by_region_ == dict.fromkeys(REGIONS, 0)
    for x, label in zip(dicts[100:], y[100:]):
        model.learn_one(x, bool(label))
        old.learn_one(x, bool(label))
    np.testing.assert_array_equal(members(old)[0], members(model)[0])
    admitted, cleaned = old.n_admitted_by_region_, old.n_cleaned_by_region_
    support, non_support = old.n_support_by_region_, old.n_non_support_by_region_
    assert sum(admitted.values()) == 100 and old.n_cleaned_ > sum(cleaned.values()) > 0
    for region in REGIONS:
        assert admitted[region] == support[region] + non_support[region] + cleaned[region]
    assert regions(old).count("unknown") == old.n_expansion_ - sum(support.values()) - sum(
        non_support.values()
    )


def test_clean_changes_no_decision_and_keeps_the_smallest_gradients():
    X, y = stream(300, seed=5)
    model = FullSVM(gamma=0.5)
    for x, label in zip(as_dicts(X), y):
        model.learn_one(x, bool(label))
    queries = as_dicts(X[:30])
    before = [model.decision_one(x) for x in queries]
    alpha, grad = members(model)[:2]
    kept = np.sort(np.abs(grad[alpha == 0.0]))[:10]
    assert model.clean(keep=10) == int(np.sum(alpha == 0.0)) - 10
    alpha, grad = members(model)[:2]
    np.testing.assert_array_equal(np.sort(np.abs(grad[alpha == 0.0])), kept)
    np.testing.assert_allclose([model.decision_one(x) for x in queries], before, rtol=1e-12)
    model.clean(keep=0)
    assert model.n_expansion_ == model.n_support_


def test_gap_target_is_the_spread_of_h():
    model = LASVMG(gamma=0.5, clean_every=0)
    X, y = stream(100, seed=6)
    for x, label in zip(as_dicts(X), y):
        model.learn_one(x, bool(label))
    _, grad, lower, upper, label, _, _ = members(model)
    h = (upper - lower) * label * grad
    expected = math.sqrt(max(0.0, np.sum(h**2) - np.sum(h) ** 2 / len(h)))
    assert gap_core.gap_target(model._model, model.n_expansion_) == pytest.approx(
        expected, rel=1e-9
    )


# ---- the River protocol -------------------------------------------------------------------------


@pytest.mark.parametrize("cls", FAMILY)
def test_bad_input_leaves_the_model_unchanged(cls):
    X, y = stream(120, seed=7)
    model = cls(gamma=0.5)
    for x, label in zip(as_dicts(X), y):
        model.learn_one(x, bool(label))
    before = pickle.dumps(model)
    for x, name in [({0: float("nan")}, "0"), ({"new": "text"}, "'new'"), ({2: None}, "2")]:
        with pytest.raises(InvalidFeature, match=name):
            model.learn_one(x, True)
    with pytest.raises(UnknownLabel, match="'third'"):
        model.learn_one({0: 1.0}, "third")
    assert pickle.dumps(model) == before


@pytest.mark.parametrize(
    "cls, params",
    [
        (LASVMG, {"clean_every": -1}),
        (LASVMG, {"clean_keep": 1.5}),
        (LASVMNC, {"s": 1.0}),
        (LASVMNC, {"min_support": -1}),
        (LASVMI, {"s": float("nan")}),
        (LASVMI, {"n_seed": -1}),
        (FullSVM, {"C": 0.0}),
    ],
)
def test_bad_parameters_are_named(cls, params):
    with pytest.raises(InvalidParameter, match=next(iter(params))):
        cls(**params)


def test_banana_sparsity_as_in_table_6_3():
    """One pass on Banana (River's bundled copy; Table 6.2: 4,000 training and 1,300 test
    samples, C = 10, gamma = 1): LASVM-NC and LASVM-I keep far fewer support vectors than
    LASVM-G at about the same accuracy, and need fewer kernel evaluations (Tables 6.3-6.4)."""
    from river import datasets

    data = list(datasets.Bananas())
    order = np.random.default_rng(0).permutation(len(data))
    train, test = [data[i] for i in order[:4000]], [data[i] for i in order[4000:]]
    results = {}
    for cls in FAMILY:
        model = cls(C=10.0, gamma=1.0)
        for x, label in train:
            model.learn_one(x, label)
        accuracy = np.mean([model.predict_one(x) == label for x, label in test])
        results[cls] = (accuracy, model.n_support_, model.n_kernel_evaluations_)
    g_accuracy, g_support, g_kernel = results[LASVMG]
    for cls in (LASVMNC, LASVMI):
        accuracy, n_support, n_kernel = results[cls]
        assert n_support < 0.7 * g_support
        assert accuracy > g_accuracy - 0.01
        assert n_kernel < g_kernel
    assert results[FullSVM][1] > g_support and results[FullSVM][2] > g_kernel
