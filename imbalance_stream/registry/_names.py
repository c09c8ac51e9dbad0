"""Names to classes: the dotted names a file may import (:data:`ALLOWED_PREFIXES`), the kinds a
class must be of (:data:`KINDS`), the short names of this package's classes (:func:`aliases`, read
from :mod:`imbalance_stream.catalog`, which :func:`write_catalog` writes from :func:`scan`), and
:func:`resolve`, which turns a name into a class of the kind asked for. See
:mod:`imbalance_stream.registry`.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import pkgutil
import sys

from river import base as river_base
from river.metrics import base as metrics_base

from ..base.validation import did_you_mean

__all__ = [
    "ALLOWED_PREFIXES",
    "KINDS",
    "SpecError",
    "aliases",
    "is_dataset",
    "is_metric_wrapper",
    "kind_of",
    "resolve",
    "scan",
    "write_catalog",
]


#: First components of the dotted names that may be imported.
ALLOWED_PREFIXES: tuple[str, ...] = ("imbalance_stream", "river")


#: What each kind of object must subclass ("schedule": an imbalance schedule of
#: :mod:`imbalance_stream.datasets`; "reweighter": a sample re-weighter of
#: :mod:`imbalance_stream.density_ratio`, the parameter of ``ImportanceWeighted``; "learner": a
#: batch learner of :mod:`imbalance_stream.density_ratio`, the ``learner`` of ``DDR`` and
#: ``DDRReweighter``; the last four looked up when first needed: a replay that names a model
#: and a metric does not import River's datasets).
KINDS: dict[str, tuple[type, ...]] = {
    "estimator": (river_base.Estimator,),
    "metric": (metrics_base.Metric,),
    "dataset": (),
    "schedule": (),
    "reweighter": (),
    "learner": (),
}


#: Where the bases of the kinds looked up when first needed live.
_LAZY_KINDS = {
    "dataset": ("river.datasets.base", ("Dataset",)),
    "schedule": ("imbalance_stream.datasets", ("Schedule",)),
    "reweighter": ("imbalance_stream.density_ratio", ("Reweighter",)),
    "learner": ("imbalance_stream.density_ratio", ("IWLSPC", "WeightedTSVM")),
}


def _bases(kind: str) -> tuple[type, ...]:
    if kind in _LAZY_KINDS and not KINDS[kind]:
        module_name, names = _LAZY_KINDS[kind]
        try:
            module = importlib.import_module(module_name)
        except ImportError:  # pragma: no cover - the subpackages are part of the package
            return ()
        KINDS[kind] = tuple(getattr(module, name) for name in names)
    return KINDS[kind]


def is_dataset(cls: type) -> bool:
    """Whether the class ``cls`` is a River dataset. Before ``river.datasets`` is imported no
    class can be one (a subclass's module imports its base), so this imports nothing."""
    module = sys.modules.get("river.datasets.base")
    return module is not None and issubclass(cls, module.Dataset)


#: The subpackages whose public classes answer to their short name.
_ALIAS_PACKAGES = (
    "linear_model",
    "kernel",
    "svm",
    "anomaly",
    "density_ratio",
    "active",
    "imblearn",
    "metrics",
    "datasets",
)


#: Wrappers that turn a metric class into a metric (River's rolling window).
_METRIC_WRAPPERS = ("river.utils.rolling.Rolling",)


def is_metric_wrapper(obj) -> bool:
    return isinstance(obj, type) and f"{obj.__module__}.{obj.__qualname__}" in _METRIC_WRAPPERS


class SpecError(ValueError):
    """A spec or a name that cannot be turned into an object; the message says why and where."""


def kind_of(obj) -> str | None:
    """``"estimator"``, ``"metric"``, ``"dataset"`` or ``"schedule"`` for a class of that kind,
    else ``None``."""
    if not isinstance(obj, type):
        return None
    for kind in KINDS:
        bases = _bases(kind)
        if bases and issubclass(obj, bases):
            return kind
    return None


def aliases() -> dict[str, str]:
    """Short name -> dotted name of every public class of this package (estimators, metrics,
    datasets, imbalance schedules, re-weighters, batch learners), read from
    :mod:`imbalance_stream.catalog` without importing them (see :func:`scan`)."""
    from ..catalog import CLASSES

    return {short: full for short, (full, _) in CLASSES.items()}


def scan() -> dict[str, tuple[str, str]]:
    """Short name -> (dotted name, kind) of every public class of this package, found by importing
    its subpackages: the rule behind :mod:`imbalance_stream.catalog`, which holds its result so
    that naming a class needs no import of the others. A short name that two subpackages export
    is left out, so it must be written in full; so is an abstract base class, which no spec can
    instantiate."""
    found: dict[str, dict[str, str]] = {}
    for sub in _ALIAS_PACKAGES:
        name = f"imbalance_stream.{sub}"
        if importlib.util.find_spec(name) is None:
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:  # a subpackage another part of the project is still writing
            continue
        for attr in getattr(module, "__all__", ()):
            obj = getattr(module, attr, None)
            kind = kind_of(obj)
            if kind is not None and not inspect.isabstract(obj):
                found.setdefault(attr, {})[f"{name}.{attr}"] = kind
    return {
        short: next(iter(full.items())) for short, full in sorted(found.items()) if len(full) == 1
    }


def write_catalog(path: str | os.PathLike | None = None) -> str:
    """Write :mod:`imbalance_stream.catalog` from :func:`scan` (after adding or renaming a public
    class: ``python -m imbalance_stream.registry``); return the text written."""
    import pathlib

    target = pathlib.Path(path or pathlib.Path(__file__).parent.parent / "catalog.py")
    text = target.read_text(encoding="utf-8")
    head = text[: text.index(_CATALOG_START) + len(_CATALOG_START)]
    rows = "".join(
        f'    "{short}": ("{full}", "{kind}"),\n' for short, (full, kind) in scan().items()
    )
    text = head + "\n" + rows + text[text.index(_CATALOG_END) :]
    target.write_text(text, encoding="utf-8")
    return text


_CATALOG_START = "CLASSES: dict[str, tuple[str, str]] = {"
_CATALOG_END = "}  # end of the generated table"


def _public_names(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    if hasattr(module, "__path__"):  # a package: its submodules are names too
        names = list(names) + [m.name for m in pkgutil.iter_modules(module.__path__)]
    return sorted(set(names))


def _import_longest(parts: list[str]):
    """Import the longest importable module prefix of ``parts``; return (module, rest)."""
    for i in range(len(parts), 0, -1):
        module_name = ".".join(parts[:i])
        try:
            return importlib.import_module(module_name), parts[i:]
        except ModuleNotFoundError as error:
            # Only "this module does not exist" means try a shorter prefix; a module that exists
            # but fails to import its own dependency is a real error.
            if error.name is None or not module_name.startswith(error.name):
                raise
    raise ModuleNotFoundError(parts[0])  # pragma: no cover - parts[0] is always importable


def resolve(name: str, kind: str | None = None) -> type:
    """The class that ``name`` denotes.

    Parameters
    ----------
    name
        A dotted name under an allowed prefix (``"river.metrics.Recall"``) or the short name of
        one of this package's public classes (``"ACOG"``).
    kind
        ``"estimator"``, ``"metric"``, ``"dataset"`` or ``"schedule"``: the class must be of
        that kind. ``None`` accepts any of them.

    Raises
    ------
    SpecError
        The name is outside the allow-list, does not exist (with suggestions), is not a class, or
        is of another kind.

    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {sorted(KINDS)} or None, got {kind!r}")
    if not isinstance(name, str) or not name:
        raise SpecError(f"a class name must be a non-empty string, got {name!r}")
    wanted = (
        f"{'an' if kind == 'estimator' else 'a'} {kind}"
        if kind
        else "an estimator, metric, dataset or schedule"
    )

    if "." not in name:
        table = aliases()
        if name not in table:
            if name in ALLOWED_PREFIXES:
                hint = "; write a class's dotted name, e.g. 'river.linear_model.LogisticRegression'"
            else:
                hint = did_you_mean(name, table) or (
                    "; write a dotted name such as 'river.linear_model.LogisticRegression', or a "
                    "short name of this package's classes (`imbalance-stream list` shows them)"
                )
            raise SpecError(f"unknown class name {name!r}{hint}")
        name = table[name]

    parts = name.split(".")
    if parts[0] not in ALLOWED_PREFIXES:
        raise SpecError(
            f"{name!r} is outside the allowed modules: a class name must start with "
            + " or ".join(f"{p}." for p in ALLOWED_PREFIXES)
            + " (or be a short name such as 'ACOG')"
        )
    if any(not p or p.startswith("_") for p in parts):
        raise SpecError(f"{name!r}: empty or private components are not allowed in a class name")

    module, rest = _import_longest(parts)
    obj = module
    walked = module.__name__
    for i, attr in enumerate(rest):
        if not hasattr(obj, attr):
            candidates = _public_names(obj) if inspect.ismodule(obj) else dir(obj)
            if i == len(rest) - 1:  # the class itself: offer classes, not modules
                candidates = [c for c in candidates if isinstance(getattr(obj, c, None), type)]
            raise SpecError(
                f"unknown class name {name!r}: {walked!r} has no {attr!r}"
                + did_you_mean(attr, candidates, prefix=walked + ".")
            )
        obj = getattr(obj, attr)
        walked += "." + attr
        if inspect.ismodule(obj) and obj.__name__.split(".")[0] not in ALLOWED_PREFIXES:
            raise SpecError(f"{name!r} leads into {obj.__name__!r}, outside the allowed modules")

    if not isinstance(obj, type):
        raise SpecError(
            f"{name!r} is not a class (it is a {type(obj).__name__}); expected {wanted} class"
        )
    if obj.__module__.split(".")[0] not in ALLOWED_PREFIXES:
        raise SpecError(f"{name!r} is defined in {obj.__module__!r}, outside the allowed modules")
    found = kind_of(obj)
    if kind == "metric" and found is None and is_metric_wrapper(obj):
        return obj
    if found is None or (kind is not None and found != kind):
        what = (
            f"{'an' if found == 'estimator' else 'a'} {found} class"
            if found
            else (
                "not a River estimator, metric or dataset, nor an imbalance schedule, "
                "re-weighter or batch learner"
            )
        )
        raise SpecError(f"{name!r} is {what}; expected {wanted} class")
    return obj
