"""Test configuration: the benchmark data home, and skips for tests that need a missing file.

The data home is ``$IMBALANCE_STREAM_DATA``, or ``../shared/datasets`` beside the checkout when that
exists. A test or doctest that needs a benchmark file the data home lacks is reported as skipped,
naming the file: the loaders raise :class:`~imbalance_stream.datasets.MissingDataFile`, and a plain
``FileNotFoundError`` for a path inside the data home counts too. Everything else runs on data
River or scikit-learn bundle. With ``IMBALANCE_STREAM_REQUIRE_DATA=1`` (set by ``.ci/run``) a
missing file fails the test instead, so a run that has the data cannot skip by mistake.
"""

from __future__ import annotations

import doctest
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent
SHARED = ROOT.parent / "shared" / "datasets"
if "IMBALANCE_STREAM_DATA" not in os.environ and SHARED.is_dir():
    os.environ["IMBALANCE_STREAM_DATA"] = str(SHARED)


def _missing_data_file(error: BaseException | None) -> str | None:
    """The data-home path that ``error`` (or the error it wraps) reports missing, if any."""
    from imbalance_stream.datasets import MissingDataFile, get_data_home

    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, doctest.UnexpectedException):
            error = error.exc_info[1]
        if isinstance(error, MissingDataFile):
            return error.data_path
        if isinstance(error, FileNotFoundError) and error.filename:
            home = get_data_home().resolve()
            path = pathlib.Path(os.fsdecode(error.filename)).resolve()
            if path.is_relative_to(home):
                return path.relative_to(home).as_posix()
        error = error.__cause__ or error.__context__
        seen += 1
    return None


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if not report.failed or call.excinfo is None or os.environ.get("IMBALANCE_STREAM_REQUIRE_DATA"):
        return
    missing = _missing_data_file(call.excinfo.value)
    if missing is not None:
        report.outcome = "skipped"
        location = item.reportinfo()
        reason = f"needs {missing} in the data home ($IMBALANCE_STREAM_DATA)"
        report.longrepr = (str(location[0]), (location[1] or 0) + 1, f"Skipped: {reason}")
