"""The cost ratio rho shared by the cost-sensitive learners of seed 002 (COG, PAUM, CPA_PB,
SACOG)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba.cost import hinge_margin_slope, laplace_ratio

__all__ = ["CostRatio"]


class CostRatio:
    """Mixin: ``rho`` fixed, or (``rho=None``) the Laplace estimate of Tn/Tp counted online.

    ``rho=None`` is the paper's "sum" setting (balanced accuracy at alpha_p = alpha_n = 1/2)
    without knowing the class counts in advance: ``(t_n + 1) / (t_p + 1)`` with the current
    label counted first (section 4.4.4; D-ACOG-10), as
    :class:`~imbalance_stream.linear_model.ACOG` does. A float is the "cost" setting,
    ``c_p / c_n``. The rules themselves are those of :mod:`imbalance_stream._numba.cost`, shared
    with the jitted array paths.
    """

    _n_positive = 0
    _n_negative = 0
    rho: float | None
    loss: str

    def current_rho(self, sign: float = 0.0) -> float:
        """The cost ratio in force; with ``rho=None``, the Laplace estimate after counting a
        sample of class ``sign`` (0 counts nothing)."""
        if self.rho is not None:
            return float(self.rho)
        return laplace_ratio(self._n_positive + (sign > 0), self._n_negative + (sign < 0))

    def _count_label(self, sign: float) -> float:
        """Count the label of the sample being learned and return ``rho`` for it: what
        :meth:`current_rho` gives for ``sign`` before the count, in one call per sample."""
        if sign > 0:
            self._n_positive += 1
        else:
            self._n_negative += 1
        if self.rho is not None:
            return float(self.rho)
        return laplace_ratio(self._n_positive, self._n_negative)

    def _count_margin_slope(self, sign: float) -> tuple[float, float]:
        """Count the label and return ``(margin, slope)`` of the cost-sensitive hinge loss of
        ``self.loss`` (``"I"``: rho in the margin, ``"II"``: in the slope)."""
        return hinge_margin_slope(sign, self._count_label(sign), self.loss == "I")

    # ---- the array path's view of the same state ----------------------------------------------

    def _cost_state(self) -> tuple[float, bool, np.ndarray]:
        """``(rho, laplace, counts)`` as the jitted replay loops take them: the fixed ratio (1
        when estimated), whether it is estimated, and ``[t_p, t_n]`` for them to update."""
        counts = np.array([self._n_positive, self._n_negative], dtype=np.int64)
        if self.rho is None:
            return 1.0, True, counts
        return float(self.rho), False, counts

    def _store_cost_state(self, counts: np.ndarray) -> None:
        """Take back the label counts a jitted replay loop updated."""
        self._n_positive, self._n_negative = int(counts[0]), int(counts[1])
