"""The specs of a scenario's models and metrics, shared by the run scenarios of
:mod:`imbalance_stream.scenario` and the replay's: :class:`NamedSpecs` (the ``[models]`` and
``[metrics]`` tables, built on demand, and the check that each metric works with each model),
the stream's rare label and seed filled into the specs that take them (:func:`with_positive`,
:func:`with_model_seed`), and the checks of a table's keys and a scenario's name.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Mapping

from river import metrics as river_metrics

from ..base.composition import is_anomaly_detector, last_step
from ..base.validation import did_you_mean
from ..registry import SpecError, build, is_spec_value, resolve

__all__ = [
    "METRIC_GROUPS",
    "TEXT_SOURCE",
    "NamedSpecs",
    "ScenarioError",
    "check_keys",
    "check_name",
    "is_metric_group",
    "model_kind",
    "with_model_seed",
    "with_positive",
    "with_source_seed",
]

#: The ``source`` of a scenario given as text rather than read from a file.
TEXT_SOURCE = "<string>"


class ScenarioError(SpecError):
    """A scenario file that cannot be run; the message names the file and the key."""


def check_keys(table, allowed, where: str, error: type[SpecError] = ScenarioError) -> None:
    """Raise ``error`` unless ``table`` is a table whose keys are all ``allowed`` (naming the
    unknown key, with the allowed ones it is close to)."""
    if not isinstance(table, Mapping):
        raise error(f"{where}: expected a table, got {type(table).__name__} {table!r}")
    for key in table:
        if key not in allowed:
            raise error(
                f"{where}: unknown key {key!r}"
                + (did_you_mean(key, allowed) or f"; allowed keys: {', '.join(sorted(allowed))}")
            )


def check_name(config: Mapping, default: str, error: type[SpecError] = ScenarioError) -> str:
    """The scenario's ``name`` (default ``default``): what may name an output folder."""
    name = config.get("name", default)
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.-]*", name):
        raise error(f"name: expected letters, digits, '_', '-' or '.', got {name!r}")
    return name


class NamedSpecs:
    """The ``[models]`` and ``[metrics]`` tables of a scenario's ``config`` (``name = spec``),
    built on demand; shared by :class:`Scenario` and the replay's scenario."""

    config: dict

    @property
    def _model_seed(self) -> int | None:
        """The seed given to models that take one and are not given one (None: left unset)."""
        return None

    @property
    def positive(self):
        """The rare label of the stream or log (``True`` unless the file names another)."""
        return self.config.get("stream", {}).get("positive", True)

    def make_models(self) -> dict:
        """Every model of ``[models]``; a classifier that takes ``positive`` and whose spec does
        not set it learns :attr:`positive` as its rare label (:func:`with_positive`), and, in a
        prequential scenario, an estimator that takes a ``seed`` and whose spec does not set it
        gets the stream's seed (:func:`with_model_seed`), so that a run repeats exactly, serial
        or on several processes."""
        models = self.config.get("models", {})
        return {
            name: build(
                with_model_seed(with_positive(spec, self.positive), self._model_seed),
                "estimator",
                f"models.{name}",
            )
            for name, spec in models.items()
        }

    def metric_specs(self, kind: str | None = None) -> dict:
        """``{name: (spec, location)}`` of the ``[metrics]`` that score a model of ``kind``
        (``"classifiers"`` or ``"detectors"``, :data:`METRIC_GROUPS`): the entries for every
        model, then those of the kind's group (``[metrics.detectors]``: a replay can score a
        classifier and an anomaly detector on one log by metrics of their own)."""
        table = self.config.get("metrics", {})
        specs = {
            name: (spec, f"metrics.{name}")
            for name, spec in table.items()
            if not is_metric_group(name, spec)
        }
        if kind is not None and is_metric_group(kind, table.get(kind)):
            specs.update(
                (name, (spec, f"metrics.{kind}.{name}")) for name, spec in table[kind].items()
            )
        return specs

    def make_metrics(self, kind: str | None = None) -> dict:
        """``{name: metric}``, fresh, for a model of ``kind`` (see :meth:`metric_specs`)."""
        return {
            name: build(spec, "metric", where)
            for name, (spec, where) in self.metric_specs(kind).items()
        }

    def check_metrics(self, error: type[SpecError] = ScenarioError) -> None:
        """Build every model and metric once (a wrong class or parameter is reported now, not
        after a long run) and raise ``error`` naming a metric that does not work with a model."""
        models = self.make_models()
        for model_name, model in models.items():
            metrics = self.make_metrics(model_kind(model))
            detector = _density_ratio_detector(model)
            if detector is not None and detector.mode == "two-sample":
                raise error(
                    f"models.{model_name}: {type(detector).__name__} is in mode='two-sample', "
                    "which learns the reference through learn_one and screens only what "
                    "observe_one and refresh() give it, and a run calls neither: set "
                    'mode = "stream" and n_test (the recent samples compared with the ones before)'
                )
            for metric_name, metric in metrics.items():
                if not metric.works_with(model):
                    kind = " (an anomaly detector)" if is_anomaly_detector(model) else ""
                    raise error(
                        f"metrics.{metric_name}: {type(metric).__name__} does not work with "
                        f"model {model_name!r}{kind}"
                    )
                inner = getattr(metric, "obj", metric)  # River's Rolling wraps its metric
                if detector is not None and type(inner) is river_metrics.ROCAUC:
                    raise error(
                        f"metrics.{metric_name}: River's ROCAUC bins scores in [0, 1], and "
                        f"{type(detector).__name__}'s scores are -log density ratios of any "
                        'range: use { class = "ExactROCAUC", params = { pos_val = true } }'
                    )


#: The groups ``[metrics]`` may hold in a replay scenario, by the kind of model they score.
METRIC_GROUPS = ("classifiers", "detectors")


def is_metric_group(name: str, spec) -> bool:
    """Whether ``[metrics]``'s entry ``name = spec`` is a group of metrics (a table of
    ``name = spec`` under ``classifiers`` or ``detectors``) rather than one metric's spec (a
    class name, or a table with a ``class``)."""
    return name in METRIC_GROUPS and isinstance(spec, Mapping) and "class" not in spec


def model_kind(model) -> str:
    """The group of :data:`METRIC_GROUPS` whose metrics score ``model``."""
    return "detectors" if is_anomaly_detector(model) else "classifiers"


def _density_ratio_detector(model):
    """The package's density-ratio detector a model ends with, or None. Before the detectors'
    module is imported no model can be one (an instance's class imports its base), so a
    replay of a classifier does not import the detectors."""
    anomaly_base = sys.modules.get("imbalance_stream.anomaly.base")
    final = last_step(model)
    if anomaly_base is None or not isinstance(final, anomaly_base.DensityRatioNovelty):
        return None
    return final


def _with_param(spec, name: str, value, kind: str):
    """``spec`` with ``name = value`` filled in, if its class takes ``name`` and the spec leaves
    it unset; a spec that is not a class name or table is returned as it is."""
    if not isinstance(spec, (str, Mapping)):
        return spec  # malformed: build() will say so
    table = {"class": spec} if isinstance(spec, str) else dict(spec)
    if not isinstance(table.get("class"), str):
        return spec
    try:
        cls = resolve(table["class"], kind)
    except SpecError:
        return spec  # build() will say so, with the location
    given = table.get("params", {})
    params = dict(given) if isinstance(given, Mapping) else {}
    if name in inspect.signature(cls).parameters and name not in params:
        params[name] = value
        table["params"] = params
    return table


def with_source_seed(spec, seed: int | None):
    """``spec`` with ``seed`` filled in, if its class takes a seed and the spec leaves it unset."""
    return spec if seed is None else _with_param(spec, "seed", seed, "dataset")


def with_positive(spec, positive):
    """A model spec in which every classifier that takes ``positive`` and is not given one gets
    the stream's or log's rare label: each step of a pipeline, and an estimator given as a
    parameter (a wrapper's ``classifier = { class = ... }`` or ``classifier = [...]``).

    Without it a log labelled ``"fraud"`` / ``"legit"`` with ``positive = "fraud"`` would reach
    this package's classifiers with their default ``positive=True``, and they would refuse
    ``"fraud"`` as a third label.

    >>> scaler, acog = with_positive(["river.preprocessing.StandardScaler", "ACOG"], "fraud")
    >>> scaler
    {'class': 'river.preprocessing.StandardScaler'}
    >>> acog
    {'class': 'ACOG', 'params': {'positive': 'fraud'}}
    >>> with_positive({"class": "ACOG", "params": {"positive": 1}}, "fraud")["params"]
    {'positive': 1}
    >>> sampler = {"class": "river.active.EntropySampler", "params": {"classifier": ["ACOG"]}}
    >>> with_positive(sampler, "fraud")["params"]
    {'classifier': [{'class': 'ACOG', 'params': {'positive': 'fraud'}}]}

    River's multi-class reductions train their inner classifiers on true/false labels of their
    own, so nothing inside them is changed:

    >>> acog = {"class": "ACOG"}
    >>> ovr = {"class": "river.multiclass.OneVsRestClassifier", "params": {"classifier": acog}}
    >>> with_positive(ovr, "sky")["params"]
    {'classifier': {'class': 'ACOG'}}

    """
    return _fill_estimators(spec, "positive", positive, into=lambda t: not _splits_classes(t))


def with_model_seed(spec, seed: int | None):
    """A model spec in which every estimator that takes a ``seed`` and is not given one gets
    ``seed``: each step of a pipeline, and an estimator given as a parameter. (River's default,
    ``seed=None``, draws a new random state on every run.)

    >>> with_model_seed({"class": "river.imblearn.RandomUnderSampler", "params": {
    ...     "classifier": "river.linear_model.LogisticRegression",
    ...     "desired_dist": {True: 0.5, False: 0.5}}}, 7)["params"]["seed"]
    7
    >>> with_model_seed({"class": "KOIL", "params": {"seed": 1}}, 7)["params"]["seed"]
    1

    """
    return spec if seed is None else _fill_estimators(spec, "seed", seed)


def _fill_estimators(spec, name: str, value, into=lambda table: True):
    """``spec`` with ``name = value`` filled in wherever an estimator takes ``name`` and leaves
    it unset: each step of a pipeline, and the estimators given as parameters of a table for
    which ``into(table)`` holds."""
    if isinstance(spec, list):
        return [_fill_estimators(step, name, value, into) for step in spec]
    table = _with_param(spec, name, value, "estimator")
    params = table.get("params") if table is not spec else None  # spec itself: malformed
    if isinstance(params, Mapping) and into(table):
        table["params"] = {
            key: _fill_estimators(param, name, value, into) if is_spec_value(param) else param
            for key, param in params.items()
        }
    return table


def _splits_classes(table: Mapping) -> bool:
    """Whether ``table`` names one of River's multi-class reductions (one-vs-rest and the like):
    they give their inner classifiers true/false labels of their own, so the stream's
    ``positive`` is not the inner classifiers' (they keep ``positive=True``)."""
    try:
        cls = resolve(table["class"], "estimator")
    except SpecError:
        return False
    return cls.__module__.split(".")[:2] == ["river", "multiclass"]
