"""The ``qdsim`` command line: ``run``, ``sweep``, ``plot``, ``reproduce`` and ``list``.

Every user error (a bad experiment file, override or option) prints one line,
``error: <key>: <value> is not allowed; <allowed>``, on stderr and exits with status 2.
Progress bars go to stderr, tables and results to stdout; ``--json`` prints exactly one JSON
object on stdout for programs. Commands import what they need when they run, so that
``qdsim --help`` and ``qdsim list`` start fast.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
from collections.abc import Callable, Iterator
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
        choices=("sweep", "series", "cwnd", "queue"),
        default=None,
        help="sweep: metric vs swept key; series: [plot] panels of sampled series vs time; cwnd: congestion window vs time per flow; "
        "queue: queue length vs time per link (default: [plot].kind of a sweep, else sweep)",
    )
    plot.add_argument("--flows", default=None, help="cwnd: comma-separated flow ids (default: all)")
    plot.add_argument("--links", default=None, help="queue: comma-separated link names (default: links that queued)")
    plot.set_defaults(func=cmd_plot)

    rep = sub.add_parser("reproduce", help="reproduce paper figures: run each sweep (resumable) and draw it, PNG + JSON of the numbers")
    rep.add_argument("targets", nargs="*", metavar="FILE|PAPER", help="experiment files, or papers (directories of the experiments directory)")
    rep.add_argument("--all", action="store_true", help="every paper's figures")
    rep.add_argument("--list", action="store_true", help="list the figures: paper, figure, file, runs, CPU time estimated from stored runs")
    rep.add_argument("--quick", action="store_true", help="the shortened run each file's [quick] declares (what the figure tests check)")
    rep.add_argument("--docs", action="store_true", help="also copy each figure and its JSON to docs/reproductions/<paper>/, the committed copies")
    rep.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE", help="override a dotted key in every file (repeatable)")
    rep.add_argument("--seed", type=int, default=None, help="base seed of the repetitions (default: experiment.seed)")
    rep.add_argument("--repetitions", type=int, default=None, metavar="N", help="override the repetitions (e.g. fewer for a quick look)")
    rep.add_argument("--jobs", type=int, default=None, metavar="N", help="worker processes (default: all cores)")
    rep.add_argument("--out", type=Path, default=None, metavar="DIR", help="results directory of a single figure (default: results/<name>/, with --quick results/<name>-quick/)")
    rep.add_argument("--figure", type=Path, default=None, metavar="FILE", help="output .png or .pdf of a single figure (default: RESULTS_DIR/<file stem>.png)")
    rep.add_argument("--experiments", type=Path, default=Path("experiments"), metavar="DIR", help="where the papers' directories are (default: experiments)")
    rep.add_argument("--json", action="store_true", help="print one JSON object on stdout instead of lines")
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


@contextlib.contextmanager
def _progress(label: str, quiet: bool) -> Iterator[Callable[[int, int], None]]:
    """Shows a progress bar on stderr (none when ``quiet`` or when stderr is not a terminal,
    so logs and pipes stay clean); yields its ``on_progress(done, total)``."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    columns = [TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn()]
    with Progress(*columns, transient=quiet, disable=quiet or not console.is_terminal, console=console) as progress:
        task = progress.add_task(label, total=None)
        yield lambda done, total: progress.update(task, completed=done, total=total)


def cmd_sweep(args: argparse.Namespace) -> int:
    """Runs a sweep with a progress bar; resumes from points already in the results directory."""
    from .spec import load
    from .sweep import run_sweep

    _check_seed(args.seed)
    if args.jobs is not None and args.jobs < 1:
        raise SpecError("--jobs", args.jobs, "at least 1 worker process")
    raw, spec = load(args.spec, args.sets)
    out = _out_dir(args, spec.experiment.name)
    with _progress("sweep", quiet=args.json) as on_progress:
        report = run_sweep(raw, out, jobs=args.jobs, seed=args.seed, on_progress=on_progress, source=Path(args.spec))
    summary: dict[str, Any] = {"ran": report.ran, "reused": report.reused, "missing": report.missing, "out": str(out)}
    if args.json:
        print(json.dumps(summary))
    else:
        print(f"{report.ran} points run, {report.reused} reused from an earlier run; results in {out}/")
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    """Plots a sweep's figure (``sweep`` or ``series``, as its ``[plot]`` says) or a run's time
    series (``--kind cwnd|queue``)."""
    kind = args.kind or _plot_kind(args.results_dir)
    if kind == "cwnd":
        from .plot_series import plot_cwnd

        try:
            flows = [int(f) for f in args.flows.split(",")] if args.flows else None
        except ValueError:
            raise SpecError("--flows", args.flows, "comma-separated flow ids, e.g. 0,3") from None
        print(plot_cwnd(args.results_dir, out=args.out, flows=flows))
        return 0
    if kind == "queue":
        from .plot_series import plot_queue

        print(plot_queue(args.results_dir, out=args.out, links=args.links.split(",") if args.links else None))
        return 0
    if kind == "series":
        from .plot_series import plot_series

        print(plot_series(args.results_dir, out=args.out))
        return 0
    from .plot import plot_sweep

    y = args.y.split(",") if args.y and "," in args.y else args.y
    print(plot_sweep(args.results_dir, x=args.x, y=y, by=args.by, out=args.out))
    return 0


def _plot_kind(results_dir: Path) -> str:
    """Returns the ``[plot].kind`` of a sweep's results directory (``sweep`` if it has none)."""
    from . import store
    from .spec import validate

    try:
        return validate(store.read_spec(results_dir)).plot.kind
    except (OSError, SpecError):
        return "sweep"


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Reproduces paper figures: for each, runs its sweep (resumable, like ``sweep``) and draws
    its ``[plot]``; or lists them (``--list``)."""
    from . import reproduce as rp

    _check_seed(args.seed)
    if args.jobs is not None and args.jobs < 1:
        raise SpecError("--jobs", args.jobs, "at least 1 worker process")
    figures = rp.find_figures(args.targets, every=args.all or (args.list and not args.targets), sets=args.sets, root=args.experiments)
    for option, value in (("--out", args.out), ("--figure", args.figure)):
        if value is not None and len(figures) > 1:
            raise SpecError(option, str(value), f"one figure only ({len(figures)} named)")
    if args.docs:
        changed = [name for name, value in (("--quick", args.quick), ("--set", args.sets), ("--seed", args.seed), ("--repetitions", args.repetitions)) if value]
        if changed:
            raise SpecError("--docs", changed[0], "figures made from the files as they are (the committed copies): no --quick, --set, --seed or --repetitions")
        for figure in figures:
            rp.check_publishable(figure, args.experiments)
    todo = []
    for figure in figures:
        raw = rp.quick_raw(figure.raw, str(figure.path)) if args.quick else figure.raw
        if args.repetitions is not None:
            raw = rp.with_repetitions(raw, args.repetitions)
        rp.check_drawable(figure, raw)
        todo.append((figure, raw, args.out if args.out is not None else figure.results_dir(args.quick)))
    if args.list:
        return _print_figures(todo, args.experiments, args.json)
    done = []
    for figure, raw, out in todo:
        with _progress(f"{figure.paper or ''} {figure.stem}".strip(), quiet=args.json) as on_progress:
            result = rp.reproduce(figure, raw, out, jobs=args.jobs, seed=args.seed, png=args.figure, docs=args.docs, root=args.experiments, on_progress=on_progress)
        done.append(result)
        if not args.json:
            reused = f" ({result.sweep.reused} stored before)" if result.sweep.reused else ""
            print(f"{figure.paper or '-'} {figure.label}: {result.sweep.ran + result.sweep.reused} runs{reused} -> {result.png}", flush=True)
            if result.published:
                print(f"  copied with its .json to {result.published}/", flush=True)
    if args.json:
        rows = [
            {
                "file": str(r.figure.path),
                "paper": r.figure.paper,
                "figure": r.figure.label,
                "out": str(r.sweep.out_dir),
                "png": str(r.png),
                "json": str(r.data),
                "ran": r.sweep.ran,
                "reused": r.sweep.reused,
                "docs": str(r.published) if r.published else None,
            }
            for r in done
        ]
        print(json.dumps({"figures": rows}))
    return 0


def _print_figures(todo: list[tuple[Any, dict[str, Any], Path]], root: Path, as_json: bool) -> int:
    """Prints one row per figure: paper, figure, file, runs and estimated CPU time."""
    from .reproduce import estimate_cpu_s
    from .sweep import runs

    rows = [(figure, runs(raw), estimate_cpu_s(raw, out)) for figure, raw, out in todo]
    if as_json:
        print(json.dumps({"figures": [{"paper": f.paper, "figure": f.label, "file": f.shown(root), "runs": n, "cpu_s": cpu} for f, n, cpu in rows]}))
        return 0
    table = [("paper", "figure", "file", "runs", "est. CPU")]
    table += [(f.paper or "-", _clip(f.label, 14), f.shown(root), str(n), _duration(cpu)) for f, n, cpu in rows]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        print("  ".join(cell.rjust(w) if i >= 3 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    known = [cpu for _, _, cpu in rows if cpu is not None]
    total = f"{_duration(sum(known))} CPU for the {len(known)} with stored runs" if known else "CPU time unknown (no stored runs)"
    print(f"{len(rows)} figures, {sum(n for _, n, _ in rows)} runs; {total}")
    return 0


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _duration(seconds: float | None) -> str:
    """Returns a duration for people: ``<1 s``, ``45 s``, ``12 min``, ``3.4 h``; ``unknown`` for None."""
    if seconds is None:
        return "unknown"
    if seconds < 1:
        return "<1 s"
    if seconds < 100:
        return f"{seconds:.0f} s"
    if seconds < 6000:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def cmd_list(args: argparse.Namespace) -> int:
    """Prints the simulator's catalog."""
    from .workloads import catalog

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
    except BrokenPipeError:
        # The reader left (`qdsim reproduce --list | head`): stop quietly, as Unix tools do, and
        # keep Python from complaining while it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except RuntimeError as exc:  # _core.SimulationError: a bug in the core, not the user's
        print(f"error: simulation failed: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}", file=sys.stderr)
        return 1
