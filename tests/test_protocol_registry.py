"""Protocol scenarios name a registered protocol, never arbitrary code: the registry is complete,
and every other name is refused in one line before anything is imported."""

from __future__ import annotations

import importlib.metadata
import pathlib
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
    with pytest.raises(ProtocolError, match="did you mean 'reproduce.acog.protocol:table8'"):
        get_protocol("reproduce.acog.protocol:table9")
    with pytest.raises(ProtocolError, match="now named 'reproduce.acog.protocol:table8'"):
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
