"""How the report's figures look, say their units, and stay small.

Every figure uses the palette of qdsim's other figures (Okabe & Ito's colour-blind-safe one,
:data:`qdsim.plot.labels.PALETTE`) with dash styles cycling at another length, so two lines
differ in more than colour; axes are labelled with names and units (the figures take them
from :func:`qdsim.plot.labels.display`), and hovering a point shows its values with those
units. A page must stay light enough to open: a series longer than :data:`MAX_POINTS` samples is
thinned to the smallest and largest value of each bucket of samples (:func:`thin`), which
keeps every peak a reader looks for, and the caption says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ..plot.labels import PALETTE

__all__ = ["DASHES", "MAX_POINTS", "PALETTE", "Chart", "color", "dash", "hover", "new_figure", "scatter", "thin", "unit_of", "window_line"]

#: The most samples one line of a time series keeps (each bucket's smallest and largest).
MAX_POINTS = 2000
#: Dash styles, cycling at another length than the palette (as ``qdsim plot``'s line styles).
DASHES = ("solid", "dash", "dot", "dashdot")

#: A light template written out, rather than plotly's default, which would add 5 kB of
#: settings for chart types the report never draws to every figure.
_TEMPLATE = go.layout.Template(
    layout={
        "colorway": list(PALETTE),
        "font": {"family": "system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif", "size": 12, "color": "#222"},
        "paper_bgcolor": "white",
        "plot_bgcolor": "white",
        "hovermode": "closest",
        "hoverlabel": {"align": "left"},
        "legend": {"font": {"size": 11}},
        "margin": {"l": 70, "r": 20, "t": 40, "b": 50},
    }
)
_AXIS = {"showgrid": True, "gridcolor": "#e4e4e4", "zeroline": False, "linecolor": "#555", "showline": True, "ticks": "outside", "automargin": True}


@dataclass
class Chart:
    """One figure of the page: its heading, the plotly figure and a caption saying what is
    drawn (and what is left out or thinned)."""

    title: str
    figure: go.Figure
    caption: str = ""


def color(index: int) -> str:
    """Returns the ``index``-th colour of the palette."""
    return PALETTE[index % len(PALETTE)]


def dash(index: int) -> str:
    """Returns the ``index``-th dash style."""
    return DASHES[index % len(DASHES)]


def new_figure(rows: int = 1, cols: int = 1, titles: list[str] | None = None, height: int | None = None, shared_x: bool = False, shared_y: bool = False) -> go.Figure:
    """Returns an empty figure of ``rows`` × ``cols`` panels in the report's style."""
    height = height or (140 + 240 * rows)
    # About 70 pixels between rows of panels, whatever the figure's height.
    spacing = min(0.3, 70 / height) if rows > 1 else 0.0
    figure = make_subplots(rows=rows, cols=cols, subplot_titles=titles, shared_xaxes=shared_x, shared_yaxes=shared_y, vertical_spacing=spacing, horizontal_spacing=0.08)
    figure.update_layout(template=_TEMPLATE, height=height)
    figure.update_xaxes(**_AXIS)
    figure.update_yaxes(**_AXIS)
    for annotation in figure.layout.annotations:
        annotation.font.size = 12
    return figure


_UNIT = re.compile(r"\(([^()]*)\)\s*$")


def unit_of(label: str) -> str:
    """Returns the unit an axis label ends with in parentheses (``""`` if none)."""
    match = _UNIT.search(label)
    return match.group(1) if match else ""


def _name_of(label: str) -> str:
    return _UNIT.sub("", label).strip()


def hover(x_label: str, y_label: str, x_format: str = ".4g", y_format: str = ".4g", extra: str = "", x_field: str = "x") -> str:
    """Returns a hover template naming the trace and both values with their units, e.g.
    ``time: 1.25 s`` and ``queue: 12 packets``; ``extra`` is one more line (may use
    ``%{customdata}``), ``x_field`` what the x line shows (``customdata[0]``: a category's
    label)."""
    lines = ["<b>%{fullData.name}</b>"]
    for label, field, fmt in ((x_label, x_field, x_format), (y_label, "y", y_format)):
        unit = unit_of(label)
        value = f"%{{{field}:{fmt}}}" if fmt else f"%{{{field}}}"
        lines.append(f"{_name_of(label)}: {value}" + (f" {unit}" if unit else ""))
    if extra:
        lines.append(extra)
    return "<br>".join(lines) + "<extra></extra>"


def thin(key: np.ndarray, limit: int = MAX_POINTS) -> np.ndarray:
    """Returns the indexes of the samples to keep of a series whose values are ``key``: all
    of them when there are at most ``limit``, else the smallest and the largest of each of
    ``limit / 2`` buckets of consecutive samples (and the last), in order."""
    n = len(key)
    if n <= limit:
        return np.arange(n)
    size = int(np.ceil(n / (limit // 2)))
    full = (n // size) * size
    starts = np.arange(0, full, size)
    blocks = np.asarray(key[:full], dtype=float).reshape(-1, size)
    lowest = starts + np.argmin(np.nan_to_num(blocks, nan=np.inf), axis=1)
    highest = starts + np.argmax(np.nan_to_num(blocks, nan=-np.inf), axis=1)
    return np.unique(np.concatenate([lowest, highest, np.arange(full, n), np.array([0, n - 1])]))


def window_line(figure: go.Figure, warmup_s: float | None, rows: int = 1) -> None:
    """Marks the start of the measurement window on every panel of a time-series figure."""
    if not warmup_s:
        return
    for row in range(1, rows + 1):
        figure.add_vline(x=warmup_s, line={"color": "#888", "dash": "dot", "width": 1}, row=row, col=1)
    figure.add_annotation(x=warmup_s, y=1.0, yref="paper", text="window starts", showarrow=False, xanchor="left", yanchor="bottom", font={"size": 10, "color": "#666"})


def scatter(x: Any, y: Any, name: str, index: int, x_label: str, y_label: str, **options: Any) -> go.Scatter:
    """Returns a line trace in the ``index``-th colour and dash, with units in its hover."""
    line = {"color": color(index), "dash": dash(index), "width": 1.5} | options.pop("line", {})
    return go.Scatter(x=x, y=y, name=name, mode=options.pop("mode", "lines"), line=line, hovertemplate=hover(x_label, y_label), **options)
