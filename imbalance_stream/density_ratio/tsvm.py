"""The sample-weighted transductive SVM (Algorithm 5), the learner of DDR-TSVM."""

from __future__ import annotations

import numpy as np
from river import base
from scipy import optimize

from imbalance_stream.base.validation import check_int, check_real, check_seed

from .base import NotFitted, as_matrix

__all__ = ["WeightedTSVM", "platt_fit", "stratified_folds", "switchable_pairs"]


def platt_fit(
    decision: np.ndarray, positive: np.ndarray, weights: np.ndarray
) -> tuple[float, float]:
    """Platt's sigmoid ``p(+|f) = 1 / (1 + exp(a f + b))`` fitted to decision values by weighted
    maximum likelihood with Platt's smoothed targets ``(N+ + 1) / (N+ + 2)`` and
    ``1 / (N- + 2)`` (Platt, 1999). Returns ``(a, b)``."""
    n_pos, n_neg = weights[positive].sum(), weights[~positive].sum()
    target = np.where(positive, (n_pos + 1.0) / (n_pos + 2.0), 1.0 / (n_neg + 2.0))

    def loss(params):
        z = params[0] * decision + params[1]
        # -log-likelihood of the smoothed targets with log(1 + e^z) written stably
        log_one_plus = np.logaddexp(0.0, z)
        value = weights @ (target * log_one_plus + (1.0 - target) * (log_one_plus - z))
        p = 1.0 / (1.0 + np.exp(-z))  # d/dz of log(1 + e^z)
        g = weights * (p - (1.0 - target))
        return value, np.array([g @ decision, g.sum()])

    start = np.array([-1.0, np.log((n_neg + 1.0) / (n_pos + 1.0))])
    result = optimize.minimize(loss, start, jac=True, method="L-BFGS-B")
    return float(result.x[0]), float(result.x[1])


def stratified_folds(positive: np.ndarray, n_folds: int, rng) -> np.ndarray:
    """A fold index in ``range(n_folds)`` for each row, each class shuffled and dealt round-robin
    so that every fold holds its share of both classes."""
    folds = np.empty(len(positive), dtype=np.int64)
    for members in (np.flatnonzero(positive), np.flatnonzero(~positive)):
        folds[rng.permutation(members)] = np.arange(len(members)) % n_folds
    return folds


def switchable_pairs(labels: np.ndarray, decision: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Joachims' (1999) label switch: pairs ``(i, j)`` of pseudo-labelled points, ``i`` positive
    and ``j`` negative, with slacks ``xi_i, xi_j > 0`` and ``xi_i + xi_j > 2``, where
    ``xi = max(0, 1 - label f)``. The positives and the negatives are each taken in decreasing
    slack and paired in that order, so the pairs are disjoint and the most violated go first
    (D-DR-37). Returns the indices ``(i, j)``."""
    slack = np.maximum(0.0, 1.0 - labels * decision)
    positives = np.flatnonzero((labels > 0) & (slack > 0))
    negatives = np.flatnonzero((labels < 0) & (slack > 0))
    positives = positives[np.argsort(-slack[positives], kind="stable")]
    negatives = negatives[np.argsort(-slack[negatives], kind="stable")]
    count = min(len(positives), len(negatives))
    i, j = positives[:count], negatives[:count]
    keep = slack[i] + slack[j] > 2.0
    return i[keep], j[keep]


class WeightedTSVM(base.Base):
    """Sample-weighted transductive SVM (Miao, 2015, Algorithm 5; Joachims, 1999).

    Fits ``min 1/2 ||h||^2 + C sum_i w_i hinge(y_i h(x_i)) + c2 sum_j hinge(y'_j h(x'_j))``
    (eq. 4.14) over the labelled rows, each with its weight ``w_i``, and the unlabelled rows
    ``x'_j``, whose labels ``y'_j`` are guessed: the weighted SVM first labels them, then ``c2``
    anneals from ``c2_start``, doubling, up to ``lambda2 * C`` (``lambda2 = 0.1``: 14 stages),
    and at each stage pairs of opposite guesses whose slacks sum above 2 swap labels and the SVM
    is refitted, until no such pair is left or after ``max_switch_rounds`` rounds. The number of
    positive guesses is fixed, as in Joachims' TSVM, but at the unlabelled rows' prior as the
    weighted SVM's Platt posteriors estimate it (eq. 4.15), not at the labelled rows' (D-DR-36).
    Without unlabelled rows, or with ``lambda2 = 0``, it is the importance-weighted SVM (eq. 3.32).

    The inner solver is scikit-learn's ``SVC`` (LIBSVM) with per-sample costs through
    ``sample_weight`` (the ``sklearn`` extra). More than two classes are fitted one against the
    rest. ``predict_proba`` is Platt's sigmoid fitted with the labelled rows' weights on their
    cross-validated decision values, as LIBSVM's ``-b 1`` does (normalised over the classes when
    there are more than two; D-DR-41).

    Parameters
    ----------
    C
        Cost of the labelled hinge loss (LIBSVM's default 1).
    lambda2
        Final cost of the unlabelled hinge loss, relative to ``C`` (0.1 in the thesis).
    kernel
        ``"rbf"`` or ``"linear"``.
    gamma
        RBF coefficient of ``exp(-gamma ||a - b||^2)``; None is LIBSVM's default, 1 / (number of
        features).
    c2_start
        First cost of the unlabelled rows (1e-5 in Algorithm 5).
    max_switch_rounds
        Most label-switching refits per annealing stage.
    platt_folds
        Folds of the cross-validated decision values Platt's sigmoid is fitted on (5, as
        LIBSVM's ``-b 1``); 0 fits it on the labelled rows' own decision values (D-DR-41).
    seed
        Seed of the folds.

    Attributes
    ----------
    classes_
        The labels.
    n_fits_
        SVM fits made by ``fit``.

    Examples
    --------

    Sixty labelled breast-cancer diagnoses, the rest given unlabelled to the transductive fit:

    >>> import numpy as np
    >>> from sklearn.datasets import load_breast_cancer
    >>> from imbalance_stream.density_ratio import WeightedTSVM
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> X = 2 * (X - X.min(0)) / (X.max(0) - X.min(0)) - 1
    >>> order = np.random.default_rng(0).permutation(len(y))
    >>> labelled, unlabelled = order[:60], order[60:]
    >>> tsvm = WeightedTSVM().fit(X[labelled], y[labelled], X_unlabelled=X[unlabelled])
    >>> float(np.mean(tsvm.predict(X[unlabelled]) == y[unlabelled])) > 0.9
    True

    References
    ----------
    Joachims, T. (1999). Transductive inference for text classification using support vector
    machines. ICML.

    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Section 4.3.1, Algorithm 5.

    """

    def __init__(
        self,
        C: float = 1.0,
        lambda2: float = 0.1,
        kernel: str = "rbf",
        gamma: float | None = None,
        c2_start: float = 1e-5,
        max_switch_rounds: int = 10,
        platt_folds: int = 5,
        seed: int | None = None,
    ):
        self.C = check_real("C", C, low=0.0, low_open=True)
        self.lambda2 = check_real("lambda2", lambda2, low=0.0)
        if kernel not in ("rbf", "linear"):
            raise ValueError(f"kernel must be 'rbf' or 'linear', got {kernel!r}")
        self.kernel = kernel
        self.gamma = check_real("gamma", gamma, low=0.0, low_open=True, optional=True)
        self.c2_start = check_real("c2_start", c2_start, low=0.0, low_open=True)
        self.max_switch_rounds = check_int("max_switch_rounds", max_switch_rounds, low=0)
        self.platt_folds = check_int("platt_folds", platt_folds, low=0)
        if self.platt_folds == 1:
            raise ValueError("platt_folds must be 0 (no cross-validation) or at least 2")
        self.seed = check_seed(seed)

    def _svc(self, n_features: int):
        from sklearn.svm import SVC

        gamma = self.gamma if self.gamma is not None else 1.0 / n_features
        return SVC(C=1.0, kernel=self.kernel, gamma=gamma)  # costs go through sample_weight

    def _platt(self, model, X, signs, weights, pseudo=None) -> tuple[float, float]:
        """Platt's sigmoid for ``model`` (Platt, 1999, Section 2.2): fitted on out-of-fold decision
        values of the labelled rows, each fold's SVM trained on the other labelled rows and the
        ``pseudo = (rows, labels, costs)`` pseudo-labelled rows of the final stage, because the
        rows' own decision values are over-confident (D-DR-41). A fold whose complement lacks a
        class keeps ``model``'s own values."""
        decision = model.decision_function(X)
        if self.platt_folds:
            rng = np.random.default_rng(self.seed)
            folds = stratified_folds(signs > 0, self.platt_folds, rng)
            costs = self.C * weights
            for k in range(self.platt_folds):
                held, kept = folds == k, folds != k
                if not held.any() or len(np.unique(signs[kept])) < 2:
                    continue
                rows, labels, cost = X[kept], signs[kept], costs[kept]
                if pseudo is not None:
                    rows = np.vstack([rows, pseudo[0]])
                    labels = np.concatenate([labels, pseudo[1]])
                    cost = np.concatenate([cost, pseudo[2]])
                fold_model = self._svc(X.shape[1]).fit(rows, labels, sample_weight=cost)
                decision[held] = fold_model.decision_function(X[held])
        return platt_fit(decision, signs > 0, weights)

    def _fit_binary(self, X, signs, weights, unlabelled):
        """Algorithm 5 for one binary problem (``signs`` in {-1, +1}); returns the final SVC and
        the Platt parameters of its decision values."""
        costs = self.C * weights
        model = self._svc(X.shape[1]).fit(X, signs, sample_weight=costs)
        self.n_fits_ += 1
        final_c2 = self.lambda2 * self.C
        if unlabelled is not None and self.c2_start <= final_c2:
            decision = model.decision_function(unlabelled)
            a, b = self._platt(model, X, signs, weights)
            # eq. 4.15's estimate of the unlabelled rows' prior under the weighted SVM (D-DR-36)
            share = float(np.mean(1.0 / (1.0 + np.exp(np.clip(a * decision + b, -500, 500)))))
            n_positive = int(round(share * len(unlabelled)))
            guesses = -np.ones(len(unlabelled))
            guesses[np.argsort(-decision, kind="stable")[:n_positive]] = 1.0
            pooled = np.vstack([X, unlabelled])
            c2 = self.c2_start
            while c2 <= final_c2:
                for _ in range(self.max_switch_rounds + 1):
                    model = self._svc(X.shape[1]).fit(
                        pooled,
                        np.concatenate([signs, guesses]),
                        sample_weight=np.concatenate([costs, np.full(len(guesses), c2)]),
                    )
                    self.n_fits_ += 1
                    i, j = switchable_pairs(guesses, model.decision_function(unlabelled))
                    if len(i) == 0:
                        break
                    guesses[i], guesses[j] = -1.0, 1.0
                c2 *= 2.0
            pseudo = (unlabelled, guesses, np.full(len(guesses), c2 / 2.0))
            return model, self._platt(model, X, signs, weights, pseudo)
        return model, self._platt(model, X, signs, weights)

    def fit(self, X, y, sample_weight=None, X_unlabelled=None):
        """Fit on labelled rows ``(X, y)`` with weights ``sample_weight`` (default 1) and the
        unlabelled rows ``X_unlabelled`` (None: the weighted SVM alone). Returns ``self``."""
        X = as_matrix(X, "X")
        labels = np.asarray(y)
        if labels.ndim != 1 or len(labels) != X.shape[0]:
            raise ValueError(f"y must hold one label per row of X ({X.shape[0]})")
        weights = (
            np.ones(len(labels)) if sample_weight is None else np.asarray(sample_weight, float)
        )
        if weights.shape != labels.shape or not np.isfinite(weights).all() or (weights < 0).any():
            raise ValueError("sample_weight must hold one finite non-negative value per row")
        unlabelled = (
            None if X_unlabelled is None else as_matrix(X_unlabelled, "X_unlabelled", X.shape[1])
        )
        self.classes_, codes = np.unique(labels, return_inverse=True)
        if len(self.classes_) < 2:
            raise ValueError(f"y needs two classes or more, got {list(self.classes_)}")
        self.n_fits_ = 0
        # one binary problem for two classes (the second is positive), else one per class
        targets = [1] if len(self.classes_) == 2 else range(len(self.classes_))
        self._machines = [
            self._fit_binary(X, np.where(codes == c, 1.0, -1.0), weights, unlabelled)
            for c in targets
        ]
        self.n_features_in_ = X.shape[1]
        return self

    def decision_function(self, X) -> np.ndarray:
        """Decision values: one column per class for more than two classes, else one value per
        row (positive for the second class)."""
        if not hasattr(self, "_machines"):
            raise NotFitted("WeightedTSVM must be fitted before it predicts")
        X = as_matrix(X, "X", self.n_features_in_)
        values = np.stack([model.decision_function(X) for model, _ in self._machines], 1)
        return values[:, 0] if len(self.classes_) == 2 else values

    def predict_proba(self, X) -> np.ndarray:
        """Platt posteriors, columns in the order of ``classes_``."""
        values = self.decision_function(X)
        if values.ndim == 1:
            a, b = self._machines[0][1]
            positive = 1.0 / (1.0 + np.exp(np.clip(a * values + b, -500, 500)))
            return np.stack([1.0 - positive, positive], 1)
        columns = [
            1.0 / (1.0 + np.exp(np.clip(a * values[:, c] + b, -500, 500)))
            for c, (_, (a, b)) in enumerate(self._machines)
        ]
        proba = np.stack(columns, 1)
        return proba / np.maximum(proba.sum(1, keepdims=True), 1e-300)

    def predict(self, X) -> np.ndarray:
        """The label of largest decision value."""
        values = self.decision_function(X)
        index = (values > 0).astype(int) if values.ndim == 1 else values.argmax(1)
        return self.classes_[index]

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"kernel": "linear", "lambda2": 0.0, "platt_folds": 0}
        yield {"lambda2": 0.0, "platt_folds": 3, "seed": 1}
