"""Griffe extension: the docstrings' Sphinx roles (``:class:`~imbalance_stream.base.FeatureSpace```,
``:meth:`learn_one```, ...) as cross-references of the documentation site.

A role whose target is a public object of imbalance_stream that the API pages render (a name in
its module's ``__all__``, or a documented member of such a class) becomes a link, resolved by
mkdocs-autorefs, which fails the strict build when no page renders it; a target outside the
package (River, NumPy, the standard library), private to it or undocumented is set as code. A
target that names nothing importable is reported as a warning, which fails
``mkdocs build --strict``.

Doctest lines outside an Examples section (a module's or a class's worked example in its text)
are fenced as code, as the numpydoc Examples section renders them.
"""

from __future__ import annotations

import builtins
import importlib
import inspect
import re
import types
import warnings
from typing import Any

import griffe

ROLE = re.compile(r":(?:py:)?(class|mod|func|meth|attr|data|obj|exc):`([^`]+)`")
LOGGER = griffe.get_logger(__name__)


def _import_longest(path: str) -> Any:
    """The object at a dotted path, importing the longest module prefix first."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise LookupError(path)


def _resolve(target: str, module: str, scope: str | None) -> Any:
    """The runtime object a role names, from the docstring's module and class (``scope``)."""
    head, _, rest = target.partition(".")
    namespaces: list[Any] = []
    if scope is not None:
        namespaces.append(_import_longest(scope))
    mod = importlib.import_module(module)
    namespaces += [mod, builtins]
    parent = module.rpartition(".")[0]
    if parent:  # a name the docstring takes from its package
        namespaces.append(importlib.import_module(parent))
    for space in namespaces:
        if hasattr(space, head):
            obj = getattr(space, head)
            for name in rest.split(".") if rest else ():
                obj = getattr(obj, name)
            return obj
    for base in (module, parent):  # a relative target: ``:mod:`~.merge```
        try:
            return _import_longest(f"{base}.{target}")
        except (LookupError, AttributeError):
            continue
    return _import_longest(target)


def _canonical(obj: Any) -> str | None:
    """Where the API pages render a public object of the package, or None."""
    if isinstance(obj, types.ModuleType):
        path = obj.__name__
    else:
        module = getattr(obj, "__module__", None)
        qualname = getattr(obj, "__qualname__", None)
        if module is None or qualname is None or "<" in qualname:
            return None
        path = f"{module}.{qualname}"
    if path.partition(".")[0] != "imbalance_stream":
        return None
    if any(part.startswith("_") for part in path.split(".")):
        return None
    if isinstance(obj, types.ModuleType):
        return path
    owner: Any = importlib.import_module(obj.__module__)
    *classes, name = obj.__qualname__.split(".")
    if name not in getattr(owner, "__all__", ()) and not classes:
        return None
    for cls in classes:
        if cls not in getattr(owner, "__all__", ()) and isinstance(owner, types.ModuleType):
            return None
        owner = getattr(owner, cls)
    if classes and not getattr(obj, "__doc__", None):  # its own, not one it inherits
        return None
    return path


def _data_path(lookup: str, module: str) -> str | None:
    """The documented path of a module constant that a role names, or None."""
    path = lookup if lookup.startswith("imbalance_stream.") else f"{module}.{lookup}"
    owner, _, name = path.rpartition(".")
    if any(part.startswith("_") for part in path.split(".")):
        return None
    try:
        where = importlib.import_module(owner)
    except ImportError:
        return None
    return path if name in getattr(where, "__all__", ()) else None


def _fence_doctests(text: str) -> str:
    """Doctest paragraphs outside the Examples section, fenced as ``pycon`` code."""
    head, sep, tail = text.partition("\nExamples\n--------\n")
    blocks = re.split(r"(\n\s*\n)", head)
    for i, block in enumerate(blocks):
        if block.lstrip().startswith(">>> "):
            blocks[i] = f"```pycon\n{block.strip(chr(10))}\n```"
    return "".join(blocks) + sep + tail


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is None:
            return
        module = obj.module.path
        if "%(" in obj.docstring.value:
            # a docstring whose shared parameter entries are filled in at import
            # (density_ratio.windowed.shared_parameter_docs): the text Python holds
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                runtime = _resolve(obj.path.rpartition(".")[2], module, None)
            obj.docstring.value = inspect.cleandoc(runtime.__doc__ or "")
        parent = obj.parent
        scope = obj.path if obj.is_class else parent.path if parent and parent.is_class else None

        def replace(match: re.Match[str]) -> str:
            role, target = match.groups()
            target = target.strip()
            shown = target.lstrip("~.")
            if target.startswith("~"):
                shown = shown.rpartition(".")[2]
            lookup = target.lstrip("~.")
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    value = _resolve(lookup, module, scope)
            except (LookupError, AttributeError, ImportError):
                # an instance attribute is set in __init__, out of reach: code, as intended
                if role != "attr" and (lookup.startswith("imbalance_stream") or "." not in lookup):
                    LOGGER.warning(
                        "%s: the %s role names %r, which does not exist", obj.path, role, lookup
                    )
                return f"`{shown}`"
            if isinstance(value, property | classmethod | staticmethod):
                value = getattr(value, "fget", None) or getattr(value, "__func__", value)
            if isinstance(value, type | types.FunctionType | types.ModuleType):
                path = _canonical(value)
            elif role == "data":  # a module constant: documented where its name is written
                path = _data_path(lookup, module)
            else:
                path = None
            return f"[`{shown}`][{path}]" if path else f"`{shown}`"

        obj.docstring.value = _fence_doctests(ROLE.sub(replace, obj.docstring.value))
