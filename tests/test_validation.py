"""Constructor parameters: one validation module, the same rules for every public estimator."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from imbalance_stream import kernel, linear_model, svm
from imbalance_stream.base import InvalidParameter
from imbalance_stream.base.validation import (
    check_bool,
    check_choice,
    check_int,
    check_real,
    did_you_mean,
)

ESTIMATORS = [
    getattr(package, name)
    for package in (linear_model, kernel, svm)
    for name in package.__all__
    if inspect.isclass(getattr(package, name))
]


def _parameters(cls):
    """``(name, default)`` of every constructor parameter with a default."""
    return [
        (p.name, p.default)
        for p in inspect.signature(cls).parameters.values()
        if p.default is not inspect.Parameter.empty
    ]


def _integer_parameters(cls):
    return [(n, d) for n, d in _parameters(cls) if type(d) is int and n != "positive"]


def _real_parameters(cls):
    return [(n, d) for n, d in _parameters(cls) if type(d) is float]


# ---- the checks themselves ----------------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_finite_reals_pass_unchanged(value):
    assert check_real("x", value) == value
    assert check_real("x", np.float64(value)) == value


@given(st.integers(-(10**12), 10**12))
def test_integers_pass_as_python_ints_whatever_their_kind(value):
    for given_value in (value, np.int64(value)):
        accepted = check_int("n", given_value)
        assert accepted == value and type(accepted) is int


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, "1", None, True, 1j, [1.0]])
def test_reals_refuse_what_is_not_a_finite_real(value):
    with pytest.raises(InvalidParameter, match=r"^eta must be a finite real number"):
        check_real("eta", value)


@pytest.mark.parametrize("value", [True, np.bool_(False), 2.0, "2", None, np.float64(2.0)])
def test_integers_refuse_bools_floats_and_text(value):
    with pytest.raises(InvalidParameter, match=r"^budget must be an integer"):
        check_int("budget", value, low=1)


def test_bounds_open_and_closed_are_named_in_the_message():
    assert check_real("lam", 0.0, low=0.0) == 0.0
    with pytest.raises(InvalidParameter, match=r"lam must be a finite real number > 0, got 0.0"):
        check_real("lam", 0.0, low=0.0, low_open=True)
    with pytest.raises(InvalidParameter, match=r">= 0 and < 1, got 1.0"):
        check_real("eta", 1.0, low=0.0, high=1.0, high_open=True)
    assert check_real("C", math.inf, low=0.0, low_open=True, finite=False) == math.inf
    assert check_int("window", None, low=1, optional=True) is None


def test_choices_and_booleans():
    assert check_choice("loss", "II", ("I", "II")) == "II"
    with pytest.raises(InvalidParameter, match=r"loss must be one of 'I', 'II', got 2"):
        check_choice("loss", 2, ("I", "II"))
    with pytest.raises(InvalidParameter):
        check_choice("loss", np.array(["I"]), ("I", "II"))
    assert check_bool("intercept", np.bool_(True)) is True
    with pytest.raises(InvalidParameter, match="intercept must be True or False, got 1"):
        check_bool("intercept", 1)


def test_invalid_parameter_is_both_value_and_type_error():
    assert issubclass(InvalidParameter, ValueError) and issubclass(InvalidParameter, TypeError)


# ---- every public estimator ---------------------------------------------------------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_numpy_equivalents_of_the_defaults_are_accepted_and_stored_as_given(cls):
    values = {}
    for name, default in _integer_parameters(cls):
        values[name] = np.int64(default)
    for name, default in _real_parameters(cls):
        values[name] = np.float64(default)
    model = cls(**values)
    for name, value in values.items():
        assert getattr(model, name) is value  # stored as given, so River's clone rebuilds it
    if hasattr(model, "clone"):  # the River estimators (the batch LPSVMs are not)
        clone = model.clone()
        assert all(getattr(clone, name) == value for name, value in values.items())


@pytest.mark.parametrize(
    ("cls", "name"),
    [(cls, name) for cls in ESTIMATORS for name, _ in _integer_parameters(cls)],
    ids=str,
)
def test_integer_parameters_refuse_bools_and_floats(cls, name):
    for bad in (True, 2.5):
        with pytest.raises(InvalidParameter, match=f"^{name} must be"):
            cls(**{name: bad})


@pytest.mark.parametrize(
    ("cls", "name"),
    [(cls, name) for cls in ESTIMATORS for name, _ in _real_parameters(cls)],
    ids=str,
)
def test_real_parameters_refuse_nan_and_text(cls, name):
    for bad in (math.nan, "1.0"):
        with pytest.raises(InvalidParameter, match=name):
            cls(**{name: bad})


@pytest.mark.parametrize(
    ("cls", "name"),
    [(cls, name) for cls in ESTIMATORS for name, _ in _integer_parameters(cls)],
    ids=str,
)
def test_integer_parameters_take_none_only_where_it_is_a_setting(cls, name):
    try:
        model = cls(**{name: None})
    except InvalidParameter as error:
        assert str(error).startswith(f"{name} must be")
        return
    # accepted (Projectron's budget=None, the unbounded paper version): then it must learn
    model.learn_one({"a": 1.0}, True)
    model.learn_one({"a": -1.0}, False)


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        (cls, name)
        for cls in ESTIMATORS
        for name, default in _parameters(cls)
        if type(default) is bool and name != "positive"
    ],
    ids=str,
)
def test_boolean_parameters_refuse_text_and_numbers(cls, name):
    for bad in ("no", 0, None):
        with pytest.raises(InvalidParameter, match=f"^{name} must be True or False"):
            cls(**{name: bad})


@pytest.mark.parametrize(
    ("cls", "name"),
    [
        (cls, name)
        for cls in ESTIMATORS
        for name, default in _parameters(cls)
        if type(default) is str
    ],
    ids=str,
)
def test_choice_parameters_refuse_an_unknown_name(cls, name):
    with pytest.raises(InvalidParameter, match=name):
        cls(**{name: "no-such-choice"})


def test_the_inconsistencies_of_0_1_are_gone():
    assert kernel.NORMA(degree=np.int64(2)).degree == 2  # refused before, as KOIL accepted it
    with pytest.raises(InvalidParameter, match="eta must be a finite real number > 0, got inf"):
        linear_model.ACOG(eta=math.inf)  # accepted before, as KOIL refused it


def test_did_you_mean_names_close_words_in_any_case_or_nothing():
    assert did_you_mean("sorce", ["source", "stream"]) == "; did you mean 'source'?"
    assert did_you_mean("LASVM", ["lasvm", "acog"]) == "; did you mean 'lasvm'?"
    assert did_you_mean("ACG", ["ACOG"], prefix="imbalance_stream.") == (
        "; did you mean 'imbalance_stream.ACOG'?"
    )
    assert did_you_mean("zzz", ["source", "stream"]) == ""
    assert did_you_mean("a9", {"a9a": 1, "w8a": 2}).startswith("; did you mean 'a9a'")
