"""Memory per model: River's ``_raw_memory_usage`` of every public estimator after a stream,
against River's ``LogisticRegression`` and ``HalfSpaceTrees`` after the same stream.

Each estimator is built with its default parameters (what a user gets), or with the first entry
of its ``_unit_test_params`` when it has no defaults, and learns River's bundled Phishing data
(1,250 rows, 9 features in [0, 1]) in order: classifiers through ``learn_one(x, y)``, anomaly
detectors through ``learn_one(x)``. ``--repeats`` runs the whole thing again on fresh instances and
reports the median (the size is deterministic for a seeded model; a difference between the
repetitions would show state that depends on something else).

Run from the repository root::

    python benchmarks/bench_memory.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from river import anomaly, base, datasets, optim  # noqa: E402
from river import linear_model as river_linear  # noqa: E402
from test_river_checks import public_estimators  # noqa: E402


def build(cls):
    try:
        return cls()
    except TypeError:  # a required parameter: take the first tested configuration
        return cls(**next(iter(cls._unit_test_params())))


def learned_size(model, stream) -> int:
    for x, y in stream:
        if isinstance(model, base.AnomalyDetector):
            model.learn_one(x)
        else:
            model.learn_one(x, y)
    return model._raw_memory_usage


def peers() -> dict:
    return {
        "river LogisticRegression": lambda: river_linear.LogisticRegression(optim.SGD(0.01)),
        "river HalfSpaceTrees": lambda: anomaly.HalfSpaceTrees(seed=0),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    stream = list(datasets.Phishing())
    makers = dict(peers().items())
    for cls in public_estimators():
        makers[cls.__name__] = lambda cls=cls: build(cls)
    sizes: dict[str, list[int]] = {name: [] for name in makers}
    for _ in range(args.repeats):
        for name, make in makers.items():
            sizes[name].append(learned_size(make(), stream))
    median = {name: statistics.median(values) for name, values in sizes.items()}
    logistic, trees = median["river LogisticRegression"], median["river HalfSpaceTrees"]
    print(f"Phishing, {len(stream)} samples; median of {args.repeats} runs (min-max in brackets)")
    print(f"{'model':28s} {'bytes':>12s} {'x LogisticRegression':>21s} {'x HalfSpaceTrees':>17s}")
    for name, size in median.items():
        spread = "" if min(sizes[name]) == max(sizes[name]) else f" [{min(sizes[name])}-"
        spread += f"{max(sizes[name])}]" if spread else ""
        print(f"{name:28s} {size:12,.0f} {size / logistic:21.1f} {size / trees:17.3f}{spread}")


if __name__ == "__main__":
    main()
