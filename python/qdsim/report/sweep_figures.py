"""The figures of a sweep: each main metric against every swept key, with 95 % confidence
intervals, faceted as ``qdsim plot --facet`` facets; and the bottleneck's queue over time.

The numbers are those ``qdsim plot`` draws: :func:`qdsim.plot.sweep.draw_sweep` computes
them (a point is the mean over the repetitions of one grid point, every other swept key
splits the lines, Student's t intervals, censored completion-time means flagged) and
:func:`~qdsim.plot.sweep.figure_data` hands them over; this module only redraws them with
plotly, so the page and ``qdsim plot`` can never disagree.
"""

from __future__ import annotations

from typing import Any

import plotly.graph_objects as go
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import SpecError
from ..experiment.spec import PlotDefaults, validate
from ..plot.sweep import draw_sweep, figure_data, line_label, swept_axis
from ..results import store
from ..results.arrays import arrow_array
from ..results.selection import SEED_KEY, default_x, line_label_of
from ..results.tables import axis_cells
from .source import ResultsDir
from .style import Chart, color, hover, new_figure, scatter, thin, unit_of

__all__ = ["MAX_RUNS_SHOWN", "METRICS", "metric_charts", "sweep_queue_chart", "validation_chart"]

#: The metrics drawn against each swept key, and the column giving one line each (None: the
#: experiment's ``[plot] by``, as ``qdsim plot``): per group, per run, the bottleneck's.
METRICS: tuple[tuple[str, str | None], ...] = (
    ("goodput_bps", "group"),
    ("fair_share_ratio", "group"),
    ("jain_index", None),
    ("bottleneck_utilization", None),
    ("mean_delay_s", None),
    ("bottleneck_drops", None),
    ("mean_fct_s", "group"),
)
#: At most this many swept keys get a figure of their own (each a row of panels per metric).
MAX_AXES = 3
#: A swept key with at most this many values may facet the others' figures.
MAX_FACETS = 6
#: The bottleneck's queue is drawn for at most this many grid points (their first repetition).
MAX_RUNS_SHOWN = 12


def _axes(src: ResultsDir, defaults: PlotDefaults) -> list[str]:
    """Returns the x-axes of the figures: ``[plot] x`` first (the paper's figure; it may be a
    key inside swept tables), then every other swept key (a swept seed is averaged over)."""
    first = [defaults.x] if defaults.x and any(defaults.x == k or defaults.x.startswith(k + ".") for k in src.grid) else []
    taken = {swept_axis(src.grid, x)[0] for x in first}
    return (first + [key for key in src.grid if key != SEED_KEY and key not in taken])[:MAX_AXES]


def _facet(src: ResultsDir, x: str, defaults: PlotDefaults) -> str | None:
    """Returns the swept key whose values give a figure's columns: another swept key of a
    few values than the x-axis's, and not ``[plot] by`` (which gives the lines)."""
    used = {swept_axis(src.grid, x)[0], defaults.by, SEED_KEY}
    return next((key for key in src.grid if key not in used and len(src.grid[key]) <= MAX_FACETS), None)


def _line_key(src: ResultsDir, x: str, facet: str | None, by: str | None, defaults: PlotDefaults) -> str | None:
    """Returns the ``by`` of a metric: its own, else ``[plot] by`` (as ``qdsim plot``),
    except where that is the x-axis: then another swept key (or none), so that a line is not
    one point."""
    if by is not None or defaults.by is None or defaults.by != swept_axis(src.grid, x)[0]:
        return by
    return next((key for key in src.grid if key not in (defaults.by, facet, SEED_KEY)), None)


def _has_values(src: ResultsDir, table: str, column: str) -> bool:
    """Returns whether ``column`` of ``table`` holds a value in any row."""
    if not src.has(table):
        return False
    read = src.table(table, [column])
    return column in read.column_names and read.column(column).null_count < read.num_rows


def metric_charts(src: ResultsDir) -> tuple[list[Chart], list[str]]:
    """Returns one figure per swept key (at most :data:`MAX_AXES`): a row of panels per
    metric of :data:`METRICS` the results hold, a column per value of the facet key (another
    swept key of a few values) when there is one; and notes on what could not be drawn."""
    charts, notes = [], []
    defaults = validate(src.spec).plot
    metrics = [(m, by) for m, by in METRICS if m != "mean_fct_s" or _has_values(src, "groups", "mean_fct_s")]
    for x in _axes(src, defaults):
        facet = _facet(src, x, defaults)
        panels: list[dict[str, Any]] = []
        data: dict[str, Any] = {}
        for metric, by in metrics:
            try:
                data = figure_data(draw_sweep(src.path, x=x, y=metric, by=_line_key(src, x, facet, by, defaults), facet=facet))
            except SpecError as exc:
                notes.append(f"{metric} against {x}: not drawn ({exc})")
                continue
            panels.append({"metric": metric, "panels": data["panels"]})
        if panels:
            charts.append(_metric_figure(src, x, facet, panels, data))
    return charts, notes


def _x_ticks(src: ResultsDir, x: str, data: dict[str, Any]) -> tuple[list[Any], list[str]] | None:
    """Returns the tick positions and labels of a categorical x-axis (None for a numeric one)."""
    if all(isinstance(v, (int, float)) for v in data["x"]["values"]):
        return None
    defaults = validate(src.spec).plot
    axis = swept_axis(src.grid, x)[1]
    return list(range(len(axis))), [line_label(defaults, cell, list(axis)) for cell in axis_cells(list(axis))]


def _metric_figure(src: ResultsDir, x: str, facet: str | None, metrics: list[dict[str, Any]], data: dict[str, Any]) -> Chart:
    columns = len(metrics[0]["panels"])
    titles = [p.get("facet", "") for p in metrics[0]["panels"]] + [""] * (columns * (len(metrics) - 1))
    figure = new_figure(len(metrics), columns, titles=titles if facet else None, height=120 + 230 * len(metrics), shared_x=True)
    x_label = data["x"]["label"]
    ticks = _x_ticks(src, x, data)
    names: dict[str, int] = {}
    for row, metric in enumerate(metrics, 1):
        for col, panel in enumerate(metric["panels"], 1):
            for line in panel["lines"]:
                index = names.setdefault(line["name"], len(names))
                first = index == len(names) - 1 and row == 1 and col == 1
                _add_line(figure, line, index, x_label, panel["label"], row, col, ticks, first)
            figure.update_yaxes(title_text=panel["label"] if col == 1 else None, row=row, col=col, range=_y_range(panel["lines"]))
    for col in range(1, columns + 1):
        figure.update_xaxes(title_text=x_label, row=len(metrics), col=col)
        if ticks is not None:
            figure.update_xaxes(tickvals=ticks[0], ticktext=ticks[1], row=len(metrics), col=col)
    defaults = validate(src.spec).plot
    positions = data["x"]["values"]
    if ticks is None and defaults.logx and x == (defaults.x or default_x(src.grid)) and all(v > 0 for v in positions):
        figure.update_xaxes(type="log")
    figure.update_layout(legend={"orientation": "h", "y": -0.12 if len(metrics) < 3 else -0.05, "yanchor": "top"})
    facet_text = f" Columns: the values of {facet}." if facet else ""
    caption = (
        f"Each point: the mean of {data['mean_of']} of one grid point; bars: its 95 % confidence interval (Student's t), as `qdsim plot` draws them. "
        f"Lines: one per flow group for group metrics, one per value of the other swept keys.{facet_text} "
        "Link metrics are the bottleneck's. Ringed points: means that include transfers unfinished at the end of a run (censored, a lower bound)."
    )
    return Chart(f"Metrics against {x}", figure, caption)


def _y_range(lines: list[dict[str, Any]]) -> list[float] | None:
    """Returns a panel's y range as `qdsim plot` draws it: from 0 (a CI may reach below it;
    the axis does not) to a little above the highest interval; None (automatic) when a mean
    is negative or there is nothing to draw."""
    means = [m for line in lines for m in line["mean"] if m is not None]
    if not means or min(means) < 0:
        return None
    top = max(m + (c or 0) for line in lines for m, c in zip(line["mean"], line["ci95"], strict=True) if m is not None)
    return [0.0, top * 1.08 if top > 0 else 1.0]


def _add_line(figure: go.Figure, line: dict[str, Any], index: int, x_label: str, y_label: str, row: int, col: int, ticks: tuple[list[Any], list[str]] | None, legend: bool) -> None:
    """Draws one line of a panel (mean ± CI); rings its censored points."""
    xs = line["x"]
    tick_text = [ticks[1][int(v)] for v in xs] if ticks is not None else xs
    unit = unit_of(y_label)
    template = hover(x_label, y_label, x_field="customdata[0]", x_format="", extra=f"95 % CI: ± %{{customdata[1]:.3g}} {unit}".rstrip())
    figure.add_trace(
        go.Scatter(
            x=xs,
            y=line["mean"],
            error_y={"type": "data", "array": line["ci95"], "visible": True, "thickness": 1, "width": 3},
            customdata=list(zip(tick_text, line["ci95"], strict=True)),
            name=line["name"],
            mode="lines+markers",
            marker={"size": 7, "color": color(index)},
            line={"color": color(index), "width": 1.5},
            legendgroup=line["name"],
            showlegend=legend,
            hovertemplate=template,
        ),
        row=row,
        col=col,
    )
    ringed = [(x, y) for x, y, n in zip(xs, line["mean"], line.get("censored") or [], strict=False) if n > 0]
    if ringed:
        rx, ry = zip(*ringed, strict=True)
        figure.add_trace(
            go.Scatter(
                x=rx,
                y=ry,
                mode="markers",
                marker={"size": 15, "symbol": "circle-open", "color": color(index), "line": {"width": 1.5}},
                name=f"{line['name']}: censored",
                legendgroup=line["name"],
                showlegend=False,
                hoverinfo="skip",
            ),
            row=row,
            col=col,
        )


def sweep_queue_chart(src: ResultsDir) -> Chart | None:
    """Returns the bottleneck's queue (packets) against time in the first repetition of each
    grid point (at most :data:`MAX_RUNS_SHOWN`), when the sweep sampled queues."""
    if not src.has("series_queue"):
        return None
    keys = [key for key in src.grid if key != SEED_KEY]
    points = src.table("points", ["point_key", "rep", "bottleneck", *keys]).to_pylist()
    first = [p for p in points if p["rep"] == min(q["rep"] for q in points)]
    shown = first[:MAX_RUNS_SHOWN]
    queue = src.table("series_queue", ["point_key", "t", "link_name", "pkts"])
    queue = queue.filter(pc.is_in(queue.column("point_key"), value_set=arrow_array([p["point_key"] for p in shown], pa.string())))
    label = "queue (packets)"
    figure = new_figure(height=440)
    drawn = 0
    for index, point in enumerate(shown):
        rows = store.rows_where(queue, {"point_key": point["point_key"], "link_name": point["bottleneck"] or ""})
        if not rows.num_rows:
            continue
        t = store.numbers(rows.column("t"), float)
        pkts = store.numbers(rows.column("pkts"), float)
        keep = thin(pkts, 1000)
        name = line_label_of(None, keys, tuple(point[k] for k in keys), src.grid) or "the run"
        figure.add_trace(scatter(t[keep], pkts[keep], name, index, "time (s)", label, line={"shape": "hv"}))
        drawn += 1
    if not drawn:
        return None
    figure.update_yaxes(title_text=label, rangemode="tozero")
    figure.update_xaxes(title_text="time (s)")
    more = f" The other {len(first) - len(shown)} grid points are in series_queue.parquet." if len(first) > len(shown) else ""
    caption = f"The bottleneck's sampled queue in the first repetition of each grid point ({drawn} runs), thinned to at most 1000 samples per line (each bucket's smallest and largest).{more}"
    return Chart("Bottleneck queue over time", figure, caption)


def validation_chart(src: ResultsDir) -> Chart | None:
    """Returns each compared metric's ratio of qdsim's mean to the engine's (one marker per
    engine; hover: both means with units, the tolerance and the verdict) of a validation."""
    doc = src.validation
    engines = [side for side in (doc.get("engines") or [doc]) if side.get("rows")]
    if not engines:
        return None
    figure = new_figure(height=460)
    for index, side in enumerate(engines):
        rows = [r for r in side["rows"] if r.get("ratio") is not None]
        labels = [f"{r['label']} ({r['unit']})" if r.get("unit") else r["label"] for r in rows]
        custom = [[r["verdict"], r["tolerance"], _shown(r, "qdsim_mean"), _shown(r, "reference_mean")] for r in rows]
        figure.add_trace(
            go.Scatter(
                x=labels,
                y=[r["ratio"] for r in rows],
                customdata=custom,
                mode="markers",
                name=str(side.get("title") or side.get("engine")),
                marker={"size": 10, "color": color(index), "symbol": ["x" if r["verdict"] == "disagree" else "circle" for r in rows]},
                hovertemplate=(
                    "<b>%{x}</b><br>qdsim / %{fullData.name}: %{y:.3g}<br>qdsim %{customdata[2]}, %{fullData.name} %{customdata[3]}<br>tolerance %{customdata[1]}: %{customdata[0]}<extra></extra>"
                ),
            )
        )
    figure.add_hline(y=1.0, line={"color": "#555", "dash": "dash", "width": 1})
    figure.update_yaxes(title_text="qdsim's mean / the engine's", rangemode="tozero")
    figure.update_xaxes(tickangle=-40)
    caption = (
        "Each compared metric's ratio of the means over the seeds (1: equal). "
        "Crosses: disagreements (outside the tolerance, and the 95 % CI of the difference excludes 0); the verdicts and CIs are in the table."
    )
    return Chart("qdsim against the engines, metric by metric", figure, caption)


def _shown(row: dict[str, Any], key: str) -> str:
    """Returns one side's mean of a validation row in the unit the table shows it in."""
    from ..validation.validate import SHOWN

    value = row.get(key)
    if value is None:
        return "–"
    scale = SHOWN.get(row["column"], ("", 1.0, ""))[1]
    return f"{value * scale:.4g} {row.get('unit') or ''}".rstrip()
