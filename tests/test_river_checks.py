"""River's own estimator checks, run on every public estimator of the package.

Estimators are collected from the public modules' ``__all__``, so a new estimator is checked as soon
as it is exported, in every configuration of its ``_unit_test_params``. The checks come from
``imbalance_stream.utils.yield_checks``, which gives River's checks with River's bundled datasets
in place of the ones it downloads (Shuttle for CreditCard, read by the anomaly checks): every test
here runs with the network shut and an empty River data home.
"""

from __future__ import annotations

import importlib
import inspect
import socket

import pytest
from river import anomaly, base

from imbalance_stream.utils import check_estimator, yield_checks

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
    for estimator in public_estimators():
        for i, params in enumerate(estimator._unit_test_params()):
            model = estimator(**params)
            for check in yield_checks(model):
                if check.__name__ in model._unit_test_skips():
                    continue
                name = f"{estimator.__name__}[{i}]-{check.__name__}"
                yield pytest.param(model, check, id=name)


def _no_network(*args, **kwargs):
    raise OSError("the network is shut for River's checks")


@pytest.fixture(autouse=True)
def offline(monkeypatch, tmp_path):
    """No name lookups, no connections, and a River data home with nothing downloaded in it."""
    monkeypatch.setattr(socket, "getaddrinfo", _no_network)
    monkeypatch.setattr(socket.socket, "connect", _no_network)
    monkeypatch.setenv("RIVER_DATA", str(tmp_path / "river_data"))


def test_every_public_module_exports_something_checkable():
    assert any(True for _ in public_estimators())


@pytest.mark.parametrize("model, check", list(cases()))
def test_river_check(model, check):
    check(model.clone())


def test_the_network_is_shut():
    # what River's checks meet on an anomaly detector without the substitution
    from river import datasets

    with pytest.raises(OSError):
        next(iter(datasets.CreditCard()))


class _Marking(base.AnomalyDetector):
    """A detector whose ``score_one`` writes into its input: River's purity check refuses it."""

    def learn_one(self, x):
        pass

    def score_one(self, x):
        x["scored"] = 1.0
        return 0.0


class _Forgetful(base.AnomalyDetector):
    """A detector that forgets each feature it scores: a KeyError, not a failed assert, follows."""

    def __init__(self):
        self.names = set()

    def learn_one(self, x):
        self.names |= set(x)

    def score_one(self, x):
        return float(len({name: self.names.remove(name) for name in x}))


def test_check_estimator_runs_river_detectors_and_names_a_failed_check():
    check_estimator(anomaly.HalfSpaceTrees(seed=1))  # River's: CreditCard under river.checks
    with pytest.raises(AssertionError, match=r"check_predict_one_pure failed on _Marking: "):
        check_estimator(_Marking())
    with pytest.raises(AssertionError, match=r"failed on _Forgetful: KeyError\(") as info:
        check_estimator(_Forgetful())
    assert isinstance(info.value.__cause__, KeyError)
