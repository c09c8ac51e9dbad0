"""The learning loop shared by the chapter 6 family of seed 003 (LASVM-G, LASVM-NC, LASVM-I and
FULL SVM): no bias, single-coordinate PROCESS and REPROCESS driven by the duality gap, and CLEAN
every ``clean_every`` arrivals (Ertekin 2009, sections 6.1-6.4)."""

from __future__ import annotations

import numpy as np

from imbalance_stream._numba import lasvm as core
from imbalance_stream.base.validation import check_int, check_real

from ._expansion import SupportVectorExpansion

__all__: list[str] = []

#: Cap on the REPROCESS loop after one PROCESS (D-LASVM-12).
MAX_REPROCESS = 10_000


class GapSVM(SupportVectorExpansion):
    """``f(x) = sum_s alpha_s K(x_s, x)`` (b = 0) learned by the gap-driven loop of chapter 6.

    ``ramp`` is one of ``core.RAMP_NONE`` (LASVM-G, FULL SVM), ``core.RAMP_NC`` (LASVM-NC) and
    ``core.RAMP_I`` (LASVM-I); ``clean_every = 0`` never cleans (FULL SVM)."""

    _ramp = core.RAMP_NONE
    _COUNTERS = ("n_skipped_", "n_admitted_flat_", "n_cleaned_", "n_reprocess_", "n_capped_")

    def __init__(
        self, C, gamma, kernel, tau, cache_mb, class_weight, positive, clean_every, clean_keep
    ):
        check_int("clean_every", clean_every, low=0)
        check_int("clean_keep", clean_keep, low=0)
        super().__init__(C, gamma, kernel, tau, cache_mb, class_weight, positive)
        self.clean_every = clean_every
        self.clean_keep = clean_keep
        self._arrivals = 0
        self._counts = np.zeros(5, dtype=np.int64)  # in the order of _COUNTERS
        self._admitted = np.zeros(2, dtype=np.int64)  # samples admitted, negative and positive

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
        status, steps, capped = core.learn_gap(
            self._kind,
            float(self.gamma),
            self._store,
            self._model,
            self._cache,
            self._ints,
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
            self._work,
            self._qrow,
        )
        self._counts[0] += status == core.SKIPPED
        self._admitted[int(sign > 0)] += status != core.SKIPPED
        self._counts[1] += status == core.ADMITTED_FLAT
        self._counts[3] += steps
        self._counts[4] += capped
        if self.clean_every and self._arrivals % self.clean_every == 0:
            self.clean()

    def clean(self, keep: int | None = None) -> int:
        """CLEAN (chapter 6): keep the ``keep`` (default ``clean_keep``) members with alpha = 0
        of smallest |g| and remove the others; returns how many were removed. It changes no
        decision value: only alpha = 0 members go."""
        check_int("keep", keep, low=0, optional=True)
        removed = int(
            core.clean(
                self._store,
                self._model,
                self._cache,
                self._ints,
                self.clean_keep if keep is None else keep,
            )
        )
        self._counts[2] += removed
        return removed

    def finish(self, max_iter: int | None = None) -> int:
        """REPROCESS until no coefficient violates its optimality condition by more than
        ``tau`` (at most ``max_iter`` steps; None: at most 1,000 per member of the expansion and
        at least 100,000, D-LASVM-50); returns the number of steps. Learning can go on."""
        limit = self._finish_limit(max_iter)
        return int(
            core.finish_gap(
                self._kind,
                float(self.gamma),
                self._store,
                self._model,
                self._cache,
                self._ints,
                float(self.tau),
                limit,
                self._work,
            )
        )

    @property
    def duality_gap_(self) -> float:
        """The duality gap of eq. 6.4 (corrected, D-LASVM-10) over the members."""
        return float(core.duality_gap(self._model, self.n_expansion_))

    @property
    def n_skipped_(self) -> int:
        """Examples the Ramp filter left out (LASVM-I)."""
        return int(self._counts[0])

    @property
    def n_admitted_flat_(self) -> int:
        """Examples admitted in the left flat part of the Ramp, with beta = C (LASVM-NC)."""
        return int(self._counts[1])

    @property
    def n_cleaned_(self) -> int:
        """Members removed by CLEAN."""
        return int(self._counts[2])

    @property
    def n_reprocess_(self) -> int:
        """REPROCESS steps taken while learning."""
        return int(self._counts[3])

    @property
    def n_capped_(self) -> int:
        """Examples after which the REPROCESS loop stopped at its cap (D-LASVM-12)."""
        return int(self._counts[4])


def check_ramp(s, min_support=0) -> None:
    """``s < 1`` (the Ramp's hinge point, eq. 6.9) and a non-negative ``min_support``."""
    check_real("s", s, high=1.0, high_open=True)
    check_int("min_support", min_support, low=0)
