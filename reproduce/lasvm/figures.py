"""The one plotting helper of seed 003's figures (:func:`plot_panels`), and the MNIST one-vs-rest
figures of :func:`~reproduce.lasvm.protocol.mnist_ovr` (:func:`draw_mnist_ovr`).

The figures of :mod:`reproduce.lasvm.curves` are built there (its ``FIGURES``) and drawn here. A
panel is a dict: ``lines``, ``points``, ``bars``, ``hlines``, ``vlines``, the axes' labels and
scales. Nothing is drawn when matplotlib is not installed (the protocols still return their rows).
"""

from __future__ import annotations

import math
import pathlib

__all__ = ["draw_mnist_ovr", "plot_panels"]


def draw_mnist_ovr(rows: list[dict], out_dir: pathlib.Path) -> None:
    """The figures of :func:`~reproduce.lasvm.protocol.mnist_ovr`'s rows: per digit and method,
    the test error (Fig. 3.1), CPU seconds (Fig. 3.2) and #SV (Fig. 3.5); and the one-vs-rest
    multiclass error and summed CPU seconds (Fig. 3.4) when all ten digits ran."""
    tasks = [r for r in rows if str(r["dataset"]).startswith("mnist-")]
    for key, y, label in (
        ("3.1", "error", "test error (%)"),
        ("3.2", "cpu_seconds", "CPU seconds"),
        ("3.5", "n_sv", "support vectors"),
    ):
        bars: dict[str, dict[str, float]] = {}
        for r in tasks:
            bars.setdefault(r["method"], {})[r["dataset"].removeprefix("mnist-")] = r[y]
        panel = {"title": "MNIST one-vs-rest", "xlabel": "digit", "ylabel": label, "bars": bars}
        panel["yscale"] = "log" if y == "cpu_seconds" else "linear"  # AVGPERC x10 dwarfs them
        plot_panels(
            [panel], f"Fig. {key}: {label} per digit", out_dir / f"fig{key[0]}_{key[2:]}.png"
        )
    multiclass = [r for r in rows if r["dataset"] == "mnist (10 classes)"]
    if multiclass:
        panels = [
            {"title": "", "xlabel": "", "ylabel": label}
            | {"bars": {r["method"]: {"": r[y]} for r in multiclass}}
            for y, label in (
                ("error", "multiclass test error (%)"),
                ("cpu_seconds", "CPU s, ten tasks"),
            )
        ]
        plot_panels(panels, "Fig. 3.4: one-vs-rest multiclass", out_dir / "fig3_4.png")


def plot_panels(panels: list[dict], title: str, path: pathlib.Path) -> None:
    """The one plotting helper: a row of panels, each with ``lines`` (label, xs, ys), ``points``
    (label, xs, ys: markers only), ``bars`` ({group: {category: value}}), ``hlines`` and
    ``vlines`` ((value, label)), ``xscale``, ``yscale``. Nothing is drawn without matplotlib."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot as plt
    except ImportError:
        return
    columns = min(len(panels), 4)
    n_rows = math.ceil(len(panels) / columns)
    figure, axes = plt.subplots(
        n_rows, columns, figsize=(4.2 * columns, 3.4 * n_rows), squeeze=False
    )
    for ax, panel in zip(axes.flat, panels):
        ax.set_xscale(panel.get("xscale", "linear"))
        ax.set_yscale(panel.get("yscale", "linear"))
        for label, xs, ys in panel.get("lines", []):
            ax.plot(xs, ys, marker=".", label=label)
        for label, xs, ys in panel.get("points", []):
            ax.plot(xs, ys, marker="o", linestyle="none", label=label)
        bars = panel.get("bars", {})
        categories = list(dict.fromkeys(c for group in bars.values() for c in group))
        width = 0.8 / max(len(bars), 1)
        for k, (label, values) in enumerate(bars.items()):
            positions = [i + k * width for i, c in enumerate(categories) if c in values]
            ax.bar(positions, [values[c] for c in categories if c in values], width, label=label)
        if categories:
            ax.set_xticks([i + (len(bars) - 1) * width / 2 for i in range(len(categories))])
            ax.set_xticklabels(categories, rotation=15, fontsize=7)
        for value, label in panel.get("hlines", []):
            ax.axhline(value, color="black", linestyle="--", linewidth=1, label=label)
        for value, label in panel.get("vlines", []):
            ax.axvline(value, color="grey", linestyle=":", linewidth=1.5, label=label)
        ax.set_title(panel["title"], fontsize=9)
        ax.set_xlabel(panel["xlabel"], fontsize=8)
        ax.set_ylabel(panel["ylabel"], fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(panels) :]:
        ax.set_visible(False)
    figure.suptitle(title, fontsize=10)
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    plt.close(figure)
