"""imbalance_stream: streaming learning on River for imbalanced, drifting data streams."""

__version__ = "0.1.0"
