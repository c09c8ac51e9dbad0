"""A kernel expansion ``f(x) = sum_i alpha_i k(x_i, x)`` over stored vectors, shared by the budget
kernel perceptrons (NORMA, RBP, Forgetron, Projectron).

The stored vectors are the rows of a dense buffer whose columns grow with the feature space
(zero-padded, which keeps every kernel value of the old vectors unchanged); the kernel values
come from :mod:`imbalance_stream._numba.kernels`.
"""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import kernels
from imbalance_stream.base import BinaryClassifier, capacity_for
from imbalance_stream.base._docstrings import DOCS, fill_docs
from imbalance_stream.base.features import KERNEL_MAX_FEATURES
from imbalance_stream.base.validation import check_choice, check_int, check_real

__all__ = ["ArrivalOrderExpansion"]

_PROJECTION_ETA = """\
    eta
        Largest squared projection error accepted instead of a new stored vector (> 0).
"""

#: Fill a docstring's ``    %(name)s`` lines from the binary classifiers' entries and those
#: the perceptrons on a fixed budget share: RBP's and the Forgetron's ``budget``, and the
#: Projectrons' parameters but ``budget``, whose meaning they do not share.
shared_docs = fill_docs(
    {
        **DOCS,
        "fixed_budget": """\
    budget
        Maximum number of stored vectors.
""",
        "projection_parameters": _PROJECTION_ETA + DOCS["kernel"] + DOCS["positive"],
    }
)


class ArrivalOrderExpansion(BinaryClassifier):
    """Base of the kernel machines that store ``(x_i, alpha_i)`` pairs in arrival order.

    Subclasses implement ``_learn`` on the dense sample returned by :meth:`_dense` and change the
    expansion with :meth:`_append`, :meth:`_remove` and the ``_alpha`` array. Slots are kept in
    arrival order (slot 0 is the oldest), which is what FIFO-style removal needs.
    """

    #: Stored vectors are dense over the features: at most 65,536 of them (``FeatureSpace``).
    _max_features = KERNEL_MAX_FEATURES

    def __init__(self, kernel="rbf", gamma=1.0, degree=2, coef0=0.0, positive=True):
        check_choice("kernel", kernel, tuple(kernels.KERNELS))
        self._kind = kernels.kernel_id(kernel)
        check_real("gamma", gamma, low=0.0, low_open=True)
        check_int("degree", degree, low=1)
        check_real("coef0", coef0)
        super().__init__(positive=positive)
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self._X = np.zeros((8, 0))
        self._alpha = np.zeros(8)
        self._count = 0

    # ---- storage ------------------------------------------------------------------------------

    @property
    def n_support(self) -> int:
        """Number of stored vectors."""
        return self._count

    def _grow(self, n_features):
        if self._X.shape[1] < n_features:
            wider = np.zeros((self._X.shape[0], capacity_for(self._X.shape[1], n_features)))
            wider[:, : self._X.shape[1]] = self._X
            self._X = wider

    def _dense(self, indices, values):
        return self._features.dense(indices, values, self._X.shape[1])

    def _append(self, x, alpha):
        if self._count == self._X.shape[0]:
            size = 2 * self._X.shape[0]
            X = np.zeros((size, self._X.shape[1]))
            X[: self._count] = self._X[: self._count]
            self._X = X
            self._alpha = np.concatenate([self._alpha, np.zeros(size - self._alpha.shape[0])])
        self._X[self._count] = x
        self._alpha[self._count] = alpha
        self._count += 1

    def _remove(self, slot):
        """Drop slot ``slot``, keeping the others in arrival order."""
        last = self._count - 1
        self._X[slot:last] = self._X[slot + 1 : self._count]
        self._alpha[slot:last] = self._alpha[slot + 1 : self._count]
        self._X[last] = 0.0
        self._alpha[last] = 0.0
        self._count = last

    # ---- kernel values ------------------------------------------------------------------------

    def _params(self):
        return self._kind, self.gamma, float(self.degree), self.coef0

    def _kernel_row(self, x):
        """``k(x_i, x)`` for every stored ``x_i``."""
        kind, gamma, degree, coef0 = self._params()
        out = np.empty(self._count)
        return kernels.kernel_row(kind, self._X, self._count, x, gamma, degree, coef0, out)

    def _self_kernel(self, x):
        kind, gamma, degree, coef0 = self._params()
        return kernels.kernel(kind, x, x, gamma, degree, coef0)

    def _score(self, x):
        kind, gamma, degree, coef0 = self._params()
        return kernels.expansion(kind, self._X, self._alpha, self._count, x, gamma, degree, coef0)

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        return self._score(self._dense(indices, values))

    def _proba(self, indices, values):
        score = self._decision(indices, values)
        return 0.5 * (1.0 + math.tanh(0.5 * score))  # the logistic function, overflow-free

    @property
    def support_vectors(self) -> list[tuple[dict, float]]:
        """The stored ``(x_i, alpha_i)`` pairs, oldest first."""
        return [
            (self._features.to_dict(self._X[i]), float(self._alpha[i])) for i in range(self._count)
        ]
