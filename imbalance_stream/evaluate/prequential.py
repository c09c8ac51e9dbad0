"""Prequential (test-then-train) comparison of several models on the same stream.

Each model is run with River's :func:`river.evaluate.iter_progressive_val_score` on its own fresh
copy of the stream, with its own fresh copies of the metrics; the metric values are read at every
checkpoint (every ``step`` samples, and at the end of the stream) and collected as tidy rows
``{"model", "step", "metric", "value"}``. Models run serially with a progress bar over samples, or
in parallel through :func:`imbalance_stream.parallel.map_cells` (local processes or a Dask
cluster) with a progress bar over models; results are the same either way.

Metrics that need labels and metrics that need probabilities can be mixed: River then asks the model
for ``predict_proba_one`` and gives the label metrics the most probable label (River's own
:class:`~river.metrics.base.Metrics` rule). A metric may be wrapped in River's ``utils.Rolling``
(the metric over the last ``window_size`` samples), and River's ``metrics.RollingROCAUC`` (whose
``update`` takes no sample weight) works too.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import itertools
import pathlib
import sys
from collections.abc import Iterable, Mapping

import numpy as np
from river import base, utils
from river.active.base import ActiveLearningClassifier
from river.metrics import base as metrics_base

from ..base import REFUSALS, is_anomaly_detector, watches_arrivals
from ..datasets import ChecksumError, CorruptedFileError, MissingDataFile
from ..parallel import map_cells
from .delayed import DelayedLabels

__all__ = ["ModelFailed", "PrequentialResult", "StreamFailed", "plot_curves", "run_prequential"]

#: The data home's errors, which a stream raises as themselves.
DATA_ERRORS = (MissingDataFile, ChecksumError, CorruptedFileError)


class ModelFailed(RuntimeError):
    """A model (or a metric of its run) raised an error of its own on a sample of the stream:
    not a feature or label it refused (this package's ``InvalidFeature`` and ``UnknownLabel``
    pass through unchanged, and so do the stream's own errors), but, say, River's
    ``LogisticRegression`` calling ``int()`` on the label ``"yes"``. The message names the model
    and how far the stream had got; the original error is the ``__cause__``."""


class StreamFailed(RuntimeError):
    """The stream raised an error while it was read: a CSV value its converter cannot take, an
    imbalanced stream that finds no positive. The message names the sample it got to; the
    original error is the ``__cause__``. (A data file missing from or damaged in the data home
    raises as itself.)"""


@dataclasses.dataclass
class PrequentialResult:
    """What :func:`run_prequential` returns.

    Attributes
    ----------
    rows
        The curves, tidy: one dict ``{"model", "step", "metric", "value"}`` per model, checkpoint
        and metric, in model order, then step order, then metric order.
    final
        ``{model: {metric: value}}`` at the end of the stream.
    n_samples
        ``{model: number of samples evaluated}``.

    """

    rows: list[dict]
    final: dict[str, dict[str, float]]
    n_samples: dict[str, int]

    @property
    def metrics(self) -> list[str]:
        """The metric names, in the order given."""
        first = next(iter(self.final.values()), {})
        return list(first)

    def table(self) -> list[dict]:
        """One row per model: ``{"model": name, <metric>: final value, ..., "samples": n}``."""
        return [
            {"model": model, **values, "samples": self.n_samples[model]}
            for model, values in self.final.items()
        ]


def _fresh(stream):
    """A fresh stream: call a factory, or deep-copy a dataset (River's generators re-seed on every
    iteration, so a copy yields the same samples)."""
    if callable(stream) and not isinstance(stream, Iterable):
        return stream()
    return copy.deepcopy(stream)


def _fresh_metric(metric):
    """A metric with no samples. ``clone()`` would unwrap a ``utils.Rolling`` (it forwards unknown
    attributes to the metric inside), so a rolling metric gets a fresh metric and an empty
    window."""
    if isinstance(metric, utils.Rolling):
        fresh = copy.copy(metric)
        fresh.obj = metric.obj.clone()
        fresh.window = collections.deque(maxlen=metric.window_size)
        return fresh
    return metric.clone()


class _MetricSet(metrics_base.Metrics):
    """River's :class:`~river.metrics.base.Metrics`, without passing the default sample weight:
    ``RollingROCAUC.update`` takes none."""

    def update(self, y_true, y_pred, w=1.0) -> None:
        probabilities = not self.requires_labels
        for metric in self:
            pred = y_pred
            if probabilities and metric.requires_labels:
                pred = max(y_pred, key=y_pred.get)
            if w == 1.0:
                metric.update(y_true, pred)
            else:
                metric.update(y_true, pred, w)


def _run_one(cell) -> tuple[list[dict], dict[str, float], int]:
    """Evaluate one model (a cell of :func:`map_cells`: module-level, so processes can run it)."""
    name, stream, model, metrics, step, n_samples, progress, delay = cell
    dataset = _fresh(stream)
    model = model.clone()
    metrics = {label: _fresh_metric(metric) for label, metric in metrics.items()}
    data = iter(dataset)
    if n_samples is not None:
        data = itertools.islice(data, n_samples)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        total = n_samples if n_samples is not None else getattr(dataset, "n_samples", None)
        # Into a log (no terminal), a line every few seconds rather than ten a second.
        every = 0.1 if sys.stderr.isatty() else 5.0
        data = bar = tqdm(
            data, total=total, desc=name, unit=" samples", leave=False, mininterval=every
        )

    counted = [0]
    last_label: list = [None]
    reading = [False]  # left True when reading the stream raised (not the model's error)

    def counting(samples):
        samples = iter(samples)
        while True:
            reading[0] = True
            try:
                sample = next(samples)
            except StopIteration:
                return
            reading[0] = False
            counted[0] += 1
            last_label[0] = sample[1]
            yield sample

    rows: list[dict] = []
    seen = 0

    def read(at):
        for label, metric in metrics.items():  # the same objects River updates
            rows.append({"model": name, "step": at, "metric": label, "value": metric.get()})

    try:
        if (delay is None and not watches_arrivals(model)) or is_anomaly_detector(model):
            # River's loop; it runs an anomaly detector with late labels too: each sample is
            # scored when it arrives, and learned and counted by the metrics when its label
            # comes (the detectors have no predict_one for the loop below). Imported here:
            # river.evaluate imports River's streams and scikit-learn, which a replay, built
            # on this package, does not use
            from river import evaluate

            checkpoints = evaluate.iter_progressive_val_score(
                dataset=counting(data),
                model=model,
                metric=_MetricSet(list(metrics.values())),
                step=step,
                delay=delay,
            )
        else:
            # a model that watches the unlabelled arrivals (observe_one) needs the loop that
            # shows them, even with every label at once: River's loop never calls observe_one
            def arrived(i, y):  # read a batch ahead: the failure messages count what ran
                counted[0], last_label[0] = i + 1, y

            checkpoints = _delayed(
                counting(data),
                model,
                _MetricSet(list(metrics.values())),
                step,
                delay or 0,
                arrived,
            )
        for state in checkpoints:
            seen = state["Step"]
            read(seen)
    except REFUSALS:
        raise  # the package's own refusals, reported as such by the callers
    except Exception as error:
        if reading[0]:
            if isinstance(error, DATA_ERRORS):
                raise  # a data file missing or damaged: the callers say how to fetch it
            raise StreamFailed(
                f"the stream of model {name!r} could not be read at sample {counted[0] + 1}: "
                f"{type(error).__name__}: {error}"
            ) from error
        hint = ""
        label = last_label[0]
        if isinstance(label, str) and label in str(error):  # the label, not a feature, failed
            hint = (
                "; River's linear classifiers take only true/false or 0/1 labels: convert the "
                'label (converters = { LABEL = "bool" } on a CSV stream) or use a classifier '
                "that takes positive"
            )
        raise ModelFailed(
            f"the run of model {name!r} failed after {counted[0]} "
            f"sample{'' if counted[0] == 1 else 's'} of the stream: "
            f"{type(error).__name__}: {error}{hint}"
        ) from error
    finally:
        if bar is not None:
            bar.close()
    if seen != counted[0]:  # River reports the end only after a checkpoint has been reached
        seen = counted[0]
        read(seen)
    final = {label: metric.get() for label, metric in metrics.items()}
    return rows, final, seen


def _delayed(data, model, metric_set, step: int, delay: int, arrived=None):
    """Progressive validation with each label ``delay`` samples late, in River's
    ``simulate_qa`` order (:class:`~imbalance_stream.evaluate.delayed.DelayedLabels`, the replay's
    executor too): a sample is predicted when it arrives, and shown to ``model.observe_one`` if
    the model has one (the unlabelled arrivals a re-weighter adapts to); its label updates the
    metrics and is learned ``delay`` samples later (by an active learner only if it asked for it,
    as River's progressive validation does). ``arrived(i, y)`` is told of each sample as its turn
    comes (the stream is read a batch ahead). Yields ``{"Step": answers so far}`` every ``step``
    answers."""
    proba = isinstance(model, base.Classifier) and not metric_set.requires_labels
    predict = model.predict_proba_one if proba else model.predict_one
    observe = getattr(model, "observe_one", None)
    # River's active protocol: the prediction comes with whether the model wants the label
    active_learner = isinstance(model, ActiveLearningClassifier)
    asked: dict = {}
    answers = 0
    labels = DelayedLabels()
    data = iter(data)
    start = 0
    while True:
        chunk = list(itertools.islice(data, _BATCH))
        if not chunk:
            break
        times = np.arange(start, start + len(chunk), dtype=np.int64)
        items = [(start + k, x, y) for k, (x, y) in enumerate(chunk)]
        start += len(chunk)
        for due, (i, x, y) in labels.feed_grouped(items, times, times + delay):
            if arrived is not None:
                arrived(i, y)
            for j, x_j, y_j in due:
                answers += 1
                _answer(model, metric_set, asked.pop(j), x_j, y_j)
                if answers % step == 0:
                    yield {"Step": answers}
            # as simulate_qa does, the prediction sees a copy: a model that changes its input
            # cannot change what it learns later
            x_seen = copy.deepcopy(x)
            asked[i] = predict(x_seen) if active_learner else (predict(x_seen), True)
            if observe is not None:
                observe(x_seen)
    for j, x_j, y_j in labels.drain():
        answers += 1
        _answer(model, metric_set, asked.pop(j), x_j, y_j)
        if answers % step == 0:
            yield {"Step": answers}


#: Samples read ahead by the delayed loop: the unit of the delayed-label order's computation.
_BATCH = 1024


def _answer(model, metric_set, asked, x, y) -> None:
    """A label arrives: the metrics take the prediction made at the sample's arrival, and the
    model learns the label if it asked for it."""
    y_pred, wanted = asked
    if y_pred is not None and y_pred != {}:
        metric_set.update(y, y_pred)
    if wanted:
        model.learn_one(x, y)


def run_prequential(
    stream,
    models: Mapping[str, object],
    metrics: Mapping[str, metrics_base.Metric],
    step: int = 1000,
    n_samples: int | None = None,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    delay: int | None = None,
) -> PrequentialResult:
    """Run every model prequentially on its own fresh copy of ``stream``.

    Parameters
    ----------
    stream
        A zero-argument callable returning a fresh dataset (an iterable of ``(x, y)``), or a
        dataset, which is deep-copied for each model. For a parallel run either must pickle.
    models
        Name -> River estimator (not fitted: each run starts from ``model.clone()``).
    metrics
        Column name -> River metric, or a ``utils.Rolling`` around one (each run gets a fresh
        copy without samples).
    step
        Read the metrics every ``step`` samples (and after the last one).
    n_samples
        Evaluate at most this many samples (needed for an endless generator).
    n_jobs, scheduler
        Run the models in parallel: see :func:`~imbalance_stream.parallel.map_cells`.
    progress
        Show progress: a bar over samples for a serial run, over models for a parallel one.
    delay
        Labels arrive this many samples late (None: at once, River's usual loop). A sample is
        predicted when it arrives and, if the model has ``observe_one`` (as
        :class:`~imbalance_stream.density_ratio.ImportanceWeighted` does), shown to it unlabelled;
        the metrics and ``learn_one`` get its label ``delay`` samples later. (With ``delay``
        None such a model is still shown each arrival, then learns it at once: River's own
        ``progressive_val_score`` never calls ``observe_one``.)

    Examples
    --------

    >>> from river import datasets, linear_model, metrics, preprocessing
    >>> from imbalance_stream.evaluate.prequential import run_prequential

    >>> result = run_prequential(
    ...     datasets.Phishing(),
    ...     models={
    ...         "PA": preprocessing.StandardScaler() | linear_model.PAClassifier(),
    ...         "LogReg": preprocessing.StandardScaler() | linear_model.LogisticRegression(),
    ...     },
    ...     metrics={"BA": metrics.BalancedAccuracy(), "Recall": metrics.Recall()},
    ...     step=500,
    ... )
    >>> for row in result.table():
    ...     print(f"{row['model']:6} {row['BA']:.3f} {row['Recall']:.3f} {row['samples']}")
    PA     0.841 0.830 1250
    LogReg 0.893 0.894 1250
    >>> result.rows[:2]
    [{'model': 'PA', 'step': 500, 'metric': 'BA', 'value': 0.8...},
     {'model': 'PA', 'step': 500, 'metric': 'Recall', 'value': 0.8...}]

    """
    if not models:
        raise ValueError("run_prequential needs at least one model")
    if not metrics:
        raise ValueError("run_prequential needs at least one metric")
    if isinstance(step, bool) or not isinstance(step, int) or step < 1:
        raise ValueError(f"step must be a positive integer, got {step!r}")
    if delay is not None and (isinstance(delay, bool) or not isinstance(delay, int) or delay < 0):
        raise ValueError(f"delay must be a non-negative integer, got {delay!r}")
    parallel = scheduler is not None or (n_jobs is not None and n_jobs not in (0, 1))
    cells = [
        (name, stream, model, dict(metrics), step, n_samples, progress and not parallel, delay)
        for name, model in models.items()
    ]
    outputs = map_cells(
        _run_one,
        cells,
        n_jobs=n_jobs,
        scheduler=scheduler,
        progress=progress and parallel,
        description="models",
    )
    rows, final, counts = [], {}, {}
    for name, (model_rows, model_final, seen) in zip(models, outputs, strict=True):
        rows.extend(model_rows)
        final[name] = model_final
        counts[name] = seen
    return PrequentialResult(rows=rows, final=final, n_samples=counts)


def plot_curves(result: PrequentialResult, path: str | pathlib.Path | None = None, title: str = ""):
    """Plot every metric's curve, one panel per metric, one line per model.

    Needs matplotlib (the ``plot`` extra). Saves the figure to ``path`` when given, and returns
    it (still open: close it with ``matplotlib.pyplot.close(fig)`` when done).
    """
    import matplotlib.pyplot as plt

    names = result.metrics
    n_cols = min(3, len(names) + 1)  # one more panel for the legend
    n_rows = -(-(len(names) + 1) // n_cols)
    fig, axes = plt.subplots(n_rows, n_cols, figsize=(4.3 * n_cols, 3.2 * n_rows), squeeze=False)
    axes = axes.ravel()
    for ax, metric in zip(axes, names, strict=False):
        for model in result.final:
            points = [
                (r["step"], r["value"])
                for r in result.rows
                if r["model"] == model and r["metric"] == metric
            ]
            if points:
                steps, values = zip(*points, strict=True)
                ax.plot(steps, values, label=model)
        ax.set_title(metric)
        ax.set_xlabel("samples")
        ax.grid(alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes[len(names) :]:
        ax.axis("off")
    axes[len(names)].legend(handles, labels, loc="center", fontsize="small", frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig
