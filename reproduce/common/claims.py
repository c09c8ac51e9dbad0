"""Checking a paper's qualitative claims against a protocol's own table.

A claim is a sentence of the paper ("PAUM and CPA_PB outperform Perceptron and PA-I on all
datasets") turned into a check over the rows a protocol writes to ``table.csv``. The same check
runs on our columns and on the paper's (``paper_*``), so the results page says whether the claim
holds on our numbers, and whether it holds on the paper's own: a claim that fails on the paper's
numbers too is an overstatement of the paper, not a gap of ours.

Each check returns, per dataset, the list of counter-examples (empty: the claim holds there). A
claim's quantifier ("on all datasets", "on almost all datasets") decides how many datasets may
have counter-examples.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

__all__ = [
    "Claim",
    "by_dataset",
    "claims_table",
    "evaluate",
    "number",
    "numbers",
    "pairs_failing",
]


#: Counter-examples shown per dataset (the rest are counted).
SHOWN = 3


def number(row: dict | None, key: str) -> float | None:
    """``row[key]`` as a float, or None when the row or the value is missing or NaN."""
    if row is None:
        return None
    value = row.get(key)
    try:
        value = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def numbers(table: dict, names, key: str) -> dict[str, float]:
    """``{name: row[key]}`` for the rows of ``names`` in one dataset's table that have the
    number (the others left out)."""
    found = {name: number(table.get(name), key) for name in names}
    return {name: value for name, value in found.items() if value is not None}


def by_dataset(rows: Sequence[dict], name: str = "algorithm") -> dict:
    """``{dataset: {algorithm: row}}`` of a protocol's table rows, in table order."""
    out: dict = {}
    for row in rows:
        out.setdefault(row["dataset"], {})[row[name]] = row
    return out


def pairs_failing(
    table: dict,
    winners: Sequence[str],
    losers: Sequence[str],
    key: str,
    *,
    lower_is_better: bool = False,
) -> list[str]:
    """Every (winner, loser) pair of one dataset's rows where the winner is not strictly better on
    ``key``; pairs with a missing number (an algorithm not run, a cell the paper lacks) are
    skipped."""
    failures = []
    for winner in winners:
        for loser in losers:
            if winner == loser:
                continue
            w, x = number(table.get(winner), key), number(table.get(loser), key)
            if w is None or x is None:
                continue
            better = w < x if lower_is_better else w > x
            if not better:
                sign = "<=" if lower_is_better else ">="
                failures.append(f"{loser} {x:.3f} {sign} {winner} {w:.3f}")
    return failures


@dataclasses.dataclass(frozen=True)
class Claim:
    """One qualitative claim of a paper.

    ``where`` cites the paper (section, table or figure); ``text`` quotes or paraphrases it;
    ``check(table, prefix)`` gets one dataset's ``{algorithm: row}`` and the column prefix
    (``""`` for ours, ``"paper_"`` for the paper's) and returns the counter-examples on that
    dataset (None: the claim cannot be checked there, e.g. a column the table lacks).
    ``allowed`` is how many datasets may fail ("almost all": 1; "all": 0); ``most`` replaces it
    by "fewer than half of the datasets checked fail" ("in most datasets"), and ``share`` by "at
    least this fraction of the datasets checked hold" ("on at least 7 of the 14 datasets": 0.5).
    """

    where: str
    text: str
    check: Callable[[dict, str], list[str] | None]
    allowed: int = 0
    most: bool = False
    share: float | None = None


def evaluate(claim: Claim, tables: dict, prefix: str) -> tuple[str, list[str]]:
    """``(status, details)`` of a claim on every dataset: ``"holds"``, ``"fails"`` or ``"n/a"``
    (no dataset could be checked), and one ``"dataset: counter-examples"`` line per failing
    dataset."""
    failing, checked = [], 0
    for dataset, table in tables.items():
        found = claim.check(table, prefix)
        if found is None:
            continue
        checked += 1
        if found:
            shown = found[:SHOWN] + ([f"{len(found) - SHOWN} more"] if len(found) > SHOWN else [])
            failing.append(f"{dataset}: " + "; ".join(shown))
    if not checked:
        return "n/a", []
    if claim.share is not None:
        holds = checked - len(failing) >= claim.share * checked
    elif claim.most:
        holds = len(failing) < checked / 2
    else:
        holds = len(failing) <= claim.allowed
    status = "holds" if holds else "fails"
    return status, failing


def _cell(status: str, details: list[str]) -> str:
    if status == "n/a":
        return "n/a"
    if not details:
        return f"**{status}**"
    return f"**{status}** ({' / '.join(details)})"


def claims_table(claims: Sequence[Claim], rows: Sequence[dict], name: str = "algorithm") -> str:
    """A Markdown table: each claim, its status on our numbers and on the paper's, with the
    counter-examples (``"holds"`` with counter-examples: fewer failing datasets than the claim's
    "almost all" allows)."""
    tables = by_dataset(rows, name)
    lines = ["| where | the paper's claim | ours | the paper's numbers |", "|---|---|---|---|"]
    for claim in claims:
        ours = _cell(*evaluate(claim, tables, ""))
        theirs = _cell(*evaluate(claim, tables, "paper_"))
        lines.append(f"| {claim.where} | {claim.text} | {ours} | {theirs} |")
    return "\n".join(lines)
