"""Docstring entries written once for several classes: each stands in a class's docstring as a
line of its own, ``    %(name)s``, and :func:`fill_docs` puts the text in its place when the
class is defined, so that ``help()``, the doctests and the docs site see each class's whole text
(the docs site reads such a docstring from the class, ``docs/_hooks/sphinx_roles.py``).

:data:`DOCS` holds the entries the estimator families of floor 2 share; a family adds its own
(``svm._gap.SHARED_DOCS``, ``density_ratio.windowed.PARAMETER_DOCS``)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TypeVar

__all__: list[str] = []

T = TypeVar("T", bound=type)

_PLACEHOLDER = re.compile(r"^    %\((\w+)\)s\n", re.MULTILINE)

#: Entries of the binary classifiers' docstrings (the linear, kernel and SVM families).
DOCS = {
    "positive": """\
    positive
        The rare label, +1 inside the model.
""",
    "intercept": """\
    intercept
        Learn a bias through a constant feature (off by default, as in the paper).
""",
    "kernel": """\
    kernel, gamma, degree, coef0
        The kernel: ``"rbf"`` ``exp(-gamma |a - b|^2)``, ``"poly"`` ``(gamma a.b + coef0)^degree``
        or ``"linear"``.
""",
    "dense_limits": """\
    Limits. Stored vectors are dense over the features, so the feature space holds at most
    65,536 features: a sample that would grow it further raises
    :class:`~imbalance_stream.base.FeatureSpaceFull` and changes nothing. A sample is learned
    whole or not at all (:class:`~imbalance_stream.base.BinaryClassifier`).
""",
    "quadratic_limits": """\
    Limits. The model keeps a dense matrix over the features, so its feature space holds at most
    4,096 features: a sample that would grow it further raises
    :class:`~imbalance_stream.base.FeatureSpaceFull` and changes nothing. A sample is learned
    whole or not at all (:class:`~imbalance_stream.base.BinaryClassifier`).
""",
}


def fill_docs(fragments: Mapping[str, str]) -> Callable[[T], T]:
    """A class decorator that puts ``fragments[name]`` in place of each ``    %(name)s`` line
    of the class's docstring; a name it lacks, or a ``%(`` left over, is an error."""

    def fill(cls: T) -> T:
        doc = cls.__doc__
        if doc is None:  # python -OO
            return cls

        def entry(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in fragments:
                raise ValueError(f"{cls.__name__}'s docstring names an entry that is not shared")
            return fragments[name]

        doc = _PLACEHOLDER.sub(entry, doc)
        if "%(" in doc:
            raise ValueError(f"{cls.__name__}'s docstring names an entry that is not shared")
        cls.__doc__ = doc
        return cls

    return fill


#: Fill the entries of :data:`DOCS`.
shared_docs = fill_docs(DOCS)
