"""Batch LPSVM and wLPSVM (seed 001, §2.2-2.3): closed forms against the printed equations."""

import numpy as np
import pytest

from imbalance_stream.svm import (
    LPSVM,
    WeightedLPSVM,
    class_weights,
    lpsvm_solution,
    wlpsvm_solution,
)


def _data(n_pos=15, n_neg=45, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(1.0, 1.0, (n_pos, d)), rng.normal(-0.5, 1.5, (n_neg, d))])
    y = np.r_[np.ones(n_pos), -np.ones(n_neg)]
    order = rng.permutation(len(y))
    return X[order], y[order]


def test_lpsvm_matches_block_form_2_19():
    X, y = _data()
    C, n, d = 3.0, *X.shape
    e = np.ones(n)
    block = np.block(
        [
            [X.T @ X + np.eye(d) / C, -(X.T @ e)[:, None]],
            [-(e @ X)[None, :], np.array([[n + 1.0 / C]])],
        ]
    )
    rhs = np.r_[X.T @ y, -e @ y]
    expected = np.linalg.solve(block, rhs)
    np.testing.assert_allclose(lpsvm_solution(X, y, C), expected, rtol=1e-12, atol=1e-14)


def test_proposition_1_equals_weighted_formula_2_28():
    X, y = _data()
    C = 0.7
    E = np.hstack([X, -np.ones((len(y), 1))])
    pos, neg = E[y > 0], E[y < 0]
    sp, sn = class_weights(len(pos), len(neg))
    A = np.eye(E.shape[1]) / C + sp * pos.T @ pos + sn * neg.T @ neg
    r = sp * pos.sum(axis=0) - sn * neg.sum(axis=0)
    np.testing.assert_allclose(wlpsvm_solution(X, y, C), np.linalg.solve(A, r), rtol=1e-12)


def test_class_weights_2_27_and_kappa():
    assert class_weights(10, 30) == (0.75, 0.25)
    assert class_weights(10, 30, kappa=2.0) == (1.5, 0.5)
    assert class_weights(0, 0) == (0.0, 0.0)


def test_balanced_data_kappa_two_is_lpsvm_kappa_one_is_lpsvm_half_c():
    X, y = _data(n_pos=20, n_neg=20)
    np.testing.assert_allclose(
        wlpsvm_solution(X, y, 2.0, kappa=2.0), lpsvm_solution(X, y, 2.0), rtol=1e-12
    )
    np.testing.assert_allclose(
        wlpsvm_solution(X, y, 2.0, kappa=1.0), lpsvm_solution(X, y, 1.0), rtol=1e-12
    )


def test_kappa_is_a_factor_on_c():
    X, y = _data()
    np.testing.assert_allclose(
        wlpsvm_solution(X, y, 0.5, kappa=4.0), wlpsvm_solution(X, y, 2.0, kappa=1.0), rtol=1e-12
    )


def test_label_swap_negates_the_solution():
    X, y = _data()
    np.testing.assert_allclose(wlpsvm_solution(X, -y, 1.5), -wlpsvm_solution(X, y, 1.5), rtol=1e-12)
    np.testing.assert_allclose(lpsvm_solution(X, -y, 1.5), -lpsvm_solution(X, y, 1.5), rtol=1e-12)


def test_harmonic_form_and_zero_bias_entry_of_the_right_hand_side():
    X, y = _data()
    C = 2.0
    E = np.hstack([X, -np.ones((len(y), 1))])
    pos, neg = E[y > 0], E[y < 0]
    lp, ln = len(pos), len(neg)
    h = lp * ln / (lp + ln)
    A = np.eye(E.shape[1]) / (C * h) + pos.T @ pos / lp + neg.T @ neg / ln
    r = np.r_[X[y > 0].mean(axis=0) - X[y < 0].mean(axis=0), 0.0]
    np.testing.assert_allclose(wlpsvm_solution(X, y, C), np.linalg.solve(A, r), rtol=1e-11)


def test_one_class_only_gives_the_zero_solution():
    X, _ = _data()
    assert np.all(wlpsvm_solution(X, np.ones(len(X))) == 0.0)


def test_toy_rectangles_lpsvm_shifts_towards_the_minority_wlpsvm_does_not():
    # Weighted LPSVM (Algorithm 2) on a 5:300 toy: x1 in [0.1, 1.1] positive, [-1.1, -0.1] negative.
    rng = np.random.default_rng(3)
    pos = np.c_[rng.uniform(0.1, 1.1, 5), rng.uniform(-1, 1, 5)]
    neg = np.c_[rng.uniform(-1.1, -0.1, 300), rng.uniform(-1, 1, 300)]
    X, y = np.vstack([pos, neg]), np.r_[np.ones(5), -np.ones(300)]
    for C in (1.0, 10.0, 100.0):
        plain, weighted = lpsvm_solution(X, y, C), wlpsvm_solution(X, y, C)

        def crossing(O):
            return O[2] / O[0]

        assert crossing(plain) > 1.1  # every positive sample falls on the negative side
        assert abs(crossing(weighted)) < 0.3
        assert np.all(X[y > 0] @ weighted[:2] - weighted[2] > 0)


def test_estimators_predict_labels_and_reject_bad_input():
    X, y = _data()
    labels = np.where(y > 0, "yes", "no")
    model = WeightedLPSVM(C=1.0, positive="yes").fit(X, labels)
    assert set(model.predict(X)) <= {"yes", "no"}
    np.testing.assert_allclose(model.solution_, wlpsvm_solution(X, y, 1.0))
    np.testing.assert_allclose(model.decision_function(X), X @ model.coef_ - model.bias_)
    assert LPSVM(positive="yes").fit(X, labels).solution_ == pytest.approx(lpsvm_solution(X, y))
    with pytest.raises(ValueError, match="NaN"):
        lpsvm_solution(np.array([[np.nan, 1.0]]), [1.0])
    with pytest.raises(ValueError, match=r"\+1"):
        lpsvm_solution(X, np.where(y > 0, 1.0, 0.0))
    with pytest.raises(ValueError, match="C must be a finite real number > 0"):
        LPSVM(C=0.0)
    with pytest.raises(ValueError, match="kappa"):
        WeightedLPSVM(kappa=-1.0)
