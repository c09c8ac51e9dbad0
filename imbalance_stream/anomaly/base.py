"""Base class of the density-ratio novelty detectors: the windows, the two modes and the refresh.

A subclass implements two array-level methods, ``_solve(reference, test)`` (the exact batch
method of the thesis on the current windows) and ``_inlier(vector)`` (its value at one new point,
larger meaning more normal); this class owns the River protocol around them.
"""

from __future__ import annotations

import abc
import math

import numpy as np
from river.base import AnomalyDetector

from imbalance_stream.base.validation import InvalidParameter, check_choice, check_seed
from imbalance_stream.base.windows import RESELECT_EVERY
from imbalance_stream.density_ratio.kmm_solvers import interior_point_available
from imbalance_stream.density_ratio.windowed import (
    MIN_WINDOW,
    WindowedRatio,
    estimator_of,
    set_estimator_params,
    whole_sample,
)

__all__ = ["MIN_WINDOW", "DensityRatioNovelty", "EstimatorNovelty", "ratio_score"]

MODES = ("two-sample", "stream")

#: The smallest ratio told apart from 0 in a score: a ratio of 0 scores -log of it (708.4), not inf.
SMALLEST_RATIO = float(np.finfo(np.float64).tiny)


def ratio_score(ratio: float) -> float:
    """The anomaly score of a density ratio: ``-log ratio``, a ratio of 0 scored as the smallest
    positive float (D-DR-50)."""
    return -math.log(max(float(ratio), SMALLEST_RATIO))


#: The windows of the detectors' unit-test configurations, in stream mode: small enough that
#: River's checks' first samples already refresh, so that they exercise the solved detector, not
#: only the warm-up (which scores 0 unread). The smaller goes with fixed hyper-parameters.
TEST_WINDOWS = {"mode": "stream", "n_reference": 20, "n_test": 10, "refresh_every": 10}
SMALL_TEST_WINDOWS = {"mode": "stream", "n_reference": 16, "n_test": 8, "refresh_every": 8}


def stream_test_params(chosen: dict, fixed: dict) -> list[dict]:
    """A detector's two unit-test configurations: its hyper-parameters chosen from the data on
    :data:`TEST_WINDOWS` (with ``chosen``, a seed, say), then ``fixed`` ones on
    :data:`SMALL_TEST_WINDOWS`."""
    return [{**TEST_WINDOWS, **chosen}, {**fixed, **SMALL_TEST_WINDOWS}]


def interior_point_test_params() -> list[dict]:
    """The stream-mode unit-test configuration of the KMM-type detectors with the interior-point
    solver, where the optional cvxopt is installed (none where it is not)."""
    if not interior_point_available():
        return []
    return [{**TEST_WINDOWS, "solver": "interior-point", "tol": 1e-9}]


class DensityRatioNovelty(AnomalyDetector, abc.ABC):
    """Novelty detection by the ratio of a reference density to a test density (Chapter 5).

    Two windows of samples are kept: the reference window ``R`` (normal behaviour) and the test
    window ``T`` (the data to screen). A refresh solves the detector's batch method on them; a
    point's inlier value is large where the reference is dense compared with the test data, so a
    novelty (dense in ``T``, rare in ``R``) gets a small value, and ``score_one`` returns minus it:
    higher means more anomalous, as River expects.

    Modes. In ``"two-sample"`` mode (the thesis's setting), ``learn_one(x)`` adds verified-normal
    data to ``R`` and ``observe_one(x)`` adds unlabelled arrivals to ``T``; after a refresh,
    ``score_one`` of an observed point returns the value the batch method solved for it, so the
    thesis's transductive numbers come out of the River API unchanged. In ``"stream"`` mode (the
    usual River loop, ``score_one`` then ``learn_one`` on one stream), ``learn_one`` pushes into
    ``T``, the most recent ``n_test`` points, and the point that leaves ``T`` moves into ``R``, the
    ``n_reference`` points before them: the recent past is the reference for the present.

    Scores. ``score_one`` returns minus the log of the inlier value (the estimated ratio): 0
    where the reference and the test density agree (a ratio of 1), positive where the reference
    is thinner than the test data, negative where it is denser; a ratio of 0 (a KMM weight at
    its bound) scores ``-log`` of the smallest positive float, 708.4. The log keeps apart the
    ratios of far points, which ``1 - ratio`` would round to the same value. Before the first
    refresh every score is 0, as River's ``HalfSpaceTrees`` scores its first window: River's
    ``QuantileFilter``, which by default stops feeding its detector the points it flags, then
    lets the warm-up through (it flags nothing while its quantile is 0; with any other constant
    it would flag every sample, and the detector would never be fed nor refreshed). Scores are
    relative to the windows of the last refresh and are not calibrated across refreshes:
    threshold them with River's quantile filters (D-DR-50).

    Selection. A detector whose batch method chooses its hyper-parameters when they are not
    given (uLSIF's width and ridge by leave-one-out, KLIEP's and KDE's width by likelihood
    cross-validation, KMM's median width) chooses them at the first refresh, then again only
    every ``reselect_every`` refreshes (default 20; None: never again) or at the next refresh
    after :meth:`reselect`; the refreshes in between solve the method on the current windows with
    the values held, and KMM's solve starts there from the last solution at the test points
    still in the window (the warm solver of ``KMM.fit``). ``reselect_every=1`` is the thesis's
    procedure, the whole selection at every refresh, number for number (D-DR-55). The first
    refresh always selects, so a two-sample run with one refresh is the thesis's batch method
    whatever the value.

    Samples. Feature dicts are mapped to dense vectors over the names seen (a missing name is 0);
    a bad value raises a ``ValueError`` naming the feature and nothing changes, and so does a
    sample that would grow the feature space past 65,536 names (``FeatureSpaceFull``). Names
    are kept once seen, also after the samples that carried them have left bounded windows, so
    a stream whose names keep changing (one-hot identifiers, words) grows every stored vector,
    and memory and time with it: hash such features into a fixed number of names first
    (River's ``preprocessing.FeatureHasher``).
    ``score_one`` ignores names it has not learned and never changes the state; before the first
    refresh it returns 0 without reading the sample (a pipeline's ``MinMaxScaler`` sends NaN
    until it has learned a sample).
    """

    #: Whether the method's solution exists only at the test points it was solved on (KMM,
    #: locKMM): ``score_one`` of such a point then returns its solved value.
    TRANSDUCTIVE = False

    def __init__(
        self,
        mode: str = "two-sample",
        n_reference: int | None = None,
        n_test: int | None = None,
        refresh_every: int | None = None,
        seed: int | None = None,
        reselect_every: int | None = RESELECT_EVERY,
    ):
        self.mode = check_choice("mode", mode, MODES)
        self._ratio = WindowedRatio(
            {"reference": n_reference, "test": n_test},
            denominator="test",
            refresh_every=refresh_every,
            reselect_every=reselect_every,
            # in stream mode, each test window replaced once: a detector left to River's loop,
            # where nobody calls refresh, would otherwise never solve and score everything 0
            default_period=n_test if self.mode == "stream" else None,
            # a transductive solution is looked up where the solved points are scored again
            transductive=self.TRANSDUCTIVE and self.mode == "two-sample",
        )
        self.n_reference, self.n_test = self._ratio.sizes["reference"], self._ratio.sizes["test"]
        self.refresh_every = self._ratio.refresh_every
        self.reselect_every = self._ratio.reselect_every
        if mode == "stream" and n_test is None:
            raise InvalidParameter(
                "mode='stream' needs a bounded test window: give n_test (the recent samples that "
                "are compared with the n_reference before them)"
            )
        self.seed = check_seed(seed)

    @property
    def _windows(self):
        return self._ratio.windows

    @property
    def _reference(self):
        return self._windows.windows["reference"]

    @property
    def _test(self):
        return self._windows.windows["test"]

    def reselect(self) -> None:
        """Make the next refresh select the hyper-parameters again (as the first refresh does),
        whatever ``reselect_every`` says; the refreshes after it count from there."""
        self._ratio.reselect()

    # ---- taking samples in --------------------------------------------------------------------

    def learn_one(self, x: dict) -> None:
        """Two-sample mode: add ``x`` to the reference window. Stream mode: add ``x`` to the test
        window and move the point it pushes out into the reference window."""
        vector = self._windows.vector(x)
        with whole_sample(self):
            if self.mode == "two-sample":
                self._push(self._reference, vector)
            else:
                left = self._push(self._test, vector)
                if left is not None:
                    self._push(self._reference, left)
            self._settle()

    def observe_one(self, x: dict) -> None:
        """Add an unlabelled arrival to the test window (two-sample mode only)."""
        if self.mode != "two-sample":
            raise RuntimeError(
                "observe_one is for mode='two-sample'; in mode='stream' every sample goes through "
                "learn_one"
            )
        vector = self._windows.vector(x)
        with whole_sample(self):
            self._push(self._test, vector)
            self._settle()

    def _settle(self) -> None:
        """After a sample's window changes: update what follows them, then count the sample
        (which may refresh)."""
        if self._ratio.fitted:
            self._windows_settled()
        if self._ratio.count_sample():
            self.refresh()

    def _push(self, window, vector: np.ndarray) -> np.ndarray | None:
        """Append ``vector`` to ``window``; return the vector it pushed out, if any. After a
        refresh, a detector that keeps statistics of the windows hears of both."""
        is_reference = window is self._reference
        left = self._windows.push("reference" if is_reference else "test", vector)
        if self._ratio.fitted:
            added = self._windows.at_columns(vector)
            removed = None if left is None else self._windows.at_columns(left)
            self._window_changed(is_reference, added, removed)
        return left

    def _window_changed(
        self, is_reference: bool, added: np.ndarray, removed: np.ndarray | None
    ) -> None:
        """Update statistics kept between refreshes (none by default: the solution is frozen).
        ``added`` and ``removed`` are given over the columns of the last refresh."""

    def _windows_settled(self) -> None:
        """Re-derive the solution from the statistics, once per sample (after both windows have
        changed: in stream mode a sample moves one point into each)."""

    # ---- the exact solve ----------------------------------------------------------------------

    def refresh(self) -> bool:
        """Solve the batch method on the current windows now; returns whether it ran (each window
        needs at least two points)."""
        return self._ratio.run(lambda test, reference: self._solve(reference, test)) is not None

    # ---- scoring ------------------------------------------------------------------------------

    def score_one(self, x: dict) -> float:
        """Minus the log of the ratio at ``x``: higher means more anomalous, 0 for an
        unremarkable point and before the first refresh."""
        if not self._ratio.fitted:
            # Nothing solved to compare ``x`` with, so ``x`` is not read: River's MinMaxScaler,
            # for one, sends NaN before it has learned a sample, and a pipeline's first score
            # must not fail on it. From the first refresh on, a bad value raises.
            return 0.0
        vector = self._windows.query(x)
        known = self._ratio.known(vector)
        return self._score(known if known is not None else self._inlier(vector))

    def _score(self, inlier: float) -> float:
        """The score of an inlier value (a density ratio)."""
        return ratio_score(inlier)

    @property
    def n_reference_samples(self) -> int:
        """Points in the reference window now."""
        return len(self._reference)

    @property
    def n_test_samples(self) -> int:
        """Points in the test window now."""
        return len(self._test)

    @abc.abstractmethod
    def _solve(self, reference: np.ndarray, test: np.ndarray) -> np.ndarray:
        """Fit on the windows; return the inlier value of each test row."""

    @abc.abstractmethod
    def _inlier(self, vector: np.ndarray) -> float:
        """The inlier value of one new point under the last solve."""


class EstimatorNovelty(DensityRatioNovelty):
    """A detector whose refresh fits one of :mod:`imbalance_stream.density_ratio`'s estimators
    with the test window as the ratio's denominator and the reference window as its numerator
    (Hido et al.'s inlier score ``p_R(x) / p_T(x)``, eq. 5.1).

    The value at an observed test point is the estimator's transductive weight where it has one
    (KMM's ``central_weights_``: its solution, with the zero weights kept in order), else
    ``weight`` at that point; a new point gets ``weight``.
    """

    #: The batch estimator refitted at each refresh; it checks the parameters the detector
    #: shares with it (:func:`~imbalance_stream.density_ratio.windowed.set_estimator_params`).
    ESTIMATOR: type

    def _estimator(self):
        """A new, unfitted estimator with this detector's parameters."""
        return estimator_of(self)

    def _solve(self, reference: np.ndarray, test: np.ndarray) -> np.ndarray:
        # KMM's zero weights in the order of their multipliers (D-DR-51)
        self.estimator_, values = self._ratio.fit(
            self._estimator(), test, reference, "central_weights_"
        )
        return values

    def _inlier(self, vector: np.ndarray) -> float:
        return float(self.estimator_.weight(vector[None, :])[0])

    #: How :func:`~imbalance_stream.density_ratio.windowed.preset`'s constructor sets the
    #: parameters that are not the base's: by the estimator's rules.
    _set_own_params = _set_estimator_params = set_estimator_params
