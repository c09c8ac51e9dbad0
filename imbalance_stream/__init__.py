"""imbalance_stream: streaming learning on River for imbalanced, drifting data streams.

The submodules follow River's names and are imported on first use, so ``import imbalance_stream``
stays cheap: ``imbalance_stream.linear_model.ACOG``, ``imbalance_stream.metrics.ExactROCAUC``, ...
"""

import importlib

__version__ = "0.2.0"

__all__ = ["base", "datasets", "evaluate", "kernel", "linear_model", "metrics", "svm"]


def __getattr__(name):
    if name in __all__:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
