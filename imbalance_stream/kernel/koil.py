"""KOIL: kernelized online imbalanced learning with fixed budgets (seed 000, chapter 3)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from imbalance_stream._numba import budget as budgets
from imbalance_stream._numba import kernels
from imbalance_stream._numba import koil as steps
from imbalance_stream.base import BinaryClassifier, capacity_for
from imbalance_stream.base._docstrings import shared_docs
from imbalance_stream.base.features import KERNEL_MAX_FEATURES
from imbalance_stream.base.validation import check_choice, check_int, check_real, check_seed

__all__ = ["KOIL"]

_NEIGHBOR_MODES = ("violators_then_knn", "knn_then_violators")
_LOSSES = ("hinge", "smooth")
_SIMILARITIES = ("kernel", "euclidean")
#: No kernel row to start a step from (the step computes it).
_NO_ROW = np.empty(0)
#: ``undo[0]`` before a step: nothing saved yet (:func:`~imbalance_stream._numba.koil.koil_restore`
#: then restores nothing).
_NOTHING_SAVED = -2.0
#: Uniforms drawn from the generator at a time for the reservoir (an even number: two a step).
_UNIFORM_BLOCK = 64


def logistic(score: float) -> float:
    """``1 / (1 + exp(-score))`` without overflow."""
    if score >= 0.0:
        return 1.0 / (1.0 + math.exp(-score))
    e = math.exp(score)
    return e / (1.0 + e)


def check_common(budget, k, policy, loss, C, eta, neighbor_mode, similarity, seed) -> None:
    """Validate the hyper-parameters KOIL and KOIL-MKL share."""
    check_int("budget", budget, low=1)
    check_int("k", k, low=1)
    check_choice("policy", policy, tuple(budgets.POLICIES))
    check_choice("loss", loss, _LOSSES)
    check_real("C", C, low=0.0, low_open=True)
    check_real("eta", eta, low=0.0, low_open=True)
    check_choice("neighbor_mode", neighbor_mode, _NEIGHBOR_MODES)
    check_choice("similarity", similarity, _SIMILARITIES)
    check_seed(seed)


class KernelPool:
    """The array state of KOIL learners (see :mod:`imbalance_stream._numba.koil`).

    One pool of slots holds both class buffers; with a bounded policy its size is fixed at
    ``2 * budget`` slots and it carries the Gram cache, with ``"inf"`` it doubles when full and
    computes the kernel rows a step needs instead of caching a quadratic matrix. ``learners``
    stacks that many independent learners along a leading axis (KOIL-MKL, one per kernel);
    ``None`` keeps a single learner without the leading axis.
    """

    def __init__(self, budget: int, bounded: bool, learners: int | None = None):
        capacity = 2 * budget if bounded else 16
        lead = () if learners is None else (learners,)
        self.bounded = bounded
        self.X = np.zeros(lead + (capacity, 0))
        self.beta = np.zeros(lead + (capacity,))
        self.h = np.zeros(lead + (capacity,))
        gram = capacity if bounded else 0
        self.G = np.zeros(lead + (gram, gram))
        self.members = np.zeros(lead + (2, capacity), dtype=np.int64)
        self.ints = np.zeros(lead + (steps.N_INTS,), dtype=np.int64)
        self.floats = np.ones(lead + (1,))

    @staticmethod
    def _pad(array: np.ndarray, axis: int, size: int) -> np.ndarray:
        shape = list(array.shape)
        old = shape[axis]
        shape[axis] = size
        out = np.zeros(shape, dtype=array.dtype)
        index = [slice(None)] * array.ndim
        index[axis] = slice(0, old)
        out[tuple(index)] = array
        return out

    def state(self) -> steps.KOILState:
        """The arrays the step kernels read and write, as their named bundle."""
        return steps.KOILState(
            self.X, self.beta, self.h, self.G, self.members, self.ints, self.floats
        )

    def grow_columns(self, n_features: int) -> None:
        width = self.X.shape[-1]
        if n_features > width:
            self.X = self._pad(self.X, -1, capacity_for(width, n_features))

    def reserve_slot(self) -> None:
        """Make room for one more slot in every learner (only unbounded pools ever need it)."""
        capacity = self.X.shape[-2]
        if self.bounded or self.ints[..., steps.USED].max() < capacity:
            return
        self.X = self._pad(self.X, -2, 2 * capacity)
        self.members = self._pad(self.members, -1, 2 * capacity)
        self.beta = self._pad(self.beta, -1, 2 * capacity)
        self.h = self._pad(self.h, -1, 2 * capacity)

    def n_stored(self, cls: int, learner: int | None = None) -> int:
        """Number of vectors in buffer ``cls`` (0 positive, 1 negative)."""
        at = () if learner is None else (learner,)
        return int(self.ints[at + (steps.COUNT + cls,)])

    def n_seen(self, cls: int, learner: int | None = None) -> int:
        """Number of samples of class ``cls`` (0 positive, 1 negative) learned."""
        at = () if learner is None else (learner,)
        return int(self.ints[at + (steps.SEEN + cls,)])

    def scale(self, learner: int | None = None) -> float:
        """The common factor of the stored weights (the kernels keep ``beta`` unscaled)."""
        at = () if learner is None else (learner,)
        return float(self.floats[at + (steps.SCALE,)])

    def slots(self, cls: int, learner: int | None = None) -> np.ndarray:
        """The slots of buffer ``cls`` (0 positive, 1 negative), in buffer order."""
        at = () if learner is None else (learner,)
        return self.members[at + (cls,)][: self.n_stored(cls, learner)]

    def buffer(self, cls: int, learner: int | None = None):
        """Stored vectors and weights of buffer ``cls`` (0 positive, 1 negative), in order."""
        at = () if learner is None else (learner,)
        slots = self.slots(cls, learner)
        return self.X[at][slots], self.scale(learner) * self.beta[at][slots]


@shared_docs
class KOIL(BinaryClassifier):
    """Kernelized Online Imbalanced Learning with fixed budgets (KOIL).

    An online kernel learner that maximises the AUC. It keeps two buffers of support vectors,
    one per class, each holding at most ``budget`` vectors, and scores
    ``f(x) = sum_i alpha_i k(x_i, x)`` over both. Each new sample ``(x_t, y_t)`` is paired with
    the stored vectors of the other class: among those whose pairwise hinge loss
    ``1 - y_t (f(x_t) - f(x_i))`` is positive, the ``k`` most similar to ``x_t`` (largest kernel
    value) are selected; every weight decays by ``(1 - eta)``, each selected one moves by
    ``-eta C y_t`` and ``x_t`` enters with ``eta C y_t |V|`` (eq. 3.10; with ``loss="smooth"``,
    the squared hinge of eq. 3.18, the moves are ``2 eta C y_t l_i``). ``x_t`` then goes into its
    own class's buffer; when that buffer is full the policy decides what leaves:

    * ``"rs++"``: reservoir sampling (``x_t`` is kept with probability budget / seen, replacing a
      uniformly chosen vector), and the weight of whatever left (the replaced vector, or ``x_t``
      itself) is added to the most similar vector of the buffer (Algorithm 3);
    * ``"fifo++"``: the oldest vector is replaced, with the same compensation;
    * ``"rs"``, ``"fifo"``: the same without compensation; ``"inf"``: never full (the
      KOIL_inf of the ablations; memory grows with the stream).

    Resolutions of the thesis's open points (``docs/decisions.md``): neighbours are chosen as in
    its Algorithm 2 (violators first, then the ``k`` most similar; ``neighbor_mode=
    "knn_then_violators"`` gives eq. 3.9 instead; D-KOIL-1); a sample gets the bootstrap weight
    ``eta C y_t`` when the other class's buffer is empty, or when its own buffer is empty and
    no pair violates (D-KOIL-2); a sample whose weight is 0 is not stored (D-KOIL-3); the
    compensation target is a true argmax over the buffer after the replacement (D-KOIL-5). No
    bias is learned (D-KOIL-9).

    Scores and labels. ``decision_one`` is ``f(x)``, the ranking score: use it for the AUC.
    KOIL optimises a ranking and its scores are not calibrated; ``predict_proba_one`` maps them
    with the logistic function, ``P(positive) = 1 / (1 + exp(-f(x)))``, a strictly increasing
    map, so it ranks exactly like ``f``. ``predict_one`` thresholds ``f(x)`` at ``b``: by default
    ``b = 0``, the thesis's ``sgn f`` (ties, such as the score 0 of an empty model, go to the
    positive class). ``threshold="buffer_acc"`` refits ``b`` after every step the way the authors'
    code does (D-KOIL-9), to the accuracy over the stored vectors, whose scores are cached:
    the midpoint between the lowest positive and the highest negative score when they are
    separated, else the best of 500 evenly spaced values between them. The buffers hold as many
    vectors of each class, so this is close to a balanced-accuracy threshold. The probability is
    then ``1 / (1 + exp(-(f(x) - b)))``, so that it is 1/2 at the threshold; ``decision_one``
    stays ``f(x)``.

    Cost. One kernel row of ``x_t`` against the stored vectors, O(N d), plus O(N k) to update
    the cached scores of the stored vectors through the cached Gram matrix,
    instead of the O(N^2 d) of recomputing every opposite score. Memory is fixed once the
    buffers are full: ``2 budget`` vectors and a ``2 budget`` square Gram matrix.

    %(dense_limits)s

    Parameters
    ----------
    budget
        Maximum number of stored vectors per class (the thesis's N+ = N-).
    k
        Number of opposite-class neighbours a sample is paired with (about 10% of the budget).
    policy
        ``"rs++"``, ``"fifo++"``, ``"rs"``, ``"fifo"`` or ``"inf"``.
    loss
        ``"hinge"`` (pairwise hinge) or ``"smooth"`` (squared pairwise hinge). The smooth loss's
        step grows with the margin violation, so with a large ``eta * C`` (10 or more) eq. 3.18
        makes the weights grow without bound until the scores overflow. Each hinge value entering
        the smooth update is therefore clipped at 1e6, as in the authors' code, which bounds the
        weights and never binds for ``eta * C <= 1`` (docs/decisions.md, D-KOIL-27).
    C
        Penalty of the pairwise losses.
    eta
        Step size, constant, in (0, 1); ``(1 - eta)`` is also the decay of every weight.
    kernel
        ``"rbf"``: ``exp(-gamma ||x - x'||^2)`` (the thesis's Gaussian with width sigma has
        ``gamma = 1 / (2 sigma^2)``); ``"poly"``: ``(gamma x.x')^degree``; ``"linear"``: ``x.x'``.
    gamma
        Kernel scale.
    degree
        Degree of the polynomial kernel.
    %(positive)s
    seed
        Seed of the generator behind the reservoir draws.
    neighbor_mode
        ``"violators_then_knn"`` (Algorithm 2, default) or ``"knn_then_violators"`` (eq. 3.9).
    similarity
        What "most similar" means for the neighbours and the compensation target: ``"kernel"``
        (the kernel value, the thesis's choice) or ``"euclidean"`` (the smallest Euclidean
        distance; for the polynomial and linear kernels, whose values favour long vectors).
    threshold
        The decision threshold ``b`` of ``predict_one``: a number, or ``"buffer_acc"`` to refit it
        on the buffers after every step.

    Attributes
    ----------
    n_support
        Number of stored vectors, both buffers together.
    n_support_per_class
        Number of stored vectors of each label, ``{positive: n+, negative: n-}``.
    threshold_
        The threshold ``b`` in force.

    Examples
    --------

    River's Phishing data has its features in [0, 1] already (KOIL's experiments min-max scale
    theirs); ``gamma=0.5`` is the Gaussian of width ``sigma=1``.

    >>> from river import datasets, evaluate, metrics
    >>> from imbalance_stream.kernel import KOIL

    >>> model = KOIL(budget=50, k=5, C=4.0, gamma=0.5, seed=1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.ROCAUC())
    ROCAUC: 94.90%
    >>> model.n_support, model.n_support_per_class
    (100, {True: 50, False: 50})

    References
    ----------
    Hu, J., Yang, H., King, I., Lyu, M. R., So, A. M.-C. (2015). Kernelized Online Imbalanced
    Learning with Fixed Budgets. AAAI, 2666-2672.

    """

    #: Stored vectors are dense over the features: at most 65,536 of them (``FeatureSpace``).
    _max_features = KERNEL_MAX_FEATURES
    #: No uniforms drawn yet: also what a model pickled before the block draws starts from.
    _uniforms: Sequence[float] = ()
    _next_uniform = 0

    def __init__(
        self,
        budget: int = 100,
        k: int = 10,
        policy: str = "rs++",
        loss: str = "hinge",
        C: float = 1.0,
        eta: float = 0.01,
        kernel: str = "rbf",
        gamma: float = 1.0,
        degree: int = 2,
        positive=True,
        seed: int | None = None,
        neighbor_mode: str = "violators_then_knn",
        similarity: str = "kernel",
        threshold: float | str = 0.0,
    ):
        check_common(budget, k, policy, loss, C, eta, neighbor_mode, similarity, seed)
        # the decay (1 - eta) of every weight must stay positive
        check_real("eta", eta, low=0.0, high=1.0, low_open=True, high_open=True)
        check_choice("kernel", kernel, tuple(kernels.KERNELS))
        if threshold != "buffer_acc":
            check_real("threshold (a number, or 'buffer_acc')", threshold)
        check_real("gamma", gamma, low=0.0, low_open=True)
        check_int("degree", degree, low=1)
        super().__init__(positive=positive)
        self.budget = budget
        self.k = k
        self.policy = policy
        self.loss = loss
        self.C = C
        self.eta = eta
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.seed = seed
        self.neighbor_mode = neighbor_mode
        self.similarity = similarity
        self.threshold = threshold

        self._kind = kernels.kernel_id(kernel)
        self._policy = budgets.policy_id(policy)
        self._pool = KernelPool(budget, bounded=self._policy != budgets.UNBOUNDED)
        self._rng = np.random.default_rng(seed)
        # the reservoir's uniforms, drawn from ``_rng`` a block at a time (see ``_uniform_pair``)
        self._uniforms = ()
        self._next_uniform = 0
        self.threshold_ = 0.0 if threshold == "buffer_acc" else float(threshold)

    # ---- state --------------------------------------------------------------------------------

    def _grow(self, n_features):
        self._pool.grow_columns(n_features)

    #: The hyper-parameters the kernels' arguments are made of (``_arguments``).
    _ARGUMENT_PARAMS = frozenset(
        ("C", "eta", "k", "budget", "loss", "neighbor_mode", "similarity", "gamma", "degree")
    )

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if name in self._ARGUMENT_PARAMS:  # a parameter set after construction takes effect
            self.__dict__.pop("_arguments_cache", None)

    def _arguments(self) -> tuple[tuple, tuple]:
        """``(kernel, step)``: the kernel's arguments ``(kind, gamma, degree, coef0)``, and the
        fields of :class:`~imbalance_stream._numba.koil.KOILParams` for the step, made once
        (derived: never pickled, dropped when one of ``_ARGUMENT_PARAMS`` is set)."""
        arguments = self.__dict__.get("_arguments_cache")
        if arguments is None:
            kernel = (self._kind, float(self.gamma), float(self.degree), 0.0)
            step = steps.KOILParams(
                *kernel,
                C=float(self.C),
                eta=float(self.eta),
                decay=1.0 - self.eta,
                k=int(self.k),
                budget=int(self.budget),
                policy=self._policy,
                smooth=self.loss == "smooth",
                knn_first=self.neighbor_mode == "knn_then_violators",
                euclidean=self.similarity == "euclidean",
            )
            arguments = self.__dict__["_arguments_cache"] = (kernel, tuple(step))
        return arguments

    def _kernel_args(self) -> tuple:
        kernel_args, _ = self._arguments()
        return kernel_args

    # ---- learning: one jitted call per sample, which puts back what it wrote if it fails ------

    def learn_one(self, x: dict, y) -> None:
        # The usual round without the base class's transaction: a label of the two already
        # known, a sample of known names over columns the state covers, a pool with a free slot,
        # uniforms left in the block. The encoding checks the sample before anything changes, and
        # the jitted step (:func:`~imbalance_stream._numba.koil.koil_learn`) puts back everything
        # it wrote when its result is not finite (:func:`~imbalance_stream._numba.koil.koil_restore`
        # when it raises); only the uniforms it took remain to be put back here. Any other sample
        # takes the transaction of the base class.
        sign = self._known_sign(y)
        pool = self._pool
        next_uniform = self._next_uniform
        if (
            not sign
            or next_uniform + 2 > len(self._uniforms)
            or not (pool.bounded or pool.ints[steps.USED] < pool.X.shape[0])
        ):
            super().learn_one(x, y)
            return
        features = self._features
        indices, values, new = features.encode(x, grow=True)
        if new or self._state_size < len(features.names) or not len(indices):
            super().learn_one(x, y)  # (the encoding is recalled, not done again)
            return
        try:
            self._step(indices, values, sign)
        except BaseException:
            self._next_uniform = next_uniform
            raise

    #: The step checks its own result and puts back what it wrote (``_step``), so the
    #: transaction of ``learn_one``'s other samples neither copies nor scans the arrays.
    _scan_after_update = False

    def _snapshot(self, indices):
        """The attributes, the pool's (references: growth replaces arrays, and the step puts
        back what it writes in place) and the generator's state if this step will draw a new
        block of uniforms: O(1) per sample."""
        draws = self._next_uniform + 2 > len(self._uniforms)
        generator_state = self._rng.bit_generator.state if draws else None
        return vars(self).copy(), vars(self._pool).copy(), generator_state

    def _restore(self, snapshot):
        state, saved_pool, generator_state = snapshot
        pool = state["_pool"]
        vars(pool).clear()
        vars(pool).update(saved_pool)
        vars(self).clear()
        vars(self).update(state)
        if generator_state is not None:
            self._rng.bit_generator.state = generator_state

    def _uniform_pair(self) -> tuple[float, float]:
        """The step's two uniforms (reservoir acceptance and slot), the next two values of
        ``_rng``: drawn 64 at a time, which gives the same values in the same order as two
        draws per step, without a generator call and a save of its state on every sample."""
        start = self._next_uniform
        if start + 2 > len(self._uniforms):
            self._uniforms = self._rng.random(_UNIFORM_BLOCK).tolist()
            start = 0
        self._next_uniform = start + 2
        uniforms = self._uniforms
        return uniforms[start], uniforms[start + 1]

    #: Scratch and caches, never pickled (``_undo``, ``_row_cache``, ``_row_buffer``,
    #: ``_arguments``); all are rebuilt when needed.
    _DERIVED = frozenset(("_undo_buffer", "_row_cache_list", "_row_buffer", "_arguments_cache"))

    def _reset_derived(self) -> None:
        for name in self._DERIVED:
            self.__dict__.pop(name, None)

    @property
    def _undo(self) -> np.ndarray:
        """Scratch for the step's record of what it overwrites (not state: rebuilt when the
        pool's shape changes, never pickled; :func:`~imbalance_stream._numba.koil.undo_size`)."""
        X = self._pool.X
        size = steps.undo_size(X.shape[1], self._pool.G.shape[0], X.shape[0])
        undo = self.__dict__.get("_undo_buffer")
        if undo is None or undo.shape[0] != size:
            undo = np.full(size, _NOTHING_SAVED)
            self.__dict__["_undo_buffer"] = undo
        return undo

    @property
    def _row_cache(self) -> list:
        """Scratch (not state, never pickled): ``[indices, values, kernel arguments]`` of the
        latest prediction, whose kernel row (in ``_row_buffer``) the step on the same sample
        reuses. One list
        object for the model's life, emptied in place by every step, so that restoring the
        attributes after a failed step cannot bring back a row that step overwrote."""
        cache = self.__dict__.get("_row_cache_list")
        if cache is None:
            cache = self.__dict__["_row_cache_list"] = []
        return cache

    def _predicted_row(self, indices, values, kernel_args) -> np.ndarray:
        """The kernel row of the latest prediction (``_row_buffer``) if it was made on these very
        arrays (the feature space hands the same arrays back for an equal sample) with the same
        kernel and no step since; else an empty array (the step computes the row). Empties the
        cache."""
        cache = self._row_cache
        if cache and cache[0] is indices and cache[1] is values and cache[2] == kernel_args:
            row = self.__dict__["_row_buffer"]
        else:
            row = _NO_ROW
        cache.clear()
        return row

    def _learn(self, indices, values, sign):
        self._pool.reserve_slot()
        self._step(indices, values, sign)

    def _step(self, indices, values, sign):
        """One KOIL step on the validated sample, the pool having a free slot: the state is
        exactly as before if it raises (:class:`~imbalance_stream.base.NumericalError` for a
        result that is not finite), but for the uniforms it took."""
        pool = self._pool
        u_accept, u_slot = self._uniform_pair()
        kernel_args, params = self._arguments()
        row = self._predicted_row(indices, values, kernel_args)
        undo = self.__dict__.get("_undo_buffer", _NO_ROW)  # the step checks its size
        undo[:1] = _NOTHING_SAVED
        try:
            while True:
                code = steps.koil_learn(  # type: ignore[call-arg]  # (a dispatcher)
                    pool.X,
                    pool.beta,
                    pool.h,
                    pool.G,
                    pool.members,
                    pool.ints,
                    pool.floats,
                    indices,
                    values,
                    sign,
                    u_accept,
                    u_slot,
                    *params,
                    undo,
                    row,
                )
                if code != steps.NO_UNDO:
                    break
                undo = self._undo  # one of the pool's size (nothing was done)
                undo[0] = _NOTHING_SAVED
            if code == steps.REFUSED:  # the step put back what it wrote
                raise self._numerical_error()
            if self.threshold == "buffer_acc":
                self.threshold_ = self._buffer_threshold()
        except BaseException:
            steps.koil_restore(pool.state(), undo)  # what the step saved, if it ran
            raise

    def _buffer_threshold(self, grid: int = 500) -> float:
        """The reference code's threshold: best accuracy over the stored vectors' scores."""
        pool = self._pool
        scale = pool.scale()
        positive = np.sort(scale * pool.h[pool.slots(0)])
        negative = np.sort(scale * pool.h[pool.slots(1)])
        if not len(positive) or not len(negative):
            return 0.0
        low, high = positive[0], negative[-1]
        if low > high:
            return float((low + high) / 2.0)
        candidates = np.linspace(low, high, grid)
        correct = (len(positive) - np.searchsorted(positive, candidates, side="left")) + (
            np.searchsorted(negative, candidates, side="left")
        )
        return float(candidates[np.argmax(correct)])

    # ---- inference ----------------------------------------------------------------------------

    def _decision(self, indices, values):
        pool = self._pool
        kernel_args, _ = self._arguments()
        row = self.__dict__.get("_row_buffer", _NO_ROW)
        if row.shape[0] <= pool.X.shape[0]:  # no row buffer yet, or one too small for the pool
            row = self.__dict__["_row_buffer"] = np.empty(pool.X.shape[0] + 1)
        score = steps.koil_predict(  # type: ignore[call-arg]  # (a dispatcher)
            pool.X, pool.beta, pool.ints, pool.floats, indices, values, *kernel_args, row
        )
        cache = self._row_cache  # for the step on this sample, if it comes next (``_step``)
        cache[:] = indices, values, kernel_args
        return score

    def _proba(self, indices, values):
        return logistic(self._decision(indices, values) - self.threshold_)

    def predict_one(self, x: dict, **kwargs):
        """The positive label when ``f(x) >= threshold_`` (ties go to the rare class)."""
        return self.positive if self.decision_one(x) >= self.threshold_ else self.negative

    # ---- introspection ------------------------------------------------------------------------

    @property
    def n_support(self) -> int:
        """Number of stored vectors, both buffers together."""
        return self._pool.n_stored(0) + self._pool.n_stored(1)

    @property
    def n_support_per_class(self) -> dict:
        """Number of stored vectors of each label, ``{positive: n+, negative: n-}``."""
        return {self.positive: self._pool.n_stored(0), self.negative: self._pool.n_stored(1)}

    def support_vectors(self, positive: bool = True):
        """``(vectors, weights)`` of one buffer in buffer order; the columns follow the order in
        which features were first seen."""
        X, alpha = self._pool.buffer(0 if positive else 1)
        return X[:, : self.n_features].copy(), alpha

    @classmethod
    def _unit_test_params(cls):
        yield {"budget": 8, "k": 3, "C": 2.0, "gamma": 0.1, "seed": 42}
        yield {"budget": 6, "k": 2, "policy": "fifo++", "loss": "smooth", "seed": 42}
        yield {
            "budget": 5,
            "k": 2,
            "policy": "rs",
            "kernel": "poly",
            "gamma": 0.01,
            "seed": 7,
            "similarity": "euclidean",
        }
        yield {"budget": 5, "k": 5, "policy": "fifo", "kernel": "linear", "eta": 0.1}
        yield {
            "budget": 4,
            "policy": "inf",
            "neighbor_mode": "knn_then_violators",
            "seed": 1,
            "threshold": "buffer_acc",
        }
