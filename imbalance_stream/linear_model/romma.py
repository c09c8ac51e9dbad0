"""The ROMMA baseline of the ACOG paper (its section 4.1)."""

from __future__ import annotations

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream
from imbalance_stream._numba.linear import REFUSED, UPDATED
from imbalance_stream.base import NumericalError

from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["ROMMA"]


@shared_docs
class ROMMA(FirstOrderLinear):
    """Relaxed Online Maximum Margin Algorithm (Li and Long 2000), the non-aggressive version
    the ACOG paper compares with (its section 4.1; LIBOL's ``ROMMA.m``).

    On a mistake (positive label when ``w.x >= 0``), the new weights are the smallest-norm vector
    satisfying the last constraint ``y w.x >= 1`` and the relaxed half-space of the previous
    ones: with ``D = |x|^2 |w|^2 - (w.x)^2``,

    ``w <- c w + e x``, ``c = (|x|^2 |w|^2 - y w.x) / D``, ``e = |w|^2 (y - w.x) / D``,

    and ``w <- y x`` while ``w = 0``. When ``x`` is parallel to ``w`` (``D = 0``) there is no
    update. No bias, as in the paper (``intercept=True`` adds one as a constant feature). River
    has no ROMMA. The rescaling touches every weight, so a mistake costs O(d).

    ROMMA is made for linearly separable data: each mistake asks for a margin of 1 on the new
    sample while keeping the old constraints' relaxation, and on a stream with label noise or
    overlapping classes ``|w|`` grows geometrically (on River's Bananas, standardised, a weight
    passes 1e100 at the 603rd sample). Once an update would overflow float64, every further
    mistake is refused with :class:`~imbalance_stream.base.NumericalError` and the weights stay
    as they are, still predicting (the step checks every new value before it writes any, since
    the rescaling reaches the weights of all features; ``replay_array`` skips such a step). To
    compare with it on noisy data, catch that error (or use
    :class:`~imbalance_stream.linear_model.PA` or :class:`~imbalance_stream.linear_model.AROW`,
    which are made for it).

    Parameters
    ----------
    %(positive_intercept)s

    %(changed_attributes)s

    Examples
    --------

    On a stream that is not linearly separable the weights grow until an update would overflow;
    from then on every mistake is refused and the model keeps predicting with the weights it has:

    >>> from river import datasets, preprocessing
    >>> from imbalance_stream.base import NumericalError
    >>> from imbalance_stream.linear_model import ROMMA

    >>> model = preprocessing.StandardScaler() | ROMMA()
    >>> refused = 0
    >>> for x, y in datasets.Bananas():
    ...     try:
    ...         model.learn_one(x, y)
    ...     except NumericalError:
    ...         refused += 1
    >>> model["ROMMA"].n_updates, refused
    (327, 2637)

    References
    ----------
    Li, Y., Long, P. M. (2002). The Relaxed Online Maximum Margin Algorithm. Machine Learning,
    46(1-3), 361-387.

    """

    _replay_kind = stream.ROMMA

    def _learn(self, indices, values, sign):
        updated = kernels.romma_step(self._weights, len(self._features), indices, values, sign)
        if updated == REFUSED:  # nothing was written: the rescaling reaches every weight
            raise self._numerical_error()
        self.n_updates += updated == UPDATED

    def _numerical_error(self):
        """ROMMA's overflow is its weights' growth on data that is not separable, not the
        features' scale: say so."""
        return NumericalError(
            "ROMMA: this mistake's update would overflow the weights (|w| grows geometrically "
            "when the stream is not linearly separable, which ROMMA assumes); it was not learned "
            "and the model is unchanged. Catch NumericalError to go on, or use PA or AROW for "
            "noisy data"
        )

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"intercept": True}
