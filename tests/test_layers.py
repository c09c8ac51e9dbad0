"""The map of the layers in CONTRIBUTING.md, held against the code.

Every import of ``imbalance_stream/`` (an ``import`` or ``from ... import`` statement, those inside
functions included) goes from a folder or module to one on a lower floor of :data:`FLOORS`; no
modules of the package, or of ``reproduce/``, import each other in a loop; the package imports
nothing of ``reproduce/``, ``benchmarks/`` or the tests; and a paper's folder of ``reproduce/``
imports the package, ``reproduce/common`` and itself, never another paper's folder.

Names resolved as the program runs (by ``importlib``: a scenario's class names and protocol, the
deprecated aliases, the submodules a package imports on first use) are not imports, and are not
checked here.
"""

from __future__ import annotations

import ast
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = "imbalance_stream"

#: The floors of the package, from the ground up: the folders and modules directly under
#: imbalance_stream/ ("__init__" is the package's own __init__.py). Each imports only what stands
#: on a lower floor, never a neighbour on its own. CONTRIBUTING.md says the same in words.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("__init__", "_numba", "catalog", "parallel", "provenance", "tables", "utils"),
    ("base",),
    ("datasets", "imblearn", "kernel", "linear_model", "metrics", "svm"),
    ("active", "density_ratio"),
    ("anomaly",),
    ("registry",),
    ("evaluate",),
    ("scenario",),
    ("replay",),
    ("precompile",),
    ("cli",),
)
FLOOR = {unit: number for number, units in enumerate(FLOORS) for unit in units}

#: What the package never imports: the folders of the checkout that are not installed.
OUTSIDE = ("reproduce", "benchmarks", "tests", "conftest")


def _modules(top: str) -> dict[str, pathlib.Path]:
    """Dotted name -> file of every Python module under ``ROOT/top`` (a package's is its
    ``__init__.py``)."""
    found = {}
    for path in sorted((ROOT / top).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name: str, path: pathlib.Path, known) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of what the module ``name`` imports: a module where one is named
    (``from pkg import submodule``), else the module the names are taken from."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[: len(parts) - node.level + 1] + ([node.module] if node.module else [])
                source = ".".join(base)
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in known:
                    found.append((node.lineno, full))
                elif not (ROOT / full.replace(".", "/")).with_suffix(".c").exists():
                    found.append((node.lineno, source))  # a name, not a (compiled) module
    return list(dict.fromkeys(found))


def _unit(dotted: str) -> str | None:
    parts = dotted.split(".")
    if parts[0] != PACKAGE:
        return None
    return "__init__" if len(parts) == 1 else parts[1]


PACKAGE_MODULES = _modules(PACKAGE)
REPRODUCE_MODULES = _modules("reproduce")


def test_every_folder_and_module_of_the_package_stands_on_a_floor():
    units = {_unit(name) for name in PACKAGE_MODULES}
    assert units == set(FLOOR), (
        "the floors of tests/test_layers.py (and the map in CONTRIBUTING.md) list "
        f"{sorted(set(FLOOR) - units)} that do not exist, and miss {sorted(units - set(FLOOR))}"
    )


def test_every_import_of_the_package_goes_down():
    wrong = []
    for name, path in PACKAGE_MODULES.items():
        source = _unit(name)
        for line, target in _imports(name, path, PACKAGE_MODULES):
            unit = _unit(target)
            where = f"{path.relative_to(ROOT)}:{line} imports {target}"
            if target.split(".")[0] in OUTSIDE:
                wrong.append(f"{where}, which is not installed with the package")
            elif unit is not None and unit != source and FLOOR[unit] >= FLOOR[source]:
                wrong.append(f"{where} (floor {FLOOR[source]} -> floor {FLOOR[unit]})")
    assert not wrong, "imports against the map of the layers:\n" + "\n".join(wrong)


def _loops(modules: dict[str, pathlib.Path]) -> list[list[str]]:
    """The sets of two or more modules that import each other in a loop (Tarjan's strongly
    connected components)."""
    graph = {
        name: {target for _, target in _imports(name, path, modules) if target in modules} - {name}
        for name, path in modules.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph[node]:
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            loop = []
            while not loop or loop[-1] != node:
                loop.append(stack.pop())
            if len(loop) > 1:
                loops.append(sorted(loop))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10 * len(graph)))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return loops


@pytest.mark.parametrize(
    "modules", [PACKAGE_MODULES, REPRODUCE_MODULES], ids=[PACKAGE, "reproduce"]
)
def test_no_modules_import_each_other_in_a_loop(modules):
    if not modules:
        pytest.skip("no such folder here (an installed package, not a checkout)")
    loops = _loops(modules)
    assert not loops, "modules that import each other in a loop: " + "; ".join(
        " <-> ".join(loop) for loop in loops
    )


def test_a_paper_of_reproduce_imports_no_other_paper():
    if not REPRODUCE_MODULES:
        pytest.skip("no reproduce/ folder here (an installed package, not a checkout)")
    wrong = []
    for name, path in REPRODUCE_MODULES.items():
        parts = name.split(".")
        allowed = {"common"} | ({parts[1]} if len(parts) > 1 else set())
        for line, target in _imports(name, path, REPRODUCE_MODULES):
            other = target.split(".")
            if other[0] == "reproduce" and len(other) > 1 and other[1] not in allowed:
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
            if other[0] in ("benchmarks", "tests", "conftest"):
                wrong.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert not wrong, "reproduce/ reaching across its papers:\n" + "\n".join(wrong)
