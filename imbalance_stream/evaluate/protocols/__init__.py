"""The papers' evaluation protocols, each runnable from a scenario file.

A protocol is a function ``run(params: dict, *, out_dir: pathlib.Path, n_jobs: int | None,
scheduler: str | None, progress: bool) -> list[dict]`` returning the rows of a table (one dict per
row, the same keys in every row; paper figures in columns named ``paper_*`` beside ours). It may also
write files (curves, plots, the hyper-parameters it selected) into ``out_dir``. A scenario names it
with ``kind = "protocol"`` and ``protocol = "<name>"``; the CLI prints the rows and writes
``table.csv``.

Protocols are registered here by name with the dotted path of their function, and imported only
when run, so that importing the package stays cheap.
"""

from __future__ import annotations

import importlib

__all__ = ["PROTOCOLS", "get_protocol"]

#: name -> "module:function"; each seed's protocols add their lines here.
PROTOCOLS: dict[str, str] = {
    "acog.table2": "imbalance_stream.evaluate.acog_protocol:table2",
    "acog.table5_6": "imbalance_stream.evaluate.acog_protocol:table5_6",
    "acog.table8": "imbalance_stream.evaluate.acog_protocol:table8",
    "koil.table3_2": "imbalance_stream.evaluate.koil_protocol:table3_2",
    "koil.table3_3": "imbalance_stream.evaluate.koil_protocol:table3_3",
    "koil.table4_1": "imbalance_stream.evaluate.koil_protocol:table4_1",
    "koil.fig3_1": "imbalance_stream.evaluate.koil_protocol:fig3_1",
    "koil.fig3_2": "imbalance_stream.evaluate.koil_protocol:fig3_2",
    "koil.fig3_3": "imbalance_stream.evaluate.koil_protocol:fig3_3",
    "dcil.table5_1": "imbalance_stream.evaluate.dcil_protocol:table5_1",
    "dcil.table5_3": "imbalance_stream.evaluate.dcil_protocol:table5_3",
}


def get_protocol(name: str):
    """The protocol function registered under ``name``."""
    try:
        target = PROTOCOLS[name]
    except KeyError:
        known = ", ".join(sorted(PROTOCOLS)) or "none"
        raise KeyError(f"unknown protocol {name!r}; known protocols: {known}") from None
    module, _, function = target.partition(":")
    return getattr(importlib.import_module(module), function)
