"""Censored completion times on sweep plots.

A transfer still unfinished at the end of a run enters its group's ``mean_fct_s`` with the
time it had run so far (``unfinished_transfers`` counts them): the mean is then a lower
bound. :func:`plot.plot_sweep` rings each point whose mean includes such a run and says so
in the legend; the figure's JSON holds, per line and x, how many runs had unfinished
transfers (``censored``), so that no such point is read as a completed mean.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

__all__ = ["CENSORED_LABEL", "censored_runs", "mark_censored"]

#: The metrics that are means over completion times (censored at the end of the run).
FCT_METRICS = ("mean_fct_s",)

#: The column counting a group's transfers unfinished at the end of the run.
UNFINISHED = "unfinished_transfers"

#: The legend entry of the ringed points.
CENSORED_LABEL = "ringed: runs with transfers unfinished at the end (censored, a lower bound)"


def censored_runs(rows: list[dict[str, Any]], metric: str, line_of: Callable[[dict[str, Any]], Any], x_of: Callable[[dict[str, Any]], str]) -> dict[Any, dict[str, int]] | None:
    """Returns, per line and x key, how many runs' ``metric`` counts unfinished transfers;
    None when ``metric`` is not a completion-time mean or the rows do not say."""
    if metric not in FCT_METRICS or not rows or UNFINISHED not in rows[0]:
        return None
    out: dict[Any, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for row in rows:
        if row[metric] is not None:
            out[line_of(row)][x_of(row)] += int((row[UNFINISHED] or 0) > 0)
    return out


def mark_censored(ax: Any, lines: list[dict[str, Any]], colors: dict[str, str]) -> bool:
    """Rings the points of ``lines`` whose ``censored`` count is positive and adds one legend
    entry for them; returns whether any point was ringed."""
    marked = False
    for line in lines:
        points = [(x, y) for x, y, n in zip(line["x"], line["mean"], line.get("censored") or [], strict=False) if n > 0]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.scatter(xs, ys, s=90, facecolors="none", edgecolors=colors.get(line["name"], "black"), linewidths=1.3, zorder=3)
            marked = True
    if marked:
        ax.scatter([], [], s=90, facecolors="none", edgecolors="black", linewidths=1.3, label=CENSORED_LABEL)
    return marked
