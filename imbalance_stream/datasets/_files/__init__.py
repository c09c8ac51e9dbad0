"""The data catalogue: the files of every loader, each with its path in the data home, its
checksums, where it comes from and the name ``imbalance-stream data fetch`` downloads it under
(:class:`~imbalance_stream.datasets.home.DataFile`), one module per family. The loaders import
their tables from here, and :mod:`imbalance_stream.datasets.fetch` its names and sources; without
numpy or River, so that ``imbalance-stream data`` reads them at once."""
