"""The ``qdsim`` command line: ``run``, ``sweep``, ``plot``, ``report``, ``reproduce``,
``results``, ``compare``, ``validate`` and ``list``.

Every user error (a bad experiment file, override or option, a directory that cannot take
the results, a run over its memory budget) prints one line, ``error: <key>: <value> is not
allowed; <allowed>``, on stderr and exits with status 2; Ctrl-C exits with 130 and keeps
every finished sweep point. Progress goes to stderr (a bar on a terminal, plain lines every
few seconds otherwise), tables and results to stdout; ``--json`` prints exactly one JSON
object on stdout for programs. ``-q`` leaves stderr to errors (no progress, no notes);
``-v`` prints progress lines every second and the traceback of an error. Commands import
what they need when they run, so that ``qdsim --help`` and ``qdsim list`` start fast.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from ..errors import BudgetError, SpecError
from ..extras import MissingExtraError
from ..run import process
from . import common
from .common import EXIT_USER_ERROR, check_seed, memory_limit, note, options_dir, version, version_line
from .sweeps import cmd_reproduce, cmd_sweep, cmd_validate

__all__ = ["build_parser", "main", "version"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR)


def _add_spec_options(p: argparse.ArgumentParser, out_default: str) -> None:
    p.add_argument("spec", metavar="SPEC", help="experiment file (TOML)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key, e.g. topology.qdisc.limit=20pkt (repeatable)")
    p.add_argument("--seed", type=int, default=None, help="run seed (default: experiment.seed)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR", help=f"results directory (default: {out_default})")
    _add_run_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of tables")


def _add_run_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace the results of another experiment or kind in the results directory")
    p.add_argument("--memory-limit", default=None, metavar="SIZE", help="memory budget of each run, e.g. 4GB (default: a quarter of physical memory, split between the runs at once)")


def _add_scheduler_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS", help="run the points on a Dask cluster, e.g. tcp://10.0.0.5:8786 (needs qdsim[dask])")


def build_parser() -> argparse.ArgumentParser:
    """Returns the argument parser of the ``qdsim`` command."""
    parser = _Parser(prog="qdsim", description="Packet-level simulation of queue disciplines and TCP.")
    parser.add_argument("--version", action="version", version=version_line())
    talk = parser.add_mutually_exclusive_group()
    talk.add_argument("-q", "--quiet", action="store_true", help="print only errors on stderr: no progress, no notes")
    talk.add_argument("-v", "--verbose", action="store_true", help="progress lines every second, and the traceback of an error")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run one experiment and print its summary")
    _add_spec_options(run, "results/<name>-run/, with --set or --seed results/<name>-run-<digest>/")
    run.add_argument(
        "--pcap",
        default=None,
        metavar="LINK[,LINK...]",
        help="write what each link transmitted to RESULTS/pcap/<link>.pcap for Wireshark (the file's [pcap] links; dropped packets too with --set pcap.drops=true)",
    )
    run.set_defaults(func=cmd_run)

    sweep = sub.add_parser("sweep", help="run the [sweep] grid × repetitions on all cores or a Dask cluster")
    _add_spec_options(sweep, "results/<name>/")
    _add_scheduler_options(sweep)
    sweep.set_defaults(func=cmd_sweep)

    plot = sub.add_parser("plot", help="plot a metric against a swept key, with 95%% CIs")
    plot.add_argument("results_dir", metavar="RESULTS_DIR", type=Path)
    plot.add_argument("--x", default=None, help="swept key (default: [plot].x or the only swept key)")
    plot.add_argument("--y", default=None, help="metric column (default: [plot].y, goodput_bps)")
    plot.add_argument("--by", default=None, help="column giving one line each (default: group for group metrics)")
    plot.add_argument("--facet", default=None, metavar="KEY", help="swept key giving one column of panels per value")
    plot.add_argument("--where", action="append", default=[], metavar="KEY=VALUE", help="keep the runs whose swept key (or rep, seed) has this value (repeatable)")
    plot.add_argument("--out", type=Path, default=None, metavar="FILE", help="output .png, .pdf or .svg")
    plot.add_argument(
        "--kind",
        choices=("sweep", "series", "cwnd", "queue"),
        default=None,
        help="sweep: metric vs swept key; series: [plot] panels of sampled series vs time; cwnd: congestion window vs time per flow; "
        "queue: queue length vs time per link (default: [plot].kind of a sweep, else sweep)",
    )
    plot.add_argument("--flows", default=None, help="cwnd: comma-separated flow ids (default: all)")
    plot.add_argument("--links", default=None, help="queue: comma-separated link names (default: links that queued)")
    plot.set_defaults(func=cmd_plot)

    page = sub.add_parser("report", help="one self-contained HTML page of a results directory: tables and interactive figures, opens offline")
    page.add_argument("results_dir", metavar="RESULTS_DIR", type=Path, help="a directory written by qdsim run, sweep, reproduce or validate")
    page.add_argument("-o", "--out", type=Path, default=None, metavar="FILE", help="the HTML file to write (default: RESULTS_DIR/report.html)")
    page.set_defaults(func=cmd_report)

    rep = sub.add_parser("reproduce", help="reproduce paper figures: run each sweep (resumable) and draw it, PNG + JSON of the numbers")
    rep.add_argument("targets", nargs="*", metavar="FILE|PAPER", help="experiment files, or papers (directories of the experiments directory)")
    rep.add_argument("--all", action="store_true", help="every paper's figures")
    rep.add_argument("--list", action="store_true", help="list the figures: paper, figure, file, runs, CPU time estimated from stored runs")
    rep.add_argument("--quick", action="store_true", help="the shortened run each file's [quick] declares (what the figure tests check)")
    rep.add_argument("--docs", action="store_true", help="also copy each figure and its JSON to docs/reproductions/<paper>/, the committed copies")
    rep.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key in every file (repeatable)")
    rep.add_argument("--seed", type=int, default=None, help="base seed of the repetitions (default: experiment.seed)")
    rep.add_argument("--repetitions", type=int, default=None, metavar="N", help="override the repetitions (e.g. fewer for a quick look)")
    _add_scheduler_options(rep)
    _add_run_options(rep)
    rep.add_argument("--out", type=Path, default=None, metavar="DIR", help="results directory of a single figure (default: results/<name>/, with --quick results/<name>-quick/)")
    rep.add_argument("--figure", type=Path, default=None, metavar="FILE", help="output .png, .pdf or .svg of a single figure (default: RESULTS_DIR/<file stem>.png)")
    rep.add_argument("--experiments", type=Path, default=Path("experiments"), metavar="DIR", help="where the papers' directories are (default: experiments)")
    rep.add_argument("--engine", default=None, metavar="ENGINE", help="run each sweep in a reference engine, ns2 or ns3, instead of qdsim (results/<name>[-quick]-<engine>/; points it lacks left out)")
    rep.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of lines")
    rep.set_defaults(func=cmd_reproduce)

    res = sub.add_parser("results", help="results directories: list, show, query with SQL, prune stale runs")
    what = res.add_subparsers(dest="action", required=True, parser_class=_Parser)
    res_list = what.add_parser("list", help="every results directory under DIR (default: results/): kind, experiment, runs, stale runs")
    res_list.add_argument("dirs", nargs="*", type=Path, metavar="DIR", help="directories to look in (default: results)")
    res_show = what.add_parser("show", help="one results directory: grid, code version, runs stored, missing and stale, tables")
    res_show.add_argument("dir", type=Path, metavar="RESULTS_DIR")
    res_sql = what.add_parser("sql", help="run a SQL query (DuckDB) over a directory's tables; `stored` holds every stored run of a sweep")
    res_sql.add_argument("dir", type=Path, metavar="RESULTS_DIR")
    res_sql.add_argument("query", metavar="QUERY", help="e.g. 'select \"group\", avg(goodput_bps) from groups group by 1'")
    res_sql.add_argument("--csv", action="store_true", help="print CSV instead of a table")
    res_prune = what.add_parser("prune", help="delete a sweep's stale runs (older code version, not in the last grid, old JSON format)")
    res_prune.add_argument("dir", type=Path, metavar="RESULTS_DIR")
    res_prune.add_argument("--dry-run", action="store_true", help="only say how many would be deleted")
    for p in (res_list, res_show, res_sql, res_prune):
        p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    res.set_defaults(func=cmd_results)

    cmp = sub.add_parser("compare", help="two runs or two sweeps side by side, metric by metric, with the differences")
    cmp.add_argument("a", metavar="A", type=Path, help="results directory (a run's or a sweep's)")
    cmp.add_argument("b", metavar="B", type=Path, help="results directory of the same kind")
    cmp.add_argument("--metrics", default=None, metavar="COLUMNS", help="comma-separated columns to compare (default: every numeric column)")
    cmp.add_argument("--all", action="store_true", help="also print the metrics that are equal")
    cmp.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    cmp.set_defaults(func=cmd_compare)

    val = sub.add_parser("validate", help="run an experiment in qdsim and in ns-2 / ns-3 side by side: metric, both means with CIs, ratio, verdict")
    val.add_argument("spec", metavar="SPEC", nargs="?", help="experiment file (TOML); its [sweep] grid is left out (--set picks a point)")
    val.add_argument("--engine", default="all", metavar="NAME", help="ns2, ns3 or all (default: all, leaving out with a note an engine that cannot run the file)")
    val.add_argument("--seeds", type=int, default=3, metavar="N", help="seeds on each side (default 3; a seed in one simulator is not a seed in the other)")
    val.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key (repeatable)")
    val.add_argument("--seed", type=int, default=None, help="base seed of qdsim's repetitions (default: experiment.seed)")
    val.add_argument("--out", type=Path, default=None, metavar="DIR", help="results directory (default: results/<name>-validate/, with --set results/<name>-validate-<digest>/)")
    val.add_argument("--jobs", type=int, default=None, metavar="N", help="runs at once on each side (default: all cores)")
    val.add_argument("--suite", action="store_true", help="run the validation suite (every paper's scenarios an engine can run, and the analytic laws) and write docs/validation.md")
    val.add_argument("--quick", action="store_true", help="with --suite: a few simulated seconds per scenario (what CI runs)")
    val.add_argument("--json", action="store_true", help="print one JSON object on stdout: engine, rows (metric, qdsim_mean, reference_mean, verdict, ...)")
    val.set_defaults(func=cmd_validate)

    lst = sub.add_parser("list", help="list qdiscs, congestion controls and traffic kinds, with their parameters")
    lst.add_argument("name", nargs="?", metavar="NAME", help="one qdisc, congestion control or traffic kind (or tcp-profiles)")
    lst.add_argument("--json", action="store_true", help="print the catalog (or NAME's entry) as JSON")
    lst.set_defaults(func=cmd_list)
    return parser


def cmd_run(args: argparse.Namespace) -> int:
    """Runs one experiment: tables (or JSON) on stdout, Parquet and JSON in the results directory."""
    with process.collector_paused():
        from ..experiment.resolve import resolve, with_shared_sources
        from ..experiment.spec import load
        from ..results import store, tables
        from ..run.capture import prepare_capture
        from ..run.one import run_config, summarize
        from .progress import RunProgress

    check_seed(args.seed)
    limit = memory_limit(args.memory_limit)
    # A capture changes no result: the results directory is the one without it.
    sets = [*args.sets, *_pcap_sets(args.pcap)]
    raw, spec = load(args.spec, sets)
    config = resolve(spec, seed=args.seed)
    out = options_dir(args.out, spec.experiment.name, "run", args.sets, args.seed)
    store.claim(out, "run", spec.experiment.name, force=args.force)
    captures = prepare_capture(config, out)
    if spec.sweep is not None and (spec.sweep.grid or spec.sweep.repetitions > 1):
        points = math.prod(len(v) if isinstance(v, list) else 1 for v in spec.sweep.grid.values())
        note(f"running the file's own values once; its [sweep] ({points} point(s) x {spec.sweep.repetitions} repetition(s)) runs with `qdsim sweep`")
    # Every phase is shown, so that a large run (10^5 flows: seconds of set-up and of
    # writing) is never silent.
    with RunProgress(f"run {spec.experiment.name}") as progress:
        progress.phase(f"building {len(config['flows'])} flows over {len(config['links'])} links")
        text = store.json_text(with_shared_sources(config))  # config.json's, which the core reads too
        outcome = run_config(config, memory_limit=limit, progress=progress.callback, text=text)
        progress.phase("summarising")
        summary = summarize(outcome)
        progress.phase(f"writing the results to {out}/")
        store.write_run(out, raw, text, summary, tables.run_tables(summary, outcome.results))
    if args.json:
        from ..results.rows import json_default

        print(json.dumps(summary, default=json_default))
        if common.verbosity >= 0:
            print(f"results written to {out}/", file=sys.stderr)
    else:
        from .report import print_run

        print_run(spec.experiment.name, summary, out)
    for path in captures:
        note(f"capture: {path}")
    return 0


def _pcap_sets(links: str | None) -> list[str]:
    """Returns ``--pcap A,B`` as the override ``pcap.links=["A", "B"]``."""
    if links is None:
        return []
    names = [name.strip() for name in links.split(",")]
    if not all(names):
        raise SpecError("--pcap", links, "link names separated by commas, e.g. --pcap bottleneck or --pcap bottleneck,r2->d0")
    return [f"pcap.links={json.dumps(names)}"]


def cmd_plot(args: argparse.Namespace) -> int:
    """Plots a sweep's figure (``sweep`` or ``series``, as its ``[plot]`` says) or a run's time
    series (``--kind cwnd|queue``)."""
    from ..plot.sweep import check_figure_path

    if args.out is not None:
        check_figure_path(args.out)
    if not (args.results_dir / "spec.json").exists():
        raise SpecError("RESULTS_DIR", str(args.results_dir), "a directory written by `qdsim run`, `sweep` or `reproduce`")
    kind = args.kind or _plot_kind(args.results_dir)
    if args.facet is not None and kind != "sweep":
        raise SpecError("--facet", args.facet, "only with --kind sweep (metrics against a swept key)")
    if kind == "cwnd":
        from ..plot.series import plot_cwnd

        try:
            flows = [int(f) for f in args.flows.split(",")] if args.flows else None
        except ValueError:
            raise SpecError("--flows", args.flows, "comma-separated flow ids, e.g. 0,3") from None
        print(plot_cwnd(args.results_dir, out=args.out, flows=flows, where=args.where))
        return 0
    if kind == "queue":
        from ..plot.series import plot_queue

        print(plot_queue(args.results_dir, out=args.out, links=args.links.split(",") if args.links else None, where=args.where))
        return 0
    if kind == "series":
        from ..plot.series import plot_series

        print(plot_series(args.results_dir, out=args.out, where=args.where))
        return 0
    from ..plot.sweep import plot_sweep

    y = args.y.split(",") if args.y and "," in args.y else args.y
    print(plot_sweep(args.results_dir, x=args.x, y=y, by=args.by, out=args.out, where=args.where, facet=args.facet))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    """Writes the HTML report of a results directory (``qdsim.report``) and says where."""
    from ..report import write_report

    out = write_report(args.results_dir, args.out)
    print(f"report written to {out} ({out.stat().st_size / 1e6:.1f} MB, opens offline)")
    return 0


def _plot_kind(results_dir: Path) -> str:
    """Returns the ``[plot].kind`` of a sweep's results directory (``sweep`` if it has none)."""
    from ..experiment.spec import validate
    from ..results import store

    try:
        return validate(store.read_spec(results_dir)).plot.kind
    except (OSError, SpecError):
        return "sweep"


def cmd_results(args: argparse.Namespace) -> int:
    """Lists, shows, queries or prunes results directories."""
    from ..results.status import find, prune, status
    from .report import print_results, print_status

    if args.action == "list":
        for root in args.dirs:
            if not root.is_dir():
                raise SpecError("DIR", str(root), "a directory holding results directories")
        roots = args.dirs or [root for root in [Path("results")] if root.is_dir()]
        found = [status(path) for path in find(roots)]
        if args.json:
            print(json.dumps({"results": [s.as_json() for s in found]}))
        else:
            print_results(found)
        return 0
    if args.action == "show":
        held = status(args.dir)
        if args.json:
            print(json.dumps(held.as_json()))
        else:
            print_status(held)
        return 0
    if args.action == "sql":
        return _sql(args)
    removed, kept = prune(args.dir, dry_run=args.dry_run)
    if args.json:
        print(json.dumps({"removed": removed, "kept": kept, "dry_run": args.dry_run}))
    else:
        print(f"{'would delete' if args.dry_run else 'deleted'} {removed} stale runs; {kept} kept in {args.dir}/")
    return 0


def _sql(args: argparse.Namespace) -> int:
    """Runs ``args.query`` over the tables of ``args.dir``; prints a table, CSV or JSON."""
    import csv

    from ..extras import require
    from ..results import store
    from ..results.status import status

    duckdb = require("duckdb", "qdsim results sql")

    status(args.dir)  # a results directory, or a one-line error
    try:
        relation = store.connect(args.dir).sql(args.query)
        if relation is None:
            raise SpecError("QUERY", args.query, "a query that returns rows (select ...)")
        columns, rows = relation.columns, relation.fetchall()
    except duckdb.Error as exc:
        views = ", ".join(p.stem for p in sorted(args.dir.glob("*.parquet")))
        raise SpecError("QUERY", args.query, f"SQL over the tables {views} ({str(exc).splitlines()[0]})") from None
    if args.json:
        print(json.dumps({"columns": columns, "rows": [list(r) for r in rows]}, default=str))
    elif args.csv:
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        from .report import print_rows

        print_rows(columns, rows)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Prints the simulator's catalog, or one entry of it."""
    from ..experiment.traffic import catalog
    from .report import catalog_names, print_catalog

    full = catalog()
    if args.name is not None and args.name not in catalog_names(full):
        raise SpecError("NAME", args.name, f"a name `qdsim list` shows ({', '.join(catalog_names(full))})")
    if args.json:
        if args.name is None:
            print(json.dumps(full))
        elif args.name == "tcp-profiles":
            print(json.dumps({"tcp": full["tcp"], "tcp_profiles": full["tcp_profiles"]}))
        else:
            print(json.dumps(next(item for section in ("qdiscs", "cc", "traffic") for item in full[section] if item["name"] == args.name)))
        return 0
    print_catalog(full, args.name)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Prints two results directories side by side, metric by metric (or one JSON object)."""
    from ..results.compare import compare
    from .report import print_comparison

    metrics = [m.strip() for m in args.metrics.split(",") if m.strip()] if args.metrics else None
    comparison = compare(args.a, args.b, metrics=metrics)
    if args.json:
        print(json.dumps(comparison.as_json()))
    else:
        print_comparison(comparison, every=args.all)
    return 0


class Terminated(KeyboardInterrupt):
    """SIGTERM, what a batch scheduler sends at a job's time limit: handled as Ctrl-C is,
    so that a sweep stores every run finished before it (and exits 143, not 130)."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """Makes SIGTERM raise :class:`Terminated` while a command runs (in the main thread only:
    signal handlers belong to it), and puts the previous handler back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def command() -> NoReturn:
    """The ``qdsim`` script and ``python -m qdsim``: runs :func:`main` on ``sys.argv`` and ends
    the process with its status, without the interpreter's teardown
    (:func:`qdsim.run.process.exit_without_teardown`). The process is the command's own
    (:func:`qdsim.run.process.owned`)."""
    with process.owned():
        code = main()
    process.exit_without_teardown(code)


def main(argv: list[str] | None = None) -> int:
    """Runs the ``qdsim`` command with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    args = build_parser().parse_args(argv)
    common.verbosity = -1 if args.quiet else 1 if args.verbose else 0
    _set_output(common.verbosity)
    try:
        with process.tuned(), _sigterm_as_interrupt():
            code = args.func(args)
        sys.stdout.flush()  # here, where a reader that left is seen (below), not at exit
        return code
    except (SpecError, BudgetError) as exc:
        _traceback()
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except MissingExtraError as exc:  # an optional part not installed: its message says how
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt as exc:
        kept = " (the finished runs are kept: rerun the command to resume)" if args.command in ("sweep", "reproduce") else ""
        terminated = isinstance(exc, Terminated)
        print(f"error: {'terminated' if terminated else 'interrupted'}{kept}", file=sys.stderr)
        return 143 if terminated else 130
    except BrokenPipeError:
        # The reader left (`qdsim reproduce --list | head`): stop quietly, as Unix tools do, and
        # keep Python from complaining while it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as exc:  # a file the command was told to read or write
        _traceback()
        where = f"{exc.filename}: " if exc.filename else ""
        print(f"error: {where}{exc.strerror or exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except RuntimeError as exc:  # _core.SimulationError: a bug in the core, not the user's
        _traceback()
        print(f"error: simulation failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 1


def _traceback() -> None:
    """Prints the traceback of the error being handled on stderr, with ``-v``."""
    if common.verbosity > 0:
        import traceback

        traceback.print_exc()


def _set_output(verbosity: int) -> None:
    """Applies ``-q``/``-v`` to progress, and lets figures be drawn without a display.

    Figures are made without pyplot (:mod:`qdsim.plot`), but a figure module beside an
    experiment file may use it: the command line only saves files, so it asks for Agg
    unless the user chose a backend (``MPLBACKEND``). Importing qdsim itself never does.
    """
    from . import progress

    progress.QUIET = verbosity < 0
    if verbosity > 0 and progress.INTERVAL_ENV not in os.environ:
        os.environ[progress.INTERVAL_ENV] = "1"
    os.environ.setdefault("MPLBACKEND", "Agg")
