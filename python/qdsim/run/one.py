"""Running one resolved configuration on the core, and summarising what it produced.

:func:`run_config` hands the configuration to ``qdsim._core.run`` (which releases the GIL)
under a memory budget (:func:`default_memory_limit`), with an optional progress callback,
and measures wall-clock time; the sampled queue and TCP series come back as NumPy columns
(:func:`series_as_lists` turns them into lists for JSON), or as empty lists when the run
sampled none: NumPy is imported only by a run that sampled (``qdsim run`` of an unsampled
file imports neither NumPy nor pyarrow, 0.1–0.2 s of CPU). :func:`summarize` turns the core's
results into the summary ``qdsim run --json`` prints and the results tables hold: fairness,
per-flow, per-group (with users) and per-link figures. Counters (drops, retransmissions,
timeouts) cover the measurement window, their ``*_total`` columns the whole run. Completion
times are the core's (``fct_s`` and ``finished`` per flow; per group ``mean_fct_s`` over every
transfer that started in the window, an unfinished one counted until the end of the run,
with ``transfers_completed`` and ``unfinished_transfers``); they enter the summary in one
place, :func:`completion_times`.

:func:`code_version` names the code that computes a run's stored rows (the core, the
binding, this file and :mod:`qdsim.results.tables`); sweeps key their stored points by it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import statistics
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import _core
from ..errors import BudgetError, SpecError
from ..experiment.resolve import core_json
from ..experiment.tcp_options import resolved_options
from ..experiment.topologies import BOTTLENECK
from ..results.columns import CoreColumn
from ..results.links import LinkRows, link_named
from ..results.rows import Rows, field_values

__all__ = [
    "PACKAGE_ROOT",
    "PYTHON_SOURCES",
    "RunOutcome",
    "bottleneck_link",
    "code_version",
    "completion_times",
    "default_memory_limit",
    "group_tcp_options",
    "jain_index",
    "physical_memory",
    "run_config",
    "series_as_lists",
    "summarize",
    "user_of_flows",
]

#: The package's files that decide what a stored sweep point holds, beside the core: the
#: summary (this file), the tables' rows and schemas, and how the core's rows and the
#: tables' columns are read and made, as paths from the package's root (``python/qdsim/``).
#: Part of :func:`code_version`.
PYTHON_SOURCES = ("run/one.py", "results/tables.py", "results/series_tables.py", "results/columns.py", "results/arrays.py", "results/rows.py", "results/links.py")

#: The package's root, which :data:`PYTHON_SOURCES` are relative to.
PACKAGE_ROOT = Path(__file__).parent.parent

#: The share of physical memory a run's growing parts may hold by default, split between
#: the runs that execute at once: the process also holds fixed state, and a finished run's
#: results are copied (series to NumPy, rows to Arrow), so its peak is about twice this.
MEMORY_SHARE = 0.25


@dataclass(frozen=True)
class RunOutcome:
    """One finished run: its configuration, the core's results and the wall-clock time.

    ``results`` is the core's ``RunResults``: the groups as rows, the flows as rows (from
    the core a :class:`~qdsim.results.rows.Rows` of its columns, made as read), the links
    by column (``results["links"]``: one :class:`~qdsim.results.columns.CoreColumn` per
    field from the core, one list per field from a reference engine;
    :func:`qdsim.results.rows.rows_of` gives rows), the sampled series as NumPy columns
    (empty lists when the run sampled none)."""

    config: dict[str, Any]
    results: dict[str, Any]
    wall_s: float


def physical_memory() -> int | None:
    """Returns the machine's physical memory in bytes, None where the OS does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def default_memory_limit(concurrent: int = 1) -> int:
    """Returns the default memory budget of one run when ``concurrent`` runs execute at
    once on this machine: :data:`MEMORY_SHARE` of physical memory split between them (8 GB
    in all where the OS does not tell the physical memory)."""
    return int((physical_memory() or 32 * 10**9) * MEMORY_SHARE) // max(1, concurrent)


#: ``progress(now_s, end_s, events, memory_bytes)``, called about every 0.1 s of a run.
Progress = Callable[[float, float, int, int], object]


def run_config(config: dict[str, Any], memory_limit: int | None = None, progress: Progress | None = None, text: str | None = None) -> RunOutcome:
    """Simulates ``config`` (a ``RunConfig`` dict) and returns the outcome.

    ``memory_limit`` (bytes; default :func:`default_memory_limit`) bounds what grows with
    the run; ``progress`` is called about every 0.1 s of wall time (an exception it raises
    stops the run, as Ctrl-C does). ``text`` is ``config`` already encoded as JSON, for a
    caller that writes it anyway (``config.json``): the core reads it instead of a second
    encoding (1.5 s at 10⁵ flows).

    A value the core refuses becomes a SpecError whose key is the core's path, prefixed
    with ``config.`` (this means the Python validation missed it: please report it). A run
    over its budget raises BudgetError.
    """
    started = time.perf_counter()
    limit = default_memory_limit() if memory_limit is None else memory_limit
    try:
        results_text, columns, rows = _core.run(core_json(config) if text is None else text, limit, progress)
    except _core.ConfigError as exc:
        key = getattr(exc, "key", "")
        raise SpecError(f"config.{key}", getattr(exc, "value", "?"), getattr(exc, "allowed", str(exc))) from None
    except _core.BudgetError as exc:
        raise BudgetError(exc.what, exc.detail, exc.used, exc.limit, exc.at_s, exc.before_build) from None
    results = json.loads(results_text)
    # The flows' and links' rows come as columns: the links stay so, the flows are rows
    # made of them as read (the flows table is built from the columns).
    by_column = {kind: {name: CoreColumn(*column) for name, column in table.items()} for kind, table in rows.items()}
    results["links"] = by_column["links"]
    results["flows"] = Rows(by_column["flows"])
    results["series"].update(_series_columns(columns))
    return RunOutcome(config=config, results=results, wall_s=time.perf_counter() - started)


def _series_columns(columns: dict[str, dict[str, tuple[str, bytes]]]) -> dict[str, dict[str, Any]]:
    """Returns the binding's series columns (``{kind: {column: (dtype, bytes)}}``) as NumPy
    arrays, or as empty lists when every one is empty (NumPy not imported)."""
    if not any(data for table in columns.values() for _, data in table.values()):
        return {kind: {name: [] for name in table} for kind, table in columns.items()}
    import numpy as np

    return {kind: {name: np.frombuffer(data, dtype=dtype) for name, (dtype, data) in table.items()} for kind, table in columns.items()}


def series_as_lists(results: dict[str, Any]) -> dict[str, Any]:
    """Returns ``results`` with its NumPy series columns turned into lists (JSON-ready)."""
    series = {kind: {name: col.tolist() if hasattr(col, "tolist") else col for name, col in table.items()} for kind, table in results["series"].items()}
    return {**results, "series": series}


@functools.cache
def code_version() -> str:
    """Returns the package version plus a digest of the code that computes a stored point.

    The digest covers the sources, never the compiled file: the core's and the binding's
    Rust sources and ``Cargo.lock`` (``_core.SOURCE_DIGEST``, computed when the extension
    is built, so an installed wheel knows it) and :data:`PYTHON_SOURCES`, read from the
    package itself. Two builds of the same sources (another checkout, a wheel) reuse each
    other's points; a change to any of these files reruns them, so a resumed sweep never
    mixes results of two simulators. Plots, the CLI and the experiment-file code are left
    out: they do not change a point's rows (its configuration, which they do change, is
    part of the point's key anyway).
    """
    digest = hashlib.sha256(_core.SOURCE_DIGEST.encode())
    for name in PYTHON_SOURCES:
        digest.update(f"\0{name}\0".encode())
        digest.update((PACKAGE_ROOT / name).read_bytes())
    return f"{_core.__version__}+{digest.hexdigest()[:16]}"


def jain_index(values: list[float]) -> float | None:
    """Returns Jain's fairness index (Σx)² / (n·Σx²) of ``values``; None if empty or all zero."""
    total_sq = sum(v * v for v in values)
    if not values or total_sq == 0:
        return None
    return sum(values) ** 2 / (len(values) * total_sq)


def bottleneck_link(links: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """Returns the link named ``bottleneck``, else the most utilised link (None if no links)."""
    named = link_named(links, BOTTLENECK)
    if named is not None:
        return named
    utilization = field_values(links, "utilization")
    return links[max(range(len(utilization)), key=lambda i: utilization[i] or 0.0)] if utilization else None


def completion_times(results: dict[str, Any]) -> tuple[dict[str, list[Any]], dict[str, dict[str, Any]]]:
    """Returns the completion times of a run: its flows' ``fct_s`` and ``finished``, one list
    each in the order of ``results["flows"]``, and per group its ``mean_fct_s``,
    ``transfers_completed`` and ``unfinished_transfers``.

    Nothing is left out (the core's figures): a finite flow's ``fct_s`` is its transfer's
    completion time, or if it had not finished at the end of the run the time until then
    (censored, ``finished = false``; None for saturated flows); a group's ``mean_fct_s`` is
    over every transfer (finite flows, incast responses, short flows) that started in the
    window, the unfinished ones censored alike — a lower bound of the true mean whenever
    ``unfinished_transfers`` > 0. Every completion time in the summary and the tables comes
    through here.
    """
    flows = {name: field_values(results["flows"], name) for name in ("fct_s", "finished")}
    groups = {g["group"]: {"mean_fct_s": g["mean_fct_s"], "transfers_completed": g["transfers_completed"], "unfinished_transfers": g["unfinished_transfers"]} for g in results["groups"]}
    return flows, groups


def user_of_flows(config: dict[str, Any]) -> list[int]:
    """Returns each flow's user id in a resolved configuration (the core's default if unset)."""
    group_index: dict[str, int] = {}
    users = []
    for flow in config["flows"]:
        default = group_index.setdefault(flow["group"], len(group_index))
        users.append(flow.get("user", default))
    return users


def _summary_flows(results: dict[str, Any], times: dict[str, list[Any]], config: dict[str, Any]) -> Sequence[dict[str, Any]]:
    """Returns the summary's flows: every field the core reports (the tables refuse a key
    their schema lacks), their completion ``times`` (:func:`completion_times`) and ``user``,
    each flow's global user id (the core's ``FlowConfig.user``: set by a group's ``users``
    key, else the group's index).

    The core's flows stay columns (:class:`Rows`, a row made when read: at 10⁵ flows making
    every row took about a second that ``qdsim run`` spent for nothing); a reference
    engine's are rows."""
    owners = user_of_flows(config)
    given = results["flows"]
    users = [owners[i] for i in field_values(given, "id")]
    if isinstance(given, Rows):
        return Rows({**given.columns, **times, "user": users})
    return [{**f, "fct_s": fct, "finished": finished, "user": user} for f, fct, finished, user in zip(given, times["fct_s"], times["finished"], users, strict=True)]


#: Flow counters a group sums: the window's, then the whole run's.
_GROUP_COUNTERS = ("retransmits", "timeouts", "drops", "retransmits_total", "timeouts_total", "drops_total")


def _sum_known(values: Iterable[int | None]) -> int | None:
    """Returns the sum of counters, None when any is unknown (a reference engine's run may
    not count one: its column is then null, never a partial sum)."""
    total = 0
    for value in values:
        if value is None:
            return None
        total += value
    return total


def summarize(outcome: RunOutcome) -> dict[str, Any]:
    """Returns the run summary: ``jain_index``, ``flows``, ``groups``, ``links``, ``events``, ``wall_s``, ...

    ``links`` is a :class:`~qdsim.results.links.LinkRows`, a sequence of rows made as they
    are read (a 10⁵-flow run's 4·10⁵ rows are seconds of dicts: ``qdsim run`` reads a dozen).
    Flows carry their ``user`` and groups ``users`` and ``per_user_goodput_bps``. ``tcp`` holds
    each TCP-carrying group's resolved TCP options (its profile's with the file's overrides),
    by option name. A link's
    ``overflow_drops`` are its drops because the buffer was full, ``aqm_drops`` the rest (the
    discipline's own decisions, and random link loss). Flows' and groups' ``drops``,
    ``retransmits``, ``fast_retransmits`` and ``timeouts`` count the window (a flow's drops on
    any link), their ``*_total`` the whole run. Jain's index is over the saturated TCP flows' goodput (all flows if there are none).
    A group's ``fair_share_ratio`` is its mean per-flow goodput over the fair share, the
    bottleneck's rate divided by the number of flows.
    """
    res = outcome.results
    flow_times, group_fct = completion_times(res)
    flows = _summary_flows(res, flow_times, outcome.config)
    goodput = field_values(flows, "goodput_bps")
    # Jain's index over the saturated TCP flows (no size), else over all.
    saturated = [g for g, kind, size in zip(goodput, field_values(flows, "kind"), field_values(flows, "size_bytes", missing_ok=True), strict=True) if kind == "tcp" and size is None]
    jain = jain_index(saturated or goodput)
    links = LinkRows(res["links"])
    bottleneck = bottleneck_link(links)
    fair_share = bottleneck["rate_bps"] / len(flows) if bottleneck and flows else None
    # Each group's flows, as their places in the flows' columns, in the flows' order.
    members: dict[str, list[int]] = {}
    for i, group in enumerate(field_values(flows, "group")):
        members.setdefault(group, []).append(i)
    counters = {column: field_values(flows, column) for column in (*_GROUP_COUNTERS, "rwnd_limited")}
    users = field_values(flows, "user")
    groups = []
    for g in res["groups"]:
        places = members.get(g["group"], [])
        per_flow = g["goodput_bps"] / g["flows"] if g["flows"] else 0.0
        groups.append(
            {
                **g,
                "per_flow_goodput_bps": per_flow,
                # The spread across the group's flows (Kantawala & Turner's Fig. 6(b)): the
                # population standard deviation of their goodputs; None without flows.
                "per_flow_goodput_std_bps": statistics.pstdev(goodput[i] for i in places) if places else None,
                "fair_share_ratio": per_flow / fair_share if fair_share else None,
                **{column: _sum_known(counters[column][i] for i in places) for column in _GROUP_COUNTERS},
                "rwnd_limited": _mean_known(counters["rwnd_limited"][i] for i in places),
                **group_fct[g["group"]],
            }
        )
    generators = _generators(res)
    for group in groups:
        group.update(generators.get(group["group"], {}))
        # Menth et al.'s throughput per user: the group's distinct user ids, and its goodput
        # over them.
        group["users"] = len({users[i] for i in members.get(group["group"], [])})
        group["per_user_goodput_bps"] = group["goodput_bps"] / group["users"] if group["users"] else 0.0
    summary = {
        "seed": res["seed"],
        "duration_s": res["duration_s"],
        "warmup_s": res["warmup_s"],
        "events": res["events"],
        "packets_forwarded": res["packets_forwarded"],
        "wall_s": outcome.wall_s,
        "jain_index": jain,
        "bottleneck": bottleneck["name"] if bottleneck else None,
        "bottleneck_utilization": bottleneck["utilization"] if bottleneck else None,
        "fair_share_bps": fair_share,
        "flows": flows,
        "groups": groups,
        "links": links,
        "tcp": group_tcp_options(outcome.config),
    }
    if "packets_not_recorded" in res:
        summary["packets_not_recorded"] = res["packets_not_recorded"]
    notes = rwnd_notes(groups, summary["tcp"]) + edge_notes(summary)
    if notes:
        summary["notes"] = notes
    return summary


#: A group whose flows found their window at the receive window after more than this share
#: of their ACKs was limited by ``rwnd`` for most of the measurement window.
RWND_LIMITED = 0.5


def rwnd_notes(groups: list[dict[str, Any]], tcp: dict[str, dict[str, Any]]) -> list[str]:
    """Returns one line per group held by its receive window for most of the window: its
    goodput measures ``rwnd`` / RTT, not the network under study."""
    out = []
    for g in groups:
        share = g.get("rwnd_limited")
        if share is not None and share > RWND_LIMITED:
            rwnd = tcp.get(g["group"], {}).get("rwnd")
            out.append(f"group {g['group']} was limited by its receive window (rwnd {rwnd} B) after {share:.0%} of its ACKs: its goodput is rwnd / RTT; raise tcp.rwnd to measure the network")
    return out


def edge_notes(summary: dict[str, Any]) -> list[str]:
    """Returns a line when the flows' goodput sums to more than the bottleneck's rate because
    of data that crossed it before the window (``held_before_window_bytes``, held out of
    order at the receivers when the window opened): without it, the sum fits."""
    link = link_named(summary["links"], summary["bottleneck"])
    window = summary["duration_s"] - summary["warmup_s"]
    held = field_values(summary["flows"], "held_before_window_bytes", missing_ok=True)
    if link is None or window <= 0 or any(h is None for h in held):
        return []
    total = sum(field_values(summary["flows"], "goodput_bps"))
    held_bps = sum(held) * 8 / window
    if total <= link["rate_bps"] or total - held_bps > link["rate_bps"]:
        return []
    return [
        f"goodput sums to {total / 1e6:.4g} Mb/s, above the bottleneck's {link['rate_bps'] / 1e6:.4g} Mb/s: {held_bps / 1e6:.3g} Mb/s of it "
        "reached the receivers before the window and waited out of order (held_before_window_bytes); a longer window shrinks this edge"
    ]


def _mean_known(values: Iterable[float | None]) -> float | None:
    """Returns the mean of the known values, None when none is known."""
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def _generators(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Returns, per group, the columns of its transfer generator when the core reports it
    (a ``short_flows`` pool, or ``sampling.flows_in_progress``): ``arrivals``,
    ``shared_arrivals`` (arrivals that found every host pair busy), ``mean_in_progress``,
    ``max_in_progress`` and ``in_progress_fraction`` (the fraction of the window with n
    transfers in progress, n = 0, 1, ...); a group of several generators sums the counts
    and the means, and has no single distribution (``in_progress_fraction`` None)."""
    out: dict[str, dict[str, Any]] = {}
    for g in results.get("generators", []):
        if g["group"] not in out:
            out[g["group"]] = {key: g[key] for key in ("arrivals", "shared_arrivals", "mean_in_progress", "max_in_progress", "in_progress_fraction")}
            continue
        row = out[g["group"]]
        for key in ("arrivals", "shared_arrivals", "mean_in_progress"):
            row[key] += g[key]
        row["max_in_progress"] = max(row["max_in_progress"], g["max_in_progress"])
        row["in_progress_fraction"] = None
    return out


def group_tcp_options(config: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Returns the resolved TCP options of every TCP-carrying flow group of ``config``."""
    out: dict[str, dict[str, Any]] = {}
    for flow in config["flows"]:
        tcp = flow["source"].get("tcp")
        if tcp is not None and flow["group"] not in out:
            out[flow["group"]] = resolved_options(tcp)
    return out
