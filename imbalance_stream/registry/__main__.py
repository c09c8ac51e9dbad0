"""``python -m imbalance_stream.registry`` rewrites imbalance_stream/catalog.py (see
:func:`~imbalance_stream.registry.write_catalog`)."""

from imbalance_stream.registry import write_catalog

if __name__ == "__main__":  # not on an import (a tool that imports every module)
    write_catalog()
