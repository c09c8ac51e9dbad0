"""Writing a protocol's records (``runs.csv``, one line per run), as the CLI writes its tables."""

from __future__ import annotations

import pathlib

from imbalance_stream.cli import write_csv

__all__ = ["write_rows"]


def write_rows(path: str | pathlib.Path, rows: list[dict]) -> None:
    """Write ``rows`` to the CSV file ``path`` with the CLI's writer (``table.csv`` is written the
    same way), creating its folder; an empty list writes nothing."""
    if not rows:
        return
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_csv(rows, path)
