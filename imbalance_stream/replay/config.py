"""The ``[log]`` and ``[replay]`` sections of a replay scenario, and turning a log record into an
event (or a one-line reason to reject it).

A replay scenario is a TOML file with ``kind = "replay"``::

    name = "chargebacks"
    kind = "replay"

    [log]
    path = "events.csv"            # relative to the scenario file; a list or a glob reads several
    format = "csv"                 # csv jsonl parquet sqlite duckdb dataset (default: suffix)
    time = "timestamp"             # event time: numbers (seconds, or any unit) or ISO 8601
    id = "event_id"                # optional (default: the row number)
    entity = "card"                # optional: one model per entity
    label = "fraud"
    positive = 1
    labels = [0, 1]                # optional: any other label is rejected
    label_time = "chargeback_at"   # when the label arrives; empty: never. Or label_delay = "3d"
    out_of_order = "error"         # or "sort"
    missing = "reject"             # or "drop" (leave the feature out of x)

    [log.features]
    include = ["amount", "mcc"]    # default: every other column
    exclude = []
    types = { mcc = "str" }        # float (default), int, str, bool

    [models]
    ACOG = ["river.preprocessing.StandardScaler", "ACOG"]

    [metrics]
    BA = "river.metrics.BalancedAccuracy"

    [replay]
    per_entity = true              # with an entity column (default true)
    global_model = false           # a shared model beside the per-entity ones
    step = 1000                    # read the cumulative metrics every 1000 labels
    window = "7d"                  # metrics per window of event time (optional)
    checkpoint_every = 100000      # rows; and/or checkpoint_seconds = 60
    predictions = "csv"            # or "parquet"
    max_rejects = 1000             # optional
    seed = 42                      # of the models that take one and leave it unset (default 42)
    compiled = true                # jitted runs for the models that have them (default true)

Times are held as integer microseconds so that ``time + delay`` is exact and ties are ties.
"""

from __future__ import annotations

import dataclasses
import functools
import glob
import hashlib
import json
import math
import numbers
import os
import pathlib
import re
from collections.abc import Mapping

from imbalance_stream.base.validation import did_you_mean
from imbalance_stream.registry import SpecError, build, check_size
from imbalance_stream.scenario import (
    DEFAULT_SEED,
    METRIC_GROUPS,
    NamedSpecs,
    check_keys,
    check_name,
    is_metric_group,
    model_kind,
)

# Event, Reject and NEVER are read from here by checkpoints written before they moved to .events
from .events import MICRO, NEVER, Event, Reject, RowReader, _Never  # noqa: F401

__all__ = ["Event", "LogSpec", "Reject", "ReplayError", "ReplayScenario", "load", "parse"]

FORMATS = ("csv", "jsonl", "parquet", "sqlite", "duckdb", "dataset")
_SUFFIX = {
    ".csv": "csv",
    ".tsv": "csv",
    ".gz": "csv",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
    ".db": "sqlite",
    ".duckdb": "duckdb",
}
_TOP_KEYS = {"name", "description", "kind", "log", "models", "metrics", "replay"}
_LOG_KEYS = {
    "path",
    "format",
    "query",
    "delimiter",
    "dataset",
    "events",
    "time",
    "id",
    "entity",
    "label",
    "positive",
    "labels",
    "label_time",
    "label_delay",
    "out_of_order",
    "missing",
    "features",
}
_FEATURE_KEYS = {"include", "exclude", "types"}
_TYPES = ("float", "int", "str", "bool")
_REPLAY_KEYS = {
    "per_entity",
    "global_model",
    "step",
    "window",
    "checkpoint_every",
    "checkpoint_seconds",
    "predictions",
    "max_rejects",
    "seed",
    "compiled",
}
_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0, "w": 604800.0}


class ReplayError(SpecError):
    """A replay that cannot go on: a bad scenario, rows out of order, too many rejects, or a
    checkpoint that does not match. The message is one line saying what to do."""


def parse_duration(value, where: str) -> int:
    """A duration (a number of seconds, or ``"90s"``, ``"15m"``, ``"2h"``, ``"3d"``, ``"1w"``) as
    integer microseconds."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        seconds = float(value)
    elif isinstance(value, str) and (
        match := re.fullmatch(r"\s*([0-9.]+)\s*(us|ms|s|m|h|d|w)\s*", value)
    ):
        seconds = float(match.group(1)) * _UNITS[match.group(2)]
    else:
        raise ReplayError(
            f'{where}: expected a duration such as 3600, "90s", "15m", "2h", "3d" or '
            f'"1w", got {value!r}'
        )
    if not math.isfinite(seconds) or seconds < 0:
        raise ReplayError(f"{where}: a duration must be finite and >= 0, got {value!r}")
    return round(seconds * MICRO)


@dataclasses.dataclass
class LogSpec:
    """The validated ``[log]`` section; its ``reader`` (a :class:`RowReader`) turns records into
    events."""

    paths: list[str]
    format: str
    time: str
    label: str
    positive: object = True
    labels: list | None = None
    id: str | None = None
    entity: str | None = None
    label_time: str | None = None
    label_delay: int | None = None
    out_of_order: str = "error"
    missing: str = "reject"
    include: list[str] | None = None
    exclude: tuple[str, ...] = ()
    types: dict[str, str] = dataclasses.field(default_factory=dict)
    query: str | None = None
    delimiter: str = ","
    dataset: object = None
    events: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.reader = RowReader(self)

    def event(self, row: int, record) -> Event:
        """The event of source row ``row`` (1-based); raises :class:`Reject` with the reason."""
        return self.reader.event(row, record)

    def check_columns(self, columns, where: str) -> None:
        """Refuse, before any row is read, a log whose header (``columns``, of the file or
        query ``where``) lacks a column the scenario names (every row would be rejected), or
        names a column twice (which of the two is meant?)."""
        present = set(columns)
        if len(present) < len(columns):
            twice = next(c for i, c in enumerate(columns) if c in list(columns)[:i])
            raise ReplayError(
                f"{where} has two columns named {twice!r}; rename one (a replay reads columns by "
                "name)"
            )
        named = [
            (key, getattr(self, key))
            for key in ("time", "label", "id", "entity", "label_time")
            if getattr(self, key) is not None
        ]
        named += [("features.include", column) for column in self.include or ()]
        named += [("features.exclude", column) for column in self.exclude]
        named += [("features.types", column) for column in self.types]
        for key, column in named:
            if column not in present:
                hint = did_you_mean(str(column), columns)
                shown = ", ".join(repr(c) for c in list(columns)[:12])
                more = ", ..." if len(present) > 12 else ""
                raise ReplayError(
                    f"log.{key}: column {column!r} is not in {where} "
                    f"(its columns: {shown}{more}){hint}"
                )


@dataclasses.dataclass
class ReplayScenario(NamedSpecs):
    """A validated replay scenario (what :func:`load` and :func:`parse` return)."""

    name: str
    config: dict
    log: LogSpec
    source: str = "<string>"

    @property
    def options(self) -> dict:
        return self.config.get("replay", {})

    @property
    def _model_seed(self) -> int:
        """A replay seeds every model that takes a seed and whose spec leaves it unset, so that
        two replays of a log, and a resumed one, are identical (``replay.seed``, else 42)."""
        return self.options.get("seed", DEFAULT_SEED)

    def with_seed(self, seed: int) -> ReplayScenario:
        """The same scenario with ``replay.seed = seed``."""
        config = {**self.config, "replay": {**self.options, "seed": seed}}
        return dataclasses.replace(self, config=config)

    @property
    def positive(self):
        """The log's rare label (``log.positive``), which the models learn as theirs."""
        return self.log.positive

    @property
    def step(self) -> int:
        return self.options.get("step", 1000)

    @property
    def window(self) -> int | None:
        window = self.options.get("window")
        return None if window is None else parse_duration(window, "replay.window")

    @property
    def compiled(self) -> bool:
        """Whether the models with a steps path (``has_steps_path``: ACOG, AROW, SACOG and the
        first-order baselines) run each batch's steps in jitted runs instead of one call per step
        (``replay.compiled``, default true); the outputs are the same, bit for bit."""
        return self.options.get("compiled", True)

    @property
    def per_entity(self) -> bool:
        return self.log.entity is not None and self.options.get("per_entity", True)

    @property
    def global_model(self) -> bool:
        return not self.per_entity or self.options.get("global_model", False)

    def slots(self) -> list[tuple[str, str, str]]:
        """``(label, model name, mode)`` of every model that runs, in output order; mode is
        ``"entity"`` (one clone per entity) or ``"global"``."""
        out = []
        for name in self.config["models"]:
            if self.per_entity:
                out.append((name, name, "entity"))
            if self.global_model:
                out.append((f"{name} (global)" if self.per_entity else name, name, "global"))
        return out

    def slot_metrics(self, models: dict | None = None) -> list:
        """For each slot (:meth:`slots`), what builds its fresh metrics: those of ``[metrics]``
        for every model and those of its kind's group (``[metrics.classifiers]``,
        ``[metrics.detectors]``). ``models``: :meth:`make_models`'s, when already built."""
        models = self.make_models() if models is None else models
        kinds = {name: model_kind(model) for name, model in models.items()}
        return [functools.partial(self.make_metrics, kinds[name]) for _, name, _ in self.slots()]

    def fingerprint(self) -> str:
        """Changes when the scenario or the size or modification time of a log file does."""
        files = []
        for path in self.log.paths:
            try:
                stat = os.stat(path)
                files.append([path, stat.st_size, stat.st_mtime_ns])
            except OSError:
                files.append([path, None, None])
        text = json.dumps([self.config, files], sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _check_keys(table, allowed, where):
    check_keys(table, allowed, where, error=ReplayError)


def _column(log, key, where, required=False):
    value = log.get(key)
    if value is None:
        if required:
            raise ReplayError(f"{where}: missing {key!r} (the name of the {key} column)")
        return None
    if not isinstance(value, str) or not value:
        raise ReplayError(f"{where}.{key}: expected a column name, got {value!r}")
    return value


def _count(options, key, where, minimum=1):
    if key not in options:
        return
    value = options[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ReplayError(f"{where}.{key}: expected an integer >= {minimum}, got {value!r}")


def _paths(value, base: pathlib.Path, fmt: str | None) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(p, str) for p in items):
        raise ReplayError("log.path: expected a path, a glob or a list of paths")
    out = []
    for item in items:
        item = os.path.expandvars(os.path.expanduser(item))
        full = item if os.path.isabs(item) else str(base / item)
        if any(ch in item for ch in "*?["):
            found = sorted(glob.glob(full))
            if not found:
                raise ReplayError(f"log.path: no file matches {item!r}")
            out.extend(found)
        else:
            out.append(full)
    return out


def _log_source(log, base: pathlib.Path) -> tuple[str, list[str], str | None]:
    """``(format, paths, dataset)`` of ``[log]``: the files (checked to exist) and their format,
    or the River dataset that stands in for them."""
    fmt = log.get("format")
    if fmt is not None and fmt not in FORMATS:
        raise ReplayError(f"log.format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    if fmt == "dataset" or (fmt is None and "dataset" in log):
        if "dataset" not in log:
            raise ReplayError('log.dataset: format = "dataset" needs dataset = "<class>"')
        build(log["dataset"], "dataset", "log.dataset")  # reported now, not after a long run
        if not isinstance(log.get("events", {}), Mapping):
            raise ReplayError("log.events: expected a table")
        return "dataset", [], log["dataset"]
    if "path" not in log:
        raise ReplayError("[log]: missing 'path' (the event log file, a glob or a list)")
    paths = _paths(log["path"], base, fmt)
    if fmt is None:
        suffix = pathlib.Path(paths[0]).suffix.lower()
        if suffix == ".gz":
            suffix = pathlib.Path(paths[0][:-3]).suffix.lower() or ".gz"
        fmt = _SUFFIX.get(suffix)
        if fmt is None:
            raise ReplayError(
                f"log.format: cannot tell the format of {paths[0]!r} from its suffix; "
                f"say format = one of {', '.join(FORMATS[:-1])}"
            )
    if fmt in ("sqlite", "duckdb") and not isinstance(log.get("query"), str):
        raise ReplayError(
            f'log.query: format = "{fmt}" needs query = "SELECT ... ORDER BY <time column>"'
        )
    for path in paths:
        if not os.path.exists(path):
            raise ReplayError(f"log.path: no such file {path!r}")
    return fmt, paths, None


def _log_features(log) -> tuple[list[str] | None, list[str], dict]:
    """``(include, exclude, types)`` of ``[log.features]``, checked."""
    features = log.get("features", {})
    _check_keys(features, _FEATURE_KEYS, "[log.features]")
    include = features.get("include")
    exclude = features.get("exclude", [])
    for key, value in (("include", include), ("exclude", exclude)):
        if value is not None and (
            not isinstance(value, list) or not all(isinstance(c, str) for c in value)
        ):
            raise ReplayError(f"log.features.{key}: expected a list of column names")
    types = features.get("types", {})
    if not isinstance(types, Mapping):
        raise ReplayError("log.features.types: expected a table column = type")
    for column, kind in types.items():
        if kind not in _TYPES:
            raise ReplayError(
                f"log.features.types.{column}: expected one of {', '.join(_TYPES)}, got {kind!r}"
            )
    return include, exclude, dict(types)


def parse_log(log, base: pathlib.Path) -> LogSpec:
    where = "[log]"
    _check_keys(log, _LOG_KEYS, where)
    fmt, paths, dataset = _log_source(log, base)
    label_time = _column(log, "label_time", where)
    label_delay = None
    if "label_delay" in log:
        if label_time is not None:
            raise ReplayError("[log]: give label_time (a column) or label_delay, not both")
        label_delay = parse_duration(log["label_delay"], "log.label_delay")
    choice = {"out_of_order": ("error", "sort"), "missing": ("reject", "drop")}
    for key, allowed in choice.items():
        if key in log and log[key] not in allowed:
            raise ReplayError(
                f"log.{key}: expected {' or '.join(map(repr, allowed))}, got {log[key]!r}"
            )
    labels = log.get("labels")
    if labels is not None and (not isinstance(labels, list) or len(labels) < 1):
        raise ReplayError("log.labels: expected a list of the labels, e.g. [0, 1]")
    include, exclude, types = _log_features(log)
    positive = log.get("positive", True)
    if labels is not None and positive not in labels:
        raise ReplayError(f"log.positive: {positive!r} is not one of log.labels {labels!r}")
    events = dict(log.get("events", {}))
    for key in ("n_samples", "entities"):
        check_size(key, events.get(key), f"log.events.{key}", ReplayError)
    return LogSpec(
        paths=paths,
        format=fmt,
        time=_column(log, "time", where, required=True),
        label=_column(log, "label", where, required=True),
        positive=positive,
        labels=labels,
        id=_column(log, "id", where),
        entity=_column(log, "entity", where),
        label_time=label_time,
        label_delay=label_delay,
        out_of_order=log.get("out_of_order", "error"),
        missing=log.get("missing", "reject"),
        include=include,
        exclude=tuple(exclude),
        types=types,
        query=log.get("query"),
        delimiter=log.get("delimiter", "\t" if paths and paths[0].endswith(".tsv") else ","),
        dataset=dataset,
        events=events,
    )


def parse(
    text: str,
    name: str = "replay",
    source: str = "<string>",
    base: str | pathlib.Path | None = None,
) -> ReplayScenario:
    """Validate a replay scenario's TOML ``text``; relative log paths are read from ``base``
    (default: the current directory)."""
    from imbalance_stream.scenario import read_toml

    config = read_toml(text, source, ReplayError)
    try:
        return _validate(config, name, source, pathlib.Path(base or "."))
    except SpecError as error:
        raise ReplayError(f"{source}: {error}") from None


def _validate(config, name, source, base) -> ReplayScenario:
    if config.get("kind") != "replay":
        raise ReplayError(
            'kind: a replay scenario says kind = "replay" (imbalance-stream run '
            "runs the other kinds)"
        )
    _check_keys(config, _TOP_KEYS, 'top level (kind = "replay")')
    name = check_name(config, name, error=ReplayError)
    if "log" not in config:
        raise ReplayError("missing [log] table (the event log to replay)")
    log = parse_log(config["log"], base)
    models = config.get("models")
    if not isinstance(models, Mapping) or not models:
        raise ReplayError("[models] must be a non-empty table of name = spec")
    metrics = config.get("metrics", {})
    if not isinstance(metrics, Mapping):
        raise ReplayError("[metrics] must be a table of name = spec")
    for group in METRIC_GROUPS:
        if group in metrics and not is_metric_group(group, metrics[group]):
            continue  # a metric named so, given by its spec
        if group in metrics and not metrics[group]:
            raise ReplayError(f"[metrics.{group}] must be a non-empty table of name = spec")
    options = config.get("replay", {})
    _check_keys(options, _REPLAY_KEYS, "[replay]")
    for key in ("per_entity", "global_model", "compiled"):
        if key in options and not isinstance(options[key], bool):
            raise ReplayError(f"replay.{key}: expected true or false")
    for key in ("step", "checkpoint_every"):
        _count(options, key, "replay")
    _count(options, "max_rejects", "replay", minimum=0)
    _count(options, "seed", "replay", minimum=0)
    if "checkpoint_seconds" in options:
        value = options["checkpoint_seconds"]
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or value <= 0:
            raise ReplayError(f"replay.checkpoint_seconds: expected a number > 0, got {value!r}")
    if options.get("predictions", "csv") not in ("csv", "parquet"):
        raise ReplayError('replay.predictions: expected "csv" or "parquet"')
    if "window" in options:
        parse_duration(options["window"], "replay.window")
    scenario = ReplayScenario(name=name, config=config, log=log, source=source)
    scenario.check_metrics(error=ReplayError)
    return scenario


def load(path) -> ReplayScenario:
    """Read and validate the replay scenario at ``path``; relative log paths are read from the
    scenario file's folder, and its name defaults to the file's stem."""
    path = pathlib.Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        reason = error.strerror or error
        raise ReplayError(f"cannot read scenario {str(path)!r}: {reason}") from None
    except UnicodeDecodeError as error:
        from imbalance_stream.scenario import utf8_error

        raise ReplayError(utf8_error(path, error)) from None
    return parse(text, name=path.stem, source=str(path), base=path.resolve().parent)
