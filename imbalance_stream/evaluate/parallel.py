"""The sweep runner of the evaluation, :mod:`imbalance_stream.parallel`, under the name the
protocols, the scenarios and the replay have always imported it by.

It lives below the estimators, which run their own work through it too (``AutoKMM(n_jobs=...)``):
an estimator imports nothing of the evaluation harness.
"""

from imbalance_stream.parallel import SchedulerUnreachable, claim_numba_cache, map_cells

__all__ = ["SchedulerUnreachable", "claim_numba_cache", "map_cells"]
