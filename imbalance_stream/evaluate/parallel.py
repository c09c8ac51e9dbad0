"""Run independent cells of a sweep (models x streams x seeds x hyper-parameters) serially, on local
processes, or on a Dask distributed cluster.

A cell is any picklable argument; ``func`` must be a module-level function so that worker processes
can import it. Results come back in the order of ``cells`` whatever the backend, so a sweep gives
the same table serially and in parallel.
"""

from __future__ import annotations

import concurrent.futures
import os
from collections.abc import Callable, Iterable

__all__ = ["SchedulerUnreachable", "map_cells"]


def map_cells(
    func: Callable,
    cells: Iterable,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    progress: bool = False,
    description: str = "cells",
) -> list:
    """Apply ``func`` to every cell and return the results in order.

    Parameters
    ----------
    func
        A picklable (module-level) function of one argument.
    cells
        The arguments.
    n_jobs
        ``None`` or 1: serial, in this process. ``k > 1``: ``k`` local worker processes. ``-1``:
        one per core.
    scheduler
        Address of a Dask distributed scheduler (``"tcp://host:8786"``), or ``"local"`` for a
        local Dask cluster of ``n_jobs`` workers. Needs the ``distributed`` extra.
    progress
        Show a progress bar.

    Examples
    --------

    >>> from imbalance_stream.evaluate.parallel import map_cells
    >>> map_cells(abs, [-3, 1, -2])
    [3, 1, 2]

    """
    cells = list(cells)
    bar = _progress_bar(len(cells), description) if progress else None
    try:
        if scheduler is not None:
            return _map_dask(func, cells, n_jobs, scheduler, bar)
        if n_jobs == -1:
            n_jobs = os.cpu_count() or 1
        if n_jobs is None or n_jobs <= 1 or len(cells) <= 1:
            results = []
            for cell in cells:
                results.append(func(cell))
                if bar is not None:
                    bar.update()
            return results
        with concurrent.futures.ProcessPoolExecutor(max_workers=n_jobs) as pool:
            futures = [pool.submit(func, cell) for cell in cells]
            for _ in concurrent.futures.as_completed(futures):
                if bar is not None:
                    bar.update()
            return [future.result() for future in futures]
    finally:
        if bar is not None:
            bar.close()


class SchedulerUnreachable(ConnectionError):
    """``--scheduler ADDRESS`` names a Dask scheduler that does not answer."""


def _progress_bar(total, description):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=description, leave=False)


def _map_dask(func, cells, n_jobs, scheduler, bar):
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as error:  # pragma: no cover - depends on the optional extra
        raise ImportError(
            "running on a Dask cluster needs the optional extra: "
            "pip install 'imbalance-stream[distributed]'"
        ) from error
    cluster = None
    if scheduler == "local":
        cluster = LocalCluster(n_workers=n_jobs or os.cpu_count() or 1, threads_per_worker=1)
        client = Client(cluster)
    else:
        try:
            client = Client(scheduler)
        except OSError as error:  # refused, unknown host, or Dask's 30 s connection timeout
            raise SchedulerUnreachable(
                f"no Dask scheduler answers at {scheduler} ({error}); start one (`dask scheduler`, "
                f"then `dask worker {scheduler}` on each machine) or use --scheduler local"
            ) from None
    try:
        futures = client.map(func, cells, pure=False)
        for _ in as_completed(futures):
            if bar is not None:
                bar.update()
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
