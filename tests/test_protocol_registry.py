"""Protocol scenarios name a registered protocol, never arbitrary code: the registry is complete,
and every other name is refused in one line before anything is imported."""

from __future__ import annotations

import importlib.metadata
import json
import os
import pathlib
import subprocess
import sys

import pytest

from imbalance_stream import cli
from imbalance_stream.evaluate import protocols
from imbalance_stream.evaluate.protocols import ProtocolError, get_protocol

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
REPRODUCE = ROOT / "reproduce"

# ---- the registry is complete and correct ------------------------------------------------------


def _named_in_reproduce() -> dict[str, pathlib.Path]:
    """Every protocol a TOML file under reproduce/ names, with one file naming it."""
    if not REPRODUCE.is_dir():
        pytest.skip(f"no reproduce/ folder at {REPRODUCE} (an installed package, not a checkout)")
    named = {}
    for path in sorted(REPRODUCE.rglob("*.toml")):
        config = tomllib.loads(path.read_text(encoding="utf-8"))
        if config.get("kind") == "protocol":
            named.setdefault(config["protocol"], path)
    return named


def test_every_protocol_of_reproduce_is_registered():
    named = _named_in_reproduce()
    assert named, "no protocol scenario under reproduce/"
    missing = {name: str(path) for name, path in named.items() if name not in protocols.PROTOCOLS}
    assert not missing, f"protocols named in reproduce/ but not registered: {missing}"


def test_every_registered_protocol_is_a_function_of_the_checkout():
    if not REPRODUCE.is_dir():
        pytest.skip(f"no reproduce/ folder at {REPRODUCE} (an installed package, not a checkout)")
    assert len(set(protocols.PROTOCOLS)) == len(protocols.PROTOCOLS)
    for name in protocols.PROTOCOLS:
        module, _, function = name.partition(":")
        assert module.startswith("reproduce.") and function.isidentifier(), name
        target = get_protocol(name, near=REPRODUCE)
        assert callable(target) and target.__name__ == function, name
        assert pathlib.Path(sys.modules[module].__file__).is_relative_to(REPRODUCE), name


# ---- anything else is refused before it is imported --------------------------------------------

EVIL = "imbalance_stream_evilpkg"


@pytest.fixture
def evil(tmp_path, monkeypatch):
    """A package beside the scenario file that writes a marker file when imported or run; the
    marker's path, with sys.path and sys.modules restored after the test."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    marker = tmp_path / "marker"
    (tmp_path / EVIL).mkdir()
    (tmp_path / EVIL / "__init__.py").write_text(
        f"import pathlib\npathlib.Path({str(marker)!r}).write_text('imported')\n"
        f"def run(*args, **kwargs):\n    pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "    return []\n"
    )
    yield marker
    sys.modules.pop(EVIL, None)


@pytest.mark.parametrize(
    "protocol",
    [
        f"{EVIL}:run",
        "os:system",
        "builtins:eval",
        "subprocess:run",
        "importlib:import_module",
        "reproduce.acog.protocol:table9",  # a module of reproduce/, but not a registered name
        "reproduce.acog.protocol:ProtocolError",
    ],
)
def test_an_unregistered_protocol_is_refused_in_one_line_and_never_imported(
    evil, tmp_path, capsys, protocol
):
    path = tmp_path / "evil.toml"
    path.write_text(f'kind = "protocol"\nprotocol = "{protocol}"\n[params]\ncommand = "true"\n')
    out = tmp_path / "out"
    assert cli.main(["run", str(path), "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("imbalance-stream: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and f"protocol {protocol!r} is not registered" in err
    assert not evil.exists() and not out.exists()
    assert EVIL not in sys.modules


def test_a_near_miss_gets_a_suggestion():
    with pytest.raises(ProtocolError, match=r"did you mean 'reproduce.acog.protocol:table8'"):
        get_protocol("reproduce.acog.protocol:table9")
    with pytest.raises(ProtocolError, match=r"now named 'reproduce.acog.protocol:table8'"):
        get_protocol("acog.table8")  # the names of 0.1


# ---- installed packages register theirs through an entry point ---------------------------------


def entry_point_protocol(params, *, out_dir, n_jobs, scheduler, progress):
    """A protocol an installed package would register."""
    return [{"n": params["n"], "progress": progress}]


def test_an_entry_point_registers_a_protocol(monkeypatch):
    points = importlib.metadata.EntryPoints(
        [
            importlib.metadata.EntryPoint(
                name="tiny", value=f"{__name__}:entry_point_protocol", group=protocols.GROUP
            )
        ]
    )

    def entry_points(**selection):
        assert selection == {"group": protocols.GROUP}
        return points

    monkeypatch.setattr(importlib.metadata, "entry_points", entry_points)
    assert protocols.registered()["tiny"] == f"{__name__}:entry_point_protocol"
    function = get_protocol("tiny")
    assert function is entry_point_protocol
    assert function({"n": 3}, out_dir=None, n_jobs=None, scheduler=None, progress=False) == [
        {"n": 3, "progress": False}
    ]
    with pytest.raises(ProtocolError, match="did you mean 'tiny'"):
        get_protocol("tinny")


# ---- a checkout's reproduce/ is found beside the scenario, without touching sys.path -----------

PAPER = """
import os

from imbalance_stream.parallel import map_cells


def _cell(n):
    return {"n": n, "square": n * n, "worker": os.getpid()}


def table8(params, *, out_dir, n_jobs, scheduler, progress):
    rows = map_cells(_cell, range(params["n"]), n_jobs, scheduler)
    parent = os.getpid()
    return [{"n": r["n"], "square": r["square"], "here": r["worker"] == parent} for r in rows]
"""

RUN = """
import importlib.util, json, multiprocessing, sys

if __name__ == "__main__":
    multiprocessing.set_start_method("spawn")  # workers that inherit nothing of this process
    before = list(sys.path)
    from imbalance_stream import cli

    code = cli.main(sys.argv[1:])
    found = sys.modules.get("reproduce")
    print(json.dumps({"code": code, "path_kept": sys.path == before,
                      "reproduce": found and found.__file__,
                      "other_modules": importlib.util.find_spec("beside") is not None}))
"""


def test_a_checkout_reproduce_runs_from_anywhere_in_it_without_sys_path(tmp_path):
    """The console script does not have the checkout on sys.path: the scenario's reproduce/ is
    imported from the folder above it, alone, and the spawned workers of --n-jobs import it too."""
    checkout = tmp_path / "checkout"
    paper = checkout / "reproduce" / "acog"
    paper.mkdir(parents=True)
    (checkout / "reproduce" / "__init__.py").write_text("")
    (paper / "__init__.py").write_text("")
    (paper / "protocol.py").write_text(PAPER)
    (paper / "tiny.toml").write_text(
        'kind = "protocol"\nprotocol = "reproduce.acog.protocol:table8"\n[params]\nn = 4\n'
    )
    (checkout / "beside.py").write_text("")  # not importable: only reproduce is
    site = tmp_path / "site"  # the package alone, as an installed one is
    site.mkdir()
    (site / "imbalance_stream").symlink_to(ROOT / "imbalance_stream", target_is_directory=True)
    script = tmp_path / "bin" / "run.py"  # sys.path[0] is the script's folder, not the checkout
    script.parent.mkdir()
    script.write_text(RUN)
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, str(script), "run", "tiny.toml", "--out", str(out), "--quiet"]
        + ["--n-jobs", "2"],
        cwd=paper,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report == {
        "code": 0,
        "path_kept": True,
        "reproduce": str(checkout / "reproduce" / "__init__.py"),
        "other_modules": False,
    }
    table = (out / "table.csv").read_text().splitlines()
    assert table == ["n,square,here", "0,0,False", "1,1,False", "2,4,False", "3,9,False"]

    listing = subprocess.run(
        [sys.executable, str(script), "list"],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert listing.returncode == 0, listing.stderr
    assert "  reproduce/acog/tiny.toml\n" in listing.stdout
