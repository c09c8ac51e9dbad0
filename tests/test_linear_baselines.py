"""The ACOG paper's baselines (its section 4.1): Perceptron, ROMMA, PA-I, CPA_PB, PAUM, AROW,
COG-I/II.
Plain-numpy references of each update against the jitted kernels, the invariants of each rule,
the relations between them (PAUM = COG-I, D-ACOG-20; PA-I = River's PAClassifier weights), the
paper's german rows and bad input (River's checks: tests/test_river_checks.py)."""

from __future__ import annotations

import math
import pickle
import statistics

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from river import datasets, linear_model, preprocessing

from imbalance_stream._numba import first_order, linear
from imbalance_stream.base import InvalidFeature, UnknownLabel
from imbalance_stream.datasets import get_data_home
from imbalance_stream.linear_model import AROW, COG, CPA, PA, PAUM, ROMMA, Perceptron

ESTIMATORS = [Perceptron, ROMMA, PA, CPA, PAUM, AROW, COG]

# ---- plain-numpy references (dense vectors, the rules of the original papers and LIBOL) ---------


def predict(w, x):
    return 1.0 if w @ x >= 0 else -1.0


def perceptron_ref(w, x, y, rho):
    if predict(w, x) != y:
        return w + y * x
    return w


def romma_ref(w, x, y, rho):
    if predict(w, x) == y:
        return w
    if not w.any():
        return y * x
    xx, ww, wx = x @ x, w @ w, w @ x
    D = xx * ww - wx**2
    if D == 0:
        return w
    return (xx * ww - y * wx) / D * w + ww * (y - wx) / D * x


def pa1_ref(C):
    def update(w, x, y, rho):
        loss = max(0.0, 1 - y * (w @ x))
        if loss > 0:
            return w + min(C, loss / (x @ x)) * y * x
        return w

    return update


def cpapb_ref(w, x, y, rho):
    yhat = predict(w, x)
    if yhat == y:
        return w
    cost = rho if y > 0 else 1.0

    # multiclass CPA-PB with Phi(x, r) = r x / 2
    def phi(r):
        return r * x / 2

    loss = w @ phi(yhat) - w @ phi(y) + math.sqrt(cost)
    direction = phi(y) - phi(yhat)
    return w + loss / (direction @ direction) * direction


def cpaml_ref(w, x, y, rho):
    # multiclass CPA-ML: the label r maximising w.Phi(x, r) - w.Phi(x, y) + sqrt(cost(y, r)),
    # cost(y, y) = 0; an update when its loss is positive
    def phi(r):
        return r * x / 2

    cost = {y: 0.0, -y: rho if y > 0 else 1.0}
    losses = {r: w @ phi(r) - w @ phi(y) + math.sqrt(cost[r]) for r in (1.0, -1.0)}
    worst = max(losses, key=losses.get)
    if losses[worst] <= 0:
        return w
    direction = phi(y) - phi(worst)
    return w + losses[worst] / (direction @ direction) * direction


def paum_ref(tau_negative, eta):
    def update(w, x, y, rho):
        tau = rho if y > 0 else tau_negative
        if y * (w @ x) <= tau:
            return w + eta * y * x
        return w

    return update


def cog_ref(loss_type, eta):
    def update(w, x, y, rho):
        rho_y = rho if y > 0 else 1.0
        if loss_type == "I":
            loss, gradient = max(0.0, rho_y - y * (w @ x)), -y * x
        else:
            loss, gradient = rho_y * max(0.0, 1 - y * (w @ x)), -rho_y * y * x
        return w - eta * gradient if loss > 0 else w

    return update


def arow_ref(mu, sigma, x, y, r):
    loss = max(0.0, 1 - y * (mu @ x))
    if loss > 0:
        v = x @ sigma @ x
        beta = 1 / (v + r)
        mu = mu + loss * beta * y * (sigma @ x)
        sigma = sigma - beta * np.outer(sigma @ x, sigma @ x)
    return mu, sigma


# ---- kernels against the references --------------------------------------------------------------


def stream(seed, n=300, d=8):
    rng = np.random.default_rng(seed)
    truth = rng.standard_normal(d)
    out = []
    for _ in range(n):
        x = rng.standard_normal(d) * (rng.random(d) < 0.6)
        if not x.any():
            x[0] = 1.0
        y = 1.0 if x @ truth + 0.5 * rng.standard_normal() > 0.8 else -1.0
        out.append((x, y))
    return out


CASES = {
    "perceptron": (
        perceptron_ref,
        lambda w, i, v, y, rho: first_order.additive_step(w, i, v, y, 0.0, y < 0, 1.0),
    ),
    "romma": (
        romma_ref,
        lambda w, i, v, y, rho: first_order.romma_step(w, len(w), i, v, y) == linear.UPDATED,
    ),
    "pa1": (
        pa1_ref(0.3),
        lambda w, i, v, y, rho: first_order.passive_aggressive_step(
            w, i, v, y, 1.0, False, 1.0, 0.3
        ),
    ),
    "cpapb": (
        cpapb_ref,
        lambda w, i, v, y, rho: first_order.cost_sensitive_pa_step(
            w, i, v, y, rho if y > 0 else 1.0, False
        ),
    ),
    "cpaml": (
        cpaml_ref,
        lambda w, i, v, y, rho: first_order.cost_sensitive_pa_step(
            w, i, v, y, rho if y > 0 else 1.0, True
        ),
    ),
    "paum": (
        paum_ref(0.7, 0.4),
        lambda w, i, v, y, rho: first_order.additive_step(
            w, i, v, y, rho if y > 0 else 0.7, True, 0.4
        ),
    ),
    "cog1": (
        cog_ref("I", 0.3),
        lambda w, i, v, y, rho: first_order.additive_step(
            w, i, v, y, rho if y > 0 else 1.0, False, 0.3
        ),
    ),
    "cog2": (
        cog_ref("II", 0.3),
        lambda w, i, v, y, rho: first_order.additive_step(
            w, i, v, y, 1.0, False, 0.3 * (rho if y > 0 else 1.0)
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_order_kernels_match_references(name):
    reference, kernel = CASES[name]
    d, rho = 8, 2.5
    w_ref, w = np.zeros(d), np.zeros(d)
    updates = 0
    for x, y in stream(1, d=d):
        idx = np.flatnonzero(x).astype(np.int64)
        assert predict(w, x) == predict(w_ref, x)
        w_ref = reference(w_ref, x, y, rho)
        updates += kernel(w, idx, x[idx], y, rho)
        np.testing.assert_allclose(w, w_ref, rtol=1e-10, atol=1e-12)
    assert 5 < updates < 300


def test_arow_kernel_matches_reference():
    d, r = 8, 0.7
    mu_ref, sigma_ref = np.zeros(d), np.eye(d)
    mu, sigma = np.zeros(d), np.eye(d)
    updates = 0
    for x, y in stream(2, d=d):
        idx = np.flatnonzero(x).astype(np.int64)
        mu_ref, sigma_ref = arow_ref(mu_ref, sigma_ref, x, y, r)
        updates += linear.arow_full_step(mu, sigma, d, idx, x[idx], y, r) == linear.UPDATED
        np.testing.assert_allclose(mu, mu_ref, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(sigma, sigma_ref, rtol=1e-9, atol=1e-12)
    assert 5 < updates < 300
    np.testing.assert_allclose(sigma, sigma.T, atol=1e-12)
    assert np.linalg.eigvalsh(sigma).min() > 0


def probit_ref(score, variance):
    """P(w.x > 0) for Gaussian weights, by the standard library's normal distribution: 1/2 at
    a zero score."""
    if score == 0.0:
        return 0.5
    return statistics.NormalDist().cdf(score / math.sqrt(variance))


@pytest.mark.parametrize("intercept", [False, True])
def test_arow_steps_runner_matches_reference(intercept):
    """``stream.steps_baseline`` with AROW (through ``run_steps``: predictions and learned labels
    in any order, features arriving as they come) against ``arow_ref`` over all the columns from
    the start: a feature not learned yet has the prior (mean 0, variance 1, no covariance), and
    a prediction leaves it out as the model leaves out a name it has not learned; probabilities
    ``Phi(mu.x / sqrt(x' Sigma x))``."""
    rng = np.random.default_rng(4)
    d, r = 7, 0.3
    samples = stream(5, n=400, d=d)
    for x, _ in samples[:100]:
        x[4:] = 0.0  # features 4..6 come late
    rows = np.array([x for x, _ in samples])
    learn = rng.random(len(rows)) < 0.5
    names = [f"f{j}" for j in range(d)]
    model = AROW(r=r, intercept=intercept)
    run = model.run_steps(rows, names, learn, [y > 0 for _, y in samples])
    assert run.done == len(rows)
    width = d + intercept  # the constant feature last, in the reference
    mu, sigma, seen = np.zeros(width), np.eye(width), np.zeros(width, dtype=bool)
    scores, probas = [], []
    for (x, y), learned in zip(samples, learn):
        if intercept:
            x = np.append(x, 1.0)
        if learned:
            mu, sigma = arow_ref(mu, sigma, x, y, r)
            seen |= x != 0.0
            continue
        known = np.where(seen, x, 0.0)
        scores.append(mu @ known)
        probas.append(probit_ref(mu @ known, known @ sigma @ known))
    np.testing.assert_allclose(run.decisions[~learn], scores, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run.probas[~learn], probas, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose([model.weights[name] for name in names], mu[:d], atol=1e-12)
    np.testing.assert_allclose([model.variances[name] for name in names], np.diag(sigma)[:d])
    assert model.intercept_ == pytest.approx(mu[d] if intercept else 0.0, abs=1e-12)
    assert 10 < model.n_updates < learn.sum()


def test_arow_and_acog_share_the_covariance_downdate():
    """Fed the same update rounds, AROW (r) and ACOG (gamma = r) hold the same covariance."""
    d = 6
    mu_a, sigma_a = np.zeros(d), np.eye(d)
    mu_c, sigma_c = np.zeros(d), np.eye(d)
    for x, y in stream(3, n=100, d=d):
        idx = np.flatnonzero(x).astype(np.int64)
        if linear.arow_full_step(mu_a, sigma_a, d, idx, x[idx], y, 0.5) == linear.UPDATED:
            # force ACOG to update on the same round: a margin it cannot reach
            step = linear.acog_full_step(mu_c, sigma_c, d, idx, x[idx], y, 1e300, 1.0, 1.0, 0.5)
            assert step == linear.UPDATED
    np.testing.assert_array_equal(sigma_a, sigma_c)


def downdate_is_finite_ref(cov, n, u, denominator):
    """Plain numpy: is ``cov - u u' / denominator`` finite on the rows that change?"""
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is what it checks for
        scaled = u[:n] / denominator
        new = cov[:n, :n] - scaled[:, None] * u[None, :n]
    return bool(np.isfinite(new[scaled != 0.0]).all())


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 9),
    st.floats(-300, 308),
    st.floats(-300, 308),
    st.integers(0, 2**32 - 1),
)
def test_downdate_check_matches_numpy(n, log_cov, log_u, seed):
    """The read-only finiteness pass agrees with numpy on the downdate's result, also at the
    edge of the float range, and writes nothing."""
    rng = np.random.default_rng(seed)
    cov = rng.uniform(-1.0, 1.0, (n + 2, n + 2)) * 10.0**log_cov
    u = rng.uniform(-1.0, 1.0, n + 2) * 10.0**log_u
    u[rng.random(n + 2) < 0.2] = 0.0
    before = cov.copy()
    assert linear.downdate_is_finite(cov, n, u, 0.5) == downdate_is_finite_ref(cov, n, u, 0.5)
    np.testing.assert_array_equal(cov, before)


def test_a_refused_second_order_step_writes_nothing():
    """A step that would overflow (a score of 0 from two weights at the edge of the float range,
    and a huge step size) returns REFUSED and leaves every array as it was."""
    idx, x = np.array([0, 1]), np.array([1.0, 1.0])
    edge = np.array([1.7e308, -1.7e308, 0.0])
    mean, cov, variance = edge.copy(), np.eye(3), np.ones(3)
    assert linear.acog_full_step(mean, cov, 3, idx, x, 1.0, 1.0, 1.0, 1e308, 1.0) == linear.REFUSED
    edge_cov = np.eye(3)
    edge_cov[0, 0] = 1.7e308  # cov x overflows
    zero = np.zeros(3)
    assert linear.arow_full_step(zero, edge_cov, 3, idx, 1e15 * x, 1.0, 1.0) == linear.REFUSED
    assert edge_cov[0, 0] == 1.7e308
    step = linear.acog_diag_step(mean, variance, idx, x, 1.0, 1.0, 1.0, 1e308, 1.0)
    assert step == linear.REFUSED
    np.testing.assert_array_equal(mean, edge)
    np.testing.assert_array_equal(cov, np.eye(3))
    np.testing.assert_array_equal(variance, 1.0)
    np.testing.assert_array_equal(zero, 0.0)


# ---- invariants of the rules ---------------------------------------------------------------------

vectors = st.lists(st.floats(-5, 5, allow_nan=False), min_size=3, max_size=3).map(np.array)


@settings(max_examples=60, deadline=None)
@given(vectors, vectors, st.sampled_from([1.0, -1.0]))
def test_romma_update_meets_both_constraints(w, x, y):
    """After a mistake update the new w satisfies y w.x = 1 and w.w_old = |w_old|^2 (the two
    constraints whose smallest-norm solution ROMMA takes)."""
    if not np.abs(x).sum() > 1e-3 or abs(np.linalg.norm(w) * np.linalg.norm(x)) < 1e-3:
        return
    cosine = abs(w @ x) / (np.linalg.norm(w) * np.linalg.norm(x))
    new = w.copy()
    idx = np.arange(3, dtype=np.int64)
    if first_order.romma_step(new, 3, idx, x, y) != linear.UPDATED or cosine > 0.99:
        return
    assert y * (new @ x) == pytest.approx(1.0, rel=1e-6, abs=1e-6)
    assert new @ w == pytest.approx(w @ w, rel=1e-6, abs=1e-6)


@pytest.mark.parametrize(
    "weights",
    [
        [1e160, -5e159, 3.0],  # |w|^2 overflows
        [1e103, -2e103, 3.0],  # |w|^2 is finite, e = |w|^2 (y - w.x) / D overflows
    ],
)
def test_romma_refuses_a_step_that_would_overflow_and_writes_nothing(weights):
    """The rescaling reaches every weight, the third one too though the sample lacks it: a step
    with a non-finite value anywhere is refused whole."""
    w = np.array(weights)
    before = w.copy()
    idx, x = np.array([0], dtype=np.int64), np.array([1.0])
    assert first_order.romma_step(w, 3, idx, x, -1.0 if w[0] > 0 else 1.0) == linear.REFUSED
    assert np.array_equal(w, before)


@settings(max_examples=60, deadline=None)
@given(vectors, vectors, st.sampled_from([1.0, -1.0]), st.floats(0.1, 20))
def test_passive_aggressive_steps_reach_their_targets(w, x, y, rho):
    """Plain PA lands exactly on the margin 1; CPA_PB lands on sqrt(cost of the mistake)."""
    if not (x @ x) > 1e-3:
        return
    idx = np.arange(3, dtype=np.int64)
    pa = w.copy()
    if first_order.passive_aggressive_step(pa, idx, x, y, 1.0, False, 1.0, math.inf):
        assert y * (pa @ x) == pytest.approx(1.0, abs=1e-7)
    cpa = w.copy()
    target = math.sqrt(rho if y > 0 else 1.0)
    if first_order.passive_aggressive_step(cpa, idx, x, y, 0.0, y < 0, target, math.inf):
        assert predict(w, x) != y
        assert y * (cpa @ x) == pytest.approx(target, abs=1e-7)
    else:
        assert predict(w, x) == y


@settings(max_examples=100, deadline=None)
@given(st.floats(-800, 800))
def test_logistic_matches_numpy(score):
    expected = np.exp(-np.logaddexp(0.0, -score))  # 1 / (1 + exp(-score)) without overflow
    assert first_order.logistic(score) == pytest.approx(expected, rel=1e-12, abs=1e-300)
    assert 0.0 <= first_order.logistic(score) <= 1.0


def test_tie_rule_and_mistake_trigger():
    """w = 0 predicts the rare class: a positive is correct (no Perceptron update), a negative
    is a mistake."""
    model = Perceptron()
    assert model.predict_one({"a": 1.0}) is True
    model.learn_one({"a": 1.0}, True)
    assert model.n_updates == 0 and model.weights == {"a": 0.0}
    model.learn_one({"a": 1.0}, False)
    assert model.n_updates == 1 and model.weights == {"a": -1.0}
    assert model.predict_one({"a": 1.0}) is False


def test_cog_losses_put_rho_in_margin_or_slope():
    one = COG(loss="I", rho=4.0, eta=1.0)
    two = COG(loss="II", rho=4.0, eta=1.0)
    for model in (one, two):
        model.learn_one({"a": 1.0}, True)
    # I: step 1, margin 4 -> still violated; II: step rho = 4 at margin 1
    assert one.weights == {"a": 1.0} and two.weights == {"a": 4.0}
    one.learn_one({"a": 1.0}, True)
    two.learn_one({"a": 1.0}, True)
    assert one.weights == {"a": 2.0} and two.weights == {"a": 4.0}


def test_laplace_rho_counts_the_current_label_first():
    model = COG(loss="II")
    model.learn_one({"a": 1.0}, False)
    model.learn_one({"a": 1.0}, False)
    assert model.current_rho() == 3.0
    assert model.current_rho(1.0) == 1.5
    model.learn_one({"a": -1.0}, True)  # rho = (2 + 1) / (1 + 1)
    assert model.current_rho() == 1.5


# ---- relations between the baselines -----------------------------------------------------------


def scaled_phishing(n=None):
    scaler = preprocessing.StandardScaler()
    out = []
    for x, y in datasets.Phishing().take(n) if n else datasets.Phishing():
        scaler.learn_one(x)
        out.append((scaler.transform_one(x), y))
    return out


def test_paum_equals_cog_one_at_unit_step():
    """D-ACOG-20: PAUM(tau_+ = rho, tau_- = 1, eta = 1) and COG-I(eta = 1) make the same
    predictions (no exact ties on continuous data)."""
    for rho in (None, 3.0):
        paum, cog = PAUM(rho=rho), COG(loss="I", rho=rho, eta=1.0)
        for x, y in scaled_phishing():
            assert paum.predict_one(x) == cog.predict_one(x)
            paum.learn_one(x, y)
            cog.learn_one(x, y)
        assert paum.weights == pytest.approx(cog.weights)


def test_pa_one_learns_the_weights_of_rivers_pa_classifier():
    ours = PA(C=0.5)
    river = linear_model.PAClassifier(C=0.5, mode=1, learn_intercept=False)
    for x, y in scaled_phishing():
        ours.learn_one(x, y)
        river.learn_one(x, y)
    assert ours.weights == pytest.approx(dict(river.weights), rel=1e-10)
    # ...but predicts the rare class on a tie, where River's argmax picks False
    assert PA().predict_one({"a": 1.0}) is True
    assert linear_model.PAClassifier().predict_one({"a": 1.0}) is False


# Table II of the paper, german, "sum" run: (sum, std, sens, spec) in %.
GERMAN_TABLE_II = {
    "Perceptron": (53.760, 1.655, 35.133, 72.386),
    "ROMMA": (57.625, 2.943, 43.550, 71.700),
    "CPA": (53.185, 1.948, 37.883, 68.486),
    "PAUM": (54.145, 1.335, 26.483, 81.807),
    "AROW": (59.948, 1.295, 26.367, 93.529),
}


@pytest.mark.requires_data("german")
def test_parameter_free_baselines_reproduce_table_two_on_german():
    """Perceptron, ROMMA, CPA_PB and PAUM have no tuned parameter, so their german rows of
    Table II (raw german.numer, unit L2 norm, 20 random orders, rho = Tn/Tp = 7/3) check the
    variants directly: the mean sum must fall within one of the paper's standard deviations,
    sensitivity and specificity within 2.5 points. AROW is stated to run with r = 1, but its row
    is matched by r = 0.1 (with r = 1: sum 53.6, sensitivity 10): a re-tuned r, as AROW's rows
    differing between the paper's sum and cost runs suggest."""
    from sklearn.datasets import load_svmlight_file

    path = get_data_home() / "libsvm" / "german.numer"
    X, y = load_svmlight_file(str(path))
    X = X.toarray()
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    labels = y == 1  # bad credit, 300 of 1,000
    rows = [{j: v for j, v in enumerate(row) if v != 0} for row in X.tolist()]
    rho = (~labels).sum() / labels.sum()
    models = {
        "Perceptron": lambda: Perceptron(),
        "ROMMA": lambda: ROMMA(),
        "CPA": lambda: CPA(rho=rho),
        "PAUM": lambda: PAUM(rho=rho),
        "AROW": lambda: AROW(r=0.1),
    }
    for name, make in models.items():
        sensitivity, specificity = [], []
        for seed in range(20):
            model, missed = make(), np.zeros(2)
            for i in np.random.default_rng(seed).permutation(len(rows)):
                missed[int(labels[i])] += model.predict_one(rows[i]) != labels[i]
                model.learn_one(rows[i], bool(labels[i]))
            sensitivity.append(100 * (1 - missed[1] / labels.sum()))
            specificity.append(100 * (1 - missed[0] / (~labels).sum()))
        total = (np.mean(sensitivity) + np.mean(specificity)) / 2
        paper_sum, paper_std, paper_sens, paper_spec = GERMAN_TABLE_II[name]
        assert abs(total - paper_sum) <= paper_std, (name, total)
        assert abs(np.mean(sensitivity) - paper_sens) <= 2.5, (name, np.mean(sensitivity))
        assert abs(np.mean(specificity) - paper_spec) <= 2.5, (name, np.mean(specificity))


def test_learning_on_phishing_beats_chance():
    from river import evaluate, metrics

    for cls in ESTIMATORS:
        model = preprocessing.StandardScaler() | cls()
        metric = evaluate.progressive_val_score(
            datasets.Phishing(), model, metrics.BalancedAccuracy()
        )
        assert metric.get() > 0.75, cls.__name__


# ---- River citizenship and bad input -------------------------------------------------------------


# River's own checks (river.checks.check_estimator's list, every configuration of
# ``_unit_test_params``) run in tests/test_river_checks.py, which collects every exported estimator.


#: Bad samples for a model of the Phishing stream: (x, y, error raised, what its message names).
BAD_PHISHING_SAMPLES = [
    ({"ip_in_url": float("nan")}, True, InvalidFeature, "ip_in_url"),
    ({"ip_in_url": float("-inf"), "new": 1.0}, True, InvalidFeature, "ip_in_url"),
    ({"ip_in_url": float("inf"), "new": 1.0}, True, InvalidFeature, "ip_in_url"),
    ({"new": "high"}, False, InvalidFeature, "new"),
    ({"new": None}, False, InvalidFeature, "new"),
    ({"is_popular": 1.0}, None, UnknownLabel, "None"),
    ({"is_popular": 1.0}, "spam", UnknownLabel, "spam"),
]


def assert_bad_input_leaves_unchanged(model, fresh):
    """Each bad sample raises and leaves ``model`` (after 30 Phishing samples) and ``fresh``
    (nothing learned yet: the state is created only after validation) as they were. Shared with
    the SACOG tests."""
    for x, y in datasets.Phishing().take(30):
        model.learn_one(x, y)
    snapshot = pickle.dumps(model)
    for x, y, error, name in BAD_PHISHING_SAMPLES:
        with pytest.raises(error, match=name):
            model.learn_one(x, y)
        assert pickle.dumps(model) == snapshot
    model.learn_one({}, True)  # documented no-op
    assert pickle.dumps(model) == snapshot
    snapshot = pickle.dumps(fresh)
    # (a first non-positive label is the negative class, so the last sample is not bad for fresh)
    for x, y, error, name in BAD_PHISHING_SAMPLES[:-1]:
        with pytest.raises(error, match=name):
            fresh.learn_one(x, y)
        assert pickle.dumps(fresh) == snapshot


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_bad_input_leaves_the_model_unchanged(cls):
    assert_bad_input_leaves_unchanged(cls(), cls())


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_intercept_before_and_on_empty_samples(cls):
    """With an intercept the constant feature exists before any learning: predicting, and
    learning from an empty dict, use it."""
    model = cls(intercept=True)
    assert model.predict_proba_one({"a": 1.0}) == {True: 0.5, False: 0.5}
    model.learn_one({}, False)
    assert model.intercept_ < 0
    assert model.predict_one({}) is False


@pytest.mark.parametrize("cls", ESTIMATORS)
def test_first_thousand_samples_of_one_class(cls):
    model = cls()
    rng = np.random.default_rng(0)
    for _ in range(1000):
        model.learn_one({f"f{j}": v for j, v in enumerate(rng.standard_normal(4))}, False)
    assert all(math.isfinite(w) for w in model.weights.values())
    proba = model.predict_proba_one({"f0": 1.0})
    assert set(proba) == {True, False} and sum(proba.values()) == pytest.approx(1.0)


def test_invalid_parameters():
    bad = [
        (PA, {"C": 0}),
        (CPA, {"rho": 0}),
        (CPA, {"rule": "ml"}),
        (PAUM, {"eta": 0}),
        (PAUM, {"tau_negative": -1}),
        (AROW, {"r": 0}),
        (COG, {"loss": "III"}),
        (COG, {"eta": -1}),
    ]
    for cls, params in bad:
        with pytest.raises(ValueError):
            cls(**params)


def test_romma_on_overlapping_classes_says_why_it_overflows():
    """ROMMA assumes separable data: on noisy data its weights grow until an update would
    overflow; that update is refused with a message about separability, not scaling."""
    from river import datasets, preprocessing

    from imbalance_stream.base import NumericalError

    scaler, model = preprocessing.StandardScaler(), ROMMA()
    with pytest.raises(NumericalError, match="not linearly separable"):
        for x, y in datasets.Bananas():
            scaler.learn_one(x)
            model.learn_one(scaler.transform_one(x), y)
    before = pickle.dumps(model)
    x = scaler.transform_one(x)
    assert model.predict_one(x) in (True, False)
    assert pickle.dumps(model) == before
