"""Array kernels, compiled with numba (``@njit(cache=True)``, no fastmath, no object mode).

Nothing here knows about dicts, labels or River: every function takes contiguous float64/int64
arrays and scalars, and updates state arrays in place. Each kernel has a plain-numpy twin in the
test-suite that it is checked against.
"""
