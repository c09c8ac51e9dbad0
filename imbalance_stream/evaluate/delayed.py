"""The order of predictions and late labels, computed a batch at a time.

River's :func:`river.stream.simulate_qa` interleaves a stream's questions (a sample arrives and is
predicted, at its time ``t``) with its answers (its label arrives and is learned, at its label time
``a >= t``): before each question, every answer already queued whose time is at or before the
question's comes out, in order of answer time and, on ties, of queueing (its ``bisect.insort``);
an answer is queued when its question is asked, so it comes out before a later question at the
earliest; whatever is queued when the stream ends comes out last, in the same order.

That order depends on the times alone. :class:`DelayedLabels` computes it for a batch of questions
at once (a sorted search of each answer time among the batch's question times, and one stable sort
of the answers), carrying the answers still queued into the next batch, so that a loop over a
stream costs a few array operations per batch instead of a queue operation per sample; and the
same order, given as arrays, can drive a compiled loop. ``tests/test_delayed.py`` checks it
against ``simulate_qa`` on random streams, ties, lost labels and batch boundaries.

>>> from imbalance_stream.evaluate.delayed import DelayedLabels
>>> labels = DelayedLabels()
>>> # three questions at times 0, 10, 20; their labels at 15, 10 and 20
>>> labels.feed(["a", "b", "c"], [0, 10, 20], [15, 10, 20])
[(False, 'a'), (False, 'b'), (True, 'b'), (True, 'a'), (False, 'c')]
>>> labels.drain()
['c']

The label of ``b`` (time 10) is learned before ``c`` is predicted, and before ``a``'s (time 15);
``c``'s label, due at ``c``'s own time, waits for a later question or the end of the stream.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["DelayedLabels", "answer_order", "interleave"]


class DelayedLabels:
    """The questions and answers of a stream in River's ``simulate_qa`` order, batch by batch.

    Parameters
    ----------
    queued
        ``(answer time, item)`` of answers already queued (a resumed run's pending labels), in
        the order ``simulate_qa``'s queue holds them: by answer time, then by the order their
        questions were asked.

    """

    def __init__(self, queued: Iterable[tuple[int, Any]] = ()):
        queued = list(queued)
        self._items: list = [item for _, item in queued]
        self._answer_times = np.array([when for when, _ in queued], dtype=np.int64)

    def __len__(self) -> int:
        """The number of answers queued."""
        return len(self._items)

    def feed(
        self, items: Sequence[Any], times: npt.ArrayLike, answer_times: npt.ArrayLike
    ) -> list[tuple[bool, Any]]:
        """The steps of one batch of questions, in order: ``(False, item)`` asks the question of
        ``item``; ``(True, item)`` gives its answer (see :meth:`feed_grouped`)."""
        steps: list[tuple[bool, Any]] = []
        for answers, item in self.feed_grouped(items, times, answer_times):
            steps.extend((True, answer) for answer in answers)
            steps.append((False, item))
        return steps

    def feed_grouped(
        self, items: Sequence[Any], times: npt.ArrayLike, answer_times: npt.ArrayLike
    ) -> list[tuple[list[Any], Any]]:
        """One batch of questions: ``(answers, item)`` for each item in order, ``answers`` the
        items whose answers come out just before its question.

        ``times`` are the questions' times (not decreasing, and not before the previous batch's);
        ``answer_times`` when each answer arrives (its question's time, for a label that never
        arrives and only needs its place freed). Answers not due before the batch's last question
        stay queued for the next batch, or :meth:`drain`.
        """
        n = len(items)
        m = len(self._items)
        answers = np.concatenate([self._answer_times, np.asarray(answer_times, dtype=np.int64)])
        order, emit, cut = answer_order(m, times, answers)
        pool = self._items + list(items)
        # the answers before question q are order[bounds[q]:bounds[q + 1]]
        bounds = np.searchsorted(emit[:cut], np.arange(n + 1), side="left").tolist()
        emitted = [pool[i] for i in order[:cut].tolist()]
        groups = [(emitted[bounds[q] : bounds[q + 1]], pool[m + q]) for q in range(n)]
        later = order[cut:]
        self._items = [pool[i] for i in later.tolist()]
        self._answer_times = answers[later]
        return groups

    def drain(self) -> list:
        """The answers still queued, in order (the stream has ended); the queue is then empty."""
        items = self._items
        self._items = []
        self._answer_times = self._answer_times[:0]
        return items


def answer_order(queued: int, times: npt.ArrayLike, answer_times: np.ndarray) -> tuple:
    """The order of a batch's answers, as arrays: the rule :class:`DelayedLabels` runs.

    The pool is the ``queued`` answers carried from earlier batches (in queue order) followed by
    the batch's own, one per question; ``answer_times`` holds the pool's answer times and
    ``times`` the batch's question times. Returns ``(order, emit, cut)``: the pool in the order
    its answers come out, the question each comes out before (``len(times)``: after the batch,
    still queued), aligned with ``order``, and the number that come out within the batch.
    """
    questions = np.asarray(times, dtype=np.int64)
    n = len(questions)
    # an answer comes out before the first question at or after its time, and not before the
    # question after its own
    own = np.concatenate([np.full(queued, -1, dtype=np.int64), np.arange(n, dtype=np.int64)])
    emit = np.maximum(np.searchsorted(questions, answer_times, side="left"), own + 1)
    # the queue's order: answer time, then queueing (the carried answers were queued first)
    order = np.lexsort((np.arange(queued + n), answer_times, emit))
    emit = emit[order]
    cut = int(np.searchsorted(emit, n, side="left"))
    return order, emit, cut


def interleave(queued: int, n: int, order: np.ndarray, emit: np.ndarray, cut: int) -> tuple:
    """The batch's steps in order, from :func:`answer_order`: ``(pool, is_answer)``, each step
    the pool index of its row and whether it gives the row's answer (else it asks its
    question); the answers due before question ``q`` come just before it."""
    pool = np.empty(cut + n, dtype=np.int64)
    is_answer = np.zeros(cut + n, dtype=bool)
    # answer i comes after the emit[i] questions before its own; question q after the answers
    # due at or before it
    answers_at = np.arange(cut, dtype=np.int64) + emit[:cut]
    questions_at = np.arange(n, dtype=np.int64) + np.searchsorted(
        emit[:cut], np.arange(n, dtype=np.int64), side="right"
    )
    pool[answers_at] = order[:cut]
    is_answer[answers_at] = True
    pool[questions_at] = queued + np.arange(n, dtype=np.int64)
    return pool, is_answer
