"""The files of every loader: path in the data home, checksums and sources
(:class:`~imbalance_stream.datasets.home.DataFile`), one module per family, without numpy or
River, so that :mod:`imbalance_stream.datasets.fetch` and ``imbalance-stream data`` read them at
once. The loaders import their tables from here."""
