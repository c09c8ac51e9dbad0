"""Run independent cells of a sweep (models x streams x seeds x hyper-parameters) serially, on local
processes, or on a Dask distributed cluster.

A cell is any picklable argument; ``func`` must be a module-level function so that worker processes
can import it. Results come back in the order of ``cells`` whatever the backend, so a sweep gives
the same table serially and in parallel.

Every worker process compiles into a numba cache of its own (:func:`claim_numba_cache`): numba's
on-disk cache is not safe for processes that compile different specialisations of one function at
the same time. It also imports the packages that this process imported from a folder outside
``sys.path`` (:func:`import_package`: a checkout's ``reproduce/``), so that a function of theirs
can be a cell's function whatever way the workers start.
"""

from __future__ import annotations

import concurrent.futures
import importlib.util
import multiprocessing.util
import os
import shutil
import sys
import tempfile
import types
from collections.abc import Callable, Iterable

__all__ = ["SchedulerUnreachable", "claim_numba_cache", "import_package", "map_cells"]

#: The numba cache directory this process claimed, and the slot's lock, held open for the life of
#: the process (closing it frees the slot).
_claimed_directory: str | None = None
_slot_lock = None
#: The packages this process imported from a folder outside ``sys.path``, name -> folder: the
#: worker processes import them from there too.
_PACKAGES: dict[str, str] = {}


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

    >>> from imbalance_stream.parallel import map_cells
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
        with concurrent.futures.ProcessPoolExecutor(
            max_workers=n_jobs, initializer=_start_worker, initargs=(dict(_PACKAGES),)
        ) as pool:
            futures = [pool.submit(func, cell) for cell in cells]
            for _ in concurrent.futures.as_completed(futures):
                if bar is not None:
                    bar.update()
            return [future.result() for future in futures]
    finally:
        if bar is not None:
            bar.close()


def import_package(name: str, folder: str | os.PathLike) -> types.ModuleType:
    """Import the package ``name`` from ``folder`` (``folder/name/__init__.py``) without putting
    ``folder`` on ``sys.path``: the package and its submodules become importable, none of the
    folder's other modules. The worker processes of :func:`map_cells` (local processes, however
    they start, and the workers of a Dask cluster that see the folder) import it from there before
    their first cell, so a cell's function may be one of its functions. A package already imported
    is returned as it is.

    Parameters
    ----------
    name
        The package's name (``"reproduce"``).
    folder
        The folder that holds the package's folder.

    """
    if name in sys.modules:
        return sys.modules[name]
    location = os.path.join(os.fspath(folder), name)
    spec = importlib.util.spec_from_file_location(
        name, os.path.join(location, "__init__.py"), submodule_search_locations=[location]
    )
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"no package {name!r} in {os.fspath(folder)!r}", name=name)
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        del sys.modules[name]
        raise
    _PACKAGES[name] = os.fspath(folder)
    return package


def _start_worker(packages: dict[str, str]) -> None:
    """What a worker process does before its first cell: claim a numba cache, and import the
    packages its parent imported from a folder (those whose folder it sees)."""
    claim_numba_cache()
    for name, folder in packages.items():
        if os.path.isfile(os.path.join(folder, name, "__init__.py")):
            import_package(name, folder)


def claim_numba_cache(root: str | None = None) -> str:
    """Give this process a numba cache directory that no other live process writes to.

    numba numbers the compiled specialisations of a function in its on-disk cache in the order they
    are saved, so two processes that compile different specialisations of one kernel at the same
    time can both write ``name.1.nbc``, and the index can end up naming the other's machine code for
    a signature: a later run that loads it may crash (numba/numba#4807). The worker processes of
    :func:`map_cells` and of a Dask cluster call this first. Each takes the first free slot
    ``worker-0``, ``worker-1``, ... under ``root``, locked for the life of the process, so a slot is
    never shared while in use and later runs find their slot's cache warm. Where ``root`` cannot
    hold slots (not writable) and on Windows it is a temporary directory of this process's own,
    removed when it ends. Kernels already imported are pointed at it, later imports and the
    processes this one starts inherit it (``NUMBA_CACHE_DIR``). Calling it again returns the same
    directory.

    Parameters
    ----------
    root
        Where the slots live: by default ``NUMBA_CACHE_DIR`` if set, else numba's user-wide cache
        directory.

    Returns
    -------
    The directory claimed.

    """
    global _claimed_directory, _slot_lock
    import numba
    from numba.core.dispatcher import Dispatcher
    from numba.misc.appdirs import AppDirs

    if _claimed_directory is not None:
        return _claimed_directory
    if root is None:
        root = os.environ.get("NUMBA_CACHE_DIR") or AppDirs("numba", appauthor=False).user_cache_dir
    directory, _slot_lock = _first_free_slot(root)
    _claimed_directory = os.environ["NUMBA_CACHE_DIR"] = directory
    numba.core.config.reload_config()
    for name, module in list(sys.modules.items()):
        if name == "imbalance_stream._numba" or name.startswith("imbalance_stream._numba."):
            for kernel in vars(module).values():
                if isinstance(kernel, Dispatcher) and kernel.py_func.__module__ == name:
                    kernel.enable_caching()  # a new cache object reads the new directory
    return directory


def _first_free_slot(root: str):
    """The first ``root/worker-<i>`` whose lock file this process can lock, and the open lock; a
    fresh temporary directory (not reused by later runs) where there is no free slot, where
    ``root`` cannot be written, or without ``fcntl`` (Windows)."""
    try:
        import fcntl

        for slot in range(1024):
            directory = os.path.join(root, f"worker-{slot}")
            os.makedirs(directory, exist_ok=True)
            lock = open(os.path.join(directory, ".lock"), "w")  # held until the process exits
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                lock.close()
                continue
            return directory, lock
    except (ImportError, OSError):
        pass
    directory = tempfile.mkdtemp(prefix="imbalance-stream-numba-")
    # removed when the process ends: multiprocessing's finalizers also run in its workers, which
    # end without atexit
    multiprocessing.util.Finalize(None, shutil.rmtree, (directory, True), exitpriority=0)
    return directory, None


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
    from distributed import WorkerPlugin

    class StartWorker(WorkerPlugin):
        """Runs :func:`_start_worker` in every worker, those that join later included."""

        name = "imbalance-stream-numba-cache"

        def __init__(self, packages: dict[str, str]):
            self.packages = packages

        def setup(self, worker):
            _start_worker(self.packages)

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
        client.register_plugin(StartWorker(dict(_PACKAGES)))
        futures = client.map(func, cells, pure=False)
        for _ in as_completed(futures):
            if bar is not None:
                bar.update()
        return client.gather(futures)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
