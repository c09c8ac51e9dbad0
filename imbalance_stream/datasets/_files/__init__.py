"""The data catalogue: the files of every loader, each with its path in the data home, its
checksums, where it comes from and the name ``imbalance-stream data fetch`` downloads it under
(:class:`~imbalance_stream.datasets.home.DataFile`), one module per family. The loaders import
their tables from here, and :mod:`imbalance_stream.datasets.fetch` its names and sources; without
numpy or River, so that ``imbalance-stream data`` reads them at once."""

from __future__ import annotations

from ..home import DataFile


def file_table(folder, sources, sha256, origins, content_sha256, notes) -> dict[str, DataFile]:
    """The files of one folder of the data home from its tables, each keyed by the name the
    loaders use: ``sources`` (the stored file, its public page, the name it is fetched under),
    ``sha256``, ``origins`` (where the stored bytes come from), ``content_sha256`` (compressed
    copies only) and ``notes`` (copies that are not the file as published)."""
    return {
        key: DataFile(
            f"{folder}/{stored}",
            sha256[key],
            page,
            origins[key],
            content_sha256=content_sha256.get(key, ""),
            note=notes.get(key, ""),
            fetch_name=fetch_name,
        )
        for key, (stored, page, fetch_name) in sources.items()
    }
