"""Every benchmark script of ``benchmarks/`` runs to the end at a tiny size.

The benchmarks are what the speed claims of ``benchmarks/README.md`` rest on; this keeps their
commands working as the package changes. Nothing here is timed: the numbers are measured by running
the scripts at full size, as the README says.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

# script, tiny arguments, the data-home files it reads (fetch names)
SMOKE = [
    ("bench_acog.py", ["--samples", "600", "--repeats", "1", "--chunk", "200"], ["a9a"]),
    ("bench_koil.py", ["--samples", "300", "--repeats", "1", "--chunk", "100"], ["koil-letter"]),
    ("bench_lasvm.py", ["--samples", "600", "--block", "300"], ["a9a"]),
    ("bench_lasvm_family.py", ["--samples", "300", "--runs", "1"], []),
    ("bench_dcil.py", ["--quick", "--dims", "5", "--samples", "200", "--repeat", "1"], []),
    ("bench_memory.py", ["--repeats", "1"], []),
    ("bench_replay.py", ["--rows", "300"], []),
    (
        "bench_density_ratio.py",
        [
            "--n",
            "100",
            "--repeats",
            "1",
            "--windows",
            "40",
            "--samples",
            "100",
            "--parts",
            "refresh",
            "breakdown",
            "per-sample",
            "kmm-solvers",
        ],
        [],
    ),
    # a child process with an empty numba cache: the cheapest estimator to compile
    ("bench_first_use.py", ["--repeats", "1", "--only", "ACOG"], []),
    ("bench_compile.py", ["--repeats", "1", "--only", "SACOG"], []),
    ("bench_reselect.py", ["--repeats", "1", "--quick"], []),
]


@pytest.mark.parametrize(
    "script, arguments",
    [
        pytest.param(script, arguments, id=script, marks=pytest.mark.requires_data(*files))
        for script, arguments, files in SMOKE
    ],
)
def test_benchmark_runs_at_a_tiny_size(script, arguments):
    environment = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *arguments],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip(), f"{script} printed nothing"


def test_every_benchmark_script_has_a_smoke_run():
    scripts = {path.name for path in (ROOT / "benchmarks").glob("bench_*.py")}
    assert scripts == {script for script, _, _ in SMOKE}
