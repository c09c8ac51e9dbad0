"""Smoke tests of issue 37's scenarios (letter's memory gap, the multiple-kernel FIFO++ columns on
letter and poker): each file's settings are the protocol's, and a tiny version of each runs."""

from __future__ import annotations

import pathlib
import sys

import pytest

from imbalance_stream.evaluate.protocols import get_protocol
from reproduce.koil import protocol as kp
from reproduce.koil.gaps import stored_vectors

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

pytestmark = pytest.mark.requires_data("koil-glass", "koil-heart")

HERE = pathlib.Path(__file__).parent


def _params(name: str) -> dict:
    return tomllib.loads((HERE / name).read_text(encoding="utf-8"))["params"]


def test_gap_letter_memory_smoke(tmp_path):
    params = _params("gap_letter_memory.toml")
    settings = kp._settings(params, {})
    assert settings["datasets"] == ["letter"] and settings["trial_indices"] == [0, 1, 2, 3, 4]
    # every column is fixed: the scenario runs no inner CV
    assert set(params["fixed"]["letter"]) == set(params["algorithms"])
    # the same columns and values on glass, one trial
    tiny = dict(params, datasets=["glass"], trials=[0], fixed={"glass": params["fixed"]["letter"]})
    rows = get_protocol("reproduce.koil.protocol:table3_3")(
        tiny, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert [r["algorithm"] for r in rows] == params["algorithms"]
    for row in rows:
        assert 0.4 < row["auc_mean"] <= 1.0


def test_norma_b200_truncates_what_norma_keeps():
    values = {"lam": 2.0**-8, "nu": 1.0, "sigma": 2.0**-5}
    small = {"baseline_budget": 20}  # a total budget of 40 on glass's ~171 training rows
    unbounded = stored_vectors("glass", "NORMA", [0], values, small)[0]
    truncated = stored_vectors("glass", "NORMA_B200", [0], values, small)[0]
    assert unbounded["stored"] > 40 and truncated["stored"] == 40
    assert unbounded["stored"] <= unbounded["rows"] == truncated["rows"]


def test_table4_1_fifo_letter_poker_small_smoke(tmp_path):
    params = _params("table4_1_fifo_letter_poker_small.toml")
    settings = kp._settings(params, kp._TABLE4_1)
    assert settings["datasets"] == ["letter", "poker"]
    assert all("FIFO++" in name for name in settings["algorithms"])
    tiny = dict(
        params,
        datasets=["heart"],
        trials=[0, 1],
        fixed={
            "heart": {
                "KOIL_FIFO++": {"C": 4.0, "sigma": 1.0},
                "KOIL^s_FIFO++": {"C": 4.0, "sigma": 1.0},
                "KOIL^MKL_FIFO++": {"C": 4.0},
                "KOIL^MKL,s_FIFO++": {"C": 4.0},
            }
        },
    )
    rows = get_protocol("reproduce.koil.protocol:table4_1")(
        tiny, out_dir=tmp_path, n_jobs=None, scheduler=None, progress=False
    )
    assert [r["algorithm"] for r in rows] == params["algorithms"]
    for row in rows[2:]:
        assert row["mark"] in ("•", "-", "") and 0.6 < row["auc_mean"] <= 1.0


def test_the_fixed_multiple_kernel_scenario_runs_no_search():
    params = _params("table4_1_fifo_letter_poker_fixed.toml")
    settings = kp._settings(params, kp._TABLE4_1)
    assert settings["algorithms"] == _params("table4_1_fifo_letter_poker_small.toml")["algorithms"]
    for dataset in ("letter", "poker"):
        assert set(params["fixed"][dataset]) == set(settings["algorithms"])
        for name, entry in params["fixed"][dataset].items():
            assert set(entry["values"]) == set(kp.ALGORITHMS[name].grid)
