"""The KOIL thesis's qualitative claims (Sections 3.5 and 4.3), checked on the protocol's
``table.csv``.

``python -m reproduce.koil.claims TABLE PATH [PATH ...]`` prints one line per claim about table
``TABLE`` (``3.2``, ``3.3`` or ``4.1``) on the rows of one or more ``table.csv`` files (the reduced
Table 3.3 runs in several scenarios): whether it holds on our numbers and marks, and on the
thesis's own (its ``paper_*`` columns).

Marks, as the protocol writes them: Tables 3.2 and 3.3, ``•`` / ``○`` KOIL (both / one of
KOIL_RS++ and KOIL_FIFO++) significantly better than the column, ``-`` significantly worse (the
thesis prints ``*`` and ``-``); Table 4.1, ``•`` the multiple-kernel column significantly better
than its single kernel, ``-`` comparable, empty significantly worse (the thesis prints ``•`` and
``-``). "Significantly" is the paired t-test at 5% of the protocol.
"""

from __future__ import annotations

import csv
import pathlib
import sys

from reproduce.common.claims import (
    Claim,
    by_dataset,
    claims_table,
    evaluate,
    number,
    numbers,
)

__all__ = ["CLAIMS", "SOURCES", "all_claims", "main", "read_rows", "thesis_rows"]

KOIL = ("KOIL_RS++", "KOIL_FIFO++")
SMOOTH = ("KOIL^s_RS++", "KOIL^s_FIFO++")
LINEAR = ("Perceptron", "OAM_seq", "OPAUC")
LINEAR_AUC = ("OAM_seq", "OPAUC")  # "online linear AUC maximization algorithms"
KERNEL_BASELINES = ("NORMA", "RBP", "Forgetron", "Projectron", "Projectron++")
MKL_HINGE = ("KOIL^MKL_RS++", "KOIL^MKL_FIFO++")
MKL_SMOOTH = ("KOIL^MKL,s_RS++", "KOIL^MKL,s_FIFO++")

_KOIL_BETTER = {"": ("•", "○"), "paper_": ("*",)}
_KOIL_WORSE = {"": ("-",), "paper_": ("-",)}
_MKL_BETTER = {"": ("•",), "paper_": ("•",)}
_MKL_NOT_WORSE = {"": ("•", "-"), "paper_": ("•", "-")}


def _mark(row: dict | None, prefix: str) -> str | None:
    """The row's mark (``""`` for none), or None when the row or the mark column is missing."""
    if row is None or f"{prefix}mark" not in row:
        return None
    value = row[f"{prefix}mark"]
    if prefix and value in ("", None):  # the thesis's column absent from its table
        return None if number(row, "paper_auc_mean") is None else ""
    return value or ""


def marked(columns, marks: dict, *, negate: bool = False):
    """A check: every column present carries one of ``marks[prefix]`` (``negate``: none of
    them)."""

    def check(table: dict, prefix: str) -> list[str] | None:
        found, checked = [], False
        for name in columns:
            mark = _mark(table.get(name), prefix)
            if mark is None:
                continue
            checked = True
            if (mark in marks[prefix]) == negate:
                found.append(f"{name} '{mark}'")
        return found if checked else None

    return check


def any_marked(columns, marks: dict):
    """A check: at least one of ``columns`` carries one of ``marks[prefix]``."""

    def check(table: dict, prefix: str) -> list[str] | None:
        present = {n: _mark(table.get(n), prefix) for n in columns}
        present = {n: m for n, m in present.items() if m is not None}
        if not present:
            return None
        if any(m in marks[prefix] for m in present.values()):
            return []
        return ["; ".join(f"{n} '{m}'" for n, m in present.items())]

    return check


def means_above(winners, losers, *, average: bool = False):
    """A check on mean AUCs: every winner above every loser (``average``: the winners' average
    above the losers' average)."""

    def check(table: dict, prefix: str) -> list[str] | None:
        key = f"{prefix}auc_mean"
        wins, loses = numbers(table, winners, key), numbers(table, losers, key)
        if not wins or not loses:
            return None
        if average:
            a, b = sum(wins.values()) / len(wins), sum(loses.values()) / len(loses)
            return [] if a > b else [f"kernel average {a:.3f} <= linear average {b:.3f}"]
        return [
            f"{loser} {lv:.3f} >= {winner} {wv:.3f}"
            for winner, wv in wins.items()
            for loser, lv in loses.items()
            if not wv > lv
        ]

    return check


#: ``{table: [Claim, ...]}``.
CLAIMS = {
    "3.2": [
        Claim(
            "§3.5, Table 3.2",
            "kernel-based online learners significantly outperform the online linear ones on the "
            "synthetic sets (read: every kernel column's mean above every linear column's)",
            means_above((*KOIL, *SMOOTH, *KERNEL_BASELINES), LINEAR),
        ),
    ],
    "3.3": [
        Claim(
            "§3.5, Table 3.3",
            "KOIL_RS++ and KOIL_FIFO++ perform better than the online linear AUC maximisation "
            "algorithms (OAM_seq, OPAUC) in most datasets (mean AUC)",
            means_above(KOIL, LINEAR_AUC),
            most=True,
        ),
        Claim(
            "§3.5, Table 3.3",
            "KOIL with the pairwise hinge loss significantly outperforms all competing "
            "kernel-based algorithms in nearly all datasets (read: every kernel baseline marked; "
            "one dataset may fail)",
            marked(KERNEL_BASELINES, _KOIL_BETTER),
            allowed=1,
        ),
        Claim(
            "§3.5, Table 3.3",
            "non-smooth KOIL beats its smooth version on five datasets and is comparable on the "
            "others (read: the smooth columns are never significantly better)",
            marked(SMOOTH, _KOIL_WORSE, negate=True),
        ),
        Claim(
            "§3.5, Table 3.3",
            "kernel-based algorithms show better AUC than the linear ones in most datasets (read: "
            "the kernel baselines' average above the linear columns' average)",
            means_above(KERNEL_BASELINES, LINEAR, average=True),
            most=True,
        ),
    ],
    "4.1": [
        Claim(
            "§4.3, Table 4.1",
            "KOIL with multiple kernels is better than or comparable to KOIL with the tuned kernel "
            "(read: no multiple-kernel column significantly worse)",
            marked((*MKL_HINGE, *MKL_SMOOTH), _MKL_NOT_WORSE),
        ),
        Claim(
            "§4.3, Table 4.1",
            "with the smooth loss, multiple kernels gain on at least 7 of the 14 datasets (read: a "
            "smooth multiple-kernel column significantly better on at least half the datasets)",
            any_marked(MKL_SMOOTH, _MKL_BETTER),
            share=0.5,
        ),
        *(
            Claim(
                "§4.3, Table 4.1",
                "with the hinge loss, multiple kernels are comparable in most datasets (read: "
                f"{column} not significantly worse than its single kernel, in most datasets)",
                marked((column,), _MKL_NOT_WORSE),
                most=True,
            )
            for column in MKL_HINGE
        ),
    ],
}


def read_rows(*paths) -> list[dict]:
    """The rows of one or more ``table.csv`` files, marks kept as strings (an empty mark is a
    mark), numbers as floats; a (dataset, algorithm) seen twice keeps its first row."""
    rows, seen = [], set()
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            for raw in csv.DictReader(handle):
                key = (raw["dataset"], raw["algorithm"])
                if key in seen:
                    continue
                seen.add(key)
                row: dict = {}
                for name, text in raw.items():
                    if name in ("mark", "paper_mark", "dataset", "algorithm"):
                        row[name] = text
                        continue
                    try:
                        row[name] = float(text)
                    except ValueError:
                        row[name] = text
                rows.append(row)
    return rows


#: Per table, its heading and the CLI output folders of the scenarios that run its rows (the
#: reduced runs; the first folder holding a (dataset, column) wins).
SOURCES = {
    "3.2": ("Table 3.2 (reduced grid)", ("koil_table3_2_reduced",)),
    "3.3": (
        "Table 3.3 (reduced)",
        (
            "koil_table3_3_reduced",
            "koil_table3_3_reduced_larger",
            "koil_table3_3_reduced_letter",
            "koil_table3_3_reduced_poker",
            "koil_table3_3_reduced_poker_norma",
        ),
    ),
    "4.1": (
        "Table 4.1 (reduced)",
        (
            "koil_table4_1_reduced",
            "koil_table4_1_reduced_larger",
            "koil_table4_1_reduced_letter",
            "koil_table4_1_reduced_poker",
        ),
    ),
}


def thesis_rows(table: str) -> list[dict]:
    """The thesis's own rows of ``table`` on every dataset it reports, as ``paper_*`` columns (its
    claims are about all of them, while our runs may cover fewer)."""
    from .protocol import PAPER

    rows = []
    for dataset, columns in PAPER[table].items():
        for name, (mean, std, mark) in columns.items():
            rows.append(
                {
                    "dataset": dataset,
                    "algorithm": name,
                    "paper_auc_mean": mean,
                    "paper_auc_std": std,
                    "paper_mark": mark,
                }
            )
    return rows


def _on_all_thesis_datasets(table: str) -> str:
    tables = by_dataset(thesis_rows(table))
    lines = []
    for number_, claim in enumerate(CLAIMS[table], 1):
        status, details = evaluate(claim, tables, "paper_")
        failing = f" (failing on {len(details)} of {len(tables)})" if details else ""
        lines.append(f"claim {number_} **{status}**{failing}")
    return (
        f"On the thesis's own numbers over all {len(tables)} of its datasets: "
        + "; ".join(lines)
        + "."
    )


def all_claims(out) -> str:
    """Every claim of :data:`CLAIMS` on the ``table.csv`` files of :data:`SOURCES` found under
    ``out``, one Markdown table per thesis table, each naming the folders read and the ones
    missing (their datasets are then not checked)."""
    parts = []
    for table, (title, folders) in SOURCES.items():
        paths = [pathlib.Path(out) / f / "table.csv" for f in folders]
        found = [p for p in paths if p.exists()]
        missing = [p.parent.name for p in paths if not p.exists()]
        if not found:
            parts.append(f"**{title}**: not run ({', '.join(missing)} missing)")
            continue
        rows = read_rows(*found)
        datasets = ", ".join(dict.fromkeys(r["dataset"] for r in rows))
        note = f"; not run: {', '.join(missing)}" if missing else ""
        head = f"**{title}** on {datasets} (from {', '.join(p.parent.name for p in found)}{note})"
        parts.append(f"{head}\n\n{claims_table(CLAIMS[table], rows)}")
        parts.append(_on_all_thesis_datasets(table))
    return "\n\n".join(parts)


def main(argv: list[str]) -> str:
    """``TABLE PATH [PATH ...]``, or ``all OUT`` (every table from the CLI's folders)."""
    table, *paths = argv
    if table == "all":
        return all_claims(paths[0] if paths else "out")
    if table not in CLAIMS:
        raise SystemExit(f"table must be one of {', '.join(CLAIMS)}, got {table!r}")
    return claims_table(CLAIMS[table], read_rows(*paths))


if __name__ == "__main__":
    # python -m reproduce.koil.claims 3.3 out/koil_table3_3_reduced/table.csv
    # python -m reproduce.koil.claims all out
    print(main(sys.argv[1:]))
