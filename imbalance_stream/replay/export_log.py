"""``python -m imbalance_stream.replay.export_log SCENARIO OUT.csv``: write the event log that a
``format = "dataset"`` replay scenario builds (:func:`~.sources.events_from_dataset`) to a CSV
file, to read it or to replay it with ``path = "OUT.csv"``.

A module of its own, not imported by the package, so that ``python -m`` runs it cleanly.
"""

from __future__ import annotations

import argparse

from imbalance_stream.registry import build

from .config import load
from .sources import events_from_dataset, write_csv_log

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """Write the scenario's event log; returns the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m imbalance_stream.replay.export_log",
        description='Write the event log of a format = "dataset" replay scenario to a CSV file.',
    )
    parser.add_argument("scenario", help="the replay scenario (TOML)")
    parser.add_argument("out", help="the CSV file to write")
    args = parser.parse_args(argv)
    log = load(args.scenario).log
    if log.format != "dataset":
        parser.error("the scenario's log is already a file")
    n = write_csv_log(events_from_dataset(build(log.dataset, "dataset"), **log.events), args.out)
    print(f"wrote {n} events to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
