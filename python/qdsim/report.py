"""Human-readable output: the tables ``qdsim run`` and ``qdsim list`` print (rich)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_catalog", "print_run", "print_tcp_profiles"]


def _num(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "-" if value is None else f"{value * scale:.{digits}f}"


#: Links below this utilisation, without drops, are summarised in one line.
_QUIET_UTILIZATION = 0.01


def _table(title: str, columns: list[str]) -> Table:
    table = Table(title=title)
    for i, column in enumerate(columns):
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=i == 0)
    return table


def print_run(name: str, summary: dict[str, Any], out: Path, console: Console | None = None) -> None:
    """Prints a run's per-group and per-link tables and where the results were written."""
    console = console or Console()
    console.print(
        f"[bold]{name}[/bold]  seed {summary['seed']}  window {summary['warmup_s']:g}-{summary['duration_s']:g} s  "
        f"Jain {_num(summary['jain_index'], digits=3)}  {summary['events']:,} events in {summary['wall_s']:.2f} s"
    )
    groups = _table(
        "flow groups over the window (rates Mb/s, delays ms, FCT s: mean over transfers started in the window, unfinished ones counted until the end)",
        ["group", "flows", "goodput", "per flow", "xfair", "qdelay", "p95", "retx", "RTOs", "FCT", "unfinished"],
    )
    for g in summary["groups"]:
        groups.add_row(
            g["group"],
            str(g["flows"]),
            _num(g["goodput_bps"], 1e-6, 3),
            _num(g["per_flow_goodput_bps"], 1e-6, 3),
            _num(g["fair_share_ratio"]),
            _num(g["mean_queue_delay_s"], 1e3, 1),
            _num(g["p95_queue_delay_s"], 1e3, 1),
            str(g["retransmits"]),
            str(g["timeouts"]),
            _num(g["mean_fct_s"], digits=3),
            str(g["unfinished_transfers"]) if g["mean_fct_s"] is not None else "",
        )
    console.print(groups)
    links = _table("links (queue in packets, delays ms)", ["link", "qdisc", "util", "drops", "queue", "delay", "p95"])
    busy = [link for link in summary["links"] if link["tx_pkts"] > 0 or link["arrivals"] > 0]
    shown = [link for link in busy if link["name"] == summary["bottleneck"] or link["drops"] > 0 or link["utilization"] >= _QUIET_UTILIZATION]
    shown.sort(key=lambda link: (link["name"] != summary["bottleneck"], -link["utilization"]))
    for link in shown:
        links.add_row(
            link["name"],
            link["qdisc"],
            f"{link['utilization']:.3f}",
            str(link["drops"]),
            f"{link['mean_queue_pkts']:.1f}",
            _num(link["mean_delay_s"], 1e3),
            _num(link["p95_delay_s"], 1e3),
        )
    console.print(links)
    if len(busy) > len(shown):
        console.print(f"{len(busy) - len(shown)} more links carried traffic (each < {_QUIET_UTILIZATION:.0%} utilised, no drops)")
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
    print_tcp_profiles(catalog, console)


def print_tcp_profiles(catalog: dict[str, Any], console: Console) -> None:
    """Prints every TCP profile's value of every option (sources: ``docs/tcp-profiles.md``)."""
    profiles = catalog.get("tcp_profiles", [])
    if not profiles:
        return
    table = Table(title="TCP profiles (flows.tcp.profile; the first is the default; sources in docs/tcp-profiles.md)")
    table.add_column("option")
    for p in profiles:
        table.add_column(p["name"] + (" (default)" if p["default"] else ""))
    values = [{o["option"]: o["value"] for o in p["options"]} for p in profiles]
    for option in catalog.get("tcp", []):
        table.add_row(option["name"], *(v.get(option["name"], "") for v in values))
    console.print(table)
