"""SACOG: ACOG with Oja's sketch of the covariance, dense or sparse (seed 002, Algorithms 2-6)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import guard, stream
from imbalance_stream._numba import linear as linear_kernels
from imbalance_stream._numba import sketch as kernels
from imbalance_stream.base import BinaryClassifier, capacity_for
from imbalance_stream.base.validation import (
    check_bool,
    check_choice,
    check_int,
    check_real,
    check_seed,
)

from ._cost import CostRatio
from ._docs import shared_docs

__all__ = ["SACOG", "initial_sketch"]

#: Re-base the sparse form once ``max |K_ij|`` exceeds this (D-ACOG-19, after Luo et al.).
REBASE_THRESHOLD = 1e7


def initial_sketch(m: int, n_columns: int, seed=None) -> np.ndarray:
    """The seeded starting directions: an ``m x n_columns`` matrix with orthonormal rows.

    i.i.d. standard normal entries from ``numpy.random.default_rng(seed)``, then Gram-Schmidt in
    row order (D-ACOG-5, as Luo et al.'s ``random_init``). Column ``j`` belongs to the ``j``-th
    feature in the estimator's canonical order (see :class:`SACOG`), so an array runner that
    calls this with the same ``seed`` and its columns in that order starts from the same sketch.
    """
    if n_columns < m:
        raise ValueError(f"{m} orthonormal rows need at least {m} columns, got {n_columns}")
    matrix = np.random.default_rng(seed).standard_normal((m, n_columns))
    kernels.orthonormalise_rows(matrix, n_columns)
    return matrix


def _canonical_order(names) -> list[int]:
    """Positions of ``names`` sorted by name (by type then repr if they do not compare)."""
    positions = range(len(names))
    try:
        return sorted(positions, key=lambda i: names[i])
    except TypeError:
        return sorted(positions, key=lambda i: (type(names[i]).__name__, repr(names[i])))


@shared_docs
class SACOG(CostRatio, BinaryClassifier):
    """Sketched Adaptive Cost-sensitive Online Gradient descent (SACOG and sparse SACOG).

    ACOG (:class:`~imbalance_stream.linear_model.ACOG`) with its covariance replaced by a
    rank-``m`` sketch: the precision ``I + sum_t x_t x_t' / gamma`` is approximated through Oja's
    algorithm by ``m`` orthonormal directions ``V`` and eigenvalue estimates ``lam``, so that
    ``Sigma = I - V' diag(D) V`` with ``D_i = t lam_i / (1 + t lam_i)`` (Eqs. 9-13). A round

    1. computes the cost-sensitive hinge loss at the current mean (loss ``"I"``:
       ``max(0, rho_y - y mu.x)``; loss ``"II"``: ``rho_y max(0, 1 - y mu.x)``; ``rho_y = rho``
       for the positive label, 1 for the negative one);
    2. takes the Oja step with ``xh = x / sqrt(gamma)``, step ``1/t`` (``oja_step / t`` if set),
       and re-orthonormalises ``V`` by Gram-Schmidt in row order. As the paper prints it
       (Algorithm 2), the sketch is updated **every round, even at zero loss**, unlike ACOG's
       covariance; ``sketch_on_loss_only=True`` updates it on positive-loss rounds only
       (D-ACOG-4);
    3. if the loss is positive, steps the mean along the sketched covariance (Eq. 10),
       ``mu += eta c_y y (x - V' (D * V x))`` with ``c_y = 1`` for loss I and ``rho_y`` for II.

    ``sparse=False`` is SACOG (Algorithms 2-3, O(m^2 d) per round). ``sparse=True`` is sparse
    SACOG (Algorithms 4-6, O(m^3 + m s) per round for ``s`` non-zeros): ``V = F Z`` and
    ``mu = w + Z' b``, with two corrections of the printed algorithms: ``delta = Gamma_t Z xh``
    (D-ACOG-22); the weight correction ``w <- w - xh (delta . b)`` applied on *every* sketch
    update (D-ACOG-21), without
    which ``w + Z' b`` drifts from ``mu`` on zero-loss rounds; the ``b`` step with the sign of
    Eq. 15; and a re-basing to the explicit form when ``max |K_ij|`` exceeds 1e7 (D-ACOG-19).
    With these the
    two forms are the same algorithm: same seed, same decisions and weights up to rounding.

    Ambiguities resolved (``docs/decisions.md``): the sketch starts from a seeded Gaussian matrix
    made orthonormal (D-ACOG-5); both forms use modified Gram-Schmidt in row order, each row
    keeping its eigenvalue (D-ACOG-7; Algorithm 6 is printed as classical Gram-Schmidt, equal in
    exact arithmetic);
    a row that becomes numerically dependent, which exact arithmetic never produces, is replaced
    by the standard basis vector least explained by the other rows instead of a random one, so
    that no random state is carried (D-ACOG-8); Gamma_t = I/t as printed, ``oja_step`` scales
    it (D-ACOG-6), ``t`` counting the sketch updates; the sketch is updated every round (no
    "every m rounds" batching, D-ACOG-9).

    Feature space. The sketch needs at least ``m`` columns: on the first sample it is drawn over
    ``max(m, n)`` columns for the ``n`` features present, in sorted-name order (so the model does
    not depend on the order of a dict's keys), the spare columns going, again in sorted order,
    to the next features to appear. Features beyond that enter with zero columns, which keeps
    the rows orthonormal, and a zero mean. As in the fixed-``d`` algorithm, the mean of
    a coordinate not yet seen can move through the projection term ``V' (D * V x)``.

    Probabilities are the probit predictive ``Phi(mu.x / sqrt(x' Sigma x))`` with the sketched
    covariance (D-ACOG-23). The paper normalises every sample to unit L2 norm: put
    ``river.preprocessing.Normalizer()`` in front to do the same.

    Parameters
    ----------
    %(cost_loss)s
    m
        Sketch size; 5 in every experiment of the paper.
    sparse
        Use the sparse re-parametrisation (the paper's SSACOG).
    %(cost_rho)s
    eta
        Step size of the mean.
    gamma
        Regularisation: the to-sketch vector is ``x / sqrt(gamma)``; 1 in the paper.
    %(positive_intercept)s
    seed
        Seed of the starting directions.
    sketch_on_loss_only
        Skip the sketch update on zero-loss rounds (off by default, as printed).
    oja_step
        Oja's step is ``Gamma_t = min(oja_step / t, 1) I``: 1 gives the paper's ``1/t``; Luo et
        al.'s code defaults to 2 (D-ACOG-6).

    Attributes
    ----------
    n_updates
        Number of rounds whose loss was positive and moved the mean.
    n_sketch_updates
        Number of Oja steps taken (the ``t`` of Gamma_t = I/t).

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import SACOG

    >>> model = preprocessing.StandardScaler() | SACOG(loss="I", m=5, eta=0.2, seed=42)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.BalancedAccuracy())
    BalancedAccuracy: 82.06%

    The sparse form is the same learner, computed differently:

    >>> model = preprocessing.StandardScaler() | SACOG(loss="I", m=5, eta=0.2, seed=42, sparse=True)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.BalancedAccuracy())
    BalancedAccuracy: 82.06%

    On 9 features a 5-direction sketch leaves the other 4 at the prior variance 1, which is why
    full ACOG does better here; the sketch pays off when ``d`` is large and the data nearly
    low-rank (the paper's mushrooms, protein, usps).

    References
    ----------
    Zhao, P., Zhang, Y., Wu, M., Hoi, S. C. H., Tan, M., Huang, J. (2018). Adaptive
    Cost-Sensitive Online Classification. IEEE Transactions on Knowledge and Data Engineering.

    Luo, H., Agarwal, A., Cesa-Bianchi, N., Langford, J. (2016). Efficient Second Order Online
    Learning by Sketching. NeurIPS.

    """

    def __init__(
        self,
        loss: str = "I",
        m: int = 5,
        sparse: bool = False,
        rho: float | None = None,
        eta: float = 1.0,
        gamma: float = 1.0,
        positive=True,
        intercept: bool = False,
        seed: int | None = None,
        sketch_on_loss_only: bool = False,
        oja_step: float = 1.0,
    ):
        check_choice("loss", loss, ("I", "II"))
        check_int("m", m, low=1)
        check_real("rho", rho, low=0.0, low_open=True, optional=True)
        check_real("oja_step", oja_step, low=0.0, low_open=True)
        check_real("eta", eta, low=0.0, low_open=True)
        check_real("gamma", gamma, low=0.0, low_open=True)
        check_bool("sparse", sparse)
        check_bool("sketch_on_loss_only", sketch_on_loss_only)
        check_seed(seed)
        super().__init__(positive=positive, intercept=intercept)
        self.loss = loss
        self.m = m
        self.sparse = sparse
        self.rho = rho
        self.eta = eta
        self.gamma = gamma
        self.seed = seed
        self.sketch_on_loss_only = sketch_on_loss_only
        self.oja_step = oja_step

        self._n_positive = 0
        self._n_negative = 0
        self.n_updates = 0
        self._n_columns = 0  # columns in use: max(m, n) after the first sample, then n
        self._n_reserved = 0  # columns of the starting sketch (spare ones wait for features)
        self._named = 0  # columns already given to a feature
        self._rounds = np.zeros(1, dtype=np.int64)
        self._eigen = np.zeros(m)
        self._basis = np.zeros((m, 0))  # V (dense) or Z (sparse)
        self._mean = np.zeros(0)  # mu (dense) or w (sparse)
        self._offsets = np.zeros(m)  # b (sparse)
        self._transform = np.eye(m)  # F (sparse)
        self._gram = np.eye(m)  # K = Z Z' (sparse)
        if intercept:
            self._grow(len(self._features))

    # ---- transactions: the sketch's arrays, copied and checked in one pass each ----------------

    #: The float arrays of the state; ``_rounds`` (int64) is copied too, but cannot overflow.
    _FLOAT_STATE = ("_mean", "_basis", "_eigen", "_offsets", "_transform", "_gram")

    def _snapshot(self, indices):
        """The attributes, with copies of the state's arrays (the step and growth write into
        them in place): what the generic snapshot saves, without its per-attribute dispatch."""
        state = vars(self).copy()
        for name in (*self._FLOAT_STATE, "_rounds"):
            state[name] = state[name].copy(order="K")  # the same layout, so the same pickle
        return state

    def _restore(self, snapshot):
        state = vars(self)
        state.clear()
        state.update(snapshot)

    def _state_finite(self, indices):
        """Whether every float of the state is finite, in one compiled call (the other
        attributes are parameters, counters and the feature space)."""
        return bool(
            guard.all_finite_six(
                self._mean, self._basis, self._eigen, self._offsets, self._transform, self._gram
            )
        )

    # ---- state --------------------------------------------------------------------------------

    @property
    def n_sketch_updates(self) -> int:
        return int(self._rounds[0])

    def _resize(self, columns: int):
        capacity = capacity_for(self._mean.shape[0], columns)
        if capacity > self._mean.shape[0]:
            mean = np.zeros(capacity)
            mean[: self._mean.shape[0]] = self._mean
            basis = np.zeros((self.m, capacity))
            basis[:, : self._basis.shape[1]] = self._basis
            self._mean, self._basis = mean, basis

    def _grow(self, n_features):
        names = self._features.names
        if self._n_columns == 0:
            # First sample: draw the starting sketch over max(m, n) columns, sorted by name.
            columns = max(self.m, n_features)
            self._resize(columns)
            start = initial_sketch(self.m, columns, self.seed)
            order = _canonical_order(names[:n_features])
            for rank, position in enumerate(order):
                self._basis[:, position] = start[:, rank]
            self._basis[:, n_features:columns] = start[:, n_features:]
            self._n_columns = columns
            self._n_reserved = columns
            self._named = n_features
            return
        previous = self._named
        if n_features > self._n_columns:
            self._resize(n_features)
            self._n_columns = n_features
        if previous < self._n_reserved:
            # The new features, in sorted-name order, take the spare starting columns first,
            # then zero columns (beyond the columns in use everything is still zero).
            block = list(range(previous, n_features))
            order = _canonical_order([names[j] for j in block])
            target = [block[position] for position in order]
            self._basis[:, target] = self._basis[:, block].copy()
            self._mean[target] = self._mean[block].copy()
        self._named = n_features

    def _learn(self, indices, values, sign):
        margin, slope = self._count_margin_slope(sign)
        # the arguments the two forms' rounds share, after their own state
        shared = (
            self._eigen,
            self._rounds,
            self._n_columns,
            indices,
            values,
            sign,
            margin,
            slope,
            self.eta,
            self.gamma,
            float(self.oja_step),
            self.sketch_on_loss_only,
        )
        if self.sparse:
            updated = kernels.sparse_sacog_step(
                self._mean,
                self._offsets,
                self._basis,
                self._transform,
                self._gram,
                *shared,
                REBASE_THRESHOLD,
            )
        else:
            updated = kernels.sacog_step(self._mean, self._basis, *shared)
        self.n_updates += bool(updated)

    # ---- the array and steps paths: jitted runs whose spoilt round is undone ------------------

    def _kept_unless_spoilt(self, run, sizes, colmap):
        """``run(None)``, one call of a jitted runner that returns ``(steps run, whether the
        state was left spoilt)``, kept unless that is so.

        A round writes the state in place: when one leaves a value not finite, the state (and
        the runner's counters ``sizes`` and column map ``colmap``) is put back as it was before
        the call and ``run(ran)`` runs the steps before that round again, which does what they
        did bit for bit (the rounds are deterministic), so that nothing of that round is kept, as
        ``learn_one`` keeps nothing of it; the copy costs one snapshot per call, not one per
        step. Returns what ``run(None)`` returned.
        """
        state, kept_sizes, kept_colmap = self._snapshot(None), sizes.copy(), colmap.copy()
        ran, spoilt = run(None)
        if spoilt:
            self._restore(state)
            sizes[:] = kept_sizes
            colmap[:] = kept_colmap
            again, _ = run(ran)
            if again != ran:  # the same steps, run again from the same state
                raise RuntimeError(f"SACOG's rounds are not deterministic: {again} != {ran}")
        return ran, spoilt

    def _layout(self, sizes):
        """``(capacity, layout)`` of the jitted runners: the columns in use and those given to a
        feature, and how many columns a run may use before the state must grow."""
        layout = np.array([self._n_columns, self._named, 0], dtype=np.int64)
        # once the sketch is drawn and its spare columns are given, a feature is a zero column,
        # which the runner adds; before, every feature goes through _grow (its names decide)
        settled = self._n_columns > 0 and self._named >= self._n_reserved
        capacity = self._mean.shape[0] if settled else int(sizes[stream.N_STATE])
        return capacity, layout

    def _after_run(self, layout, counts, sizes) -> bool:
        """Take back what a jitted run changed besides the arrays; whether it left the state
        spoilt."""
        self._store_cost_state(counts)
        self._n_columns, self._named = int(layout[stream.IN_USE]), int(layout[stream.NAMED])
        self.n_updates += int(sizes[stream.N_UPDATES])
        return bool(layout[stream.SPOILT])

    def _replay_kernel(
        self, start, indptr, indices, values, brings, signs, colmap, new_names, sizes, predictions
    ):
        """The array path (:meth:`~imbalance_stream.base.BinaryClassifier.replay_rows`):
        :func:`~imbalance_stream._numba.stream.replay_sacog` with the rounds ``_learn`` takes.

        The sketch depends on when features arrive and on their names: it is drawn over the
        features of the first learned row and, while it has spare columns (that row had fewer
        than ``m`` features), each new feature takes one. Until then, a row that brings a
        feature stops the run, for ``replay_rows`` to learn it with ``learn_one``; after that a
        new feature only adds a zero column, which the run adds. A round that leaves a value not
        finite is undone (:meth:`_kept_unless_spoilt`) and its row skipped, as ``learn_one``
        refuses it, and the run goes on.
        """
        while True:
            ran, spoilt = self._kept_unless_spoilt(
                lambda stop, first=start: self._run_replay_kernel(
                    first, len(signs) if stop is None else stop, indptr, indices, values, brings,
                    signs, colmap, new_names, sizes, predictions,
                ),
                sizes,
                colmap,
            )  # fmt: skip
            if not spoilt:
                return ran
            start = ran + 1  # that row is predicted, and its round refused
            if brings[ran]:  # its names come later, if at all (see replay_sacog)
                sizes[stream.FAITHFUL] = 0

    def _run_replay_kernel(
        self, start, stop, indptr, indices, values, brings, signs, colmap, new_names, sizes,
        predictions,
    ):  # fmt: skip
        """One call of :func:`~imbalance_stream._numba.stream.replay_sacog` over the rows
        ``start .. stop - 1``: ``(row it stopped at, whether the state was left spoilt)``."""
        rho, laplace, counts = self._cost_state()
        capacity, layout = self._layout(sizes)
        sizes[stream.N_UPDATES] = 0
        ran = stream.replay_sacog(
            start, stop, indptr, indices, values, brings, signs, colmap, new_names, sizes,
            capacity, layout, bool(self.sparse), self._mean, self._offsets,
            self._basis, self._transform, self._gram, self._eigen, self._rounds,
            self.loss == "I", rho, laplace, counts, float(self.eta), float(self.gamma),
            float(self.oja_step), bool(self.sketch_on_loss_only), REBASE_THRESHOLD, predictions,
        )  # fmt: skip
        return ran, self._after_run(layout, counts, sizes)

    def _steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas):
        """The steps path (:meth:`~imbalance_stream.base.BinaryClassifier.run_steps`):
        :func:`~imbalance_stream._numba.stream.steps_sacog` with the rounds ``_learn`` takes.

        A step that brings a feature while the sketch is not drawn yet or a spare column of it
        waits stops the run, for ``run_steps`` to grow the state with the names committed, as
        ``learn_one`` does (the sketch is drawn, and spare columns given, in sorted-name order).
        A round that leaves a value not finite stops it too, undone
        (:meth:`_kept_unless_spoilt`).
        """
        ran, _ = self._kept_unless_spoilt(
            lambda stop: self._run_steps_kernel(
                rows[:stop], learn[:stop], signs[:stop], colmap, new_names, sizes,
                decisions[:stop], probas[:stop],
            ),
            sizes,
            colmap,
        )  # fmt: skip
        return ran

    def _run_steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas):
        """One call of the jitted runner: ``(steps run, whether the state was left spoilt)``."""
        rho, laplace, counts = self._cost_state()
        capacity, layout = self._layout(sizes)
        sizes[stream.N_UPDATES] = 0
        ran = stream.steps_sacog(
            rows, learn, signs, colmap, new_names, sizes, self.intercept, capacity, layout,
            bool(self.sparse), self._mean, self._offsets, self._basis, self._transform,
            self._gram, self._eigen, self._rounds, self.loss == "I", rho, laplace, counts,
            float(self.eta), float(self.gamma), float(self.oja_step),
            bool(self.sketch_on_loss_only), REBASE_THRESHOLD, decisions, probas,
        )  # fmt: skip
        return ran, self._after_run(layout, counts, sizes)

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        if not len(indices) or not self._n_columns:
            return 0.0
        if self.sparse:
            return kernels.sparse_sacog_score(
                self._mean, self._offsets, self._basis, indices, values
            )
        return linear_kernels.sparse_dot(self._mean, indices, values)

    def _variance(self, indices, values):
        """``x' Sigma x`` under the sketched covariance."""
        if self.sparse:
            return kernels.sparse_sketch_variance(
                self._basis, self._transform, self._eigen, self._rounds, indices, values
            )
        return kernels.sketch_variance(self._basis, self._eigen, self._rounds, indices, values)

    def _proba(self, indices, values):
        score = self._decision(indices, values)
        if score == 0.0:
            return 0.5
        variance = self._variance(indices, values)
        if not variance > 0.0:
            return float(score > 0.0)
        return linear_kernels.probit(score / math.sqrt(variance))

    # ---- introspection ------------------------------------------------------------------------

    def _mean_vector(self) -> np.ndarray:
        """``mu`` over the columns in use (materialised as ``w + Z' b`` in the sparse form)."""
        n = self._n_columns
        if self.sparse:
            return self._mean[:n] + self._basis[:, :n].T @ self._offsets
        return self._mean[:n].copy()

    @property
    def weights(self) -> dict:
        """The mean weight of every feature seen, by name (the bias is ``intercept_``)."""
        return self._features.to_dict(self._mean_vector())

    @property
    def intercept_(self) -> float:
        return float(self._mean_vector()[0]) if self.intercept and self._n_columns else 0.0

    @property
    def directions(self) -> np.ndarray:
        """The sketch's orthonormal directions ``V`` (m x columns in use; ``F Z`` if sparse)."""
        n = self._n_columns
        if self.sparse:
            return self._transform @ self._basis[:, :n]
        return self._basis[:, :n].copy()

    @property
    def eigenvalues(self) -> np.ndarray:
        """``t * lam``: the sketched eigenvalues of ``sum_t xh_t xh_t'``."""
        return self._rounds[0] * self._eigen

    @classmethod
    def _unit_test_params(cls):
        yield {"seed": 1}
        yield {"sparse": True, "seed": 1}
        yield {"loss": "II", "m": 3, "rho": 3.0, "eta": 0.5, "intercept": True, "seed": 2}
        yield {"loss": "II", "sparse": True, "intercept": True, "sketch_on_loss_only": True}
        yield {"sparse": True, "oja_step": 2.0, "seed": 3}
