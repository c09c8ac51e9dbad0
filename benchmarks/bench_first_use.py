"""First use: how long the first ``learn_one`` of every public estimator takes, with an empty
numba cache (everything its first sample reaches is compiled), with a warm one (the compiled
code is loaded from the cache), and after ``imbalance-stream compile NAME`` filled an empty one.

Each measurement runs in a fresh Python process, so nothing compiled in one estimator's run helps
another's: the cold run points ``NUMBA_CACHE_DIR`` at a new empty directory, the warm run at the
directory the cold run filled; the "compiled" run at another new directory, which
``imbalance-stream compile NAME`` (timed whole, wall-clock, as a user waits for it) fills first.
Timed, in wall-clock seconds inside the child process: the import
of the estimator's module, then the first ``learn_one`` (and, apart, the first
``predict_proba_one`` / ``score_one`` after it). The sample is the first row of River's bundled
Phishing data (9 features), with its label.

``--installed`` checks the cache of an installed (not editable) copy of the package in a
directory the user cannot write: the package is copied into a fresh read-only directory (and,
since root writes through file modes, a plain file named ``__pycache__`` blocks every package
directory's cache), and ``NUMBA_CACHE_DIR`` is left unset, so numba must fall back to its per-user
cache directory (``$XDG_CACHE_HOME/numba``, else ``~/.cache/numba``; pointed here at a fresh
temporary ``XDG_CACHE_HOME``). The "cached" column then counts the index files written there, and
the report counts those written inside the package (0 when the fallback works).

Run from the repository root::

    python benchmarks/bench_first_use.py [--repeats 3] [--only KOIL ACOG] [--no-compile]
    python benchmarks/bench_first_use.py --installed --only KOIL ACOG
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import importlib, json, sys, time
start = time.perf_counter()
module = importlib.import_module(sys.argv[1])
cls = getattr(module, sys.argv[2])
imported = time.perf_counter() - start
from river import base, datasets
x, y = next(iter(datasets.Phishing()))
params = next(iter(cls._unit_test_params()), {})
model = cls(**params)
start, cpu = time.perf_counter(), time.process_time()
if isinstance(model, base.AnomalyDetector):
    model.learn_one(x)
else:
    model.learn_one(x, y)
learned, learned_cpu = time.perf_counter() - start, time.process_time() - cpu
start = time.perf_counter()
if isinstance(model, base.AnomalyDetector):
    model.score_one(x)
else:
    model.predict_proba_one(x)
predicted = time.perf_counter() - start
print(json.dumps({"import": imported, "learn": learned, "cpu": learned_cpu, "predict": predicted}))
"""


def estimators(only):
    """(module, class name) of every public estimator, or of those in ``only``."""
    sys.path.insert(0, str(ROOT))
    from imbalance_stream.catalog import CLASSES

    found = [tuple(full.rsplit(".", 1)) for full, kind in CLASSES.values() if kind == "estimator"]
    return [item for item in found if not only or item[1] in only]


def run_compile(name, env, cwd) -> float:
    """Wall-clock seconds of ``imbalance-stream compile NAME`` in a fresh process."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "imbalance_stream.cli", "compile", name],
        env=env,
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=1800,
    )
    return time.perf_counter() - start


def run_child(module, name, env, cwd, code: str = CHILD) -> dict:
    """Run the child script ``code`` on one estimator in a fresh process; its last JSON line."""
    out = subprocess.run(
        [sys.executable, "-c", code, module, name],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if out.returncode:
        raise RuntimeError(f"{name}: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def measure(items, repeats, env_for, cwd, compiled=False):
    """``{name: {"cold": [...], "warm": [...], "compiled": [...]}}`` of the child's timings,
    ``repeats`` cold runs (each with its own empty cache), as many warm runs (each on the cache its
    cold run left) and, with ``compiled``, as many runs on a cache ``imbalance-stream compile``
    filled (their ``"compile"``: its seconds)."""
    results = {}
    for module, name in items:
        cold, warm, after = [], [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory() as cache:
                env = env_for(cache)
                cold.append(run_child(module, name, env, cwd))
                cold[-1]["files"] = len(list(Path(cache).rglob("*.nbi")))
                warm.append(run_child(module, name, env, cwd))
            if compiled:
                with tempfile.TemporaryDirectory() as cache:
                    env = env_for(cache)
                    seconds = run_compile(name, env, cwd)
                    after.append({**run_child(module, name, env, cwd), "compile": seconds})
        results[name] = {"cold": cold, "warm": warm, "compiled": after}
        print(summary_line(name, cold, warm, after), flush=True)
    return results


def median_of(runs, key):
    return statistics.median(run[key] for run in runs)


def summary_line(name, cold, warm, after=()) -> str:
    line = (
        f"{name:26s} {median_of(cold, 'learn'):9.2f} {max(r['learn'] for r in cold):9.2f} "
        f"{median_of(cold, 'cpu'):9.2f} "
        f"{median_of(warm, 'learn'):9.3f} {max(r['learn'] for r in warm):9.3f} "
        f"{median_of(warm, 'cpu'):9.3f} "
        f"{median_of(cold, 'predict'):9.2f} {median_of(warm, 'import'):9.2f} "
        f"{median_of(cold, 'files'):7.0f}"
    )
    if after:
        line += (
            f" {median_of(after, 'learn'):9.3f} {median_of(after, 'cpu'):9.3f}"
            f" {median_of(after, 'compile'):9.2f}"
        )
    return line


def header(repeats, compiled=False):
    print(f"first learn_one, seconds; median (and max) of {repeats} fresh processes each")
    print(
        f"{'estimator':26s} {'cold':>9s} {'cold max':>9s} {'cold CPU':>9s} {'warm':>9s} "
        f"{'warm max':>9s} {'warm CPU':>9s} "
        f"{'1st pred':>9s} {'import':>9s} {'cached':>7s}"
        + (f" {'compiled':>9s} {'comp. CPU':>9s} {'compile':>9s}" if compiled else "")
    )
    print("(cold/warm: empty/filled numba cache, wall-clock s; CPU: the process's CPU s;")
    print(" 1st pred: the first prediction after the first learn_one, cold;")
    print(" import: the estimator's module, warm; cached: index files the cold run wrote;")
    print(" compiled: wall (and CPU) s after `imbalance-stream compile NAME`, which took")
    print(" compile s, wall-clock)")


def local_env(cache):
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = cache
    env["PYTHONPATH"] = str(ROOT)
    return env


def installed_copy(workdir: Path) -> Path:
    """A copy of the package in ``workdir/site`` (sources and the optional compiled encoder, no
    caches), made read-only, as a system-wide install would be."""
    site = workdir / "site"
    shutil.copytree(
        ROOT / "imbalance_stream",
        site / "imbalance_stream",
        ignore=shutil.ignore_patterns("__pycache__", "*.nbi", "*.nbc"),
    )
    for package in [site / "imbalance_stream", *(site / "imbalance_stream").rglob("*")]:
        if package.is_dir():
            # A root user writes through any file mode, so the permissions below do not stop
            # the benchmark when run as root: a plain file named __pycache__ does, for numba's
            # cache (it cannot create its directory there) as for Python's bytecode.
            (package / "__pycache__").touch()
    for path in sorted(site.rglob("*"), reverse=True):
        path.chmod(0o555 if path.is_dir() else 0o444)
    site.chmod(0o555)
    return site


def run_installed(items, repeats):
    with tempfile.TemporaryDirectory() as workdir:
        site = installed_copy(Path(workdir))
        caches = []

        def env_for(cache):
            env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
            env["PYTHONPATH"] = str(site)
            env["XDG_CACHE_HOME"] = cache
            caches.append(cache)
            return env

        writable = os.access(site / "imbalance_stream", os.W_OK)
        print(f"read-only copy at {site} (writable by this user: {writable})")
        header(repeats)
        measure(items, repeats, env_for, cwd=workdir)
        in_package = list(site.rglob("*.nbi"))
        print(f"cache index files inside the package: {len(in_package)}")
        for path in Path(workdir).rglob("*"):
            path.parent.chmod(0o755)
            path.chmod(0o755)  # so that the temporary directory can be removed
    return caches


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="estimator class names (default: all)")
    parser.add_argument("--installed", action="store_true", help="read-only installed copy")
    parser.add_argument(
        "--no-compile", action="store_true", help="skip the runs after `imbalance-stream compile`"
    )
    args = parser.parse_args(argv)
    items = estimators(args.only)
    if args.installed:
        run_installed(items, args.repeats)
        return
    header(args.repeats, compiled=not args.no_compile)
    measure(items, args.repeats, local_env, cwd=ROOT, compiled=not args.no_compile)


if __name__ == "__main__":
    main()
