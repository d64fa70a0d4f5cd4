"""Paper figures: one pipeline from an experiment file to a figure and the numbers it shows.

A paper figure is an experiment file with a ``[source]`` table in ``experiments/<paper>/``.
Reproducing it (:func:`reproduce`) runs its ``[sweep]`` through
:func:`qdsim.run.sweep.run_sweep` (resumable: stored points are not run again) into a
results directory and draws its ``[plot]`` from the stored tables (:func:`draw_figure`):
``kind = "sweep"`` (metrics against a swept key, :mod:`qdsim.plot.sweep`) or
``kind = "series"`` (sampled series against time, :mod:`qdsim.plot.series`). The figure is
``<stem>.png`` and the numbers drawn ``<stem>.json``, in the results directory and, when
published, in ``docs/reproductions/<paper>/`` (the committed copies).

``[quick]`` declares a figure's shortened run (:func:`quick_raw`): the one ``qdsim reproduce
--quick`` draws and the figure tests check.

The experiment files ship inside the package (``qdsim/experiments``: in a source checkout a
symlink to the repository's ``experiments/``, in the wheel a copy), so that ``qdsim reproduce
codel-dc`` works after ``pip install`` with no clone: :func:`experiments_root` falls back to
them when the working directory has no ``experiments/``.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import SpecError
from ..experiment.spec import Spec, apply_override, load_raw, parse_override, refuse_overridden_sets, validate
from ..packaged import EXPERIMENT_FILES
from ..plot.packets import plot_packets
from ..plot.series import plot_series
from ..plot.sweep import in_unit, plot_sweep, swept_axis
from ..results import store
from ..results.selection import default_x
from ..run.sweep import SweepReport, plan, run_sweep, runs

__all__ = [
    "Figure",
    "Reproduced",
    "check_drawable",
    "check_publishable",
    "draw_figure",
    "estimate_cpu_s",
    "experiments_root",
    "find_figures",
    "papers",
    "publish",
    "quick_raw",
    "reproduce",
    "sweep_figure",
    "with_repetitions",
]

#: Where paper figures live, relative to the repository root (one directory per paper).
EXPERIMENTS = Path("experiments")
#: The experiment files inside the package (the wheel's copy, or the checkout's symlink).
PACKAGED = EXPERIMENT_FILES
#: Where the committed copies of the figures live, per paper, relative to the repository root.
REPRODUCTIONS = Path("docs") / "reproductions"


@dataclass(frozen=True)
class Figure:
    """An experiment file to reproduce: its path, its paper (None outside a paper's
    directory) and its contents after ``--set`` overrides (``raw``, validated as ``spec``)."""

    path: Path
    paper: str | None
    raw: dict[str, Any]
    spec: Spec

    @property
    def stem(self) -> str:
        """Returns the file name without ``.toml`` (``fig5``), the figure's file names."""
        return self.path.stem

    @property
    def label(self) -> str:
        """Returns the figure's short name: ``[source].figure`` up to its first parenthesis."""
        if self.spec.source is None:
            return self.stem
        return self.spec.source.figure.split(" (")[0]

    def shown(self, root: Path = EXPERIMENTS) -> str:
        """Returns the file's path for people: from the experiments directory's parent on."""
        try:
            return str(self.path.resolve().relative_to(experiments_root(root).resolve().parent))
        except ValueError:
            return str(self.path)

    def results_dir(self, quick: bool = False, engine: str | None = None) -> Path:
        """Returns the default results directory: ``results/<name>/`` (``-quick``, then
        ``-<engine>`` appended)."""
        return Path("results") / (self.spec.experiment.name + ("-quick" if quick else "") + (f"-{engine}" if engine else ""))


@dataclass(frozen=True)
class Reproduced:
    """What reproducing one figure did: the sweep's report, the figure and its numbers."""

    figure: Figure
    sweep: SweepReport
    png: Path
    data: Path
    published: Path | None


def experiments_root(root: Path = EXPERIMENTS) -> Path:
    """Returns where the papers' directories are: ``root``, or, when ``root`` is the default
    ``experiments`` and the working directory has none, the experiment files inside the
    package (:data:`PACKAGED`)."""
    root = Path(root)
    if root == EXPERIMENTS and not root.is_dir() and PACKAGED.is_dir():
        return PACKAGED
    return root


def papers(root: Path = EXPERIMENTS) -> list[str]:
    """Returns the papers under ``root`` (see :func:`experiments_root`): directories holding an
    experiment file with ``[source]``."""
    root = experiments_root(root)
    if not root.is_dir():
        return []
    return sorted(d.name for d in root.iterdir() if d.is_dir() and _paper_files(d))


def _paper_files(directory: Path) -> list[Path]:
    """Returns a paper's figure files (those with ``[source]``), fig3 before fig11."""

    def order(path: Path) -> tuple[int, str]:
        digits = "".join(c for c in path.stem if c.isdigit())
        return (int(digits) if digits else 0, path.stem)

    return sorted((f for f in directory.glob("*.toml") if "source" in load_raw(f)), key=order)


def find_figures(targets: list[str], every: bool = False, sets: list[str] | tuple[str, ...] = (), root: Path = EXPERIMENTS) -> list[Figure]:
    """Returns the figures named by ``targets`` (experiment files or paper names), or of
    every paper with ``every``, each loaded with the ``sets`` overrides and validated.

    Raises SpecError naming a target that is neither a file nor a paper.
    """
    root = experiments_root(root)
    known = papers(root)
    paths: list[Path] = []
    for target in targets:
        if target.endswith(".toml") or Path(target).is_file():
            paths.append(Path(target))
        elif target in known:
            paths += _paper_files(root / target)
        elif Path(target).is_dir() and Path(target).resolve().parent == root.resolve() and Path(target).name in known:
            paths += _paper_files(Path(target))  # a paper given as its directory (shell completion)
        else:
            allowed = f"an experiment file or a paper ({', '.join(known)})" if known else f"an experiment file (no papers found in {root}/)"
            raise SpecError("FILE|PAPER", target, allowed)
    if every:
        paths += [path for paper in known for path in _paper_files(root / paper)]
    if not paths:
        raise SpecError("FILE|PAPER", SpecError.MISSING, f"an experiment file, a paper ({', '.join(known) or f'none found in {root}/'}) or --all")
    figures = []
    for path in dict.fromkeys(paths):
        raw = load_raw(path)
        for text in sets:
            raw = apply_override(raw, *parse_override(text))
        refuse_overridden_sets(raw, sets)
        spec = validate(raw)
        figures.append(Figure(path=path, paper=_paper_of(path, spec, root), raw=raw, spec=spec))
    return figures


def _paper_of(path: Path, spec: Spec, root: Path) -> str | None:
    """Returns the paper of a figure file: its directory's name when that is in ``root`` and
    the file has a ``[source]`` (others, like ``experiments/examples/``, belong to none)."""
    return path.parent.name if spec.source is not None and path.resolve().parent.parent == root.resolve() else None


def quick_raw(raw: dict[str, Any], where: str = "") -> dict[str, Any]:
    """Returns ``raw`` shortened as its ``[quick]`` table says (see the module doc).

    ``set`` entries are applied as ``--set`` overrides; ``sweep`` entries replace the values
    of those swept keys; ``repetitions`` or ``seeds`` replace the sweep's. Raises SpecError
    when the file has no ``[quick]`` or names a key it does not sweep.
    """
    quick = validate(raw).quick
    if quick is None:
        raise SpecError("quick", SpecError.MISSING, f"a [quick] table in {where or 'the experiment file'} (its shortened run; see docs/experiment-file.md)")
    out = raw
    for key, value in quick.set.items():
        out = apply_override(out, key, value)
    sweep = dict(out.get("sweep") or {})
    for key, values in quick.sweep.items():
        if key not in sweep or key in ("repetitions", "seeds"):
            swept = [k for k in sweep if k not in ("repetitions", "seeds")]
            raise SpecError(f'quick.sweep."{key}"', values, f"a key of [sweep] ({', '.join(swept) or 'none'}), with a subset of its values")
        sweep[key] = values
    if quick.seeds is not None:
        sweep.pop("repetitions", None)
        sweep["seeds"] = quick.seeds
    elif quick.repetitions is not None:
        sweep.pop("seeds", None)
        sweep["repetitions"] = quick.repetitions
    out = {**out, "sweep": sweep}
    validate(out)
    return out


def with_repetitions(raw: dict[str, Any], repetitions: int) -> dict[str, Any]:
    """Returns ``raw`` with ``repetitions`` repetitions (the first ones of listed seeds)."""
    if repetitions < 1:
        raise SpecError("--repetitions", repetitions, "at least 1 repetition")
    sweep = dict(raw.get("sweep") or {})
    seeds = sweep.get("seeds")
    if seeds is not None:
        if repetitions > len(seeds):
            raise SpecError("--repetitions", repetitions, f"at most {len(seeds)}: the file lists its seeds (sweep.seeds)")
        sweep["seeds"] = seeds[:repetitions]
        sweep.pop("repetitions", None)
    else:
        sweep["repetitions"] = repetitions
    return {**raw, "sweep": sweep}


def check_drawable(figure: Figure, raw: dict[str, Any], engine: str | None = None) -> None:
    """Raises SpecError when the figure cannot be drawn from its sweep (before anything runs);
    a reference ``engine`` records no sampled series or packets."""
    spec = validate(raw)
    grid = spec.sweep.grid if spec.sweep else {}
    plot = spec.plot
    if engine is not None and plot.kind in ("series", "packets"):
        raise SpecError("--engine", engine, f"no engine for {figure.path}: its [plot] kind {plot.kind!r} draws sampled results only qdsim records")
    if plot.kind in ("series", "packets"):
        if plot.by not in grid:
            raise SpecError("plot.by", plot.by, f"a swept key of {figure.path} ({', '.join(grid) or 'it sweeps none'})")
    elif not grid and not plot.x:
        raise SpecError("sweep", "(none)", "a [sweep] grid to draw against: `qdsim reproduce` plots a metric against a swept key (`qdsim run` runs one point)")
    else:
        _, axis = swept_axis(grid, plot.x or default_x(grid), "plot.x")
        if plot.x_unit:
            in_unit(axis, plot.x_unit)


def estimate_cpu_s(raw: dict[str, Any], results_dir: Path) -> float | None:
    """Returns the CPU seconds the sweep of ``raw`` takes, estimated from the mean wall time
    of the runs stored in ``results_dir``; None without stored runs."""
    walls = store.wall_times(results_dir)
    if not walls:
        return None
    return sum(walls) / len(walls) * runs(raw)


def draw_figure(results_dir: Path, out: Path | None = None, experiment_dir: Path | None = None) -> Path:
    """Draws the ``[plot]`` figure of a sweep's results (its kind decides how); returns the
    PNG written, with the numbers drawn beside it as JSON."""
    kind = validate(store.read_spec(results_dir)).plot.kind
    if kind == "series":
        return plot_series(results_dir, out=out)
    if kind == "packets":
        return plot_packets(results_dir, out=out)
    return plot_sweep(results_dir, out=out, experiment_dir=experiment_dir)


def check_publishable(figure: Figure, root: Path = EXPERIMENTS) -> None:
    """Raises SpecError (key ``--docs``) unless the figure belongs to a paper in ``root``, a
    checkout's experiments directory (the package's copy has no ``docs/`` beside it)."""
    if experiments_root(root) == PACKAGED:
        raise SpecError("--docs", str(figure.path), "a figure of a source checkout: run from the repository's root (the experiment files inside the package have no docs/ to publish to)")
    if figure.paper is None:
        raise SpecError("--docs", str(figure.path), f"a figure of a paper (a file with [source] in {root}/<paper>/)")


def publish(figure: Figure, png: Path, root: Path = EXPERIMENTS) -> Path:
    """Copies a figure's PNG and JSON to ``docs/reproductions/<paper>/`` beside ``root``;
    returns that directory. Raises SpecError for a file outside a paper's directory."""
    check_publishable(figure, root)
    target = Path(root).parent / REPRODUCTIONS / figure.paper
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(png, target / f"{figure.stem}.png")
    shutil.copyfile(png.with_suffix(".json"), target / f"{figure.stem}.json")
    return target


def sweep_figure(figure: Figure, raw: dict[str, Any], out_dir: Path, engine: str | None = None, **options: Any) -> SweepReport:
    """Runs the sweep of ``raw`` (``figure``'s file, possibly shortened) into ``out_dir``,
    recording the file so that its figure can find modules beside it. ``options`` are
    :func:`qdsim.run.sweep.run_sweep`'s (``jobs``, ``seed``, ``executor``, ``on_progress``,
    ...).

    With ``engine`` (``"ns2"``, ``"ns3"``) the grid runs in that reference engine instead
    (:mod:`qdsim.engines.sweep`: ``jobs`` threads, ``seed``, ``on_progress``), into tables of
    the same shape; the points it cannot run are left out and counted in ``refused``."""
    if engine is None:
        return run_sweep(raw, out_dir, source=figure.path, **options)
    from ..engines import get
    from ..engines.sweep import run_engine_sweep

    chosen = get(engine)
    missing = chosen.missing()
    if missing is not None:
        raise SpecError("--engine", engine, missing)
    points = plan(raw, seed=options.get("seed"), on_progress=options.get("on_plan"))
    done = run_engine_sweep(chosen, raw, points, Path(out_dir), jobs=options.get("jobs") or 1, source=figure.path, on_progress=options.get("on_progress"))
    return SweepReport(ran=done.ran, reused=done.reused, missing=done.missing + len(done.failed), out_dir=Path(out_dir), refused=len(done.refused))


def reproduce(figure: Figure, raw: dict[str, Any], out_dir: Path, png: Path | None = None, docs: bool = False, root: Path = EXPERIMENTS, engine: str | None = None, **options: Any) -> Reproduced:
    """Runs the sweep of ``raw`` (``figure``'s file, possibly shortened) into ``out_dir`` and
    draws its figure (default ``out_dir/<stem>.png``); with ``docs`` also publishes it.
    ``engine`` runs it in a reference engine (:func:`sweep_figure`); ``options`` are
    :func:`qdsim.run.sweep.run_sweep`'s."""
    report = sweep_figure(figure, raw, out_dir, engine=engine, **options)
    drawn = draw_figure(out_dir, out=png if png is not None else out_dir / f"{figure.stem}.png", experiment_dir=figure.path.parent)
    published = publish(figure, drawn, root) if docs else None
    return Reproduced(figure=figure, sweep=report, png=drawn, data=drawn.with_suffix(".json"), published=published)
