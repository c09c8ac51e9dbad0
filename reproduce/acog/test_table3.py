"""Table III's generalisation protocol: folds, the frozen model's decisions, a smoke run."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from reproduce.acog import table3
from reproduce.acog.protocol import LEARNERS


def test_folds_partition_the_rows_and_depend_on_the_repetition():
    parts = table3.fold_indices(103, 5, 2018, 0)
    assert sorted(np.concatenate(parts).tolist()) == list(range(103))
    assert [len(p) for p in parts] == [21, 21, 21, 20, 20]
    again = table3.fold_indices(103, 5, 2018, 0)
    assert all(np.array_equal(a, b) for a, b in zip(parts, again))
    other = table3.fold_indices(103, 5, 2018, 1)
    assert not np.array_equal(parts[0], other[0])


@pytest.mark.parametrize("name", table3.PAPER_ALGORITHMS)
def test_frozen_decisions_are_the_models_own(name):
    rng = np.random.default_rng(7)
    X = sparse.random(60, 8, density=0.5, random_state=3, format="csr")
    X.data = rng.normal(size=X.nnz)
    y = rng.random(60) < 0.3
    learner = LEARNERS[name]
    model = learner.build_for(2.0, 0.5 if learner.tuned else None)
    from imbalance_stream.evaluate import replay_array

    replay_array(model, X, y)
    ours = table3.frozen_decisions(model, X)
    dense = X.toarray()
    theirs = [model.decision_one({j: v for j, v in enumerate(row) if v != 0}) for row in dense]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@pytest.mark.requires_data("german")
def test_a_small_run_gives_one_row_per_algorithm_with_the_papers_value(tmp_path):
    rows = table3.table3(
        {
            "datasets": ["german"],
            "algorithms": ["Perceptron", "ACOG-IIdiag"],
            "folds": 3,
            "selection_runs": 1,
            "grid": [0.1, 10.0],
            "max_samples": 300,
        },
        out_dir=tmp_path,
    )
    assert [r["algorithm"] for r in rows] == ["Perceptron", "ACOG-IIdiag"]
    assert all(r["folds"] == 3 and 0 <= r["sum"] <= 100 for r in rows)
    assert rows[1]["paper_sum"] == pytest.approx(66.036)
    assert set(rows[1]["values"].split()) <= {"0.1", "10"}
    assert (tmp_path / "runs.csv").read_text().count("\n") == 7
    assert "ACOG-IIdiag" in table3.markdown(rows)
