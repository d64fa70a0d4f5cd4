"""Human-readable output: the tables ``qdsim run`` and ``qdsim list`` print (rich)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_run", "print_catalog"]


def _rate(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.3f} Mb/s"


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.2f} ms"


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def print_run(name: str, summary: dict[str, Any], out: Path, console: Console | None = None) -> None:
    """Prints a run's per-group and per-link tables and where the results were written."""
    console = console or Console()
    jain = _num(summary["jain_index"], 3)
    console.print(
        f"[bold]{name}[/bold]  seed {summary['seed']}  window {summary['warmup_s']:g}-{summary['duration_s']:g} s  "
        f"Jain {jain}  {summary['events']:,} events in {summary['wall_s']:.2f} s"
    )
    groups = Table(title="flow groups (over the measurement window)")
    for column in ("group", "flows", "goodput", "per flow", "share of fair", "mean qdelay", "p95 qdelay", "retx", "timeouts", "mean FCT"):
        groups.add_column(column, justify="left" if column == "group" else "right")
    for g in summary["groups"]:
        groups.add_row(
            g["group"],
            str(g["flows"]),
            _rate(g["goodput_bps"]),
            _rate(g["per_flow_goodput_bps"]),
            _num(g["fair_share_ratio"]),
            _ms(g["mean_queue_delay_s"]),
            _ms(g["p95_queue_delay_s"]),
            str(g["retransmits"]),
            str(g["timeouts"]),
            "-" if g["mean_fct_s"] is None else f"{g['mean_fct_s']:.3f} s",
        )
    console.print(groups)
    links = Table(title="links with traffic")
    for column in ("link", "qdisc", "utilization", "drops", "mean queue", "mean delay", "p95 delay"):
        links.add_column(column, justify="left" if column in ("link", "qdisc") else "right")
    busy = [link for link in summary["links"] if link["tx_pkts"] > 0 or link["arrivals"] > 0]
    busy.sort(key=lambda link: (link["name"] != summary["bottleneck"], -link["utilization"]))
    for link in busy:
        links.add_row(
            link["name"],
            link["qdisc"],
            f"{link['utilization']:.3f}",
            str(link["drops"]),
            f"{link['mean_queue_pkts']:.1f} pkt",
            _ms(link["mean_delay_s"]),
            _ms(link["p95_delay_s"]),
        )
    console.print(links)
    console.print(f"results written to {out}/")


def print_catalog(catalog: dict[str, Any], console: Console | None = None) -> None:
    """Prints the qdiscs, congestion controls and traffic kinds with their parameters."""
    console = console or Console()
    for section, title in (("qdiscs", "queue disciplines (topology.qdisc.kind)"), ("cc", "congestion controls (flows.cc)"), ("traffic", "traffic kinds (flows.kind)")):
        table = Table(title=title, show_lines=False)
        table.add_column("name")
        table.add_column("parameter")
        table.add_column("unit")
        table.add_column("default")
        table.add_column("description")
        for item in catalog.get(section, []):
            table.add_row(f"[bold]{item['name']}[/bold]", "", "", "", item.get("summary", ""))
            for p in item.get("params", []):
                table.add_row("", p["name"], p["unit"], p["default"], p["help"])
        console.print(table)
