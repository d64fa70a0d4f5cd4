"""Time-series plots: of one run (cwnd per flow, queue per link) and of a sweep (``series``).

These read the ``series_tcp`` / ``series_queue`` tables written when ``[sampling]`` is on
(``tcp = true`` or ``tcp_on_change = true`` for the window, ``queues = true`` for queues).
:func:`plot_cwnd` and :func:`plot_queue` draw one run (``qdsim run``), as Augé & Roberts'
Fig. 3/5/6/7. :func:`plot_series` is the ``series`` figure kind of ``[plot]``: stacked panels
of one sampled column against time, one line per value of a swept key (the mean over the
repetitions at each sample time), such as flows in timeout and drops per interval around
an incast event (Ismail et al.'s Figs. 7 and 8). :func:`run_series` gives the same numbers
per run, for checks.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..errors import SpecError
from ..experiment.spec import PlotDefaults, SeriesPanel, validate
from ..results import store
from ..results.selection import Filter, averaged_over, line_axes, line_label_of, one_run, parse_where
from .labels import UNLIMITED_SSTHRESH
from .sweep import Styles, figure_data, json_key, legend, line_label, new_figure, save_figure, value_rank

__all__ = ["RunSeries", "draw_cwnd", "draw_queue", "draw_series", "plot_cwnd", "plot_queue", "plot_series", "run_series"]


def _table(results_dir: Path, name: str, how: str) -> dict[str, list]:
    if not store.has_table(results_dir, name):
        raise SpecError("RESULTS_DIR", str(results_dir), f"a results directory with {name}.parquet (run with {how})")
    return store.read_table(results_dir, name).to_pydict()


def _one_run(results_dir: Path, columns: dict[str, list], where: list[str] | tuple[str, ...]) -> dict[str, list]:
    """Returns the rows of one run: all of a run's results directory, or of a sweep's the
    run that ``where`` picks (SpecError naming the keys left to fix otherwise)."""
    if "point_key" not in columns:
        if where:
            raise SpecError("--where", " ".join(where), "nothing: these are one run's results (`qdsim run`), not a sweep's")
        return columns
    grid = store.read_sweep(results_dir)["grid"]
    keep = one_run(columns, parse_where(where, grid, columns), grid)
    return {name: [values[i] for i in keep] for name, values in columns.items()}


def _label_time_axis(ax: Axes, ylabel: str, legend_lines: int) -> None:
    """Labels a one-run figure's axes; a legend for at most 12 lines (more would hide the data)."""
    ax.set_xlabel("time (s)")
    ax.set_ylabel(ylabel)
    ax.grid(alpha=0.3)
    if 0 < legend_lines <= 12:
        legend(ax, legend_lines)


def _save(fig: Figure, out: Path) -> Path:
    """Saves a one-run figure (its numbers beside it, as every qdsim figure)."""
    return save_figure(fig, figure_data(fig), out)


def _select(available: list[int], wanted: list[int] | None, key: str) -> list[int]:
    if wanted is None:
        return available
    missing = [w for w in wanted if w not in available]
    if missing:
        raise SpecError(key, ",".join(map(str, missing)), f"ids present in the results ({', '.join(map(str, available[:20]))})")
    return wanted


def plot_cwnd(results_dir: str | Path, out: str | Path | None = None, flows: list[int] | None = None, where: list[str] | tuple[str, ...] = ()) -> Path:
    """Saves :func:`draw_cwnd` to ``out`` (default ``RESULTS_DIR/cwnd.png``); returns its path."""
    return _save(draw_cwnd(results_dir, flows=flows, where=where), Path(out) if out else Path(results_dir) / "cwnd.png")


def draw_cwnd(results_dir: str | Path, flows: list[int] | None = None, where: list[str] | tuple[str, ...] = (), ax: Axes | None = None) -> Figure:
    """Returns the figure of cwnd (and ssthresh, dashed, while finite) against time, one line
    per flow, of one run (of a sweep: the one ``where`` picks); ``ax``: draw into it.

    Each flow's line starts at the flow's start (``flows.start_s``): the sampler reports a
    flow from the run's start, before its connection exists, and a window drawn there would
    claim a state the flow never had.
    """
    results_dir = Path(results_dir)
    series = _one_run(results_dir, _table(results_dir, "series_tcp", "[sampling] tcp = true or tcp_on_change = true"), where)
    groups: dict[int, str] = {}
    starts: dict[int, float] = {}
    if store.has_table(results_dir, "flows"):
        ft = store.read_table(results_dir, "flows").to_pydict()
        run = set(series.get("point_key", [None]))
        for i, (flow, key) in enumerate(zip(ft["id"], ft.get("point_key", [None] * len(ft["id"])), strict=True)):
            if key in run:
                groups[flow], starts[flow] = ft["group"][i], ft["start_s"][i]
    chosen = _select(sorted(set(series["flow"])), flows, "--flows")
    fig, axes = new_figure(1, 1, (7, 4), ax=ax)
    ax = axes[0, 0]
    styles = Styles({})
    drawn = []
    for flow in chosen:
        start = starts.get(flow, float("-inf"))
        rows = [i for i, f in enumerate(series["flow"]) if f == flow and series["t"][i] >= start]
        t = [series["t"][i] for i in rows]
        cwnd = [series["cwnd"][i] for i in rows]
        label = f"flow {flow}" + (f" ({groups[flow]})" if flow in groups else "")
        style = styles(label)
        ax.step(t, cwnd, where="post", label=label, linewidth=1, color=style["color"])
        ssthresh = [series["ssthresh"][i] if series["ssthresh"][i] < UNLIMITED_SSTHRESH else None for i in rows]
        ax.step(t, [float("nan") if v is None else v for v in ssthresh], where="post", linestyle="--", linewidth=0.7, color=style["color"])
        drawn.append({"flow": flow, "name": label, "t": t, "cwnd": cwnd, "ssthresh": ssthresh})
    ax.set_title("cwnd (solid) and ssthresh (dashed) of each flow from its start", fontsize=9)
    _label_time_axis(ax, "congestion window (segments)", len(chosen))
    fig._qdsim_data = {"kind": "cwnd", "flows": drawn}  # type: ignore[attr-defined]
    return fig


def plot_queue(results_dir: str | Path, out: str | Path | None = None, links: list[str] | None = None, where: list[str] | tuple[str, ...] = ()) -> Path:
    """Saves :func:`draw_queue` to ``out`` (default ``RESULTS_DIR/queue.png``); returns its path."""
    return _save(draw_queue(results_dir, links=links, where=where), Path(out) if out else Path(results_dir) / "queue.png")


def draw_queue(results_dir: str | Path, links: list[str] | None = None, where: list[str] | tuple[str, ...] = (), ax: Axes | None = None) -> Figure:
    """Returns the figure of the queue length in packets against time, one line per link
    with traffic, of one run (of a sweep: the one ``where`` picks); ``ax``: draw into it."""
    results_dir = Path(results_dir)
    series = _one_run(results_dir, _table(results_dir, "series_queue", "[sampling] queues = true"), where)
    names = sorted(set(series["link_name"]))
    busy = [n for n in names if any(p > 0 for p, ln in zip(series["pkts"], series["link_name"], strict=True) if ln == n)]
    chosen = links or busy or names
    unknown = [n for n in chosen if n not in names]
    if unknown:
        raise SpecError("--links", ",".join(unknown), f"link names in the results ({', '.join(names[:20])})")
    fig, axes = new_figure(1, 1, (7, 4), ax=ax)
    ax = axes[0, 0]
    styles = Styles({})
    drawn = []
    for name in chosen:
        rows = [i for i, ln in enumerate(series["link_name"]) if ln == name]
        t, pkts = [series["t"][i] for i in rows], [series["pkts"][i] for i in rows]
        ax.step(t, pkts, where="post", label=name, linewidth=1, color=styles(name)["color"], linestyle=styles(name)["linestyle"])
        drawn.append({"link": name, "t": t, "pkts": pkts})
    _label_time_axis(ax, "queue (packets)", len(chosen))
    fig._qdsim_data = {"kind": "queue", "links": drawn}  # type: ignore[attr-defined]
    return fig


# --- the `series` figure kind of a sweep ------------------------------------------------------


@dataclass(frozen=True)
class RunSeries:
    """One run's values of a series panel: its line (the ``by`` value and the cells of the
    other swept keys that split lines), repetition, times (s) and values."""

    value: Any
    rep: int
    t: list[float]
    y: list[float]
    axes: tuple[Any, ...] = ()


def run_series(results_dir: Path, panel: SeriesPanel, by: str, axes: list[str] | tuple[str, ...] = (), filters: list[Filter] | None = None) -> list[RunSeries]:
    """Returns the panel's series of every run in a sweep's results (that ``filters`` keep),
    in stored order; each carries its cells of the swept keys ``axes``.

    ``series_queue`` rows are those of link ``panel.link``; ``series_tcp`` values are summed
    over the flows sampled at the same time. With ``per_interval`` a cumulative column
    becomes its increase since the previous sample (the first sample keeps its value).
    """
    how = "[sampling] queues = true" if panel.table == "series_queue" else "[sampling] tcp = true"
    columns = _table(results_dir, panel.table, how)
    for column in (panel.y, by):
        if column not in columns:
            raise SpecError("plot.panels.y" if column == panel.y else "plot.by", column, f"a column of {panel.table} ({', '.join(columns)})")
    keep = [ln == panel.link for ln in columns["link_name"]] if panel.table == "series_queue" else [True] * len(columns["t"])
    if panel.table == "series_queue" and not any(keep):
        raise SpecError("plot.panels.link", panel.link, f"a link in the results ({', '.join(sorted(set(columns['link_name']))[:20])})")
    if panel.group is not None:
        keep = [k and w for k, w in zip(keep, _of_group(results_dir, panel, columns), strict=True)]
    runs: dict[str, tuple[Any, int, tuple[Any, ...], dict[float, float]]] = {}
    for i, wanted in enumerate(keep):
        if wanted and (not filters or all(f.matches({f.column: columns[f.column][i]}) for f in filters if f.column in columns)):
            entry = runs.setdefault(columns["point_key"][i], (columns[by][i], columns["rep"][i], tuple(columns[k][i] for k in axes), defaultdict(float)))
            entry[3][columns["t"][i]] += float(columns[panel.y][i])
    out = []
    for value, rep, cells, sums in runs.values():
        t = sorted(sums)
        y = [sums[x] for x in t]
        if panel.per_interval:
            y = y[:1] + [b - a for a, b in itertools.pairwise(y)]
        out.append(RunSeries(value=value, rep=rep, t=t, y=y, axes=cells))
    return out


def _of_group(results_dir: Path, panel: SeriesPanel, columns: dict[str, list]) -> list[bool]:
    """Returns, per row of a ``series_tcp`` table, whether its flow belongs to ``panel.group``
    (looked up in the run's ``flows`` table: a flow's id is its row in the run's flows)."""
    if panel.table != "series_tcp":
        raise SpecError("plot.panels.group", panel.group, 'a panel of table = "series_tcp" (queue rows belong to links)')
    flows = store.read_rows(results_dir, "flows")
    members = {(r["point_key"], r["id"]) for r in flows if r["group"] == panel.group}
    if not members:
        raise SpecError("plot.panels.group", panel.group, f"a flow group of the results ({', '.join(sorted({r['group'] for r in flows}))})")
    return [(key, flow) in members for key, flow in zip(columns["point_key"], columns["flow"], strict=True)]


def plot_series(results_dir: str | Path, out: str | Path | None = None, where: list[str] | tuple[str, ...] = ()) -> Path:
    """Saves :func:`draw_series` to ``out`` (default ``RESULTS_DIR/series.png``) with the
    numbers drawn beside it as JSON; returns its path."""
    fig = draw_series(results_dir, where=where)
    return save_figure(fig, figure_data(fig), Path(out) if out else Path(results_dir) / "series.png")


def draw_series(results_dir: str | Path, where: list[str] | tuple[str, ...] = (), ax: Axes | None = None) -> Figure:
    """Returns the ``series`` figure of ``[plot]`` from a sweep's results (:func:`figure_data`
    gives the numbers drawn); ``ax`` (a figure of one panel): draw into it.

    A line is the mean over the repetitions of one ``by`` value at each sample time; every
    other swept key left after ``where`` splits the lines too.
    """
    results_dir = Path(results_dir)
    sweep = store.read_sweep(results_dir)
    defaults: PlotDefaults = validate(store.read_spec(results_dir)).plot
    grid = sweep["grid"]
    if defaults.by not in grid:
        raise SpecError("plot.by", defaults.by, f"a swept key ({', '.join(grid) or 'the sweep has none'})")
    filters = parse_where(where, grid, ("rep", "seed"))
    axes_keys = line_axes(grid, filters, (defaults.by,))
    scale_t = 1e3 if defaults.time_unit == "ms" else 1.0
    data: dict[str, Any] = {"kind": "series", "title": defaults.title, "repetitions": sweep["repetitions"], "time_unit": defaults.time_unit, "panels": []}
    if filters:
        data["where"] = {f.key: f.text for f in filters}
    fig, axes = new_figure(len(defaults.panels), 1, (6.5, 1.2 + 2.3 * len(defaults.panels)), ax=ax, sharex=True)
    styles = Styles(defaults.colors)
    ranks = [value_rank(grid, key) for key in (defaults.by, *axes_keys)]
    for panel, ax in zip(defaults.panels, axes[:, 0], strict=True):
        per_line: dict[str, tuple[tuple[Any, ...], dict[float, list[float]]]] = {}
        for run in run_series(results_dir, panel, defaults.by, axes_keys, filters):
            line = (run.value, *run.axes)
            samples = per_line.setdefault(json_key(line), (line, defaultdict(list)))[1]
            for t, y in zip(run.t, run.y, strict=True):
                samples[t].append(y)
        lines = []
        for line, samples in sorted(per_line.values(), key=lambda entry: tuple(rank(c) for rank, c in zip(ranks, entry[0], strict=True))):
            t = sorted(samples)
            name = line_label_of(line_label(defaults, line[0], grid[defaults.by]), axes_keys, line[1:], grid)
            drawn = {"name": name, "t": [x * scale_t for x in t], "y": [panel.scale * sum(samples[x]) / len(samples[x]) for x in t]}
            style = styles(name)
            ax.plot(drawn["t"], drawn["y"], label=name, color=style["color"], linestyle=style["linestyle"], linewidth=1)
            lines.append(drawn)
        label = panel.label or panel.y
        data["panels"].append({"table": panel.table, "y": panel.y, "label": label, "lines": lines})
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
        if defaults.xlim is not None:
            ax.set_xlim(*defaults.xlim)
        if panel.ylim is not None:
            ax.set_ylim(*panel.ylim)
    legend(axes[0, 0], len(data["panels"][0]["lines"]) if data["panels"] else 0)
    axes[-1, 0].set_xlabel(defaults.xlabel or f"time ({defaults.time_unit})")
    title = (defaults.title or "series") + ("".join(f" where {f.key}={f.text}" for f in filters))
    if sweep.get("engine_title"):
        title += f" (run in {sweep['engine_title']})"
    averaged = averaged_over(grid, filters, (defaults.by,), sweep["repetitions"])
    data["mean_of"] = averaged
    axes[0, 0].set_title(f"{title}\neach line: mean of {averaged} at each sample time", fontsize=9)
    fig._qdsim_data = data  # type: ignore[attr-defined]
    return fig
