"""Plots of a sweep: a metric against a swept key, mean ± 95 % confidence interval.

The metric is looked up in the results tables in this order: ``points`` (per run, e.g.
``jain_index``, ``bottleneck_utilization``), ``groups`` (per flow group, e.g.
``goodput_bps``, ``p95_queue_delay_s``; one line per group unless ``by`` says otherwise) and
``links`` (the bottleneck link's row, e.g. ``mean_queue_pkts``, ``drops``). Confidence
intervals use Student's t over the repetitions of each point.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from . import store, units
from .errors import SpecError
from .spec import PlotDefaults, validate
from .sweep import grid_cell

__all__ = ["mean_ci", "plot_sweep", "t_quantile_975"]

# Two-sided 95 % quantiles of Student's t (i.e. the 0.975 quantile) for 1..30 degrees of
# freedom, then selected larger ones; between table entries the next smaller df is used,
# which errs on the wide side.
_T975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t_quantile_975(df: int) -> float:
    """Returns the 0.975 quantile of Student's t with ``df`` degrees of freedom (df >= 1)."""
    if df < 1:
        raise ValueError("df must be >= 1")
    if df > 120:
        return 1.960
    return _T975[max(d for d in _T975 if d <= df)]


def mean_ci(values: list[float]) -> tuple[float, float]:
    """Returns the mean of ``values`` and the half-width of its 95 % confidence interval (0 for n=1)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, 0.0
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, t_quantile_975(n - 1) * math.sqrt(var / n)


def _metric_rows(results_dir: Path, metric: str) -> tuple[str, list[dict[str, Any]]]:
    """Returns the table holding ``metric`` and its rows (links: the bottleneck's only)."""
    available: list[str] = []
    for name in ("points", "groups", "links", "flows"):
        path = results_dir / f"{name}.parquet"
        if not path.exists():
            continue
        table = store.read_table(results_dir, name)
        if metric in table.column_names:
            rows = table.to_pylist()
            if name == "links":
                bottlenecks = {r["point_key"]: r["bottleneck"] for r in store.read_table(results_dir, "points").to_pylist()}
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


def _display(metric: str) -> tuple[float, str]:
    """Returns the scale and label of a metric for display (bit/s → Mb/s, delays → ms)."""
    if metric.endswith("_bps"):
        return 1e-6, f"{metric.removesuffix('_bps')} (Mb/s)"
    if metric.endswith("delay_s"):
        return 1e3, f"{metric.removesuffix('_s')} (ms)"
    if metric.endswith("_s"):
        return 1.0, f"{metric.removesuffix('_s')} (s)"
    return 1.0, metric


def plot_sweep(
    results_dir: str | Path,
    x: str | None = None,
    y: str | list[str] | None = None,
    by: str | None = None,
    out: str | Path | None = None,
) -> Path:
    """Draws ``y`` against the swept key ``x`` from a sweep's results; returns the file written.

    Defaults come from the experiment's ``[plot]`` table; ``x`` defaults to the only swept
    key. A list of metrics gives one panel each, stacked over a shared x-axis. Each point is
    the mean over repetitions with its 95 % confidence interval; a per-group metric gives one
    line per group (or per value of ``by``).
    """
    results_dir = Path(results_dir)
    sweep_file = results_dir / "sweep.json"
    if not sweep_file.exists():
        raise SpecError("RESULTS_DIR", str(results_dir), "a directory written by `qdsim sweep` (it has sweep.json)")
    sweep = store.read_json(sweep_file)
    defaults: PlotDefaults = validate(store.read_json(results_dir / "spec.json")).plot
    grid: dict[str, list[Any]] = sweep["grid"]
    x = x or defaults.x or (next(iter(grid)) if len(grid) == 1 else None)
    swept, axis = _swept_axis(grid, x)
    y = y or defaults.y
    metrics = [y] if isinstance(y, str) else list(y)
    positions_of, unit = _axis_values(axis)
    # Result rows hold swept tables as canonical JSON text (sweep.grid_cell): match them so.
    order = {json_key(grid_cell(v)): i for i, v in enumerate(grid[swept])}
    fig, axes = plt.subplots(len(metrics), 1, figsize=(6, 2.2 + 1.8 * len(metrics)), sharex=True, squeeze=False)
    for panel, (metric, ax) in enumerate(zip(metrics, axes[:, 0], strict=True)):
        table, rows = _metric_rows(results_dir, metric)
        if defaults.groups is not None and rows and "group" in rows[0]:
            rows = [r for r in rows if r["group"] in defaults.groups]
        line_by = by if by is not None else (defaults.by or ("group" if table in ("groups", "flows") else None))
        if line_by is not None and rows and line_by not in rows[0]:
            raise SpecError("--by", line_by, f"a column of the {table} table ({', '.join(rows[0])})")
        scale, label = _display(metric)
        series: dict[Any, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for row in rows:
            if row[metric] is not None:
                series[row[line_by] if line_by else metric][json_key(row[swept])].append(float(row[metric]) * scale)
        for name, points in sorted(series.items(), key=lambda kv: (str(type(kv[0])), kv[0])):
            keys = sorted((k for k in points if k in order), key=lambda k: order[k])
            stats = [mean_ci(points[k]) for k in keys]
            xs = [positions_of[order[k]] if positions_of else order[k] for k in keys]
            ax.errorbar(xs, [m for m, _ in stats], yerr=[h for _, h in stats], marker="o", markersize=3, capsize=3, label=defaults.labels.get(str(name), str(name)))
        for ref in defaults.reference:
            if ref.panel == panel:
                ax.axhline(ref.y, color="grey", linestyle="--", linewidth=1, label=ref.label or None)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        if len(series) > 1 or any(ref.panel == panel and ref.label for ref in defaults.reference):
            ax.legend(fontsize=8)
    bottom = axes[-1, 0]
    if positions_of is None:
        bottom.set_xticks(range(len(axis)), [str(v) for v in axis])
    elif defaults.logx:
        bottom.set_xscale("log")
    bottom.set_xlabel(defaults.xlabel or (f"{x} ({unit})" if unit else x))
    title = defaults.title or " / ".join(metrics) + f" vs {x}"
    axes[0, 0].set_title(textwrap.fill(title, 75) + f"\nmean and 95% CI over {sweep['repetitions']} repetitions", fontsize=9)
    name = "+".join(metrics)
    out_path = Path(out) if out else results_dir / f"{name}_vs_{x.replace('.', '_')}.png"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out_path, dpi=100)
    plt.close(fig)
    return out_path


def _swept_axis(grid: dict[str, list[Any]], x: str | None) -> tuple[str, list[Any]]:
    """Returns the swept key behind the x-axis ``x`` and the x value of each grid point.

    ``x`` is a swept key, or a dotted path into the tables a key sweeps: with
    ``topology.qdisc`` swept over whole qdisc tables, ``topology.qdisc.target`` plots against
    each table's ``target``.
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
                        raise SpecError("--x", x, f"a key every swept {key} table has (missing {part!r} in {value!r})")
                    value = value[part]
                axis.append(value)
            return key, axis
    raise SpecError("--x", x, f"a swept key or a path into one ({', '.join(grid) or 'the sweep has none'})")


def json_key(value: Any) -> str:
    """Returns a hashable, type-stable key for a grid value (``20`` and ``"20"`` differ)."""
    return repr(value)
