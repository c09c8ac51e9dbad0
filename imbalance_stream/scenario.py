"""TOML scenarios: a stream, models and metrics in a file, run as a prequential comparison, or the
name and parameters of one of the papers' protocols.

The format is documented in ``scenarios/README.md``; in short::

    name = "quickstart"
    kind = "prequential"                 # the default; or "protocol"

    [stream]
    source = { class = "river.datasets.synth.SEA", params = { variant = 0 } }
    # or a CSV file: source = { csv = "data.csv", target = "label", converters = { x = "float" } }
    n_samples = 20000
    seed = 42
    positive = true                      # the rare label

    [stream.imbalance]                   # optional: resample to a positive share
    ratio = 0.1                          # or a schedule: { class = "Step", params = {...} }

    [stream.drift]                       # optional: switch to another concept
    source = { class = "river.datasets.synth.SEA", params = { variant = 3 } }
    position = 10000
    width = 100

    [models]
    ACOG = ["river.preprocessing.StandardScaler", { class = "ACOG", params = { eta = 1.0 } }]

    [metrics]
    BalancedAccuracy = "river.metrics.BalancedAccuracy"

    [output]
    step = 500

:func:`load` reads and validates a file (unknown keys and class names are refused with suggestions,
sizes beyond :data:`~imbalance_stream.registry.SIZE_CAPS` too, which the environment variable
``IMBALANCE_STREAM_CAPS`` changes, and every object is built once so that a wrong parameter is
reported before anything runs);
:func:`run` runs it. Every model gets a fresh stream built from the same spec and seed, so all
models see exactly the same samples.

>>> from imbalance_stream.scenario import parse, run
>>> scenario = parse('''
... [stream]
... source = "river.datasets.Phishing"
... [models]
... LogReg = ["river.preprocessing.StandardScaler", "river.linear_model.LogisticRegression"]
... [metrics]
... BA = "river.metrics.BalancedAccuracy"
... ''', name="phishing")
>>> result = run(scenario)
>>> result.table
[{'model': 'LogReg', 'BA': 0.89..., 'samples': 1250}]

"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import pathlib
import re
import sys
from collections.abc import Mapping

from river import metrics as river_metrics

from .base.composition import is_anomaly_detector, last_step
from .base.validation import did_you_mean
from .catalog import bundled
from .registry import SpecError, build, check_size, is_spec_value, resolve

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

__all__ = ["Scenario", "ScenarioError", "ScenarioResult", "bundled", "load", "parse", "run"]

KINDS = ("prequential", "protocol")
_TOP_KEYS = {
    "prequential": {"name", "description", "kind", "stream", "models", "metrics", "output"},
    "protocol": {"name", "description", "kind", "protocol", "params", "output"},
}
_STREAM_KEYS = {"source", "n_samples", "seed", "positive", "imbalance", "drift", "delay"}
_IMBALANCE_KEYS = {"ratio", "replace", "buffer_size"}
_DRIFT_KEYS = {"source", "position", "width"}
_OUTPUT_KEYS = {"prequential": {"step"}, "protocol": set()}
_CSV_KEYS = {"csv", "target", "converters", "parse_dates", "drop", "delimiter", "task"}
DEFAULT_SEED = 42


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
    """The package's density-ratio detector a model ends with, or None."""
    from imbalance_stream.anomaly.base import DensityRatioNovelty

    final = last_step(model)
    return final if isinstance(final, DensityRatioNovelty) else None


def _positive_int(value, where: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ScenarioError(f"{where}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


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


def _with_seed(spec, seed: int | None):
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


def _finite(stream) -> bool:
    """Whether a stream ends: it says how long it is, or wraps one that does (an uncapped
    ImbalancedStream reads its ``source``, a ConceptDriftStream its first ``stream``)."""
    if getattr(stream, "n_samples", None) is not None:
        return True
    inner = getattr(stream, "stream", None)
    if inner is None:
        inner = getattr(stream, "source", None)
    return inner is not None and _finite(inner)


def _narrowest_width(position: int) -> int:
    """The smallest width for which River's ConceptDriftStream does not overflow ``math.exp``
    (its exponent at the first sample is ``4 (position - 1) / width``)."""
    return max(1, math.ceil(4 * (position - 1) / 700))


class _Shifted:
    """A schedule read ``offset`` steps later: the concept after a drift starts counting its own
    samples at the drift position, so its schedule is shifted to stay on the stream's clock."""

    def __init__(self, schedule, offset: int):
        self.schedule = schedule
        self.offset = offset

    def __call__(self, t):
        return self.schedule(t + self.offset)

    def __repr__(self):
        return f"{self.schedule!r} from step {self.offset}"


@dataclasses.dataclass
class Scenario(NamedSpecs):
    """A validated scenario (what :func:`load` and :func:`parse` return).

    Attributes
    ----------
    name
        Used for the default output directory ``out/<name>``.
    kind
        ``"prequential"`` or ``"protocol"``.
    config
        The file's content (as read; specs are built on demand, so the scenario pickles).
    source
        The file it came from, if any.

    """

    name: str
    kind: str
    config: dict
    source: str = "<string>"

    # ---- prequential parts -----------------------------------------------------------------

    @property
    def step(self) -> int:
        output = self.config.get("output", {})
        if "step" in output:
            return output["step"]
        n = self.n_samples
        return max(1, n // 100) if n else 1000

    @property
    def n_samples(self) -> int | None:
        return self.config.get("stream", {}).get("n_samples")

    @property
    def delay(self) -> int | None:
        return self.config.get("stream", {}).get("delay")

    @property
    def seed(self) -> int:
        return self.config.get("stream", {}).get("seed", DEFAULT_SEED)

    @property
    def _model_seed(self) -> int | None:
        return self.seed if self.kind == "prequential" else None

    def with_seed(self, seed: int) -> Scenario:
        """The same scenario with another stream seed."""
        config = dict(self.config)
        config["stream"] = {**config.get("stream", {}), "seed": seed}
        return dataclasses.replace(self, config=config)

    def make_stream(self):
        """A fresh stream: the same samples every call."""
        stream = self.config["stream"]
        seed = self.seed
        positive = stream.get("positive", True)
        imbalance = stream.get("imbalance")
        drift = stream.get("drift")

        def imbalanced(source, salt, offset=0):
            if imbalance is None:
                return source
            from imbalance_stream.datasets import ImbalancedStream

            ratio = imbalance["ratio"]
            if isinstance(ratio, (Mapping, str)):
                ratio = build(ratio, "schedule", "stream.imbalance.ratio")
                if offset:
                    ratio = _Shifted(ratio, offset)
            options = {k: imbalance[k] for k in ("replace", "buffer_size") if k in imbalance}
            return ImbalancedStream(
                source, ratio=ratio, positive=positive, seed=seed + salt, **options
            )

        first = self._source(stream["source"], seed, "stream.source")
        first = imbalanced(first, salt=0)
        if drift is None:
            return first
        from river.datasets import synth

        second = self._source(drift["source"], seed + 1, "stream.drift.source")
        second = imbalanced(second, salt=1, offset=drift["position"])
        try:
            return synth.ConceptDriftStream(
                stream=first,
                drift_stream=second,
                position=drift["position"],
                width=drift.get("width", _narrowest_width(drift["position"])),
                seed=seed,
            )
        except (AttributeError, ValueError) as error:  # River's check of the two streams
            raise ScenarioError(f"stream.drift: {error}") from None

    def _source(self, spec, seed: int, where: str):
        """A source: a spec (built with ``seed`` if it takes one) or a ``{csv = ...}`` table."""
        if not (isinstance(spec, Mapping) and "csv" in spec):
            return build(_with_seed(spec, seed), "dataset", where)
        from imbalance_stream.datasets import CSVFile

        check_keys(spec, _CSV_KEYS, where)
        path = spec["csv"]
        if not isinstance(path, str) or not path:
            raise ScenarioError(f"{where}.csv: expected the path of a CSV file, got {path!r}")
        path = pathlib.Path(path).expanduser()
        if not path.is_absolute() and self.source != "<string>":
            path = pathlib.Path(self.source).parent / path  # relative to the scenario file
        options = {k: v for k, v in spec.items() if k != "csv"}
        try:
            return CSVFile(path, **options)
        except FileNotFoundError as error:
            raise ScenarioError(f"{where}.csv: {error}") from None
        except (TypeError, ValueError) as error:
            raise ScenarioError(f"{where}: {error}") from None

    # ---- protocol parts --------------------------------------------------------------------

    @property
    def protocol(self) -> str | None:
        return self.config.get("protocol")

    @property
    def params(self) -> dict:
        return dict(self.config.get("params", {}))


@dataclasses.dataclass
class ScenarioResult:
    """What :func:`run` returns.

    Attributes
    ----------
    table
        The rows to print: for a prequential run one per model (final metric values and the number
        of samples), for a protocol the rows it returned.
    curves
        Prequential runs only: the tidy curve rows ``{"model", "step", "metric", "value"}``.
    prequential
        Prequential runs only: the full
        :class:`~imbalance_stream.evaluate.prequential.PrequentialResult`.

    """

    scenario: Scenario
    table: list[dict]
    curves: list[dict] | None = None
    prequential: object = None


def _validate_stream(stream, where="stream"):
    check_keys(stream, _STREAM_KEYS, where)
    if "source" not in stream:
        raise ScenarioError(f"{where}: missing 'source' (the dataset or generator to read)")
    if "n_samples" in stream:
        _positive_int(stream["n_samples"], f"{where}.n_samples")
        check_size("n_samples", stream["n_samples"], f"{where}.n_samples", ScenarioError)
    if "seed" in stream:
        _positive_int(stream["seed"], f"{where}.seed", minimum=0)
    if "delay" in stream:  # labels arrive this many samples late
        _positive_int(stream["delay"], f"{where}.delay", minimum=0)
    if "imbalance" in stream:
        imbalance = stream["imbalance"]
        check_keys(imbalance, _IMBALANCE_KEYS, f"{where}.imbalance")
        if "ratio" not in imbalance:
            raise ScenarioError(
                f"{where}.imbalance: missing 'ratio' (a positive share in [0, 1], or a schedule "
                'such as { class = "Step", params = { before = 0.1, after = 0.01, at = 5000 } })'
            )
        ratio = imbalance["ratio"]
        if isinstance(ratio, bool) or not isinstance(ratio, (numbers.Real, str, Mapping)):
            raise ScenarioError(
                f"{where}.imbalance.ratio: expected a number or a schedule, got {ratio!r}"
            )
        if isinstance(ratio, numbers.Real) and not 0.0 <= float(ratio) <= 1.0:
            raise ScenarioError(
                f"{where}.imbalance.ratio: a share must be in [0, 1], got {ratio!r}"
            )
        if "buffer_size" in imbalance:
            _positive_int(imbalance["buffer_size"], f"{where}.imbalance.buffer_size")
        if "replace" in imbalance and not isinstance(imbalance["replace"], bool):
            raise ScenarioError(f"{where}.imbalance.replace: expected true or false")
    if "drift" in stream:
        drift = stream["drift"]
        check_keys(drift, _DRIFT_KEYS, f"{where}.drift")
        for key in ("source", "position"):
            if key not in drift:
                raise ScenarioError(f"{where}.drift: missing {key!r}")
        position = _positive_int(drift["position"], f"{where}.drift.position", minimum=0)
        if "width" in drift:
            width = _positive_int(drift["width"], f"{where}.drift.width")
            if width < _narrowest_width(position):
                raise ScenarioError(
                    f"{where}.drift.width: River's ConceptDriftStream computes "
                    f"exp(4 (position - t) / width), which overflows before the drift unless "
                    f"width >= {_narrowest_width(position)} for position = {position}; leave "
                    "width out for the most abrupt drift it can make"
                )


def _named_specs(config, key: str):
    table = config.get(key)
    if table is None:
        raise ScenarioError(f"missing [{key}] table")
    if not isinstance(table, Mapping) or not table:
        raise ScenarioError(f"[{key}] must be a non-empty table of name = spec")


def parse(text: str, name: str = "scenario", source: str = "<string>") -> Scenario:
    """Validate the TOML ``text`` of a scenario and return it (see the module docstring)."""
    config = read_toml(text, source)
    try:
        return _validate(config, name, source)
    except ScenarioError as error:
        raise ScenarioError(f"{source}: {error}") from None
    except SpecError as error:
        raise ScenarioError(f"{source}: {error}") from None


#: Deepest nesting of arrays and tables a scenario may hold (a pipeline in a wrapper in a model
#: table is about 6): deeper files are refused before anything walks them recursively.
MAX_DEPTH = 32


def read_toml(text: str, source: str, error: type[SpecError] = ScenarioError) -> dict:
    """The table of the TOML ``text``; invalid TOML and nesting deeper than :data:`MAX_DEPTH`
    raise ``error`` naming ``source`` (shared by run and replay scenarios)."""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{source}: not valid TOML: {problem}") from None
    except RecursionError:
        raise error(
            f"{source}: arrays or tables nested too deeply to read (more than {MAX_DEPTH} levels "
            "are refused)"
        ) from None
    try:
        _check_depth(config, source)
    except ScenarioError as problem:
        raise error(str(problem)) from None
    return config


def utf8_error(path, error: UnicodeDecodeError) -> str:
    """The message for a scenario file that is not UTF-8: the line and the byte."""
    line = error.object[: error.start].count(b"\n") + 1
    return (
        f"cannot read scenario {str(path)!r}: line {line} holds a byte that is not UTF-8 "
        f"({error.object[error.start : error.start + 1]!r}); TOML files are UTF-8 text"
    )


def _check_depth(config: dict, source: str) -> None:
    pending: list[tuple[Mapping | list, int]] = [(config, 1)]
    while pending:
        value, depth = pending.pop()
        if depth > MAX_DEPTH:
            raise ScenarioError(
                f"{source}: arrays or tables nested more than {MAX_DEPTH} levels deep are refused"
            )
        children = value.values() if isinstance(value, Mapping) else value
        pending.extend(
            (child, depth + 1) for child in children if isinstance(child, (Mapping, list))
        )


def _near(source: str) -> pathlib.Path | None:
    """The scenario file's path, where the ``reproduce/`` package of a registered protocol is
    looked for (None for a string)."""
    return None if source.startswith("<") else pathlib.Path(source)


def _validate(config: dict, name: str, source: str) -> Scenario:
    kind = config.get("kind", "prequential")
    if kind not in KINDS:
        hint = (
            "; an event log is replayed with: imbalance-stream replay FILE"
            if kind == "replay"
            else ""
        )
        raise ScenarioError(
            f"kind: expected one of {', '.join(map(repr, KINDS))}, got {kind!r}{hint}"
        )
    where = "top level" + ("" if kind == "protocol" else ' (kind = "prequential")')
    check_keys(config, _TOP_KEYS[kind], where)
    name = check_name(config, name)
    output = config.get("output", {})
    check_keys(output, _OUTPUT_KEYS[kind], "[output]")
    if "step" in output:
        _positive_int(output["step"], "output.step")
    scenario = Scenario(name=name, kind=kind, config=config, source=source)

    if kind == "protocol":
        from imbalance_stream.evaluate.protocols import ProtocolError, get_protocol

        protocol = config.get("protocol")
        if not isinstance(protocol, str):
            raise ScenarioError(
                'protocol: kind = "protocol" needs protocol = the name of a registered protocol,'
                ' such as "reproduce.acog.protocol:table8"'
            )
        try:
            get_protocol(protocol, near=_near(source))
        except ProtocolError as error:
            raise ScenarioError(f"protocol: {error}") from None
        if not isinstance(config.get("params", {}), Mapping):
            raise ScenarioError("params: expected a table")
        return scenario

    if "stream" not in config:
        raise ScenarioError("missing [stream] table")
    _validate_stream(config["stream"])
    _named_specs(config, "models")
    _named_specs(config, "metrics")
    for group in METRIC_GROUPS:
        if is_metric_group(group, config["metrics"].get(group)):
            raise ScenarioError(
                f"[metrics.{group}]: metrics by kind of model are for replay scenarios; a "
                "prequential run scores every model by every metric of [metrics]"
            )

    # Build everything once: a wrong class or parameter is reported now, not after a long run.
    try:
        stream = scenario.make_stream()
    except SpecError:
        raise
    except (TypeError, ValueError) as error:
        raise ScenarioError(f"[stream]: {error}") from None
    if scenario.n_samples is None and not _finite(stream):
        raise ScenarioError(
            "stream.n_samples: the source is an endless generator; say how many samples to evaluate"
        )
    scenario.check_metrics()
    return scenario


def load(path) -> Scenario:
    """Read and validate the scenario file at ``path``; its name defaults to the file's stem.

    ``path`` may also be the name of a scenario shipped with the package (``"quickstart"``, see
    :func:`bundled`) when no file of that name exists, so ``imbalance-stream run quickstart`` works
    from an installed package as well as from a checkout.
    """
    path = pathlib.Path(path)
    shipped = bundled()
    if not path.exists() and str(path) in shipped:
        path = shipped[str(path)]
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or error
        names = ", ".join(shipped) or "none"
        raise ScenarioError(
            f"cannot read scenario {str(path)!r}: {reason} (scenarios shipped with the package: "
            f"{names})"
        ) from None
    except UnicodeDecodeError as error:
        raise ScenarioError(utf8_error(path, error)) from None
    return parse(text, name=path.stem, source=str(path))


def run(
    scenario: Scenario,
    out_dir=None,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> ScenarioResult:
    """Run a scenario.

    A prequential scenario runs every model on its own fresh stream
    (:func:`~imbalance_stream.evaluate.prequential.run_prequential`); a protocol scenario calls the
    registered protocol with its ``params``, ``out_dir`` (where it may write files), ``n_jobs``,
    ``scheduler`` and ``progress``. Nothing is written here: the CLI writes the tables and plots.
    """
    if scenario.kind == "protocol":
        from imbalance_stream.evaluate.protocols import get_protocol

        out = pathlib.Path(out_dir) if out_dir is not None else pathlib.Path("out") / scenario.name
        out.mkdir(parents=True, exist_ok=True)
        assert scenario.protocol is not None  # validated on loading
        rows = get_protocol(scenario.protocol, near=_near(scenario.source))(
            scenario.params, out_dir=out, n_jobs=n_jobs, scheduler=scheduler, progress=progress
        )
        return ScenarioResult(scenario=scenario, table=[dict(row) for row in rows])

    from imbalance_stream.evaluate.prequential import run_prequential

    result = run_prequential(
        scenario.make_stream,
        scenario.make_models(),
        scenario.make_metrics(),
        step=scenario.step,
        n_samples=scenario.n_samples,
        delay=scenario.delay,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress,
    )
    return ScenarioResult(
        scenario=scenario, table=result.table(), curves=result.rows, prequential=result
    )
