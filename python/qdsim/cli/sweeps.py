"""The commands that make many runs: ``sweep``, ``reproduce`` and ``validate``, with the
executor they run on (local worker processes or a Dask cluster) and their progress."""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import SpecError
from .common import check_seed, clip, memory_limit, note, options_dir

__all__ = ["cmd_reproduce", "cmd_sweep", "cmd_validate"]


def _engine_names(text: str) -> list[str]:
    from ..engines import ENGINES

    if text == "all":
        return list(ENGINES)
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in ENGINES:
            raise SpecError("--engine", text, f"one of {', '.join(ENGINES)}, a comma-separated list of them, or all")
    return names


def cmd_validate(args: argparse.Namespace) -> int:
    """Runs an experiment in qdsim and in the reference engines and prints the comparison."""
    from ..experiment.spec import load
    from .progress import Progress

    if args.jobs is not None and args.jobs < 1:
        raise SpecError("--jobs", args.jobs, "at least 1 run at once")
    names = _engine_names(args.engine)
    if args.suite:
        from ..validation.page import run_suite

        if args.spec is not None:
            raise SpecError("SPEC", args.spec, "no experiment file with --suite (the suite names its own)")
        report = run_suite(names, jobs=args.jobs, quick=args.quick, note=note)
        print(json.dumps(report) if args.json else f"validation suite: {report['agree']} of {report['judged']} comparisons agree; written to {report['page']}")
        return 0
    if args.quick:
        raise SpecError("--quick", True, "only with --suite")
    if args.spec is None:
        raise SpecError("SPEC", SpecError.MISSING, "an experiment file, or --suite")
    from ..validation.validate import print_validation, validate

    check_seed(args.seed)
    raw, spec = load(args.spec, args.sets)
    out = options_dir(args.out, spec.experiment.name, "validate", args.sets, args.seed)
    with Progress(f"validate {spec.experiment.name}", unit="runs") as progress:

        def on_progress(label: str, done: int, total: int) -> None:
            title = f"validate {spec.experiment.name}: {label}"
            if progress.label != title:
                progress.restart(title, "runs")
            progress.update(done, total)

        result = validate(raw, out, names, seeds=args.seeds, jobs=args.jobs, seed=args.seed, source=Path(args.spec), on_progress=on_progress, note=note)
    if args.json:
        print(json.dumps(result.as_json()))
    else:
        print_validation(result)
    return 0


@contextlib.contextmanager
def _executor(address: str | None, jobs: int | None) -> Iterator[Any]:
    """Yields the executor of ``--scheduler ADDRESS`` (a Dask cluster's), or None (local)."""
    if jobs is not None and jobs < 1:
        raise SpecError("--jobs", jobs, "at least 1 worker process")
    if address is None:
        yield None
        return
    if jobs is not None:
        raise SpecError("--jobs", jobs, "no --jobs with --scheduler: the cluster's workers run the points")
    try:
        from distributed import Client
    except ImportError:
        raise SpecError("--scheduler", address, "an address to use once Dask is installed (pip install 'qdsim[dask]')") from None
    failure = None
    try:
        client = Client(address, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        failure = str(exc).splitlines()[0]
    if failure is not None:
        # The half-built Client is left in a reference cycle with its event-loop runner; were
        # the collector to reach it later, its __del__ would stop that runner from whatever
        # thread the collection happens in — inside a new Client's loop thread, a deadlock
        # (distributed's loop then fails to start). Collected here, in this thread.
        gc.collect()
        raise SpecError("--scheduler", address, f"the address of a running Dask scheduler, e.g. tcp://HOST:8786 ({failure})")
    try:
        yield client.get_executor(pure=False)
    finally:
        client.close()


@contextlib.contextmanager
def _sweep_progress(label: str) -> Iterator[tuple[Any, Any]]:
    """Yields ``(on_plan, on_progress)`` showing a sweep's planning and runs on stderr."""
    from .progress import Progress

    with Progress(f"{label}: planning", unit="grid points") as progress:

        def on_progress(done: int, total: int) -> None:
            if progress.unit != "runs":
                progress.restart(label, "runs")
            progress.update(done, total)

        yield progress.update, on_progress


def _note_legacy(out: Path) -> None:
    from ..results import store

    legacy = store.legacy_points(out)
    if legacy:
        note(f"{out}/points/ holds {legacy} runs stored as JSON by an older qdsim: they are not reused (`qdsim results prune {out}` deletes them)")


def cmd_sweep(args: argparse.Namespace) -> int:
    """Runs a sweep with progress on stderr; resumes from the runs already in the results directory."""
    from ..experiment.spec import load, refuse_overridden_sets
    from ..run.sweep import run_sweep

    check_seed(args.seed)
    limit = memory_limit(args.memory_limit)
    raw, spec = load(args.spec, args.sets)
    refuse_overridden_sets(raw, args.sets)
    out = args.out if args.out is not None else Path("results") / spec.experiment.name
    _note_legacy(out)
    with _executor(args.scheduler, args.jobs) as executor, _sweep_progress(f"sweep {spec.experiment.name}") as (on_plan, on_progress):
        report = run_sweep(raw, out, jobs=args.jobs, seed=args.seed, on_progress=on_progress, on_plan=on_plan, source=Path(args.spec), executor=executor, memory_limit=limit, force=args.force)
    summary: dict[str, Any] = {"ran": report.ran, "reused": report.reused, "missing": report.missing, "resubmitted": report.resubmitted, "out": str(out)}
    if args.json:
        print(json.dumps(summary))
    else:
        again = f" ({report.resubmitted} run again after a worker was lost)" if report.resubmitted else ""
        print(f"{report.ran} runs made{again}, {report.reused} reused from an earlier sweep; results in {out}/")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    """Reproduces paper figures: for each, runs its sweep (resumable, like ``sweep``) and draws
    its ``[plot]``; or lists them (``--list``)."""
    from ..experiment.spec import refuse_overridden_sets
    from ..papers import reproduce as rp
    from ..plot.sweep import check_figure_path

    check_seed(args.seed)
    limit = memory_limit(args.memory_limit)
    if args.figure is not None:
        check_figure_path(args.figure, "--figure")
    figures = rp.find_figures(args.targets, every=args.all or (args.list and not args.targets), sets=args.sets, root=args.experiments)
    for option, value in (("--out", args.out), ("--figure", args.figure)):
        if value is not None and len(figures) > 1:
            raise SpecError(option, str(value), f"one figure only ({len(figures)} named)")
    if args.engine is not None:
        from ..engines import get

        get(args.engine)  # a name that is no engine fails before anything runs
        if args.scheduler is not None:
            raise SpecError("--scheduler", args.scheduler, "no scheduler with --engine (the engine's runs are local processes, --jobs at a time)")
    if args.docs:
        changed = [name for name, value in (("--quick", args.quick), ("--set", args.sets), ("--seed", args.seed), ("--repetitions", args.repetitions), ("--engine", args.engine)) if value]
        if changed:
            raise SpecError("--docs", changed[0], "figures made from the files as they are, by qdsim (the committed copies): no --quick, --set, --seed, --repetitions or --engine")
        for figure in figures:
            rp.check_publishable(figure, args.experiments)
    todo = []
    for figure in figures:
        if args.quick:
            refuse_overridden_sets(figure.raw, args.sets, quick=True)
        raw = rp.quick_raw(figure.raw, str(figure.path)) if args.quick else figure.raw
        if args.repetitions is not None:
            raw = rp.with_repetitions(raw, args.repetitions)
        rp.check_drawable(figure, raw, args.engine)
        todo.append((figure, raw, args.out if args.out is not None else figure.results_dir(args.quick, args.engine)))
    if args.list:
        return _print_figures(todo, args.experiments, args.json)
    done = []
    with _executor(args.scheduler, args.jobs) as executor:
        for figure, raw, out in todo:
            _note_legacy(out)
            with _sweep_progress(f"{figure.paper or ''} {figure.stem}".strip()) as (on_plan, on_progress):
                options = {"jobs": args.jobs, "seed": args.seed, "executor": executor, "memory_limit": limit, "force": args.force, "on_plan": on_plan, "on_progress": on_progress}
                result = rp.reproduce(figure, raw, out, png=args.figure, docs=args.docs, root=args.experiments, engine=args.engine, **options)
            done.append(result)
            _print_reproduced(result, args.json)
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
                "refused": r.sweep.refused,
                "docs": str(r.published) if r.published else None,
            }
            for r in done
        ]
        print(json.dumps({"figures": rows}))
    return 0


def _print_reproduced(result: Any, as_json: bool) -> None:
    """Prints the line of one reproduced figure (none with ``--json``: one object at the end)."""
    if as_json:
        return
    figure = result.figure
    reused = f" ({result.sweep.reused} stored before)" if result.sweep.reused else ""
    refused = f", {result.sweep.refused} the engine cannot run (left out: refused.json)" if result.sweep.refused else ""
    print(f"{figure.paper or '-'} {figure.label}: {result.sweep.ran + result.sweep.reused} runs{reused}{refused} -> {result.png}", flush=True)
    if result.published:
        print(f"  copied with its .json to {result.published}/", flush=True)


def _print_figures(todo: list[tuple[Any, dict[str, Any], Path]], root: Path, as_json: bool) -> int:
    """Prints one row per figure: paper, figure, file, runs and estimated CPU time."""
    from ..papers.reproduce import estimate_cpu_s
    from ..run.sweep import runs
    from .progress import duration

    rows = [(figure, runs(raw), estimate_cpu_s(raw, out)) for figure, raw, out in todo]
    if as_json:
        print(json.dumps({"figures": [{"paper": f.paper, "figure": f.label, "file": f.shown(root), "runs": n, "cpu_s": cpu} for f, n, cpu in rows]}))
        return 0

    # Within 80 columns: a paper's file is named within its directory (the paper column).
    def file_of(f: Any) -> str:
        shown = f.shown(root)
        return f.path.name if f.paper and f.path.parent.name == f.paper else shown

    table = [("paper", "figure", "file", "runs", "est. CPU")]
    table += [(f.paper or "-", clip(f.label, 14), file_of(f), str(n), duration(cpu)) for f, n, cpu in rows]
    widths = [max(len(row[i]) for row in table) for i in range(5)]
    for row in table:
        print("  ".join(cell.rjust(w) if i >= 3 else cell.ljust(w) for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip())
    known = [cpu for _, _, cpu in rows if cpu is not None]
    total = f"{duration(sum(known))} CPU for the {len(known)} with stored runs" if known else "CPU time unknown (no stored runs)"
    print(f"{len(rows)} figures, {sum(n for _, n, _ in rows)} runs; {total}")
    if any(f.paper and f.path.parent.name == f.paper for f, _, _ in rows):
        print(f"(files under {Path(rows[0][0].shown(root)).parent.parent}/<paper>/)")
    return 0
