"""Where the cold seconds of a first ``learn_one`` go: numba compile time per jitted function.

For each estimator, a fresh Python process with an empty ``NUMBA_CACHE_DIR`` imports it, builds it
from its first ``_unit_test_params`` and calls ``learn_one`` once on the first row of River's
bundled Phishing data, while a listener on numba's event API (``numba.core.event``, kind
``numba:compile``) records the process CPU time at the start and end of every compilation.
Compilations nest (a caller compiles its callees while it is typed), so each function's own
("self") time is its compile time minus that of the compilations nested in it. The LLVM column is
the part of that self time spent holding numba's LLVM lock (building, optimising and emitting the
function's LLVM module, which also links and re-optimises the IR of the callees it calls); the
rest is numba's front end (bytecode analysis, type inference, lowering to LLVM IR).

Run from the repository root::

    python benchmarks/bench_compile.py [--repeats 3] [--only KOIL LASVM SACOG]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from bench_first_use import estimators, run_child

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import importlib, json, sys, time
from numba.core import event

class CompileClock(event.Listener):
    # CPU time at each compile start and end, on a stack so that nested compiles are subtracted.
    # Each entry also sums the CPU time it holds numba's LLVM lock (re-entrant: counted from the
    # entry's own outermost hold, paused while a nested compile runs).
    def __init__(self):
        self.stack, self.rows, self.depth = [], [], 0
    def on_start(self, e):
        now = time.process_time()
        top = self.stack[-1] if self.stack else None
        if e.kind == "numba:llvm_lock":
            self.depth += 1
            if top and self.depth == top["base"] + 1:
                top["llvm_start"] = now
            return
        if top and self.depth > top["base"]:
            top["llvm"] += now - top["llvm_start"]
        self.stack.append({"dispatcher": e.data["dispatcher"], "start": now, "nested": 0.0,
                           "llvm": 0.0, "base": self.depth, "llvm_start": now})
    def on_end(self, e):
        now = time.process_time()
        if e.kind == "numba:llvm_lock":
            top = self.stack[-1] if self.stack else None
            if top and self.depth == top["base"] + 1:
                top["llvm"] += now - top["llvm_start"]
            self.depth -= 1
            return
        entry = self.stack.pop()
        total = now - entry["start"]
        if self.stack:
            self.stack[-1]["nested"] += total
            if self.depth > self.stack[-1]["base"]:
                self.stack[-1]["llvm_start"] = now
        self.rows.append((entry["dispatcher"], total, total - entry["nested"], entry["llvm"]))

module = importlib.import_module(sys.argv[1])
cls = getattr(module, sys.argv[2])
from river import datasets
x, y = next(iter(datasets.Phishing()))
model = cls(**next(iter(cls._unit_test_params()), {}))
clock = CompileClock()
cpu = time.process_time()
with event.install_listener("numba:compile", clock):
    with event.install_listener("numba:llvm_lock", clock):
        model.learn_one(x, y)
cpu = time.process_time() - cpu
rows = []
for dispatcher, total, own, llvm in clock.rows:
    name = dispatcher.py_func.__module__.rsplit(".", 1)[-1] + "." + dispatcher.py_func.__name__
    rows.append({"name": name, "total": total, "self": own, "llvm": llvm})
print(json.dumps({"cpu": cpu, "rows": rows}))
"""


def run_once(module: str, name: str) -> dict:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        return run_child(module, name, env, ROOT, code=CHILD)


def per_function(runs: list[dict]) -> dict[str, list[float]]:
    """``{function: [self CPU s per run, ...]}``; a function compiled twice in one run (two
    signatures) has the sum of both."""
    table: dict[str, list[float]] = {}
    for index, run in enumerate(runs):
        for row in run["rows"]:
            values = table.setdefault(row["name"], [0.0] * len(runs))
            values[index] += row["self"]
    return table


def report(name: str, runs: list[dict]) -> None:
    cpu = [run["cpu"] for run in runs]
    print(f"\n{name}: first learn_one CPU s per run: {' '.join(f'{c:.2f}' for c in cpu)}")
    signatures = statistics.median(len(run["rows"]) for run in runs)
    print(f"  compilations (dispatcher x signature) per run: {signatures:.0f}")
    table = per_function(runs)
    total = statistics.median(sum(v[i] for v in table.values()) for i in range(len(runs)))
    heading = f"{'self CPU s (runs)':>24s} {'median':>7s} {'share':>6s} {'LLVM':>6s}"
    print(f"  {'function':40s} {heading}")
    llvm = {}
    for run in runs:
        for row in run["rows"]:
            llvm.setdefault(row["name"], []).append(row["llvm"])
    for function, values in sorted(table.items(), key=lambda kv: -statistics.median(kv[1])):
        median = statistics.median(values)
        if median < 0.02:
            continue
        runs_text = " ".join(f"{v:.2f}" for v in values)
        print(
            f"  {function:40s} {runs_text:>24s} {median:7.2f} {median / total:6.1%} "
            f"{statistics.median(llvm[function]):6.2f}"
        )
    llvm_total = statistics.median(sum(r["llvm"] for r in run["rows"]) for run in runs)
    print(f"  {'all compilations':40s} {'':>24s} {total:7.2f} {1:6.1%} {llvm_total:6.2f}")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", nargs="*", default=["KOIL", "LASVM", "SACOG"])
    args = parser.parse_args(argv)
    for module, name in estimators(args.only):
        runs = [run_once(module, name) for _ in range(args.repeats)]
        report(name, runs)


if __name__ == "__main__":
    main()
