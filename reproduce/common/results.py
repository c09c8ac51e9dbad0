"""Writing a protocol's records (``runs.csv``, one line per run) the same way everywhere."""

from __future__ import annotations

import csv
import pathlib

__all__ = ["write_rows"]


def write_rows(path: str | pathlib.Path, rows: list[dict]) -> None:
    """Write ``rows`` (dicts with the same keys, in order) to the CSV file ``path``, creating its
    folder; an empty list writes nothing."""
    if not rows:
        return
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
