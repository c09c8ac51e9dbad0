"""The windowed density-ratio engine shared by the novelty detectors and the re-weighters.

One component, :class:`WindowedRatio`, holds what a streaming density-ratio model keeps between
refreshes: two sample windows (:class:`~imbalance_stream.base.windows.SampleWindows`), the
refresh schedule and the selection rule
(:class:`~imbalance_stream.base.windows.RefreshSchedule`, ``reselect_every``), and the fit of the
batch estimator it refits at each refresh. The detectors of :mod:`imbalance_stream.anomaly`
(reference and test windows, the test window as the ratio's denominator) and the re-weighters of
this package (source and target windows, the source as the denominator) each hold one and add
only their protocol: scores, or normalised and clipped weights.

A preset (:func:`preset`) is such a model with its batch estimator named: its constructor is
written from a list of parameter names, the estimator's own (annotated and defaulted as the
estimator has them, unless the preset says otherwise) around the window parameters of its base,
so that what a preset repeats of its estimator and of its base is said once.
"""

from __future__ import annotations

import contextlib
import copy
import functools
import inspect
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from imbalance_stream.base._docstrings import fill_docs
from imbalance_stream.base.deprecation import renamed_parameters
from imbalance_stream.base.validation import check_int
from imbalance_stream.base.windows import RefreshSchedule, SampleWindows

from ._docs import REFERENCES

__all__ = [
    "MIN_WINDOW",
    "PARAMETER_DOCS",
    "WINDOWS",
    "Preset",
    "WindowedRatio",
    "estimator_of",
    "preset",
    "set_estimator_params",
    "shared_parameter_docs",
    "whole_sample",
]

#: Fewest points each window must hold before a refresh can estimate anything.
MIN_WINDOW = 2


#: The head of the ``reselect_every`` entries, which end by what a refresh in between holds.
_RESELECT_EVERY = """\
    reselect_every
        Select the hyper-parameters left None again every this many refreshes (the first
        refresh always selects); None: only at the first refresh and after :meth:`reselect`;
        1: at every refresh, the thesis's procedure. Refreshes in between hold the last
"""

#: Parameter entries that the docstrings of the detectors and re-weighters share, each put in
#: place of its ``%(name)s`` line by :func:`shared_parameter_docs`.
PARAMETER_DOCS = {
    "novelty_windows": """\
    mode
        ``"two-sample"``: ``learn_one`` takes normal data, ``observe_one`` the data to screen.
        ``"stream"``: one stream through ``learn_one``, the recent ``n_test`` points against the
        ``n_reference`` before them. See
        :class:`~imbalance_stream.anomaly.base.DensityRatioNovelty`.
    n_reference
        Size of the reference window; None keeps every point.
    n_test
        Size of the test window; None keeps every point (two-sample mode only).
    refresh_every
        Re-solve after this many samples taken in. None: in ``"stream"`` mode every ``n_test``
        samples (each test window replaced once), in ``"two-sample"`` mode only when
        :meth:`refresh` is called.
""",
    "reweighter_windows": """\
    n_target
        Size of the target (current, unlabelled) window; None keeps every sample.
    refresh_every
        Re-solve after this many samples taken in. None: every ``n_target`` samples if the
        target window is bounded, else only when :meth:`refresh` is called.
    clip
        Cap of a weight after normalisation; None (faithful) leaves weights unclipped.
""",
    "n_source": """\
    n_source
        Size of the source (labelled) window; None keeps every sample.
""",
    "sigma_likelihood": """\
    sigma
        Gaussian width; None chooses it by likelihood cross-validation (``n_folds`` folds) over
        the median distance times ``logspace(-3, 1, 9)``.
""",
    "sigma_leave_one_out": """\
    sigma
        Gaussian width; None chooses it by leave-one-out over the median distance times
        ``logspace(-3, 1, 9)``.
""",
    "sigma_median": """\
    sigma
        Gaussian width, ``exp(-||a - b||^2 / (2 sigma^2))``; None takes the median pairwise
        distance over the pooled windows at each refresh (the thesis's choice for KMM, Chapter
        6's KMM(med)).
""",
    "n_centres_reference": """\
    n_centres
        Number of basis centres drawn from the reference window (100 in the thesis).
""",
    "n_centres_target": """\
    n_centres
        Number of centres drawn from the target window.
""",
    "n_folds_likelihood": """\
    n_folds
        Folds of the likelihood cross-validation.
""",
    "B": """\
    B
        Upper bound of each weight (1000 in the thesis).
""",
    "kmm_solver_limits": """\
    tol
        Stopping tolerance of the solver, as in :class:`~imbalance_stream.density_ratio.KMM`
        (for the first-order solver, relative to the largest ``|k_i|``).
    max_iter
        Iteration cap of the solver.
""",
    "seed_likelihood": """\
    seed
        Seed of the centres, the folds and the median subsample.
""",
    "seed_leave_one_out": """\
    seed
        Seed of the centres, the leave-one-out pairing and the median subsample.
""",
    "seed_median": """\
    seed
        Seed of the subsample that estimates the median distance on large windows.
""",
    "ridge": """\
    ridge
        The ridge ``lambda`` of eq. 3.28; None chooses it by leave-one-out over
        ``logspace(-3, 1, 9)``. The old spelling ``lambda_`` still works until 0.4, with a
        ``DeprecationWarning``.
""",
    "reselect_every": _RESELECT_EVERY + "        selection.\n",
    # KMM's warm start: from the last solution at the points of the window it weighs
    "reselect_every_warm": _RESELECT_EVERY
    + """\
        width and start the solver from the last solution at the weighted window's points
        still held (the test window's for a detector, the source window's for a re-weighter).
""",
}


_fill_parameter_docs = fill_docs({**PARAMETER_DOCS, **REFERENCES})


def shared_parameter_docs(cls):
    """Put the shared entries of :data:`PARAMETER_DOCS`, and the papers the family cites
    (``density_ratio._docs.REFERENCES``), in place of their ``%(name)s`` lines in ``cls``'s
    docstring, so that ``help()`` and the doctests see the whole text."""
    return _fill_parameter_docs(cls)


class WindowedRatio(RefreshSchedule):
    """Two sample windows, their refresh schedule and the batch fit on them.

    A refresh (:meth:`run`) needs :data:`MIN_WINDOW` points in each window.

    Parameters
    ----------
    sizes
        ``{window name: maximum length}`` of the two windows (None keeps every vector), each
        checked as ``n_<name>``.
    denominator
        The window that is the ratio's denominator, the sample a transductive solution covers;
        the other is its numerator.
    refresh_every
        Refresh after this many samples taken in; None: every ``default_period`` samples.
    reselect_every
        The selection rule of :class:`~imbalance_stream.base.windows.RefreshSchedule`.
    default_period
        The period when ``refresh_every`` is None (None: only when a refresh is asked for).
    transductive
        Whether the values a refresh solves at the denominator's rows are kept, so that a query
        at one of those rows returns its solved value (:meth:`known`): the rule of the methods
        whose solution exists only at the points it was solved on (KMM, locKMM).
    """

    def __init__(
        self,
        sizes: dict[str, int | None],
        denominator: str,
        refresh_every: int | None,
        reselect_every: int | None,
        default_period: int | None = None,
        transductive: bool = False,
    ):
        self.sizes = {
            name: check_int(f"n_{name}", size, low=MIN_WINDOW, optional=True)
            for name, size in sizes.items()
        }
        self.refresh_every = check_int("refresh_every", refresh_every, low=1, optional=True)
        self.denominator = denominator
        (self.numerator,) = (name for name in sizes if name != denominator)
        self.default_period = default_period
        self.transductive = transductive
        self._windows = SampleWindows(self.sizes)
        self._init_selection(reselect_every)
        self._since_refresh = 0
        self.solved: dict[bytes, float] = {}  # denominator row -> its solved value
        self.fitted = False

    @property
    def windows(self) -> SampleWindows:
        return self._windows

    @property
    def _refresh_period(self) -> int | None:
        return self.refresh_every if self.refresh_every is not None else self.default_period

    def count_sample(self) -> bool:
        """Count one sample taken in; returns whether the schedule calls for a refresh now."""
        return self._sample_counted()

    def refresh_due_next(self) -> bool:
        """Whether the next sample counted calls for a refresh."""
        period = self._refresh_period
        return period is not None and self._since_refresh + 1 >= period

    def size(self, name: str) -> int:
        """Points in window ``name`` now."""
        return len(self._windows.windows[name])

    def run(self, solve: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray | None:
        """A refresh: ``solve(denominator, numerator)`` on the windows' matrices over the
        columns known now, returning a value per denominator row; returns those values, or None
        when a window holds fewer than :data:`MIN_WINDOW` points (nothing solved)."""
        self._since_refresh = 0
        if any(len(window) < MIN_WINDOW for window in self._windows.windows.values()):
            return None
        self._windows.freeze()
        numerator = self._windows.matrix(self.numerator)
        denominator = self._windows.matrix(self.denominator)
        values = np.asarray(solve(denominator, numerator), dtype=np.float64)
        self.solved = {}
        if self.transductive:
            self.solved = {row.tobytes(): float(v) for row, v in zip(denominator, values)}
        self.fitted = True
        return values

    def known(self, vector: np.ndarray) -> float | None:
        """The value the last refresh solved at ``vector`` if it was a denominator row then and
        the method is transductive, else None."""
        return self.solved.get(vector.tobytes()) if self.solved else None

    def fit(self, estimator, denominator: np.ndarray, numerator: np.ndarray, transductive: str):
        """Fit the batch ``estimator`` on a refresh's matrices (the denominator as its source) at
        the selection of :meth:`_fit_selected`; returns it and its value at each denominator row:
        its attribute ``transductive`` where it has one (KMM's solution), else ``weight``."""
        estimator = self._fit_selected(estimator, denominator, numerator, self.denominator)
        values = getattr(estimator, transductive, None)
        return estimator, values if values is not None else estimator.weight(denominator)


@functools.cache
def _shared_params(owner: type, estimator: type) -> tuple[str, ...]:
    """The constructor parameters ``owner`` hands on to ``estimator``: those they share."""
    taken = inspect.signature(estimator).parameters
    return tuple(
        name
        for name, parameter in inspect.signature(owner).parameters.items()
        if name in taken and parameter.kind is parameter.POSITIONAL_OR_KEYWORD
    )


@contextlib.contextmanager
def whole_sample(owner) -> Iterator[None]:
    """Take a sample into ``owner`` (a detector or a re-weighter holding a :class:`WindowedRatio`
    as ``_ratio``) whole or not at all: the sample has been validated, so the one step that can
    fail after its windows changed is the refresh it may call for (a solve that stops short, a
    ``MemoryError``); when the next sample counted calls for one, the owner's state is copied
    first and put back if the block raises, so a refused sample leaves the owner as it was."""
    snapshot = None
    if owner._ratio.refresh_due_next():
        # the windows' vectors are pushed and dropped, never changed in place: the copy keeps
        # them rather than copying each (the copy of a window is then a few microseconds)
        vectors = owner._ratio.windows.windows.values()
        snapshot = copy.deepcopy(vars(owner), {id(v): v for window in vectors for v in window})
    try:
        yield
    except BaseException:
        if snapshot is not None:
            vars(owner).clear()
            vars(owner).update(snapshot)
        raise


def estimator_of(owner):
    """A new, unfitted ``owner.ESTIMATOR`` with the parameters ``owner`` shares with it."""
    params = _shared_params(type(owner), owner.ESTIMATOR)  # type: ignore[arg-type]  # (a class)
    return owner.ESTIMATOR(**{name: getattr(owner, name) for name in params})


def set_estimator_params(owner, **params) -> None:
    """Check ``params`` by the rules of ``owner.ESTIMATOR`` (without building one) and set them
    on ``owner``."""
    for name, value in owner.ESTIMATOR.check_params(**params).items():
        setattr(owner, name, value)


#: In a preset's parameter list, the place of its base's window parameters (all but
#: ``reselect_every``, which a preset that selects names where it stands).
WINDOWS = "<windows>"


class Preset:
    """The first base of a class made by :func:`preset`, which nothing at run time: to a static
    type checker it says that the constructor takes what the preset's list names (the
    signature ``inspect`` and River read is the one :func:`preset` writes)."""

    if TYPE_CHECKING:

        def __init__(self, *args: Any, **kwargs: Any) -> None: ...


def _base_init(cls: type):
    """The nearest ``__init__`` up ``cls``'s classes that is written, not made by :func:`preset`."""
    for klass in cls.__mro__:
        init = vars(klass).get("__init__")
        if init is not None and not getattr(init, "preset", False):
            return init
    raise TypeError(f"{cls.__name__} has no constructor to build on")  # pragma: no cover


def preset(
    *names: str, like: type | None = None, renamed: dict[str, str] | None = None, **defaults
):
    """Class decorator: the constructor of a detector or re-weighter, from its parameter names in
    order, :data:`WINDOWS` standing for its base's window parameters.

    A parameter of the base is annotated and defaulted as the base's constructor has it; any
    other as ``like``'s (default: the class's ``ESTIMATOR``), or by its default in ``defaults``
    (which also overrides the others'). The constructor binds its arguments as a written one
    would (positions in this order, keywords, the same ``TypeError``), gives the base's to the
    base's constructor first and the rest to ``self._set_own_params`` (an
    :class:`~imbalance_stream.anomaly.base.EstimatorNovelty` or
    :class:`~imbalance_stream.density_ratio.reweighter.EstimatorReweighter` checks them by its
    estimator's rules). ``renamed`` (``{old: new}``) keeps old spellings with a warning
    (:func:`~imbalance_stream.base.deprecation.renamed_parameters`)."""

    def decorate(cls):
        base_init = _base_init(cls)
        base = dict(list(inspect.signature(base_init).parameters.items())[1:])
        ordered = [
            name
            for entry in names
            for name in (
                [n for n in base if n != "reselect_every"] if entry == WINDOWS else [entry]
            )
        ]
        source = inspect.signature(like if like is not None else cls.ESTIMATOR).parameters
        parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        for name in ordered:
            template = base.get(name, source.get(name))
            if template is None:  # the preset's own: typed by its default
                template = inspect.Parameter(
                    name,
                    inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    annotation=type(defaults[name]).__name__,
                )
            parameters.append(
                template.replace(
                    kind=inspect.Parameter.POSITIONAL_OR_KEYWORD,
                    default=defaults.get(name, template.default),
                )
            )
        signature = inspect.Signature(parameters)

        def __init__(self, *args, **kwargs):
            arguments = signature.bind(self, *args, **kwargs)
            arguments.apply_defaults()
            values = dict(arguments.arguments)
            del values["self"]
            base_init(self, **{name: values.pop(name) for name in ordered if name in base})
            self._set_own_params(**values)

        __init__.__signature__ = signature  # type: ignore[attr-defined]
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        __init__.__module__ = cls.__module__
        __init__.preset = True  # type: ignore[attr-defined]
        if renamed:
            __init__ = renamed_parameters(**renamed)(__init__)
        setattr(cls, "__init__", __init__)  # noqa: B010  (a method mypy would refuse to assign)
        return cls

    return decorate
