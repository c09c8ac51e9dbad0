"""Protocols: functions that run a paper's (or a user's) evaluation from a scenario file.

A protocol is a function ``run(params: dict, *, out_dir: pathlib.Path, n_jobs: int | None,
scheduler: str | None, progress: bool) -> list[dict]`` returning the rows of a table (one dict per
row, the same keys in every row; published figures in columns named ``paper_*`` beside ours). It may
also write files (curves, plots, the hyper-parameters it selected) into ``out_dir``. A scenario
names a *registered* protocol, ``kind = "protocol"`` and ``protocol = "NAME"``; the CLI prints the
rows and writes ``table.csv``.

A scenario file is input, not code: it can only name a protocol from the registry, never an
arbitrary ``module:function`` (``"os:system"``, or a package placed beside the file). The registry
(:func:`registered`) holds

* the papers' protocols, :data:`PROTOCOLS`: an explicit list kept here, each named by the dotted
  path of its function in the ``reproduce/`` folder of a checkout
  (``"reproduce.acog.protocol:table8"``, the names the scenario files of ``reproduce/`` use).
  Adding a protocol to ``reproduce/`` means adding its name to this list;
* the protocols that installed packages declare under the entry-point group
  ``imbalance_stream.protocols`` (:data:`GROUP`), name -> ``"module:function"``: an installed
  package is trusted as any installed code is.

:func:`get_protocol` refuses any other name with a :class:`ProtocolError` (one line in the CLI,
exit code 2, with a "did you mean" suggestion) before it imports anything.

``reproduce/`` is not installed with the package. For a name of :data:`PROTOCOLS`,
:func:`get_protocol` imports ``reproduce`` as Python would, and when it is not importable, looks
for a ``reproduce/`` package in the scenario file's folder and the folders above it (so
``imbalance-stream run reproduce/acog/table8.toml`` works from anywhere in a checkout). A
registered name thus imports and runs the code of the checkout's ``reproduce/`` folder, the one
found first going up from the scenario file: a scenario is as trustworthy as the folder it sits in,
whatever the file says. Names from entry points are imported as installed, never looked up there.

A protocol refuses parameters it cannot run with by raising :class:`ProtocolError` before any
long work starts (:func:`reading_params` turns the errors of reading ``[params]`` into it,
:func:`count_param` reads a count); the CLI reports it in one line with exit code 2.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata
import pathlib
import sys
from collections.abc import Callable

from imbalance_stream.base.validation import InvalidParameter, check_int, did_you_mean

__all__ = [
    "GROUP",
    "PROTOCOLS",
    "ProtocolError",
    "count_param",
    "get_protocol",
    "reading_params",
    "registered",
]

#: The papers' protocols, in the ``reproduce/`` folder of a checkout: each name is the dotted path
#: of its function, ``"reproduce.<paper>.<module>:<function>"``. An explicit list, not a pattern,
#: so that no other function of ``reproduce/`` (or of a ``reproduce/`` planted beside a scenario
#: file) can be named; tests/test_protocol_registry.py checks that it holds every protocol the
#: scenario files of ``reproduce/`` name, and that each name is a function there.
PROTOCOLS: tuple[str, ...] = (
    "reproduce.acog.figures:fig1_3",
    "reproduce.acog.figures:fig2_4",
    "reproduce.acog.figures:fig5",
    "reproduce.acog.figures:fig6",
    "reproduce.acog.figures:fig7",
    "reproduce.acog.figures:fig8",
    "reproduce.acog.figures:fig9_10",
    "reproduce.acog.protocol:table2",
    "reproduce.acog.protocol:table5_6",
    "reproduce.acog.protocol:table8",
    "reproduce.acog.table3:table3",
    "reproduce.dcil.protocol:table5_1",
    "reproduce.dcil.protocol:table5_3",
    "reproduce.density_ratio.cross_digits:fig4_2",
    "reproduce.density_ratio.cross_digits:fig4_3",
    "reproduce.density_ratio.cross_digits:tables4_5_6",
    "reproduce.density_ratio.protocol:fig5_3_4",
    "reproduce.density_ratio.protocol:fig5_5",
    "reproduce.density_ratio.protocol:fig5_6",
    "reproduce.density_ratio.protocol:lockmm_neighbourhood",
    "reproduce.density_ratio.protocol:solver_tolerance",
    "reproduce.density_ratio.protocol:table5_2_3",
    "reproduce.density_ratio.protocol:table5_4",
    "reproduce.density_ratio.protocol:table5_5",
    "reproduce.density_ratio.sampling_bias:ddr_synthetic",
    "reproduce.density_ratio.sampling_bias:table4_2_iwsvm",
    "reproduce.density_ratio.sampling_bias:tables4_2_4",
    "reproduce.density_ratio.shift:e1",
    "reproduce.density_ratio.shift:fig6_1",
    "reproduce.density_ratio.shift:fig6_5_6",
    "reproduce.density_ratio.shift:table6_1",
    "reproduce.density_ratio.shift:table6_1_regressions",
    "reproduce.density_ratio.shift:table6_3",
    "reproduce.koil.gaps:oracle_grid",
    "reproduce.koil.protocol:fig3_1",
    "reproduce.koil.protocol:fig3_2",
    "reproduce.koil.protocol:fig3_3",
    "reproduce.koil.protocol:table3_2",
    "reproduce.koil.protocol:table3_3",
    "reproduce.koil.protocol:table4_1",
    "reproduce.lasvm.active_protocol:table4_3",
    "reproduce.lasvm.active_protocol:table5_3",
    "reproduce.lasvm.active_protocol:waveform_sweep",
    "reproduce.lasvm.curves:curves",
    "reproduce.lasvm.curves:mnist_cache",
    "reproduce.lasvm.curves:reprocess_sweep",
    "reproduce.lasvm.protocol:mnist_ovr",
    "reproduce.lasvm.protocol:table3_2",
    "reproduce.lasvm.protocol:table6_1",
    "reproduce.lasvm.protocol:table6_3",
)

#: The entry-point group under which an installed package registers protocols, name ->
#: ``"module:function"``; in its ``pyproject.toml``, a table
#: ``[project.entry-points."imbalance_stream.protocols"]`` holding
#: ``my_table = "my_package.protocols:table"``.
GROUP = "imbalance_stream.protocols"

#: Protocol names before 0.2, and their registered names since: refused with the new name, which
#: the "did you mean" of an unknown name would not find (the old names are too short to be close).
_MOVED = {
    f"{paper}.{name}": f"reproduce.{paper}.protocol:{name}"
    for paper, names in {
        "acog": ("table2", "table5_6", "table8"),
        "koil": ("table3_2", "table3_3", "table4_1", "fig3_1", "fig3_2", "fig3_3"),
        "dcil": ("table5_1", "table5_3"),
    }.items()
    for name in names
}


class ProtocolError(ValueError):
    """A protocol path that does not name a function, or parameters a protocol refuses; the
    message says why."""


@contextlib.contextmanager
def reading_params(protocol: str):
    """Within the block, a ``KeyError``, ``TypeError`` or ``ValueError`` (a wrong type, an
    unknown name) becomes a :class:`ProtocolError` naming ``protocol``'s ``[params]``."""
    try:
        yield
    except ProtocolError:
        raise
    except (KeyError, TypeError, ValueError) as error:
        reason = error.args[0] if isinstance(error, KeyError) and error.args else error
        raise ProtocolError(f"[params] of {protocol}: {reason}") from None


def count_param(params, key: str, default: int, minimum: int = 1) -> int:
    """``params[key]`` (or ``default``), an integer of at least ``minimum`` (the rule of
    :func:`~imbalance_stream.base.validation.check_int`, refused as a :class:`ProtocolError`)."""
    try:
        return check_int(f"[params] {key}", params.get(key, default), low=minimum)
    except InvalidParameter as error:
        raise ProtocolError(str(error)) from None


def registered() -> dict[str, str]:
    """The registered protocols, name -> ``"module:function"``: :data:`PROTOCOLS` (each its own
    path) and those of the :data:`GROUP` entry points of the installed packages.

    Reading the entry points reads the packages' metadata and imports nothing. A name of
    :data:`PROTOCOLS` wins over an entry point of the same name, so no package can redirect the
    papers' protocols.
    """
    names = {point.name: point.value for point in importlib.metadata.entry_points(group=GROUP)}
    names.update((name, name) for name in PROTOCOLS)
    return names


def _import_near(module: str, near: pathlib.Path | None):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        top = module.partition(".")[0]
        if error.name != top or near is None:
            raise
    for folder in [near, *near.parents]:
        if (folder / top / "__init__.py").is_file():
            # Appended, not prepended: the folder's other modules must not shadow installed ones.
            sys.path.append(str(folder))
            return importlib.import_module(module)
    raise ModuleNotFoundError(f"no module named {top!r} here or above {str(near)!r}", name=top)


def get_protocol(name: str, near: str | pathlib.Path | None = None) -> Callable:
    """The function of the registered protocol ``name`` (see :func:`registered`).

    Any other name raises :class:`ProtocolError` before anything is imported. For a name of
    :data:`PROTOCOLS` whose ``reproduce`` package is not importable, ``reproduce/`` is looked for
    in ``near`` (a file or folder) and the folders above it; an entry point's module is imported
    as installed.
    """
    if name in _MOVED:
        raise ProtocolError(f"protocol {name!r} is now named {_MOVED[name]!r}")
    protocols = registered()
    if name not in protocols:
        raise ProtocolError(
            f"protocol {name!r} is not registered{did_you_mean(name, protocols)} (a scenario names"
            " one of the papers' protocols, imbalance_stream.evaluate.protocols.PROTOCOLS, or one"
            f" that an installed package registers under the entry-point group {GROUP!r})"
        )
    module, _, function = protocols[name].partition(":")
    base = None
    if near is not None and name in PROTOCOLS:
        base = pathlib.Path(near).resolve()
        base = base if base.is_dir() else base.parent
    try:
        target = _import_near(module, base)
        for part in function.split("."):  # an entry point may name "module:object.attribute"
            target = getattr(target, part, None)
    except ModuleNotFoundError as error:
        raise ProtocolError(f"protocol {name!r}: {error}") from None
    if not callable(target):
        raise ProtocolError(f"protocol {name!r}: {module} has no function {function!r}")
    return target
