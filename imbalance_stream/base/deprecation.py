"""Old public names kept for one release after a rename, with a ``DeprecationWarning``.

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

"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable

__all__ = ["REMOVED_IN", "deprecated_aliases"]

#: The release that drops the aliases.
REMOVED_IN = "0.3"


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
