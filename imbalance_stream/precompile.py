"""Fill numba's on-disk cache ahead of the first use of this package's estimators.

The per-sample updates run in ``@njit(cache=True)`` kernels, compiled on their first call and then
saved in numba's cache (``NUMBA_CACHE_DIR``, else beside the package's sources or in numba's user
cache). A model's first ``learn_one`` therefore costs seconds on a fresh install, the compilation of
every kernel it reaches; later processes load the compiled code in a fraction of that.
:func:`precompile` pays those seconds once, ahead of time: it runs an estimator in its default
configuration, and in each configuration its tests exercise (``_unit_test_params``), through a
short synthetic stream (learn, predict, probabilities, decision values or anomaly scores), so that
every kernel those configurations reach is compiled and cached, the steps runs the replay makes
of them too. :func:`precompile_replay` does the same for the replay's own kernels.
``imbalance-stream compile [NAME...]`` runs it for the named estimators (``replay``: the replay's
kernels), all of them by default.

>>> from imbalance_stream.precompile import estimator_names, precompile
>>> "ACOG" in estimator_names()
True
>>> seconds = precompile("Perceptron")
>>> seconds >= 0.0
True

"""

from __future__ import annotations

import inspect
import random
import time

__all__ = ["estimator_names", "precompile", "precompile_replay", "synthetic_stream"]

#: Samples in the synthetic stream: enough for the small budgets and windows of the test
#: configurations to fill, so that their maintenance kernels run too.
N_SAMPLES = 200


def estimator_names() -> list[str]:
    """The short names of this package's public estimators (:mod:`imbalance_stream.catalog`)."""
    from .catalog import CLASSES

    return [short for short, (_, kind) in CLASSES.items() if kind == "estimator"]


def synthetic_stream(n_samples: int = N_SAMPLES, n_classes: int = 2, seed: int = 0):
    """``n_samples`` pairs ``(x, y)``: five Gaussian features, a class shifting their means, about
    one sample in four of the first class (binary labels ``True`` / ``False``; with ``n_classes``
    above 2, the labels ``0 .. n_classes - 1``), with label noise so that margin-based models keep
    making mistakes."""
    rng = random.Random(seed)
    for _ in range(n_samples):
        label = 0 if rng.random() < 0.25 else rng.randrange(1, n_classes)
        x = {f"x{j}": rng.gauss(0.0, 1.0) + (0.8 if j == label else 0.0) for j in range(5)}
        if rng.random() < 0.1:  # label noise
            label = rng.randrange(n_classes)
        yield x, (label == 0 if n_classes == 2 else label)


def _configurations(cls) -> list[dict]:
    """The default configuration (when the class has one) and those of its tests."""
    required = [
        p
        for p in inspect.signature(cls).parameters.values()
        if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
    ]
    configurations: list[dict] = [] if required else [{}]
    configurations.extend(cls._unit_test_params())
    return configurations


def _exercise(model, n_samples: int) -> None:
    """Learn and predict ``n_samples`` synthetic samples with every prediction method there is,
    and, for a model with a steps path (the replay's compiled runs), the same samples through
    :meth:`~imbalance_stream.base.BinaryClassifier.run_steps` on a clone."""
    from river import base

    if getattr(model, "has_steps_path", False):
        _run_steps(model.clone(), n_samples)

    detector = isinstance(model, base.AnomalyDetector)
    n_classes = 3 if getattr(model, "_multiclass", False) else 2
    for x, y in synthetic_stream(n_samples, n_classes):
        if detector:
            model.score_one(x)
            model.learn_one(x)
            continue
        if hasattr(model, "observe_one"):
            model.observe_one(x)
        model.predict_one(x)
        model.predict_proba_one(x)
        if hasattr(model, "decision_one"):
            model.decision_one(x)
        model.learn_one(x, y)


def _run_steps(model, n_samples: int) -> None:
    """Each synthetic sample predicted, then learned, in one steps run."""
    import numpy as np

    pairs = list(synthetic_stream(n_samples))
    names = list(pairs[0][0])
    rows = np.array([[x[name] for name in names] for x, _ in pairs for _ in (0, 1)])
    learn = np.tile([False, True], len(pairs))
    labels = [label if step else None for _, label in pairs for step in (False, True)]
    model.run_steps(rows, names, learn, labels)


def precompile_replay() -> float:
    """Compile and cache the replay's own kernels (the columnar reading of times, the writing of
    label times and of prediction lines, the count of repeated event ids); return the seconds it
    took."""
    import numpy as np

    from ._numba.text import hash_spans, row_id_spans
    from .replay.lines import Choice, csv_lines
    from .replay.vector_times import column_micros, format_times

    start = time.perf_counter()
    try:
        import pyarrow as pa
    except ImportError:  # no columnar reading without pyarrow: nothing of it to compile
        return time.perf_counter() - start
    micros = column_micros(pa.array(["2024-01-01T00:00:00+00:00", "2024-01-01 00:00:01.500"]))
    assert micros is not None  # (two times of the shapes it reads)
    given = np.ones(2, dtype=bool)
    format_times(micros, True, given)
    format_times(micros - micros % 1_000_000, False, given)
    data = np.frombuffer(b"ab", dtype=np.uint8)
    hash_spans(data, np.zeros(1, dtype=np.int64), np.ones(1, dtype=np.int64), np.empty(1, np.int64))
    row_id_spans(np.frombuffer(b"1,a,b\n", dtype=np.uint8), -1, np.empty((1, 2), dtype=np.int64))
    texts = pa.array(["a", "b"])  # a column of a block, then texts chosen per row
    csv_lines([[texts, Choice(["c"], np.zeros(2, dtype=np.int64))]], 2)
    return time.perf_counter() - start


def precompile(name: str, n_samples: int = N_SAMPLES) -> float:
    """Compile and cache the kernels the estimator ``name`` reaches; return the seconds it took.

    Parameters
    ----------
    name
        A short name of :func:`estimator_names` or a dotted name (``"imbalance_stream.svm.LASVM"``).
    n_samples
        Length of the synthetic stream each configuration learns.

    """
    from .registry import resolve

    start = time.perf_counter()
    cls = resolve(name, kind="estimator")
    for params in _configurations(cls):
        _exercise(cls(**params), n_samples)
    return time.perf_counter() - start
