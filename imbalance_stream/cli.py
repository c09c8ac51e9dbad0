"""The ``imbalance-stream`` command.

``imbalance-stream run FILE [--out DIR] [--n-jobs N] [--scheduler ADDR] [--seed S] [--quiet]``
runs a scenario file (or a scenario shipped with the package, by name: ``imbalance-stream run
quickstart``): it shows a progress bar, prints a table of the final metrics (one row per
model; for a protocol, the rows the protocol returns), and writes into the output directory (default
``out/<scenario name>``):

* ``table.csv``: the printed table;
* ``curves.csv``: the metric curves, one row per model, checkpoint and metric (prequential runs);
* ``curves.png``: one panel per metric (prequential runs; needs matplotlib, the ``plot`` extra);
* ``run.json``: what produced them: the command, the scenario file's SHA-256, the git commit,
  the package versions, the BLAS threads (:mod:`imbalance_stream.provenance`).

``imbalance-stream replay SCENARIO [--out DIR] [--resume] [--n-jobs N] [--scheduler ADDR]
[--max-rejects N] [--seed S]`` replays a labelled event log (:mod:`imbalance_stream.replay`); it
too writes ``run.json``. A damaged log file is replayed up to the damage, its outputs written,
then reported in one line with exit code 2.

``imbalance-stream list`` lists the short names of this package's estimators, metrics, datasets and
schedules, the registered protocols and the scenarios shipped with the package, without importing
them (:mod:`imbalance_stream.catalog`); ``imbalance-stream list NAME`` prints one class's
parameters with their defaults and the first paragraph of its docstring.

``imbalance-stream compile [NAME...]`` compiles the numba kernels of the named estimators (their
steps runs in a replay too; ``replay``: the replay's own kernels; all by default) into numba's
on-disk cache, printing the seconds each took, so that their first use in later processes loads
compiled code instead of compiling it (:mod:`imbalance_stream.precompile`).

Each command imports only what it uses: ``--version``, ``list`` and ``data`` import neither numba,
River nor the estimators.

``imbalance-stream data fetch NAME... [--base-url URL] [--force]`` downloads benchmark files from
their public sources into the data home (``$IMBALANCE_STREAM_DATA``) and checks their SHA-256;
``data list`` names the data sets and their files, ``data check [NAME...]`` verifies what the data
home holds (see :mod:`imbalance_stream.datasets.fetch`).

``imbalance-stream --version`` prints the version.

Exit codes: 0 done, 2 a user error, reported in one line without a traceback: a usage or
scenario error (a file that is not UTF-8 or nests too deeply, an unknown name, a parameter a class
or a protocol refuses, a function where a scenario can only name classes, a River dataset that
would download), a benchmark file missing from or damaged in the data home, a stream a model
cannot take; 1 anything else (``data check``: a file missing or damaged).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

# the command line prints and writes its tables by the rules reproduce/ and the notebooks use too
from imbalance_stream.tables import format_table, write_csv

__all__ = ["format_table", "main", "write_csv"]


def _parser() -> argparse.ArgumentParser:
    from imbalance_stream import __version__

    parser = argparse.ArgumentParser(
        prog="imbalance-stream",
        description="Prequential evaluation of learners on imbalanced, drifting streams.",
    )
    parser.add_argument("--version", action="version", version=f"imbalance-stream {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.required = True

    run = commands.add_parser("run", help="run a scenario file (TOML)")
    run.add_argument(
        "file",
        metavar="FILE",
        help="scenario file, or the name of a scenario shipped with the package (quickstart)",
    )
    run.add_argument("--out", metavar="DIR", help="output directory (default: out/<scenario name>)")
    _add_workers(
        run,
        "run the models (or a protocol's cells) on N local processes; -1: one per core",
        "Dask scheduler address (tcp://host:8786), or 'local' for a local Dask cluster",
    )
    _add_seed_and_quiet(run, "override the stream's seed (prequential scenarios)")

    _add_names_command(
        commands,
        "list",
        "list estimators, metrics, datasets and protocols, or describe one class",
        ("name", "?"),
        "a class (ACOG, river.linear_model.LogisticRegression): its parameters and summary",
    )
    _add_names_command(
        commands,
        "compile",
        "compile the estimators' numba kernels into numba's cache ahead of use",
        ("names", "*"),
        "estimators, or replay (default: all; `list` names the estimators)",
    )
    _add_replay_parser(commands)

    data = commands.add_parser("data", help="download and check the benchmark files")
    actions = data.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    fetch = actions.add_parser("fetch", help="download data sets into the data home")
    fetch.add_argument("names", metavar="NAME", nargs="+", help="data sets (see `data list`)")
    fetch.add_argument(
        "--base-url",
        metavar="URL",
        default=None,
        help="a mirror of the sources (default: $IMBALANCE_STREAM_DATA_URL, else the sources)",
    )
    fetch.add_argument("--force", action="store_true", help="download files already present")
    actions.add_parser("list", help="the data sets, their files and whether the data home has them")
    check = actions.add_parser("check", help="verify the files of the data home (SHA-256)")
    check.add_argument("names", metavar="NAME", nargs="*", help="data sets (default: all)")
    return parser


def _data(args) -> int:
    from imbalance_stream.datasets import fetch, get_data_home

    home = get_data_home()
    if args.action == "fetch":
        for name in args.names:
            try:
                fetch.sources_of(name)
            except KeyError as error:
                raise _UsageError(error.args[0]) from None
        try:
            paths = fetch.fetch(args.names, base_url=args.base_url, force=args.force, log=print)
        except OSError as error:
            print(f"imbalance-stream: error: download failed: {error}", file=sys.stderr)
            return 1
        print(f"{len(paths)} file(s) in the data home {home}")
        return 0
    if args.action == "list":
        states = fetch.check(home=home)
        print(f"Data sets (data home {home}):")
        for name, files in fetch.NAMES.items():
            have = sum(states[p] == "ok" for p in files)
            print(f"  {name:<28} {have}/{len(files)} file(s) present")
        return 0
    try:
        states = fetch.check(args.names or None, home=home)
    except KeyError as error:
        raise _UsageError(error.args[0]) from None
    for path, state in states.items():
        print(f"  {state:<13} {path}")
    bad = [p for p, s in states.items() if s != "ok"]
    print(f"{len(states) - len(bad)} of {len(states)} file(s) ok in {home}")
    return 1 if bad else 0


def _list(name: str | None) -> int:
    if name is not None:
        return _describe(name)
    from imbalance_stream.catalog import CLASSES, bundled, paper_scenarios

    groups: dict[str, list[str]] = {}
    for short, (full, kind) in sorted(CLASSES.items(), key=lambda item: item[1]):
        groups.setdefault(kind, []).append(f"  {short:<28} {full}")
    for kind, title in (
        ("estimator", "Estimators"),
        ("metric", "Metrics"),
        ("dataset", "Datasets"),
        ("schedule", "Imbalance schedules"),
        ("reweighter", "Re-weighters (the reweighter of ImportanceWeighted)"),
        ("learner", "Batch learners (the learner of DDR and DDRReweighter)"),
    ):
        print(f"{title} (short name, full name):")
        print("\n".join(groups.get(kind, [])) or "  (none)")
        print()
    print('Protocols (kind = "protocol", protocol = a registered name, see')
    print("imbalance_stream.evaluate.protocols); the papers' scenarios of this checkout")
    print("(reproduce/, not installed with the package):")
    here = pathlib.Path.cwd()
    found = [os.path.relpath(path, here) for path in paper_scenarios(here)]
    print("\n".join(f"  {path}" for path in found) or "  (none here: run from a checkout)")
    print()
    print("Scenarios shipped with the package (imbalance-stream run <name>):")
    print("\n".join(f"  {name:<28} {path}" for name, path in bundled().items()) or "  (none)")
    print()
    print("Any River class can be named in full, e.g. river.linear_model.LogisticRegression.")
    print("imbalance-stream list NAME shows a class's parameters and what it does.")
    return 0


def _describe(name: str) -> int:
    """Print the class ``name`` denotes: its dotted name, its parameters with their defaults and
    the first paragraph of its docstring."""
    import inspect

    from imbalance_stream.registry import aliases, resolve

    cls = resolve(name)
    print(f"{aliases().get(name, name)}(")
    for parameter in inspect.signature(cls).parameters.values():
        if parameter.kind is parameter.VAR_POSITIONAL:
            print(f"    *{parameter.name},")
        elif parameter.kind is parameter.VAR_KEYWORD:
            print(f"    **{parameter.name},")
        elif parameter.default is parameter.empty:
            print(f"    {parameter.name},  (required)")
        else:
            print(f"    {parameter.name}={parameter.default!r},")
    print(")")
    summary = (inspect.getdoc(cls) or "").split("\n\n")[0]
    if summary:
        print()
        print(summary)
    return 0


def _compile(names: list[str]) -> int:
    from imbalance_stream.base.validation import did_you_mean
    from imbalance_stream.precompile import estimator_names, precompile, precompile_replay

    known = estimator_names()
    for name in names:
        if name not in known and name != "replay":
            raise _UsageError(
                f"unknown estimator {name!r}"
                + (
                    did_you_mean(name, [*known, "replay"])
                    or "; `imbalance-stream list` names the estimators (or: replay)"
                )
            )
    total = 0.0
    wanted = names or [*known, "replay"]
    for name in wanted:
        seconds = precompile_replay() if name == "replay" else precompile(name)
        total += seconds
        print(f"  {name:<28} {seconds:7.2f} s", flush=True)
    print(f"compiled {len(wanted)} target(s) in {total:.1f} s into numba's cache")
    return 0


def _plot(result, path, title) -> str | None:
    """Write the PNG; return a note when it cannot."""
    try:
        import matplotlib
    except ImportError:
        return (
            "matplotlib is not installed: curves.png skipped (pip install 'imbalance-stream[plot]')"
        )
    matplotlib.use("Agg")  # a file needs no display
    import matplotlib.pyplot as plt

    from imbalance_stream.evaluate.prequential import plot_curves

    fig = plot_curves(result, path, title=title)
    plt.close(fig)
    return None


def _run(args) -> int:
    from imbalance_stream.provenance import make_output_dir
    from imbalance_stream.scenario import load, run

    scenario = load(args.file)
    if args.scheduler is not None:
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise _UsageError(
                "--scheduler runs on Dask, which is not installed: "
                "pip install 'imbalance-stream[distributed]' (or --n-jobs N: local processes)"
            ) from None
    if args.seed is not None:
        if scenario.kind != "prequential":
            raise _UsageError(
                "--seed applies to prequential scenarios; set a protocol's seeds in its [params]"
            )
        scenario = scenario.with_seed(args.seed)
    out = pathlib.Path(args.out) if args.out else pathlib.Path("out") / scenario.name
    make_output_dir(out, _UsageError)

    started, source = time.time(), _source(scenario.source)
    result = run(
        scenario, out_dir=out, n_jobs=args.n_jobs, scheduler=args.scheduler, progress=not args.quiet
    )
    print(f"{scenario.name}: {scenario.config.get('description', scenario.kind)}")
    print(format_table(result.table))
    write_csv(result.table, out / "table.csv")
    _write_provenance(args, scenario.source, started, out, source)
    written = ["table.csv", "run.json"]
    if result.curves is not None:
        write_csv(result.curves, out / "curves.csv")
        written.append("curves.csv")
        note = _plot(result.prequential, out / "curves.png", title=scenario.name)
        if note:
            print(note, file=sys.stderr)
        else:
            written.append("curves.png")
    print(f"wrote {', '.join(written)} to {out}")
    return 0


def _add_workers(command, n_jobs_help: str, scheduler_help: str) -> None:
    """The options ``run`` and ``replay`` share for where the work runs: local processes
    (``--n-jobs``) or a Dask cluster (``--scheduler``)."""
    command.add_argument("--n-jobs", metavar="N", type=int, default=None, help=n_jobs_help)
    command.add_argument("--scheduler", metavar="ADDR", default=None, help=scheduler_help)


def _add_seed_and_quiet(command, seed_help: str) -> None:
    """The last options of ``run`` and ``replay``: ``--seed`` and ``--quiet``."""
    command.add_argument("--seed", metavar="S", type=int, default=None, help=seed_help)
    command.add_argument("--quiet", action="store_true", help="no progress bar")


def _add_names_command(commands, command: str, summary: str, names, names_help: str) -> None:
    """A command whose one argument is the names it acts on (``NAME``): ``names`` is the
    argument's ``(dest, nargs)``."""
    dest, nargs = names
    parser = commands.add_parser(command, help=summary)
    parser.add_argument(dest, metavar="NAME", nargs=nargs, help=names_help)


class _UsageError(Exception):
    pass


def _add_replay_parser(commands) -> None:
    replay = commands.add_parser("replay", help="replay a labelled event log (a replay scenario)")
    replay.add_argument("file", metavar="SCENARIO", help='a TOML file with kind = "replay"')
    replay.add_argument("--out", metavar="DIR", help="output directory (default: out/<name>)")
    replay.add_argument(
        "--resume",
        action="store_true",
        help="continue from the checkpoints in the output directory",
    )
    _add_workers(
        replay,
        "replay the entities on N local processes; -1: one per core",
        "Dask scheduler address (tcp://host:8786), or 'local'",
    )
    replay.add_argument(
        "--max-rejects",
        metavar="N",
        type=int,
        default=None,
        help="stop once more than N rows are rejected",
    )
    _add_seed_and_quiet(
        replay, "seed of the models that take one (default: the scenario's replay.seed, else 42)"
    )


def _replay(args) -> int:
    from imbalance_stream.replay import IncompleteReplay, load, replay
    from imbalance_stream.replay.merge import plot

    if args.max_rejects is not None and args.max_rejects < 0:
        raise _UsageError("--max-rejects must be >= 0")
    if args.seed is not None and args.seed < 0:
        raise _UsageError("--seed must be >= 0")
    scenario = load(args.file)
    out = pathlib.Path(args.out) if args.out else pathlib.Path("out") / scenario.name
    started, source = time.time(), _source(scenario.source)
    stopped = None  # replay() makes the output folder, or says in one line why it cannot
    try:
        result = replay(
            scenario,
            out_dir=out,
            resume=args.resume,
            n_jobs=args.n_jobs,
            scheduler=args.scheduler,
            max_rejects=args.max_rejects,
            progress=not args.quiet,
            seed=args.seed,
        )
    except IncompleteReplay as error:  # a damaged log: its outputs so far, then the error
        result, stopped = error.result, error
    print(f"{scenario.name}: {scenario.config.get('description', 'replay')}")
    print(format_table(result.table))
    _write_provenance(args, scenario.source, started, out, source)
    note = plot(str(out), title=scenario.name, span=result.time_span)
    if note:
        print(note, file=sys.stderr)
    kind = scenario.options.get("predictions", "csv")
    print(
        f"{result.rejected} rejected rows; wrote predictions.{kind}, rejected.csv, curves.csv"
        f"{'' if note else ', curves.png'}, entities.csv, table.csv, run.json to {out}"
    )
    return 0 if stopped is None else _fail(stopped)


def _source(scenario_file: str) -> dict:
    """The scenario's hash and commit when the command starts (what ran, not what is checked
    out when it ends)."""
    from imbalance_stream import provenance

    return provenance.snapshot(scenario_file)


def _write_provenance(
    args, scenario_file: str, started: float, out: pathlib.Path, source: dict
) -> None:
    from imbalance_stream import provenance

    finished = time.time()
    record = provenance.describe(args.argv, scenario_file, started, finished, source=source)
    provenance.write(out, record)


def _fail(error) -> int:
    """Report a user error in one line (a multi-line message is joined) and return 2."""
    message = " ".join(str(error).split())
    print(f"imbalance-stream: error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``imbalance-stream`` console script; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)  # exits with 2 and a usage message on bad arguments
    args.argv = list(sys.argv[1:] if argv is None else argv)  # for run.json
    if getattr(args, "n_jobs", None) is not None and (args.n_jobs == 0 or args.n_jobs < -1):
        parser.error("--n-jobs must be a positive number of processes, or -1 for one per core")
    try:
        if args.command == "list":
            return _list(args.name)
        if args.command == "compile":
            return _compile(args.names)
        if args.command == "replay":
            return _replay(args)
        if args.command == "data":
            return _data(args)
        return _run(args)
    except _UsageError as error:
        return _fail(error)
    except KeyboardInterrupt:
        print("imbalance-stream: interrupted", file=sys.stderr)
        return 130
    except Exception as error:
        message = _user_error(error)
        if message is None:
            raise
        return _fail(message)


def _user_error(error: Exception) -> str | None:
    """The one line a user error is reported in, or ``None`` for any other error. The error
    classes are imported here, once one is raised, so that a command imports only what it uses."""
    from imbalance_stream.base import REFUSALS
    from imbalance_stream.datasets import ChecksumError, CorruptedFileError, MissingDataFile
    from imbalance_stream.evaluate import ModelFailed, StreamFailed
    from imbalance_stream.evaluate.protocols import ProtocolError
    from imbalance_stream.parallel import SchedulerUnreachable
    from imbalance_stream.registry import SpecError

    if isinstance(
        error, (SpecError, ProtocolError, ModelFailed, StreamFailed, SchedulerUnreachable)
    ):
        return str(error)
    if isinstance(error, MissingDataFile):
        return error.hint()
    if isinstance(error, (ChecksumError, CorruptedFileError)):
        return f"a damaged data file: {error}"
    if isinstance(error, REFUSALS):
        # The stream does not fit a model: labels other than its two (is `positive` right?), or
        # a value it cannot take. A scenario error, reported as such.
        return f"the stream does not fit a model: {error}"
    return None


if __name__ == "__main__":
    sys.exit(main())
