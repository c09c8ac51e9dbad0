"""Result tables as the command line prints and writes them: rows of dicts, the union of their
keys as the columns, in order."""

from __future__ import annotations

import csv
import numbers

__all__ = ["format_table", "write_csv"]


def _cell(value) -> str:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if isinstance(value, numbers.Integral):
        return str(value)
    return f"{value:.4f}"


def format_table(rows: list[dict]) -> str:
    """Rows of dicts as an aligned text table (numbers right-aligned, four decimals).

    >>> print(format_table([{"model": "ACOG", "BA": 0.875}, {"model": "PA", "BA": 0.5}]))
    model  BA
    -----  ------
    ACOG   0.8750
    PA     0.5000
    """
    if not rows:
        return "(no rows)"
    columns = list(dict.fromkeys(key for row in rows for key in row))
    cells = [[_cell(row.get(col, "")) for col in columns] for row in rows]
    numeric = [
        all(
            isinstance(row.get(col), numbers.Real) and not isinstance(row.get(col), bool)
            for row in rows
            if col in row
        )
        for col in columns
    ]
    widths = [max(len(col), *(len(line[i]) for line in cells)) for i, col in enumerate(columns)]

    def fmt(values):
        return "  ".join(
            v.rjust(w) if num else v.ljust(w)
            for v, w, num in zip(values, widths, numeric, strict=True)
        ).rstrip()

    lines = [fmt(columns), "  ".join("-" * w for w in widths)]
    lines.extend(fmt(line) for line in cells)
    return "\n".join(lines)


def write_csv(rows: list[dict], path) -> None:
    """Write rows of dicts as CSV (the union of their keys as the header, in order)."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
