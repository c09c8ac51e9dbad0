"""The learning loop shared by the chapter 6 family of seed 003 (LASVM-G, LASVM-NC, LASVM-I and
FULL SVM): no bias, single-coordinate PROCESS and REPROCESS driven by the duality gap, and CLEAN
every ``clean_every`` arrivals (Ertekin 2009, sections 6.1-6.4)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import lasvm as core
from imbalance_stream._numba import lasvm_gap as gap_core
from imbalance_stream.base._docstrings import DOCS, fill_docs
from imbalance_stream.base.validation import check_int, check_real

from .lasvm import SupportVectorExpansion

__all__: list[str] = []

#: Cap on the REPROCESS loop after one PROCESS (D-LASVM-12).
MAX_REPROCESS = 10_000

#: Table 6.1's regions of the Ramp ``R_s(z) = H_1(z) - H_s(z)`` (eq. 6.9), where a sample's
#: ``z = y f(x)`` lay when PROCESS admitted it: the left flat part (``z < s``), the sloped part
#: (``s <= z <= 1``) and the right flat part (``z > 1``). ``UNKNOWN`` marks the members of a model
#: pickled before the bookkeeping existed (D-LASVM-53).
LEFT, SLOPE, RIGHT, UNKNOWN = 0, 1, 2, 3
REGIONS = ("left", "slope", "right")


#: Docstring entries the chapter 6 family shares, each put in place of its ``%(name)s`` line by
#: :func:`shared_docs` (with the binary classifiers' entries of ``base._docstrings.DOCS``), so
#: that ``help()``, the doctests and the docs site see each class's whole text (as
#: ``density_ratio``'s ``PARAMETER_DOCS`` do for the detectors and re-weighters).
SHARED_DOCS = {
    "gap_parameters": """\
    Parameters
    ----------
    C
        Box bound of the coefficients (misclassification cost); also the floor of the gap
        threshold ``max(C, gap target)`` of section 6.1.
    gamma
        Width of the RBF kernel ``exp(-gamma |a - b|^2)``.
    kernel
        ``"rbf"`` or ``"linear"`` (``a.b``).
    tau
        Tolerance: REPROCESS steps only on a coefficient whose gradient violates its optimality
        condition by more than ``tau``, and :meth:`finish` stops when none does.
    cache_mb
        Budget of the kernel-row cache, in megabytes; rows are float32, as in LIBSVM (at least
        two rows are always kept).
    class_weight
        ``{label: weight}``: the class's C is ``C * weight`` (1 for a label not given).
""",
    "clean_parameters": """\
    clean_every
        CLEAN runs after every ``clean_every`` arriving samples (300 in chapter 6; counted in
        arrivals, D-LASVM-14).
    clean_keep
        CLEAN keeps at most this many ``alpha = 0`` members, those of smallest |g| (the thesis's
        m, not given; D-LASVM-13).
""",
    "gap_attributes": """\
    Attributes
    ----------
    n_support_
        Support vectors (members with ``alpha != 0``).
    n_expansion_
        Members of the expansion: support vectors and the ``alpha = 0`` members CLEAN has not
        removed yet.
    n_kernel_evaluations_
        Kernel values computed while learning and finishing (fresh rows and cache misses;
        D-LASVM-7).
    duality_gap_
        The gap of eq. 6.4, corrected (D-LASVM-10), over the members.
    n_cleaned_, n_reprocess_, n_capped_
        Members removed by CLEAN, REPROCESS steps taken, and examples after which the REPROCESS
        loop stopped at its cap (D-LASVM-12).
    n_admitted_by_region_, n_cleaned_by_region_
        Table 6.1's bookkeeping: samples admitted, and members later removed by CLEAN, by where
        the sample's ``z = y f(x)`` lay on the Ramp when it was admitted: ``"left"`` (``z < s``),
        ``"slope"`` or ``"right"`` (``z > 1``), with the model's ``s`` (-1 for LASVM-G and FULL
        SVM, which have no Ramp; D-LASVM-53).
    n_support_by_region_, n_non_support_by_region_
        The members (``alpha != 0`` and ``alpha = 0``) by the region of their admission; in each
        region, admitted = support + non-support + cleaned.
""",
    "references": """\
    Ertekin, S. (2009). Learning in Extreme Conditions: Online and Active Learning with Massive,
    Imbalanced and Noisy Data. PhD thesis, The Pennsylvania State University, chapter 6.

    Ertekin, S., Bottou, L., Giles, C. L. (2011). Nonconvex Online Support Vector Machines. IEEE
    Transactions on Pattern Analysis and Machine Intelligence 33(2).
""",
}

#: Fill the ``%(name)s`` lines of a class's docstring from :data:`SHARED_DOCS`.
shared_docs = fill_docs({**DOCS, **SHARED_DOCS})


def ramp_region(z: float, s: float) -> int:
    """The region of the Ramp that ``z = y f(x)`` lies in, for the hinge point ``s`` (Table 6.1's
    columns, with their strict inequalities: ``z < s`` is Ramp(L), ``z > 1`` Ramp(R))."""
    if z < s:
        return LEFT
    if z > 1.0:
        return RIGHT
    return SLOPE


#: The slots of ``GapSVM._counts``, the learning loop's counts (an int64 array, pickled with
#: the model): examples the Ramp filter skipped, examples admitted in its left flat part,
#: members CLEAN removed, REPROCESS steps, examples whose REPROCESS loop hit its cap.
N_SKIPPED, N_ADMITTED_FLAT, N_CLEANED, N_REPROCESS, N_CAPPED = range(5)
#: The rows of ``GapSVM._region_counts`` (Table 6.1): members admitted, members CLEAN removed.
ADMITTED_ROW, CLEANED_ROW = range(2)


def _count(slot: int, doc: str) -> property:
    """A read-only count of the learning loop: ``_counts[slot]``."""
    return property(lambda self: int(self._counts[slot]), doc=doc)


class GapSVM(SupportVectorExpansion):
    """``f(x) = sum_s alpha_s K(x_s, x)`` (b = 0) learned by the gap-driven loop of chapter 6.

    ``_ramp`` is one of ``gap_core.RAMP_NONE`` (LASVM-G, FULL SVM), ``gap_core.RAMP_NC``
    (LASVM-NC) and ``gap_core.RAMP_I`` (LASVM-I); ``clean_every = 0`` never cleans (FULL SVM)."""

    _ramp = gap_core.RAMP_NONE
    # Each member's Ramp region at admission (Table 6.1) is one more member slot: a step writes
    # it in the new member's slot, so the transaction saves it as it saves the member arrays.
    _SLOT_ARRAYS = (*SupportVectorExpansion._SLOT_ARRAYS, "_region")
    _CHECKED = SupportVectorExpansion._CHECKED | {"_region", "_region_counts"}  # integers

    def __init__(
        self, C, gamma, kernel, tau, cache_mb, class_weight, positive, clean_every, clean_keep
    ):
        check_int("clean_every", clean_every, low=0)
        check_int("clean_keep", clean_keep, low=0)
        super().__init__(C, gamma, kernel, tau, cache_mb, class_weight, positive)
        self.clean_every = clean_every
        self.clean_keep = clean_keep
        self._arrivals = 0
        self._counts = np.zeros(5, dtype=np.int64)  # by N_SKIPPED ... N_CAPPED
        self._admitted = np.zeros(2, dtype=np.int64)  # samples admitted, negative and positive
        # Table 6.1: members admitted (ADMITTED_ROW) and removed by CLEAN (CLEANED_ROW), by the
        # Ramp region of their admission (columns LEFT, SLOPE, RIGHT, UNKNOWN)
        self._region_counts = np.zeros((2, 4), dtype=np.int64)

    # ---- the member slots of Table 6.1's bookkeeping -----------------------------------------

    def _allocate_members(self, capacity: int) -> None:
        super()._allocate_members(capacity)
        self._region = np.zeros(capacity, dtype=np.int8)  # the Ramp region of each member

    def _grow_members(self, capacity: int) -> None:
        region = self._region
        super()._grow_members(capacity)
        self._region[: region.shape[0]] = region

    def __setstate__(self, state):
        if "_region" not in state:
            # pickled before the bookkeeping: the regions of its members are not known, and its
            # admissions and removals so far were not counted; count the members as admitted in
            # UNKNOWN, so that every region's counts still add up
            count = int(state["_ints"][core.COUNT])
            state["_region"] = np.zeros(state["_start"].shape[0], dtype=np.int8)
            state["_region"][:count] = UNKNOWN
            state["_region_counts"] = np.zeros((2, 4), dtype=np.int64)
            state["_region_counts"][ADMITTED_ROW, UNKNOWN] = count
        super().__setstate__(state)

    def _ramp_for(self, sign: float) -> int:
        """The Ramp mode of the next sample of class ``sign`` (LASVM-I overrides it)."""
        return self._ramp

    def _ramp_parameters(self) -> tuple[float, int]:
        """``(s, min_support)`` of the Ramp (LASVM-NC and LASVM-I override it)."""
        return -1.0, 0

    def _learn(self, indices, values, sign):
        self._ensure_room(len(indices))
        self._arrivals += 1
        weight = 1.0
        if self.class_weight is not None:
            label = self.positive if sign > 0 else self._negative
            weight = float(self.class_weight.get(label, 1.0))
        s, min_support = self._ramp_parameters()
        status, steps, capped, z = gap_core.learn_gap(
            self._state,
            (indices, values),
            sign,
            float(self.C) * weight,
            float(self.C),
            self._ramp_for(sign),
            float(s),
            int(min_support),
            float(self.tau),
            float(self._arrivals),
            MAX_REPROCESS,
        )
        self._counts[N_SKIPPED] += status == gap_core.SKIPPED
        self._admitted[int(sign > 0)] += status != gap_core.SKIPPED
        self._counts[N_ADMITTED_FLAT] += status == gap_core.ADMITTED_FLAT
        self._counts[N_REPROCESS] += steps
        self._counts[N_CAPPED] += capped
        if status != gap_core.SKIPPED:
            # PROCESS inserted the sample as the last member (nothing leaves before CLEAN)
            region = ramp_region(z, s)
            self._region[self._ints[core.COUNT] - 1] = region
            self._region_counts[ADMITTED_ROW, region] += 1
        if self.clean_every and self._arrivals % self.clean_every == 0:
            self.clean()

    def clean(self, keep: int | None = None) -> int:
        """CLEAN (chapter 6): keep the ``keep`` (default ``clean_keep``) members with alpha = 0
        of smallest |g| and remove the others; returns how many were removed. It changes no
        decision value: only alpha = 0 members go."""
        check_int("keep", keep, low=0, optional=True)
        removed = int(
            gap_core.clean(
                self._state,
                self.clean_keep if keep is None else keep,
                self._region,
                self._region_counts[CLEANED_ROW],
            )
        )
        self._counts[N_CLEANED] += removed
        return removed

    def finish(self, max_iter: int | None = None) -> int:
        """REPROCESS until no coefficient violates its optimality condition by more than
        ``tau`` (at most ``max_iter`` steps; None: at most 1,000 per member of the expansion and
        at least 100,000, D-LASVM-50); returns the number of steps. Learning can go on."""
        limit = self._finish_limit(max_iter)
        return int(gap_core.finish_gap(self._state, float(self.tau), limit))

    @property
    def duality_gap_(self) -> float:
        """The duality gap of eq. 6.4 (corrected, D-LASVM-10) over the members."""
        return float(gap_core.duality_gap(self._model, self.n_expansion_))

    n_skipped_ = _count(N_SKIPPED, "Examples the Ramp filter left out (LASVM-I).")
    n_admitted_flat_ = _count(
        N_ADMITTED_FLAT,
        "Examples admitted in the left flat part of the Ramp, with beta = C (LASVM-NC).",
    )
    n_cleaned_ = _count(N_CLEANED, "Members removed by CLEAN.")
    n_reprocess_ = _count(N_REPROCESS, "REPROCESS steps taken while learning.")
    n_capped_ = _count(
        N_CAPPED, "Examples after which the REPROCESS loop stopped at its cap (D-LASVM-12)."
    )

    # ---- Table 6.1 --------------------------------------------------------------------------

    def _by_region(self, counts: np.ndarray) -> dict[str, int]:
        return {name: int(counts[code]) for code, name in enumerate(REGIONS)}

    @property
    def n_admitted_by_region_(self) -> dict[str, int]:
        """Samples PROCESS admitted, by where ``z = y f(x)`` lay on the Ramp when they arrived:
        ``"left"`` (``z < s``), ``"slope"`` (``s <= z <= 1``), ``"right"`` (``z > 1``), with the
        model's ``s`` (-1 for LASVM-G and FULL SVM, which have no Ramp). Table 6.1's Admitted
        columns (D-LASVM-53)."""
        return self._by_region(self._region_counts[ADMITTED_ROW])

    @property
    def n_cleaned_by_region_(self) -> dict[str, int]:
        """Members CLEAN removed, by the region of :attr:`n_admitted_by_region_` each was admitted
        in (however its ``z`` moved since). Table 6.1's Cleaned columns."""
        return self._by_region(self._region_counts[CLEANED_ROW])

    def _members_by_region(self, support: bool) -> dict[str, int]:
        count = self.n_expansion_
        chosen = (self._model.alpha[:count] != 0.0) == support
        return self._by_region(np.bincount(self._region[:count][chosen], minlength=4))

    @property
    def n_support_by_region_(self) -> dict[str, int]:
        """Support vectors (``alpha != 0``) in the expansion, by the region of their admission.
        In every region, admitted = support + non-support + cleaned."""
        return self._members_by_region(True)

    @property
    def n_non_support_by_region_(self) -> dict[str, int]:
        """Members with ``alpha = 0`` (not removed yet), by the region of their admission."""
        return self._members_by_region(False)


def check_ramp(s, min_support=0) -> None:
    """``s < 1`` (the Ramp's hinge point, eq. 6.9) and a non-negative ``min_support``."""
    check_real("s", s, high=1.0, high_open=True)
    check_int("min_support", min_support, low=0)
