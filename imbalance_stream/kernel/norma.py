"""NORMA: online kernel learning by stochastic gradient descent in the RKHS (KOIL's baseline)."""

from __future__ import annotations

from imbalance_stream.base._docstrings import shared_docs
from imbalance_stream.base.validation import check_int, check_real

from ._expansion import ArrivalOrderExpansion

__all__ = ["NORMA"]


@shared_docs
class NORMA(ArrivalOrderExpansion):
    """Naive Online R_reg Minimisation Algorithm (NORMA), nu-classification version.

    Stochastic gradient descent on ``lam/2 |f|^2 + max(0, rho - y f(x)) - nu rho``. Each sample
    first shrinks every coefficient by ``(1 - eta lam)``; on a margin error
    (``y f(x) < rho``) it is stored with coefficient ``eta y``; then the margin moves by
    ``rho <- max(0, rho + eta (nu - sigma))``, ``sigma`` = 1 on a margin error and 0 otherwise
    (Kivinen, Smola and Williamson 2004, section on nu-classification, without offset).

    KOIL's experiments run NORMA with an **unbounded** expansion (``budget=None``, the default):
    memory and time per sample grow with the number of margin errors. A finite ``budget`` truncates
    the expansion to its newest ``budget`` terms, the truncation the NORMA paper analyses (old
    coefficients have decayed by ``(1 - eta lam)^age``).

    Parameters
    ----------
    eta
        Step size; 0.01 in KOIL's experiments.
    lam
        Regularisation; the shrink factor per sample is ``1 - eta lam`` (must stay in (0, 1]).
    nu
        Target fraction of margin errors, in (0, 1].
    budget
        Maximum number of stored vectors, or ``None`` for no limit.
    %(kernel)s
    %(positive)s

    Attributes
    ----------
    rho
        The current margin.
    n_support
        Number of stored vectors.

    Examples
    --------

    The margin ``rho`` adapts so that about a fraction ``nu`` of the samples are margin errors,
    and each of those is stored:

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.kernel import NORMA

    >>> norma = NORMA(eta=0.1, lam=0.01, nu=0.5, gamma=0.1)
    >>> evaluate.progressive_val_score(
    ...     datasets.Phishing(), preprocessing.StandardScaler() | norma, metrics.ROCAUC()
    ... )
    ROCAUC: 92.75%
    >>> norma.n_support / 1250, round(norma.rho, 3)
    (0.4936, 0.95)

    References
    ----------
    Kivinen, J., Smola, A. J., Williamson, R. C. (2004). Online Learning with Kernels. IEEE
    Transactions on Signal Processing 52(8).

    """

    def __init__(
        self,
        eta: float = 0.01,
        lam: float = 0.01,
        nu: float = 0.5,
        budget: int | None = None,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 0.0,
        positive=True,
    ):
        check_real("eta", eta, low=0.0, low_open=True)
        # the decay (1 - eta * lam) of every stored weight must stay positive
        check_real("lam", lam, low=0.0, high=1.0 / eta, high_open=True)
        check_real("nu", nu, low=0.0, high=1.0, low_open=True)
        check_int("budget", budget, low=1, optional=True)
        super().__init__(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, positive=positive)
        self.eta = eta
        self.lam = lam
        self.nu = nu
        self.budget = budget
        self.rho = 0.0

    def _learn(self, indices, values, sign):
        x = self._dense(indices, values)
        margin_error = sign * self._score(x) < self.rho
        self._alpha[: self._count] *= 1.0 - self.eta * self.lam
        if margin_error:
            if self.budget is not None and self._count == self.budget:
                self._remove(0)  # the oldest term, the most decayed one
            self._append(x, self.eta * sign)
        self.rho = max(0.0, self.rho + self.eta * (self.nu - float(margin_error)))

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"eta": 0.5, "lam": 0.1, "nu": 0.2, "budget": 10, "gamma": 0.1}
        yield {"kernel": "poly", "degree": 2, "coef0": 1.0, "gamma": 0.01, "budget": 5}
