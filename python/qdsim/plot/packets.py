"""The ``packets`` figure kind: every packet offered to a link, as a dot against time.

Augé & Roberts' Fig. 4 draws the packets arriving at the bottleneck, those of the bottlenecked
flow in the upper half and the background's in the lower half, each at a random height, the
lost ones marked. This draws the packet record (``[sampling.packets]``,
``series_packets.parquet``) that way: one panel per value of the swept key ``by`` (the first
repetition's run), the flows of the groups ``upper`` in the upper half, every other flow in the
lower half, lost packets as red squares. Heights come from a fixed seed, so the same results
give the same picture.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SpecError
from ..experiment.spec import PlotDefaults, validate
from ..results import store
from .labels import PALETTE
from .sweep import json_key, line_label, new_figure, save_figure, value_rank

__all__ = ["plot_packets"]


def plot_packets(results_dir: str | Path, out: str | Path | None = None) -> Path:
    """Draws the ``packets`` figure of ``[plot]`` from a sweep's results; returns the file
    (default ``RESULTS_DIR/packets.png``), with the numbers drawn beside it as JSON: per panel
    the packets' times, halves and whether they were lost."""
    results_dir = Path(results_dir)
    sweep = store.read_sweep(results_dir)
    defaults: PlotDefaults = validate(store.read_spec(results_dir)).plot
    if defaults.by not in sweep["grid"]:
        raise SpecError("plot.by", defaults.by, f"a swept key ({', '.join(sweep['grid']) or 'the sweep has none'})")
    if not store.has_table(results_dir, "series_packets"):
        raise SpecError("RESULTS_DIR", str(results_dir), "a results directory with series_packets.parquet (run with [sampling.packets])")
    packets = store.read_table(results_dir, "series_packets").to_pydict()
    flows = store.read_rows(results_dir, "flows")
    upper = {(r["point_key"], r["id"]) for r in flows if r["group"] in defaults.upper}
    missing = set(defaults.upper) - {r["group"] for r in flows}
    if missing:
        raise SpecError("plot.upper", sorted(missing)[0], f"a flow group of the results ({', '.join(sorted({r['group'] for r in flows}))})")
    runs: dict[str, tuple[Any, list[int]]] = {}
    for i, rep in enumerate(packets["rep"]):
        if rep == 0:
            value = packets[defaults.by][i]
            runs.setdefault(json_key(value), (value, []))[1].append(i)
    values = sorted((v for v, _ in runs.values()), key=value_rank(sweep["grid"], defaults.by))
    scale_t = 1e3 if defaults.time_unit == "ms" else 1.0
    rng = np.random.default_rng(0)
    fig, axes = new_figure(len(values), 1, figsize=(7, 0.8 + 2.6 * len(values)))
    data: dict[str, Any] = {"kind": "packets", "title": defaults.title, "time_unit": defaults.time_unit, "upper": defaults.upper, "panels": []}
    for value, ax in zip(values, axes[:, 0], strict=True):
        rows = sorted(runs[json_key(value)][1], key=lambda i: packets["t"][i])
        t = np.asarray([packets["t"][i] * scale_t for i in rows])
        high = np.asarray([(packets["point_key"][i], packets["flow"][i]) in upper for i in rows], dtype=bool)
        lost = np.asarray([bool(packets["lost"][i]) for i in rows], dtype=bool)
        y = rng.random(len(rows)) * 0.45 + np.where(high, 0.525, 0.025)
        ax.scatter(t[~lost], y[~lost], s=1, color=PALETTE[0], linewidths=0)
        ax.scatter(t[lost], y[lost], s=14, marker="s", color=PALETTE[1], label="lost")
        ax.axhline(0.5, color="gray", linewidth=0.5)
        ax.set_yticks([0.25, 0.75], ["others", " + ".join(defaults.upper) or "—"])
        ax.set_ylim(0, 1)
        if defaults.xlim is not None:
            ax.set_xlim(*defaults.xlim)
        name = line_label(defaults, value)
        ax.set_title(name, fontsize=9)
        if lost.any():
            ax.legend(fontsize=8, loc="upper right")
        data["panels"].append({"name": name, "t": t.tolist(), "upper": high.tolist(), "lost": lost.tolist()})
    axes[-1, 0].set_xlabel(defaults.xlabel or f"time ({defaults.time_unit})")
    fig.suptitle(defaults.title or "packets offered to the link", fontsize=10)
    return save_figure(fig, data, Path(out) if out else results_dir / "packets.png")
