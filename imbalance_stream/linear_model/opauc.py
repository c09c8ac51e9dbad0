"""OPAUC: one-pass AUC optimisation with the square pairwise loss (KOIL's baseline, seed 000)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import auc as kernels
from imbalance_stream.base import grow_matrix, grow_vector
from imbalance_stream.base.features import QUADRATIC_MAX_FEATURES
from imbalance_stream.base.validation import check_real

from ._docs import shared_docs
from ._pairwise import PairwiseAUCLinear

__all__ = ["OPAUC"]


@shared_docs
class OPAUC(PairwiseAUCLinear):
    """One-Pass AUC optimisation (OPAUC).

    A linear scorer ``w.x`` trained on the square pairwise loss ``(1 - w.(x+ - x-))^2`` summed
    over all opposite pairs. The sum over past pairs needs only each class's count, mean ``c``
    and covariance ``Gamma``, so a single pass stores O(d^2) numbers, whatever the stream length.
    On each sample the model first adds it to its own class's moments, then, if the other class has
    been seen, takes the gradient step

    ``w <- w - eta (lam w - y (x - c) + (x - c)(x - c)' w + Gamma w)``

    with ``c`` and ``Gamma`` the *opposite* class's mean and covariance. This is the full-covariance
    OPAUC of Gao et al. (2013) as in the authors' code (a baseline of the KOIL thesis, section
    3.5); the
    low-rank variant for high dimensions is not implemented. New features enter with mean 0 and
    zero (co)variance, which is exact because earlier samples had 0 there.

    Step bound. The step multiplies ``w`` by ``I - eta H`` with ``H = lam I + (x - c)(x - c)' +
    Gamma``, which amplifies ``w`` (until NaN) when ``eta`` is large against the data's scale. The
    step actually taken is ``min(eta, 1 / (lam + |x - c|^2 + trace(Gamma)))``, which never expands
    ``w`` and equals ``eta`` on standardised data (docs/decisions.md, D-KOIL-28). The model keeps
    a dense ``d x d`` covariance per class, so its feature space is limited to 4,096 features
    (:class:`~imbalance_stream.base.FeatureSpaceFull` beyond).

    Parameters
    ----------
    eta
        Step size; 0.01 in KOIL's experiments. An upper bound: see "Step bound" above.
    lam
        L2 regularisation of ``w``.
    %(positive)s

    %(pairwise_attributes)s

    Examples
    --------

    One pass over the phishing stream, with a memory of two means and two covariances however
    long the stream:

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import OPAUC

    >>> opauc = OPAUC(eta=0.01, lam=0.01)
    >>> evaluate.progressive_val_score(
    ...     datasets.Phishing(), preprocessing.StandardScaler() | opauc, metrics.ROCAUC()
    ... )
    ROCAUC: 94.10%
    >>> opauc.n_positive + opauc.n_negative  # every sample but the first, empty once scaled
    1249

    References
    ----------
    Gao, W., Jin, R., Zhu, S., Zhou, Z.-H. (2013). One-Pass AUC Optimization. ICML.

    """

    #: A dense d x d matrix over the features: at most 4,096 of them (``FeatureSpace``).
    _max_features = QUADRATIC_MAX_FEATURES

    def __init__(self, eta: float = 0.01, lam: float = 0.01, positive=True):
        check_real("eta", eta, low=0.0, low_open=True)
        check_real("lam", lam, low=0.0)
        super().__init__(positive=positive)
        self.eta = eta
        self.lam = lam
        self._mean = {1.0: np.zeros(0), -1.0: np.zeros(0)}
        self._cov = {1.0: np.zeros((0, 0)), -1.0: np.zeros((0, 0))}

    def _grow(self, n_features):
        self._w = grow_vector(self._w, n_features)
        for sign in (1.0, -1.0):
            self._mean[sign] = grow_vector(self._mean[sign], n_features)
            self._cov[sign] = grow_matrix(self._cov[sign], n_features, 0.0)

    def _learn(self, indices, values, sign):
        n = len(self._features)
        x = self._features.dense(indices, values, self._w.shape[0])
        self._count[sign] = kernels.opauc_moments_update(
            self._count[sign], self._mean[sign], self._cov[sign], n, x
        )
        if self._count[-sign] > 0:
            kernels.opauc_gradient_step(
                self._w, n, x, sign, self._mean[-sign], self._cov[-sign], self.eta, self.lam
            )

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"eta": 0.1, "lam": 0.0}
        yield {"eta": 0.001, "lam": 1.0}
