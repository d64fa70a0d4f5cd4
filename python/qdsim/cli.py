"""The ``qdsim`` command line: ``run``, ``sweep``, ``plot``, ``reproduce`` and ``list``.

Every user error (a bad experiment file, override or option) prints one line,
``error: <key>: <value> is not allowed; <allowed>``, on stderr and exits with status 2.
Progress and tables go to stderr/stdout for people; ``--json`` prints exactly one JSON
object on stdout for programs.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, NoReturn

from .errors import SpecError

__all__ = ["build_parser", "main"]

EXIT_USER_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit with status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_USER_ERROR)


def _add_spec_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC", help="experiment file (TOML)")
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key, e.g. topology.qdisc.limit=20pkt (repeatable)")
    p.add_argument("--seed", type=int, default=None, help="run seed (default: experiment.seed)")
    p.add_argument("--out", type=Path, default=None, metavar="DIR", help="results directory (default: results/<name>/)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of tables")


def build_parser() -> argparse.ArgumentParser:
    """Returns the argument parser of the ``qdsim`` command."""
    parser = _Parser(prog="qdsim", description="Packet-level simulation of queue disciplines and TCP.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    run = sub.add_parser("run", help="run one experiment and print its summary")
    _add_spec_options(run)
    run.set_defaults(func=cmd_run)

    sweep = sub.add_parser("sweep", help="run the [sweep] grid × repetitions on all cores")
    _add_spec_options(sweep)
    sweep.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    sweep.set_defaults(func=cmd_sweep)

    plot = sub.add_parser("plot", help="plot a metric against a swept key, with 95%% CIs")
    plot.add_argument("results_dir", metavar="RESULTS_DIR", type=Path)
    plot.add_argument("--x", default=None, help="swept key (default: [plot].x or the only swept key)")
    plot.add_argument("--y", default=None, help="metric column (default: [plot].y, goodput_bps)")
    plot.add_argument("--by", default=None, help="column giving one line each (default: group for group metrics)")
    plot.add_argument("--out", type=Path, default=None, metavar="FILE", help="output .png or .pdf")
    plot.add_argument(
        "--kind",
        choices=("sweep", "cwnd", "queue"),
        default="sweep",
        help="sweep: metric vs swept key; cwnd: congestion window vs time per flow; queue: queue length vs time per link",
    )
    plot.add_argument("--flows", default=None, help="cwnd: comma-separated flow ids (default: all)")
    plot.add_argument("--links", default=None, help="queue: comma-separated link names (default: links that queued)")
    plot.set_defaults(func=cmd_plot)

    rep = sub.add_parser("reproduce", help="sweep a paper figure's experiment file, then draw its [plot]")
    _add_spec_options(rep)
    rep.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    rep.add_argument("--repetitions", type=int, default=None, metavar="N", help="override sweep.repetitions (e.g. fewer for a quick look)")
    rep.add_argument("--figure", type=Path, default=None, metavar="FILE", help="output .png or .pdf (default: RESULTS_DIR/<file stem>.png)")
    rep.set_defaults(func=cmd_reproduce)

    lst = sub.add_parser("list", help="list qdiscs, congestion controls and traffic kinds")
    lst.add_argument("--json", action="store_true", help="print the catalog as JSON")
    lst.set_defaults(func=cmd_list)
    return parser


def _out_dir(args: argparse.Namespace, name: str) -> Path:
    return args.out if args.out is not None else Path("results") / name


def _check_seed(seed: int | None) -> None:
    if seed is not None and not 0 <= seed < 2**64:
        raise SpecError("--seed", seed, "a whole number from 0 to 2^64-1")


def cmd_run(args: argparse.Namespace) -> int:
    """Runs one experiment: tables (or JSON) on stdout, Parquet and JSON in the results directory."""
    from . import store
    from .resolve import resolve
    from .run import run_config, summarize
    from .spec import load

    _check_seed(args.seed)
    raw, spec = load(args.spec, args.sets)
    config = resolve(spec, seed=args.seed)
    if spec.sweep is not None and (spec.sweep.grid or spec.sweep.repetitions > 1):
        points = math.prod(len(v) if isinstance(v, list) else 1 for v in spec.sweep.grid.values())
        print(
            f"note: running the file's own values once; its [sweep] ({points} point(s) x {spec.sweep.repetitions} repetition(s)) runs with `qdsim sweep`",
            file=sys.stderr,
        )
    outcome = run_config(config)
    summary = summarize(outcome)
    out = _out_dir(args, spec.experiment.name)
    store.write_json(out / "spec.json", raw)
    store.write_json(out / "config.json", config)
    store.write_json(out / "summary.json", summary)
    store.write_tables(out, store.run_rows(summary, {}))
    store.write_columns(out, store.series_rows(outcome.results, {}))
    if args.json:
        print(json.dumps(summary))
    else:
        from .report import print_run

        print_run(spec.experiment.name, summary, out)
    return 0


def cmd_sweep(args: argparse.Namespace) -> int:
    """Runs a sweep with a progress bar; resumes from points already in the results directory."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from .spec import load
    from .sweep import run_sweep

    _check_seed(args.seed)
    if args.jobs is not None and args.jobs < 1:
        raise SpecError("--jobs", args.jobs, "at least 1 worker process")
    raw, spec = load(args.spec, args.sets)
    out = _out_dir(args, spec.experiment.name)
    columns = [TextColumn("sweep"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    with Progress(*columns, transient=args.json, disable=args.json) as progress:
        task = progress.add_task("sweep", total=None)

        def on_progress(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        report = run_sweep(raw, out, jobs=args.jobs, seed=args.seed, on_progress=on_progress)
    summary: dict[str, Any] = {"ran": report.ran, "reused": report.reused, "missing": report.missing, "out": str(out)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{report.ran} points run, {report.reused} reused from an earlier run; results in {out}/")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """Plots a sweep's metric against a swept key, or a run's time series (``--kind``)."""
    from .plot import plot_sweep

    if args.kind == "cwnd":
        from .plot_series import plot_cwnd

        try:
            flows = [int(f) for f in args.flows.split(",")] if args.flows else None
        except ValueError:
            raise SpecError("--flows", args.flows, "comma-separated flow ids, e.g. 0,3") from None
        print(plot_cwnd(args.results_dir, out=args.out, flows=flows))
        return 0
    if args.kind == "queue":
        from .plot_series import plot_queue

        print(plot_queue(args.results_dir, out=args.out, links=args.links.split(",") if args.links else None))
        return 0

    y = args.y.split(",") if args.y and "," in args.y else args.y
    path = plot_sweep(args.results_dir, x=args.x, y=y, by=args.by, out=args.out)
    print(path)
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Runs a figure's sweep (resumable, like ``sweep``) and draws its ``[plot]``."""
    from .plot import plot_sweep

    if args.repetitions is not None:
        if args.repetitions < 1:
            raise SpecError("--repetitions", args.repetitions, "at least 1 repetition")
        args.sets = [*args.sets, f"sweep.repetitions={args.repetitions}"]
    import contextlib
    import io

    from .spec import load

    # Refuse before running anything: without a swept key there is no x-axis to draw.
    _, spec = load(args.spec, args.sets)
    if not (spec.sweep and spec.sweep.grid) and not (spec.plot and spec.plot.x):
        raise SpecError("sweep", "(none)", "a [sweep] grid to draw against: `qdsim reproduce` plots a metric against a swept key (`qdsim run` runs one point)")
    as_json, args.json = args.json, True  # no progress bar; the sweep's JSON line is dropped
    with contextlib.redirect_stdout(io.StringIO()):
        cmd_sweep(args)
    out = _out_dir(args, spec.experiment.name)
    figure = args.figure if args.figure is not None else out / f"{Path(args.spec).stem}.png"
    path = plot_sweep(out, out=figure)
    if as_json:
        print(json.dumps({"out": str(out), "figure": str(path)}))
    else:
        print(path)
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    """Prints the simulator's catalog."""
    from .algorithms import catalog

    if args.json:
        print(json.dumps(catalog()))
        return 0
    from .report import print_catalog

    print_catalog(catalog())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Runs the ``qdsim`` command with ``argv`` (default: ``sys.argv[1:]``); returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except SpecError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        print("error: interrupted (finished sweep points are kept; rerun to resume)", file=sys.stderr)
        return 130
    except RuntimeError as exc:  # _core.SimulationError: a bug in the core, not the user's
        print(f"error: simulation failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 1
