"""FULL SVM: LASVM-G without CLEAN (seed 003, section 6.4)."""

from __future__ import annotations

from ._gap import GapSVM, shared_docs

__all__ = ["FullSVM"]


@shared_docs
class FullSVM(GapSVM):
    """FULL SVM: LASVM-G without CLEAN, the baseline of chapter 6.

    Ertekin (2009), section 6.4. Every sample is admitted (PROCESS of section 6.1) and nothing is
    ever removed, so the expansion holds every sample seen; REPROCESS steps run while the duality
    gap (eq. 6.4, corrected as D-LASVM-10) exceeds ``max(C, G^)`` (eq. 6.3). Over several passes
    it converges to the batch SVM without bias; its cost grows with the whole stream.

    The model is ``f(x) = sum_s alpha_s K(x_s, x)``; ``predict_proba_one`` is the logistic of
    ``f`` (D-LASVM-8). :meth:`finish` runs REPROCESS until no coefficient violates by more than
    ``tau``.

    %(gap_parameters)s
    %(positive)s

    %(gap_attributes)s

    Examples
    --------

    Every sample is admitted and none is removed (no CLEAN unless :meth:`clean` is called), so
    the expansion holds the whole stream: 1,249 of Phishing's 1,250 samples, the first being
    empty once scaled (all zeros), which teaches nothing.

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import FullSVM

    >>> full_svm = FullSVM(C=1.0, gamma=0.1)
    >>> model = preprocessing.StandardScaler() | full_svm
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 90.08%
    >>> full_svm.n_expansion_, full_svm.n_support_, full_svm.n_cleaned_
    (1249, 413, 0)

    References
    ----------
    %(references)s

    """

    def __init__(
        self,
        C: float = 1.0,
        gamma: float = 1.0,
        kernel: str = "rbf",
        tau: float = 1e-3,
        cache_mb: float = 40.0,
        class_weight: dict | None = None,
        positive=True,
    ):
        super().__init__(C, gamma, kernel, tau, cache_mb, class_weight, positive, 0, 0)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3}
        yield {"kernel": "linear", "C": 0.5, "class_weight": {True: 3.0}}
