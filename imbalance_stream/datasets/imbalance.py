"""Imbalance schedules, and a stream wrapper that makes any labelled stream follow one.

A *schedule* gives the probability that the sample emitted at step ``t`` (``t = 0, 1, 2, ...``,
counting emitted samples) belongs to the positive class. :class:`ImbalancedStream` draws the class
of each step with that probability and takes the next sample of that class from its source,
buffering the samples of the other class. Composed with River's
:class:`~river.datasets.synth.ConceptDriftStream` (which mixes two streams), it gives streams whose
concept and class prior both drift.
"""

from __future__ import annotations

import abc
import bisect
import collections
import itertools
import math
import numbers
import random
import typing

from river.datasets import base as river_base

from . import _EXPORTS

#: The public names, listed once in the package's export table (``datasets._EXPORTS``).
__all__ = list(_EXPORTS["imbalance"])


def _check_share(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    value = float(value)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


class Schedule(abc.ABC):
    """Base class of the imbalance schedules: ``schedule(t)`` is the positive share at step ``t``.

    Schedules are small immutable value objects: they compare equal when their parameters are
    equal and print as their constructor call. (Abstract: a scenario names one of the
    subclasses, and ``imbalance-stream list`` shows only those.)

    """

    @abc.abstractmethod
    def __call__(self, t: int) -> float:
        """The positive share at step ``t``."""

    def _params(self) -> dict:
        return dict(vars(self))

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"

    def __eq__(self, other):
        return type(self) is type(other) and self._params() == other._params()

    def __hash__(self):
        return hash((type(self).__name__, tuple(self._params().items())))


class Static(Schedule):
    """A constant positive share ``p``.

    >>> Static(0.1)(0), Static(0.1)(10**6)
    (0.1, 0.1)

    """

    def __init__(self, p: float):
        self.p = _check_share("p", p)

    def __call__(self, t):
        return self.p


class Step(Schedule):
    """An abrupt change: ``before`` for ``t < at``, ``after`` from step ``at`` on.

    >>> schedule = Step(0.5, 0.05, at=1000)
    >>> schedule(999), schedule(1000)
    (0.5, 0.05)

    """

    def __init__(self, before: float, after: float, at: int):
        self.before = _check_share("before", before)
        self.after = _check_share("after", after)
        if isinstance(at, bool) or not isinstance(at, numbers.Integral) or at < 0:
            raise ValueError(f"at must be a non-negative integer, got {at!r}")
        self.at: int = int(at)

    def __call__(self, t):
        return self.before if t < self.at else self.after


class Gradual(Schedule):
    """A linear change from ``start`` (up to step ``begin``) to ``end`` (from step ``end_at`` on).

    >>> schedule = Gradual(0.5, 0.1, begin=100, end_at=300)
    >>> schedule(0), schedule(200), schedule(300), schedule(10**6)
    (0.5, 0.3, 0.1, 0.1)

    """

    def __init__(self, start: float, end: float, begin: int, end_at: int):
        self.start = _check_share("start", start)
        self.end = _check_share("end", end)
        if not (0 <= begin < end_at):
            raise ValueError(f"need 0 <= begin < end_at, got begin={begin!r}, end_at={end_at!r}")
        self.begin = int(begin)
        self.end_at = int(end_at)

    def __call__(self, t):
        if t <= self.begin:
            return self.start
        if t >= self.end_at:
            return self.end
        fraction = (t - self.begin) / (self.end_at - self.begin)
        return self.start + fraction * (self.end - self.start)


class Periodic(Schedule):
    """A share swinging between ``low`` and ``high`` with period ``period`` (in steps).

    It starts at ``low`` at ``t = phase``, reaches ``high`` half a period later and returns to
    ``low``: the rise and fall of the membership share in the dynamic-imbalance experiment of the
    DCIL seed (001, section 4.5), repeated. ``shape="triangle"`` (default) changes linearly,
    ``"sine"`` follows a raised cosine.

    >>> schedule = Periodic(0.1, 0.5, period=1000)
    >>> schedule(0), schedule(250), schedule(500), schedule(1000)
    (0.1, 0.3, 0.5, 0.1)
    >>> round(Periodic(0.1, 0.5, period=1000, shape="sine")(250), 6)
    0.3

    """

    def __init__(
        self, low: float, high: float, period: int, shape: str = "triangle", phase: int = 0
    ):
        self.low = _check_share("low", low)
        self.high = _check_share("high", high)
        if not period > 0:
            raise ValueError(f"period must be positive, got {period!r}")
        if shape not in ("triangle", "sine"):
            raise ValueError(f"shape must be 'triangle' or 'sine', got {shape!r}")
        self.period = period
        self.shape = shape
        self.phase = phase

    def __call__(self, t):
        cycle = ((t - self.phase) % self.period) / self.period  # in [0, 1)
        if self.shape == "triangle":
            rise = 1.0 - abs(2.0 * cycle - 1.0)  # 0 -> 1 -> 0
        else:
            rise = 0.5 - 0.5 * math.cos(2.0 * math.pi * cycle)
        return self.low + rise * (self.high - self.low)


class Piecewise(Schedule):
    """A piecewise-constant share: ``values[0]`` before ``at[0]``, ``values[k]`` from ``at[k-1]``
    on.

    Per-stage class shares, e.g. a stage-wise scheme like those of the DCIL thesis's Fig. 5.2
    (section 5.5), here 10 stages of 108 images with 10, 20, ..., 90, 90 members:
    ``Piecewise([m / 108 for m in members],
    at=[108 * k for k in range(1, 10)])``. :class:`Step` is the case of one change point.

    >>> schedule = Piecewise([0.1, 0.5, 0.2], at=[100, 200])
    >>> schedule(0), schedule(99), schedule(100), schedule(250)
    (0.1, 0.1, 0.5, 0.2)

    """

    def __init__(self, values: typing.Sequence[float], at: typing.Sequence[int]):
        values = tuple(_check_share(f"values[{k}]", v) for k, v in enumerate(values))
        at = tuple(int(a) for a in at)
        if len(values) != len(at) + 1:
            raise ValueError(f"need len(values) == len(at) + 1, got {len(values)} and {len(at)}")
        if any(a < 0 for a in at) or any(b <= a for a, b in itertools.pairwise(at)):
            raise ValueError(f"at must be non-negative and strictly increasing, got {at!r}")
        self.values = values
        self.at = at

    def __call__(self, t):
        return self.values[bisect.bisect_right(self.at, t)]


class _Callable(Schedule):
    def __init__(self, function):
        self.function = function

    def __call__(self, t):
        return self.function(t)


def as_schedule(ratio) -> Schedule:
    """Turn a float (static share), a :class:`Schedule` or any callable ``t -> p`` into a
    schedule."""
    if isinstance(ratio, Schedule):
        return ratio
    if isinstance(ratio, numbers.Real) and not isinstance(ratio, bool):
        return Static(float(ratio))
    if callable(ratio):
        return _Callable(ratio)
    raise TypeError(f"ratio must be a number in [0, 1], a Schedule or a callable, got {ratio!r}")


class ImbalancedStream(river_base.SyntheticDataset):
    """Resample a labelled stream so that its positive-class share follows a schedule.

    At each step ``t`` (the number of samples emitted so far) the class is drawn: positive with
    probability ``ratio(t)`` (a seeded :class:`random.Random`), negative otherwise. The next sample
    of that class is then emitted: from the buffer of that class if it holds any, else read from
    the source, buffering every sample of the other class met on the way. Labels pass through
    unchanged; ``positive`` only says which ones count as positive, so a multi-class source keeps
    its labels and all non-positive ones form the negative class.

    The source is read lazily (an infinite generator is never materialised), and each buffer holds
    at most ``buffer_size`` samples: when a class's buffer is full, its **oldest** sample is dropped
    to make room, so memory stays bounded even when the schedule asks for one class for a long time.
    When a drawn class has no sample left (source exhausted, buffer empty) the stream stops, unless
    ``replace=True``: then it draws uniformly, with replacement, from a reservoir sample (of at most
    ``buffer_size`` samples per class) of everything seen of that class, and it stops only if that
    class was never seen at all. ``n_samples`` caps the length.

    Iterating twice gives the same stream when ``seed`` is set and the source is re-iterable and
    deterministic (a River dataset, a list); a one-shot iterator can be consumed only once.

    Parameters
    ----------
    source
        Any iterable of ``(x, y)`` pairs: a River dataset or generator, a list, a generator object.
    ratio
        The positive share: a float in [0, 1] (static), a :class:`Schedule` (:class:`Static`,
        :class:`Step`, :class:`Gradual`, :class:`Periodic`, :class:`Piecewise`) or any callable
        ``t -> p``.
    positive
        The positive label of the source, or a callable ``y -> bool``.
    n_samples
        Maximum number of samples to emit; ``None`` for no cap.
    seed
        Seed of the class draws (and of the reservoir sampling when ``replace=True``).
    replace
        After the source is exhausted, resample from what was seen instead of stopping.
    buffer_size
        Capacity of each class's buffer (and reservoir).
    patience
        How many consecutive source samples of the other class may be read while looking for
        the drawn class before giving up with a :class:`RuntimeError` (usually ``positive`` does
        not match any label of the source, which would otherwise read an infinite generator
        forever). ``None`` waits without limit.

    Attributes
    ----------
    schedule
        The schedule built from ``ratio``.

    Examples
    --------
    The German credit data has 30% positives; a stream with 10% of them:

    >>> from imbalance_stream.datasets import German, ImbalancedStream, Step
    >>> stream = ImbalancedStream(German(), ratio=0.1, seed=42)
    >>> labels = [y for _, y in stream]
    >>> len(labels), sum(labels)
    (773, 73)

    The stream stops when the negatives run out (700 of them). A River generator, with an abrupt
    change of the class prior after 2,000 samples:

    >>> from river.datasets import synth
    >>> stream = ImbalancedStream(
    ...     synth.Agrawal(seed=1), ratio=Step(0.5, 0.02, at=2000), positive=1, n_samples=4000,
    ...     seed=7,
    ... )
    >>> labels = [y for _, y in stream]
    >>> sum(labels[:2000]), sum(labels[2000:])
    (1030, 36)

    Concept and prior drifting together: River's ``ConceptDriftStream`` takes two streams with the
    same ``n_features`` and reads their ``task``, ``n_classes``, ``n_outputs`` and ``n_samples``,
    which an ``ImbalancedStream`` carries over from its source. Each inner stream's step ``t``
    counts the samples *it* has emitted, not the position in the mixed stream (the drift stream's
    schedule starts at ``t = 0`` when it is first drawn from, around ``position``):

    >>> drifting = synth.ConceptDriftStream(
    ...     stream=ImbalancedStream(synth.SEA(seed=1, variant=0), ratio=0.5, seed=1),
    ...     drift_stream=ImbalancedStream(synth.SEA(seed=2, variant=2), ratio=0.05, seed=2),
    ...     position=1000, width=100, seed=3,
    ... )
    >>> labels = [y for _, y in drifting.take(2000)]
    >>> sum(labels[:900]), sum(labels[1100:])
    (423, 44)

    """

    source: typing.Iterable
    positive: typing.Any
    schedule: Schedule

    def __init__(
        self,
        source: typing.Iterable,
        ratio,
        positive=True,
        n_samples: int | None = None,
        seed: int | None = None,
        replace: bool = False,
        buffer_size: int = 10_000,
        patience: int | None = 1_000_000,
    ):
        if n_samples is not None and (
            isinstance(n_samples, bool)
            or not isinstance(n_samples, numbers.Integral)
            or n_samples < 0
        ):
            raise ValueError(f"n_samples must be a non-negative integer or None, got {n_samples!r}")
        if not (isinstance(buffer_size, numbers.Integral) and buffer_size >= 1):
            raise ValueError(f"buffer_size must be a positive integer, got {buffer_size!r}")
        super().__init__(
            task=getattr(source, "task", river_base.BINARY_CLF),
            n_features=getattr(source, "n_features", None),
            n_samples=n_samples,
            n_classes=getattr(source, "n_classes", None),
            n_outputs=getattr(source, "n_outputs", None),
            sparse=getattr(source, "sparse", False),
        )
        self.source = source
        self.ratio = ratio
        self.schedule = as_schedule(ratio)
        self.positive = positive
        self.seed: int | None = seed
        self.replace: bool = replace
        self.buffer_size: int = int(buffer_size)
        if patience is not None and not (isinstance(patience, numbers.Integral) and patience >= 1):
            raise ValueError(f"patience must be a positive integer or None, got {patience!r}")
        self.patience: int | None = patience

    def _get_params(self) -> dict[str, typing.Any]:
        params = super()._get_params()
        # One line per parameter: a dataset's repr spans many lines, its class name suffices.
        params["source"] = type(self.source).__name__
        return params

    def _is_positive(self, y) -> bool:
        if callable(self.positive):
            return bool(self.positive(y))
        return y == self.positive

    def _share(self, t: int) -> float:
        p = self.schedule(t)
        try:
            p = float(p)
        except (TypeError, ValueError):
            raise TypeError(
                f"the ratio schedule returned {p!r} at step {t}, not a number"
            ) from None
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"the ratio schedule returned {p!r} at step {t}, outside [0, 1]")
        return p

    def __iter__(self):
        rng = random.Random(self.seed)
        source = iter(self.source)
        size = self.buffer_size
        buffers: tuple[collections.deque, collections.deque] = (
            collections.deque(maxlen=size),
            collections.deque(maxlen=size),
        )  # neg, pos
        reservoirs: tuple[list, list] = ([], [])
        seen = [0, 0]
        exhausted = False
        t = 0
        while self.n_samples is None or t < self.n_samples:
            wanted = int(rng.random() < self._share(t))
            sample = None
            if buffers[wanted]:
                sample = buffers[wanted].popleft()
            else:
                waited = 0
                while not exhausted:
                    try:
                        x, y = next(source)
                    except StopIteration:
                        exhausted = True
                        break
                    label = int(self._is_positive(y))
                    if self.replace:  # reservoir sampling (algorithm R) of each class
                        seen[label] += 1
                        if len(reservoirs[label]) < size:
                            reservoirs[label].append((x, y))
                        else:
                            slot = rng.randrange(seen[label])
                            if slot < size:
                                reservoirs[label][slot] = (x, y)
                    if label == wanted:
                        sample = (x, y)
                        break
                    buffers[label].append((x, y))
                    waited += 1
                    if self.patience is not None and waited >= self.patience:
                        kind = "positive" if wanted else "negative"
                        raise RuntimeError(
                            f"read {waited} samples in a row without a {kind} one (positive="
                            f"{self.positive!r}); check that `positive` matches the source's labels"
                        )
                if sample is None and self.replace and reservoirs[wanted]:
                    x, y = reservoirs[wanted][rng.randrange(len(reservoirs[wanted]))]
                    sample = (dict(x) if isinstance(x, dict) else x), y  # a fresh dict per step
            if sample is None:
                return
            yield sample
            t += 1
