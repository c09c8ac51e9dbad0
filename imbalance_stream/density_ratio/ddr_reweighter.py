"""DDR as a stream re-weighter, with one source window per class."""

from __future__ import annotations

import collections
import numbers

import numpy as np

from imbalance_stream.base.binary import UnknownLabel, check_label
from imbalance_stream.base.validation import check_bool, check_int

from .ddr import DDR
from .iwlspc import IWLSPC
from .reweighter import Reweighter
from .ulsif import ULSIF
from .windowed import WINDOWS, Preset, preset, shared_parameter_docs

__all__ = ["DDRReweighter"]


def _label_kind(y) -> str | None:
    """``"number"`` for a real number or a boolean (numpy's too), ``"text"`` for a string, None
    for anything else: the labels DDR can sort among others of their kind."""
    if isinstance(y, str):
        return "text"
    if isinstance(y, (numbers.Real, np.bool_)):
        return "number"
    return None


@preset(
    "learner",
    "n_per_class",
    "max_iter",
    "early_stopping",
    "n_centres",
    "sigma",
    "ridge",
    WINDOWS,
    like=DDR,
    n_per_class=200,
    max_iter=5,
    renamed={"lambda_": "ridge"},
)
@shared_parameter_docs
class DDRReweighter(Preset, Reweighter):
    """Class-wise importance weights with the prior ratio (DDR, Miao 2015, Chapter 4) on a stream.

    Under a shift of both the inputs and the class shares, the weight of a labelled sample is
    ``w(x, y) = gamma(y) beta(x, y)`` (eq. 4.7): the prior ratio ``p'(y) / p(y)`` (eq. 4.15) times
    the class-conditional ratio ``p'(x|y) / p(x|y)`` (Algorithm 6). At each refresh the batch
    :class:`DDR` (Algorithm 8: the weighted learner and the class-wise ratios alternated, the
    iterate of largest mutual information kept, or the last one) runs on the labelled samples and
    the target window, as the thesis's batch method on the windows (Section 4.3).

    The labelled samples DDR sees are kept per class: each class has its own window of its
    ``n_per_class`` most recent samples, so a rare class keeps as many samples as the stream has
    given it, up to that number, however many of the common class arrive (D-DR-38). The prior
    ratio's source frequencies are those of the base source window (``n_source``, the recent
    labelled stream as it came), not of the per-class windows, whose shares are balanced by
    design. ``weight_one(x, y)`` is ``gamma(y) beta(x, y)``; without ``y`` it is the expectation
    ``sum_c p(c|x) gamma(c) beta(x, c)`` under DDR's classifier; a label DDR did not see at the
    last refresh gets the neutral raw weight 1 (D-DR-38). Weights are normalised to mean 1 over
    the source window (D-DR-13) and clipped at ``clip`` if given.

    Labels. DDR sorts its classes at each refresh, so they are all numbers or all text: a label
    of the other kind, a tuple or another object, ``None``, NaN or an infinite number raises
    :class:`~imbalance_stream.base.UnknownLabel` before anything changes. Labels that are equal
    are one class, as everywhere in the package: 1, 1.0 and True (and 0, 0.0 and False).

    Parameters
    ----------
    learner
        The weighted classifier inside DDR (scikit-learn protocol, ``fit(X, y, sample_weight)``,
        ``predict_proba``); None is :class:`IWLSPC` with its cross-validation.
    n_per_class
        Size of each class's window of labelled samples.
    max_iter
        Most DDR iterations per refresh.
    early_stopping
        Keep DDR's iterate of largest mutual information (DDR-ES; it may be the first, unweighted
        one, whose weights are all 1); False keeps the last.
    n_centres
        Kernel centres of the class-wise ratios.
    sigma, ridge
        Width and ridge of the class-wise ratios; None chooses them at each refresh by uLSIF's
        closed-form leave-one-out (D-DR-35). The old spelling ``lambda_`` still works until 0.4,
        with a ``DeprecationWarning``.
    n_source
        Size of the source window over which weights are normalised and the source class shares
        are counted; None keeps every sample.
    %(reweighter_windows)s
    seed
        Seed of DDR's centres and cross-validation.

    Attributes
    ----------
    ddr_
        The :class:`DDR` fitted at the last refresh; None when the windows held one class only.

    Examples
    --------

    Phishing pages, the labelled history keeping every page of class True but only one in four of
    class False: the prior ratio weights class False up and class True down.

    >>> from river import datasets
    >>> from imbalance_stream.density_ratio import DDRReweighter, IWLSPC
    >>> data = list(datasets.Phishing())
    >>> learner = IWLSPC(sigma=1.0, ridge=0.1, n_centres=30)
    >>> reweighter = DDRReweighter(learner, max_iter=3, early_stopping=False, seed=0)
    >>> for i, (x, y) in enumerate(data[:400]):
    ...     if y or i % 4 == 0:   # a source that kept a quarter of one class
    ...         reweighter.learn_source_one(x, y)
    >>> for x, _ in data[400:700]:
    ...     reweighter.learn_target_one(x)
    >>> reweighter.refresh()
    True
    >>> gamma = dict(zip(reweighter.ddr_.classes_, reweighter.ddr_.gamma_))
    >>> bool(gamma[False] > 1 > gamma[True])
    True

    References
    ----------
    Miao, Y.-Q. (2015). Adaptive learning algorithms for non-stationary data. PhD thesis,
    University of Waterloo. Sections 4.2-4.3, Algorithms 6 and 8.

    """

    def _set_own_params(
        self, learner, n_per_class, max_iter, early_stopping, n_centres, sigma, ridge
    ) -> None:
        self.learner = learner
        self.n_per_class = check_int("n_per_class", n_per_class, low=2)
        self.max_iter = check_int("max_iter", max_iter, low=1)
        self.early_stopping = check_bool("early_stopping", early_stopping)
        # the class-wise ratios are uLSIF's expansions, checked by its rules
        checked = ULSIF.check_params(n_centres=n_centres, sigma=sigma, ridge=ridge)
        self.n_centres, self.sigma = checked["n_centres"], checked["sigma"]
        self.ridge = checked["ridge"]
        self._per_class: dict = {}

    def check_label_one(self, y) -> None:
        """Raise :class:`~imbalance_stream.base.UnknownLabel` unless ``y`` can be a class: a
        class label (not None) that is a number or text, of the kind of the classes held (see
        "Labels" above); changes nothing."""
        check_label(y)
        kind = _label_kind(y)
        held = next(iter(self._per_class), None)
        if kind is None or (held is not None and kind != _label_kind(held)):
            # without this the sample is kept and the next refresh fails to sort the classes
            takes = "numbers (such as 0/1 or True/False) or text, all of one kind"
            if held is not None:
                takes = f"{_label_kind(held)} labels only, as it holds {held!r}"
            raise UnknownLabel(
                f"label {y!r} cannot be a class of DDRReweighter, which sorts its classes: it "
                f"takes {takes}"
            )

    def learn_source_one(self, x: dict, y=None) -> None:
        """Add a labelled sample to its class's window and to the source window."""
        self.check_label_one(y)  # before anything changes
        vector, _ = self._windows.encode(x)  # refuses a bad value before anything changes
        self._per_class.setdefault(y, collections.deque(maxlen=self.n_per_class)).append(vector)
        super().learn_source_one(x, y)

    def _solve(self, source_X: np.ndarray, source_y: list, target_X: np.ndarray) -> np.ndarray:
        classes = [c for c, window in self._per_class.items() if len(window)]
        if len(classes) < 2:
            self.ddr_ = None  # one class: no class-wise problem, the neutral weight
            return np.ones(len(source_y))
        X = np.vstack([self._windows.at_columns(v) for c in classes for v in self._per_class[c]])
        y = np.array([c for c in classes for _ in self._per_class[c]], dtype=object)
        learner = self.learner if self.learner is not None else IWLSPC(seed=self.seed)
        ddr = DDR(
            learner=learner,
            early_stopping=self.early_stopping,
            max_iter=self.max_iter,
            n_centres=self.n_centres,
            sigma=self.sigma,
            ridge=self.ridge,
            seed=self.seed,
        )
        self.ddr_ = ddr.fit(X, y, target_X)
        self._source_prior_fix(ddr, source_y)
        return np.array([self._weight_at(row, label) for row, label in zip(source_X, source_y)])

    def _source_prior_fix(self, ddr: DDR, source_y: list) -> None:
        """Re-base ``gamma`` on the source window's class shares: DDR counted them over the
        per-class windows, which hold the classes in balanced numbers."""
        counts = collections.Counter(source_y)
        window_counts = {c: len(self._per_class[c]) for c in ddr.classes_}
        total, window_total = sum(counts.values()), sum(window_counts.values())
        factors = [
            (window_counts[c] / window_total) / (counts[c] / total) if counts[c] else 1.0
            for c in ddr.classes_
        ]
        ddr.gamma_ = ddr.gamma_ * np.array(factors)

    def _weight_at(self, vector: np.ndarray, y) -> float:
        ddr = getattr(self, "ddr_", None)
        if ddr is None:
            return 1.0
        row = vector[None, :]
        if y is None:
            proba = ddr.predict_proba(row)[0]
            return float(
                sum(
                    p * ddr.weight(row, np.array([c], dtype=object))[0]
                    for c, p in zip(ddr.classes_, proba)
                )
            )
        classes = ddr.classes_.tolist()
        if y not in classes:  # compared with ==: 1, 1.0 and True are one class
            return 1.0
        # the class as DDR was fitted with it, which DDR.weight recognises (it compares labels
        # by their text, where True is not 1)
        fitted = classes[classes.index(y)]
        return float(ddr.weight(row, np.array([fitted], dtype=object))[0])

    @classmethod
    def _unit_test_params(cls):
        learner = IWLSPC(sigma=1.0, ridge=0.1, n_centres=20, seed=1)
        yield {
            "learner": learner,
            "n_per_class": 50,
            "max_iter": 2,
            "n_centres": 20,
            "sigma": 1.0,
            "ridge": 0.1,
            "n_source": 100,
            "n_target": 50,
            "refresh_every": 50,
            "seed": 1,
        }
        yield {"learner": learner, "n_per_class": 30, "max_iter": 1, "n_centres": 10, "clip": 5.0}
