"""Human-readable output: the tables ``qdsim run`` and ``qdsim list`` print (rich), and the
plain, 80-column text of ``qdsim results``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["print_catalog", "print_results", "print_rows", "print_run", "print_status", "print_tcp_profiles"]


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


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _aligned(rows: list[tuple[str, ...]], right_from: int) -> list[str]:
    """Returns ``rows`` as lines of left-aligned then (from column ``right_from``) right-aligned cells."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i >= right_from else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


def print_results(found: list[Any]) -> None:
    """Prints one line per results directory (``qdsim results list``): path, kind,
    experiment, runs in its tables, stale stored runs and size."""
    if not found:
        print("no results directories found")
        return
    rows = [("directory", "kind", "experiment", "runs", "stale", "size")]
    for s in found:
        experiment = s.experiment or "?"
        rows.append((s.path, s.kind or "?", experiment if len(experiment) <= 24 else experiment[:21] + "...", str(s.runs), str(s.stale) if s.kind == "sweep" else "-", _size(s.bytes)))
    for line in _aligned(rows, 3):
        print(line)
    stale = sum(s.stale for s in found)
    if stale:
        print(f"{stale} stale stored runs (older code, or not in the last grid): `qdsim results show DIR` says which, `qdsim results prune DIR` deletes them")


def print_status(s: Any) -> None:
    """Prints what one results directory holds (``qdsim results show``)."""
    print(f"{s.path}: {s.kind} results of experiment {s.experiment!r}, {_size(s.bytes)}")
    if s.file:
        print(f"  experiment file  {s.file}")
    if s.kind == "sweep":
        grid = "; ".join(f"{k} ({len(v)}: {', '.join(map(str, v[:4]))}{', ...' if len(v) > 4 else ''})" for k, v in s.grid.items()) or "none"
        print(f"  grid             {grid}")
        print(f"  repetitions      {s.repetitions}")
        print(f"  code version     {s.code_version}")
        print(f"  runs             {s.planned} planned, {s.planned - s.missing} stored, {s.missing} missing")
        print(f"  stale runs       {s.stale_version} of an older code version, {s.stale_grid} not in the grid, {s.legacy} in the old JSON format")
        if s.stale:
            print(f"                   (`qdsim results prune {s.path}` deletes them)")
    tables = ", ".join(f"{name} {rows}" for name, rows in s.tables.items()) or "none"
    print(f"  tables (rows)    {tables}")


def print_rows(columns: list[str], rows: list[tuple[Any, ...]], limit: int = 200) -> None:
    """Prints query results as an aligned table (the first ``limit`` rows)."""

    def cell(value: Any) -> str:
        text = "NULL" if value is None else f"{value:.6g}" if isinstance(value, float) else str(value)
        return text if len(text) <= 40 else text[:37] + "..."

    shown = [tuple(columns)] + [tuple(cell(v) for v in row) for row in rows[:limit]]
    for line in _aligned(shown, len(columns)):
        print(line)
    more = f", the first {limit} shown (--csv prints all)" if len(rows) > limit else ""
    print(f"({len(rows)} rows{more})")
