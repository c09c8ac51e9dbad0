"""What a file may ask for: the caps on its sizes (:data:`SIZE_CAPS`, changed where the file is run
by :data:`CAPS_VARIABLE`; :func:`check_size`), and the check of a dataset built from a spec (no
download, no more features than a model takes, no size beyond its cap). See
:mod:`imbalance_stream.registry`.
"""

from __future__ import annotations

import inspect
import math
import os

from ..base.validation import did_you_mean
from ._names import SpecError

__all__ = [
    "CAPS_VARIABLE",
    "MAX_GENERATED_FEATURES",
    "SIZE_CAPS",
    "check_dataset",
    "check_size",
    "size_caps",
]


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


def check_dataset(cls: type, kwargs: dict, where: str) -> None:
    """Refuse a dataset that would download (River's remote datasets write into the home folder
    and need a network), generate more features than a model can take, or be of a size beyond
    :data:`SIZE_CAPS`."""
    from river.datasets import base as datasets_base  # (loaded already: cls is a dataset)

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
