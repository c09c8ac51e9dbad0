"""Class labels: what may be one, what a model can learn, and the errors that name a label it
cannot take. The label handling of :class:`~imbalance_stream.base.BinaryClassifier` and of the
wrappers, which must refuse a label before they change anything.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence

import numpy as np
from river import base

from .composition import last_step
from .validation import InvalidParameter

__all__ = [
    "CodedLabels",
    "UnknownLabel",
    "check_label",
    "check_label_for",
    "check_positive",
    "third_label",
]


class UnknownLabel(ValueError):
    """A label that a model cannot take: a third label of a binary model, or a value that is no
    class label at all (None, NaN, an infinite number, an array or another unhashable value)."""


class CodedLabels(Sequence):
    """Labels given as codes into a table: ``labels[t]`` is ``table[codes[t]]``. A replay's
    labels come this way (each row's code into the log's labels, each model's prediction's into
    the labels it can predict), so that
    :meth:`~imbalance_stream.base.BinaryClassifier.run_steps` checks each distinct label once
    rather than each of a million steps' labels, and the metrics count pairs of codes."""

    __slots__ = ("codes", "table")

    def __init__(self, codes: np.ndarray, table: Sequence):
        self.codes = codes
        self.table = table

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, t):
        if isinstance(t, slice):
            return CodedLabels(self.codes[t], self.table)
        return self.table[self.codes[t]]

    def __iter__(self):
        return map(self.table.__getitem__, self.codes.tolist())

    def distinct(self, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(codes, where)`` for the labels at the positions ``at``: their distinct codes in
        increasing order, and where each label's code stands among them (as ``np.unique``'s
        ``return_inverse`` gives, by counting over the few codes a table has, not by sorting)."""
        codes = self.codes[at]
        if len(codes) == 0:
            return codes[:0], codes[:0]
        low = int(codes.min())
        seen = np.zeros(int(codes.max()) - low + 1, dtype=bool)
        seen[codes - low] = True
        return np.flatnonzero(seen) + low, (np.cumsum(seen) - 1)[codes - low]


#: What :func:`check_label` accepts, said in each of its refusals.
_CLASS_LABEL = "a class label is a hashable scalar that equals itself, such as 'fraud', 0 or True"


def check_label(y):
    """``y`` if it can be a class label, else raise :class:`UnknownLabel` naming it.

    A class label is a hashable scalar that equals itself: ``None``, NaN (which equals nothing,
    so every NaN would be a new class), arrays, lists and other unhashable values are refused,
    and so are infinite numbers (a label computed by a division gone wrong, never a class; a
    model that scans its state for overflows would take one for an overflow).

    >>> check_label("spam"), check_label(0), check_label(True)
    ('spam', 0, True)
    >>> check_label(float("nan"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    imbalance_stream.base.labels.UnknownLabel: label nan is not a class label (NaN equals no ...
    >>> check_label(float("-inf"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    imbalance_stream.base.labels.UnknownLabel: label -inf is not a class label (it is infinite; ...
    """
    if y is None:
        raise UnknownLabel(f"label is None; give every sample a class label ({_CLASS_LABEL})")
    try:
        hash(y)
    except TypeError:
        raise UnknownLabel(
            f"label {y!r} is not a class label ({type(y).__name__} is not hashable; {_CLASS_LABEL})"
        ) from None
    if y != y:
        raise UnknownLabel(
            f"label {y!r} is not a class label (NaN equals no label; {_CLASS_LABEL})"
        )
    if isinstance(y, numbers.Real) and math.isinf(y):
        raise UnknownLabel(f"label {y!r} is not a class label (it is infinite; {_CLASS_LABEL})")
    return y


#: The labels a River binary classifier learns (``_multiclass`` False: its linear models, ...):
#: True and False, which 1 / 0 and 1.0 / 0.0 equal.
RIVER_BINARY_LABELS = (False, True)


def check_label_for(model, y):
    """``y`` if ``model`` can learn it, else raise :class:`UnknownLabel` naming it; changes
    nothing. The one rule of the wrappers, which must refuse a label before they change anything
    (the inner model would refuse it too late, or not at all):

    * a model (a pipeline's last step) with ``check_label_one`` decides itself: this package's
      binary classifiers (``positive`` and the first other label learned) and wrappers;
    * a River binary classifier (``_multiclass`` False) learns True and False only, also written
      1 / 0 or 1.0 / 0.0 (equal to them): a text label would reach its ``int(y)``, and 2 would
      be learned as a meaningless target;
    * any other model (multi-class) takes every class label (:func:`check_label`).

    >>> from river import linear_model
    >>> check_label_for(linear_model.LogisticRegression(), 1.0)
    1.0
    >>> check_label_for(linear_model.LogisticRegression(), 2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    imbalance_stream.base.labels.UnknownLabel: label 2 is not a class of LogisticRegression: ...
    """
    final = last_step(model)
    check_label_one = getattr(final, "check_label_one", None)
    if check_label_one is not None:
        check_label_one(y)
        return y
    check_label(y)
    if (
        isinstance(final, base.Classifier)
        and not final._multiclass
        and y not in RIVER_BINARY_LABELS
    ):
        raise UnknownLabel(
            f"label {y!r} is not a class of {type(final).__name__}: River's binary "
            "classifiers learn True/False (or 1/0); for more classes wrap it in "
            "river.multiclass.OneVsRestClassifier"
        )
    return y


def check_positive(positive):
    """``positive`` if it can name the rare class (a label :func:`check_label` accepts), else
    raise :class:`~imbalance_stream.base.validation.InvalidParameter`."""
    try:
        check_label(positive)
    except UnknownLabel:
        raise InvalidParameter(
            f"positive must be the rare class's label, a hashable scalar such as 'fraud' or 1; "
            f"got {positive!r}"
        ) from None
    return positive


def third_label(model: str, label, positive, negative) -> UnknownLabel:
    """The error of a binary model shown a label that is neither of its two, with the likely fix.

    >>> print(third_label("ACOG", "legit", True, "phish"))  # doctest: +ELLIPSIS
    label 'legit' is neither ...; name the rare one of your labels: ACOG(positive='phish') or ...
    >>> print(third_label("ACOG", True, "sky", False))  # doctest: +ELLIPSIS
    label True ...; River's multi-class wrappers pass True/False: leave positive at True inside them
    """
    message = (
        f"label {label!r} is neither the positive label {positive!r} nor the negative label "
        f"{negative!r}; "
    )
    if isinstance(label, bool) and not isinstance(positive, (bool, int)):
        return UnknownLabel(
            message + "River's multi-class wrappers pass True/False: leave positive at True "
            "inside them"
        )
    more = (
        f"{model} is a binary classifier: for more classes wrap it in "
        "river.multiclass.OneVsRestClassifier"
    )
    if positive is True and not isinstance(label, (bool, int)):  # text labels, default positive
        return UnknownLabel(
            message + f"name the rare one of your labels: {model}(positive={negative!r}) or "
            f"{model}(positive={label!r}) ({more})"
        )
    return UnknownLabel(message + f"({more})")


#: Label types that :func:`check_label` always accepts (hashable, and equal to themselves), so
#: the per-sample path skips the call for them.
PLAIN_LABELS = frozenset((bool, int, str))
