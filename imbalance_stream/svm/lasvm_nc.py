"""LASVM-NC: the Ramp-loss online SVM (seed 003, section 6.2)."""

from __future__ import annotations

from imbalance_stream._numba import lasvm_gap as gap_core

from ._gap import GapSVM, check_ramp, shared_docs

__all__ = ["LASVMNC"]


@shared_docs
class LASVMNC(GapSVM):
    """LASVM-NC: the non-convex online SVM of the Ramp loss (one CCCP step per sample).

    Ertekin (2009), section 6.2. The Ramp loss ``R_s(z) = H_1(z) - H_s(z)`` (eq. 6.9) caps the
    cost of a badly misclassified sample. Its CCCP dual (eq. 6.13) is LASVM-G's with the box of a
    sample shifted by ``-beta y``: ``beta = C`` when ``y f(x) < s`` at arrival (eq. 6.12), once
    the model has more than ``min_support`` support vectors, so that such a sample enters with a
    box that keeps it at ``alpha = 0`` and CLEAN removes it later. ``beta`` is set once and never
    revisited. The rest is LASVM-G: gap-driven REPROCESS (eqs. 6.3-6.4, D-LASVM-9/10) and CLEAN
    every ``clean_every`` samples.

    The model is ``f(x) = sum_s alpha_s K(x_s, x)``; ``predict_proba_one`` is the logistic of
    ``f`` (D-LASVM-8).

    %(gap_parameters)s
    %(clean_parameters)s
    s
        Hinge point of the Ramp (``s < 1``; -1 in chapter 6).
    min_support
        The Ramp applies once the model has more than this many support vectors (the thesis's
        S, not given; D-LASVM-15).
    %(positive)s

    %(gap_attributes)s
    n_admitted_flat_
        Samples admitted in the left flat part of the Ramp (``beta = C``).

    Examples
    --------

    A sample that arrives in the Ramp's left flat part (``z < s``) once the model has more than
    ``min_support`` support vectors enters with ``beta = C``: it stays at ``alpha = 0`` and CLEAN
    removes it later, so that a badly misclassified sample does not become a support vector.

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import LASVMNC

    >>> svm = LASVMNC(C=1.0, gamma=0.1, min_support=100)
    >>> evaluate.progressive_val_score(
    ...     datasets.Phishing(), preprocessing.StandardScaler() | svm, metrics.Accuracy()
    ... )
    Accuracy: 90.24%
    >>> svm.n_admitted_flat_, svm.n_support_, svm.n_expansion_
    (24, 336, 672)
    >>> svm.n_cleaned_by_region_
    {'left': 25, 'slope': 39, 'right': 513}

    References
    ----------
    %(references)s

    """

    _ramp = gap_core.RAMP_NC

    def __init__(
        self,
        C: float = 1.0,
        gamma: float = 1.0,
        kernel: str = "rbf",
        tau: float = 1e-3,
        cache_mb: float = 40.0,
        class_weight: dict | None = None,
        clean_every: int = 300,
        clean_keep: int = 300,
        s: float = -1.0,
        min_support: int = 100,
        positive=True,
    ):
        check_ramp(s, min_support)
        super().__init__(
            C, gamma, kernel, tau, cache_mb, class_weight, positive, clean_every, clean_keep
        )
        self.s = s
        self.min_support = min_support

    def _ramp_parameters(self) -> tuple[float, int]:
        return float(self.s), int(self.min_support)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3, "min_support": 5}
        yield {"kernel": "linear", "C": 0.5, "s": 0.0, "min_support": 0, "clean_every": 10}
