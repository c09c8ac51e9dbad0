"""Protocols: functions that run a paper's (or a user's) evaluation from a scenario file.

A protocol is a function ``run(params: dict, *, out_dir: pathlib.Path, n_jobs: int | None,
scheduler: str | None, progress: bool) -> list[dict]`` returning the rows of a table (one dict per
row, the same keys in every row; published figures in columns named ``paper_*`` beside ours). It may
also write files (curves, plots, the hyper-parameters it selected) into ``out_dir``. A scenario
names it by its dotted path, ``kind = "protocol"`` and ``protocol = "package.module:function"``;
the CLI prints the rows and writes ``table.csv``.

The papers' protocols live in the ``reproduce/`` folder of a checkout, which is not installed with
the package. :func:`get_protocol` imports the module as Python would, and when its top-level
package is not importable, looks for it in the scenario file's folder and the folders above it
(so ``imbalance-stream run reproduce/acog/table8.toml`` works from anywhere in a checkout).

A protocol refuses parameters it cannot run with by raising :class:`ProtocolError` before any
long work starts (:func:`reading_params` turns the errors of reading ``[params]`` into it,
:func:`count_param` reads a count); the CLI reports it in one line with exit code 2.
"""

from __future__ import annotations

import contextlib
import importlib
import numbers
import pathlib
import sys
from collections.abc import Callable

__all__ = ["ProtocolError", "count_param", "get_protocol", "reading_params"]

#: Protocol names before 0.2, and their dotted paths in a checkout since.
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
    """``params[key]`` (or ``default``), an integer of at least ``minimum``."""
    value = params.get(key, default)
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ProtocolError(f"[params] {key}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def _import_near(module: str, near: pathlib.Path | None):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        top = module.partition(".")[0]
        if error.name != top or near is None:
            raise
    for folder in [near, *near.parents]:
        if (folder / top / "__init__.py").is_file():
            sys.path.insert(0, str(folder))
            return importlib.import_module(module)
    raise ModuleNotFoundError(f"no module named {top!r} here or above {str(near)!r}", name=top)


def get_protocol(path: str, near: str | pathlib.Path | None = None) -> Callable:
    """The function named by ``path`` (``"package.module:function"``), its top-level package
    looked for in ``near`` (a file or folder) and above when not importable as it is."""
    if path in _MOVED:
        raise ProtocolError(f"protocol {path!r} is now named {_MOVED[path]!r}")
    module, sep, function = path.partition(":")
    if not sep or not module or not function.isidentifier():
        raise ProtocolError(f"protocol must be 'package.module:function', got {path!r}")
    base = None
    if near is not None:
        base = pathlib.Path(near).resolve()
        base = base if base.is_dir() else base.parent
    try:
        target = getattr(_import_near(module, base), function, None)
    except ModuleNotFoundError as error:
        raise ProtocolError(f"protocol {path!r}: {error}") from None
    if not callable(target):
        raise ProtocolError(f"protocol {path!r}: {module} has no function {function!r}")
    return target
