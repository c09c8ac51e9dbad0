"""COG: cost-sensitive online gradient descent, the first-order baseline of seed 002."""

from __future__ import annotations

import math

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base.validation import check_choice, check_real

from ._cost import CostRatio
from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["COG"]


@shared_docs
class COG(CostRatio, FirstOrderLinear):
    """Cost-sensitive Online Gradient descent (COG-I and COG-II; the CSOGD of Wang, Zhao and Hoi),
    the first-order method that ACOG extends: ``w <- w - eta grad l(w)`` on the cost-sensitive
    hinge losses of the ACOG paper,

    * loss ``"I"``: ``max(0, rho_y - y w.x)`` (rho in the **margin**), step ``w += eta y x``;
    * loss ``"II"``: ``rho_y max(0, 1 - y w.x)`` (rho in the **slope**), step
      ``w += eta rho_y y x``;

    taken when the loss is positive, with ``rho_y = rho`` for the positive label and 1 for the
    negative one. The step size is constant (D-ACOG-16: the paper's formula, and what makes COG-I
    with ``eta = 1`` the paper's PAUM). No bias, positive label when ``w.x >= 0``. This is
    ACOG with the covariance fixed at the identity; ``rho`` has the same meaning as in
    :class:`~imbalance_stream.linear_model.ACOG`.

    Parameters
    ----------
    %(cost_loss)s
    %(cost_rho)s
    eta
        Step size (the paper's lambda, selected from {1e-5, ..., 1e5}).
    %(positive_intercept)s

    %(hinge_attributes)s

    Examples
    --------

    The "sum" setting (``rho=None``), scored by the paper's sum of sensitivity and specificity:

    >>> from river import datasets, evaluate, preprocessing
    >>> from imbalance_stream.linear_model import COG
    >>> from imbalance_stream.metrics import WeightedSum

    >>> model = preprocessing.StandardScaler() | COG(loss="II", eta=0.1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, WeightedSum(alpha_p=0.5))
    WeightedSum: 88.86%

    References
    ----------
    Wang, J., Zhao, P., Hoi, S. C. H. (2014). Cost-Sensitive Online Classification. IEEE
    Transactions on Knowledge and Data Engineering, 26(10).

    Zhao, P., Zhang, Y., Wu, M., Hoi, S. C. H., Tan, M., Huang, J. (2018). Adaptive
    Cost-Sensitive Online Classification. IEEE Transactions on Knowledge and Data Engineering.

    """

    def __init__(
        self,
        loss: str = "I",
        rho: float | None = None,
        eta: float = 1.0,
        positive=True,
        intercept: bool = False,
    ):
        check_choice("loss", loss, ("I", "II"))
        check_real("rho", rho, low=0.0, low_open=True, optional=True)
        check_real("eta", eta, low=0.0, low_open=True)
        super().__init__(positive=positive, intercept=intercept)
        self.loss = loss
        self.rho = rho
        self.eta = eta
        self._n_positive = 0
        self._n_negative = 0

    @property
    def _replay_kind(self):  # type: ignore[override]  # (read only: set by the parameters)
        return stream.COG_I if self.loss == "I" else stream.COG_II

    def _replay_parameters(self):
        return float(self.eta), math.inf, 1.0

    def _learn(self, indices, values, sign):
        margin, slope = self._count_margin_slope(sign)
        updated = kernels.additive_step(
            self._weights, indices, values, sign, margin, False, self.eta * slope
        )
        self.n_updates += bool(updated)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"loss": "II", "rho": 9.0, "eta": 0.1}
        yield {"loss": "I", "eta": 0.5, "intercept": True}
