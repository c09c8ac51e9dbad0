"""AROW: adaptive regularisation of weight vectors, the second-order baseline of seed 002."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import linear as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base import grow_matrix, grow_vector
from imbalance_stream.base.features import QUADRATIC_MAX_FEATURES
from imbalance_stream.base.transaction import CheckedInKernel
from imbalance_stream.base.validation import check_real

from ._docs import shared_docs
from ._weights import WeightVector

__all__ = ["AROW"]


@shared_docs
class AROW(CheckedInKernel, WeightVector):
    """Adaptive Regularization Of Weight vectors (Crammer, Kulesza and Dredze 2009), as the ACOG
    paper compares with it (its section 4.1; LIBOL's ``AROW.m``).

    Weights ``w ~ N(mu, Sigma)``, ``mu_1 = 0``, ``Sigma_1 = I``. With the hinge loss
    ``l = max(0, 1 - y mu.x)``, ``u = Sigma x`` and ``v = x' Sigma x``: if ``l > 0``,

    ``mu <- mu + l / (v + r) * y * u`` and ``Sigma <- Sigma - u u' / (v + r)``.

    The covariance update is ACOG's with ``gamma = r``, and shares its kernel; ACOG differs in
    the mean step (a constant ``eta`` along the *updated* covariance instead of a step
    proportional to the loss along the old one) and in its cost-sensitive losses. AROW is cost-
    insensitive. The paper states ``r = 1``, but its german rows of Table II are matched by
    ``r = 0.1`` and not by ``r = 1`` (``tests/test_linear_baselines.py``; its AROW rows also
    differ between the sum and cost runs, which a cost-insensitive model with a fixed ``r``
    cannot do, so ``r`` was probably re-tuned): sweep ``r`` when reproducing them. No bias,
    positive label when ``mu.x >= 0``; probabilities are the probit
    ``Phi(mu.x / sqrt(x' Sigma x))`` as for ACOG (D-ACOG-23). River has no AROW. The full
    covariance costs O(d^2) memory and O(d^2) per update.

    %(quadratic_limits)s

    Parameters
    ----------
    r
        Regularisation: the weight of the confidence term (the paper's gamma); 1 in the paper.
        The paper's Table II rows are matched by the ``r`` that LIBOL's ``CV_algorithm`` would
        pick (the smallest online mistake count over ``2^-4 .. 2^4``), not by 1: ``1/16`` on
        german and ijcnn1, 1 on a9a (the ``AROW-cv`` rows of ``reproduce/acog/README.md``).
    %(positive_intercept)s

    %(hinge_attributes)s

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import AROW

    >>> model = preprocessing.StandardScaler() | AROW(r=1.0)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.BalancedAccuracy())
    BalancedAccuracy: 89.38%

    Each update shrinks the covariance along the sample (``Sigma <- Sigma - u u' / (v + r)``),
    from the prior 1; the two features whose weights the model is surest of:

    >>> variances = model["AROW"].variances
    >>> sorted(variances, key=variances.get)[:2]
    ['long_url', 'ip_in_url']

    References
    ----------
    Crammer, K., Kulesza, A., Dredze, M. (2009). Adaptive Regularization of Weight Vectors.
    NeurIPS.

    """

    #: A dense d x d matrix over the features: at most 4,096 of them (``FeatureSpace``).
    _max_features = QUADRATIC_MAX_FEATURES

    def __init__(self, r: float = 1.0, positive=True, intercept: bool = False):
        check_real("r", r, low=0.0, low_open=True)
        super().__init__(positive=positive, intercept=intercept)
        self.r = r
        self._mean = np.zeros(0)
        self._cov = np.zeros((0, 0))
        self.n_updates = 0
        if intercept:
            self._grow(len(self._features))

    def _grow(self, n_features):
        self._mean = grow_vector(self._mean, n_features, 0.0)
        self._cov = grow_matrix(self._cov, n_features, 1.0)

    def _weight_vector(self) -> np.ndarray:
        return self._mean

    def _learn(self, indices, values, sign):
        updated = kernels.arow_full_step(
            self._mean, self._cov, len(self._features), indices, values, sign, float(self.r)
        )
        if updated == kernels.REFUSED:  # nothing was written
            raise self._numerical_error()
        self.n_updates += updated

    def _replay_kernel(
        self, start, indptr, indices, values, brings, signs, colmap, new_names, sizes, predictions
    ):
        """The array path (:meth:`~imbalance_stream.base.BinaryClassifier.replay_rows`):
        :func:`~imbalance_stream._numba.stream.replay_baseline` with the step ``_learn`` takes
        (no cost ratio: AROW is cost-insensitive)."""
        sizes[stream.N_UPDATES] = 0
        stop = stream.replay_baseline(
            stream.AROW, start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
            self._mean, self._cov, float(self.r), 1.0, False,
            np.zeros(2, dtype=np.int64), 1.0, math.inf, 1.0, predictions,
        )  # fmt: skip
        self.n_updates += int(sizes[stream.N_UPDATES])
        return stop

    def _steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas):
        """The steps path (:meth:`~imbalance_stream.base.BinaryClassifier.run_steps`):
        :func:`~imbalance_stream._numba.stream.steps_baseline` with the step ``_learn`` takes
        (no cost ratio: AROW is cost-insensitive)."""
        sizes[stream.N_UPDATES] = 0
        ran = stream.steps_baseline(
            stream.AROW, rows, learn, signs, colmap, new_names, sizes, self.intercept,
            self._mean, self._cov, float(self.r), 1.0, False, np.zeros(2, dtype=np.int64),
            1.0, math.inf, 1.0, decisions, probas,
        )  # fmt: skip
        self.n_updates += int(sizes[stream.N_UPDATES])
        return ran

    def _proba(self, indices, values):
        return kernels.proba_full(self._mean, self._cov, indices, values)

    @property
    def variances(self) -> dict:
        """The diagonal of the covariance by feature name: small means confident."""
        return self._features.to_dict(np.diag(self._cov))

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"r": 0.1, "intercept": True}
