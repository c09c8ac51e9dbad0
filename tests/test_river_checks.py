"""River's own estimator checks, run on every public estimator of the package.

Estimators are collected from the public modules' ``__all__``, so a new estimator is checked as soon
as it is exported, in every configuration of its ``_unit_test_params``. River's anomaly checks read
its CreditCard data, which is downloaded on first use and so cannot be used here: for anomaly
detectors the same checks run on River's bundled Shuttle data instead.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect

import pytest
from river import base, checks, datasets

# Every public estimator module. (``imblearn`` holds a function, not an estimator. The batch
# estimators and re-weighters of ``imbalance_stream.density_ratio`` are not River estimators and
# are skipped by ``public_estimators``; its ``ImportanceWeighted`` is one.)
MODULES = [
    "imbalance_stream.linear_model",
    "imbalance_stream.kernel",
    "imbalance_stream.svm",
    "imbalance_stream.anomaly",
    "imbalance_stream.density_ratio",
    "imbalance_stream.active",
]

_RIVER_DATASETS = checks._yield_datasets


def _datasets_with_shuttle(model, scale=1):
    if isinstance(model, base.AnomalyDetector):
        yield datasets.Shuttle().take(1000 * scale)
        return
    yield from _RIVER_DATASETS(model, scale)


@contextlib.contextmanager
def shuttle_for_anomaly_detectors():
    checks._yield_datasets = _datasets_with_shuttle
    try:
        yield
    finally:
        checks._yield_datasets = _RIVER_DATASETS


def public_estimators():
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if (
                inspect.isclass(obj)
                and issubclass(obj, base.Estimator)
                and not inspect.isabstract(obj)
            ):
                yield obj


def cases():
    with shuttle_for_anomaly_detectors():
        for estimator in public_estimators():
            for i, params in enumerate(estimator._unit_test_params()):
                model = estimator(**params)
                for check in checks.yield_checks(model):
                    if check.__name__ in model._unit_test_skips():
                        continue
                    name = f"{estimator.__name__}[{i}]-{check.__name__}"
                    yield pytest.param(model, check, id=name)


def test_every_public_module_exports_something_checkable():
    assert any(True for _ in public_estimators())


@pytest.mark.parametrize("model, check", list(cases()))
def test_river_check(model, check):
    check(model.clone())
