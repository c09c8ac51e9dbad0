"""Specs to objects: :func:`build` turns what a scenario writes for an object (a class name, a
``{class, params}`` table, a list for a pipeline) into the object, building the specs among its
parameters first and refusing, when the file is loaded, what would only fail once it runs. See
:mod:`imbalance_stream.registry`.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping

from river import compose

from ..base.validation import did_you_mean
from ._limits import check_dataset
from ._names import SpecError, is_dataset, is_metric_wrapper, resolve

__all__ = ["build", "is_spec_value"]


#: The keys a spec table may have.
_SPEC_KEYS = {"class", "params"}


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
    if is_metric_wrapper(cls):
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
    if is_dataset(cls):
        check_dataset(cls, kwargs, where)
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
