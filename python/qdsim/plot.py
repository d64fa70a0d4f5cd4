"""Plots of a sweep: a metric against a swept key, mean ± 95 % confidence interval.

The metric is looked up in the results tables in this order: ``points`` (per run, e.g.
``jain_index``, ``bottleneck_utilization``), ``groups`` (per flow group, e.g.
``goodput_bps``, ``p95_queue_delay_s``; one line per group unless ``by`` says otherwise) and
``links`` (the bottleneck link's row, e.g. ``mean_queue_pkts``, ``drops``). Confidence
intervals use Student's t over the repetitions of each point.
"""

from __future__ import annotations

import math
from collections import defaultdict
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

from . import results as store  # noqa: E402
from .errors import SpecError  # noqa: E402
from .spec import PlotDefaults, validate  # noqa: E402

__all__ = ["t_quantile_975", "mean_ci", "plot_sweep"]

# Two-sided 95 % quantiles of Student's t (i.e. the 0.975 quantile) for 1..30 degrees of
# freedom, then selected larger ones; between table entries the next smaller df is used,
# which errs on the wide side.
_T975 = {
    1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262,
    10: 2.228, 11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110,
    18: 2.101, 19: 2.093, 20: 2.086, 21: 2.080, 22: 2.074, 23: 2.069, 24: 2.064, 25: 2.060,
    26: 2.056, 27: 2.052, 28: 2.048, 29: 2.045, 30: 2.042, 40: 2.021, 60: 2.000, 120: 1.980,
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
    for name in ("points", "groups", "links"):
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


def plot_sweep(results_dir: str | Path, x: str | None = None, y: str | None = None, by: str | None = None, out: str | Path | None = None) -> Path:
    """Draws ``y`` against the swept key ``x`` from a sweep's results; returns the file written.

    Defaults come from the experiment's ``[plot]`` table; ``x`` defaults to the only swept key.
    """
    results_dir = Path(results_dir)
    sweep_file = results_dir / "sweep.json"
    if not sweep_file.exists():
        raise SpecError("RESULTS_DIR", str(results_dir), "a directory written by `qdsim sweep` (it has sweep.json)")
    sweep = store.read_json(sweep_file)
    defaults: PlotDefaults = validate(store.read_json(results_dir / "spec.json")).plot
    grid: dict[str, list[Any]] = sweep["grid"]
    x = x or defaults.x or (next(iter(grid)) if len(grid) == 1 else None)
    if x not in grid:
        raise SpecError("--x", x, f"a swept key ({', '.join(grid) or 'the sweep has none'})")
    y = y or defaults.y
    table, rows = _metric_rows(results_dir, y)
    by = by if by is not None else (defaults.by or ("group" if table == "groups" else None))
    if by is not None and rows and by not in rows[0]:
        raise SpecError("--by", by, f"a column of the {table} table ({', '.join(rows[0])})")
    order = {json_key(v): i for i, v in enumerate(grid[x])}
    series: dict[Any, dict[Any, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        if row[y] is not None:
            series[row[by] if by else y][row[x]].append(float(row[y]))
    numeric = _numeric(grid[x])
    fig, ax = plt.subplots(figsize=(6, 4))
    for label, points in sorted(series.items(), key=lambda kv: str(kv[0])):
        xs = sorted(points, key=lambda v: order.get(json_key(v), 0))
        stats = [mean_ci(points[v]) for v in xs]
        positions = xs if numeric else [order.get(json_key(v), 0) for v in xs]
        ax.errorbar(positions, [m for m, _ in stats], yerr=[h for _, h in stats], marker="o", capsize=3, label=str(label))
    if not numeric:
        ax.set_xticks(range(len(grid[x])), [str(v) for v in grid[x]])
    if defaults.logx and numeric:
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    ax.set_title(defaults.title or f"{y} vs {x}\nmean and 95% CI over {sweep['repetitions']} repetitions", fontsize=10)
    ax.grid(True, alpha=0.3)
    if len(series) > 1:
        ax.legend(title=by)
    out_path = Path(out) if out else results_dir / f"{y}_vs_{x.replace('.', '_')}.png"
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out_path)
    plt.close(fig)
    return out_path


def json_key(value: Any) -> str:
    """Returns a hashable, type-stable key for a grid value (``20`` and ``"20"`` differ)."""
    return repr(value)
