"""The averaged kernel perceptron (AVGPERC), the online baseline of LASVM's chapter 3."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import kernels
from imbalance_stream.base._docstrings import shared_docs

from ._expansion import ArrivalOrderExpansion

__all__ = ["AveragedKernelPerceptron"]


@shared_docs
class AveragedKernelPerceptron(ArrivalOrderExpansion):
    """Kernel perceptron whose predictions average every intermediate rule (AVGPERC).

    Learning is the kernel perceptron of Ertekin (2009), section 3.1: with
    ``f_t(x) = sum_{i in S} alpha_i k(x_i, x)`` (no bias, ``b = 0`` in step 1), a sample with
    ``y f_t(x) <= 0`` joins ``S`` with ``alpha = y`` (step 4). Predictions use the average of the
    rules produced after each of the ``T`` samples learned so far (Freund and Schapire 1999),

    ``f_bar(x) = (1 / T) sum_{t=1..T} f_t(x) = sum_{i in S} alpha_i (T - t_i + 1) / T k(x_i, x)``,

    where ``t_i`` is the step at which ``x_i`` joined: each stored vector carries its insertion
    step, so averaging costs O(|S|) per prediction and nothing per update (D-LASVM-21). The
    thesis runs it for one epoch (AVGPERC x1) and ten (AVGPERC x10); epochs are replays of the
    data, ``T`` keeps counting across them. The support is unbounded: every mistake is stored.

    Parameters
    ----------
    %(kernel)s
    %(positive)s

    Attributes
    ----------
    n_seen
        Samples learned (``T``).
    n_mistakes
        Mistakes made while learning (the size of ``S``).

    Examples
    --------

    Every mistake is stored, and an older rule weighs more in the average: the first stored
    vector keeps nearly all of its coefficient, the last one a sliver of it.

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.kernel import AveragedKernelPerceptron

    >>> perceptron = AveragedKernelPerceptron(gamma=0.1)
    >>> model = preprocessing.StandardScaler() | perceptron
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 89.04%
    >>> perceptron.n_seen, perceptron.n_mistakes, perceptron.n_support
    (1249, 172, 172)
    >>> weights = perceptron.averaged_weights()
    >>> print(abs(weights[0]).round(3), abs(weights[-1]).round(3))
    1.0 0.008

    References
    ----------
    Freund, Y. and Schapire, R. E. (1999). Large margin classification using the perceptron
    algorithm. Machine Learning 37(3).

    Ertekin, S. (2009). Learning in Extreme Conditions: Online and Active Learning with Massive,
    Imbalanced and Noisy Data. PhD thesis, The Pennsylvania State University. Section 3.1.

    """

    def __init__(
        self,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 0.0,
        positive=True,
    ):
        super().__init__(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, positive=positive)
        self.n_seen = 0
        self.n_mistakes = 0
        self._inserted = np.zeros(self._alpha.shape[0])

    def _append(self, x, alpha):
        super()._append(x, alpha)
        if self._inserted.shape[0] < self._alpha.shape[0]:
            wider = np.zeros(self._alpha.shape[0])
            wider[: self._inserted.shape[0]] = self._inserted
            self._inserted = wider
        self._inserted[self._count - 1] = self.n_seen

    def _learn(self, indices, values, sign):
        x = self._dense(indices, values)
        self.n_seen += 1  # this sample is step t = n_seen
        if sign * self._score(x) <= 0.0:
            self.n_mistakes += 1
            self._append(x, sign)

    def averaged_weights(self) -> np.ndarray:
        """The coefficients of ``f_bar``: ``alpha_i (T - t_i + 1) / T`` per stored vector."""
        count = self._count
        if self.n_seen == 0:
            return np.zeros(count)
        steps = self.n_seen - self._inserted[:count] + 1.0
        return self._alpha[:count] * steps / self.n_seen

    def _decision(self, indices, values):
        if self._count == 0:
            return 0.0
        x = self._dense(indices, values)
        kind, gamma, degree, coef0 = self._params()
        weights = self.averaged_weights()
        return kernels.expansion(kind, self._X, weights, self._count, x, gamma, degree, coef0)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"gamma": 0.1}
        yield {"kernel": "poly", "degree": 3, "gamma": 0.1, "coef0": 1.0}
