"""The report's tables: the run's or sweep's key facts, flow groups, links, and a validation's
qdsim-against-engine comparison, as HTML.

Column headings are the names and units every qdsim figure uses
(:func:`qdsim.plot.labels.display`); hovering one shows the column's meaning from the
results tables' schema (:func:`qdsim.results.tables.column_list`, the core's doc comments).
A sweep's row is a grid point: the mean over its repetitions ± the 95 % confidence interval
(:func:`qdsim.results.stats.mean_ci`). A mean completion time that includes unfinished
transfers is written ``≥``: it is a lower bound. Long tables stop at :data:`MAX_ROWS` rows
and say where the rest are.
"""

from __future__ import annotations

import functools
import html
from collections.abc import Iterable, Sequence
from typing import Any

from ..plot.labels import display
from ..results import tables
from ..results.links import links_shown
from ..results.selection import SEED_KEY, cell_label
from ..results.stats import mean_ci
from .source import ResultsDir

__all__ = ["MAX_ROWS", "facts_table", "group_table", "html_table", "link_table", "number", "validation_tables"]

#: The most rows a table of the page shows.
MAX_ROWS = 200

GROUP_COLUMNS = (
    "flows",
    "goodput_bps",
    "per_flow_goodput_bps",
    "fair_share_ratio",
    "mean_queue_delay_s",
    "p95_queue_delay_s",
    "mean_fct_s",
    "transfers_completed",
    "unfinished_transfers",
    "drops",
    "retransmits",
    "timeouts",
)
LINK_COLUMNS = ("rate_bps", "utilization", "drops", "overflow_drops", "aqm_drops", "marks", "loss_rate", "mean_queue_pkts", "max_queue_pkts", "mean_delay_s", "p95_delay_s")
POINT_COLUMNS = ("jain_index", "bottleneck_utilization", "bottleneck_drops", "fair_share_bps", "events", "wall_s")
#: Columns shown only when some row has a value.
_OPTIONAL = ("mean_fct_s", "transfers_completed", "unfinished_transfers")


def number(value: float | None) -> str:
    """Returns a number as a table shows it: 4 significant digits, thousands separated,
    an exponent only for the very large and very small (``–`` for None)."""
    if value is None:
        return "–"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 1e9 or magnitude < 1e-4:
        return f"{value:.3e}"
    return f"{value:,.0f}" if magnitude >= 1000 else f"{value:.4g}"


@functools.cache
def _docs() -> dict[str, str]:
    """Returns every results column's meaning, by name (the first table declaring it)."""
    out: dict[str, str] = {}
    for table in tables.TABLES:
        for column in tables.column_list(table):
            out.setdefault(column.name, column.doc)
    return out


def _heading(column: str) -> tuple[str, str]:
    return display(column)[1], _docs().get(column, "")


def html_table(headings: Sequence[tuple[str, str]], rows: Iterable[Sequence[tuple[str, str]]], caption: str = "", numeric_from: int = 1) -> str:
    """Returns an HTML table: ``headings`` and cells are ``(text, tooltip)``; columns from
    ``numeric_from`` on are right-aligned numbers."""
    head = "".join(f'<th title="{html.escape(tip)}">{html.escape(text)}</th>' for text, tip in headings)
    body = []
    for row in rows:
        cells = []
        for i, (text, tip) in enumerate(row):
            attrs = (' class="num"' if i >= numeric_from else "") + (f' title="{html.escape(tip)}"' if tip else "")
            cells.append(f"<td{attrs}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    return f'<div class="table-wrap"><table>{cap}<thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def _mean_cell(column: str, values: list[Any]) -> tuple[str, str]:
    """Returns the cell of ``column`` over one grid point's runs: the value of one run, else
    the mean ± its 95 % CI (half-width), in the column's display unit."""
    known = [v for v in values if v is not None]
    if not known:
        return "–", ""
    scale = display(column)[0]
    if len(values) == 1:
        return number(_scaled(column, known[0])), ""
    missing_note = f" ({len(values) - len(known)} runs without a value)" if len(known) < len(values) else ""
    if all(v == known[0] for v in known):
        return number(_scaled(column, known[0])), f"the same in all {len(known)} runs{missing_note}"
    mean, ci = mean_ci([float(v) for v in known])
    missing = f"; {len(values) - len(known)} runs without a value" if len(known) < len(values) else ""
    return f"{number(mean * scale)} ± {number(ci * scale)}", f"mean over {len(known)} runs ± 95 % CI (Student's t){missing}"


def _grouped(rows: list[dict[str, Any]], ids: list[str]) -> dict[tuple[Any, ...], list[dict[str, Any]]]:
    out: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        out.setdefault(tuple(row[k] for k in ids), []).append(row)
    return out


def _swept(src: ResultsDir) -> list[str]:
    return [key for key in src.grid if key != SEED_KEY]


def _aggregated_table(src: ResultsDir, rows: list[dict[str, Any]], entity: str | None, columns: Sequence[str], caption: str) -> str:
    """Returns a table with one row per grid point and ``entity`` value (a run: per entity;
    ``entity`` None: per grid point)."""
    swept = _swept(src)
    ids = [*swept, entity] if entity else swept
    columns = [c for c in columns if c not in _OPTIONAL or any(r.get(c) is not None for r in rows)]
    label = {"name": "link", None: "runs"}.get(entity, entity)
    headings = [(key.rsplit(".", 1)[-1], key) for key in swept] + ([(str(label), "")] if entity or not swept else []) + [_heading(c) for c in columns]
    body = []
    grouped = _grouped(rows, ids)
    for ident, members in list(grouped.items())[:MAX_ROWS]:
        cells = [(cell_label(value, src.grid[key]), str(value)) for key, value in zip(swept, ident, strict=False)]
        if entity or not swept:
            cells.append((str(ident[-1]) if entity else f"all {len(members)}", ""))
        for column in columns:
            text, tip = _mean_cell(column, [m.get(column) for m in members])
            unfinished = sum(m.get("unfinished_transfers") or 0 for m in members)
            if column == "mean_fct_s" and unfinished and text != "–":
                text, tip = f"≥ {text}", f"includes {unfinished} transfers unfinished at the end of the run (counted until then): a lower bound. {tip}".strip()
            cells.append((text, tip))
        body.append(cells)
    more = f" The first {MAX_ROWS} of {len(grouped)} rows." if len(grouped) > MAX_ROWS else ""
    return html_table(headings, body, caption + more, numeric_from=len(swept) + (1 if entity or not swept else 0))


def group_table(src: ResultsDir) -> str:
    """Returns the flow groups' table (a sweep's: per grid point, means ± CI)."""
    rows = src.rows("groups")
    if not rows:
        return ""
    what = "over the measurement window" if src.kind == "run" else "per grid point: the mean over its repetitions ± 95 % CI"
    return _aggregated_table(src, rows, "group", GROUP_COLUMNS, f"Flow groups, {what}. Hover a heading for its meaning.")


def link_table(src: ResultsDir) -> str:
    """Returns the links' table: a run's bottleneck, dropping and busiest links
    (:func:`qdsim.results.links.links_shown`), or each grid point's bottleneck."""
    rows = src.rows("links")
    if not rows:
        return ""
    if src.kind == "run":
        chosen = links_shown(rows, src.summary.get("bottleneck"))
        rest = chosen.rest_line()
        caption = "Links: the bottleneck, every link that dropped, and the busiest others, over the measurement window." + (f" {rest}." if rest else "")
        return _aggregated_table(src, chosen.shown, "name", LINK_COLUMNS, caption)
    bottleneck = {p["point_key"]: p["bottleneck"] for p in src.rows("points")}
    rows = [r for r in rows if r["name"] == bottleneck.get(r["point_key"])]
    return _aggregated_table(src, rows, "name", LINK_COLUMNS, "The bottleneck link per grid point: the mean over its repetitions ± 95 % CI.")


def facts_table(src: ResultsDir) -> str:
    """Returns the run's own figures (Jain's index, the bottleneck, events, ...), per grid
    point for a sweep."""
    if src.kind == "run":
        point = {**src.summary, **(src.rows("points") or [{}])[0]}
        items = [
            ("seed", str(point["seed"]), "the run's seed"),
            ("measurement window", f"{point['warmup_s']:g}–{point['duration_s']:g} s", "counters and rates cover this window; *_total columns the whole run"),
            ("bottleneck", str(point.get("bottleneck")), _docs()["bottleneck"]),
        ] + [(_heading(c)[0], number(_scaled(c, point.get(c))), _docs().get(c, "")) for c in POINT_COLUMNS]
        return html_table([("quantity", ""), ("value", "")], [[(k, tip), (v, "")] for k, v, tip in items], "The run", numeric_from=1)
    return _aggregated_table(src, src.rows("points"), None, POINT_COLUMNS, "Each grid point's runs: the mean over its repetitions ± 95 % CI.")


def _scaled(column: str, value: Any) -> Any:
    scale = display(column)[0]
    return value * scale if value is not None and scale != 1 else value


def validation_tables(src: ResultsDir) -> str:
    """Returns, per reference engine of a validation, the table ``qdsim validate`` prints:
    each metric's mean ± 95 % CI on both sides, their ratio, the tolerance and the verdict."""
    from ..validation.validate import SHOWN, _cell

    doc = src.validation
    engines = doc.get("engines") or [doc]
    seeds = doc.get("seeds")
    parts = []
    for side in engines:
        title = side.get("title") or side.get("engine")
        parts.append(f"<h3>qdsim against {html.escape(str(title))}, {seeds} seeds each</h3>")
        if side.get("refused"):
            parts.append(f'<p class="note">Not run: {html.escape(side["refused"])}</p>')
            continue
        headings = [
            ("metric", ""),
            ("qdsim", "mean ± 95 % CI over the seeds"),
            (str(title), "mean ± 95 % CI over the seeds"),
            ("ratio", "qdsim's mean over the engine's"),
            ("tolerance", "stated before any run"),
            ("verdict", ""),
        ]
        body = []
        for row in side.get("rows", []):
            scale = SHOWN.get(row["column"], ("", 1.0, ""))[1]
            label = f"{row['label']} ({row['unit']})" if row.get("unit") else row["label"]
            ratio = row.get("ratio")
            body.append(
                [
                    (label, row["metric"]),
                    (_cell(row["qdsim_mean"], row["qdsim_ci"], scale), ""),
                    (_cell(row["reference_mean"], row["reference_ci"], scale), ""),
                    ("–" if ratio is None else f"{ratio:.3g}", ""),
                    (row["tolerance"], ""),
                    (row["verdict"], ""),
                ]
            )
        counts = {v: sum(r["verdict"] == v for r in side.get("rows", [])) for v in ("agree", "unclear", "disagree")}
        caption = f"{counts['agree']} agree, {counts['unclear']} unclear, {counts['disagree']} disagree (agree: within the tolerance; unclear: outside it, but the seeds cannot tell the means apart)."
        parts.append(html_table(headings, body, caption).replace('<td class="num">disagree</td>', '<td class="num verdict-disagree">disagree</td>'))
        for heading, items in (("Runs that failed (left out of the means)", side.get("failed")), ("Not exact in the engine", side.get("notes"))):
            if items:
                parts.append(f'<p class="note">{heading}:</p><ul class="note">' + "".join(f"<li>{html.escape(str(i))}</li>" for i in items) + "</ul>")
    return "\n".join(parts)
