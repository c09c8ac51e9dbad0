"""A paper's published numbers, read from its ``published.csv``.

One long table per paper, every value as printed: columns ``table`` (the paper's table number),
``dataset``, ``setting`` (an experiment of the table, when the table has several per dataset),
``row`` (the algorithm, as the paper names it), ``quantity`` (mean, std, sum, sens, ..., or a
printed significance mark) and ``value``.
"""

from __future__ import annotations

import csv
import functools
import pathlib

__all__ = ["load_published"]


def _value(text: str):
    try:
        return float(text)
    except ValueError:
        return text  # a printed mark ("*", "-", "•") or an empty one


@functools.cache
def load_published(path: str | pathlib.Path) -> dict:
    """``{table: {dataset or (dataset, setting): {row: {quantity: value}}}}``; numbers as floats
    (``nan`` where the paper prints NaN), marks as strings."""
    tables: dict = {}
    with open(path, newline="", encoding="utf-8") as handle:
        for line in csv.DictReader(handle):
            key = (line["dataset"], line["setting"]) if line["setting"] else line["dataset"]
            row = tables.setdefault(line["table"], {}).setdefault(key, {})
            row.setdefault(line["row"], {})[line["quantity"]] = _value(line["value"])
    return tables
