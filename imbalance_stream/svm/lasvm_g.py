"""LASVM-G: the gap-driven online SVM without bias (seed 003, section 6.1)."""

from __future__ import annotations

from ._gap import GapSVM, shared_docs

__all__ = ["LASVMG"]


@shared_docs
class LASVMG(GapSVM):
    """LASVM-G: an online SVM without bias whose REPROCESS steps are driven by the duality gap.

    Ertekin (2009), section 6.1. The dual is the signed box QP of eq. 2.21 without the equality
    constraint (b = 0), so each step moves one coefficient. For each sample: the gap target
    ``G^`` of eq. 6.3 is taken, PROCESS admits the sample and takes one clipped Newton step on its
    coefficient, then REPROCESS steps on the most violating coefficient while the duality gap
    (eq. 6.4, corrected as D-LASVM-10) exceeds ``max(C, G^)``. Nothing leaves the expansion but by
    CLEAN, which every ``clean_every`` samples removes all but ``clean_keep`` of the ``alpha = 0``
    members, the ones with the largest |g| first. The printed PROCESS and REPROCESS carry typos
    (a ``max`` for a ``min``, ``i`` for the selected ``k``); the corrected steps are D-LASVM-9.

    The model is ``f(x) = sum_s alpha_s K(x_s, x)``; ``predict_proba_one`` is the logistic of
    ``f`` (D-LASVM-8). :meth:`finish` runs REPROCESS until no coefficient violates by more than
    ``tau`` (the thesis's online models need none; it gives the exact solution on the members).

    %(gap_parameters)s
    %(clean_parameters)s
    %(positive)s

    %(gap_attributes)s

    Examples
    --------

    CLEAN keeps the expansion well below the stream: every ``clean_every`` samples it drops the
    ``alpha = 0`` members but the ``clean_keep`` of smallest |g|.

    >>> from river import datasets, preprocessing
    >>> from imbalance_stream.svm import LASVMG

    >>> model = preprocessing.StandardScaler() | LASVMG(C=1.0, gamma=0.1)
    >>> for x, y in datasets.Phishing():
    ...     model.learn_one(x, y)
    >>> svm = model["LASVMG"]
    >>> svm.n_expansion_, svm.n_cleaned_
    (733, 516)

    Table 6.1's bookkeeping: where ``z = y f(x)`` lay on the Ramp (``s = -1``) when each sample
    was admitted, and how many of those CLEAN removed later. Most of the samples admitted beyond
    the margin (``z > 1``) were cleaned; the few admitted badly misclassified (``z < -1``) stayed
    as support vectors:

    >>> svm.n_admitted_by_region_
    {'left': 26, 'slope': 442, 'right': 781}
    >>> svm.n_cleaned_by_region_
    {'left': 0, 'slope': 42, 'right': 474}
    >>> svm.n_support_by_region_
    {'left': 25, 'slope': 343, 'right': 29}

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
        clean_every: int = 300,
        clean_keep: int = 300,
        positive=True,
    ):
        super().__init__(
            C, gamma, kernel, tau, cache_mb, class_weight, positive, clean_every, clean_keep
        )

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3, "clean_every": 20}
        yield {"kernel": "linear", "C": 0.5, "class_weight": {True: 3.0}, "clean_keep": 0}
