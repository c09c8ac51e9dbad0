"""LASVM-I: LASVM-G with ignored samples (seed 003, section 6.3)."""

from __future__ import annotations

from imbalance_stream._numba import lasvm_gap as gap_core
from imbalance_stream.base.validation import check_int

from ._gap import GapSVM, check_ramp, shared_docs

__all__ = ["LASVMI"]


@shared_docs
class LASVMI(GapSVM):
    """LASVM-I: LASVM-G that ignores the samples outside the Ramp's sloped region.

    Ertekin (2009), section 6.3. Before PROCESS, ``z = y f(x)`` is computed from the sample's
    fresh kernel row; a sample with ``z > 1`` or ``z < s`` (D-LASVM-16) has a zero Ramp
    derivative and cannot shape the model (eq. 6.7), so it is skipped: it never enters the
    expansion. The kernel values of that test are counted in ``n_kernel_evaluations_``
    (D-LASVM-7). The samples that pass are learned as by LASVM-G (convex, ``beta = 0``):
    gap-driven REPROCESS (eqs. 6.3-6.4, D-LASVM-9/10) and CLEAN every ``clean_every`` samples.

    The filter applies to a sample once ``n_seed`` samples of its class have joined the model:
    the first ones are the seeds of section 3.2.1 ("a few examples of each class"), which
    chapter 6 prints as ``alpha <- 0`` alone. Without them a stream that opens with one class can
    lock the filter out for good: on a nearly flat kernel (Adult, gamma = 0.005) the first
    negatives put ``f`` below -1 everywhere, and every later sample, of either class, is
    outside ``[s, 1]`` (D-LASVM-49).

    The model is ``f(x) = sum_s alpha_s K(x_s, x)``; ``predict_proba_one`` is the logistic of
    ``f`` (D-LASVM-8).

    %(gap_parameters)s
    %(clean_parameters)s
    s
        Lower end of the processed region ``s <= y f(x) <= 1`` (``s < 1``; -1 in chapter 6).
    n_seed
        The filter applies to a sample once this many samples of its class have joined the
        model (the seeds of section 3.2.1; 0: from the first sample, as chapter 6 prints it;
        D-LASVM-49).
    %(positive)s

    %(gap_attributes)s
    n_skipped_
        Samples the filter left out.

    Examples
    --------

    On a phishing stream the filter leaves out most samples: they never enter the expansion.
    Only the first ``n_seed`` samples of each class can be admitted in a flat part of the Ramp.

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import LASVMI

    >>> model = preprocessing.StandardScaler() | LASVMI(C=1.0, gamma=0.1)
    >>> metric = evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    >>> metric
    Accuracy: 89.92%
    >>> svm = model["LASVMI"]
    >>> svm.n_skipped_, svm.n_expansion_
    (825, 424)
    >>> svm.n_admitted_by_region_
    {'left': 0, 'slope': 424, 'right': 0}

    References
    ----------
    %(references)s

    """

    _ramp = gap_core.RAMP_I

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
        n_seed: int = 5,
        positive=True,
    ):
        check_ramp(s)
        check_int("n_seed", n_seed, low=0)
        super().__init__(
            C, gamma, kernel, tau, cache_mb, class_weight, positive, clean_every, clean_keep
        )
        self.s = s
        self.n_seed = n_seed

    def _ramp_parameters(self) -> tuple[float, int]:
        return float(self.s), 0

    def _ramp_for(self, sign: float) -> int:
        # a seed of its class joins whatever its z, as PROCESS admits it in LASVM-G (D-LASVM-49)
        seeded = self._admitted[int(sign > 0)] >= self.n_seed
        return gap_core.RAMP_I if seeded else gap_core.RAMP_NONE

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3, "clean_every": 20}
        yield {"kernel": "linear", "C": 0.5, "s": 0.0, "class_weight": {True: 3.0}, "n_seed": 0}
