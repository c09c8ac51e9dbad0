"""The PAUM baseline of the ACOG paper (its section 4.1): perceptron with uneven margins."""

from __future__ import annotations

import math

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base.validation import check_real

from ._cost import CostRatio
from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["PAUM"]


@shared_docs
class PAUM(CostRatio, FirstOrderLinear):
    """Perceptron Algorithm with Uneven Margins (Li, Zaragoza, Herbrich, Shawe-Taylor and Kandola
    2002), as the ACOG paper runs it: ``w <- w + eta y x`` whenever ``y w.x <= tau_y``, with the
    positive margin ``tau_+1 = rho`` ("the uneven margin was set to rho") and ``tau_-1 = 1``.

    The original PAUM also learns a bias, ``b <- b + eta y R^2``; the paper's models have none,
    and the paper's PAUM rows equal its COG-I rows (Table II, covtype and ijcnn1), which
    identifies this form: ``tau_-1 = 1``, ``eta = 1``, no bias (D-ACOG-20: COG-I's ``<`` and
    PAUM's ``<=`` differ only on exact ties). ``intercept=True`` adds a bias as a constant
    feature, not with the ``R^2`` step. The paper apparently kept the "sum" rho in its "cost"
    runs (Table II prints the same PAUM numbers in both): pass ``rho`` explicitly to do the
    same. River has no PAUM.

    Parameters
    ----------
    rho
        The positive margin ``tau_+1``. ``None`` estimates Tn/Tp online with the Laplace rule
        ``(t_n + 1) / (t_p + 1)``, counting the current label first; a float fixes it.
    tau_negative
        The negative margin ``tau_-1``.
    eta
        Step size.
    %(positive_intercept)s

    %(changed_attributes)s

    Examples
    --------

    With ``rho=None`` the positive margin follows the class counts: after the phishing stream it
    is their Laplace ratio Tn/Tp.

    >>> from river import datasets
    >>> from imbalance_stream.linear_model import PAUM

    >>> model = PAUM()
    >>> for x, y in datasets.Phishing():
    ...     model.learn_one(x, y)
    >>> round(model.current_rho(), 4), model.n_updates
    (1.2805, 353)

    References
    ----------
    Li, Y., Zaragoza, H., Herbrich, R., Shawe-Taylor, J., Kandola, J. (2002). The Perceptron
    Algorithm with Uneven Margins. ICML.

    """

    def __init__(
        self,
        rho: float | None = None,
        tau_negative: float = 1.0,
        eta: float = 1.0,
        positive=True,
        intercept: bool = False,
    ):
        check_real("rho", rho, low=0.0, low_open=True, optional=True)
        check_real("tau_negative", tau_negative, low=0.0)
        check_real("eta", eta, low=0.0, low_open=True)
        super().__init__(positive=positive, intercept=intercept)
        self.rho = rho
        self.tau_negative = tau_negative
        self.eta = eta
        self._n_positive = 0
        self._n_negative = 0

    _replay_kind = stream.PAUM

    def _replay_parameters(self):
        return float(self.eta), math.inf, float(self.tau_negative)

    def _learn(self, indices, values, sign):
        rho = self._count_label(sign)
        margin = rho if sign > 0 else float(self.tau_negative)
        updated = kernels.additive_step(
            self._weights, indices, values, sign, margin, True, float(self.eta)
        )
        self.n_updates += bool(updated)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"rho": 3.0, "tau_negative": 0.5, "eta": 0.1, "intercept": True}
