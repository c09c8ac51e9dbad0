"""The Perceptron baseline of the ACOG paper (its section 4.1), in the paper's form."""

from __future__ import annotations

from imbalance_stream._numba import first_order as kernels
from imbalance_stream._numba import stream

from ._docs import shared_docs
from ._first_order import FirstOrderLinear

__all__ = ["Perceptron"]


@shared_docs
class Perceptron(FirstOrderLinear):
    """Perceptron (Rosenblatt 1958) as the ACOG paper's baseline: linear, no bias, ``w_1 = 0``,
    predict the positive label when ``w.x >= 0``, and ``w <- w + y x`` on every mistake.

    ``river.linear_model.Perceptron`` is not the same model, so it is not reused: it learns a
    bias (intercept step 1, not optional), and its update condition is ``y w.x <= 0`` (hinge
    loss with threshold 0), so it also updates when a positive sample scores exactly 0, which
    the paper's tie rule counts as correct; and it takes boolean labels only. Here any two
    labels work, the rare one named by ``positive``, and ``intercept=True`` adds an optional
    bias as a constant feature. Probabilities are ``1 / (1 + exp(-w.x))``.

    Parameters
    ----------
    %(positive_intercept)s

    Attributes
    ----------
    n_updates
        Number of mistakes, i.e. of updates.

    Examples
    --------

    Without a scaler in front, learning and prediction see the same ``w.x``, so each update is a
    mistake of the progressive validation:

    >>> from river import datasets, evaluate, metrics
    >>> from imbalance_stream.linear_model import Perceptron

    >>> model = Perceptron()
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 78.48%
    >>> model.n_updates  # (1 - 0.7848) * 1,250 mistakes
    269

    References
    ----------
    Rosenblatt, F. (1958). The perceptron: a probabilistic model for information storage and
    organization in the brain. Psychological Review, 65(6).

    """

    _replay_kind = stream.PERCEPTRON

    def _learn(self, indices, values, sign):
        # A mistake: a positive with w.x < 0, or a negative with w.x >= 0.
        updated = kernels.additive_step(self._weights, indices, values, sign, 0.0, sign < 0, 1.0)
        self.n_updates += bool(updated)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"intercept": True}
        yield {"positive": False}
