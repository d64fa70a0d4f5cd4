"""Human-readable output: the tables ``qdsim run`` prints (rich), and the plain text of
``qdsim list``, ``qdsim results`` and ``qdsim compare``.

Everything fits 80 columns (the width of a pipe or a log, and of a terminal at its
narrowest): headers name the quantity and its unit over two lines, rather than being cut.
Text that comes from files or the catalog (group names, summaries such as
``[size_min, size_max]``) is escaped before rich sees it, so its brackets are never taken
for markup.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..results.links import links_shown
from .common import clip

__all__ = ["catalog_block", "catalog_lines", "catalog_names", "comparison_lines", "print_catalog", "print_comparison", "print_results", "print_rows", "print_run", "print_status", "print_tcp_profiles"]

#: The width of plain-text output.
WIDTH = 80


def _num(value: float | None, scale: float = 1.0, digits: int = 2) -> str:
    return "-" if value is None else f"{value * scale:.{digits}f}"


def _table(title: str, columns: list[str]) -> Table:
    """Returns a rich table whose first column is left-aligned and never wrapped, the others
    right-aligned; borders are a rule under the headers only, to leave the width to data."""
    table = Table(title=escape(title), box=box.SIMPLE_HEAD, padding=(0, 1), title_justify="left")
    for i, column in enumerate(columns):
        table.add_column(escape(column), justify="left" if i == 0 else "right", no_wrap=i == 0)
    return table


class _Console(Console):
    """rich's console, but a reader that leaves (``qdsim run ... | head``) ends the command
    as every other output of the command line does (exit status 141, nothing printed): rich's
    own answer is ``SystemExit(1)``, which looked like a failure."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


def print_run(name: str, summary: dict[str, Any], out: Path, console: Console | None = None) -> None:
    """Prints a run's per-group and per-link tables and where the results were written."""
    console = console or _Console()
    console.print(
        f"[bold]{escape(name)}[/bold]  seed {summary['seed']}  window {summary['warmup_s']:g}-{summary['duration_s']:g} s  "
        f"Jain's index {_num(summary['jain_index'], digits=3)}  {summary['events']:,} events in {summary['wall_s']:.2f} s"
    )
    groups = _table(
        "flow groups over the window",
        ["group", "flows", "goodput\n(Mb/s)", "per flow\n(Mb/s)", "per flow /\nfair share", "retrans-\nmissions", "time-\nouts"],
    )
    for g in summary["groups"]:
        groups.add_row(
            escape(g["group"]),
            str(g["flows"]),
            _num(g["goodput_bps"], 1e-6, 3),
            _num(g["per_flow_goodput_bps"], 1e-6, 3),
            _num(g["fair_share_ratio"]),
            str(g["retransmits"]),
            str(g["timeouts"]),
        )
    console.print(groups)
    with_fct = any(g["mean_fct_s"] is not None for g in summary["groups"])
    delays = _table(
        "queueing delay" + (" and completion times (FCT: transfers started in the window; unfinished ones counted until the end)" if with_fct else ""),
        ["group", "mean delay\n(ms)", "p95 delay\n(ms)"] + (["mean FCT\n(s)", "unfinished\ntransfers"] if with_fct else []),
    )
    for g in summary["groups"]:
        fct = [_num(g["mean_fct_s"], digits=3), str(g["unfinished_transfers"]) if g["mean_fct_s"] is not None else "-"] if with_fct else []
        delays.add_row(escape(g["group"]), _num(g["mean_queue_delay_s"], 1e3, 1), _num(g["p95_queue_delay_s"], 1e3, 1), *fct)
    console.print(delays)
    links = _table("links", ["link", "qdisc", "utili-\nsation", "drops\n(pkts)", "mean queue\n(pkts)", "mean delay\n(ms)", "p95 delay\n(ms)"])
    # A topology of 100 hosts has 200 busy access links: the rest are summarised in one line.
    chosen = links_shown(summary["links"], summary["bottleneck"])
    for link in chosen.shown:
        links.add_row(
            escape(link["name"]),
            escape(link["qdisc"]),
            f"{link['utilization']:.3f}",
            str(link["drops"]),
            f"{link['mean_queue_pkts']:.1f}",
            _num(link["mean_delay_s"], 1e3),
            _num(link["p95_delay_s"], 1e3),
        )
    console.print(links)
    rest = chosen.rest_line()
    if rest:
        console.print(rest)
    for note in summary.get("notes", []):
        console.print(f"note: {escape(note)}")
    console.print(f"results written to {escape(str(out))}/")


#: The catalog's sections: key, heading, and the experiment-file key their names go in.
CATALOG_SECTIONS = (("qdiscs", "queue disciplines", "topology.qdisc.kind"), ("cc", "congestion controls", "flows.cc"), ("traffic", "traffic kinds", "flows.kind"))


def _wrapped(text: str, first: str, indent: int) -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=first, subsequent_indent=" " * indent, break_on_hyphens=False) or [first.rstrip()]


def catalog_block(item: dict[str, Any]) -> list[str]:
    """Returns one algorithm's block of ``qdsim list``: its name and summary, then each
    parameter as ``name (unit, default ...): help``, wrapped at 80 columns."""
    lines = _wrapped(item.get("summary", ""), f"{item['name']}: ", 4)
    for p in item.get("params", []):
        lines += _wrapped(p["help"], f"  {p['name']} ({p['unit']}, default {p['default']}): ", 6)
    return lines


def catalog_lines(catalog: dict[str, Any], name: str | None = None) -> list[str]:
    """Returns the text of ``qdsim list`` (``name``: the blocks of that algorithm, congestion
    control or traffic kind only; ``tcp-profiles``: the profiles only)."""
    lines: list[str] = []
    for section, heading, key in CATALOG_SECTIONS:
        items = [item for item in catalog.get(section, []) if name in (None, item["name"])]
        if not items:
            continue
        if name is None:
            lines += [f"== {heading} ({key}) ==", ""]
        for item in items:
            lines += [*catalog_block(item), ""]
    if name in (None, "tcp-profiles"):
        lines += tcp_profile_lines(catalog)
    return lines[:-1] if lines and lines[-1] == "" else lines


def catalog_names(catalog: dict[str, Any]) -> list[str]:
    """Returns every name ``qdsim list NAME`` takes."""
    return [item["name"] for section, _, _ in CATALOG_SECTIONS for item in catalog.get(section, [])] + ["tcp-profiles"]


def print_catalog(catalog: dict[str, Any], name: str | None = None) -> None:
    """Prints :func:`catalog_lines`."""
    print("\n".join(catalog_lines(catalog, name)))


def tcp_profile_lines(catalog: dict[str, Any]) -> list[str]:
    """Returns every TCP profile's value of every option (sources: ``docs/tcp-profiles.md``)
    as tables of the options by profile, 80 columns wide: as many profiles side by side as fit
    values of at least 10 characters, the rest in a second table below."""
    profiles = catalog.get("tcp_profiles", [])
    if not profiles:
        return []
    values = [{o["option"]: o["value"] for o in p["options"]} for p in profiles]
    # The congestion control and the hosts' timing first (profile rows, not TCP options).
    options = [*(o["option"] for o in profiles[0]["options"] if o["option"] in ("cc", "host_jitter")), *(o["name"] for o in catalog.get("tcp", []))]
    name_w = max(map(len, options))
    per_table = max(1, (WIDTH - name_w) // 12)
    lines = ["== TCP profiles (flows.tcp.profile; * the default; docs/tcp-profiles.md) =="]
    cut: list[str] = []
    for first in range(0, len(profiles), per_table):
        chunk = list(range(first, min(first + per_table, len(profiles))))
        width = max(10, (WIDTH - name_w - 2 * len(chunk)) // len(chunk))
        rows = [("option", *(profiles[i]["name"] + ("*" if profiles[i]["default"] else "") for i in chunk))]
        rows += [(option, *(clip(values[i].get(option, ""), width) for i in chunk)) for option in options]
        cut += [f"  {option} ({profiles[i]['name']}): {values[i][option]}" for option in options for i in chunk if len(values[i].get(option, "")) > width]
        lines += ["", *_aligned(rows, len(rows[0]))]
    return [*lines, *(["", "values cut above:", *cut] if cut else [])]


def print_tcp_profiles(catalog: dict[str, Any], console: Console | None = None) -> None:
    """Prints the TCP profiles' table (:func:`tcp_profile_lines`)."""
    print("\n".join(tcp_profile_lines(catalog)))


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _aligned(rows: list[tuple[str, ...]], right_from: int) -> list[str]:
    """Returns ``rows`` as lines of left-aligned then (from column ``right_from``) right-aligned cells."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.rjust(w) if i >= right_from else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))).rstrip() for row in rows]


#: The width every listing keeps to, a terminal's or a file's (`qdsim ... > file`).
WIDTH = 80


def _folded(name: str, rest: str, name_width: int) -> list[str]:
    """Returns one line, ``name`` padded then ``rest``, or two (``name`` alone, ``rest``
    indented under the others' details) where ``name`` is wider than ``name_width``."""
    if len(name) <= name_width:
        return [f"{name.ljust(name_width)}  {rest}".rstrip()]
    return [name, f"{'':{name_width}}  {rest}".rstrip()]


def print_results(found: list[Any]) -> None:
    """Prints each results directory (``qdsim results list``) within 80 columns: path, kind,
    runs in its tables, stale stored runs and size, then, on a line of its own, the
    experiment when the directory is not named after it; a path too long for its column
    takes a line of its own."""
    if not found:
        print("no results directories found")
        return
    details = [(s.kind or "?", str(s.runs), str(s.stale) if s.kind == "sweep" else "-", _size(s.bytes)) for s in found]
    head = ("kind", "runs", "stale", "size")
    widths = [max(len(row[i]) for row in [head, *details]) for i in range(4)]

    def rest(row: tuple[str, ...]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True)))

    paths = [_relative(s.path) for s in found]
    name_width = min(max(len(p) for p in [*paths, "directory"]), WIDTH - len(rest(head)) - 2)
    print(f"{'directory'.ljust(name_width)}  {rest(head)}".rstrip())
    for s, path, row in zip(found, paths, details, strict=True):
        for line in _folded(path, rest(row), name_width):
            print(line)
        experiment = s.experiment or "?"
        if not Path(path).name.startswith(experiment) and not Path(path).parent.name.startswith(experiment):
            print(f"  experiment {experiment}")
    stale = sum(s.stale for s in found)
    if stale:
        print(f"{stale} stale stored runs (older code, or not in the last grid):")
        print("  `qdsim results show DIR` says which, `qdsim results prune DIR` deletes them")


def _relative(path: Any) -> str:
    """Returns ``path`` from the working directory on when it is under it (as typed there)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except (ValueError, OSError):
        return str(path)


def print_status(s: Any) -> None:
    """Prints what one results directory holds (``qdsim results show``), within 80 columns:
    a long field wraps under its value, a swept table is shown by its ``kind``."""

    def field(label: str, text: str) -> None:
        lines = textwrap.wrap(text, WIDTH - 19, break_on_hyphens=False, break_long_words=False) or [""]
        print(f"  {label:<16} {lines[0]}")
        for line in lines[1:]:
            print(f"{'':19}{line}")

    def value(v: Any) -> str:
        return str(v.get("kind", v)) if isinstance(v, dict) else str(v)

    print(f"{_relative(s.path)}:")
    field("holds", f"{s.kind} results of experiment {s.experiment!r}, {_size(s.bytes)}")
    if s.file:
        field("experiment file", _relative(s.file))
    if s.kind == "sweep":
        grid = "; ".join(f"{k} ({len(v)}: {', '.join(map(value, v[:4]))}{', ...' if len(v) > 4 else ''})" for k, v in s.grid.items()) or "none"
        field("grid", grid)
        field("repetitions", str(s.repetitions))
        field("code version", str(s.code_version))
        field("runs", f"{s.planned} planned, {s.planned - s.missing} stored, {s.missing} missing")
        field("stale runs", f"{s.stale_version} of an older code version, {s.stale_grid} not in the grid, {s.legacy} in the old JSON format")
        if s.stale:
            field("", f"(`qdsim results prune {_relative(s.path)}` deletes them)")
    tables = ", ".join(f"{name} {rows}" for name, rows in s.tables.items()) or "none"
    field("tables (rows)", tables)


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


def _compact(text: str) -> str:
    """Returns a number's text with a short exponent (``2.288e+06`` → ``2.288e6``), so that a
    comparison row of any magnitudes fits 80 columns."""
    mantissa, e, exponent = text.partition("e")
    return f"{mantissa}e{int(exponent)}" if e else text


def _fmt(value: float | None) -> str:
    return "-" if value is None else _compact(f"{value:.4g}")


def _signed(value: float | None) -> str:
    return "-" if value is None else _compact(f"{value:+.3g}")


def _change(diff: float | None, base: float | None) -> str:
    """Returns the relative change in per cent (``+20.0 %``), at most 8 characters."""
    if diff is None or not base:
        return "-"
    pct = 100 * diff / base
    return f"{pct:+.1f} %" if abs(pct) < 1000 else _compact(f"{pct:+.0e}") + " %"


def comparison_lines(comparison: Any, every: bool = False) -> list[str]:
    """Returns the text of ``qdsim compare``: a block per compared row (a table and, in
    sweeps, the swept values), one line per metric that differs (``every``: all) with A, B,
    ``B − A``, the 95 % CI of the difference and the relative change; 80 columns wide."""
    from ..results.compare import row_text

    reps_a, reps_b = comparison.repetitions
    lines = [f"A: {comparison.a} ({comparison.kind}{f', {reps_a} repetitions' if comparison.kind == 'sweep' else ''})"]
    lines.append(f"B: {comparison.b} ({comparison.kind}{f', {reps_b} repetitions' if comparison.kind == 'sweep' else ''})")
    if comparison.kind == "sweep":
        lines.append("values: means over the repetitions; ±: 95% CI of B - A (Welch's t)")
    shown = [d for d in comparison.differences if every or not d.equal]
    blocks: dict[str, list[Any]] = {}
    for d in shown:
        blocks.setdefault(f"{d.table}: {row_text(d.row)}", []).append(d)
    for title, rows in blocks.items():
        with_ci = comparison.kind == "sweep"
        table = [("  metric", "A", "B", "B - A", *(["±"] if with_ci else []), "change")]
        for d in rows:
            ci = [_fmt(d.ci95) if d.ci95 is not None else "-"] if with_ci else []
            table.append((f"  {clip(d.metric, 24)}", _fmt(d.a), _fmt(d.b), _signed(d.diff), *ci, _change(d.diff, d.a)))
        lines += ["", *_wrapped(title, "", 4), *_aligned(table, 1)]
    differ = sum(1 for d in comparison.differences if not d.equal)
    total = len(comparison.differences)
    lines.append("")
    if differ == 0:
        lines.append(f"all {total} compared values are equal")
    else:
        lines.append(f"{differ} of {total} compared values differ" + ("" if every else " (--all also prints the equal ones)"))
    for name, only in (("A", comparison.only_a), ("B", comparison.only_b)):
        if only:
            lines += _wrapped("; ".join(only[:6]) + ("; ..." if len(only) > 6 else ""), f"only in {name} ({len(only)} rows): ", 4)
    return lines


def print_comparison(comparison: Any, every: bool = False) -> None:
    """Prints :func:`comparison_lines`."""
    print("\n".join(comparison_lines(comparison, every)))
