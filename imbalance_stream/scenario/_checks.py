"""Reading a scenario file and checking what it says, before anything is built: the TOML (shared
with the replay's scenarios: :func:`read_toml`, :func:`utf8_error`), the tables and keys each
kind of scenario may hold, and the values of its ``[stream]`` and ``[output]``
(:func:`check_config`). See :mod:`imbalance_stream.scenario`.
"""

from __future__ import annotations

import math
import numbers
import pathlib
import sys
from collections.abc import Mapping

from ..registry import SpecError, check_size
from ._specs import METRIC_GROUPS, ScenarioError, check_keys, check_name, is_metric_group

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 reads TOML with the tomli backport
    import tomli as tomllib

__all__ = [
    "CSV_KEYS",
    "KINDS",
    "MAX_DEPTH",
    "check_config",
    "narrowest_width",
    "near",
    "read_toml",
    "utf8_error",
]


KINDS = ("prequential", "protocol")
_TOP_KEYS = {
    "prequential": {"name", "description", "kind", "stream", "models", "metrics", "output"},
    "protocol": {"name", "description", "kind", "protocol", "params", "output"},
}
_STREAM_KEYS = {"source", "n_samples", "seed", "positive", "imbalance", "drift", "delay"}
_IMBALANCE_KEYS = {"ratio", "replace", "buffer_size"}
_DRIFT_KEYS = {"source", "position", "width"}
_OUTPUT_KEYS = {"prequential": {"step"}, "protocol": set()}
CSV_KEYS = {"csv", "target", "converters", "parse_dates", "drop", "delimiter", "task"}


def positive_int(value, where: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ScenarioError(f"{where}: expected an integer >= {minimum}, got {value!r}")
    return int(value)


def narrowest_width(position: int) -> int:
    """The smallest width for which River's ConceptDriftStream does not overflow ``math.exp``
    (its exponent at the first sample is ``4 (position - 1) / width``)."""
    return max(1, math.ceil(4 * (position - 1) / 700))


def _validate_stream(stream, where="stream"):
    check_keys(stream, _STREAM_KEYS, where)
    if "source" not in stream:
        raise ScenarioError(f"{where}: missing 'source' (the dataset or generator to read)")
    if "n_samples" in stream:
        positive_int(stream["n_samples"], f"{where}.n_samples")
        check_size("n_samples", stream["n_samples"], f"{where}.n_samples", ScenarioError)
    if "seed" in stream:
        positive_int(stream["seed"], f"{where}.seed", minimum=0)
    if "delay" in stream:  # labels arrive this many samples late
        positive_int(stream["delay"], f"{where}.delay", minimum=0)
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
            positive_int(imbalance["buffer_size"], f"{where}.imbalance.buffer_size")
        if "replace" in imbalance and not isinstance(imbalance["replace"], bool):
            raise ScenarioError(f"{where}.imbalance.replace: expected true or false")
    if "drift" in stream:
        drift = stream["drift"]
        check_keys(drift, _DRIFT_KEYS, f"{where}.drift")
        for key in ("source", "position"):
            if key not in drift:
                raise ScenarioError(f"{where}.drift: missing {key!r}")
        position = positive_int(drift["position"], f"{where}.drift.position", minimum=0)
        if "width" in drift:
            width = positive_int(drift["width"], f"{where}.drift.width")
            if width < narrowest_width(position):
                raise ScenarioError(
                    f"{where}.drift.width: River's ConceptDriftStream computes "
                    f"exp(4 (position - t) / width), which overflows before the drift unless "
                    f"width >= {narrowest_width(position)} for position = {position}; leave "
                    "width out for the most abrupt drift it can make"
                )


def _named_specs(config, key: str):
    table = config.get(key)
    if table is None:
        raise ScenarioError(f"missing [{key}] table")
    if not isinstance(table, Mapping) or not table:
        raise ScenarioError(f"[{key}] must be a non-empty table of name = spec")


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


def near(source: str) -> pathlib.Path | None:
    """The scenario file's path, where the ``reproduce/`` package of a registered protocol is
    looked for (None for a string)."""
    return None if source.startswith("<") else pathlib.Path(source)


def check_config(config: dict, name: str, source: str) -> tuple[str, str]:
    """``(kind, name)`` of the scenario ``config`` read from ``source``, once its tables and keys
    are checked; raises :class:`ScenarioError` naming the key. (What it builds is checked by
    building it, in :func:`~imbalance_stream.scenario.parse`.)"""
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
        positive_int(output["step"], "output.step")

    if kind == "protocol":
        from imbalance_stream.evaluate.protocols import ProtocolError, get_protocol

        protocol = config.get("protocol")
        if not isinstance(protocol, str):
            raise ScenarioError(
                'protocol: kind = "protocol" needs protocol = the name of a registered protocol,'
                ' such as "reproduce.acog.protocol:table8"'
            )
        try:
            get_protocol(protocol, near=near(source))
        except ProtocolError as error:
            raise ScenarioError(f"protocol: {error}") from None
        if not isinstance(config.get("params", {}), Mapping):
            raise ScenarioError("params: expected a table")
        return kind, name

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
    return kind, name
