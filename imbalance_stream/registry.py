"""Resolve class names to River estimators, metrics and datasets, and build objects from specs.

Scenario files name everything by text. This module turns that text into objects without ``eval``:
a dotted name such as ``"river.linear_model.LogisticRegression"`` is imported only when its first
component is on an allow-list (``imbalance_stream`` and ``river``), walked with ``getattr``, and
accepted only if the result is a class of the expected kind (a River estimator, a River metric, a
River dataset, an imbalance schedule of :mod:`imbalance_stream.datasets`, or a re-weighter or batch
learner of :mod:`imbalance_stream.density_ratio`). This package's public
classes also answer to their short name (``"ACOG"``).

A *spec* is what a scenario writes for an object:

* a string: a class name, built with its defaults, ``"river.preprocessing.StandardScaler"``;
* a table ``{class = "...", params = {...}}``: the class built with those keyword arguments. A
  parameter whose value is itself a spec (a table with a ``class`` key, or a list whose items are
  all spec tables or estimator class names) is built first, so wrappers nest:
  ``{class = "river.imblearn.RandomUnderSampler", params = {classifier =
  {class = "river.linear_model.LogisticRegression"}}}``. A lone string parameter stays a string;
* a list of specs: a River pipeline, ``a | b | c``.

A metric may also be River's ``utils.Rolling`` around a metric class, which then measures the last
``window_size`` samples only: ``{class = "river.utils.Rolling", params = {cls =
"river.metrics.BalancedAccuracy", window_size = 1000}}``. ``cls`` names the metric's class (or is
a ``{class, params}`` table whose params go to the metric); Rolling's other parameters are passed
on to the metric too, as River does (``pos_val = true``).

TOML keys are always strings, but some River parameters are dicts keyed by *labels*
(``desired_dist = {true = 0.5, false = 0.5}`` for ``RandomUnderSampler``). In a dict-valued
parameter (a table without a ``class`` key) the keys ``"true"`` and ``"false"`` become the booleans
and integer strings such as ``"0"`` or ``"-1"`` become ints; other keys stay strings.

>>> from imbalance_stream.registry import build, resolve
>>> resolve("river.metrics.BalancedAccuracy", kind="metric")
<class 'river.metrics.balanced_accuracy.BalancedAccuracy'>
>>> resolve("ACOG")
<class 'imbalance_stream.linear_model.acog.ACOG'>
>>> build([
...     "river.preprocessing.StandardScaler",
...     {"class": "ACOG", "params": {"covariance": "full", "eta": 0.5}},
... ])
Pipeline (
  StandardScaler (
    with_std=True
    window_size=None
  ),
  ACOG (
    loss="II"
    covariance="full"
    rho=None
    eta=0.5
    gamma=1.
    positive=True
    intercept=False
  )
)
>>> resolve("os.system")
Traceback (most recent call last):
...
imbalance_stream.registry.SpecError: 'os.system' is outside the allowed modules: ...

"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import math
import os
import pkgutil
from collections.abc import Mapping

from river import base as river_base
from river import compose
from river.datasets import base as datasets_base
from river.metrics import base as metrics_base

from .base.validation import did_you_mean

__all__ = [
    "ALLOWED_PREFIXES",
    "KINDS",
    "SIZE_CAPS",
    "SpecError",
    "aliases",
    "build",
    "check_size",
    "kind_of",
    "resolve",
]

#: First components of the dotted names that may be imported.
ALLOWED_PREFIXES: tuple[str, ...] = ("imbalance_stream", "river")

#: What each kind of object must subclass ("schedule": an imbalance schedule of
#: :mod:`imbalance_stream.datasets`; "reweighter": a sample re-weighter of
#: :mod:`imbalance_stream.density_ratio`, the parameter of ``ImportanceWeighted``; "learner": a
#: batch learner of :mod:`imbalance_stream.density_ratio`, the ``learner`` of ``DDR`` and
#: ``DDRReweighter``; the last three looked up when first needed).
KINDS: dict[str, tuple[type, ...]] = {
    "estimator": (river_base.Estimator,),
    "metric": (metrics_base.Metric,),
    "dataset": (datasets_base.Dataset,),
    "schedule": (),
    "reweighter": (),
    "learner": (),
}

#: Where the bases of the kinds looked up when first needed live.
_LAZY_KINDS = {
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

#: The keys a spec table may have.
_SPEC_KEYS = {"class", "params"}

#: Wrappers that turn a metric class into a metric (River's rolling window).
_METRIC_WRAPPERS = ("river.utils.rolling.Rolling",)


def _is_metric_wrapper(obj) -> bool:
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
    from .catalog import CLASSES

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

    target = pathlib.Path(path or pathlib.Path(__file__).with_name("catalog.py"))
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
    if kind == "metric" and found is None and _is_metric_wrapper(obj):
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


def _names_estimator(value) -> bool:
    try:
        resolve(value, "estimator")
    except SpecError:
        return False
    return True


def _is_pipeline_spec(value: list) -> bool:
    """A list is a pipeline when every item is a spec table or the name of an estimator class;
    any other list (of numbers, feature names, ...) is passed on as a list."""
    return bool(value) and all(
        (isinstance(v, Mapping) and "class" in v) or (isinstance(v, str) and _names_estimator(v))
        for v in value
    )


def is_spec_value(value) -> bool:
    """Whether a parameter's value is built into an object (:func:`build`): a table with a
    ``class`` key, or a list that is a pipeline."""
    if isinstance(value, list):
        return _is_pipeline_spec(value)
    return isinstance(value, Mapping) and "class" in value


def _label_key(key):
    if not isinstance(key, str):
        return key
    if key == "true":
        return True
    if key == "false":
        return False
    try:
        return int(key)
    except ValueError:
        return key


def _convert_param(value, where: str):
    """A parameter's value as the constructor should get it."""
    if is_spec_value(value):  # a pipeline is an estimator; a table says its own kind
        return build(value, "estimator" if isinstance(value, list) else None, where=where)
    if isinstance(value, Mapping):
        return {_label_key(k): _convert_param(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_convert_param(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def build(spec, kind: str | None = None, where: str = "spec"):
    """Build the object a spec describes (see the module docstring).

    Parameters
    ----------
    spec
        A class name, a ``{"class": ..., "params": {...}}`` mapping, or a list of specs (a
        pipeline).
    kind
        What the object must be (see :func:`resolve`); a pipeline is an estimator.
    where
        Where the spec sits in its file, for error messages (``"models.acog"``).

    """
    if isinstance(spec, list):
        if not spec:
            raise SpecError(f"{where}: a pipeline needs at least one step")
        if kind not in (None, "estimator"):
            raise SpecError(
                f"{where}: a list is a pipeline of estimators, but a {kind} is expected"
            )
        steps = [build(step, "estimator", f"{where}[{i}]") for i, step in enumerate(spec)]
        return steps[0] if len(steps) == 1 else compose.Pipeline(*steps)

    if isinstance(spec, str):
        spec = {"class": spec}
    if not isinstance(spec, Mapping):
        raise SpecError(
            f"{where}: expected a class name, a table with a 'class' key, or a list of those; "
            f"got {type(spec).__name__} {spec!r}"
        )
    unknown = set(spec) - _SPEC_KEYS
    if unknown:
        key = sorted(unknown)[0]
        raise SpecError(
            f"{where}: unknown key {key!r} (a spec has 'class' and optional 'params')"
            + did_you_mean(key, _SPEC_KEYS)
        )
    if "class" not in spec:
        raise SpecError(f"{where}: missing 'class'")
    try:
        cls = resolve(spec["class"], kind)
    except SpecError as error:
        raise SpecError(f"{where}: {error}") from None

    if inspect.isabstract(cls):
        subclasses: list[type] = type.__subclasses__(cls)
        concrete = sorted(
            sub.__name__
            for sub in subclasses
            if not inspect.isabstract(sub) and not sub.__name__.startswith("_")
        )
        raise SpecError(
            f"{where}: {cls.__name__} is an abstract base class; name one of its kinds"
            + (f" ({', '.join(concrete)})" if concrete else "")
        )
    params = spec.get("params", {})
    if not isinstance(params, Mapping):
        raise SpecError(f"{where}.params: expected a table of keyword arguments, got {params!r}")
    if _is_metric_wrapper(cls):
        params = _wrapped_metric(params, cls, where)
    signature = inspect.signature(cls)
    takes_any = any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values())
    accepted = [
        n
        for n, p in signature.parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    kwargs = {}
    for key, value in params.items():
        if key not in accepted and not takes_any:
            raise SpecError(
                f"{where}.params: {cls.__name__} has no parameter {key!r}"
                + (
                    did_you_mean(key, accepted)
                    or f"; its parameters are {', '.join(accepted) or 'none'}"
                )
            )
        kwargs[key] = (
            value if isinstance(value, type) else _convert_param(value, f"{where}.params.{key}")
        )
    _check_functions(cls, signature, kwargs, where)
    _check_estimators(cls, signature, kwargs, where)
    if issubclass(cls, datasets_base.Dataset):
        _check_dataset(cls, kwargs, where)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError, AttributeError) as error:
        raise SpecError(f"{where}: {cls.__name__}(...) refused its parameters: {error}") from None


def _check_functions(cls: type, signature: inspect.Signature, kwargs: dict, where: str) -> None:
    """Refuse, when the file is loaded, a non-callable value for a parameter that takes a function
    (``river.compose.FuncTransformer(func=...)``): a scenario cannot name a function, and a string
    there would only fail when the model first runs."""
    for key, value in kwargs.items():
        parameter = signature.parameters.get(key)
        if (
            parameter is not None
            and "Callable" in str(parameter.annotation)
            and not callable(value)
        ):
            raise SpecError(
                f"{where}.params.{key}: {cls.__name__} takes a function there, which a scenario "
                f"cannot give (files name classes only, and never import or evaluate strings); "
                f"got {value!r}. Build such a model in Python instead"
            )


#: Parameters that take a model: River's wrappers annotate them with an estimator type
#: (``classifier: base.Classifier``); these names cover the ones without an annotation.
_ESTIMATOR_PARAMETERS = {"classifier", "regressor", "model", "anomaly_detector", "detector"}
_ESTIMATOR_ANNOTATIONS = ("Classifier", "Regressor", "Estimator", "AnomalyDetector")


def _check_estimators(cls: type, signature: inspect.Signature, kwargs: dict, where: str) -> None:
    """Refuse, when the file is loaded, a class name written as a plain string for a parameter
    that takes a model (``classifier = "river.linear_model.LogisticRegression"``): a string
    parameter stays a string, and the wrapper would fail only when it first runs."""
    for key, value in kwargs.items():
        parameter = signature.parameters.get(key)
        if parameter is None or not isinstance(value, str):
            continue
        annotation = str(parameter.annotation)
        if key in _ESTIMATOR_PARAMETERS or any(t in annotation for t in _ESTIMATOR_ANNOTATIONS):
            raise SpecError(
                f"{where}.params.{key}: {cls.__name__} takes a model there; write it as a spec "
                f'table, {key} = {{ class = "{value}" }} (a plain string stays a string)'
            )


#: Most features a generator may be asked for: the models' feature-space limit
#: (:data:`imbalance_stream.base.features.MAX_FEATURES`).
MAX_GENERATED_FEATURES = 1_000_000

#: The largest value a file may give each size: a stream's ``n_samples`` (the scenario's
#: ``stream.n_samples``, the replay's ``events.n_samples``, a generator's or wrapper's own) and
#: the parameters by which a dataset class holds or draws something per unit, checked by name
#: on every dataset built from a spec. A size beyond its cap is refused when the file is loaded,
#: in one line, before any sample is drawn: ``n_samples = 10**18`` or ``RandomRBF(n_centroids =
#: 10**8)`` would otherwise run until killed. The caps lie far above every scenario in the
#: repository (at most 20,000 samples, 50 centroids, 10 features) and can be changed where the
#: file is run, by :data:`CAPS_VARIABLE`.
SIZE_CAPS: dict[str, int] = {
    # 1e8 samples is hours of prequential evaluation per model, 5,000 times the longest scenario
    # shipped; AnomalySine allocates its n_samples at construction
    "n_samples": 100_000_000,
    "n_anomalies": 100_000_000,  # AnomalySine: at most n_samples
    "n_contextual": 100_000_000,
    "n_tiles": 25_000_000,  # Logical: 4 samples per tile, held in memory
    # (n_features has a limit of its own that no variable lifts: the models' MAX_FEATURES)
    "n_num_features": MAX_GENERATED_FEATURES,  # RandomTree
    "n_cat_features": MAX_GENERATED_FEATURES,
    "n_drift_features": MAX_GENERATED_FEATURES,  # Hyperplane, LEDDrift
    "n_classes": 10_000,  # RandomRBF, RandomTree: a label list and a class per leaf or centroid
    "n_centroids": 100_000,  # RandomRBF: each sample draws its centroid by a scan of all weights
    "n_drift_centroids": 100_000,
    "n_categories_per_feature": 10_000,  # RandomTree: children of a categorical split
    "max_tree_depth": 100,  # RandomTree: built by recursion, one call per level
    "candidates": 10_000,  # SelectionShift: draws per sample
    # a replay log built from a dataset (log.events): a weight per account, drawn by a search
    "entities": 10_000_000,
    # numbers a generator builds before its first sample: RandomRBF's centroid coordinates
    # (n_centroids * n_features) and an estimate of RandomTree's nodes (see _generator_state)
    "state": 10_000_000,
}

#: The environment variable that changes :data:`SIZE_CAPS` where a file is run: comma-separated
#: ``name=value`` pairs, ``IMBALANCE_STREAM_CAPS="n_samples=1_000_000_000,state=1e8"``. The
#: caps guard the machine against the file, so they are the runner's to change, not the file's:
#: a setting inside the file would let any file lift its own cap.
CAPS_VARIABLE = "IMBALANCE_STREAM_CAPS"


def size_caps() -> dict[str, int]:
    """:data:`SIZE_CAPS` with the changes of :data:`CAPS_VARIABLE` (read on every call)."""
    caps = dict(SIZE_CAPS)
    for item in os.environ.get(CAPS_VARIABLE, "").split(","):
        if not item.strip():
            continue
        name, _, text = (part.strip() for part in item.partition("="))
        if name not in caps:
            raise SpecError(
                f"{CAPS_VARIABLE}: no cap is called {name!r}"
                + (did_you_mean(name, caps) or f"; the caps are {', '.join(caps)}")
            )
        try:
            value = float(text.replace("_", ""))
        except ValueError:
            value = math.nan
        if not (value >= 1 and value.is_integer()):
            raise SpecError(f"{CAPS_VARIABLE}: {name} = {text!r} is not a positive integer")
        caps[name] = int(value)
    return caps


def check_size(name: str, value, where: str, error: type[SpecError] | None = None) -> None:
    """Raise ``error`` (:class:`SpecError` by default) if the number ``value``, given for the
    size ``name`` of :data:`SIZE_CAPS` at ``where`` in a file, is beyond its cap; anything else
    is left to the code that reads it."""
    cap = size_caps()[name]
    if isinstance(value, (int, float)) and not isinstance(value, bool) and value > cap:
        raise (error or SpecError)(
            f"{where}: {value!r} is beyond the cap of {cap:,} on {name}, which keeps a file from "
            f"asking for a run that cannot finish; to allow more where you run it, set "
            f'{CAPS_VARIABLE}="{name}=N"'
        )


def _generator_state(params: dict) -> float:
    """The numbers a generator builds before its first sample, from its parameters (0 when
    they hold none of the sizes below or a value is not a number: the class then says so)."""
    try:
        if "n_centroids" in params:  # RandomRBF(Drift): a centre of n_features per centroid
            return float(params["n_centroids"]) * float(params.get("n_features", 1))
        if "max_tree_depth" in params:  # RandomTree: no leaf above first_leaf_level, then a
            # node is a leaf with probability fraction_leaves_per_level; a categorical split has
            # a child per category: the expected width of the last level
            depth = float(params["max_tree_depth"])
            first = min(float(params.get("first_leaf_level", 0)), depth)
            fanout = 2.0
            if float(params.get("n_cat_features", 0)) > 0:
                fanout = max(fanout, float(params.get("n_categories_per_feature", 2)))
            kept = max(fanout * (1.0 - float(params.get("fraction_leaves_per_level", 0.0))), 1.0)
            return math.exp(min(first * math.log(fanout) + (depth - first) * math.log(kept), 700))
    except (TypeError, ValueError):
        return 0.0
    return 0.0


def _check_dataset(cls: type, kwargs: dict, where: str) -> None:
    """Refuse a dataset that would download (River's remote datasets write into the home folder
    and need a network), generate more features than a model can take, or be of a size beyond
    :data:`SIZE_CAPS`."""
    if issubclass(cls, datasets_base.RemoteDataset):
        raise SpecError(
            f"{where}: river.datasets.{cls.__name__} is downloaded by River on first use, which a "
            f"scenario never does (no network, nothing written outside --out). Download "
            f"{_remote_url(cls)} yourself, unpack it, and read the CSV file with "
            '{ csv = "path/to/file.csv", target = "<label column>" } as the source'
        )
    n_features = kwargs.get("n_features")
    if n_features is not None and (
        isinstance(n_features, bool)
        or not isinstance(n_features, int)
        or not 1 <= n_features <= MAX_GENERATED_FEATURES
    ):
        raise SpecError(
            f"{where}.params.n_features: expected an integer from 1 to "
            f"{MAX_GENERATED_FEATURES:,} (the models' limit on features), got {n_features!r}"
        )
    caps = size_caps()
    for name, value in kwargs.items():
        if name in caps and name != "state":
            check_size(name, value, f"{where}.params.{name}")
    defaults = {
        name: parameter.default
        for name, parameter in inspect.signature(cls).parameters.items()
        if parameter.default is not parameter.empty
    }
    state = _generator_state({**defaults, **kwargs})
    if state > caps["state"]:
        raise SpecError(
            f"{where}: {cls.__name__} would build about {state:.3g} numbers before its first "
            f"sample, beyond the cap of {caps['state']:,} on state (n_centroids * n_features, or "
            f"a random tree's expected nodes); to allow more where you run it, set "
            f'{CAPS_VARIABLE}="state=N"'
        )


def _remote_url(cls: type) -> str:
    """The address River downloads ``cls`` from (an attribute set by its constructor)."""
    try:
        return str(cls().url)  # constructing downloads nothing: only iterating does
    except Exception:  # a message, whatever the dataset's constructor needs
        return "its file"


def _wrapped_metric(params: Mapping, wrapper: type, where: str) -> dict:
    """The parameters of a metric wrapper (``utils.Rolling``) with ``cls`` resolved to the metric
    class and, when ``cls`` is a spec table, its params merged in."""
    params = dict(params)
    inner = params.get("cls")
    example = 'cls = "river.metrics.BalancedAccuracy", window_size = 1000'
    if inner is None:
        raise SpecError(
            f"{where}.params: {wrapper.__name__} needs the metric class to wrap: {{ {example} }}"
        )
    if isinstance(inner, Mapping):
        unknown = set(inner) - _SPEC_KEYS
        if unknown or "class" not in inner or not isinstance(inner.get("params", {}), Mapping):
            raise SpecError(
                f"{where}.params.cls: expected a metric class name or a table with 'class' and "
                f"optional 'params', got {inner!r}"
            )
        for key, value in inner.get("params", {}).items():
            if key in params:
                raise SpecError(f"{where}.params.cls.params: {key!r} is given twice")
            params[key] = value
        inner = inner["class"]
    if not isinstance(inner, str):
        raise SpecError(f"{where}.params.cls: expected a metric class name, got {inner!r}")
    try:
        params["cls"] = resolve(inner, "metric")
    except SpecError as error:
        raise SpecError(f"{where}.params.cls: {error}") from None
    return params


# python -m imbalance_stream.registry rewrites imbalance_stream/catalog.py
if __name__ == "__main__":
    write_catalog()
