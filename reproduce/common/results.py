"""Running a protocol's cells and writing its records (``runs.csv``, one line per run), as the CLI
writes its tables; reading a table back."""

from __future__ import annotations

import csv
import pathlib

from imbalance_stream.parallel import map_cells
from imbalance_stream.tables import write_csv

__all__ = ["read_table", "run_cells", "write_rows"]


def write_rows(path: str | pathlib.Path, rows: list[dict]) -> None:
    """Write ``rows`` to the CSV file ``path`` with the CLI's writer (``table.csv`` is written the
    same way), creating its folder; an empty list writes nothing."""
    if not rows:
        return
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_csv(rows, path)


def run_cells(cell, cells, n_jobs, scheduler, progress, label, out_dir) -> list[dict]:
    """Run ``cell`` on every item of ``cells`` through :func:`map_cells` (each returns a list of
    rows), and return the rows in order; with ``out_dir``, also write them to its ``runs.csv``."""
    log = [
        row for rows in map_cells(cell, cells, n_jobs, scheduler, progress, label) for row in rows
    ]
    if out_dir is not None:
        write_rows(pathlib.Path(out_dir) / "runs.csv", log)
    return log


def read_table(path) -> list[dict]:
    """Rows of a ``table.csv`` written by the CLI, numbers parsed back."""
    rows = []
    with open(path, newline="") as handle:
        for raw in csv.DictReader(handle):
            row = {}
            for key, text in raw.items():
                try:
                    row[key] = float(text) if text not in ("", "None") else None
                except ValueError:
                    row[key] = text
            rows.append(row)
    return rows
