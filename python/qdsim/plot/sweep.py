"""Figures of a sweep: metrics against a swept key, mean ± 95 % confidence interval.

This is the ``sweep`` figure kind of ``[plot]`` (``qdsim plot``, ``qdsim reproduce``). Each
panel is a metric looked up in the results tables in this order: ``points`` (per run, e.g.
``jain_index``, ``bottleneck_utilization``), ``groups`` (per flow group, e.g.
``goodput_bps``, ``mean_fct_s``; one line per group unless ``by`` says otherwise), ``links``
(the bottleneck link's row, e.g. ``mean_queue_pkts``, ``loss_rate``) and ``flows``. A point
is the mean over the repetitions of one grid point, with a 95 % confidence interval
(Student's t): every other swept key splits the lines, or the panels with ``facet``
(:mod:`qdsim.results.selection`), and ``where`` keeps some runs only; the title says what a
point is the mean of. A panel may instead show the improvement over a baseline line
(``improvement_over``), and a model curve computed by a function beside the experiment file
may be drawn over a panel.

Every figure is saved with a JSON file beside it (same name, ``.json``) holding exactly the
numbers drawn: the x values, and per panel and line the means and CI half-widths in
display units (:func:`save_figure`).

Figures fit for a paper: :func:`draw_sweep` (and those of :mod:`qdsim.plot.series`)
return a matplotlib ``Figure`` made without pyplot and accept ``ax=`` to draw into a figure
of the caller's; importing this module never selects a backend, so a notebook's inline
figures keep working. Lines differ in colour (Okabe & Ito's colour-blind-safe palette),
marker and line style; axes are labelled with names and units (:mod:`qdsim.plot.labels`); a log
axis is ticked at the swept values; raster files are saved at 300 dpi.
"""

from __future__ import annotations

import importlib.util
import os
import re
import textwrap
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from ..errors import SpecError
from ..experiment import units
from ..experiment.spec import ModelCurve, Panel, PlotDefaults, validate
from ..results import store
from ..results.selection import Filter, averaged_over, cell_label, default_x, facet_values, line_axes, line_label_of, parse_where
from ..results.stats import mean_ci, t_quantile_975
from ..results.tables import axis_cells
from .censored import censored_runs, mark_censored
from .labels import PALETTE, axis_label, display

__all__ = [
    "DPI",
    "LINESTYLES",
    "MARKERS",
    "StoredResults",
    "Styles",
    "check_figure_path",
    "display",
    "draw_sweep",
    "figure_data",
    "in_unit",
    "json_key",
    "legend",
    "line_label",
    "line_style",
    "mean_ci",
    "model_function",
    "new_figure",
    "plot_sweep",
    "results_dir_of",
    "save_figure",
    "swept_axis",
    "t_quantile_975",
    "value_rank",
]


def _metric_rows(results_dir: Path, metric: str) -> tuple[str, list[dict[str, Any]]]:
    """Returns the table holding ``metric`` and its rows (links: the bottleneck's only)."""
    available: list[str] = []
    for name in ("points", "groups", "links", "flows"):
        if not store.has_table(results_dir, name):
            continue
        table = store.read_table(results_dir, name)
        if metric in table.column_names:
            rows = table.to_pylist()
            if name == "links":
                bottlenecks = {r["point_key"]: r["bottleneck"] for r in store.read_rows(results_dir, "points")}
                rows = [r for r in rows if r["name"] == bottlenecks.get(r["point_key"])]
            return name, rows
        available += [c for c in table.column_names if c not in available]
    raise SpecError("--y", metric, f"a column of the results tables ({', '.join(available) or 'none found: run a sweep first'})")


def _numeric(values: list[Any]) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


_QUANTITY = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*([A-Za-zµ]+)\s*$")


def _axis_values(values: list[Any]) -> tuple[list[float] | None, str]:
    """Returns numeric positions for grid values and their unit.

    Plain numbers are used as they are; strings with one common unit (``"20pkt"``,
    ``"24ms"``) become their numbers, the unit going into the axis label. Otherwise None.
    """
    if _numeric(values):
        return [float(v) for v in values], ""
    parsed = [_QUANTITY.match(v) if isinstance(v, str) else None for v in values]
    if all(parsed) and len({m.group(2) for m in parsed}) == 1:  # type: ignore[union-attr]
        return [float(m.group(1)) for m in parsed], parsed[0].group(2)  # type: ignore[union-attr]
    if all(isinstance(v, str) for v in values):
        # Durations in mixed units ("10us" ... "1ms") share one axis in milliseconds.
        try:
            return [units.parse_duration(v) / 1e6 for v in values], "ms"
        except units.UnitError:
            pass
    return None, ""


def in_unit(values: list[Any], unit: str) -> list[float]:
    """Returns quantity values (``"150us"``, ``"1ms"``) as numbers of ``unit`` (``[plot].x_unit``)."""
    for parse in (units.parse_duration, units.parse_bytes, units.parse_rate):
        try:
            one = parse(f"1{unit}")
        except units.UnitError:
            continue
        try:
            return [parse(v) / one for v in values]
        except units.UnitError:
            raise SpecError("plot.x_unit", unit, f"a unit the swept values are quantities of ({', '.join(map(str, values[:4]))})") from None
    raise SpecError("plot.x_unit", unit, "a unit of durations (ns, us, ms, s), sizes (B, kB, MB) or rates (bps, Mbps, Gbps)")


#: Markers and line styles cycle at other lengths than the palette, so that two lines differ
#: in more than colour (and the 8 colours × 7 markers × 4 styles repeat only after 56 lines).
MARKERS = ("o", "s", "^", "D", "v", "P", "X")
LINESTYLES = ("-", "--", "-.", ":")
#: Resolution of saved raster figures: what journals ask for line art in print.
DPI = 300


def line_style(index: int, color: str | None = None) -> dict[str, Any]:
    """Returns the colour, marker and line style of a figure's ``index``-th line (``color``
    from ``[plot].colors`` replaces the palette's)."""
    return {"color": color or PALETTE[index % len(PALETTE)], "marker": MARKERS[index % len(MARKERS)], "linestyle": LINESTYLES[index % len(LINESTYLES)]}


class Styles:
    """Gives each line name one style, the same in every panel of a figure."""

    def __init__(self, colors: dict[str, str]):
        self.colors, self.index = colors, {}

    def __call__(self, name: str) -> dict[str, Any]:
        """Returns the style of the line called ``name``."""
        index = self.index.setdefault(name, len(self.index))
        return line_style(index, self.colors.get(name))


def new_figure(rows: int, columns: int, figsize: tuple[float, float], ax: Axes | None = None, **options: Any) -> tuple[Figure, np.ndarray]:
    """Returns a figure and its grid of axes (``rows`` × ``columns``, always 2-D), or with
    ``ax`` the figure holding that one axes (then the grid must be 1 × 1).

    The figure is made without pyplot, so drawing one never selects a backend nor adds to
    pyplot's figures: a notebook shows the returned figure once, and a script saves it.
    """
    if ax is not None:
        if (rows, columns) != (1, 1):
            raise ValueError(f"ax= draws one panel; this figure has {rows} x {columns} (draw it without ax=)")
        return ax.figure, np.array([[ax]], dtype=object)
    fig = Figure(figsize=figsize)
    return fig, fig.subplots(rows, columns, squeeze=False, **options)


def figure_data(fig: Figure) -> dict[str, Any]:
    """Returns the numbers a qdsim figure drew (what :func:`save_figure` writes as JSON)."""
    data = getattr(fig, "_qdsim_data", None)
    if data is None:
        raise ValueError("not a figure drawn by qdsim")
    return data


def legend(ax: Axes, lines: int) -> None:
    """Draws a legend readable over the data: small, half-transparent, in two columns from
    five lines on."""
    ax.legend(fontsize=7, ncol=2 if lines > 4 else 1, framealpha=0.85)


def _panels(y: str | list[str | Panel]) -> list[Panel]:
    """Returns the panels of ``y`` (a column, or a list of columns and panel tables)."""
    entries = [y] if isinstance(y, str) else list(y)
    return [Panel(metric=entry) if isinstance(entry, str) else entry for entry in entries]


def json_key(value: Any) -> str:
    """Returns a hashable, type-stable key for a grid value (``20`` and ``"20"`` differ)."""
    return repr(value)


def value_rank(grid: dict[str, list[Any]], key: str | None) -> Callable[[Any], Any]:
    """Returns the sort key that orders lines by their values of ``key``: the grid's order
    when it is a swept key (e.g. the disciplines as the file lists them), else by value."""
    if key in grid:
        rank = {json_key(cell): i for i, cell in enumerate(axis_cells(grid[key]))}
        return lambda n: (rank.get(json_key(n), len(rank)), "")
    return lambda n: (str(type(n)), n)


def line_label(defaults: PlotDefaults, name: Any, siblings: list[Any] | None = None) -> str:
    """Returns the legend text of the line for ``by`` value ``name``: ``[plot].labels``, else
    the value, a swept table shortened to what tells it from its ``siblings`` (the swept
    key's values): ``codel target=5ms``, not its whole JSON text."""
    if str(name) in defaults.labels:
        return defaults.labels[str(name)]
    return cell_label(name, siblings) if siblings is not None else str(name)


def model_function(results_dir: Path, model: ModelCurve, experiment_dir: Path | None = None) -> Callable[[float], float]:
    """Returns ``model.function`` from ``model.module``, a file beside the experiment file.

    The experiment file's directory is ``experiment_dir`` or the one recorded in the sweep's
    ``sweep.json``. Raises SpecError (key ``plot.model``) when the file or function is missing.
    """
    if experiment_dir is None:
        recorded = store.read_sweep(results_dir).get("file")
        if recorded is None:
            raise SpecError("plot.model.module", model.module, "a file beside the experiment file; these results do not record theirs (rerun with `qdsim reproduce FILE`)")
        experiment_dir = Path(recorded).parent
    path = Path(experiment_dir) / model.module
    if not path.is_file():
        raise SpecError("plot.model.module", model.module, f"a Python file in {experiment_dir}")
    module_spec = importlib.util.spec_from_file_location(f"qdsim_figure_module_{path.stem}", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    function = getattr(module, model.function, None)
    if not callable(function):
        names = sorted(n for n, v in vars(module).items() if callable(v) and not n.startswith("_"))
        raise SpecError("plot.model.function", model.function, f"a function of {model.module} ({', '.join(names)})")
    return function


def check_figure_path(path: Path, option: str = "--out") -> None:
    """Raises SpecError (naming ``option``) unless ``path`` can be a figure: a ``.png``,
    ``.pdf`` or ``.svg`` file that is not a directory."""
    if Path(path).suffix.lower() not in store.FIGURE_SUFFIXES:
        raise SpecError(option, str(path), f"a figure file ending in {', '.join(store.FIGURE_SUFFIXES)}")
    if Path(path).is_dir():
        raise SpecError(option, str(path), "a figure file (this is a directory)")


def save_figure(fig: Figure, data: dict[str, Any], out: Path, dpi: int = DPI) -> Path:
    """Saves ``fig`` to ``out`` (raster formats at ``dpi``) and ``data`` (the numbers drawn)
    beside it as JSON."""
    check_figure_path(out)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # named by the figure's path, the one the user gave
        raise OSError(exc.errno, exc.strerror, str(out)) from None
    fig.tight_layout()
    fig.savefig(out, dpi=dpi)
    store.write_json(out.with_suffix(".json"), data)
    return out


class StoredResults(Protocol):
    """What the figures read of a :class:`qdsim.Results` (:func:`qdsim.sweep`,
    :func:`qdsim.load`): its kind and its results directory."""

    kind: str
    out_dir: Path | None


def results_dir_of(results: str | os.PathLike[str] | StoredResults) -> Path:
    """Returns the results directory of a sweep given as its path or as its
    :class:`qdsim.Results`; a run's results, or a sweep's not stored, raise SpecError."""
    if isinstance(results, (str, os.PathLike)):
        return Path(results)
    kind, out_dir = getattr(results, "kind", None), getattr(results, "out_dir", None)
    if kind != "sweep" or out_dir is None:
        raise SpecError("results", f"{type(results).__name__} of a {kind}", "a sweep's results: its directory or its Results (qdsim.sweep, qdsim.load)")
    return Path(out_dir)


def plot_sweep(
    results_dir: str | os.PathLike[str] | StoredResults,
    x: str | None = None,
    y: str | list[str] | None = None,
    by: str | None = None,
    out: str | Path | None = None,
    experiment_dir: str | Path | None = None,
    where: list[str] | tuple[str, ...] = (),
    facet: str | None = None,
) -> Path:
    """Draws :func:`draw_sweep` and saves it to ``out`` (default
    ``RESULTS_DIR/<y>_vs_<x>.png``) with the numbers drawn beside it (:func:`save_figure`);
    returns the figure's path."""
    results_dir = results_dir_of(results_dir)
    fig = draw_sweep(results_dir, x=x, y=y, by=by, experiment_dir=experiment_dir, where=where, facet=facet)
    data = figure_data(fig)
    facets = len({p.get("facet") for p in data["panels"]})
    name = "+".join(p["metric"] for p in data["panels"][::facets])
    out_path = Path(out) if out else results_dir / f"{name}_vs_{data['x']['key'].replace('.', '_')}.png"
    return save_figure(fig, data, out_path)


def draw_sweep(
    results_dir: str | os.PathLike[str] | StoredResults,
    x: str | None = None,
    y: str | list[str] | None = None,
    by: str | None = None,
    experiment_dir: str | Path | None = None,
    where: list[str] | tuple[str, ...] = (),
    facet: str | None = None,
    ax: Axes | None = None,
) -> Figure:
    """Returns the figure of the panels of ``y`` against the swept key ``x`` from a sweep's
    results — its directory, or the :class:`qdsim.Results` of :func:`qdsim.sweep` or
    :func:`qdsim.load` — (:func:`figure_data` gives the numbers drawn); with ``ax`` (one
    panel, no facet) it draws into that axes and returns its figure.

    Defaults come from the experiment's ``[plot]`` table; ``x`` defaults to the only swept
    key (besides a swept ``experiment.seed``). A list of metrics gives one panel each,
    stacked over a shared x-axis; ``facet`` (a swept key) gives a column of panels per
    value. ``where`` (``KEY=VALUE`` texts) keeps the runs that match. Each point is the mean
    over the repetitions of one grid point with its 95 % confidence interval; a per-group
    metric gives one line per group (or per value of ``by``), and every other swept key left
    splits the lines.
    """
    results_dir = results_dir_of(results_dir)
    experiment_dir = Path(experiment_dir) if experiment_dir is not None else None
    sweep = store.read_sweep(results_dir)
    defaults: PlotDefaults = validate(store.read_spec(results_dir)).plot
    grid: dict[str, list[Any]] = sweep["grid"]
    x = x or defaults.x or default_x(grid)
    # `[plot]`'s x_unit, xlabel and logx describe its own x-axis, not another key's (`--x`).
    own_x = x == (defaults.x or default_x(grid))
    swept, axis = swept_axis(grid, x)
    filters = parse_where(where, grid, _columns(results_dir))
    panels = _panels(y or defaults.y)
    line_by = by if by is not None else defaults.by
    facets = facet_values(grid, facet, filters, (swept, line_by))
    axes_keys = line_axes(grid, filters, (swept, line_by, facet))
    positions, unit = (in_unit(axis, defaults.x_unit), defaults.x_unit) if defaults.x_unit and own_x else _axis_values(axis)
    xs_all = positions if positions is not None else list(range(len(axis)))
    order = {json_key(cell): i for i, cell in enumerate(axis_cells(grid[swept]))}
    xlabel = (defaults.xlabel if own_x else None) or axis_label(x, unit)
    data: dict[str, Any] = {
        "kind": "sweep",
        "title": defaults.title,
        "repetitions": sweep["repetitions"],
        "x": {"key": x, "label": xlabel, "values": positions if positions is not None else [str(v) for v in axis]},
        "panels": [],
    }
    if filters:
        data["where"] = {f.key: f.text for f in filters}
    width = 6 + 4 * (len(facets) - 1)
    fig, axes = new_figure(len(panels), len(facets), (width, 2.2 + 1.8 * len(panels)), ax=ax, sharex=True, sharey="row")
    styles = Styles(defaults.colors)
    lines_by = _Lines(defaults=defaults, by=line_by, grid=grid, swept=swept, order=order, xs=xs_all, axes=axes_keys, filters=filters)
    for index, panel in enumerate(panels):
        table, rows = _metric_rows(results_dir, panel.metric)
        shown: list[str] = []
        for column, (cell, facet_label) in enumerate(facets):
            ax = axes[index, column]
            lines, label = lines_by.panel(table, [r for r in rows if facet is None or r[facet] == cell], panel)
            for line in lines:
                ax.errorbar(line["x"], line["mean"], yerr=line["ci95"], markersize=4, capsize=3, linewidth=1.2, label=line["name"], **styles(line["name"]))
            censored = mark_censored(ax, lines, {line["name"]: styles(line["name"])["color"] for line in lines})
            panel_data: dict[str, Any] = {"metric": panel.metric, "label": label, "lines": lines}
            if facet is not None:
                panel_data["facet"] = facet_label
                if index == 0:
                    ax.set_title(facet_label, fontsize=9)
            _decorate(ax, panel, panel_data, index, defaults, results_dir, xs_all, experiment_dir)
            data["panels"].append(panel_data)
            if column == 0:
                ax.set_ylabel(label)
            # One legend for panels with the same lines; again where they differ or add a curve.
            names = [line["name"] for line in lines]
            if (len(lines) > 1 and names != shown) or "model" in panel_data or censored or any(ref.label for ref in defaults.reference if ref.panel == index):
                legend(ax, len(lines))
                shown = names
    for ax in axes[-1, :]:
        if positions is None:
            ax.set_xticks(range(len(axis)), [line_label(defaults, cell, list(axis)) for cell in axis_cells(list(axis))])
        elif defaults.logx and own_x:
            # Ticks at the swept values (a log axis's decades rarely are), none between.
            ax.set_xscale("log")
            ax.set_xticks(positions, [f"{v:g}" for v in positions])
            ax.minorticks_off()
        ax.set_xlabel(xlabel)
    title = defaults.title or " / ".join(display(p.metric)[1] for p in panels) + f" vs {x}"
    if filters:
        title += " where " + ", ".join(f"{f.key}={f.text}" for f in filters)
    if sweep.get("engine_title"):
        title += f" (run in {sweep['engine_title']})"
        data["engine"] = sweep["engine"]
    averaged = averaged_over(grid, filters, (swept, line_by, facet), sweep["repetitions"])
    data["mean_of"] = averaged
    heading = textwrap.fill(title, 75 + 40 * (len(facets) - 1)) + f"\neach point: mean of {averaged} of one grid point; bars: 95% CI (Student t)"
    if facet is None:
        axes[0, 0].set_title(heading, fontsize=9)
    else:
        fig.suptitle(heading, fontsize=9)
    fig._qdsim_data = data  # type: ignore[attr-defined]
    return fig


def _columns(results_dir: Path) -> set[str]:
    """Returns every column name of the tables a sweep figure reads."""
    return {c for name in ("points", "groups", "links", "flows") if store.has_table(results_dir, name) for c in store.read_table(results_dir, name).column_names}


def _decorate(ax: Any, panel: Panel, panel_data: dict[str, Any], index: int, defaults: PlotDefaults, results_dir: Path, xs: list[float], experiment_dir: Path | None) -> None:
    """Adds a panel's model curve and reference lines (recording them in ``panel_data``) and
    its grid and y range."""
    if defaults.model is not None and defaults.model.panel == index:
        scale = panel.scale if panel.scale is not None else display(panel.metric)[0]
        panel_data["model"] = _model_curve(results_dir, defaults, scale, xs, experiment_dir)
        ax.plot(panel_data["model"]["x"], panel_data["model"]["y"], "k--", linewidth=1, label=defaults.model.label)
    references = [ref for ref in defaults.reference if ref.panel == index]
    for ref in references:
        if ref.y is not None:
            ax.axhline(ref.y, color="grey", linestyle="--", linewidth=1, label=ref.label or None)
        else:
            ax.axvline(ref.x, color="grey", linestyle=":", linewidth=1, label=ref.label or None)
    if references:
        panel_data["reference"] = [ref.model_dump(exclude_none=True) for ref in references]
    if panel.improvement_over is None:
        ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)


#: A line of a panel: its ``by`` value (None without ``by``) and its cells of the line axes.
LineKey = tuple[Any, tuple[Any, ...]]


class _Lines:
    """Splits a panel's rows into lines (``by`` value × line axes) and averages each point."""

    def __init__(self, defaults: PlotDefaults, by: str | None, grid: dict[str, list[Any]], swept: str, order: dict[str, int], xs: list[float], axes: list[str], filters: list[Filter]):
        self.defaults, self.by, self.grid, self.swept, self.order, self.xs, self.axes, self.filters = defaults, by, grid, swept, order, xs, axes, filters

    def panel(self, table: str, rows: list[dict[str, Any]], panel: Panel) -> tuple[list[dict[str, Any]], str]:
        """Returns one panel's lines (name, x, mean, ci95 in display units) and its y label."""
        defaults = self.defaults
        groups = panel.groups if panel.groups is not None else defaults.groups
        if groups is not None and rows and "group" in rows[0]:
            rows = [r for r in rows if r["group"] in groups]
        rows = [r for r in rows if all(f.matches(r) for f in self.filters)]
        line_by = self.by if self.by is not None else ("group" if table in ("groups", "flows") else None)
        if line_by is not None and rows and line_by not in rows[0]:
            raise SpecError("--by", line_by, f"a column of the {table} table ({', '.join(rows[0])})")
        values: dict[LineKey, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for row in rows:
            if row[panel.metric] is not None:
                line = (row[line_by] if line_by else None, tuple(row[k] for k in self.axes))
                values[line][json_key(row[self.swept])].append(float(row[panel.metric]))
        means = {line: {k: mean_ci(v) for k, v in points.items() if k in self.order} for line, points in values.items()}
        censored = censored_runs(rows, panel.metric, lambda r: (r[line_by] if line_by else None, tuple(r[k] for k in self.axes)), lambda r: json_key(r[self.swept]))
        scale, label = display(panel.metric)
        if panel.improvement_over is not None:
            means, scale, label = self._improvement(means, panel), 1.0, f"{panel.metric} improvement\nover {panel.improvement_over} (%)"
        if panel.scale is not None:
            scale = panel.scale
        lines = []
        for line in sorted(means, key=self._sort_key(line_by)):
            keys = sorted(means[line], key=lambda k: self.order[k])
            lines.append(
                {
                    "name": self.name(line, line_by, panel.metric),
                    "x": [self.xs[self.order[k]] for k in keys],
                    "mean": [means[line][k][0] * scale for k in keys],
                    "ci95": [means[line][k][1] * abs(scale) for k in keys],
                    # Runs per x whose completion times include unfinished transfers (censored.py).
                    **({"censored": [censored[line][k] for k in keys]} if censored is not None else {}),
                }
            )
        return lines, panel.label or label

    def _sort_key(self, line_by: str | None) -> Callable[[LineKey], Any]:
        by_rank = value_rank(self.grid, line_by)
        ranks = [value_rank(self.grid, key) for key in self.axes]
        return lambda line: (by_rank(line[0]) if line_by else (), tuple(rank(c) for rank, c in zip(ranks, line[1], strict=True)))

    def name(self, line: LineKey, line_by: str | None, metric: str) -> str:
        """Returns a line's legend text."""
        by_label = line_label(self.defaults, line[0], self.grid.get(line_by)) if line_by else None
        if by_label is None and not self.axes:
            return metric
        return line_label_of(by_label, self.axes, line[1], self.grid)

    def _improvement(self, means: dict[LineKey, dict[str, tuple[float, float]]], panel: Panel) -> dict[LineKey, dict[str, tuple[float, float]]]:
        """Returns ``100 × (baseline − mean) / baseline`` per line and x (CI not carried: 0),
        the baseline being the line with that label (or ``by`` value) and the same values of
        the line axes."""
        defaults = self.defaults

        def is_baseline(line: LineKey) -> bool:
            return panel.improvement_over in (str(line[0]), line_label(defaults, line[0]))

        baselines = {line[1]: line for line in means if is_baseline(line)}
        if not baselines:
            names = ", ".join(sorted({line_label(defaults, line[0]) for line in means}))
            raise SpecError("plot.y.improvement_over", panel.improvement_over, f"the label or value of a line of {panel.metric} ({names})")
        out: dict[LineKey, dict[str, tuple[float, float]]] = {}
        for line, points in means.items():
            out[line] = {}
            reference = means.get(baselines.get(line[1], line), {})
            for key, (mean, _) in points.items():
                ref = reference.get(key, (None, 0.0))[0]
                if ref and mean:
                    out[line][key] = (100 * (ref - mean) / ref, 0.0)
        return out


def _model_curve(results_dir: Path, defaults: PlotDefaults, scale: float, xs: list[float], experiment_dir: Path | None) -> dict[str, Any]:
    """Returns the model curve over the x range (200 points) and at the swept x values."""
    assert defaults.model is not None
    function = model_function(results_dir, defaults.model, experiment_dir)
    lo, hi = min(xs), max(xs)
    fine = np.geomspace(lo, hi, 200) if defaults.logx and lo > 0 else np.linspace(lo, hi, 200)
    return {
        "label": defaults.model.label,
        "x": [float(v) for v in fine],
        "y": [function(float(v)) * scale for v in fine],
        "at_x": [function(v) * scale for v in xs],
    }


def swept_axis(grid: dict[str, list[Any]], x: str | None, option: str = "--x") -> tuple[str, list[Any]]:
    """Returns the swept key behind the x-axis ``x`` and the x value of each grid point.

    ``x`` is a swept key, or a dotted path into the tables a key sweeps: with
    ``topology.qdisc`` swept over whole qdisc tables, ``topology.qdisc.target`` plots against
    each table's ``target``. Errors name ``option`` (``--x``, or ``plot.x`` for a file).
    """
    if x in grid:
        return x, grid[x]
    for key, values in grid.items():
        if x is not None and x.startswith(key + "."):
            path = x[len(key) + 1 :].split(".")
            axis = []
            for value in values:
                for part in path:
                    if not isinstance(value, dict) or part not in value:
                        raise SpecError(option, x, f"a key every swept {key} table has (missing {part!r} in {value!r})")
                    value = value[part]
                axis.append(value)
            return key, axis
    raise SpecError(option, x, f"a swept key or a path into one ({', '.join(grid) or 'the sweep has none'})")
