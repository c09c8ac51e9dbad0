"""Protocols: functions that run a paper's (or a user's) evaluation from a scenario file.

A protocol is a function ``run(params: dict, *, out_dir: pathlib.Path, n_jobs: int | None,
scheduler: str | None, progress: bool) -> list[dict]`` returning the rows of a table (one dict per
row, the same keys in every row; published figures in columns named ``paper_*`` beside ours). It may
also write files (curves, plots, the hyper-parameters it selected) into ``out_dir``. A scenario
names a *registered* protocol, ``kind = "protocol"`` and ``protocol = "NAME"``; the CLI prints the
rows and writes ``table.csv``.

A scenario file is input, not code: it can only name a protocol from the registry, never an
arbitrary ``module:function`` (``"os:system"``, or a package placed beside the file). The registry
(:func:`registered`, kept in :mod:`imbalance_stream.catalog` so that listing it imports nothing)
holds

* the papers' protocols, :data:`~imbalance_stream.catalog.PROTOCOLS`: an explicit list, each
  named by the dotted path of its function in the ``reproduce/`` folder of a checkout
  (``"reproduce.acog.protocol:table8"``, the names the scenario files of ``reproduce/`` use).
  Adding a protocol to ``reproduce/`` means adding its name to this list;
* the protocols that installed packages declare under the entry-point group
  ``imbalance_stream.protocols`` (:data:`~imbalance_stream.catalog.GROUP`), name ->
  ``"module:function"``: an installed package is trusted as any installed code is.

:func:`get_protocol` refuses any other name with a :class:`ProtocolError` (one line in the CLI,
exit code 2, with a "did you mean" suggestion, or the full name of a paper's protocol written as
``"<paper>.<function>"``, as 0.1 named them) before it imports anything.

``reproduce/`` is not installed with the package. For a name of
:data:`~imbalance_stream.catalog.PROTOCOLS`, :func:`get_protocol` imports ``reproduce`` as Python
would, and when it is not importable, imports the ``reproduce/`` package of the scenario file's
folder or of the first folder above it that holds one
(:func:`~imbalance_stream.catalog.reproductions`), without putting that folder on ``sys.path``
(:func:`~imbalance_stream.parallel.import_package`: only ``reproduce`` becomes importable, in this
process and in the worker processes of its cells), so that ``imbalance-stream run
reproduce/acog/table8.toml`` works from anywhere in a checkout. A registered name thus imports
and runs the code of the checkout's ``reproduce/`` folder, the one found first going up from the
scenario file: a scenario is as trustworthy as the folder it sits in, whatever the file says.
Names from entry points are imported as installed, never looked up there.

A protocol refuses parameters it cannot run with by raising :class:`ProtocolError` before any
long work starts (:func:`reading_params` turns the errors of reading ``[params]`` into it,
:func:`count_param` reads a count); the CLI reports it in one line with exit code 2.
"""

from __future__ import annotations

import contextlib
import importlib
import pathlib
from collections.abc import Callable

from imbalance_stream.base.validation import InvalidParameter, check_int, did_you_mean
from imbalance_stream.catalog import GROUP, PROTOCOLS, registered, reproductions
from imbalance_stream.parallel import import_package

__all__ = [
    "GROUP",
    "PROTOCOLS",
    "ProtocolError",
    "count_param",
    "get_protocol",
    "reading_params",
    "registered",
]


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


def _full_name(name: str) -> str | None:
    """The name of :data:`~imbalance_stream.catalog.PROTOCOLS` that ``name`` writes as
    ``"<paper>.<function>"`` (``"acog.table8"``, as 0.1 named the papers' protocols), if exactly
    one does."""
    paper, _, function = name.partition(".")
    found = [
        full
        for full in PROTOCOLS
        if full.split(".")[1] == paper and full.rpartition(":")[2] == function
    ]
    return found[0] if len(found) == 1 else None


def _import_near(module: str, near: pathlib.Path | None):
    """``module``, imported as Python would; with ``near``, a paper's module that Python does not
    find is imported from the ``reproduce/`` package in ``near`` or the first folder above it."""
    top = module.partition(".")[0]
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != top or near is None:
            raise
    package = reproductions(near)
    if package is None:
        raise ModuleNotFoundError(f"no module named {top!r} here or above {str(near)!r}", name=top)
    import_package(top, package.parent)
    return importlib.import_module(module)


def get_protocol(name: str, near: str | pathlib.Path | None = None) -> Callable:
    """The function of the registered protocol ``name`` (see :func:`registered`).

    Any other name raises :class:`ProtocolError` before anything is imported. For a name of
    :data:`~imbalance_stream.catalog.PROTOCOLS` whose ``reproduce`` package is not importable,
    ``reproduce/`` is looked for in ``near`` (a file or folder) and the folders above it, and that
    package alone is imported from there; an entry point's module is imported as installed.
    """
    protocols = registered()
    if name not in protocols:
        full = _full_name(name)
        if full is not None:
            raise ProtocolError(f"protocol {name!r} is now named {full!r}")
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
