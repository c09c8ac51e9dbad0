"""The PA-I baseline of the ACOG paper (its section 4.1)."""

from __future__ import annotations

import math

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base.validation import check_real

from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["PA"]


@shared_docs
class PA(FirstOrderLinear):
    """Passive-Aggressive classifier, PA-I (Crammer et al. 2006), as the ACOG paper's baseline.

    With the hinge loss ``l = max(0, 1 - y w.x)``: if ``l > 0``,
    ``tau = min(C, l / |x|^2)`` and ``w <- w + tau y x``. ``C = math.inf`` gives the plain PA.
    No bias, ``w_1 = 0``, positive label when ``w.x >= 0``.

    ``river.linear_model.PAClassifier(C, mode=1, learn_intercept=False)`` learns the same
    weights (a test checks it), and is not reused because it differs around them: its
    prediction is the argmax of ``{False: 1 - s, True: s}`` with ``s = sigmoid(w.x)``, so a
    score of exactly 0 (e.g. the first sample) is predicted ``False`` where the paper predicts
    the rare class; it takes boolean labels only; it stores weights in a dict, which the
    package's jitted whole-stream runners cannot use; and a NaN feature reaches its weights.
    Probabilities here are ``1 / (1 + exp(-w.x))`` as in River.

    Parameters
    ----------
    C
        Aggressiveness: the largest step; the paper selects it from {1e-5, ..., 1e5}.
    %(positive_intercept)s

    %(hinge_attributes)s

    Examples
    --------

    ``C`` caps the step; ``C=math.inf`` is the plain PA, which steps as far as the loss asks:

    >>> import math
    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import PA

    >>> capped = preprocessing.StandardScaler() | PA(C=0.1)
    >>> plain = preprocessing.StandardScaler() | PA(C=math.inf)
    >>> evaluate.progressive_val_score(datasets.Phishing(), capped, metrics.BalancedAccuracy())
    BalancedAccuracy: 87.83%
    >>> evaluate.progressive_val_score(datasets.Phishing(), plain, metrics.BalancedAccuracy())
    BalancedAccuracy: 84.06%

    References
    ----------
    Crammer, K., Dekel, O., Keshet, J., Shalev-Shwartz, S., Singer, Y. (2006). Online
    Passive-Aggressive Algorithms. Journal of Machine Learning Research, 7, 551-585.

    """

    def __init__(self, C: float = 1.0, positive=True, intercept: bool = False):
        check_real("C", C, low=0.0, low_open=True, finite=False)
        super().__init__(positive=positive, intercept=intercept)
        self.C = C

    _replay_kind = stream.PA

    def _replay_parameters(self):
        return 1.0, float(self.C), 1.0

    def _learn(self, indices, values, sign):
        updated = kernels.passive_aggressive_step(
            self._weights, indices, values, sign, 1.0, False, 1.0, float(self.C)
        )
        self.n_updates += bool(updated)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 0.01, "intercept": True}
        yield {"C": math.inf}
