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
import pathlib
from collections.abc import Mapping

from ..catalog import bundled
from ..registry import SpecError, build
from ._checks import CSV_KEYS, check_config, narrowest_width, near
from ._checks import KINDS as KINDS
from ._checks import MAX_DEPTH as MAX_DEPTH
from ._checks import read_toml as read_toml
from ._checks import utf8_error as utf8_error
from ._specs import METRIC_GROUPS as METRIC_GROUPS
from ._specs import TEXT_SOURCE, ScenarioError, check_keys, with_source_seed
from ._specs import NamedSpecs as NamedSpecs
from ._specs import check_name as check_name
from ._specs import is_metric_group as is_metric_group
from ._specs import model_kind as model_kind
from ._specs import with_model_seed as with_model_seed
from ._specs import with_positive as with_positive

__all__ = ["Scenario", "ScenarioError", "ScenarioResult", "bundled", "load", "parse", "run"]

# Written in ._specs, but this module's: documented here, named so in tracebacks and pickles.
ScenarioError.__module__ = __name__

DEFAULT_SEED = 42


def _finite(stream) -> bool:
    """Whether a stream ends: it says how long it is, or wraps one that does (an uncapped
    ImbalancedStream reads its ``source``, a ConceptDriftStream its first ``stream``)."""
    if getattr(stream, "n_samples", None) is not None:
        return True
    inner = getattr(stream, "stream", None)
    if inner is None:
        inner = getattr(stream, "source", None)
    return inner is not None and _finite(inner)


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
    source: str = TEXT_SOURCE

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
                width=drift.get("width", narrowest_width(drift["position"])),
                seed=seed,
            )
        except (AttributeError, ValueError) as error:  # River's check of the two streams
            raise ScenarioError(f"stream.drift: {error}") from None

    def _source(self, spec, seed: int, where: str):
        """A source: a spec (built with ``seed`` if it takes one) or a ``{csv = ...}`` table."""
        if not (isinstance(spec, Mapping) and "csv" in spec):
            return build(with_source_seed(spec, seed), "dataset", where)
        from imbalance_stream.datasets import CSVFile

        check_keys(spec, CSV_KEYS, where)
        path = spec["csv"]
        if not isinstance(path, str) or not path:
            raise ScenarioError(f"{where}.csv: expected the path of a CSV file, got {path!r}")
        path = pathlib.Path(path).expanduser()
        if not path.is_absolute() and self.source != TEXT_SOURCE:
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


def parse(text: str, name: str = "scenario", source: str = TEXT_SOURCE) -> Scenario:
    """Validate the TOML ``text`` of a scenario and return it (see the module docstring)."""
    config = read_toml(text, source)
    try:
        return _validate(config, name, source)
    except ScenarioError as error:
        raise ScenarioError(f"{source}: {error}") from None
    except SpecError as error:
        raise ScenarioError(f"{source}: {error}") from None


def _validate(config: dict, name: str, source: str) -> Scenario:
    """The scenario of ``config``, its tables and keys checked (:func:`check_config`) and, for a
    prequential one, everything it names built once."""
    kind, name = check_config(config, name, source)
    scenario = Scenario(name=name, kind=kind, config=config, source=source)
    if kind == "protocol":
        return scenario
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
        rows = get_protocol(scenario.protocol, near=near(scenario.source))(
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
