"""Forgetron: a kernel perceptron on a fixed budget that shrinks before it forgets (KOIL's
baseline)."""

from __future__ import annotations

from imbalance_stream.base.validation import check_int

from ._expansion import ArrivalOrderExpansion, shared_docs

__all__ = ["Forgetron"]


def _damage(lam: float, mu: float) -> float:
    """``Psi(lam, mu) = lam^2 + 2 lam - 2 lam mu``: the bound on what removing a term costs."""
    return lam * lam + 2.0 * lam - 2.0 * lam * mu


@shared_docs
class Forgetron(ArrivalOrderExpansion):
    """The self-tuned Forgetron.

    A kernel perceptron ``f = sum_i sigma_i y_i k(x_i, .)`` with at most ``budget`` stored vectors.
    On a mistake (``y f(x) <= 0``) the sample is added with ``sigma = 1`` (giving ``f'``); if the
    budget is then exceeded, every coefficient is shrunk by ``phi`` (giving ``f'' = phi f'``) and
    the oldest vector ``r`` is removed. ``phi`` is the largest value in (0, 1] such that the
    accumulated damage stays within ``15/32`` of the number of mistakes ``M``:

    ``Q + Psi(phi sigma_r, mu) <= 15/32 M``,  ``Psi(l, mu) = l^2 + 2 l - 2 l mu``,
    ``mu = y_r f''(x_r) = phi y_r f'(x_r)``,

    after which ``Q`` grows by that damage (Dekel, Shalev-Shwartz and Singer 2008, the self-tuned
    Forgetron). ``Q <= 15/32 M`` holds at every mistake, so the bound leaves room for a positive
    ``phi``; it is found by bisection (the constraint crosses its bound once in (0, 1)).

    KOIL's experiments (the thesis's section 3.5) give the Forgetron "a buffer of 100 for each
    class"; it has one buffer, so ``budget=200`` (KOIL's total, D-KOIL-21) is the default here.

    Parameters
    ----------
    %(fixed_budget)s
    %(kernel)s
    %(positive)s

    Attributes
    ----------
    n_mistakes
        Mistakes made while learning (``M``).
    damage
        The accumulated damage ``Q``.

    Examples
    --------

    Past the budget, each mistake removes the oldest vector, and the shrinking keeps the
    damage of the removals within ``15/32`` of the mistakes:

    >>> from river import datasets, preprocessing
    >>> from imbalance_stream.kernel import Forgetron

    >>> forgetron = Forgetron(budget=50, gamma=0.1)
    >>> model = preprocessing.StandardScaler() | forgetron
    >>> for x, y in datasets.Phishing():
    ...     model.learn_one(x, y)
    >>> forgetron.n_support, forgetron.n_mistakes, round(forgetron.damage, 2)
    (50, 222, 102.56)
    >>> forgetron.damage <= 15 / 32 * forgetron.n_mistakes
    True

    References
    ----------
    Dekel, O., Shalev-Shwartz, S., Singer, Y. (2008). The Forgetron: A kernel-based perceptron on
    a budget. SIAM Journal on Computing 37(5).

    """

    def __init__(
        self,
        budget: int = 200,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        coef0: float = 0.0,
        positive=True,
    ):
        check_int("budget", budget, low=1)
        super().__init__(kernel=kernel, gamma=gamma, degree=degree, coef0=coef0, positive=positive)
        self.budget = budget
        self.n_mistakes = 0
        self.damage = 0.0

    def _learn(self, indices, values, sign):
        x = self._dense(indices, values)
        if sign * self._score(x) > 0.0:
            return
        self.n_mistakes += 1
        self._append(x, sign)
        if self._count <= self.budget:
            return
        oldest = self._X[0]
        alpha_r = self._alpha[0]
        sigma_r = abs(alpha_r)
        label_r = 1.0 if alpha_r > 0 else -1.0
        margin_r = label_r * self._score(oldest)  # y_r f'(x_r)
        room = 15.0 / 32.0 * self.n_mistakes - self.damage

        def excess(phi):
            return _damage(phi * sigma_r, phi * margin_r) - room

        if excess(1.0) <= 0.0:
            phi = 1.0
        else:
            low, high = 0.0, 1.0  # excess(0) = -room < 0 < excess(1)
            for _ in range(60):
                middle = 0.5 * (low + high)
                if excess(middle) <= 0.0:
                    low = middle
                else:
                    high = middle
            phi = low
        # a Python float: a numpy scalar would pickle its dtype anew after a round trip
        self.damage += float(_damage(phi * sigma_r, phi * margin_r))
        self._alpha[: self._count] *= phi
        self._remove(0)

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"budget": 5, "gamma": 0.1}
        yield {"budget": 2, "kernel": "poly", "degree": 3, "gamma": 0.1, "coef0": 1.0}
