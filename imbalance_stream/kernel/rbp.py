"""RBP: the randomised budget perceptron (KOIL's baseline)."""

from __future__ import annotations

import numpy as np

from imbalance_stream.base.validation import check_int, check_seed

from ._expansion import ArrivalOrderExpansion, shared_docs

__all__ = ["RBP"]


@shared_docs
class RBP(ArrivalOrderExpansion):
    """Randomised Budget Perceptron (RBP).

    A kernel perceptron with at most ``budget`` stored vectors. On a mistake (``y f(x) <= 0``) the
    sample is stored with coefficient ``y``; if the budget is already full, a uniformly chosen
    stored vector is deleted first (Cavallanti, Cesa-Bianchi and Gentile 2007). Correct predictions
    change nothing.

    KOIL's experiments (the thesis's section 3.5) give RBP "a buffer of 100 for each class"; RBP
    has a single buffer, so ``budget=200``, the same number of stored vectors as KOIL's two
    buffers, is the default here (D-KOIL-21).

    Parameters
    ----------
    %(fixed_budget)s
    %(kernel)s
    %(positive)s
    seed
        Seed of the random deletions.

    Attributes
    ----------
    n_mistakes
        Mistakes made while learning.

    Examples
    --------

    Once the budget is full, each mistake replaces a stored vector chosen at random:

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.kernel import RBP

    >>> model = preprocessing.StandardScaler() | RBP(budget=50, gamma=0.1, seed=1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.ROCAUC())
    ROCAUC: 89.52%
    >>> model["RBP"].n_mistakes, model["RBP"].n_support
    (217, 50)

    References
    ----------
    Cavallanti, G., Cesa-Bianchi, N., Gentile, C. (2007). Tracking the best hyperplane with a
    simple budget Perceptron. Machine Learning 69(2-3).

    """

    def __init__(
        self,
        budget: int = 200,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 0.0,
        positive=True,
        seed: int | None = None,
    ):
        check_int("budget", budget, low=1)
        check_seed(seed)
        super().__init__(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, positive=positive)
        self.budget = budget
        self.seed = seed
        self._rng = np.random.default_rng(seed)
        self.n_mistakes = 0

    def _learn(self, indices, values, sign):
        x = self._dense(indices, values)
        if sign * self._score(x) > 0.0:
            return
        self.n_mistakes += 1
        if self._count == self.budget:
            self._remove(int(self._rng.integers(self._count)))
        self._append(x, sign)

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 0}
        yield {"budget": 5, "gamma": 0.1, "seed": 1}
        yield {"budget": 3, "kernel": "linear"}
