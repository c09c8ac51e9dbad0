"""The shared docstring entries (imbalance_stream.base._docstrings)."""

from __future__ import annotations

import pytest

from imbalance_stream.base._docstrings import DOCS, fill_docs, shared_docs
from imbalance_stream.kernel import Forgetron
from imbalance_stream.linear_model import PA
from imbalance_stream.svm import LASVMG


def _model(doc):
    """A class whose docstring is ``doc``, indented as a class of a module is."""
    return type("Model", (), {"__doc__": doc})


def test_an_entry_takes_the_place_of_its_line():
    model = fill_docs({"x": "    x\n        The x.\n"})(
        _model("A model.\n\n    Parameters\n    ----------\n    %(x)s\n    y\n        The y.\n")
    )
    assert model.__doc__ == (
        "A model.\n\n    Parameters\n    ----------\n    x\n        The x.\n    y\n        The y.\n"
    )


def test_an_entry_not_shared_is_an_error():
    with pytest.raises(ValueError, match="Model's docstring names an entry that is not shared"):
        fill_docs({})(_model("A model.\n\n    %(missing)s\n"))


def test_a_placeholder_out_of_its_own_line_is_an_error():
    with pytest.raises(ValueError, match="not shared"):
        shared_docs(_model("A model: %(positive)s."))


def test_no_docstring_is_left_alone():
    class Model:
        pass

    assert shared_docs(Model) is Model and Model.__doc__ is None


@pytest.mark.parametrize("model", [PA, Forgetron, LASVMG])
def test_the_estimators_hold_their_whole_text(model):
    assert "%(" not in model.__doc__
    assert DOCS["positive"] in model.__doc__
