"""Checks of constructor parameters, one message style for every estimator.

Each check returns the value it accepted (as a plain Python ``float``, ``int`` or the choice) and
raises :class:`InvalidParameter` (both a ``ValueError`` and a ``TypeError``, as scikit-learn's
parameter errors are, so either ``except`` catches it) whose message names the parameter, says what
is allowed and shows what was given:

>>> from imbalance_stream.base.validation import check_choice, check_int, check_real
>>> check_real("eta", 0.5, low=0.0, low_open=True)
0.5
>>> check_real("eta", float("inf"), low=0.0, low_open=True)
Traceback (most recent call last):
...
imbalance_stream.base.validation.InvalidParameter: eta must be a finite real number > 0, got inf
>>> import numpy as np
>>> check_int("degree", np.int64(2), low=1)
2
>>> check_int("budget", True, low=1)
Traceback (most recent call last):
...
imbalance_stream.base.validation.InvalidParameter: budget must be an integer >= 1, got True (bool)
>>> check_choice("loss", "III", ("I", "II"))
Traceback (most recent call last):
...
imbalance_stream.base.validation.InvalidParameter: loss must be one of 'I', 'II', got 'III'

Rules, the same everywhere: reals are finite unless ``finite=False`` (then ``inf`` passes but NaN
never does); integers accept Python and numpy integers and refuse ``bool`` and floats, even
integral ones (``2.0``); ``None`` passes only with ``optional=True``.
"""

from __future__ import annotations

import difflib
import math
import numbers
from collections.abc import Sequence
from typing import Any, Literal, TypedDict, Unpack, overload

import numpy as np

__all__ = [
    "InvalidParameter",
    "check_bool",
    "check_choice",
    "check_int",
    "check_real",
    "did_you_mean",
]


class InvalidParameter(ValueError, TypeError):
    """A constructor parameter out of its range or of the wrong kind; the message names it."""


def _bounds(low, high, low_open: bool, high_open: bool) -> str:
    parts = []
    if low is not None:
        parts.append(f"{'>' if low_open else '>='} {low:g}")
    if high is not None:
        parts.append(f"{'<' if high_open else '<='} {high:g}")
    return " " + " and ".join(parts) if parts else ""


def _shown(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Number):
        return f"{value!r} ({type(value).__name__})"
    return repr(value)


def _in_bounds(value, low, high, low_open: bool, high_open: bool) -> bool:
    if low is not None and (value <= low if low_open else value < low):
        return False
    return not (high is not None and (value >= high if high_open else value > high))


class _RealBounds(TypedDict, total=False):
    """The bounds :func:`check_real` takes, written once for its two overloads."""

    low: float | None
    high: float | None
    low_open: bool
    high_open: bool
    finite: bool


@overload
def check_real(
    name: str, value, *, optional: Literal[False] = ..., **bounds: Unpack[_RealBounds]
) -> float: ...


@overload
def check_real(
    name: str, value, *, optional: bool, **bounds: Unpack[_RealBounds]
) -> float | None: ...


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    finite: bool = True,
    optional: bool = False,
) -> float | None:
    """``value`` as a ``float`` if it is a real number within the bounds, else raise.

    ``low`` / ``high`` are inclusive unless ``low_open`` / ``high_open``. Python and numpy reals
    pass; ``bool``, strings, complex numbers and NaN never do.
    """
    if value is None and optional:
        return None
    kind = "a finite real number" if finite else "a real number"
    what = ("None or " if optional else "") + kind + _bounds(low, high, low_open, high_open)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise InvalidParameter(f"{name} must be {what}, got {_shown(value)}")
    real = float(value)
    if math.isnan(real) or (finite and math.isinf(real)):
        raise InvalidParameter(f"{name} must be {what}, got {value!r}")
    if not _in_bounds(real, low, high, low_open, high_open):
        raise InvalidParameter(f"{name} must be {what}, got {value!r}")
    return real


@overload
def check_int(
    name: str,
    value,
    *,
    low: int | None = ...,
    high: int | None = ...,
    optional: Literal[False] = ...,
) -> int: ...


@overload
def check_int(
    name: str, value, *, low: int | None = ..., high: int | None = ..., optional: bool
) -> int | None: ...


def check_int(
    name: str, value, *, low: int | None = None, high: int | None = None, optional: bool = False
) -> int | None:
    """``value`` as an ``int`` if it is an integer (Python or numpy, not ``bool``) within the
    inclusive bounds, else raise."""
    if value is None and optional:
        return None
    what = ("None or " if optional else "") + "an integer" + _bounds(low, high, False, False)
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise InvalidParameter(f"{name} must be {what}, got {_shown(value)}")
    integer = int(value)
    if not _in_bounds(integer, low, high, False, False):
        raise InvalidParameter(f"{name} must be {what}, got {value!r}")
    return integer


def check_seed(seed) -> int | None:
    """A ``seed`` for numpy's ``default_rng``: None or a non-negative integer, checked when the
    estimator is built (not at its first random draw, after a sample may have changed it)."""
    return check_int("seed", seed, low=0, optional=True)


def check_choice(name: str, value, choices: Sequence, *, optional: bool = False):
    """``value`` if it is one of ``choices`` (compared with ``==``, strings only to strings)."""
    if value is None and optional:
        return None
    for choice in choices:
        # strings match only strings, and an array's elementwise == never counts as a match
        if (
            isinstance(choice, str) == isinstance(value, str)
            and not isinstance(value, np.ndarray)
            and value == choice
        ):
            return choice
    listed = ", ".join(repr(c) for c in choices)
    prefix = "None or " if optional else ""
    raise InvalidParameter(f"{name} must be {prefix}one of {listed}, got {value!r}")


def check_bool(name: str, value) -> bool:
    """``value`` if it is ``True`` or ``False`` (numpy booleans too), else raise."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise InvalidParameter(f"{name} must be True or False, got {_shown(value)}")


def did_you_mean(word: str, candidates, prefix: str = "") -> str:
    """``"; did you mean 'x'?"`` naming up to three of ``candidates`` close to ``word`` (a
    misspelling, or the same letters in another case), each after ``prefix``; ``""`` when none
    is close. The one rule behind the unknown-name errors of scenario files, specs, replays and
    `data fetch`."""
    names = [str(c) for c in candidates]
    close = difflib.get_close_matches(word, names, n=3, cutoff=0.6)
    if not close:
        lowered = {c.lower(): c for c in names}
        close = [lowered[c] for c in difflib.get_close_matches(word.lower(), lowered, n=3)]
    if not close:
        return ""
    return "; did you mean " + " or ".join(repr(prefix + c) for c in close) + "?"
