"""The cost ratio rho shared by the cost-sensitive learners of seed 002 (COG, PAUM, CPA_PB, SACOG)."""

from __future__ import annotations

__all__ = ["CostRatio", "check_rho"]


def check_rho(rho):
    if rho is not None and not rho > 0:
        raise ValueError(f"rho must be positive or None, got {rho!r}")


class CostRatio:
    """Mixin: ``rho`` fixed, or (``rho=None``) the Laplace estimate of Tn/Tp counted online.

    ``rho=None`` is the paper's "sum" setting (balanced accuracy at alpha_p = alpha_n = 1/2)
    without knowing the class counts in advance: ``(t_n + 1) / (t_p + 1)`` with the current
    label counted first (section 4.4.4; D-ACOG-10), as :class:`~imbalance_stream.linear_model.ACOG`
    does. A
    float is the "cost" setting, ``c_p / c_n``.
    """

    _n_positive = 0
    _n_negative = 0

    def current_rho(self, sign: float = 0.0) -> float:
        """The cost ratio in force; with ``rho=None``, the Laplace estimate after counting a
        sample of class ``sign`` (0 counts nothing)."""
        if self.rho is not None:
            return float(self.rho)
        n_pos = self._n_positive + (sign > 0)
        n_neg = self._n_negative + (sign < 0)
        return (n_neg + 1.0) / (n_pos + 1.0)

    def _count_label(self, sign: float) -> float:
        """Count the label of the sample being learned and return ``rho`` for it."""
        rho = self.current_rho(sign)
        if sign > 0:
            self._n_positive += 1
        else:
            self._n_negative += 1
        return rho

    def _count_margin_slope(self, sign: float) -> tuple[float, float]:
        """Count the label and return ``(margin, slope)`` of the cost-sensitive hinge loss
        ``slope * max(0, margin - y w.x)`` of ``self.loss``: ``"I"`` puts ``rho_y`` in the margin,
        ``"II"`` in the slope (``rho_y = rho`` for the positive label, 1 for the negative one)."""
        rho = self._count_label(sign)
        rho_y = rho if sign > 0 else 1.0
        return (rho_y, 1.0) if self.loss == "I" else (1.0, rho_y)
