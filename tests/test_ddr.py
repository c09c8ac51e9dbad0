"""DDR: the prior ratio, class-wise quasi-uLSIF, the mutual information and the BCU loop."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy import optimize

from imbalance_stream.density_ratio import DDR, IWLSPC, NotFitted
from imbalance_stream.density_ratio.ddr import (
    classwise_quasi_ulsif,
    mutual_information,
    prior_ratio,
)


def shifted(seed, n_source=90, n_target=120):
    """Two Gaussian classes; the target has more of class 'b' and its inputs moved."""
    rng = np.random.default_rng(seed)

    def draw(n, share_b, shift):
        y = (rng.random(n) < share_b).astype(int)
        X = rng.normal(size=(n, 2)) + np.where(y[:, None] == 1, 1.5, -1.5) + shift
        return X, np.array(["a", "b"])[y]

    Xs, ys = draw(n_source, 0.3, 0.0)
    Xt, yt = draw(n_target, 0.7, 0.5)
    return Xs, ys, Xt, yt


def kernel(a, b, sigma):
    return np.exp(-((a - b) ** 2).sum() / (2 * sigma * sigma))


def quasi_ulsif_reference(source, codes, target, posterior, losses, sigma, lam, scale, centres):
    """Algorithm 6 by minimising eq. 4.17 (plus the ridge) numerically, class by class, with the
    kernel evaluated pair by pair: an independent check of the corrected eq. 4.20."""
    n_classes = posterior.shape[1]
    freq = np.array([(codes == c).mean() for c in range(n_classes)])
    gamma = posterior.mean(0) / freq
    phi_s = np.array([[kernel(x, c, sigma) for c in centres] for x in source])
    phi_t = np.array([[kernel(x, c, sigma) for c in centres] for x in target])
    weights = np.empty(len(codes))
    for c in range(n_classes):
        rows = codes == c
        p = posterior[:, c]

        def objective(alpha, rows=rows, p=p, c=c):
            beta_s, beta_t = phi_s[rows] @ alpha, phi_t @ alpha
            return (
                scale * gamma[c] * (losses[rows] @ beta_s)
                + 0.5 * (beta_s**2).mean()
                - (p @ beta_t) / p.sum()
                + 0.5 * lam * alpha @ alpha
            )

        alpha = optimize.minimize(objective, np.zeros(len(centres)), method="BFGS", tol=1e-12).x
        weights[rows] = gamma[c] * (phi_s[rows] @ np.maximum(alpha, 0.0))
    return weights, gamma


@pytest.mark.parametrize("scale", [0.0, 0.05, 1.0])
def test_classwise_quasi_ulsif_minimises_eq_4_17(scale):
    Xs, ys, Xt, _ = shifted(0, 40, 50)
    codes = (ys == "b").astype(int)
    rng = np.random.default_rng(1)
    posterior = rng.dirichlet([1.0, 1.0], size=len(Xt))
    losses = rng.uniform(size=len(codes))
    centres = Xt[:8]
    weights, gamma, _ = classwise_quasi_ulsif(
        Xs, codes, Xt, posterior, losses, sigma=1.3, ridge=0.1, loss_scale=scale, centres=centres
    )
    ref_weights, ref_gamma = quasi_ulsif_reference(
        Xs, codes, Xt, posterior, losses, 1.3, 0.1, scale, centres
    )
    np.testing.assert_allclose(gamma, ref_gamma, rtol=1e-12)
    np.testing.assert_allclose(weights, ref_weights, atol=1e-4)  # BFGS precision


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 4))
def test_prior_ratio_reweighs_the_source_prior_to_the_target_prior(seed, n_classes):
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, n_classes, 30)
    posterior = rng.dirichlet(np.ones(n_classes), size=25)
    gamma = prior_ratio(codes, posterior)
    assert (gamma >= 0).all()
    freq = np.bincount(codes, minlength=n_classes) / len(codes)
    # sum_c freq_c gamma_c is the target mass of the classes the source has
    np.testing.assert_allclose(freq @ gamma, posterior[:, freq > 0].mean(0).sum())


@settings(max_examples=60, deadline=None)
@given(hnp.arrays(np.float64, (7, 3), elements=st.floats(0.0, 1.0)))
def test_mutual_information_lies_between_zero_and_log_classes(raw):
    rows = raw + 1e-3
    posterior = rows / rows.sum(1, keepdims=True)
    mi = mutual_information(posterior)
    assert -1e-12 <= mi <= np.log(3) + 1e-12


def test_mutual_information_has_the_corrected_sign():
    confident = np.eye(2)[[0, 1, 0, 1]]
    confused = np.full((4, 2), 0.5)
    assert mutual_information(confident) == pytest.approx(np.log(2))
    assert mutual_information(confused) == pytest.approx(0.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000))
def test_identical_source_and_target_give_weights_and_prior_ratio_near_one(seed):
    Xs, ys, _, _ = shifted(seed, 150, 10)
    codes = (ys == "b").astype(int)
    posterior = np.eye(2)[codes]  # the target is the source, labelled by a perfect model
    weights, gamma, _ = classwise_quasi_ulsif(
        Xs,
        codes,
        Xs,
        posterior,
        np.zeros(len(codes)),
        sigma=2.0,
        ridge=0.1,
        loss_scale=1.0,
        centres=Xs[::3],
    )
    np.testing.assert_allclose(gamma, 1.0)
    assert (weights >= 0).all()
    for c in (0, 1):
        assert abs(weights[codes == c].mean() - 1.0) < 0.1


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 10.0))
def test_weights_are_non_negative(seed, scale):
    Xs, ys, Xt, _ = shifted(seed, 30, 40)
    codes = (ys == "b").astype(int)
    rng = np.random.default_rng(seed)
    weights, gamma, _ = classwise_quasi_ulsif(
        Xs,
        codes,
        Xt,
        rng.dirichlet([1, 1], 40),
        rng.uniform(size=30),
        sigma=1.0,
        ridge=0.01,
        loss_scale=scale,
        centres=Xt[:10],
    )
    assert (weights >= 0).all() and (gamma >= 0).all()


def small_ddr(**kwargs):
    learner = IWLSPC(sigma=2.0, ridge=0.1, n_centres=30, seed=0)
    return DDR(learner=learner, n_centres=30, seed=0, **kwargs)


def test_ddr_finds_the_prior_shift_and_weight_extends_the_fit():
    Xs, ys, Xt, yt = shifted(3)
    ddr = small_ddr().fit(Xs, ys, Xt)
    assert list(ddr.classes_) == ["a", "b"]
    assert ddr.best_iteration_ == int(np.argmax(ddr.mi_))
    if ddr.best_iteration_ > 0:
        assert ddr.gamma_[1] > 1 > ddr.gamma_[0]
    np.testing.assert_allclose(ddr.weight(Xs, ys), ddr.weights_, atol=1e-10)
    assert (ddr.predict(Xt) == yt).mean() > 0.85
    np.testing.assert_allclose(ddr.predict_proba(Xt).sum(1), 1.0)


def test_without_early_stopping_the_last_iterate_is_kept():
    Xs, ys, Xt, _ = shifted(4)
    ddr = small_ddr(early_stopping=False, max_iter=3).fit(Xs, ys, Xt)
    assert ddr.best_iteration_ == ddr.n_iter_ - 1 <= 2
    assert len(ddr.delta_w_) == ddr.n_iter_


def test_bad_input_raises_and_leaves_the_fit_unchanged():
    Xs, ys, Xt, _ = shifted(5)
    with pytest.raises(NotFitted):
        small_ddr().weight(Xs, ys)
    ddr = small_ddr(max_iter=2).fit(Xs, ys, Xt)
    before = pickle.dumps(ddr)
    with pytest.raises(ValueError, match="'c'"):
        ddr.weight(Xs[:2], np.array(["a", "c"]))
    bad = Xs[:2].copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match="row 1, column 0"):
        ddr.weight(bad, ys[:2])
    with pytest.raises(ValueError, match="features"):
        ddr.predict(Xt[:, :1])
    assert pickle.dumps(ddr) == before
    with pytest.raises(ValueError, match="two classes"):
        small_ddr().fit(Xs, np.full(len(ys), "a"), Xt)
    with pytest.raises(ValueError, match="one label per row"):
        small_ddr().fit(Xs, ys[:-1], Xt)


def test_predictions_follow_the_posteriors_ddr_selects_by():
    """On a source where the rare class was under-sampled the SVM's sign and its Platt
    posteriors disagree; DDR labels by the posteriors (those of eq. 4.15 and eq. 4.22)."""
    from sklearn.datasets import load_breast_cancer

    from imbalance_stream.density_ratio import WeightedTSVM

    X, y = load_breast_cancer(return_X_y=True)
    X = 2 * (X - X.min(0)) / (X.max(0) - X.min(0)) - 1
    rng = np.random.default_rng(1)
    order = rng.permutation(len(y))
    test, pool = order[:284], order[284:]
    source = pool[rng.random(len(pool)) < np.where(y[pool] == 0, 0.08, 0.9)]
    ddr = DDR(WeightedTSVM(lambda2=0.0, seed=0), loss="hinge", max_iter=2, seed=0)
    ddr.fit(X[source], y[source], X[test])
    by_posterior = ddr.classes_[ddr.predict_proba(X[test]).argmax(1)]
    assert (ddr.model_.predict(X[test]) != by_posterior).any()  # the case this test is about
    np.testing.assert_array_equal(ddr.predict(X[test]), by_posterior)
