"""Old public names and parameter names kept after a rename, with a ``DeprecationWarning``.

A package lists its old names and where each now lives, and makes the list its module
``__getattr__``; the old name then still imports, warns once per use site, and gives the new object:

>>> import warnings
>>> from imbalance_stream import linear_model
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = linear_model.CPAPB
>>> old is linear_model.CPA
True
>>> print(caught[0].message)
imbalance_stream.linear_model.CPAPB is deprecated and will be removed in 0.3:
use imbalance_stream.linear_model.CPA

A renamed parameter: :func:`renamed_parameters` wraps the constructor (or function), which then
takes the old keyword too, warns naming the new one and passes the value on under it; the
signature (what River's ``clone`` and ``_get_params`` read) has the new name, and
``**kwargs`` for the old ones. A renamed
fitted attribute stays readable through :func:`renamed_attribute`:

>>> class Ridge:
...     @renamed_parameters(lambda_="ridge")
...     def __init__(self, ridge=None):
...         self.ridge = ridge
...     lambda_chosen_ = renamed_attribute("lambda_chosen_", "ridge")
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old = Ridge(lambda_=0.1)
>>> old.ridge
0.1
>>> print(caught[0].message)
Ridge: the parameter lambda_ is deprecated and will be removed in 0.4: use ridge
>>> import inspect
>>> print(inspect.signature(Ridge))
(ridge=None, **kwargs)

"""

from __future__ import annotations

import functools
import importlib
import inspect
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "PARAMETERS_REMOVED_IN",
    "REMOVED_IN",
    "deprecated_aliases",
    "renamed_attribute",
    "renamed_parameters",
]

#: The release that drops the aliases.
REMOVED_IN = "0.3"

#: The release that drops the old spellings of renamed parameters and attributes.
PARAMETERS_REMOVED_IN = "0.4"

F = TypeVar("F", bound=Callable[..., Any])


def deprecated_aliases(
    module: str, aliases: dict[str, str], stacklevel: int = 2
) -> Callable[[str], object]:
    """A module ``__getattr__`` that resolves ``aliases`` (old name -> ``"package:NewName"``);
    ``stacklevel`` 3 when a module's own ``__getattr__`` calls it, so that the warning still names
    the line that used the old name."""

    def __getattr__(name: str) -> object:
        try:
            target = aliases[name]
        except KeyError:
            raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
        package, _, new_name = target.partition(":")
        warnings.warn(
            f"{module}.{name} is deprecated and will be removed in {REMOVED_IN}: "
            f"use {package}.{new_name}",
            DeprecationWarning,
            stacklevel=stacklevel,
        )
        return getattr(importlib.import_module(package), new_name)

    return __getattr__


def renamed_parameters(**renames: str) -> Callable[[F], F]:
    """Decorate a constructor (or a function) whose keyword parameters were renamed,
    ``old="new"``: a call with an old keyword warns (a ``DeprecationWarning`` naming the new one)
    and passes its value on under the new name; a call with both raises ``TypeError``, and an
    unknown keyword the ``TypeError`` of the function itself. The wrapper's signature is that of
    the function followed by ``**kwargs`` (the old names), which no attribute holds: River's
    ``clone`` and ``_get_params`` see the new names alone, and a check of keywords against the
    signature (a scenario's parameters) lets the old ones through to the warning."""

    def decorate(function: F) -> F:
        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            for old, new in renames.items():
                if old in kwargs:
                    if new in kwargs:
                        raise TypeError(f"{old} and {new} are one parameter: give only {new}")
                    owner = function.__qualname__.removesuffix(".__init__")
                    warnings.warn(
                        f"{owner}: the parameter {old} is deprecated and will be removed in "
                        f"{PARAMETERS_REMOVED_IN}: use {new}",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        # the new names, then the old ones as ``**kwargs``: what reads the signature to check a
        # spec's keywords (the scenarios' registry) lets an old one through to the warning, and
        # River passes over ``**kwargs`` in a repr and finds no attribute of that name in
        # ``_get_params``, so it lists no parameter
        signature = inspect.signature(function)
        old = inspect.Parameter("kwargs", inspect.Parameter.VAR_KEYWORD)
        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[*signature.parameters.values(), old]
        )
        wrapper.renamed_parameters = dict(renames)  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return decorate


def renamed_attribute(old: str, new: str) -> property:
    """A read-only property ``old`` that warns (naming ``new``) and returns ``new``: a renamed
    fitted attribute kept readable until :data:`PARAMETERS_REMOVED_IN`."""

    def getter(self) -> Any:
        warnings.warn(
            f"{type(self).__name__}.{old} is deprecated and will be removed in "
            f"{PARAMETERS_REMOVED_IN}: use {new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(self, new)

    return property(getter, doc=f"Deprecated: use ``{new}``.")
