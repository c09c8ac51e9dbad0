"""A novelty-detection stream from a labelled data set: a class that appears, a class that grows."""

from __future__ import annotations

import collections
import random
import typing

from river.datasets import base as river_base

__all__ = ["NoveltyStream"]


class NoveltyStream(river_base.SyntheticDataset):
    """A stream in which one class appears part way (emerging novelty) and another, rare until
    then, grows denser (evolving novelty), built from a labelled multi-class data set.

    The source's samples are grouped by class and shuffled with ``seed``. At each step ``t`` a
    group is drawn: before ``emerge_at``, the ``evolving`` class with probability
    ``evolving_before`` and a normal class otherwise (the ``emerging`` class never); from
    ``emerge_at`` on, the ``emerging`` and the ``evolving`` class with probability
    ``novelty_rate / 2`` each. The next sample of the drawn group is emitted with the label
    ``True`` when it is a novelty (an ``emerging`` or ``evolving`` sample from ``emerge_at`` on)
    and ``False`` otherwise: the evolving class's thin early presence is part of the normal
    behaviour, its later surge is the novelty. Every other class is normal, its samples mixed in
    the shuffled order. The stream stops when the drawn group has no sample left, or after
    ``n_samples``.

    Parameters
    ----------
    source
        A finite iterable of ``(x, y)`` pairs with several classes (read once, into memory).
    emerging
        The label of the class that appears at ``emerge_at``.
    evolving
        The label of the class that grows denser at ``emerge_at``; None for none.
    emerge_at
        The step at which the novelties start.
    novelty_rate
        The share of novelties from ``emerge_at`` on (1-5 % for a rare-event stream).
    evolving_before
        The share of the ``evolving`` class before ``emerge_at``.
    n_samples
        Most samples to emit; None until a group runs out.
    seed
        Seed of the shuffles and the draws: iterating twice gives the same stream.

    Examples
    --------

    >>> from river import datasets
    >>> from imbalance_stream.datasets import NoveltyStream
    >>> segments = list(datasets.ImageSegments())  # 7 classes, 2,310 samples
    >>> stream = NoveltyStream(segments, emerging="grass", evolving="sky", emerge_at=1000,
    ...                        novelty_rate=0.05, evolving_before=0.005, seed=1)
    >>> labels = [y for _, y in stream]
    >>> len(labels), sum(labels[:1000]), sum(labels[1000:])
    (1684, 0, 32)

    """

    def __init__(
        self,
        source: typing.Iterable,
        emerging,
        evolving=None,
        emerge_at: int = 1000,
        novelty_rate: float = 0.02,
        evolving_before: float = 0.002,
        n_samples: int | None = None,
        seed: int | None = None,
    ):
        if not 0.0 <= novelty_rate <= 1.0 or not 0.0 <= evolving_before <= 1.0:
            raise ValueError("novelty_rate and evolving_before must be shares in [0, 1]")
        if emerging == evolving:
            raise ValueError("emerging and evolving must be two different classes")
        samples = list(source)
        labels = {y for _, y in samples}
        for role, label in (("emerging", emerging), ("evolving", evolving)):
            if label is not None and label not in labels:
                raise ValueError(f"{role} class {label!r} is not a label of the source")
        first = samples[0][0] if samples else {}
        super().__init__(task=river_base.BINARY_CLF, n_features=len(first), n_samples=n_samples)
        self.samples = samples
        self.emerging = emerging
        self.evolving = evolving
        self.emerge_at = emerge_at
        self.novelty_rate = novelty_rate
        self.evolving_before = evolving_before
        self.seed = seed

    def _groups(self, rng: random.Random) -> dict:
        groups: dict = collections.defaultdict(list)
        for x, y in self.samples:
            role = (
                "emerging" if y == self.emerging else "evolving" if y == self.evolving else "normal"
            )
            groups[role].append(x)
        for members in groups.values():
            rng.shuffle(members)
        return {role: collections.deque(members) for role, members in groups.items()}

    def _draw(self, t: int, rng: random.Random) -> str:
        u = rng.random()
        if t < self.emerge_at:
            evolving = self.evolving_before if self.evolving is not None else 0.0
            return "evolving" if u < evolving else "normal"
        half = self.novelty_rate / 2 if self.evolving is not None else self.novelty_rate
        if u < half:
            return "emerging"
        if self.evolving is not None and u < 2 * half:
            return "evolving"
        return "normal"

    def __iter__(self):
        rng = random.Random(self.seed)
        groups = self._groups(rng)
        t = 0
        while self.n_samples is None or t < self.n_samples:
            role = self._draw(t, rng)
            if not groups.get(role):
                return
            yield groups[role].popleft(), role != "normal" and t >= self.emerge_at
            t += 1
