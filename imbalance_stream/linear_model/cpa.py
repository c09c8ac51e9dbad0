"""Cost-sensitive passive-aggressive, the CPA_PB and CPA_ML baselines of the ACOG paper (its
section 4.1): one class, the two update rules of Crammer et al. (2006) selected by ``rule``."""

from __future__ import annotations

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base.validation import check_choice, check_real

from ._cost import CostRatio
from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["CPA"]


@shared_docs
class CPA(CostRatio, FirstOrderLinear):
    """Cost-sensitive Passive-Aggressive (Crammer et al. 2006, section on cost-sensitive
    multiclass learning), in the binary form the ACOG paper compares with: prediction-based
    (CPA_PB, the default) or max-loss (CPA_ML). Called ``CPAPB`` before 0.2.

    The cost of predicting ``yhat`` for a true ``y`` is ``rho(+1, -1) = rho`` (a missed positive)
    and ``rho(-1, +1) = 1``, ``rho(y, y) = 0``, as the paper sets it. With the binary reduction
    ``Phi(x, r) = r x / 2`` of the multiclass feature map (D-ACOG-15), a mistake
    (positive label when ``w.x >= 0``) costs ``l = -y w.x + sqrt(rho(y, yhat))`` and the plain-PA
    step ``w <- w + (l / |x|^2) y x``; a correct prediction changes nothing. With
    ``Phi(x, r) = r x`` instead, the margin and the ``sqrt(rho)`` term would be scaled against
    each other differently (D-ACOG-15). No bias, as in the paper. River has no CPA_PB.

    ``rule="max-loss"`` gives the paper's other cost-sensitive rule, CPA_ML: the label that
    maximises ``w.Phi(x, r) - w.Phi(x, y) + sqrt(rho(y, r))`` is used instead of the prediction,
    which in the binary form updates whenever ``y w.x < sqrt(rho(y, -y))`` (margin errors too, not
    only mistakes), with the same step. The ACOG paper compares with CPA_PB only; its CPA_PB
    rows lie between our two rules on every data set (``reproduce/acog/README.md``).

    Parameters
    ----------
    rule
        ``"prediction"`` (CPA_PB, the default) or ``"max-loss"`` (CPA_ML).
    %(cost_rho)s
    %(positive_intercept)s

    Attributes
    ----------
    n_updates
        Number of updates (mistakes for CPA_PB; margin errors for CPA_ML).

    Examples
    --------

    The "cost" setting: a missed positive costs nine false alarms, and the paper's cost is
    counted over the stream. CPA_ML updates on margin errors too, so it takes more steps:

    >>> from river import datasets, evaluate, preprocessing
    >>> from imbalance_stream.linear_model import CPA
    >>> from imbalance_stream.metrics import WeightedCost

    >>> for rule in ("prediction", "max-loss"):
    ...     cpa = CPA(rho=9.0, rule=rule)
    ...     model = preprocessing.StandardScaler() | cpa
    ...     metric = WeightedCost(c_p=0.9, c_n=0.1)
    ...     cost = evaluate.progressive_val_score(datasets.Phishing(), model, metric)
    ...     print(rule, cost, cpa.n_updates)
    prediction WeightedCost: 96.5 237
    max-loss WeightedCost: 73.5 396

    References
    ----------
    Crammer, K., Dekel, O., Keshet, J., Shalev-Shwartz, S., Singer, Y. (2006). Online
    Passive-Aggressive Algorithms. Journal of Machine Learning Research, 7, 551-585.

    """

    def __init__(
        self,
        rho: float | None = None,
        positive=True,
        intercept: bool = False,
        rule: str = "prediction",
    ):
        check_real("rho", rho, low=0.0, low_open=True, optional=True)
        check_choice("rule", rule, ("prediction", "max-loss"))
        super().__init__(positive=positive, intercept=intercept)
        self.rho = rho
        self.rule = rule
        self._n_positive = 0
        self._n_negative = 0

    @property
    def _replay_kind(self):  # type: ignore[override]  # (read only: set by the parameters)
        return stream.CPAML if self.rule == "max-loss" else stream.CPA

    def _learn(self, indices, values, sign):
        rho = self._count_label(sign)
        updated = kernels.cost_sensitive_pa_step(
            self._weights,
            indices,
            values,
            sign,
            rho if sign > 0 else 1.0,
            self.rule == "max-loss",
        )
        self.n_updates += bool(updated)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"rho": 9.0, "intercept": True}
        yield {"rule": "max-loss"}
