"""map_cells: results in order on every backend, and a numba cache of its own for each worker."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

from imbalance_stream.evaluate.parallel import map_cells

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _python(code: str, root: pathlib.Path, **kwargs) -> subprocess.Popen:
    environment = dict(os.environ, NUMBA_CACHE_DIR=str(root), PYTHONPATH=str(ROOT))
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_results_come_back_in_the_order_of_the_cells_on_processes():
    assert map_cells(abs, [-3, 1, -2, 7, -5], n_jobs=2) == [3, 1, 2, 7, 5]


def test_a_slot_is_never_shared_while_its_process_lives_and_is_reused_after(tmp_path):
    claim = """
        import sys
        from imbalance_stream.evaluate.parallel import claim_numba_cache
        print(claim_numba_cache(), flush=True)
        sys.stdin.read()
    """
    first = _python(claim, tmp_path)
    assert first.stdout.readline().strip() == str(tmp_path / "worker-0")
    second = _python(claim, tmp_path)
    assert second.stdout.readline().strip() == str(tmp_path / "worker-1")
    first.communicate("")
    third = _python(claim, tmp_path)
    assert third.stdout.readline().strip() == str(tmp_path / "worker-0")
    for process in (second, third):
        process.communicate("")
        assert process.returncode == 0


def test_a_root_that_cannot_hold_slots_gives_a_private_temporary_cache(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    claim = """
        import os
        from imbalance_stream.evaluate.parallel import claim_numba_cache
        directory = claim_numba_cache()
        assert os.path.isdir(directory)
        print(directory, flush=True)
    """
    process = _python(claim, not_a_directory)
    out, _ = process.communicate("")
    assert process.returncode == 0
    directory = pathlib.Path(out.strip())
    assert directory.name.startswith("imbalance-stream-numba-")
    assert not directory.exists()  # removed when the process ended


def test_pool_workers_compile_into_their_own_slots_not_the_shared_cache(tmp_path):
    # A fresh interpreter, so no kernel is compiled in memory before the pool forks: each worker
    # must compile guard.all_finite itself and save it where claim_numba_cache pointed it.
    probe = """
        import json, os, time
        import numpy as np
        from imbalance_stream._numba import guard
        from imbalance_stream.evaluate.parallel import map_cells

        def probe(cell):
            guard.all_finite(np.ones(3))
            time.sleep(0.3)  # keeps one worker busy so that the other takes cells too
            return os.getpid(), os.environ["NUMBA_CACHE_DIR"]

        print(json.dumps(map_cells(probe, range(6), n_jobs=2)))
    """
    process = _python(probe, tmp_path)
    out, _ = process.communicate("")
    assert process.returncode == 0
    directory_of = dict(json.loads(out))
    assert len(set(directory_of.values())) == len(directory_of)  # one slot per worker
    for directory in directory_of.values():
        assert pathlib.Path(directory).parent == tmp_path
        assert pathlib.Path(directory).name.startswith("worker-")
        assert list(pathlib.Path(directory).rglob("guard.all_finite-*.nbi"))
    outside = [
        path for path in tmp_path.rglob("guard.all_finite-*.nbi") if "worker-" not in str(path)
    ]
    assert outside == []


def test_dask_workers_claim_their_own_slots():
    pytest.importorskip("dask.distributed", reason="needs the distributed extra")
    root = os.environ.get("NUMBA_CACHE_DIR")
    directories = map_cells(os.getenv, ["NUMBA_CACHE_DIR"] * 4, n_jobs=2, scheduler="local")
    assert {pathlib.Path(directory).name[:7] for directory in directories} == {"worker-"}
    assert root not in directories
