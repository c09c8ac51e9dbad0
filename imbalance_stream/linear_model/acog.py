"""ACOG: adaptive regularised cost-sensitive online gradient descent (seed 002, Algorithm 1)."""

from __future__ import annotations

import math

import numpy as np

from imbalance_stream._numba import linear as kernels
from imbalance_stream._numba import stream
from imbalance_stream.base import grow_matrix, grow_vector
from imbalance_stream.base.features import QUADRATIC_MAX_FEATURES
from imbalance_stream.base.labels import PLAIN_LABELS
from imbalance_stream.base.transaction import CheckedInKernel
from imbalance_stream.base.validation import check_choice, check_real

from ._cost import CostRatio
from ._docs import shared_docs
from ._weights import WeightVector

__all__ = ["ACOG"]

#: The direct entries (:func:`~imbalance_stream._numba.linear.compiled_entry`) of the kernel of
#: ``learn_one``'s usual round and of ``predict_proba_one``'s, by the number of dimensions of
#: the covariance (1: diagonal, 2: full), each fetched by :func:`_entry` at its first use. The
#: model's own arrays always have the types they are compiled for: float64 and C-ordered
#: (``__init__``, ``_grow``), writable (``__setstate__``), the mean a vector and the covariance
#: a matrix exactly when the covariance is full.
_learn_entries: list = [None, None, None]
_proba_entries: list = [None, None, None]
_REFUSED = kernels.REFUSED
_PLAIN_LABELS = PLAIN_LABELS


def _unknown_bound() -> np.ndarray:
    """A bound of the covariance's magnitudes not known yet (see ``ACOG._cov_bound``)."""
    return np.full(1, kernels.BOUND_UNKNOWN)


def _entry(learn: bool, ndim: int):
    """Fetch the direct entry of the learning kernel (``learn``) or of the probability's for a
    covariance of ``ndim`` dimensions into ``_learn_entries`` / ``_proba_entries``; return it."""
    if ndim not in (1, 2):  # not a state ACOG makes: the entry would misread the array
        raise TypeError(f"ACOG's covariance has {ndim} dimensions; 1 or 2 expected")
    full = ndim == 2
    learn_types, proba_types = kernels.ACOG_ENTRY_TYPES["full" if full else "diag"]
    if learn:
        step = kernels.acog_full_learn if full else kernels.acog_diag_learn
        found = _learn_entries[ndim] = kernels.compiled_entry(step, learn_types)
    else:
        proba = kernels.proba_full if full else kernels.proba_diag
        found = _proba_entries[ndim] = kernels.compiled_entry(proba, proba_types)
    return found


@shared_docs
class ACOG(CheckedInKernel, CostRatio, WeightVector):
    """Adaptive Cost-sensitive Online Gradient descent (ACOG).

    A linear classifier whose weights are a Gaussian N(mu, Sigma). On a round whose
    cost-sensitive hinge loss is positive at the mean, the covariance takes the confidence
    downdate ``Sigma^-1 <- Sigma^-1 + x x' / gamma`` and the mean a second-order step along the
    *updated* covariance, ``mu <- mu - eta Sigma_new g``; rounds with zero loss change nothing.
    The rare class is made expensive through ``rho``:

    * loss ``"I"``, ``max(0, rho_y - y mu.x)``: rho moves the positive class's **margin**;
    * loss ``"II"``, ``rho_y max(0, 1 - y mu.x)``: rho scales the positive class's **slope**;

    with ``rho_y = rho`` for the positive label and 1 for the negative one.

    ``covariance="full"`` keeps the d x d matrix (O(d^2) per update round, Algorithm 1);
    ``covariance="diag"`` keeps its diagonal (O(nonzeros) per round), with the per-coordinate rule
    ``sigma_i <- gamma sigma_i / (gamma + sigma_i x_i^2)`` (D-ACOG-1), as the paper (section 2.2)
    prints no formula.

    Probabilities are the probit predictive ``P(w.x > 0) = Phi(mu.x / sqrt(x' Sigma x))`` under
    the weight distribution (D-ACOG-23); they are 1/2 exactly when ``mu.x = 0``. The
    paper's model has no bias; ``intercept=True`` adds a constant feature whose weight is learned
    like any other (and takes part in the covariance). New features enter with the prior mean 0
    and variance 1, which is exact since earlier samples had 0 there. The paper normalises every
    sample to unit L2 norm: put ``river.preprocessing.Normalizer()`` in front to do the same.

    Parameters
    ----------
    %(cost_loss)s
    covariance
        ``"full"`` or ``"diag"``. A full covariance is a dense matrix over the features, so the
        feature space then holds at most 4,096 features (beyond, a sample raises
        :class:`~imbalance_stream.base.FeatureSpaceFull` and changes nothing); diagonal: 1,000,000.
    %(cost_rho)s
    eta
        Step size of the mean (the paper's "fitting parameter").
    gamma
        Regularisation of the covariance update; 1 in every experiment of the paper.
    %(positive_intercept)s

    Attributes
    ----------
    n_updates
        Number of rounds that had a positive loss and changed the model.

    Examples
    --------

    Loss II with the diagonal covariance (O(nonzeros) a round), and loss I with the full one
    (O(d^2) a round):

    >>> from river import datasets, evaluate, metrics, preprocessing
    >>> from imbalance_stream.linear_model import ACOG

    >>> for loss, covariance in [("II", "diag"), ("I", "full")]:
    ...     model = preprocessing.StandardScaler() | ACOG(loss=loss, covariance=covariance, eta=0.5)
    ...     metric = metrics.BalancedAccuracy()
    ...     print(covariance, evaluate.progressive_val_score(datasets.Phishing(), model, metric))
    diag BalancedAccuracy: 89.86%
    full BalancedAccuracy: 88.63%

    References
    ----------
    Zhao, P., Zhang, Y., Wu, M., Hoi, S. C. H., Tan, M., Huang, J. (2018). Adaptive
    Cost-Sensitive Online Classification. IEEE Transactions on Knowledge and Data Engineering.

    """

    def __init__(
        self,
        loss: str = "II",
        covariance: str = "diag",
        rho: float | None = None,
        eta: float = 1.0,
        gamma: float = 1.0,
        positive=True,
        intercept: bool = False,
    ):
        check_choice("loss", loss, ("I", "II"))
        check_choice("covariance", covariance, ("full", "diag"))
        check_real("rho", rho, low=0.0, low_open=True, optional=True)
        check_real("eta", eta, low=0.0, low_open=True)
        check_real("gamma", gamma, low=0.0, low_open=True)
        super().__init__(positive=positive, intercept=intercept)
        if covariance == "full":  # a dense d x d matrix: the quadratic limit of FeatureSpace
            self._features.max_features = QUADRATIC_MAX_FEATURES
        self.loss = loss
        self.covariance = covariance
        self.rho = rho
        self.eta = eta
        self.gamma = gamma

        self._mean = np.zeros(0)
        # the d x d covariance, or its diagonal
        self._cov: np.ndarray = np.zeros((0, 0)) if covariance == "full" else np.zeros(0)
        self._n_positive = 0
        self._n_negative = 0
        self.n_updates = 0
        # At least the magnitude of every entry of the full covariance, or BOUND_UNKNOWN when
        # not known: with it, the learning kernel (acog_full_step_bounded) proves most
        # downdates finite without a read-only pass over the matrix. Derived state (_DERIVED):
        # not pickled, and unknown again after a pickle round trip. 1 is the prior's
        # (grow_matrix pads with 1 and 0), and a bound of at least 1 stays one when the state
        # grows.
        self._cov_bound = np.ones(1)

    #: The covariance's bound is a cache of the state's (see ``__init__``).
    _DERIVED = frozenset({"_cov_bound"})

    def _reset_derived(self) -> None:
        self._cov_bound = _unknown_bound()

    # ---- learning -----------------------------------------------------------------------------

    def learn_one(self, x: dict, y) -> None:
        # The usual round in one jitted call and no snapshot: a label of the two already known,
        # a sample of known names over columns the state covers. The step checks its own writes
        # and writes nothing it refuses, and the label is counted only once it is learned, so
        # there is nothing to restore. Any other sample takes the transaction of the base class.
        # The label's sign for a label of the two already known, as _known_sign gives it (0
        # for any other), written out: this runs once per sample.
        sign = 0.0
        if type(y) in _PLAIN_LABELS:
            if y == self.positive:
                sign = 1.0
            else:
                negative = self._negative
                if negative is not None and y == negative:
                    sign = -1.0
        if not sign:
            super().learn_one(x, y)
            return
        features = self._features
        indices, values, new = features.encode(x, True)
        if new or self._state_size < len(features.names) or not len(indices):
            super().learn_one(x, y)  # (the encoding is recalled, not done again)
            return
        rho = self.rho
        rho = math.nan if rho is None else float(rho)
        cov, eta, gamma = self._cov, self.eta, self.gamma
        ndim = cov.ndim  # (the covariance's form, as the direct entry must know it)
        if type(eta) is float and type(gamma) is float:  # the direct entry's argument types
            learn = _learn_entries[ndim] or _entry(True, ndim)
        else:
            learn = kernels.acog_full_learn if ndim == 2 else kernels.acog_diag_learn
        if ndim == 2:
            updated = learn(
                self._mean, cov, self._state_size, indices, values, sign, self.loss == "I", rho,
                self._n_positive, self._n_negative, eta, gamma, self._cov_bound,
            )  # fmt: skip
        else:
            updated = learn(
                self._mean, cov, indices, values, sign, self.loss == "I", rho,
                self._n_positive, self._n_negative, eta, gamma,
            )  # fmt: skip
        if updated == _REFUSED:  # nothing was written
            raise self._numerical_error()
        if sign > 0:
            self._n_positive += 1
        else:
            self._n_negative += 1
        if updated:  # (UPDATED, 1; a round with no loss changes nothing)
            self.n_updates += 1

    def predict_proba_one(self, x: dict, **kwargs) -> dict:
        # The base class's, with _proba written out to call the kernel's direct entry: this runs
        # once per sample.
        indices, values, _ = self._features.encode(x, False)
        if self._state_size and len(indices):
            cov = self._cov
            ndim = cov.ndim
            p = (_proba_entries[ndim] or _entry(False, ndim))(self._mean, cov, indices, values)
        else:
            p = 0.5  # nothing known of the sample (see _proba)
        positive, negative = self.positive, self._negative
        return {positive: p, (not positive) if negative is None else negative: 1.0 - p}

    def __setstate__(self, state):
        super().__setstate__(state)
        # The kernels' direct entries write the mean and the covariance in place without the
        # dispatcher's check that they may be written (see compiled_entry); a pickle's
        # out-of-band buffers can give read-only arrays: the model then holds copies (the same
        # values, so the same pickle).
        for name in ("_mean", "_cov"):
            array = vars(self)[name]
            if not array.flags.writeable:
                setattr(self, name, array.copy())

    # ---- state --------------------------------------------------------------------------------

    def _grow(self, n_features):
        self._mean = grow_vector(self._mean, n_features, 0.0)
        if self.covariance == "full":
            self._cov = grow_matrix(self._cov, n_features, 1.0)
        else:
            self._cov = grow_vector(self._cov, n_features, 1.0)

    def _weight_vector(self) -> np.ndarray:
        return self._mean

    def _learn(self, indices, values, sign):
        margin, slope = self._count_margin_slope(sign)
        # the arguments the two covariances' rounds share, after the state they update
        shared = (indices, values, sign, margin, slope, self.eta, self.gamma)
        if self.covariance == "full":
            updated = kernels.acog_full_step_bounded(
                self._mean, self._cov, self._state_size, *shared, self._cov_bound
            )
        else:
            updated = kernels.acog_diag_step(self._mean, self._cov, *shared)
        if updated == kernels.REFUSED:  # nothing was written; the label count is rolled back
            raise self._numerical_error()
        self.n_updates += updated

    def _replay_kernel(
        self, start, indptr, indices, values, brings, signs, colmap, new_names, sizes, predictions
    ):
        """The array path (:meth:`~imbalance_stream.base.BinaryClassifier.replay_rows`):
        :func:`~imbalance_stream._numba.stream.replay_acog` with the rounds ``_learn`` takes."""
        rho, laplace, counts = self._cost_state()
        full = self.covariance == "full"
        sizes[stream.N_UPDATES] = 0
        # the loop writes the covariance without keeping its bound: unknown from here on (in
        # place, so that a snapshot holding this array sees it unknown too)
        self._cov_bound[0] = kernels.BOUND_UNKNOWN
        stop = stream.replay_acog(
            start, indptr, indices, values, brings, signs, colmap, new_names, sizes,
            self._mean, full, self._cov if full else stream.NO_MATRIX,
            stream.NO_VECTOR if full else self._cov, self.loss == "I", rho, laplace, counts,
            float(self.eta), float(self.gamma), predictions,
        )  # fmt: skip
        self._store_cost_state(counts)
        self.n_updates += int(sizes[stream.N_UPDATES])
        return stop

    def _steps_kernel(self, rows, learn, signs, colmap, new_names, sizes, decisions, probas):
        rho, laplace, counts = self._cost_state()
        full = self.covariance == "full"
        sizes[stream.N_UPDATES] = 0
        # the loop writes the covariance without keeping its bound: unknown from here on (in
        # place, so that a snapshot holding this array sees it unknown too)
        self._cov_bound[0] = kernels.BOUND_UNKNOWN
        ran = stream.steps_acog(
            rows,
            learn,
            signs,
            colmap,
            new_names,
            sizes,
            self.intercept,
            self._mean,
            full,
            self._cov if full else stream.NO_MATRIX,
            stream.NO_VECTOR if full else self._cov,
            self.loss == "I",
            rho,
            laplace,
            counts,
            float(self.eta),
            float(self.gamma),
            decisions,
            probas,
        )
        self._store_cost_state(counts)
        self.n_updates += int(sizes[stream.N_UPDATES])
        return ran

    # ---- inference ----------------------------------------------------------------------------

    def _proba(self, indices, values):
        if not len(indices):
            return 0.5
        if self.covariance == "full":
            return kernels.proba_full(self._mean, self._cov, indices, values)
        return kernels.proba_diag(self._mean, self._cov, indices, values)

    # ---- introspection ------------------------------------------------------------------------

    @property
    def variances(self) -> dict:
        """The diagonal of the covariance by feature name: small means confident."""
        diagonal = np.diag(self._cov) if self.covariance == "full" else self._cov
        return self._features.to_dict(diagonal)

    @classmethod
    def _unit_test_params(cls):
        yield {"covariance": "full"}
        yield {"covariance": "diag"}
        yield {"covariance": "full", "loss": "I", "rho": 3.0, "intercept": True}
        yield {"covariance": "diag", "loss": "I", "eta": 0.1, "intercept": True}
