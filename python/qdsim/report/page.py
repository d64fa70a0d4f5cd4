"""The report page: one HTML file that holds everything it shows and opens offline.

plotly.js is embedded once, inline, from the plotly package (no CDN, no request of any
kind: a report mailed, archived or opened on a plane draws the same), then each figure is a
``<div>`` with its data. The page is a header (what was run, by which qdsim, when), a table
of contents and sections, each the tables and charts its results have data for, or a line
saying what is missing and which ``[sampling]`` key would record it. ``<body data-figures>``
counts the figures, so a test (or a reader) can check that each one drew.
"""

from __future__ import annotations

import datetime
import html
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import plotly
import plotly.io as pio
from plotly.offline import get_plotlyjs

from ..errors import SpecError
from ..results import store
from ..results.selection import SEED_KEY
from ..run.one import code_version
from ..version import __version__
from . import figures
from .source import ResultsDir, open_results
from .style import Chart
from .summary import facts_table, group_table, link_table, validation_tables
from .tcp import tcp_html

__all__ = ["Section", "report_path", "write_report"]

#: plotly's configuration of every figure: no logo, no cloud button; images saved as SVG.
_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"format": "svg"}}

_CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: #222; margin: 0; background: #fafafa; }
header, main, nav, footer { max-width: 1180px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; }
h1 { font-size: 1.7em; margin: 0.2em 0; }
h2 { border-bottom: 2px solid #0072B2; padding-bottom: 4px; margin-top: 2em; }
h3 { font-size: 1.05em; margin: 1.4em 0 0.4em; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 2px 14px; margin: 8px 0; }
dl.meta dt { color: #555; }
dl.meta dd { margin: 0; }
nav ol { columns: 3; padding-left: 1.2em; }
section { background: white; border: 1px solid #e2e2e2; border-radius: 6px; padding: 4px 20px 16px; margin: 18px 0; }
figure.chart { margin: 14px 0 22px; }
figcaption, .note { color: #444; font-size: 0.92em; }
.table-wrap { overflow-x: auto; margin: 10px 0; }
table { border-collapse: collapse; font-size: 0.9em; }
caption { caption-side: top; text-align: left; color: #444; padding: 4px 0; }
th, td { padding: 3px 9px; border-bottom: 1px solid #e6e6e6; text-align: left; vertical-align: top; }
th { background: #f0f4f8; font-weight: 600; }
th[title], td[title] { cursor: help; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.verdict-disagree { color: #D55E00; font-weight: 600; }
pre { background: #f6f6f6; padding: 10px; overflow-x: auto; font-size: 0.85em; max-height: 480px; }
details summary { cursor: pointer; margin: 6px 0; }
footer { color: #666; font-size: 0.85em; padding: 16px 24px 40px; }
"""


@dataclass
class Section:
    """One section of the page: its title and its parts, HTML or charts, in order."""

    title: str
    parts: list[str | Chart] = field(default_factory=list)

    @property
    def anchor(self) -> str:
        """Returns the section's id in the page (for the table of contents)."""
        return "".join(c if c.isalnum() else "-" for c in self.title.lower()).strip("-")


def _note(text: str) -> str:
    return f'<p class="note">{html.escape(text)}</p>'


def report_path(results_dir: Path, out: str | Path | None) -> Path:
    """Returns where the report goes: ``out``, or ``RESULTS_DIR/report.html``; raises
    SpecError (key ``--out``) unless it is an HTML file in a directory that exists."""
    if out is None:
        return Path(results_dir) / store.REPORT
    path = Path(out)
    if path.is_dir():
        raise SpecError("--out", str(path), "an HTML file to write, e.g. report.html (this is a directory)")
    if path.suffix.lower() not in (".html", ".htm"):
        raise SpecError("--out", str(path), "a file ending in .html")
    if not path.parent.is_dir():
        raise SpecError("--out", str(path), f"a file in an existing directory ({path.parent}/ does not exist: create it first)")
    return path


def write_report(results_dir: str | Path, out: str | Path | None = None) -> Path:
    """Writes the HTML report of a results directory (``qdsim run``, ``sweep``,
    ``reproduce`` or ``validate``) to ``out`` (default ``RESULTS_DIR/report.html``);
    returns its path. Raises SpecError for a directory that holds no results or an ``out``
    that cannot be written."""
    src = open_results(results_dir)
    path = report_path(src.path, out)
    sections = _sections(src)
    # Atomically: Ctrl-C while writing leaves the old page or none, never half of one.
    store.write_text(path, _page(src, sections))
    return path


# --- the sections -----------------------------------------------------------------------------


def _experiment(src: ResultsDir) -> Section:
    parts: list[str | Chart] = []
    recorded = src.experiment_file()
    if recorded is not None:
        path, text = recorded
        same = "it still reads as the results' spec.json" if src.file_matches_spec(text) else "it differs from the results' spec.json (overrides, or edited since): spec.json is what ran"
        parts.append(f"<details><summary>The experiment file, {html.escape(str(path))} ({same})</summary><pre>{html.escape(text)}</pre></details>")
    spec_text = json.dumps(src.spec, indent=2, ensure_ascii=False)
    parts.append(f"<details><summary>spec.json: the experiment file as it ran (overrides applied)</summary><pre>{html.escape(spec_text)}</pre></details>")
    parts.append("<h3>TCP options</h3>" + tcp_html(src))
    return Section("Experiment", parts)


def _summary(src: ResultsDir) -> Section:
    parts: list[str | Chart] = [t for t in (facts_table(src), group_table(src), link_table(src)) if t]
    notes = src.summary.get("notes", [])
    parts += [_note(f"note: {n}") for n in notes]
    return Section("Summary", parts)


def _charts_or(charts: list[Chart], missing: str) -> list[str | Chart]:
    return list(charts) if charts else [_note(missing)]


def _run_sections(src: ResultsDir) -> list[Section]:
    fct, fct_notes = figures.completion_charts(src)
    sections = [
        Section("Throughput and fairness", _charts_or(figures.throughput_charts(src), "No flow groups in the results.")),
        Section("Queues", _charts_or(figures.queue_charts(src), "No queue samples with a queue: sample them with [sampling] queues = true.")),
        Section("Drops and marks", _charts_or(figures.drop_charts(src), "No link dropped or marked a packet in the measurement window.")),
        Section("TCP state", _charts_or(figures.tcp_charts(src), "No TCP samples: record them with [sampling] tcp = true (or tcp_on_change = true).")),
    ]
    if fct or fct_notes:
        sections.append(Section("Flow completion times", [*fct, *(_note(n) for n in fct_notes)]))
    return sections


def _sweep_figures() -> ModuleType:
    """Returns :mod:`qdsim.report.sweep_figures`, imported when a sweep's or a validation's
    page is made: its numbers are :func:`qdsim.plot.sweep.draw_sweep`'s, which loads
    matplotlib (0.2 s) that a run's page does without."""
    from . import sweep_figures

    return sweep_figures


def _sweep_sections(src: ResultsDir) -> list[Section]:
    sweep_figures = _sweep_figures()
    if not src.has("points"):
        return [Section("Metrics against the swept keys", [_note("No runs stored yet: `qdsim sweep` (or `reproduce`) runs them, resuming where it stopped.")])]
    charts, notes = sweep_figures.metric_charts(src)
    if not [k for k in src.grid if k != SEED_KEY]:
        notes.append("No swept keys: the tables give the means over the repetitions.")
    queue = sweep_figures.sweep_queue_chart(src)
    sections = [Section("Metrics against the swept keys", [*charts, *(_note(n) for n in notes)])]
    sections.append(Section("Queues", [queue] if queue else [_note("No queue samples: sample them with [sampling] queues = true.")]))
    return sections


def _sections(src: ResultsDir) -> list[Section]:
    if src.kind == "validation":
        assert src.qdsim is not None
        parts: list[str | Chart] = [validation_tables(src)]
        chart = _sweep_figures().validation_chart(src)
        if chart is not None:
            parts.append(chart)
        qdsim_summary = _summary(src.qdsim)
        qdsim_summary.title = "qdsim's runs"
        return [_experiment(src), Section("Validation against the reference engines", parts), qdsim_summary]
    builders: dict[str, Callable[[ResultsDir], list[Section]]] = {"run": _run_sections, "sweep": _sweep_sections}
    return [_experiment(src), _summary(src), *builders[src.kind](src)]


# --- the page ---------------------------------------------------------------------------------


def _header(src: ResultsDir) -> str:
    kind = {"run": "one run (qdsim run)", "sweep": "a sweep (qdsim sweep / reproduce)", "validation": "a validation against reference engines (qdsim validate)"}[src.kind]
    grid = src.qdsim.grid if src.qdsim is not None else src.grid
    sweep = src.qdsim.sweep if src.qdsim is not None else src.sweep
    items = [
        ("experiment", src.name),
        ("kind", kind),
        ("results", str(src.path)),
        ("written", f"{src.written()} by qdsim {src.qdsim_version() or 'of unknown version'}"),
        ("code version", src.code_version() or "not recorded (a run's results are not keyed by it)"),
    ]
    if src.kind != "run":
        axes = "; ".join(f"{k} ({len(v)} values)" for k, v in grid.items()) or "none"
        items += [("swept keys", axes), ("repetitions", str(sweep.get("repetitions"))), ("runs in the tables", str(len(src.rows("points") if src.qdsim is None else src.qdsim.rows("points"))))]
    if sweep.get("engine_title"):
        items.append(("simulator", f"{sweep['engine_title']} (a reference engine, not qdsim)"))
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    items.append(("report", f"{now}, qdsim {__version__} (code version {code_version()})"))
    rows = "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in items)
    return f'<header><h1>{html.escape(src.name)}</h1><dl class="meta">{rows}</dl></header>'


def _render_chart(chart: Chart, number: int) -> str:
    height = int(chart.figure.layout.height or 420)
    div = pio.to_html(chart.figure, include_plotlyjs=False, full_html=False, div_id=f"figure-{number}", config=_CONFIG, default_width="100%", default_height=f"{height}px")
    caption = f"<figcaption>{html.escape(chart.caption)}</figcaption>" if chart.caption else ""
    return f'<figure class="chart"><h3>{html.escape(chart.title)}</h3>{div}{caption}</figure>'


def _page(src: ResultsDir, sections: list[Section]) -> str:
    count = 0
    body = []
    for section in sections:
        parts = []
        for part in section.parts:
            if isinstance(part, Chart):
                count += 1
                parts.append(_render_chart(part, count))
            else:
                parts.append(part)
        body.append(f'<section id="{section.anchor}"><h2>{html.escape(section.title)}</h2>{"".join(parts)}</section>')
    toc = "".join(f'<li><a href="#{s.anchor}">{html.escape(s.title)}</a></li>' for s in sections)
    footer = (
        f"Made by qdsim {__version__}. Self-contained: plotly.js {_plotlyjs_version()} (of plotly {plotly.__version__}) is embedded, nothing is fetched. "
        "Figures aggregate per flow group and thin long series so the page stays small; every number is in the Parquet tables beside the results."
    )
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
            f'<meta name="generator" content="qdsim {html.escape(__version__)}"><title>qdsim report: {html.escape(src.name)}</title>',
            f"<style>{_CSS}</style>",
            f'<script type="text/javascript">{get_plotlyjs()}</script>',
            f'</head><body data-figures="{count}">',
            _header(src),
            f"<nav><h2>Contents</h2><ol>{toc}</ol></nav>",
            f"<main>{''.join(body)}</main>",
            f"<footer>{html.escape(footer)}</footer>",
            "</body></html>",
        ]
    )


def _plotlyjs_version() -> str:
    """Returns the version of the plotly.js bundle embedded (its header says it)."""
    head = get_plotlyjs()[:200]
    marker = "plotly.js v"
    return head[head.index(marker) + len(marker) :].split()[0] if marker in head else "(bundled with plotly)"
