"""Issue 37's two measuring tools: the plain SMO of working_set.py (both choices of the pair
solve the same dual as LIBSVM, and the tool prints a run) and virtual_share.py's counts."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.svm import SVC

from reproduce.lasvm import virtual_share, working_set
from reproduce.lasvm.protocol import load_split


def test_both_pair_choices_reach_libsvm_solution():
    X, y = load_split("banana", 2009, 0, n_train=200)[:2]
    C, gamma = 10.0, 0.5
    svc = SVC(C=C, gamma=gamma, tol=1e-6, shrinking=False).fit(X, y)
    reference = svc.decision_function(X)
    K = rbf_kernel(X, X, gamma=gamma)
    labels = np.where(y == y[0], 1.0, -1.0)
    counts = {}
    for second in (False, True):
        steps, alpha = working_set.smo(K, labels, C, 1e-6, second, 10_000_000)
        counts[second] = steps
        assert np.all(alpha >= 0) and np.all(alpha <= C)
        assert abs(float(alpha @ labels)) < 1e-8  # the equality constraint kept
        f = K @ (alpha * labels)
        # the offset aside (LIBSVM's rho), the decision values are LIBSVM's up to its sign
        sign = 1.0 if svc.classes_[1] == y[0] else -1.0
        difference = f - sign * reference
        assert np.ptp(difference) < 1e-3
    assert counts[False] >= counts[True] > 0


def test_working_set_prints_one_run(capsys, monkeypatch):
    real = working_set.load_split
    monkeypatch.setattr(working_set, "load_split", lambda d, s, r: real(d, s, r, n_train=300))
    working_set.main(["--dataset", "banana", "--runs", "1"])
    out = capsys.readouterr().out
    for name in ("libsvm_shrinking", "libsvm_no_shrinking", "smo_first_order", "lasvm_finish"):
        assert name in out


@pytest.mark.requires_data("breast-cancer-wisconsin")
def test_virtual_share_counts_are_consistent():
    counts = virtual_share.count("breast", 0, stop=False)
    assert counts["real_positives"] == 172
    # learned to the end: every virtual positive made is learned
    assert 0 < counts["learned"] == counts["made"]
    assert counts["sv_finished"] <= counts["made"] and counts["sv_at_end"] <= counts["made"]
    assert counts["sv_at_own_step"] <= counts["learned"]
