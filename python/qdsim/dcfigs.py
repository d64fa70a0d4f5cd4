"""Figures of Ismail, Pirzada & Qazi, "On the Effectiveness of CoDel in Data Centers".

``python -m qdsim.dcfigs experiments/codel-dc/figN.toml [--jobs 2] [--repetitions R]
[--out DIR]`` runs the file's ``[sweep]`` grid (each point with its repetitions' seeds) and
draws the paper's figure as ``DIR/<stem>.png`` (default ``results/<name>/``), plus the
per-point metrics as ``<stem>.json``. The metrics of one run (:func:`metrics`):

* ``utilization`` of the link named ``bottleneck`` (the switch port to the client);
* ``afct_s``: mean completion time of the finite transfers (incast responses or short
  flows) started in the measurement window and completed;
* ``mean_queue_pkts`` and ``loss_rate`` (drops / arrivals) of the bottleneck, with
  ``aqm_drops`` (the AQM's own drops) and ``overflow_drops`` (buffer full);
* ``timeouts`` of the finite transfers' flows.

Fig. 3 draws the model of equation 7 (:mod:`qdsim.dcmodel`) beside the simulation; Fig. 7/8(a)
are time series of one incast event (flows in timeout, drops per ms by cause); Fig. 8(b) the
cumulative drops by cause under short flows.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from . import dcmodel
from .topologies import BOTTLENECK
from .run import run_config, series_as_lists
from .spec import load
from .sweep import plan

__all__ = ["main", "metrics", "qdisc_label", "run_points"]

#: Legend names of the disciplines, as in the paper.
LABELS = {"fifo": "DropTail", "codel": "CoDel", "ared": "RED", "red": "RED"}
COLORS = {"DropTail": "tab:gray", "CoDel": "tab:blue", "RED": "tab:red"}


def qdisc_label(qdisc: dict[str, Any]) -> str:
    """Returns the paper's name of a qdisc table (DropTail, CoDel, RED)."""
    return LABELS.get(qdisc.get("kind", ""), qdisc.get("kind", "?"))


def metrics(results: dict[str, Any], finite_groups: tuple[str, ...] = ("incast", "short")) -> dict[str, Any]:
    """Returns the paper's metrics of one run's core results (see the module doc)."""
    link = next(x for x in results["links"] if x["name"] == BOTTLENECK)
    by_reason = link.get("drops_by_reason") or {}
    overflow = by_reason.get("overflow", 0)
    flows = {f["id"]: f for f in results["flows"]}
    finite = [g for g in results["groups"] if g["group"] in finite_groups]
    warm = results["warmup_s"]
    transfers = results.get("transfers") or {}
    rows = [dict(zip(transfers, values, strict=True)) for values in zip(*transfers.values(), strict=True)] if isinstance(transfers, dict) else list(transfers)
    fcts = [t["fct_s"] for t in rows if t["fct_s"] is not None and t["start_s"] >= warm and flows[t["flow"]]["group"] in finite_groups]
    return {
        "utilization": link["utilization"],
        "afct_s": statistics.mean(fcts) if fcts else None,
        "transfers": len(fcts),
        "mean_queue_pkts": link["mean_queue_pkts"],
        "loss_rate": link["loss_rate"],
        "drops": link["drops"],
        "overflow_drops": overflow,
        "aqm_drops": link["drops"] - overflow,
        "timeouts": sum(f["timeouts"] for f in results["flows"] if f["group"] in {g["group"] for g in finite}),
    }


def _one(config: dict[str, Any]) -> dict[str, Any]:
    return metrics(run_config(config).results)


def run_points(path: str | Path, sets: list[str] | tuple[str, ...] = (), jobs: int = 1, repetitions: int | None = None, grid: dict[str, list[Any]] | None = None) -> list[dict[str, Any]]:
    """Runs every point of ``path``'s sweep; returns one row per run: params, rep, metrics.

    ``repetitions`` and ``grid`` (swept key → values) replace the file's ``[sweep]`` entries
    (shortened runs in tests).
    """
    raw, _ = load(path, sets)
    sweep = dict(raw.get("sweep", {}))
    sweep.update(grid or {})
    if repetitions is not None:
        sweep["repetitions"] = repetitions
    raw = {**raw, "sweep": sweep}
    points = plan(raw)
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            outs = list(pool.map(_one, [p.config for p in points]))
    else:
        outs = [_one(p.config) for p in points]
    return [{**p.params, "rep": p.rep, "seed": p.seed, **m} for p, m in zip(points, outs, strict=True)]


def mean_of(rows: list[dict[str, Any]], metric: str, **match: Any) -> float | None:
    """Returns the mean of ``metric`` over the rows whose keys equal ``match`` (None-free)."""
    values = [r[metric] for r in rows if all(r.get(k) == v for k, v in match.items()) and r[metric] is not None]
    return statistics.mean(values) if values else None


# --- figures ----------------------------------------------------------------------------------


def _x_value(key: str, value: Any) -> float:
    from .units import parse_bytes, parse_duration

    if isinstance(value, dict):  # a qdisc table: Fig. 3's CoDel target, in microseconds
        return parse_duration(value["target"]) / 1e3
    if isinstance(value, str):
        return parse_bytes(value) / 1e3
    return float(value)


def _sweep_key(rows: list[dict[str, Any]], skip: tuple[str, ...]) -> str | None:
    keys = [k for k in rows[0] if "." in k and k not in skip]
    return keys[0] if keys else None


def summary_by_qdisc(rows: list[dict[str, Any]]) -> dict[str, dict[float, dict[str, float | None]]]:
    """Returns label → x → mean metrics over repetitions, with ``afct_improvement_pct`` over DropTail."""
    qkey = next(k for k in rows[0] if k.endswith("qdisc"))
    xkey = _sweep_key(rows, (qkey,))
    out: dict[str, dict[float, dict[str, float | None]]] = {}
    for r in rows:
        label = qdisc_label(r[qkey])
        x = _x_value(xkey, r[xkey]) if xkey else 0.0
        out.setdefault(label, {}).setdefault(x, {})
    for label, by_x in out.items():
        for x in by_x:
            match = [r for r in rows if qdisc_label(r[qkey]) == label and (_x_value(xkey, r[xkey]) if xkey else 0.0) == x]
            by_x[x] = {m: mean_of(match, m) for m in ("utilization", "afct_s", "mean_queue_pkts", "loss_rate", "aqm_drops", "overflow_drops", "timeouts", "transfers")}
    base = out.get("DropTail", {})
    for by_x in out.values():
        for x, m in by_x.items():
            ref = base.get(x, {}).get("afct_s")
            m["afct_improvement_pct"] = 100 * (ref - m["afct_s"]) / ref if ref and m["afct_s"] else None
    return out


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def draw_comparison(rows: list[dict[str, Any]], out: Path, title: str, xlabel: str, buffer_pkts: int = 200) -> dict[str, Any]:
    """Draws Figs. 5/6, 9/10 and 11: five panels against the swept key, one line per qdisc."""
    plt = _plt()
    table = summary_by_qdisc(rows)
    panels = [
        ("utilization", "utilization (%)", 100),
        ("afct_s", "AFCT (ms)", 1e3),
        ("afct_improvement_pct", "AFCT improvement\nover DropTail (%)", 1),
        ("mean_queue_pkts", f"queue occupancy\n(% of {buffer_pkts} pkts)", 100 / buffer_pkts),
        ("loss_rate", "loss rate (%)", 100),
    ]
    fig, axes = plt.subplots(len(panels), 1, figsize=(6.5, 11), sharex=True)
    for ax, (metric, label, scale) in zip(axes, panels, strict=True):
        for name, by_x in table.items():
            xs = sorted(x for x in by_x if by_x[x][metric] is not None)
            ax.plot(xs, [by_x[x][metric] * scale for x in xs], marker="o", label=name, color=COLORS.get(name))
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend()
    axes[0].set_title(title, fontsize=9)
    axes[-1].set_xlabel(xlabel)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return table


def draw_fig3(rows: list[dict[str, Any]], out: Path, rtt_us: float = 300.0) -> dict[str, Any]:
    """Draws Fig. 3: utilization (simulated and equation 7) and buffer occupancy vs target."""
    plt = _plt()
    qkey = next(k for k in rows[0] if k.endswith("qdisc"))
    xs = sorted({_x_value(qkey, r[qkey]) for r in rows})
    util = [mean_of([r for r in rows if _x_value(qkey, r[qkey]) == x], "utilization") for x in xs]
    queue = [mean_of([r for r in rows if _x_value(qkey, r[qkey]) == x], "mean_queue_pkts") for x in xs]
    fine = [x / 10 for x in range(int(xs[0] * 10), int(xs[-1] * 10) + 1, 5)]
    model = [dcmodel.utilization(x, rtt_us) for x in fine]
    fig, (a, b) = plt.subplots(2, 1, figsize=(6.5, 6), sharex=True)
    a.plot(xs, [u * 100 for u in util], "o-", label="simulation (qdsim)")
    a.plot(fine, [u * 100 for u in model], "k--", label="model, eq. 7 (T = 300 us)")
    a.axvline(rtt_us, color="gray", lw=0.8)
    a.set_ylabel("utilization (%)")
    a.legend()
    a.grid(alpha=0.3)
    a.set_title("Fig. 3: CoDel, utilization and buffer occupancy vs target", fontsize=9)
    b.plot(xs, queue, "o-")
    b.set_ylabel("mean queue (packets)")
    b.set_xlabel("CoDel target (us)")
    b.set_xscale("log")
    b.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return {"target_us": xs, "utilization": util, "model": [dcmodel.utilization(x, rtt_us) for x in xs], "mean_queue_pkts": queue}


def event_series(path: str | Path, sets: list[str] | tuple[str, ...] = ()) -> dict[str, dict[str, list[float]]]:
    """Runs Fig. 7/8's single incast event per qdisc; returns label → time series.

    Series: ``t_ms``, ``in_timeout`` (flows in timeout at each sample), ``aqm_drops`` and
    ``overflow_drops`` (drops at the bottleneck in each sampling interval).
    """
    raw, _ = load(path, sets)
    out: dict[str, dict[str, list[float]]] = {}
    for point in plan(raw):
        results = series_as_lists(run_config(point.config).results)
        qkey = next(k for k in point.params if k.endswith("qdisc"))
        index = next(i for i, link in enumerate(point.config["links"]) if link["name"] == BOTTLENECK)
        queue = results["series"]["queue"]
        t = [queue["t"][i] for i in range(len(queue["t"])) if queue["link"][i] == index]
        drops = [queue["drops"][i] for i in range(len(queue["t"])) if queue["link"][i] == index]
        over = [queue["overflow_drops"][i] for i in range(len(queue["t"])) if queue["link"][i] == index]
        tcp = results["series"]["tcp"]
        timeouts: dict[float, int] = {}
        for tt, flag in zip(tcp["t"], tcp["in_timeout"], strict=True):
            timeouts[tt] = timeouts.get(tt, 0) + int(bool(flag))
        diff = lambda xs: [xs[0]] + [b - a for a, b in itertools.pairwise(xs)]  # noqa: E731
        out[qdisc_label(point.params[qkey])] = {
            "t_ms": [x * 1e3 for x in t],
            "in_timeout": [timeouts.get(x, 0) for x in t],
            "aqm_drops": diff([d - o for d, o in zip(drops, over, strict=True)]),
            "overflow_drops": diff(over),
        }
    return out


def draw_fig7(series: dict[str, dict[str, list[float]]], out: Path) -> None:
    """Draws Fig. 7 (flows in timeout vs time) and Fig. 8(a) (drops per ms by cause)."""
    plt = _plt()
    fig, axes = plt.subplots(3, 1, figsize=(6.5, 8), sharex=True)
    for name, s in series.items():
        axes[0].plot(s["t_ms"], s["in_timeout"], label=name, color=COLORS.get(name))
        axes[1].plot(s["t_ms"], s["aqm_drops"], label=name, color=COLORS.get(name))
        axes[2].plot(s["t_ms"], s["overflow_drops"], label=name, color=COLORS.get(name))
    axes[0].set_ylabel("flows in timeout")
    axes[1].set_ylabel("AQM drops per ms")
    axes[2].set_ylabel("overflow drops per ms")
    axes[2].set_xlabel("time (ms); 40 flows start at 100 ms")
    axes[0].set_title("Fig. 7 / 8(a): one incast event beside a long flow", fontsize=9)
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.set_xlim(80, 200)
    axes[0].legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def draw_fig8b(series: dict[str, dict[str, list[float]]], out: Path) -> None:
    """Draws Fig. 8(b): cumulative drops at the bottleneck over time, by cause, per qdisc."""
    import itertools

    plt = _plt()
    fig, ax = plt.subplots(1, 1, figsize=(6.5, 4))
    for name, s in series.items():
        ax.plot(s["t_ms"], list(itertools.accumulate(s["aqm_drops"])), label=f"{name}: AQM drops", color=COLORS.get(name))
        ax.plot(s["t_ms"], list(itertools.accumulate(s["overflow_drops"])), "--", label=f"{name}: overflows", color=COLORS.get(name))
    ax.set_xlabel("time (ms)")
    ax.set_ylabel("cumulative packet drops")
    ax.set_title("Fig. 8(b): drops over time, short flows at 50 % load beside a long flow", fontsize=9)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


XLABELS = {
    "fig5": ("request size per server S (kB)", "Figs. 5/6: incast, 40 servers, one long-lived flow"),
    "fig9": ("number of senders (1 MB total)", "Figs. 9/10: incast, 1 MB split over n senders, one long-lived flow"),
    "fig11": ("offered load of short flows (fraction of 1 Gb/s)", "Fig. 11: Poisson short flows [2, 98] kB beside one long-lived flow"),
}


def main(argv: list[str] | None = None) -> int:
    """Command line: run a ``experiments/codel-dc`` file and draw its figure."""
    parser = argparse.ArgumentParser(prog="python -m qdsim.dcfigs", description=__doc__.split("\n")[0])
    parser.add_argument("spec")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--repetitions", type=int)
    parser.add_argument("--set", action="append", default=[], dest="sets")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    _, spec = load(args.spec, args.sets)
    stem = Path(args.spec).stem
    out_dir = args.out or Path("results") / spec.experiment.name
    out_dir.mkdir(parents=True, exist_ok=True)
    png = out_dir / f"{stem}.png"
    if stem == "fig7":
        data: Any = event_series(args.spec, args.sets)
        draw_fig7(data, png)
    elif stem == "fig8b":
        data = event_series(args.spec, args.sets)
        draw_fig8b(data, png)
    else:
        rows = run_points(args.spec, args.sets, jobs=args.jobs, repetitions=args.repetitions)
        if stem == "fig3":
            data = draw_fig3(rows, png)
        else:
            xlabel, title = XLABELS.get(stem, ("swept value", stem))
            table = draw_comparison(rows, png, title, xlabel)
            data = {name: {str(x): m for x, m in by_x.items()} for name, by_x in table.items()}
    (out_dir / f"{stem}.json").write_text(json.dumps(data, indent=1, default=str))
    print(f"figure written to {png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
