"""The presets of density_ratio.windowed: constructors written from a list of names keep the
parameters, order and defaults the written constructors had (``lambda_`` now ``ridge``)."""

from __future__ import annotations

import inspect

import pytest

from imbalance_stream.anomaly import (
    KDENovelty,
    KLIEPNovelty,
    KMMNovelty,
    LocKMMNovelty,
    ULSIFNovelty,
)
from imbalance_stream.base.validation import InvalidParameter
from imbalance_stream.density_ratio import (
    DDRReweighter,
    KLIEPReweighter,
    KMMReweighter,
    ULSIFReweighter,
)

NOVELTY_WINDOWS = [
    ("mode", "two-sample"),
    ("n_reference", None),
    ("n_test", None),
    ("refresh_every", None),
    ("seed", None),
]
REWEIGHTER_WINDOWS = [
    ("n_source", None),
    ("n_target", None),
    ("refresh_every", None),
    ("clip", None),
    ("seed", None),
]
KMM_PROGRAMME = [("B", 1000.0), ("epsilon", 1e-10), ("tol", 1e-06), ("max_iter", 20000)]

#: The signatures the constructors had when each was written out (taken from that code).
SIGNATURES = {
    KMMNovelty: [("sigma", None), *KMM_PROGRAMME, *NOVELTY_WINDOWS]
    + [("solver", "fista"), ("reselect_every", 20)],
    LocKMMNovelty: [("k", 7), *KMM_PROGRAMME[:2], ("epsilon_shift", 1e-10), *KMM_PROGRAMME[2:]]
    + [*NOVELTY_WINDOWS, ("solver", "fista")],
    ULSIFNovelty: [("sigma", None), ("ridge", None), ("n_centres", 100), *NOVELTY_WINDOWS]
    + [("reselect_every", 20)],
    KLIEPNovelty: [("sigma", None), ("n_centres", 100), ("n_folds", 5), *NOVELTY_WINDOWS]
    + [("reselect_every", 20)],
    KDENovelty: [("sigma", None), ("n_folds", 10), *NOVELTY_WINDOWS, ("reselect_every", 20)],
    KMMReweighter: [("sigma", None), ("B", 1000.0), ("epsilon", None), *KMM_PROGRAMME[2:]]
    + [*REWEIGHTER_WINDOWS, ("reselect_every", 20)],
    ULSIFReweighter: [("sigma", None), ("ridge", None), ("n_centres", 100), *REWEIGHTER_WINDOWS]
    + [("reselect_every", 20)],
    KLIEPReweighter: [("sigma", None), ("n_centres", 100), ("n_folds", 5), *REWEIGHTER_WINDOWS]
    + [("reselect_every", 20)],
    DDRReweighter: [("learner", None), ("n_per_class", 200), ("max_iter", 5)]
    + [("early_stopping", True), ("n_centres", 100), ("sigma", None), ("ridge", None)]
    + REWEIGHTER_WINDOWS,
}


@pytest.mark.parametrize("cls", SIGNATURES, ids=lambda cls: cls.__name__)
def test_a_preset_has_the_signature_it_had(cls):
    parameters = inspect.signature(cls).parameters.values()
    named = [(p.name, p.default) for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert named == SIGNATURES[cls]
    model = cls()
    assert model._get_params() == dict(SIGNATURES[cls])  # each stored under its name


def test_positions_keywords_and_defaults_bind_as_written():
    detector = KMMNovelty(2.0, 500.0, mode="stream", n_test=10)
    assert (detector.sigma, detector.B, detector.epsilon, detector.mode) == (
        2.0,
        500.0,
        1e-10,
        "stream",
    )
    assert detector.reselect_every == 20 and detector.n_test == 10
    reweighter = DDRReweighter(None, 50, 2)
    assert (reweighter.n_per_class, reweighter.max_iter, reweighter.early_stopping) == (50, 2, True)


def test_a_bad_call_is_refused_as_by_a_written_constructor():
    with pytest.raises(TypeError, match="too many positional arguments"):
        KDENovelty(*range(9))
    with pytest.raises(TypeError, match="multiple values for argument 'sigma'"):
        KLIEPReweighter(1.0, sigma=1.0)
    with pytest.raises(TypeError, match="sigmaa"):
        KLIEPNovelty(sigmaa=1.0)
    with pytest.raises(InvalidParameter, match="n_centres"):
        ULSIFReweighter(n_centres=0)  # by the estimator's rules
    with pytest.raises(InvalidParameter, match="k"):
        LocKMMNovelty(k=0)  # by the detector's own


def test_a_subclass_of_a_preset_builds_on_its_constructor():
    class Tuned(KMMNovelty):
        def __init__(self, scale: float = 2.0, **params):
            super().__init__(sigma=scale, **params)
            self.scale = scale

    tuned = Tuned(mode="stream", n_test=10)
    assert tuned.sigma == 2.0 and tuned.mode == "stream"
    assert tuned.clone().scale == 2.0
