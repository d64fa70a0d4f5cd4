"""Lu, Voelker & Snoeren, EWFQ §V: the numbers the paper reads off its figures.

The paper's fairness index is Jain's over *every* flow, the UDP one included (three flows in
Figs. 2-3, five in Fig. 4(c)); the runs' own ``jain_index`` covers the saturated TCP flows
only, so it is computed here from the per-flow goodputs (each flow group is one flow). Fig.
4(d)'s aggregate bandwidth is the sum of the flows' goodputs.

Used by the figure tests (``tests/figures/test_lu_ewfq.py``) and, run as a script, to print
the tables of ``docs/reproductions/lu-ewfq.md`` and draw Fig. 4(c)/(d) from the stored
results of Fig. 4(a) (WFQ) and 4(b) (EWFQ)::

    python experiments/lu-ewfq/figures.py results/ docs/reproductions/lu-ewfq/
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path
from typing import Any

from qdsim.results import store
from qdsim.results.tables import axis_cells
from qdsim.run import jain_index

#: Total buffer (bytes) of a Fig. 4(a) point: WFQ gives each of the five flows one-fifth.
FLOWS_FIG4 = 5


def runs(results_dir: Path, key: str) -> list[dict[str, Any]]:
    """Returns one row per run of a sweep over ``key``: ``x`` (the swept value as stored),
    ``seed``, ``goodput`` (flow group → bit/s), ``jain`` over every flow and ``aggregate``
    (the goodputs' sum, bit/s)."""
    points = store.read_rows(results_dir, "points")
    groups = store.read_rows(results_dir, "groups")
    out = []
    for p in points:
        goodput = {g["group"]: g["goodput_bps"] for g in groups if g["point_key"] == p["point_key"]}
        out.append(
            {
                "x": p[key],
                "seed": p["seed"],
                "goodput": goodput,
                "jain": jain_index(list(goodput.values())),
                "aggregate": sum(goodput.values()),
            }
        )
    return out


def means(results_dir: Path, key: str, x: Any) -> dict[str, Any]:
    """Returns the means over the runs at ``key`` = ``x``: ``goodput`` per group, ``jain``,
    ``aggregate``, and the ``seeds`` they cover. Raises AssertionError if no run has it."""
    x = axis_cells([x])[0]
    rows = [r for r in runs(results_dir, key) if r["x"] == x]
    assert rows, f"no run with {key} = {x!r} in {results_dir}"
    groups = sorted(rows[0]["goodput"])
    return {
        "seeds": sorted(r["seed"] for r in rows),
        "goodput": {g: statistics.mean(r["goodput"][g] for r in rows) for g in groups},
        "jain": statistics.mean(r["jain"] for r in rows),
        "aggregate": statistics.mean(r["aggregate"] for r in rows),
    }


def table(results_dir: Path, key: str) -> list[tuple[Any, dict[str, Any]]]:
    """Returns (swept value, :func:`means`) for every value of the sweep, in grid order."""
    grid = store.read_sweep(results_dir)["grid"][key]
    return [(value, means(results_dir, key, value)) for value in grid]


def _print_table(title: str, rows: list[tuple[Any, dict[str, Any]]], label: Any = str) -> None:
    groups = sorted(rows[0][1]["goodput"])
    print(f"\n{title}\n| x | " + " | ".join(groups) + " | Jain (all flows) | aggregate |")
    print("|---" * (len(groups) + 3) + "|")
    for value, m in rows:
        cells = " | ".join(f"{m['goodput'][g] / 1e6:.2f}" for g in groups)
        print(f"| {label(value)} | {cells} | {m['jain']:.4f} | {m['aggregate'] / 1e6:.2f} |")


def draw_fig4cd(wfq_dir: Path, ewfq_dir: Path, out: Path) -> Path:
    """Draws Fig. 4(c) (Jain's index over the five flows) and 4(d) (aggregate bandwidth) of
    WFQ and EWFQ against the total buffer; writes ``out`` (PNG) and the numbers beside it
    (JSON); returns ``out``."""
    from qdsim.plot.sweep import line_style, new_figure, save_figure

    wfq = [(value * FLOWS_FIG4 / 1e3, m) for value, m in table(wfq_dir, "topology.links.0.qdisc.queue_limits.0")]
    ewfq = [(float(value.removesuffix("KB")), m) for value, m in table(ewfq_dir, "topology.links.0.qdisc.limit")]
    data: dict[str, Any] = {"x_label": "total buffer (KB)", "lines": {}}
    fig, axes = new_figure(2, 1, figsize=(6, 6), sharex=True)
    jain_ax, agg_ax = axes[:, 0]
    for index, (name, rows) in enumerate((("WFQ", wfq), ("EWFQ", ewfq))):
        xs = [x for x, _ in rows]
        jain = [m["jain"] for _, m in rows]
        aggregate = [m["aggregate"] / 1e6 for _, m in rows]
        jain_ax.plot(xs, jain, markersize=3, label=name, **line_style(index))
        agg_ax.plot(xs, aggregate, markersize=3, label=name, **line_style(index))
        data["lines"][name] = {"x": xs, "jain": jain, "aggregate_mbps": aggregate, "seeds": rows[0][1]["seeds"]}
    jain_ax.set_ylabel("Jain's index (5 flows)")
    agg_ax.set_ylabel("aggregate goodput (Mb/s)")
    agg_ax.set_xlabel("total buffer (KB)")
    for ax in (jain_ax, agg_ax):
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    reps = len(data["lines"]["WFQ"]["seeds"])
    jain_ax.set_title(f"Fig. 4(c)/(d): fairness and aggregate bandwidth vs buffer\nmean over {reps} repetitions", fontsize=9)
    return save_figure(fig, data, out)


def main(results_root: Path, docs: Path) -> None:
    """Prints the doc's tables from ``results_root``'s Fig. 2-4 results and draws Fig. 4(c)/(d) into ``docs``."""
    for stem in ("fig2", "fig3"):
        _print_table(stem, table(results_root / f"lu-ewfq-{stem}", "topology.qdisc"), lambda v: v.get("queue_limits", "EWFQ"))
    _print_table("fig4a (x = bytes per flow)", table(results_root / "lu-ewfq-fig4a", "topology.links.0.qdisc.queue_limits.0"))
    _print_table("fig4b", table(results_root / "lu-ewfq-fig4b", "topology.links.0.qdisc.limit"))
    print(draw_fig4cd(results_root / "lu-ewfq-fig4a", results_root / "lu-ewfq-fig4b", docs / "fig4cd.png"))


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]))
