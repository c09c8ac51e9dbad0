"""LASVM: the online SVM solver with PROCESS, REPROCESS and finishing (seed 003, chapter 3)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from imbalance_stream._numba import lasvm as core
from imbalance_stream.base import check_label
from imbalance_stream.base.binary import third_label
from imbalance_stream.base.validation import check_bool, check_int, check_seed

from ._expansion import SupportVectorExpansion

__all__ = ["LASVM"]


class LASVM(SupportVectorExpansion):
    """LASVM: an online kernel SVM that reaches the batch SVM after one pass and a finishing step.

    The model is the SVM dual with a bias in its signed form (Ertekin 2009, eq. 2.21): maximise
    ``sum_i alpha_i y_i - 1/2 sum_ij alpha_i alpha_j K_ij`` subject to ``sum_i alpha_i = 0`` and
    ``A_i <= alpha_i <= B_i``, ``A_i = min(0, C_i y_i)``, ``B_i = max(0, C_i y_i)``. Each
    ``learn_one`` is one online iteration of section 3.2.1: **PROCESS** pairs the new example with
    the member of extreme gradient and takes one SMO direction search (eqs. 2.22-2.24), then one
    **REPROCESS** takes a step on the maximal tau-violating pair among the members, removes the
    blatant non support vectors and sets the bias and the gap ``delta`` (eq. 3.1). An example
    enters the expansion only when it violates the KKT conditions of the current model (eq. 3.2
    with the tolerance of D-LASVM-1), so most easy examples cost one kernel row and are dropped.

    :meth:`finish` runs the finishing step (REPROCESS until ``delta <= tau``): the exact SVM of
    the examples in the expansion. One pass plus finishing comes close to the batch SVM of the
    whole stream (LIBSVM's, scikit-learn's ``SVC``) but not to it exactly: an example that
    PROCESS left out or REPROCESS removed is not revisited, and a few of those end inside the
    final margin. :meth:`learn_epochs` over a stored dataset revisits them; two or three epochs
    plus finishing reach ``SVC``'s solution. A stream has no end: call :meth:`finish` on a copy
    (``copy.deepcopy``) to evaluate the finished model and keep learning with the original
    (D-LASVM-5).

    The expansion has no budget, as in the thesis: on noisy data every misclassified example
    stays a support vector, so memory and the cost of a sample grow with the stream. The
    Ramp-loss variants :class:`LASVMNC` and :class:`LASVMI` keep far fewer (chapter 6); for a hard
    bound use a budgeted kernel learner (:class:`~imbalance_stream.kernel.Projectron`, KOIL).
    ``gamma = 1`` suits a few standardised features; with ``d`` of them squared distances grow
    like ``2 d``, so start near ``gamma = 1 / d``: a width too narrow for the data makes every
    example look alone, and LASVM then keeps nearly all of them.

    Vectors are stored sparse: an RBF value costs O(nonzeros), and kernel rows are kept in an LRU
    cache of ``cache_mb`` megabytes. The decision is ``f(x) = sum_s alpha_s K(x_s, x) + b``;
    ``predict_proba_one`` gives the logistic of ``f`` (the thesis has no probabilities; D-LASVM-8).

    Parameters
    ----------
    C
        Box bound of the coefficients (misclassification cost).
    gamma
        Width of the RBF kernel ``exp(-gamma |a - b|^2)``.
    kernel
        ``"rbf"`` or ``"linear"`` (``a.b``).
    tau
        Tolerance of the tau-violating pairs: REPROCESS steps only on pairs whose gradients
        differ by more than ``tau``, and finishing stops when ``delta <= tau``.
    cache_mb
        Budget of the kernel-row cache, in megabytes; rows are float32, as in LIBSVM (at least
        two rows are always kept).
    class_weight
        ``{label: weight}``: the class's C is ``C * weight`` (1 for a label not given). Giving the
        rare class the imbalance ratio is the DC baseline of chapter 4.
    positive
        The rare label, +1 inside the model.
    seed
        Seed of the shuffles of :meth:`learn_epochs`; ``learn_one`` draws no random numbers.

    Attributes
    ----------
    n_support_
        Support vectors (members with ``alpha != 0``).
    n_expansion_
        Members of the expansion, support vectors and the ``alpha = 0`` members not yet removed.
    n_kernel_evaluations_
        Kernel values computed while learning and finishing (fresh rows and cache misses;
        prediction is not counted).
    bias_
        The bias b of eq. 3.1.
    delta_
        The gap ``g_max - g_min`` of eq. 3.1: the solution is tau-approximate when it is at most
        ``tau``.
    last_alpha_
        The coefficient of the sample of the last ``learn_one`` after its REPROCESS (0 when it
        did not enter or already left the expansion): nonzero when it became a support vector.

    Examples
    --------

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.svm import LASVM

    >>> model = preprocessing.StandardScaler() | LASVM(C=1.0, gamma=0.1)
    >>> evaluate.progressive_val_score(datasets.Phishing(), model, metrics.Accuracy())
    Accuracy: 90.72%

    >>> svm = model["LASVM"]
    >>> svm.n_support_, svm.n_expansion_
    (335, 342)

    Finishing removes the remaining tau-violating pairs:

    >>> steps = svm.finish()
    >>> svm.delta_ <= svm.tau
    True

    References
    ----------
    Ertekin, S. (2009). Learning in Extreme Conditions: Online and Active Learning with Massive,
    Imbalanced and Noisy Data. PhD thesis, The Pennsylvania State University, chapter 3.

    Bordes, A., Ertekin, S., Weston, J., Bottou, L. (2005). Fast Kernel Classifiers with Online
    and Active Learning. Journal of Machine Learning Research 6.

    """

    def __init__(
        self,
        C: float = 1.0,
        gamma: float = 1.0,
        kernel: str = "rbf",
        tau: float = 1e-3,
        cache_mb: float = 40.0,
        class_weight: dict | None = None,
        positive=True,
        seed: int | None = None,
    ):
        check_seed(seed)
        super().__init__(C, gamma, kernel, tau, cache_mb, class_weight, positive)
        self.seed = seed
        self.last_alpha_ = 0.0

    # ---- learning -----------------------------------------------------------------------------

    def _learn(self, indices, values, sign):
        self._ensure_room(len(indices))
        _, alpha = core.learn(
            self._kind,
            float(self.gamma),
            self._store,
            self._model,
            self._cache,
            self._ints,
            self._scalars,
            (indices, values),
            sign,
            self._box(sign),
            float(self.tau),
            self._work,
            self._qrow,
        )
        self.last_alpha_ = float(alpha)

    def learn_epochs(self, X: Sequence[dict], y: Sequence, epochs: int = 1, shuffle: bool = True):
        """The offline mode of section 3.2.1: ``epochs`` passes of online iterations over a
        stored dataset (each in a random order drawn from ``seed`` when ``shuffle``), where
        PROCESS bails out on an example that is already in the expansion. Several epochs then
        :meth:`finish` converge to the batch SVM of the whole dataset (LASVM x2, ...), which
        replaying a stream through ``learn_one`` cannot do: a repeated example would enter the
        expansion twice (D-LASVM-6). Every sample and label is checked before anything changes.
        """
        check_int("epochs", epochs, low=1)
        check_bool("shuffle", shuffle)
        samples, labels = list(X), list(y)
        if len(samples) != len(labels):
            raise ValueError(f"X has {len(samples)} samples but y has {len(labels)} labels")
        signs, negative = self._signs_of(labels)
        for x in samples:  # validates every value (unknown names too) without changing anything
            self._features.encode(x, grow=False)
        if negative is not None:
            self._negative = negative
        encoded = [self._encode_growing(x) for x in samples]
        in_expansion = np.zeros(len(samples), dtype=np.bool_)
        self._model[6][: self.n_expansion_] = -1.0  # earlier members count as streamed ones
        rng = np.random.default_rng(self.seed)
        for _ in range(epochs):
            order = rng.permutation(len(samples)) if shuffle else range(len(samples))
            for key in order:
                self._learn_stored(encoded[key], signs[key], int(key), in_expansion)
        self._model[6][: self.n_expansion_] = -1.0

    def _signs_of(self, labels):
        """+1/-1 for each label and the negative label, checked as ``learn_one`` would."""
        negative = self._negative
        signs = np.empty(len(labels))
        for t, label in enumerate(labels):
            check_label(label)
            if label == self.positive:
                signs[t] = 1.0
                continue
            if negative is None:
                negative = label
            elif label != negative:
                raise third_label(type(self).__name__, label, self.positive, negative)
            signs[t] = -1.0
        return signs, negative

    def _encode_growing(self, x: dict):
        indices, values, new = self._features.encode(x, grow=True)
        n_columns = self._features.commit(new) if new else len(self._features.names)
        if n_columns > self._state_size:
            self._grow(n_columns)
            self._state_size = n_columns
        return indices, values

    def _learn_stored(self, x, sign: float, key: int, in_expansion) -> None:
        if not len(x[0]):
            return  # an empty sample, as in learn_one
        self._ensure_room(len(x[0]))
        core.learn_stored(
            self._kind,
            float(self.gamma),
            self._store,
            self._model,
            self._cache,
            self._ints,
            self._scalars,
            x,
            sign,
            self._box(sign),
            key,
            float(self.tau),
            self._work,
            self._qrow,
            in_expansion,
        )

    def finish(self, max_iter: int | None = None) -> int:
        """Run the finishing step: REPROCESS until ``delta <= tau`` (at most ``max_iter`` steps;
        None: at most 1,000 per member of the expansion and at least 100,000, D-LASVM-50);
        return the number of steps taken. Learning can go on afterwards."""
        limit = self._finish_limit(max_iter)
        return int(
            core.finish(
                self._kind,
                float(self.gamma),
                self._store,
                self._model,
                self._cache,
                self._ints,
                self._scalars,
                float(self.tau),
                limit,
                self._work,
                np.zeros(0, dtype=np.bool_),
            )
        )

    # ---- inspection ---------------------------------------------------------------------------

    @property
    def bias_(self) -> float:
        return float(self._scalars[core.BIAS])

    @property
    def delta_(self) -> float:
        return float(self._scalars[core.DELTA])

    @classmethod
    def _unit_test_params(cls):
        yield {}
        yield {"C": 10.0, "gamma": 0.1, "tau": 1e-2, "cache_mb": 1e-3}
        yield {"kernel": "linear", "C": 0.5, "class_weight": {True: 3.0}}
