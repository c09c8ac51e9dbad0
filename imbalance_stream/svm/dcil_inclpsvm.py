"""DCIL-IncLPSVM: incremental weighted proximal SVM under dynamic class imbalance (seed 001, Alg.
4)."""

from __future__ import annotations

from imbalance_stream.base.validation import check_real

from .inclpsvm import IncLPSVM, proximal_docs
from .lpsvm import class_weights

__all__ = ["DCILIncLPSVM"]


@proximal_docs
class DCILIncLPSVM(IncLPSVM):
    """Dynamic Class Imbalance Learning for incremental LPSVM (DCIL-IncLPSVM).

    An exact incremental and decremental **weighted** linear proximal SVM whose class weights follow
    the class counts held *now*. Proposition 1 of the thesis rewrites the batch wLPSVM, whose n x n
    weight matrix changes entirely whenever a count changes, through per-class statistics:

        ``O = (I/C + sigma+ M+ + sigma- M-)^{-1} (sigma+ v+ - sigma- v-)``,
        ``sigma+ = kappa l- / (l+ + l-)``, ``sigma- = kappa l+ / (l+ + l-)``,

    with ``M_c = E_c'E_c``, ``v_c = E_c'e`` and ``l_c`` the statistics and count of class c.
    Learning or retiring a sample is a rank-one change of ``M_y`` (O(d^2)); the weights are two
    scalars recomputed from the counts, so after any sequence of additions and retirements the model
    equals the batch wLPSVM (:func:`~imbalance_stream.svm.wlpsvm_solution`) on the samples held,
    whatever their order. One added sample re-weights both classes, so no rank-one inverse update
    exists (the weights of (4.7) change with the counts: a full-rank change of the matrix of
    (4.14)); the (d+1)^3 solve runs lazily, when a prediction first needs it after a change, and is
    cached.

    ``kappa`` scales both weights (D-DCIL-1). The printed weights (2.27) sum to 1 (``kappa=1``), so
    that on balanced data the model is LPSVM with ``C/2``; the thesis's §5.4 says the weights are 1
    on balanced data, which is ``kappa=2``. ``kappa`` is exactly a factor on ``C``.

    Everything else (window, ``forget_one``, the one-class fallback, the tie rule, the probability
    mapping ``1 / (1 + exp(-2 f))``, the thesis's ``[x', -1] O`` decision value) is as in
    :class:`~imbalance_stream.svm.IncLPSVM`. While only one class is held (empty model, a
    one-class start, a window that lost a class), the present class would have weight 0 and
    ``O = 0``: no solve is run, the decision value is 0 and the model predicts the class held, with
    probability 1 (D-DCIL-2, through the tie rule D-DCIL-3).

    Inputs are not scaled: the weighted ridge grows as the minority shrinks and regularises the
    bias, so put a fixed or slowly adapting scaler in front. With a window, the window holds the
    scaled vectors, so retirement stays exact even if the scaler adapts.

    Parameters
    ----------
    C
        Trade-off between the weighted squared training error and the ridge ``(w'w + b^2)/2``.
    kappa
        Scale of the class weights: 1 follows (2.27), 2 gives weights 1 on balanced data.
    %(window)s
    positive
        The label written +1 (the minority class in the thesis; the model is sign-symmetric, so it
        only names the label).

    %(held_counts)s
    class_weights
        The weights ``sigma`` in force, by label.

    Examples
    --------

    On a phishing stream, the model that re-weights the classes as they drift:

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import DCILIncLPSVM

    >>> model = preprocessing.StandardScaler() | DCILIncLPSVM(C=1.0, window=500)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.GeometricMean())
    GeometricMean: 89.28%

    The weights in force follow the class counts of the window, the minority's the larger:

    >>> model["DCILIncLPSVM"].class_weights
    {True: 0.526, False: 0.474}

    References
    ----------
    Zhu, L. (2012). Dynamic Class Imbalance Learning for Incremental LPSVM. Master's thesis, Unitec
    Institute of Technology (supervisors S. Pang and A. Chen).
    Zhu, L., Pang, S., Chen, A., Sarrafzadeh, A. (2012). Class imbalance robust incremental LPSVM
    for data streams learning. IJCNN.

    """

    def __init__(
        self, C: float = 1.0, kappa: float = 1.0, window: int | None = None, positive=True
    ):
        check_real("kappa", kappa, low=0.0, low_open=True)
        super().__init__(C=C, window=window, positive=positive)
        self.kappa = kappa

    def _solvable(self):
        # One class held: (2.27) gives it weight 0 and O = 0; predict it instead (D-DCIL-2).
        return self._counts[0] > 0 and self._counts[1] > 0

    def _weights(self, n_positive, n_negative):
        return class_weights(n_positive, n_negative, self.kappa)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "kappa": 2.0, "window": 50}
        yield {"C": 0.1, "window": 3}
