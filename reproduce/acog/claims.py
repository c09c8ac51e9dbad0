"""The ACOG paper's qualitative claims, checked on a protocol's ``table.csv``.

``python -m reproduce.acog.claims TABLE PATH`` prints one line per claim of the paper's Section 4
about table ``TABLE`` (``2``, ``3``, ``5_6``, ``8`` or a figure, ``fig1_3`` ... ``fig9_10``):
whether it holds on our numbers and on the paper's own (its ``paper_*`` columns); ``python -m
reproduce.acog.claims all out`` prints them all from the CLI's output folders (the results page's
section "The paper's claims, checked"). The claims compare means, as the paper's text does; the
paper tests no significance, so neither do we ("significantly outperform" is read as "has a
higher mean"). Only the paper's own rows take part: our added variants (``AROW-cv``, ``CPA-ML``)
are not among the "other algorithms".
"""

from __future__ import annotations

import pathlib
import sys
from collections import Counter

from reproduce.common.claims import (
    Claim,
    by_dataset,
    claims_table,
    evaluate,
    number,
    numbers,
    pairs_failing,
)

__all__ = ["CLAIMS", "TITLES", "all_claims", "best_in", "main", "output_dir"]

#: The paper's regular first-order baselines ("the first 5 baselines", Section 5).
REGULAR = ("Perceptron", "ROMMA", "PA-I", "PAUM", "CPAPB")
#: First-order algorithms: the regular ones and COG.
FIRST_ORDER = (*REGULAR, "COG-I", "COG-II")
#: The ACOG variants of Tables II, III and VIII.
ACOG = ("ACOG-I", "ACOG-II", "ACOG-Idiag", "ACOG-IIdiag")
#: Every algorithm the paper proposes (ACOG and its sketched versions).
PROPOSED = (*ACOG, "SACOG-I", "SACOG-II", "SSACOG-I", "SSACOG-II")
#: The rows of the paper's tables (our added variants excluded).
PAPER_ROWS = (*FIRST_ORDER, "AROW", *PROPOSED)

#: "Not affected too much" (Section 4.5): at most this many points of sum below full ACOG.
SKETCH_SUM_TOLERANCE = 1.0
#: "Nearly identical" (Table VI): dense and sparse SACOG within this many points of sum.
IDENTICAL_SUM_TOLERANCE = 0.1


def best_in(group, key, *, lower_is_better=False):
    """A check: the best of the paper's rows on ``key`` is in ``group``."""

    def check(table: dict, prefix: str) -> list[str] | None:
        scored = numbers(table, PAPER_ROWS, prefix + key)
        if not scored or not any(name in scored for name in group):
            return None
        pick = min if lower_is_better else max
        best = pick(scored, key=lambda name: scored[name])
        if best in group:
            return []
        ours = pick((scored[n] for n in group if n in scored), default=float("nan"))
        return [f"{best} {scored[best]:.3f}, best of the group {ours:.3f}"]

    return check


def beats(winners, losers, key, *, lower_is_better=False):
    """A check: every winner has a better mean ``key`` than every loser."""

    def check(table: dict, prefix: str) -> list[str] | None:
        if not any(number(table.get(w), prefix + key) is not None for w in winners):
            return None
        return pairs_failing(table, winners, losers, prefix + key, lower_is_better=lower_is_better)

    return check


def each_beats(pairs, key, *, lower_is_better=False):
    """A check: in each ``(winner, loser)`` pair the winner has the better mean ``key``."""

    def check(table: dict, prefix: str) -> list[str] | None:
        found, checked = [], False
        for winner, loser in pairs:
            w, x = number(table.get(winner), prefix + key), number(table.get(loser), prefix + key)
            if w is None or x is None:
                continue
            checked = True
            found += pairs_failing(
                table, [winner], [loser], prefix + key, lower_is_better=lower_is_better
            )
        return found if checked else None

    return check


def at_most_fraction(winners, losers, key, fraction):
    """A check: every winner's ``key`` is at most ``fraction`` of every loser's (lower is
    better)."""

    def check(table: dict, prefix: str) -> list[str] | None:
        found, checked = [], False
        for winner in winners:
            for loser in losers:
                w, x = (
                    number(table.get(winner), prefix + key),
                    number(table.get(loser), prefix + key),
                )
                if w is None or x is None:
                    continue
                checked = True
                if w > fraction * x:
                    found.append(f"{winner} {w:.3f} > {fraction:g} x {loser} {x:.3f}")
        return found if checked else None

    return check


def within(pairs, key, below: float, above: float | None = None):
    """A check: in each ``(a, b)`` pair, ``a``'s ``key`` is at least ``b``'s minus ``below`` (and,
    with ``above``, at most ``b``'s plus ``above``)."""

    def check(table: dict, prefix: str) -> list[str] | None:
        found, checked = [], False
        for a, b in pairs:
            x, y = number(table.get(a), prefix + key), number(table.get(b), prefix + key)
            if x is None or y is None:
                continue
            checked = True
            if x < y - below or (above is not None and x > y + above):
                found.append(f"{a} {x:.3f} against {b} {y:.3f}")
        return found if checked else None

    return check


def settings_of(row: dict, prefix: str, metric: str) -> dict:
    """``{setting: value}`` of a sweep row's ``<metric>_<setting>`` columns (with ``prefix``);
    numeric settings as floats."""
    head = f"{prefix}{metric}_"
    out: dict[float | str, float] = {}
    for key in row:
        value = number(row, key) if isinstance(key, str) and key.startswith(head) else None
        setting = key[len(head) :] if value is not None else "std"
        if value is None or setting == "std":
            continue
        try:
            out[float(setting)] = value
        except ValueError:
            out[setting] = value
    return out


def per_row(test):
    """A check applying ``test(name, settings) -> counter-example or None`` to every row of the
    dataset that has sweep columns (``settings`` as :func:`settings_of` gives them, sum)."""

    def check(table: dict, prefix: str) -> list[str] | None:
        found, checked = [], False
        for name, row in table.items():
            settings = settings_of(row, prefix, "sum")
            if not settings:
                continue
            checked = True
            problem = test(name, settings)
            if problem:
                found.append(f"{name}: {problem}")
        return found if checked else None

    return check


def best_at_every_weight(group, metric, *, lower_is_better=False):
    """A check for the weight sweeps: at every weight the best of the paper's rows on
    ``<metric>_<weight>`` is in ``group``."""

    def check(table: dict, prefix: str) -> list[str] | None:
        weights = sorted({w for row in table.values() for w in settings_of(row, prefix, metric)})
        if not weights:
            return None
        found = []
        for w in weights:
            key = f"{metric}_{w:g}"
            problem = best_in(group, key, lower_is_better=lower_is_better)(table, prefix)
            if problem:
                found.append(f"at {w:g}, {problem[0]}")
        return found

    return check


def _best_eta_high(name, settings):
    best = max(settings, key=lambda s: (settings[s], s))
    return None if best >= 1 else f"best eta {best:g} ({settings[best]:.3f})"


def _gamma_one_close(name, settings):
    if 1.0 not in settings:
        return None
    best = max(settings, key=lambda s: settings[s])
    gap = settings[best] - settings[1.0]
    return (
        None
        if gap <= CLOSE
        else f"gamma 1 {settings[1.0]:.3f}, best gamma {best:g} {settings[best]:.3f}"
    )


def _close(a, b):
    def test(name, settings):
        if a not in settings or b not in settings:
            return None
        gap = settings[a] - settings[b]
        return None if abs(gap) <= CLOSE else f"{a} {settings[a]:.3f}, {b} {settings[b]:.3f}"

    return test


def _new_rule_better(name, settings):
    if "new" not in settings or "old" not in settings:
        return None
    better = settings["new"] >= settings["old"]
    return None if better else f"Sigma_t+1 {settings['new']:.3f} < Sigma_t {settings['old']:.3f}"


def _type_ii_above_type_i(table: dict, prefix: str) -> list[str] | None:
    found, checked = [], False
    for ii, i in (("ACOG-II", "ACOG-I"), ("ACOG-IIdiag", "ACOG-Idiag")):
        a = settings_of(table.get(ii, {}), prefix, "sum")
        b = settings_of(table.get(i, {}), prefix, "sum")
        if not a or not b:
            continue
        checked = True
        mean_a, mean_b = sum(a.values()) / len(a), sum(b.values()) / len(b)
        if not mean_a > mean_b:
            found.append(f"{ii} {mean_a:.3f} <= {i} {mean_b:.3f} (mean over the eta grid)")
    return found if checked else None


#: "Close" in the ablations (Figs. 6 to 8): within this many points of sum (our reading).
CLOSE = 1.0

_SKETCH = (("SSACOG-I", "ACOG-I"), ("SSACOG-II", "ACOG-II"))
_SKETCH_DIAG = (("SSACOG-I", "ACOG-Idiag"), ("SSACOG-II", "ACOG-IIdiag"))
_SPARSE_DENSE = (("SSACOG-I", "SACOG-I"), ("SSACOG-II", "SACOG-II"))
_DIAG_FULL = (("ACOG-Idiag", "ACOG-I"), ("ACOG-IIdiag", "ACOG-II"))

#: ``{table: [Claim, ...]}``: the claims of the paper's Section 4 about each table.
CLAIMS = {
    "2": [
        Claim(
            "§4.2.1, Table II",
            "second-order algorithms (ACOG, AROW) outperform first-order ones on almost all "
            "datasets (sum)",
            beats((*ACOG, "AROW"), FIRST_ORDER, "sum"),
            allowed=1,
        ),
        Claim(
            "§4.2.1, Table II",
            "ACOG algorithms outperform all other algorithms including AROW on all datasets (sum)",
            beats(ACOG, (*FIRST_ORDER, "AROW"), "sum"),
        ),
        Claim(
            "§4.2.1, Table II",
            "the proposed algorithms achieve the best sensitivity on all datasets (sum run)",
            best_in(ACOG, "sens"),
        ),
        Claim(
            "§4.3.1, Table II",
            "the proposed methods achieve much lower cost than other methods among all cases",
            beats(ACOG, (*FIRST_ORDER, "AROW"), "cost", lower_is_better=True),
        ),
        Claim(
            "§4.3.1, Table II",
            "the cost of ACOG is about less than half of the cost of every regular first-order "
            "algorithm (read: ACOG-I and ACOG-II at most 0.5 x each of the first five)",
            at_most_fraction(("ACOG-I", "ACOG-II"), REGULAR, "cost", 0.5),
        ),
        Claim(
            "§4.3.1, Table II",
            "the proposed methods often achieve the best sensitivity on all datasets (cost run; "
            "'often': one dataset may fail)",
            best_in(ACOG, "cost_sens"),
            allowed=1,
        ),
        Claim(
            "§4.3.1, Table II",
            "ACOG-diag has a higher cost than full ACOG (I and II)",
            each_beats(_DIAG_FULL, "cost"),
        ),
        Claim(
            "§4.3.1, Table II",
            "ACOG-diag runs faster than full ACOG (cost run's time per run)",
            each_beats(_DIAG_FULL, "cost_time", lower_is_better=True),
        ),
    ],
    "3": [
        Claim(
            "§4.4.5, Table III",
            "the proposed algorithms achieve the best held-out sum among all algorithms on all "
            "datasets",
            best_in(ACOG, "sum"),
        ),
    ],
    "5_6": [
        Claim(
            "§4.5, Table V",
            "SSACOG is much faster than full ACOG (sum run's time per run)",
            each_beats(_SKETCH, "time", lower_is_better=True),
        ),
        Claim(
            "§4.5, Table V",
            "the sketch's sum is not affected too much, sometimes better (read: SSACOG at most "
            f"{SKETCH_SUM_TOLERANCE:g} point below full ACOG)",
            within(_SKETCH, "sum", SKETCH_SUM_TOLERANCE),
        ),
        Claim(
            "§4.5, Table V",
            "SSACOG is slower than ACOG-diag (sum run's time per run)",
            each_beats(_SKETCH_DIAG, "time"),
        ),
        Claim(
            "§4.5, Table V",
            "SSACOG has a higher sum than ACOG-diag",
            each_beats(_SKETCH_DIAG, "sum"),
        ),
        Claim(
            "§4.5, Table VI",
            "SSACOG runs faster than SACOG (sum run's time per run)",
            each_beats(_SPARSE_DENSE, "time", lower_is_better=True),
        ),
        Claim(
            "§4.5, Table VI",
            "SSACOG and SACOG give nearly identical results (read: sums within "
            f"{IDENTICAL_SUM_TOLERANCE:g} point)",
            within(_SPARSE_DENSE, "sum", IDENTICAL_SUM_TOLERANCE, IDENTICAL_SUM_TOLERANCE),
        ),
    ],
    "8": [
        Claim(
            "§5, Table VIII",
            "PAUM and CPA_PB outperform their regular methods (Perceptron, PA-I) on all datasets",
            each_beats((("PAUM", "Perceptron"), ("CPAPB", "PA-I")), "sum"),
        ),
        Claim(
            "§5, Table VIII",
            "COG outperforms all regular first-order algorithms (the first 5 baselines) on "
            "almost all datasets",
            beats(("COG-I", "COG-II"), REGULAR, "sum"),
            allowed=1,
        ),
        Claim(
            "§5, Table VIII",
            "ACOG algorithms and AROW outperform all other algorithms",
            beats((*ACOG, "AROW"), FIRST_ORDER, "sum"),
        ),
        Claim(
            "§5, Table VIII",
            "the performance of ACOG exceeds all other algorithms (read: the best sum is a "
            "proposed algorithm)",
            best_in(PROPOSED, "sum"),
        ),
    ],
    "fig1_3": [
        Claim(
            "§4.2.1, Fig. 1",
            "second-order algorithms (ACOG, AROW) outperform first-order ones on almost all "
            "datasets (final online sum)",
            beats((*ACOG, "AROW"), FIRST_ORDER, "sum"),
            allowed=1,
        ),
        Claim(
            "§4.3.1, Fig. 3",
            "the proposed methods achieve much lower cost than other methods among all cases",
            beats(ACOG, (*FIRST_ORDER, "AROW"), "cost", lower_is_better=True),
        ),
    ],
    "fig2_4": [
        Claim(
            "§4.2.2, Fig. 2",
            "the proposed algorithms outperform all others under different weights on almost all "
            "datasets (read: the best sum at every alpha_p is an ACOG variant)",
            best_at_every_weight(ACOG, "sum"),
            allowed=1,
        ),
        Claim(
            "§4.3.2, Fig. 4",
            "the proposed algorithms outperform almost all others under different weights (read: "
            "the lowest cost at every c_p is an ACOG variant, one dataset may fail)",
            best_at_every_weight(ACOG, "cost", lower_is_better=True),
            allowed=1,
        ),
    ],
    "fig5": [
        Claim(
            "§4.4.1, Fig. 5",
            "a relatively higher eta is better in general (read: each variant's best eta is >= 1; "
            "one dataset may fail)",
            per_row(_best_eta_high),
            allowed=1,
        ),
        Claim(
            "§4.4.1, Fig. 5",
            "the loss-II variants achieve higher sums than the loss-I ones across eta (more "
            "robust to eta; read: higher mean over the grid)",
            _type_ii_above_type_i,
        ),
    ],
    "fig6": [
        Claim(
            "§4.4.2, Fig. 6",
            f"gamma = 1 is best or fairly good in most cases (read: within {CLOSE:g} point of the "
            "best gamma; one dataset may fail)",
            per_row(_gamma_one_close),
            allowed=1,
        ),
    ],
    "fig7": [
        Claim(
            "§4.4.3, Fig. 7",
            f"the difference between the two update rules is not obvious (read: within {CLOSE:g} "
            "point)",
            per_row(_close("new", "old")),
        ),
        Claim(
            "§4.4.3, Fig. 7",
            "the Sigma_{t+1} versions slightly exceed the Sigma_t versions",
            per_row(_new_rule_better),
        ),
    ],
    "fig8": [
        Claim(
            "§4.4.4, Fig. 8",
            f"the online Laplace estimate performs quite similar to the true Tn/Tp (read: within "
            f"{CLOSE:g} point)",
            per_row(_close("laplace", "true")),
        ),
    ],
}
# Figs. 9 and 10 show Table V's runs as curves: its claims on the final sums
CLAIMS["fig9_10"] = [CLAIMS["5_6"][1], CLAIMS["5_6"][3]]


#: The heading of each table's or figure's claims on the results page.
TITLES = {
    "2": "Table II",
    "3": "Table III",
    "5_6": "Tables V and VI",
    "8": "Table VIII",
    "fig1_3": "Figs. 1 and 3",
    "fig2_4": "Figs. 2 and 4",
    "fig5": "Fig. 5",
    "fig6": "Fig. 6",
    "fig7": "Fig. 7",
    "fig8": "Fig. 8",
    "fig9_10": "Figs. 9 and 10",
}


def output_dir(table: str) -> str:
    """The output folder the CLI gives the scenario of ``table`` (``out/<scenario name>``)."""
    return f"acog_{table}" if table.startswith("fig") else f"acog_table{table}"


def all_claims(out: str | pathlib.Path) -> str:
    """Every claim of :data:`CLAIMS`, one Markdown table per table or figure, on the
    ``table.csv`` files under ``out`` (the CLI's default folders); a scenario not run yet is
    named as such, and the last line counts the claims that hold and fail on each side."""
    from reproduce.acog.protocol import read_table

    parts: list[str] = []
    counts: dict[str, Counter] = {"": Counter(), "paper_": Counter()}
    for table, title in TITLES.items():
        path = pathlib.Path(out) / output_dir(table) / "table.csv"
        if not path.exists():
            parts.append(f"**{title}**: not run (`{path}` missing)")
            continue
        rows = read_table(path)
        for prefix, counter in counts.items():
            tables = by_dataset(rows)
            counter.update(evaluate(claim, tables, prefix)[0] for claim in CLAIMS[table])
        parts.append(f"**{title}** (`{path}`)\n\n{claims_table(CLAIMS[table], rows)}")
    ours, theirs = counts[""], counts["paper_"]
    parts.append(
        f"Claims holding on our numbers: {ours['holds']}, failing: {ours['fails']}, not "
        f"checkable: {ours['n/a']}; on the paper's numbers: {theirs['holds']} / "
        f"{theirs['fails']} / {theirs['n/a']}."
    )
    return "\n\n".join(parts)


def main(argv: list[str]) -> str:
    """``TABLE PATH``: the claims of table ``TABLE`` on the ``table.csv`` at ``PATH``; ``all
    OUT``: every table's and figure's claims on the CLI's output folders under ``OUT``."""
    from reproduce.acog.protocol import read_table

    table, path = argv
    if table == "all":
        return all_claims(path)
    if table not in CLAIMS:
        raise SystemExit(f"table must be 'all' or one of {', '.join(CLAIMS)}, got {table!r}")
    return claims_table(CLAIMS[table], read_table(path))


if __name__ == "__main__":
    # python -m reproduce.acog.claims 8 out/acog_table8/table.csv
    # python -m reproduce.acog.claims all out
    print(main(sys.argv[1:]))
