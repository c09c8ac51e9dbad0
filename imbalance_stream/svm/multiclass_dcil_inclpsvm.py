"""Multi-class DCIL-IncLPSVM: one-vs-rest weighted incremental LPSVMs (seed 001, §2.7, Algorithm
5)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import proximal as kernels
from imbalance_stream.base.validation import check_real

from .inclpsvm import proximal_docs, solve_spd
from .multiclass_inclpsvm import MulticlassIncLPSVM

__all__ = ["MulticlassDCILIncLPSVM"]


@proximal_docs
class MulticlassDCILIncLPSVM(MulticlassIncLPSVM):
    """Multi-class DCIL-IncLPSVM: k one-vs-rest weighted LPSVMs whose weights follow the counts.

    Class j is separated from the rest by the binary
    :class:`~imbalance_stream.svm.DCILIncLPSVM` with ``l+ = l_cj`` and ``l- = l - l_cj``
    (4.19)-(4.22). The model shares the global statistic ``M = E'E`` (no ``I/C`` in it) and keeps
    ``M_cj`` per class, so that, with ``sigma+ = kappa (l - l_cj)/l`` and ``sigma- = kappa l_cj/l``,

        ``A_j = I/C + sigma+ M_cj + sigma- (M - M_cj)``,  ``O_j = A_j^{-1} kappa (v_cj - (l_cj/l)
        v)``,

    which is (4.23). ``A_j`` is assembled in this form, where both coefficients are non-negative,
    rather than with the printed ``(l - 2 l_cj)/l`` coefficient, which goes negative for a majority
    class and cancels. A new label starts as a class with zero statistics: that is the
    printed (4.26) with its ``l``/``l'`` typo fixed (D-DCIL-11). Each sample is two rank-one updates
    (O(d^2)); every ``O_j`` depends on the total count, so a refresh after a change costs one
    Cholesky solve per class held, run lazily at prediction time and cached.

    After any sequence of additions and retirements, ``O_j`` equals the batch wLPSVM of class j
    against the rest on the samples held. Prediction is the argmax of the raw decision values
    ``f_j(x) = [x', -1] O_j`` over the classes held, without normalisation by ``||w_j||``
    (D-DCIL-13); probabilities are their softmax (uncalibrated, D-DCIL-22). While one class only is
    held it is predicted with probability 1 (D-DCIL-2). ``kappa``, ``window`` and ``forget_one`` are
    as in the
    binary model.

    Parameters
    ----------
    C
        Trade-off between the weighted squared training error and the ridge.
    kappa
        Scale of the class weights (D-DCIL-1).
    %(window)s

    %(held_counts)s

    Examples
    --------

    Weighting each one-against-six problem by the counts lifts the accuracy of the unweighted
    :class:`~imbalance_stream.svm.MulticlassIncLPSVM` (81.98%) on the seven classes of
    ImageSegments:

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import MulticlassDCILIncLPSVM

    >>> model = preprocessing.StandardScaler() | MulticlassDCILIncLPSVM(C=1.0)
    >>> evaluate.progressive_val_score(datasets.ImageSegments(), model, metrics.Accuracy())
    Accuracy: 87.96%

    References
    ----------
    Zhu, L. (2012). Dynamic Class Imbalance Learning for Incremental LPSVM. Master's thesis, Unitec
    Institute of Technology, §4.3.

    """

    def __init__(self, C: float = 1.0, kappa: float = 1.0, window: int | None = None):
        check_real("kappa", kappa, low=0.0, low_open=True)
        super().__init__(C=C, window=window)
        self.kappa = kappa

    _min_classes_to_solve = 2  # one class held: its weight is 0 and O = 0 (D-DCIL-2)

    def _solve(self, held, n):
        total = float(sum(self._counts))
        rows = []
        for slot in held:
            share = self._counts[slot] / total
            # A_j = I/C + sigma+ M_cj + sigma- (M - M_cj), r_j = sigma+ v_cj - sigma- (v - v_cj)
            A, r = kernels.assemble_one_vs_rest(
                self._stats[slot],
                self._total,
                n,
                self.kappa * (1.0 - share),
                self.kappa * share,
                1.0 / self.C,
            )
            rows.append(solve_spd(A, r))
        return np.array(rows)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "kappa": 2.0, "window": 50}
        yield {"C": 0.1, "window": 3}
