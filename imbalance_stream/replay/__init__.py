"""Replaying a labelled event log: every event predicted at its event time with the model as it is
then, learned when its label arrives (River's :func:`river.stream.simulate_qa`), per-entity models,
bad rows quarantined, checkpoints and exact resume, entities spread over processes or a Dask
cluster with the same results as a serial run.

>>> import pathlib, tempfile
>>> from imbalance_stream.replay import parse, replay
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "log.csv").write_text(
...     "t,card,amount,fraud,chargeback\\n"
...     "1,a,1.0,0,\\n"
...     "2,a,5.0,1,4\\n"
...     "3,b,oops,0,\\n"
...     "5,a,4.0,1,9\\n"
... )
>>> scenario = parse('''
... kind = "replay"
... [log]
... path = "log.csv"
... time = "t"
... entity = "card"
... label = "fraud"
... positive = 1
... label_time = "chargeback"
... [models]
... PA = "river.linear_model.PAClassifier"
... ''', base=folder)
>>> result = replay(scenario, out_dir=folder / "out")
>>> print((folder / "out" / "predictions.csv").read_text())
row,event_id,time,entity,model,prediction,score,label,label_time
1,1,1,a,PA,False,0.5,,
2,2,2,a,PA,False,0.5,1,4
4,4,5,a,PA,True,0.698...,1,9
<BLANKLINE>
>>> print((folder / "out" / "rejected.csv").read_text())
row,model,reason
3,,column 'amount': cannot read 'oops' as a number
<BLANKLINE>

Row 1 has no label (it is predicted, never learned); row 2's label arrives at time 4, before row
4 (time 5) is predicted, so PA has learned it by then (River's PA predicts True and False; the
label 1 equals True).
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil

from .config import ReplayError, ReplayScenario, load, parse
from .engine import partition_of, run_cell

__all__ = [
    "ReplayError",
    "ReplayResult",
    "ReplayScenario",
    "load",
    "parse",
    "partition_of",
    "replay",
]

WORK = ".replay"


@dataclasses.dataclass
class ReplayResult:
    """What :func:`replay` returns.

    Attributes
    ----------
    table
        One row per model: final metrics, events predicted, labels learned, rows never
        labelled, rejected rows, entities and the mean pickled size of a model per entity.
    out_dir
        Where ``predictions.csv`` (or ``.parquet``), ``rejected.csv``, ``curves.csv``,
        ``entities.csv`` and ``table.csv`` were written.
    models
        ``{model label: model}``, or ``{model label: {entity: model}}`` for per-entity models.
    rejected
        The number of lines of ``rejected.csv``.

    """

    table: list[dict]
    out_dir: pathlib.Path
    models: dict
    rejected: int


def replay(
    scenario: ReplayScenario | str | os.PathLike,
    out_dir=None,
    resume: bool = False,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    max_rejects: int | None = None,
    checkpoint_every: int | None = None,
    checkpoint_seconds: float | None = None,
    progress: bool = False,
) -> ReplayResult:
    """Replay the event log of ``scenario`` (a :class:`ReplayScenario` or the path of one).

    Parameters
    ----------
    out_dir
        Output folder (default ``out/<scenario name>``); the work files and checkpoints live in
        its ``.replay`` subfolder, removed when the replay ends.
    resume
        Continue from the checkpoints in ``out_dir`` (a replay killed at any moment resumes to
        the same outputs, byte for byte, as one never stopped). Checkpoints are pickles: resume
        only from folders your own runs wrote.
    n_jobs, scheduler
        Replay the entities in ``n_jobs`` partitions on local processes, or on a Dask cluster
        (``scheduler`` an address, or ``"local"``), as
        :func:`~imbalance_stream.evaluate.parallel.map_cells` does. The outputs are those of a
        serial run. On a cluster, the log and ``out_dir`` must be on a file system every worker
        sees.
    max_rejects
        Stop with :class:`ReplayError` once more rows than this are rejected (default: the
        scenario's ``replay.max_rejects``, else never).
    checkpoint_every, checkpoint_seconds
        Checkpoint every so many rows (per partition) and/or seconds (default: the scenario's
        ``replay.checkpoint_every`` / ``checkpoint_seconds``, else every 100,000 rows).
    progress
        Progress bars with rows per second (serial), or over partitions (parallel).

    """
    from imbalance_stream.base.validation import check_int, check_real

    from ..evaluate.parallel import map_cells
    from .merge import merge

    if not isinstance(scenario, ReplayScenario):
        scenario = load(scenario)
    options = scenario.options
    max_rejects = check_int(
        "max_rejects",
        max_rejects if max_rejects is not None else options.get("max_rejects"),
        low=0,
        optional=True,
    )
    every = check_int(
        "checkpoint_every",
        checkpoint_every if checkpoint_every is not None else options.get("checkpoint_every"),
        low=1,
        optional=True,
    )
    seconds = check_real(
        "checkpoint_seconds",
        checkpoint_seconds if checkpoint_seconds is not None else options.get("checkpoint_seconds"),
        low=0,
        low_open=True,
        optional=True,
    )
    if every is None and seconds is None:
        every = 100_000
    n_jobs = check_int("n_jobs", n_jobs, low=-1, optional=True)
    if n_jobs == 0:
        raise ValueError("n_jobs must be a positive number of processes, or -1 for one per core")
    out = pathlib.Path(out_dir) if out_dir is not None else pathlib.Path("out") / scenario.name
    out.mkdir(parents=True, exist_ok=True)
    work = out / WORK
    fingerprint = scenario.fingerprint()
    manifest_path = work / "manifest.json"
    parallel = scheduler is not None or (n_jobs is not None and n_jobs != 1)
    partitions = (os.cpu_count() or 1) if n_jobs == -1 else (n_jobs or (2 if scheduler else 1))
    if resume and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest["fingerprint"] != fingerprint:
            raise ReplayError(
                f"the checkpoints in {work} are from another scenario or log; "
                "run without --resume to start over"
            )
        partitions = manifest["partitions"]
    else:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        manifest_path.write_text(json.dumps({"fingerprint": fingerprint, "partitions": partitions}))
    if not scenario.per_entity:
        partitions = 1
    slots = scenario.slots()
    entity_slots = [i for i, (_, _, mode) in enumerate(slots) if mode == "entity"]
    global_slots = [i for i, (_, _, mode) in enumerate(slots) if mode == "global"]
    common = {
        "scenario": scenario,
        "fingerprint": fingerprint,
        "work": str(work),
        "partitions": partitions,
        "resume": resume,
        "max_rejects": max_rejects,
        "checkpoint_every": every,
        "checkpoint_seconds": seconds,
    }
    cells: list[dict] = []
    if entity_slots:
        for p in range(partitions):
            cells.append(
                {
                    **common,
                    "index": len(cells),
                    "kind": "entity",
                    "partition": p,
                    "slots": entity_slots,
                }
            )
    if global_slots:
        cells.append(
            {
                **common,
                "index": len(cells),
                "kind": "global",
                "partition": None,
                "slots": global_slots,
            }
        )
    for cell in cells:
        cell["reporter"] = cell["index"] == 0
        cell["progress"] = progress and not parallel
        what = (
            f"entities {cell['partition'] + 1}/{partitions}"
            if cell["kind"] == "entity"
            else ("global models")
        )
        cell["description"] = f"{scenario.name}: {what}"
    map_cells(
        run_cell,
        cells,
        n_jobs=n_jobs if parallel else None,
        scheduler=scheduler,
        progress=progress and parallel,
        description="partitions",
    )

    def metrics_for():
        return scenario.make_metrics()

    table, models, rejected = merge(
        scenario,
        str(work),
        cells,
        str(out),
        metrics_for,
        predictions_format=options.get("predictions", "csv"),
    )
    shutil.rmtree(work, ignore_errors=True)
    return ReplayResult(table=table, out_dir=out, models=models, rejected=rejected)
