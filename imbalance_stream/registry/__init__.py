"""Resolve class names to River estimators, metrics and datasets, and build objects from specs.

Scenario files name everything by text. This module turns that text into objects without ``eval``:
a dotted name such as ``"river.linear_model.LogisticRegression"`` is imported only when its first
component is on an allow-list (``imbalance_stream`` and ``river``), walked with ``getattr``, and
accepted only if the result is a class of the expected kind (a River estimator, a River metric, a
River dataset, an imbalance schedule of :mod:`imbalance_stream.datasets`, or a re-weighter or batch
learner of :mod:`imbalance_stream.density_ratio`). This package's public
classes also answer to their short name (``"ACOG"``).

A *spec* is what a scenario writes for an object:

* a string: a class name, built with its defaults, ``"river.preprocessing.StandardScaler"``;
* a table ``{class = "...", params = {...}}``: the class built with those keyword arguments. A
  parameter whose value is itself a spec (a table with a ``class`` key, or a list whose items are
  all spec tables or estimator class names) is built first, so wrappers nest:
  ``{class = "river.imblearn.RandomUnderSampler", params = {classifier =
  {class = "river.linear_model.LogisticRegression"}}}``. A lone string parameter stays a string;
* a list of specs: a River pipeline, ``a | b | c``.

A metric may also be River's ``utils.Rolling`` around a metric class, which then measures the last
``window_size`` samples only: ``{class = "river.utils.Rolling", params = {cls =
"river.metrics.BalancedAccuracy", window_size = 1000}}``. ``cls`` names the metric's class (or is
a ``{class, params}`` table whose params go to the metric); Rolling's other parameters are passed
on to the metric too, as River does (``pos_val = true``).

TOML keys are always strings, but some River parameters are dicts keyed by *labels*
(``desired_dist = {true = 0.5, false = 0.5}`` for ``RandomUnderSampler``). In a dict-valued
parameter (a table without a ``class`` key) the keys ``"true"`` and ``"false"`` become the booleans
and integer strings such as ``"0"`` or ``"-1"`` become ints; other keys stay strings.

>>> from imbalance_stream.registry import build, resolve
>>> resolve("river.metrics.BalancedAccuracy", kind="metric")
<class 'river.metrics.balanced_accuracy.BalancedAccuracy'>
>>> resolve("ACOG")
<class 'imbalance_stream.linear_model.acog.ACOG'>
>>> build([
...     "river.preprocessing.StandardScaler",
...     {"class": "ACOG", "params": {"covariance": "full", "eta": 0.5}},
... ])
Pipeline (
  StandardScaler (
    with_std=True
    window_size=None
  ),
  ACOG (
    loss="II"
    covariance="full"
    rho=None
    eta=0.5
    gamma=1.
    positive=True
    intercept=False
  )
)
>>> resolve("os.system")
Traceback (most recent call last):
...
imbalance_stream.registry.SpecError: 'os.system' is outside the allowed modules: ...

"""

from __future__ import annotations

from ._build import build
from ._build import is_spec_value as is_spec_value
from ._limits import CAPS_VARIABLE as CAPS_VARIABLE
from ._limits import MAX_GENERATED_FEATURES as MAX_GENERATED_FEATURES
from ._limits import SIZE_CAPS, check_size
from ._limits import size_caps as size_caps
from ._names import ALLOWED_PREFIXES, KINDS, SpecError, aliases, kind_of, resolve
from ._names import scan as scan
from ._names import write_catalog as write_catalog

__all__ = [
    "ALLOWED_PREFIXES",
    "KINDS",
    "SIZE_CAPS",
    "SpecError",
    "aliases",
    "build",
    "check_size",
    "kind_of",
    "resolve",
]

# The public classes and functions are this module's, wherever they are written: documented
# here, named so in tracebacks (``imbalance_stream.registry.SpecError: ...``) and in pickles.
for _public in (SpecError, aliases, build, check_size, kind_of, resolve):
    _public.__module__ = __name__
