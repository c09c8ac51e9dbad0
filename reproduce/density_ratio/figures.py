"""The one plotting helper of seed 004's figures: panels of lines, drawn with matplotlib's Agg
backend into a PNG file. When matplotlib is not installed nothing is drawn (the protocols still
return their rows).

Each protocol that draws a figure builds :class:`Panel` objects from its rows and hands them to
:func:`draw`; the styles (error bars, log axes, a diagonal for ROC curves, vertical marks for a
chosen width, categorical ticks) are the panel's fields, not code of their own.
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Panel", "Series", "draw"]


@dataclass
class Series:
    """One line of a panel: ``y`` against ``x`` (with error bars ``yerr`` if given), drawn with
    the matplotlib format ``fmt`` (``"o-"``: markers joined by a line; ``"-"``: a line only)."""

    label: str
    x: Sequence[float]
    y: Sequence[float]
    yerr: Sequence[float] | None = None
    fmt: str = "o-"


@dataclass
class Panel:
    """One set of axes. ``marks`` are vertical lines ``(x, label)``; ``diagonal`` draws the
    chance line of a ROC plot; ``xticks`` names the positions 0, 1, ... of a categorical axis."""

    title: str
    xlabel: str
    ylabel: str
    series: list[Series]
    xscale: str = "linear"
    yscale: str = "linear"
    marks: list[tuple[float, str]] = field(default_factory=list)
    diagonal: bool = False
    xticks: Sequence[str] | None = None
    legend_size: float | None = None


def draw(
    path: str | pathlib.Path,
    panels: list[Panel],
    *,
    columns: int = 1,
    size: tuple[float, float] = (6.0, 4.0),
    title: str | None = None,
) -> bool:
    """Draw ``panels`` on a grid of ``columns`` columns (each panel ``size`` inches) into the
    PNG file ``path``; returns False, drawing nothing, when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
    except ImportError:
        return False
    rows = math.ceil(len(panels) / columns)
    figure, grid = plt.subplots(
        rows, columns, figsize=(size[0] * columns, size[1] * rows), squeeze=False
    )
    for axes, panel in zip(grid.flat, panels):
        _panel(axes, panel)
    for axes in list(grid.flat)[len(panels) :]:
        axes.set_visible(False)
    if title is not None:
        figure.suptitle(title)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def _panel(axes, panel: Panel) -> None:
    for series in panel.series:
        axes.errorbar(
            list(series.x),
            list(series.y),
            yerr=None if series.yerr is None else list(series.yerr),
            fmt=series.fmt,
            capsize=3,
            label=series.label,
        )
    if panel.diagonal:
        axes.plot([0, 1], [0, 1], ":", color="grey", linewidth=1)
    for x, label in panel.marks:
        axes.axvline(x, linestyle="--", color="grey", linewidth=1)
        axes.annotate(
            label,
            (x, 1.0),
            xycoords=("data", "axes fraction"),
            rotation=90,
            va="top",
            ha="right",
            fontsize=8,
        )
    axes.set_xscale(panel.xscale)
    axes.set_yscale(panel.yscale)
    if panel.xticks is not None:  # after the scale, which resets the ticks
        axes.set_xticks(range(len(panel.xticks)))
        axes.set_xticklabels(panel.xticks, rotation=30, ha="right")
    axes.set_xlabel(panel.xlabel)
    axes.set_ylabel(panel.ylabel)
    axes.set_title(panel.title)
    axes.legend(fontsize=panel.legend_size)
