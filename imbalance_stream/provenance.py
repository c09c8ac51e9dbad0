"""What produced a run's outputs: the ``run.json`` that ``imbalance-stream run`` and
``imbalance-stream replay`` write beside their tables.

A reproduction's numbers depend on more than its scenario file: the versions of numpy and scipy
(a LAPACK routine that changes its rounding moves a kernel solver's path), the BLAS threads, the
commit of the code, the data home. The record keeps them with the table, so that a number on a
results page can be traced to what made it and a difference between two runs to what changed:

* ``command``: the command line, as typed after ``imbalance-stream``;
* ``scenario``: the scenario file's path and SHA-256;
* ``git``: the commit of the repository holding the scenario file and whether tracked files had
  changes (absent when the file is not in a git work tree, for example a shipped scenario);
* ``started`` (UTC, ISO 8601) and ``wall_seconds``;
* ``python``, ``platform``, ``cpu_count``;
* ``packages``: the installed version of each package the runs can use (absent ones left out);
* ``environment``: the variables that change results or speed (data home, BLAS and numba
  threads), as set.

>>> record = describe(["run", "quickstart"], None, started=0.0, finished=1.5)
>>> record["wall_seconds"], record["scenario"]
(1.5, None)
>>> import numpy
>>> record["packages"]["numpy"] == numpy.__version__
True
"""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import pathlib
import platform
import subprocess
import sys

__all__ = ["ENVIRONMENT", "PACKAGES", "describe", "make_output_dir", "snapshot", "write"]

#: Distributions whose versions the record keeps (those installed).
PACKAGES = (
    "imbalance-stream",
    "numpy",
    "scipy",
    "numba",
    "river",
    "scikit-learn",
    "imbalanced-learn",
    "pandas",
    "pyarrow",
    "duckdb",
    "dask",
    "densratio",
)

#: Environment variables that change results or speed.
ENVIRONMENT = (
    "IMBALANCE_STREAM_DATA",
    "OPENBLAS_NUM_THREADS",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)


def snapshot(scenario_file: str | os.PathLike | None) -> dict:
    """The scenario file's hash and the commit of its repository as they are now. A command
    takes it when it starts: a commit or an edit made while a long run goes on must not pass
    for what ran."""
    return {"scenario": _scenario(scenario_file), "git": _git(scenario_file)}


def describe(
    argv: list[str],
    scenario_file: str | os.PathLike | None,
    started: float,
    finished: float,
    source: dict | None = None,
) -> dict:
    """The record of one command: ``argv`` as given after the program name, the scenario file it
    ran (None for none), its start and end as :func:`time.time` values, and the
    :func:`snapshot` taken when it started (None: take it now)."""
    if source is None:
        source = snapshot(scenario_file)
    return {
        "command": " ".join(["imbalance-stream", *argv]),
        "scenario": source["scenario"],
        "git": source["git"],
        "started": datetime.datetime.fromtimestamp(started, datetime.timezone.utc).isoformat(
            timespec="seconds"
        ),
        "wall_seconds": round(finished - started, 3),
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "packages": _versions(),
        "environment": {name: os.environ[name] for name in ENVIRONMENT if name in os.environ},
    }


def write(directory: str | os.PathLike, record: dict) -> pathlib.Path:
    """Write ``record`` as ``run.json`` into ``directory``; returns the path."""
    path = pathlib.Path(directory) / "run.json"
    path.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return path


def _scenario(scenario_file) -> dict | None:
    if scenario_file is None or not pathlib.Path(scenario_file).is_file():
        return None
    path = pathlib.Path(scenario_file)
    return {"path": str(path), "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}


def _versions() -> dict[str, str]:
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            continue
    return versions


def _git(scenario_file) -> dict | None:
    """The commit checked out where the scenario file lives, and whether tracked files differ
    from it; None outside a git work tree or without git."""
    if scenario_file is None or not pathlib.Path(scenario_file).is_file():
        return None
    where = pathlib.Path(scenario_file).resolve().parent

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", *args], cwd=where, capture_output=True, text=True, timeout=10
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if commit is None:
        return None
    changes = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": commit, "modified": bool(changes)}


def make_output_dir(out: pathlib.Path, error: type[Exception]) -> None:
    """Create the output folder ``out`` (and its parents), or raise ``error`` in one line: a path
    that is a file or a device, or a folder that cannot be created or written to."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as failure:
        reason = failure.strerror or str(failure)
        if isinstance(failure, FileExistsError) or (out.exists() and not out.is_dir()):
            reason = "it exists and is not a folder"
        raise error(
            f"cannot create the output folder {str(out)!r}: {reason}; choose another --out"
        ) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise error(f"cannot write to the output folder {str(out)!r}; choose another --out")
