"""The names renamed in 0.2 still import, warn, and give the new objects."""

import warnings

import pytest

from imbalance_stream import datasets, evaluate, kernel, linear_model, replay, svm

OLD_NAMES = [
    (linear_model, "CPAPB", linear_model.CPA),
    (linear_model, "McIncLPSVM", svm.MulticlassIncLPSVM),
    (linear_model, "LPSVM", svm.LPSVM),
    (linear_model, "DCILIncLPSVM", svm.DCILIncLPSVM),
    (linear_model, "lpsvm_solution", svm.lpsvm_solution),
    (svm, "McIncLPSVM", svm.MulticlassIncLPSVM),
    (svm, "KOIL", kernel.KOIL),
    (svm, "ProjectronPlusPlus", kernel.ProjectronPlusPlus),
    (datasets, "KOIL", datasets.KOILBenchmark),
    (evaluate, "ReplayResult", evaluate.ArrayReplayResult),
    (evaluate, "replay", replay.replay),
]


@pytest.mark.parametrize(
    ("package", "old", "new"), OLD_NAMES, ids=lambda v: getattr(v, "__name__", v)
)
def test_old_name_warns_and_resolves(package, old, new):
    with pytest.warns(DeprecationWarning, match=f"{package.__name__}.{old} is deprecated"):
        assert getattr(package, old) is new


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        linear_model.Nope  # noqa: B018


def test_current_names_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for package in (linear_model, kernel, svm, datasets, evaluate):
            for name in package.__all__:
                getattr(package, name)


def test_old_names_are_not_exported():
    assert "CPAPB" not in linear_model.__all__
    assert "KOIL" not in svm.__all__ and "KOIL" not in datasets.__all__
