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

The modules, in the order the data goes through them: :mod:`~.config` (the scenario's ``[log]``
and ``[replay]`` sections), :mod:`~.sources` (the log's files or query, record by record, each
unreadable row a reject), :mod:`~.events` and :mod:`~.columns` (records into events, one row or a
batch column by column), :mod:`~.sorting` (a log out of time order), :mod:`~.engine` (a cell: the
rows in :class:`~imbalance_stream.evaluate.delayed.DelayedLabels`' order, checkpoints),
:mod:`~.runners` (one model, whatever its kind), :mod:`~.tracking` (the metrics as labels
arrive), :mod:`~.parts` (the cells' part files) and :mod:`~.merge` (the outputs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import pathlib
import shutil

from imbalance_stream.base.validation import check_int, check_real
from imbalance_stream.provenance import make_output_dir

from .cells import Cell
from .config import ReplayError, ReplayScenario, load, parse
from .engine import partition_of, run_cell

__all__ = [
    "IncompleteReplay",
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
    time_span
        The first and the last event time replayed, as the log writes them (None: no row).

    """

    table: list[dict]
    out_dir: pathlib.Path
    models: dict
    rejected: int
    time_span: tuple[str, str] | None = None


class IncompleteReplay(ReplayError):
    """A replay whose log could not be read to its end (a damaged file). The outputs, for the rows
    read before the damage, are written; ``result`` is their :class:`ReplayResult`, and the
    message says at which row the log stopped."""

    def __init__(self, message: str, result: ReplayResult):
        super().__init__(message)
        self.result = result


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
    seed: int | None = None,
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
        :func:`~imbalance_stream.parallel.map_cells` does. The outputs are those of a
        serial run. On a cluster, the log and ``out_dir`` must be on a file system every worker
        sees.
    max_rejects
        Stop with :class:`ReplayError` once more rows than this are rejected (default: the
        scenario's ``replay.max_rejects``, else never); the rows rejected by then are in
        ``rejected.csv`` of ``out_dir``, and the last checkpoints stay for ``resume``.
    checkpoint_every, checkpoint_seconds
        Checkpoint every so many rows (per partition) and/or seconds (default: the scenario's
        ``replay.checkpoint_every`` / ``checkpoint_seconds``, else every 100,000 rows).
    progress
        Progress bars with rows per second (serial), or over partitions (parallel).
    seed
        The seed of every model that takes one and whose spec leaves it unset (default: the
        scenario's ``replay.seed``, else 42): two replays of one log are identical, and a
        resumed one equals a run never stopped, for randomised models too.

    Raises
    ------
    ReplayError
        In one line, for a scenario or log that cannot be replayed, an output folder that cannot
        be made, too many rejects, or a model that fails; the rows rejected by then are in
        ``rejected.csv``.
    IncompleteReplay
        For a log file damaged past some row, after writing the outputs of the rows before it.

    """
    from .merge import merge

    if not isinstance(scenario, ReplayScenario):
        scenario = load(scenario)
    if seed is not None:
        scenario = scenario.with_seed(check_int("seed", seed, low=0))
    policy = _policy(scenario, max_rejects, checkpoint_every, checkpoint_seconds)
    n_jobs, parallel, partitions = _parallelism(n_jobs, scheduler)
    out = pathlib.Path(out_dir) if out_dir is not None else pathlib.Path("out") / scenario.name
    make_output_dir(out, ReplayError)
    work = out / WORK
    partitions = _prepare_work(work, scenario.fingerprint(), partitions, resume)
    if not scenario.per_entity:
        partitions = 1
    common = {
        **policy,
        "scenario": scenario,
        "fingerprint": scenario.fingerprint(),
        "work": str(work),
        "partitions": partitions,
        "resume": resume,
    }
    cells = _cells(scenario, common, progress and not parallel)
    summaries = _run_cells(
        cells, work, out, n_jobs if parallel else None, scheduler, progress and parallel
    )
    table, models, rejected, span = merge(
        scenario,
        str(work),
        cells,
        str(out),
        predictions_format=scenario.options.get("predictions", "csv"),
    )
    shutil.rmtree(work, ignore_errors=True)
    result = ReplayResult(
        table=table, out_dir=out, models=models, rejected=rejected, time_span=span
    )
    damaged = next((s["damaged"] for s in summaries if s.get("damaged")), None)
    if damaged is not None:
        raise IncompleteReplay(damaged, result)
    return result


def _run_cells(cells, work, out, n_jobs, scheduler, progress) -> list[dict]:
    """Run the cells serially, on processes or on Dask, and return their summaries. A replay that
    stops, whatever stops it (``max_rejects``, rows out of order, a failing model, an
    interrupt), leaves the rows rejected so far in ``out/rejected.csv``."""
    from ..parallel import map_cells
    from .merge import write_rejects_so_far

    try:
        return map_cells(
            run_cell,
            cells,
            n_jobs=n_jobs,
            scheduler=scheduler,
            progress=progress,
            description="partitions",
        )
    except BaseException:
        with contextlib.suppress(Exception):  # the error that stopped the run is what to report
            write_rejects_so_far(str(work), cells, str(out))
        raise


def _parallelism(n_jobs, scheduler) -> tuple[int | None, bool, int]:
    """``(n_jobs checked, whether the cells run in parallel, the number of entity partitions)``:
    one per process, one per core for ``n_jobs=-1``, two on a Dask cluster unless told."""
    n_jobs = check_int("n_jobs", n_jobs, low=-1, optional=True)
    if n_jobs == 0:
        raise ValueError("n_jobs must be a positive number of processes, or -1 for one per core")
    parallel = scheduler is not None or (n_jobs is not None and n_jobs != 1)
    partitions = (os.cpu_count() or 1) if n_jobs == -1 else (n_jobs or (2 if scheduler else 1))
    return n_jobs, parallel, partitions


def _policy(scenario, max_rejects, checkpoint_every, checkpoint_seconds) -> dict:
    """``max_rejects`` and the checkpoint policy: the arguments, else the scenario's
    ``[replay]`` values, else no limit and a checkpoint every 100,000 rows."""
    options = scenario.options

    def given(value, key):
        return value if value is not None else options.get(key)

    every = check_int(
        "checkpoint_every", given(checkpoint_every, "checkpoint_every"), low=1, optional=True
    )
    seconds = check_real(
        "checkpoint_seconds",
        given(checkpoint_seconds, "checkpoint_seconds"),
        low=0,
        low_open=True,
        optional=True,
    )
    return {
        "max_rejects": check_int(
            "max_rejects", given(max_rejects, "max_rejects"), low=0, optional=True
        ),
        "checkpoint_every": 100_000 if every is None and seconds is None else every,
        "checkpoint_seconds": seconds,
    }


def _prepare_work(work: pathlib.Path, fingerprint: str, partitions: int, resume: bool) -> int:
    """A fresh work folder, or the one of the run being resumed (which must be of the same
    scenario and log); returns the number of partitions (a resumed run keeps its own)."""
    manifest_path = work / "manifest.json"
    if resume and manifest_path.exists():
        manifest = json.loads(manifest_path.read_text())
        if manifest["fingerprint"] != fingerprint:
            raise ReplayError(
                f"the checkpoints in {work} are from another scenario or log; "
                "run without --resume to start over"
            )
        return manifest["partitions"]
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    manifest_path.write_text(json.dumps({"fingerprint": fingerprint, "partitions": partitions}))
    return partitions


def _cells(scenario, common: dict, progress: bool) -> list[Cell]:
    """One cell per entity partition (the per-entity models) and one for the global models.

    A cell folds its models' metrics itself (``fold_metrics``) when it sees all their rows: the
    global cell, and the entity cell of a run in one partition; otherwise the merge does.
    """
    slots = scenario.slots()
    entity_slots = [i for i, (_, _, mode) in enumerate(slots) if mode == "entity"]
    global_slots = [i for i, (_, _, mode) in enumerate(slots) if mode == "global"]
    partitions = common["partitions"]
    layout: list[tuple[str, int | None, list[int], str]] = []
    if entity_slots:
        for p in range(partitions):
            layout.append(("entity", p, entity_slots, f"entities {p + 1}/{partitions}"))
    if global_slots:
        layout.append(("global", None, global_slots, "global models"))
    return [
        Cell(
            index=index,
            kind=kind,
            partition=partition,
            slots=owned,
            reporter=index == 0,  # the one cell that writes the unreadable rows
            fold_metrics=kind == "global" or partitions == 1,
            alone=len(layout) == 1,
            progress=progress,
            description=f"{scenario.name}: {what}",
            **common,
        )
        for index, (kind, partition, owned, what) in enumerate(layout)
    ]
