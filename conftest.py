"""Test configuration: the data home, and skipping what needs a benchmark file it lacks.

The data home is the package's: ``$IMBALANCE_STREAM_DATA``, else ``~/imbalance_stream_data``
(point the variable at the folder of the benchmark files, or at an empty folder to run without
them). Two rules keep a clone without the data green, with every skip naming the missing file:

* a test that reads a benchmark file says so with ``@pytest.mark.requires_data("libsvm/a9a.gz")``
  (data-home paths, or fetch names such as ``"a9a"``; on a test, a class or a module's
  ``pytestmark``), and is skipped when a file is missing;
* a doctest that reaches a missing file (the loaders raise
  :class:`~imbalance_stream.datasets.MissingDataFile`) is reported as skipped, naming the file,
  instead of failed. Everything else in the examples runs on data River or scikit-learn bundle.

With ``IMBALANCE_STREAM_REQUIRE_DATA=1`` (set by ``.ci/run``, which has the data) neither rule
skips: a missing file fails, so a run with the data cannot skip a test by mistake.
"""

import os

# One BLAS thread per test process: pytest -n 2 on two cores already uses both, and OpenBLAS's
# threads on small matrices then wait on each other (a 100 x 100 inverse went from 1 ms to 60 ms).
# Set before numpy is imported; an explicit setting in the environment wins.
for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

import doctest  # noqa: E402
import pathlib  # noqa: E402

# numba's on-disk cache is not safe for processes that compile and save the same functions at
# once (numba/numba#4807, #10128): on a fresh clone, both workers of `pytest -n 2` (and the
# processes of `--n-jobs 2` runs they start) compile everything at the same time, and one CI run
# lost two workers to a segmentation fault on loading LASVM's store compaction. Each xdist worker
# gets its own cache, so no two concurrent test processes share one; the worker processes that
# map_cells starts claim slots under it (imbalance_stream.parallel.claim_numba_cache). An explicit
# NUMBA_CACHE_DIR wins.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER")
if _WORKER:
    _cache = pathlib.Path(__file__).resolve().parent / ".numba-cache" / _WORKER
    os.environ.setdefault("NUMBA_CACHE_DIR", str(_cache))

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402

# CI draws the same examples on every run (a property test cannot turn a submission red by the luck
# of the draw); locally each run draws new ones and keeps finding what CI would not.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


def pytest_configure(config):
    config.addinivalue_line(
        "markers",
        "requires_data(*files): needs these benchmark files (data-home paths such as "
        "'libsvm/a9a.gz', or fetch names such as 'a9a'); skipped when the data home lacks one",
    )


def missing_data(*files) -> list[str]:
    """The data-home paths among ``files`` (paths or fetch names) that the data home lacks."""
    from imbalance_stream.datasets import fetch, get_data_home

    home = get_data_home()
    paths = []
    for item in files:
        paths.extend(fetch.NAMES.get(item, [item]))
    return [p for p in dict.fromkeys(paths) if not home.joinpath(*p.split("/")).is_file()]


def _skip_reason(paths) -> str:
    from imbalance_stream.datasets import fetch, get_data_home
    from imbalance_stream.datasets.home import DATA_HOME_ENV, DEFAULT_DATA_HOME

    names = sorted({fetch.fetch_name_of(p) for p in paths} - {""})
    them = "them" if len(paths) > 1 else "it"
    hint = f"; `imbalance-stream data fetch {' '.join(names)}` downloads {them}" if names else ""
    return (
        f"needs {', '.join(paths)} in the data home {get_data_home()} "
        f"(${DATA_HOME_ENV}, default {DEFAULT_DATA_HOME}){hint}"
    )


def pytest_collection_modifyitems(config, items):
    if os.environ.get("IMBALANCE_STREAM_REQUIRE_DATA"):
        return  # CI has the data: a missing file must fail, not skip
    for item in items:
        missing = [p for m in item.iter_markers("requires_data") for p in missing_data(*m.args)]
        if missing:
            item.add_marker(pytest.mark.skip(reason=_skip_reason(list(dict.fromkeys(missing)))))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    if (
        call.when != "call"
        or call.excinfo is None
        or os.environ.get("IMBALANCE_STREAM_REQUIRE_DATA")
    ):
        return
    if not isinstance(item, pytest.DoctestItem):
        return
    error = call.excinfo.value
    if isinstance(error, doctest.UnexpectedException):
        from imbalance_stream.datasets import MissingDataFile

        raised = error.exc_info[1]
        if isinstance(raised, MissingDataFile):
            report = outcome.get_result()
            report.outcome = "skipped"
            report.longrepr = (
                str(item.path),
                item.reportinfo()[1] or 0,
                "Skipped: " + _skip_reason([raised.path]),
            )
