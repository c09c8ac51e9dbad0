"""The names renamed in 0.2 still import, warn, and give the new objects; the parameters renamed
since (``lambda_`` to ``ridge``) still take their old spelling, with a warning, until 0.4."""

import warnings

import numpy as np
import pytest

from imbalance_stream import datasets, evaluate, kernel, linear_model, replay, svm
from imbalance_stream.anomaly import ULSIFNovelty
from imbalance_stream.density_ratio import DDR, IWLSPC, ULSIF, DDRReweighter, ULSIFReweighter
from imbalance_stream.density_ratio.ulsif import ulsif_alpha
from imbalance_stream.registry import build

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


# ---- renamed parameters: lambda_ is ridge (until 0.4) ---------------------------------------

RIDGE_ESTIMATORS = [
    (ULSIF, {"sigma": 1.0, "n_centres": 20, "seed": 0}),
    (IWLSPC, {"sigma": 1.0, "n_centres": 20, "seed": 0}),
    (DDR, {"sigma": 1.0, "n_centres": 20, "max_iter": 2, "seed": 0}),
    (ULSIFNovelty, {"mode": "stream", "n_reference": 40, "n_test": 20, "seed": 0}),
    (ULSIFReweighter, {"n_source": 60, "n_target": 30, "seed": 0}),
    (DDRReweighter, {"n_per_class": 30, "max_iter": 1, "n_centres": 10, "n_target": 30}),
]


def _shifted_data():
    rng = np.random.default_rng(0)
    source = rng.normal(0.0, 1.0, size=(80, 3))
    labels = (source[:, 0] + 0.3 * rng.normal(size=80) > 0).astype(int)
    target = rng.normal(0.5, 1.0, size=(60, 3))
    return source, labels, target


def _outcome(model):
    """What the model gives on a small shifted sample, as an array."""
    source, labels, target = _shifted_data()
    if isinstance(model, ULSIF):
        return model.fit(source, target).weight(target)
    if isinstance(model, IWLSPC):
        return model.fit(source, labels).predict_proba(target)
    if isinstance(model, DDR):
        return model.fit(source, labels, target).weights_
    rows = [dict(enumerate(row)) for row in source]
    if isinstance(model, ULSIFNovelty):
        scores = []
        for x in rows + [dict(enumerate(row)) for row in target]:
            scores.append(model.score_one(x))
            model.learn_one(x)
        return np.array(scores)
    for x, y in zip(rows, labels):
        model.learn_source_one(x, int(y))
    for row in target:
        model.learn_target_one(dict(enumerate(row)))
    return np.array([model.weight_one(x, int(y)) for x, y in zip(rows, labels)])


@pytest.mark.parametrize(
    ("cls", "params"), RIDGE_ESTIMATORS, ids=lambda v: getattr(v, "__name__", "")
)
def test_lambda_is_ridge_with_a_warning_and_the_same_results(cls, params):
    new = cls(ridge=0.1, **params)
    with pytest.warns(
        DeprecationWarning, match="parameter lambda_ is deprecated .* 0.4: use ridge"
    ):
        old = cls(lambda_=0.1, **params)
    assert old.ridge == new.ridge == 0.1
    assert old._get_params() == new._get_params()
    assert "lambda_" not in new._get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new spelling and its clone do not warn
        np.testing.assert_array_equal(_outcome(old), _outcome(new))
        clone = new.clone()
        assert clone.ridge == 0.1 and clone._get_params() == new._get_params()
        assert new.clone({"ridge": 0.5}).ridge == 0.5


@pytest.mark.parametrize(
    ("cls", "params"), RIDGE_ESTIMATORS, ids=lambda v: getattr(v, "__name__", "")
)
def test_lambda_and_ridge_together_are_refused(cls, params):
    with pytest.raises(TypeError, match="give only ridge"):
        cls(lambda_=0.1, ridge=0.1, **params)


@pytest.mark.parametrize("cls", [ULSIF, IWLSPC, ULSIFNovelty])
def test_an_unknown_keyword_is_still_a_type_error(cls):
    with pytest.raises(TypeError, match="ridgee"):
        cls(ridgee=0.1)


def test_the_fitted_ridge_keeps_its_old_name_with_a_warning():
    source, labels, target = _shifted_data()
    fitted = [
        ULSIF(seed=0).fit(source, target),
        IWLSPC(seed=0).fit(source, labels),
        DDR(max_iter=1, n_centres=10, seed=0).fit(source, labels, target),
    ]
    for model in fitted:
        with pytest.warns(DeprecationWarning, match="lambda_chosen_ is deprecated .* use ridge_"):
            assert model.lambda_chosen_ == model.ridge_


def test_renamed_functions_take_the_old_keyword_with_a_warning():
    rng = np.random.default_rng(1)
    A = rng.normal(size=(6, 6))
    H, h = A @ A.T / 6, rng.uniform(size=6)
    with pytest.warns(DeprecationWarning, match="ulsif_alpha: the parameter lambda_"):
        old = ulsif_alpha(H, h, lambda_=0.1)
    np.testing.assert_array_equal(old, ulsif_alpha(H, h, 0.1))


def test_a_scenario_that_says_lambda_still_builds_with_the_warning():
    spec = {"class": "ULSIFReweighter", "params": {"lambda_": 0.1, "n_target": 30}}
    with pytest.warns(DeprecationWarning, match="use ridge"):
        reweighter = build(spec, kind="reweighter")
    assert reweighter.ridge == 0.1
    nested = {
        "class": "ImportanceWeighted",
        "params": {
            "classifier": {"class": "river.linear_model.LogisticRegression"},
            "reweighter": {
                "class": "DDRReweighter",
                "params": {"learner": {"class": "IWLSPC", "params": {"lambda_": 0.1}}},
            },
        },
    }
    with pytest.warns(DeprecationWarning, match="IWLSPC: the parameter lambda_"):
        model = build(nested, kind="estimator")
    assert model.reweighter.learner.ridge == 0.1
