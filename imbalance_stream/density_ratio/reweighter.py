"""Re-weighters: the weight of a labelled sample, ``p_target(x) / p_source(x)``, on a stream.

A re-weighter keeps two windows of samples, the labelled *source* data a model learns from and the
unlabelled *target* data it is applied to now, and at each refresh runs a batch density-ratio
method of the thesis on them. A subclass implements two array-level methods; this module owns the
windows, the refresh, the normalisation and the clip.
"""

from __future__ import annotations

import abc
import collections
import math

import numpy as np
from river import base

from imbalance_stream.base.binary import check_label
from imbalance_stream.base.validation import check_real, check_seed
from imbalance_stream.base.windows import RESELECT_EVERY

from .windowed import (
    MIN_WINDOW,
    WindowedRatio,
    estimator_of,
    set_estimator_params,
    whole_sample,
)

__all__ = ["MIN_WINDOW", "EstimatorReweighter", "Reweighter"]


class Reweighter(base.Base, abc.ABC):
    """Importance weights of labelled samples for the current data (Miao, 2015, Section 3.3.1).

    Under covariate shift the risk on the target data equals the source risk with each sample
    weighted by ``w(x) = p_target(x) / p_source(x)`` (eqs. 3.30-3.31). A re-weighter estimates that
    ratio from two windows:

    * ``learn_source_one(x, y)`` adds a labelled sample to the source window (the ``n_source``
      most recent; None keeps all);
    * ``learn_target_one(x)`` adds an unlabelled arrival to the target window (``n_target``);
    * ``weight_one(x, y=None)`` is the weight of a sample under the last refresh; it never changes
      anything, and is 1.0 before the first refresh;
    * ``refresh()`` runs the batch method on the windows now; it also runs every
      ``refresh_every`` samples taken in (source or target), or, if that is None and the target
      window is bounded (a re-weighter on a stream, where nobody calls ``refresh()``), every
      ``n_target`` samples; with neither, only when called (the batch setting).

    Weights are normalised to a mean of 1 over the source window of the last refresh (the thesis's
    estimators aim at that mean but meet it only approximately: KMM's slack is loose), so that they
    rescale neither a learner's step nor its regularisation (D-DR-13). ``clip``, if given, caps each
    weight after the normalisation: the thesis's weights reach ``B = 1000``, which a stochastic
    gradient learner does not survive; the faithful default, None, leaves them alone.

    Selection. A re-weighter whose batch method chooses its hyper-parameters when they are not
    given (uLSIF's width and ridge by leave-one-out, KLIEP's width by likelihood
    cross-validation, KMM's median width) chooses them at the first refresh, then again only
    every ``reselect_every`` refreshes (default 20; None: never again) or at the next refresh
    after :meth:`reselect`; the refreshes in between solve the method on the current windows with
    the values held, and KMM's solve starts there from the last solution at the source points
    still in the window (the warm solver of ``KMM.fit``). ``reselect_every=1`` is the thesis's
    procedure, the whole selection at every refresh, number for number (D-DR-55).

    Weights are relative to the windows of the last refresh, not calibrated across refreshes.
    Feature dicts become dense vectors over the names seen (a missing name is 0); a bad value
    raises a ``ValueError`` naming the feature before anything changes. Names are kept once
    seen, also after their samples have left the windows: hash features whose names keep
    changing (one-hot identifiers, words) into a fixed number first (River's
    ``preprocessing.FeatureHasher``), or the vectors, and memory and time, grow with the stream.

    A subclass implements ``_solve(source_X, source_y, target_X)``, the batch method on the
    windows' matrices returning the unnormalised weight of each source row, and
    ``_weight_at(vector, y)``, the unnormalised weight of one new point under the last solve.
    A subclass whose solution exists only at the source points (KMM) sets ``TRANSDUCTIVE``:
    ``weight_one`` of a point that was in the source window at the refresh then returns its
    solved weight.
    """

    TRANSDUCTIVE = False

    def __init__(
        self,
        n_source: int | None = None,
        n_target: int | None = None,
        refresh_every: int | None = None,
        clip: float | None = None,
        seed: int | None = None,
        reselect_every: int | None = RESELECT_EVERY,
    ):
        self._ratio = WindowedRatio(
            {"source": n_source, "target": n_target},
            denominator="source",
            refresh_every=refresh_every,
            reselect_every=reselect_every,
            default_period=n_target,  # on a stream, where nobody calls refresh
            transductive=self.TRANSDUCTIVE,
        )
        self.n_source, self.n_target = self._ratio.sizes["source"], self._ratio.sizes["target"]
        self.refresh_every = self._ratio.refresh_every
        self.reselect_every = self._ratio.reselect_every
        self.clip = check_real("clip", clip, low=0.0, low_open=True, optional=True)
        self.seed = check_seed(seed)
        self._labels: collections.deque = collections.deque(maxlen=n_source)
        self._scale = 1.0  # 1 / mean source weight at the last refresh

    @property
    def _windows(self):
        return self._ratio.windows

    def reselect(self) -> None:
        """Make the next refresh select the hyper-parameters again (as the first refresh does),
        whatever ``reselect_every`` says; the refreshes after it count from there."""
        self._ratio.reselect()

    def _count_sample(self) -> None:
        if self._ratio.count_sample():
            self.refresh()

    # ---- taking samples in --------------------------------------------------------------------

    def check_one(self, x: dict) -> None:
        """Validate ``x`` as :meth:`learn_source_one` would, changing nothing: raises the error
        that would refuse it (a bad value, or a feature space that would be full)."""
        self._windows.encode(x)

    def check_label_one(self, y) -> None:
        """Raise :class:`~imbalance_stream.base.UnknownLabel` if :meth:`learn_source_one` would
        refuse the label ``y``; changes nothing. A re-weighter of the inputs alone takes ``None``
        (an unlabelled source sample) and any class label; one that weighs classes (DDR) says
        which it takes."""
        if y is not None:
            check_label(y)

    def learn_source_one(self, x: dict, y=None) -> None:
        """Add a labelled sample to the source window."""
        self.check_label_one(y)  # before anything changes
        vector = self._windows.vector(x)
        with whole_sample(self):
            self._windows.push("source", vector)
            self._labels.append(y)
            self._count_sample()

    def learn_target_one(self, x: dict) -> None:
        """Add an unlabelled arrival of the current data to the target window."""
        vector = self._windows.vector(x)
        with whole_sample(self):
            self._windows.push("target", vector)
            self._count_sample()

    # ---- the exact solve ----------------------------------------------------------------------

    def refresh(self) -> bool:
        """Solve the batch method on the current windows now; returns whether it ran (each window
        needs at least two points)."""
        raw = self._ratio.run(
            lambda source_X, target_X: self._solve(source_X, list(self._labels), target_X)
        )
        if raw is None:
            return False
        mean = float(raw.mean())
        # a solve that gives no source point any weight has no mean to normalise by: weights of
        # 1 then, as before any refresh (D-DR-13)
        self._scale = 1.0 / mean if mean > 0.0 and math.isfinite(mean) else 0.0
        return True

    # ---- weighing -----------------------------------------------------------------------------

    def weight_one(self, x: dict, y=None) -> float:
        """The weight of ``(x, y)`` for a learner of the current data: the ratio of the last
        refresh, normalised to mean 1 over its source window, clipped at ``clip`` if given; 1.0
        before the first refresh. Never changes the re-weighter."""
        vector = self._windows.query(x)
        if not self._ratio.fitted or self._scale == 0.0:
            return 1.0
        known = self._ratio.known(vector)
        raw = known if known is not None else self._weight_at(vector, y)
        weight = max(float(raw), 0.0) * self._scale
        return min(weight, self.clip) if self.clip is not None else weight

    @property
    def n_source_samples(self) -> int:
        """Points in the source window now."""
        return self._ratio.size("source")

    @property
    def n_target_samples(self) -> int:
        """Points in the target window now."""
        return self._ratio.size("target")

    @abc.abstractmethod
    def _solve(self, source_X: np.ndarray, source_y: list, target_X: np.ndarray) -> np.ndarray:
        """Fit on the windows (labels in ``source_y``, in row order); return the unnormalised
        weight of each source row."""

    @abc.abstractmethod
    def _weight_at(self, vector: np.ndarray, y) -> float:
        """The unnormalised weight of one new point (over the columns of the last refresh)."""


class EstimatorReweighter(Reweighter):
    """A re-weighter whose refresh fits one of this package's batch estimators with the source
    window as the ratio's denominator and the target window as its numerator; the weight of a
    source point is the estimator's transductive weight where it has one (KMM's ``weights_``),
    else ``weight`` there, and a new point gets ``weight``."""

    @property
    @abc.abstractmethod
    def ESTIMATOR(self) -> type:  # a class constant in every concrete re-weighter
        """The batch estimator refitted at each refresh, which checks the parameters the
        re-weighter shares with it
        (:func:`~imbalance_stream.density_ratio.windowed.set_estimator_params`). A concrete
        re-weighter names it as a class attribute (``ESTIMATOR = KMM``), which also keeps this
        base from being built on its own."""

    def _estimator(self):
        """A new, unfitted estimator with this re-weighter's parameters."""
        return estimator_of(self)

    def _solve(self, source_X, source_y, target_X) -> np.ndarray:
        self.estimator_, values = self._ratio.fit(self._estimator(), source_X, target_X, "weights_")
        return values

    def _weight_at(self, vector, y) -> float:
        return float(self.estimator_.weight(vector[None, :])[0])

    #: How :func:`~imbalance_stream.density_ratio.windowed.preset`'s constructor sets the
    #: parameters that are not the base's: by the estimator's rules.
    _set_own_params = _set_estimator_params = set_estimator_params
