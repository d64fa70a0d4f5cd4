"""The figures of one run: throughput and fairness, queues, drops, TCP state, completion times.

Each function returns the charts its tables have data for (none when the run did not sample
what it draws; the page then says which ``[sampling]`` key would). Everything is aggregated
so that a run of 10⁴ flows draws as fast as one of ten: bars and boxes per flow group, at
most :data:`MAX_LINKS` links, per-flow TCP lines for at most :data:`MAX_FLOWS` flows and the
median with a 10–90 % band per group beyond, series thinned by :func:`~.style.thin`; every
caption says what was left out. Transfers unfinished at the end of the run are drawn where
they were cut off and counted, never dropped.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
import pyarrow as pa

from ..plot.labels import UNLIMITED_SSTHRESH, display
from ..results import store
from ..results.tables import drop_reasons, mark_reasons
from .source import ResultsDir
from .style import MAX_POINTS, Chart, color, hover, new_figure, scatter, thin, window_line

__all__ = ["MAX_FLOWS", "MAX_LINKS", "completion_charts", "drop_charts", "queue_charts", "tcp_charts", "throughput_charts"]

#: Per-flow TCP lines are drawn for at most this many flows; beyond, per-group bands.
MAX_FLOWS = 20
#: Queue series are drawn for at most this many links (the bottleneck, then the fullest).
MAX_LINKS = 8
#: Time bins of a per-group band (the median and the 10 % and 90 % quantiles of each).
BAND_BINS = 400
#: The most completion times one group's CDF keeps (evenly spaced quantiles beyond).
MAX_CDF_POINTS = 1000

TIME = "time (s)"


def _group_order(src: ResultsDir) -> list[str]:
    """Returns the flow groups in the groups table's order: a group's colour is the same in
    every figure of the page."""
    return [g["group"] for g in src.rows("groups")]


def _window(src: ResultsDir) -> str:
    return f"the measurement window ({src.summary['warmup_s']:g}–{src.summary['duration_s']:g} s)"


def _thinned_note(thinned: bool) -> str:
    return f" Lines longer than {MAX_POINTS} samples are thinned to each bucket's smallest and largest value." if thinned else ""


# --- throughput and fairness ------------------------------------------------------------------


def throughput_charts(src: ResultsDir) -> list[Chart]:
    """Returns the goodput and share of the fair share of each flow group, and the spread of
    per-flow goodput within each group that has several flows."""
    groups = src.rows("groups")
    if not groups:
        return []
    names = [g["group"] for g in groups]
    scale, goodput_label = display("goodput_bps")
    _, share_label = display("fair_share_ratio")
    figure = new_figure(1, 2, titles=[goodput_label, "per-flow goodput / fair share"], height=380)
    colors = [color(i) for i in range(len(groups))]
    flows = [g["flows"] for g in groups]
    panels = (
        ("goodput", [(g["goodput_bps"] or 0) * scale for g in groups], goodput_label, ".4g"),
        ("share of fair", [g["fair_share_ratio"] for g in groups], share_label, ".3f"),
    )
    for col, (name, values, label, y_format) in enumerate(panels, start=1):
        hovertemplate = hover("group", label, x_format="", y_format=y_format, extra="flows: %{customdata}")
        figure.add_bar(x=names, y=values, marker_color=colors, customdata=flows, name=name, showlegend=False, row=1, col=col, hovertemplate=hovertemplate)
    figure.add_hline(y=1.0, line={"color": "#555", "dash": "dash", "width": 1}, row=1, col=2)
    figure.update_yaxes(title_text=goodput_label, row=1, col=1, rangemode="tozero")
    figure.update_yaxes(title_text=share_label, row=1, col=2, rangemode="tozero")
    summary = src.summary
    fair = summary.get("fair_share_bps")
    jain = summary.get("jain_index")
    caption = f"Over {_window(src)}. The fair share is the bottleneck's rate over the number of flows" + (f": {fair * scale:.4g} Mb/s (dashed line = 1)." if fair else ".")
    if jain is not None:
        caption += f" Jain's fairness index over the saturated TCP flows' goodput (all flows if there are none): {jain:.4f}."
    charts = [Chart("Goodput and share of the fair share per flow group", figure, caption)]
    spread = _goodput_spread(src, scale)
    return charts + ([spread] if spread else [])


def _goodput_spread(src: ResultsDir, scale: float) -> Chart | None:
    """Returns a box per group of its flows' goodput (quartiles, range and mean computed
    here: a box of 10⁴ flows is five numbers on the page, not 10⁴)."""
    flows = src.table("flows", ["group", "goodput_bps"])
    groups = np.asarray(flows.column("group").to_pylist(), dtype=object)
    goodput = store.numbers(flows.column("goodput_bps"), float) * scale
    names = [name for name in _group_order(src) if (groups == name).any()]
    if not any((groups == name).sum() > 1 for name in names):
        return None
    _, label = display("goodput_bps")
    figure = new_figure(height=380)
    order = _group_order(src)
    for name in names:
        index = order.index(name)
        values = goodput[groups == name]
        q1, median, q3 = np.quantile(values, [0.25, 0.5, 0.75])
        figure.add_trace(
            go.Box(
                x=[name],
                q1=[q1],
                median=[median],
                q3=[q3],
                lowerfence=[values.min()],
                upperfence=[values.max()],
                mean=[values.mean()],
                name=f"{name} ({len(values)} flows)",
                marker_color=color(index),
                boxpoints=False,
            )
        )
    figure.update_yaxes(title_text=f"per-flow {label}", rangemode="tozero")
    figure.update_layout(showlegend=False)
    return Chart(
        "Per-flow goodput within each group",
        figure,
        f"Each box: the quartiles of the group's flows' goodput over {_window(src)}, whiskers at the smallest and largest, dashed line at the mean (hover for the values in Mb/s).",
    )


# --- queues -----------------------------------------------------------------------------------


def _busy_links(src: ResultsDir, queue: pa.Table, column: str) -> tuple[list[str], int]:
    """Returns the links of ``queue`` whose ``column`` ever exceeds 0, the bottleneck first
    then by their largest value, at most :data:`MAX_LINKS`, and how many more there were."""
    # By hand, not Table.group_by: that imports pandas (0.2 s), and with threads its groups come
    # in no set order. Here they come in the order the links first appear.
    peaks: dict[str, Any] = {}
    for name, value in zip(queue.column("link_name").to_pylist(), queue.column(column).to_pylist(), strict=True):
        if value is not None and (peaks.get(name) is None or value > peaks[name]):
            peaks[name] = value
        else:
            peaks.setdefault(name, None)
    ranked = sorted(peaks.items(), key=lambda item: (item[0] != src.summary.get("bottleneck"), -(item[1] or 0)))
    busy = [name for name, peak in ranked if (peak or 0) > 0]
    return busy[:MAX_LINKS], max(0, len(busy) - MAX_LINKS)


def _link_series(queue: pa.Table, link: str, columns: list[str]) -> dict[str, np.ndarray]:
    rows = store.rows_where(queue, {"link_name": link})
    return {c: store.numbers(rows.column(c), float) for c in ["t", *columns]}


def _delay_ms(series: dict[str, np.ndarray], keep: np.ndarray, rate_bps: float | None) -> np.ndarray:
    """Returns a link's sampled queueing delay in ms: the measured sojourn when the samples
    carry it, else the backlog's drain time at ``rate_bps`` (NaN without a rate)."""
    if "sojourn_s" in series:
        return series["sojourn_s"][keep] * 1e3
    if not rate_bps:
        return np.full(len(keep), np.nan)
    return series["bytes"][keep] * 8 / rate_bps * 1e3


def queue_charts(src: ResultsDir) -> list[Chart]:
    """Returns the queue length (packets) and the queueing delay against time of the links
    that queued (``[sampling] queues = true``): the mean sojourn of the packets that left the
    queue since the previous sample, or, in results written before the samples carried it,
    the backlog's drain time (queued bytes over the link's rate)."""
    if not src.has("series_queue"):
        return []
    queue = src.table("series_queue", ["t", "link_name", "pkts", "bytes", "sojourn_s"])
    links, more = _busy_links(src, queue, "pkts")
    if not links:
        return []
    measured = "sojourn_s" in queue.column_names
    rates = {row["name"]: row["rate_bps"] for row in src.rows("links")}
    pkts_label = "queue (packets)"
    delay_label = "sojourn (ms)" if measured else "backlog / link rate (ms)"
    figure = new_figure(2, 1, titles=[pkts_label, delay_label], shared_x=True, height=560)
    thinned = False
    for index, link in enumerate(links):
        series = _link_series(queue, link, ["pkts", "bytes", *(["sojourn_s"] if measured else [])])
        keep = thin(series["pkts"])
        thinned |= len(keep) < len(series["t"])
        t = series["t"][keep]
        figure.add_trace(scatter(t, series["pkts"][keep], link, index, TIME, pkts_label, legendgroup=link, line={"shape": "hv"}), row=1, col=1)
        delay = _delay_ms(series, keep, rates.get(link))
        figure.add_trace(scatter(t, delay, link, index, TIME, delay_label, legendgroup=link, showlegend=False, line={"shape": "hv"}), row=2, col=1)
    figure.update_yaxes(title_text=pkts_label, row=1, col=1, rangemode="tozero")
    figure.update_yaxes(title_text=delay_label, row=2, col=1, rangemode="tozero")
    figure.update_xaxes(title_text=TIME, row=2, col=1)
    window_line(figure, src.summary.get("warmup_s"), rows=2)
    others = f" {more} more links queued (series_queue.parquet)." if more else ""
    lower = (
        "The lower panel is the mean time the packets that left the queue since the previous sample spent in it (a gap where none left)."
        if measured
        else "The lower panel is the queued bytes over the link's rate: the delay a packet arriving at that sample would wait (results written before the samples carried the sojourn)."
    )
    caption = f"Sampled queue of the links that queued: {', '.join(links)}.{others} {lower}" + _thinned_note(thinned)
    return [Chart("Queue length and queueing delay over time", figure, caption)]


# --- drops and marks --------------------------------------------------------------------------


def _by_reason(link: dict[str, Any], what: str) -> dict[str, int]:
    """Returns a link row's non-zero ``drops`` or ``marks`` by reason (the catalog's reasons)."""
    reasons = drop_reasons() if what == "drops" else mark_reasons()
    return {reason: link[f"{what}_{reason}"] for reason in reasons if (link.get(f"{what}_{reason}") or 0) > 0}


def drop_charts(src: ResultsDir) -> list[Chart]:
    """Returns the drops and ECN marks of each link that dropped or marked, by reason, over
    the window, and the same by reason over time (``series_reasons``; results written before
    it: the queue samples' overflows and the qdisc's own drops)."""
    charts = []
    links = [row for row in src.rows("links") if (row["drops"] or 0) > 0 or (row["marks"] or 0) > 0]
    links.sort(key=lambda row: (row["name"] != src.summary.get("bottleneck"), -((row["drops"] or 0) + (row["marks"] or 0))))
    if links:
        shown = links[:MAX_LINKS]
        figure = new_figure(height=400)
        traces = [(what, reason) for what in ("drops", "marks") for reason in dict.fromkeys(r for link in shown for r in _by_reason(link, what))]
        for index, (what, reason) in enumerate(traces):
            counts = [_by_reason(link, what).get(reason, 0) for link in shown]
            pattern = {"shape": "/"} if what == "marks" else {}
            figure.add_bar(
                x=[link["name"] for link in shown],
                y=counts,
                name=f"{what[:-1]}: {reason}",
                marker={"color": color(index), "pattern": pattern},
                hovertemplate=hover("link", "count (packets)", x_format="", y_format=",d"),
            )
        figure.update_layout(barmode="stack", showlegend=True)
        figure.update_yaxes(title_text="packets in the window", rangemode="tozero")
        others = f" {len(links) - len(shown)} more links dropped or marked (links.parquet)." if len(links) > len(shown) else ""
        caption = f"Drops (solid) and ECN marks (hatched) over {_window(src)}, by the reason the qdisc or the link gave (random_loss: the wire).{others}"
        charts.append(Chart("Drops and marks by reason", figure, caption))
    over_time = _reasons_over_time(src) or _drops_over_time(src)
    return charts + ([over_time] if over_time else [])


def _reasons_over_time(src: ResultsDir) -> Chart | None:
    """Returns each reason's cumulative drops and marks over time on the links that dropped or
    marked most (``series_reasons``: a row when a count changed), or None without it."""
    if not src.has("series_reasons"):
        return None
    rows = src.table("series_reasons", ["t", "link_name", "kind", "reason", "count"]).to_pydict()
    steps: dict[tuple[str, str, str], tuple[list[float], list[int]]] = {}
    for t, link, kind, reason, count in zip(rows["t"], rows["link_name"], rows["kind"], rows["reason"], rows["count"], strict=True):
        times, counts = steps.setdefault((link, kind, reason), ([], []))
        times.append(t)
        counts.append(count)
    totals: dict[str, int] = {}
    for (link, _, _), (_, counts) in steps.items():
        totals[link] = totals.get(link, 0) + counts[-1]
    links = sorted(totals, key=lambda link: (link != src.summary.get("bottleneck"), -totals[link]))
    shown = links[:4]
    label = "packets since the start"
    figure = new_figure(height=420)
    end = src.summary.get("duration_s")
    for index, ((link, kind, reason), (times, counts)) in enumerate((k, v) for k, v in steps.items() if k[0] in shown):
        # Held to the end of the run: the count did not change after its last row.
        t = np.asarray(times + ([end] if end else []), dtype=float)
        y = np.asarray(counts + ([counts[-1]] if end else []), dtype=float)
        keep = thin(y)
        figure.add_trace(scatter(t[keep], y[keep], f"{link}: {kind} {reason}", index, TIME, label, line={"shape": "hv", "dash": "dot" if kind == "mark" else "solid"}))
    figure.update_yaxes(title_text=label, rangemode="tozero")
    figure.update_xaxes(title_text=TIME)
    figure.update_layout(showlegend=True)
    window_line(figure, src.summary.get("warmup_s"))
    left = f" {len(links) - len(shown)} more links dropped or marked (series_reasons.parquet)." if len(links) > len(shown) else ""
    caption = (
        "Cumulative drops (solid) and ECN marks (dotted) by reason over time, from the queue samples: the count of each reason the qdisc or the link gave "
        f"(random_loss: the wire), as sampled (a step where it changed, held to the end of the run).{left}"
    )
    return Chart("Drops and marks by reason over time", figure, caption)


def _drops_over_time(src: ResultsDir) -> Chart | None:
    if not src.has("series_queue"):
        return None
    queue = src.table("series_queue", ["t", "link_name", "drops", "overflow_drops", "aqm_drops"])
    links, more = _busy_links(src, queue, "drops")
    if not links:
        return None
    label = "drops since the start (packets)"
    figure = new_figure(height=420)
    thinned = False
    index = 0
    for link in links[:4]:
        series = _link_series(queue, link, ["overflow_drops", "aqm_drops"])
        for column, what in (("overflow_drops", "overflow"), ("aqm_drops", "qdisc's own")):
            if not series[column].any():
                continue
            keep = thin(series[column])
            thinned |= len(keep) < len(series["t"])
            figure.add_trace(scatter(series["t"][keep], series[column][keep], f"{link}: {what}", index, TIME, label, line={"shape": "hv"}))
            index += 1
    figure.update_yaxes(title_text=label, rangemode="tozero")
    figure.update_xaxes(title_text=TIME)
    figure.update_layout(showlegend=True)
    window_line(figure, src.summary.get("warmup_s"))
    left = len(links) - 4 + more if len(links) > 4 else more
    caption = (
        "Cumulative drops from the queue samples: overflows (the buffer was full) and the qdisc's own decisions (AQM and the other reasons). "
        "Marks are counted by reason in the bar chart only (no marks series is sampled)." + (f" {left} more links dropped (series_queue.parquet)." if left else "") + _thinned_note(thinned)
    )
    return Chart("Drops over time", figure, caption)


# --- TCP --------------------------------------------------------------------------------------


#: The group of the connections a generator opens while the run goes on (short flows, incast
#: responses): sampled under their own ids, past the configured flows', with no group recorded.
OPENED = "connections opened during the run"


def _flow_info(src: ResultsDir, largest: int) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Returns, indexed by flow id up to ``largest``, each flow's group index and start time
    (a connection opened during the run: group :data:`OPENED`, sampled from its opening),
    and the groups."""
    flows = src.table("flows", ["id", "group", "start_s"])
    ids = store.numbers(flows.column("id"))
    names = flows.column("group").to_pylist()
    groups = _group_order(src)
    size = max(int(ids.max()), largest) + 1
    group_of = np.full(size, len(groups), dtype=np.int64)
    start = np.full(size, -np.inf)
    group_of[ids] = [groups.index(n) for n in names]
    start[ids] = store.numbers(flows.column("start_s"))
    return group_of, start, [*groups, OPENED]


def tcp_charts(src: ResultsDir) -> list[Chart]:
    """Returns cwnd and ssthresh (segments) and the smoothed RTT (ms) against time
    (``[sampling] tcp = true``): per flow for at most :data:`MAX_FLOWS` flows, else each
    group's median with its 10–90 % band. A flow is drawn from its start (the sampler
    reports it from the run's start, before its connection exists)."""
    if not src.has("series_tcp"):
        return []
    tcp = src.table("series_tcp", ["t", "flow", "cwnd", "ssthresh", "srtt_s"])
    data = {c: store.numbers(tcp.column(c)) for c in tcp.column_names}
    group_of, start, groups = _flow_info(src, int(data["flow"].max()) if len(data["flow"]) else 0)
    started = data["t"] >= start[data["flow"]]
    data = {c: v[started] for c, v in data.items()}
    # A connection reports srtt 0 until its first RTT sample: no value yet, not a zero RTT.
    data["srtt_s"] = np.where(data["srtt_s"] > 0, data["srtt_s"], np.nan)
    flows = np.unique(data["flow"])
    cwnd_label, rtt_label = "cwnd (segments)", "smoothed RTT (ms)"
    figure = new_figure(2, 1, titles=["cwnd (solid) and ssthresh (dotted)" if len(flows) <= MAX_FLOWS else "cwnd", rtt_label], shared_x=True, height=600)
    if len(flows) <= MAX_FLOWS:
        thinned = _per_flow(figure, data, flows, group_of, groups, cwnd_label, rtt_label)
        caption = f"Every sampled flow ({len(flows)}), from its start." + _thinned_note(thinned)
    else:
        _per_group(figure, data, group_of, groups, cwnd_label, rtt_label)
        caption = (
            f"{len(flows)} flows sampled: per flow group, the median (line) and the 10–90 % quantiles (band) of its flows' values in each of at most {BAND_BINS} time bins, each flow from its start."
        )
    figure.update_yaxes(title_text=cwnd_label, row=1, col=1, rangemode="tozero")
    figure.update_yaxes(title_text=rtt_label, row=2, col=1, rangemode="tozero")
    figure.update_xaxes(title_text=TIME, row=2, col=1)
    window_line(figure, src.summary.get("warmup_s"), rows=2)
    return [Chart("TCP congestion window and RTT", figure, caption)]


def _per_flow(figure: go.Figure, data: dict[str, np.ndarray], flows: np.ndarray, group_of: np.ndarray, groups: list[str], cwnd_label: str, rtt_label: str) -> bool:
    thinned = False
    for index, flow in enumerate(flows):
        rows = data["flow"] == flow
        keep = thin(data["cwnd"][rows], MAX_POINTS // 2)
        thinned |= len(keep) < rows.sum()
        t = data["t"][rows][keep]
        name = f"flow {flow} ({groups[group_of[flow]]})" if groups[group_of[flow]] != OPENED else f"connection {flow} (opened during the run)"
        ssthresh = data["ssthresh"][rows][keep].astype(float)
        ssthresh[ssthresh >= UNLIMITED_SSTHRESH] = np.nan  # still "arbitrarily high" (RFC 5681)
        figure.add_trace(scatter(t, data["cwnd"][rows][keep], name, index, TIME, cwnd_label, legendgroup=name, line={"shape": "hv", "dash": "solid"}), row=1, col=1)
        figure.add_trace(
            scatter(t, ssthresh, f"{name} ssthresh", index, TIME, "ssthresh (segments)", legendgroup=name, showlegend=False, line={"shape": "hv", "dash": "dot", "width": 1}), row=1, col=1
        )
        figure.add_trace(scatter(t, data["srtt_s"][rows][keep] * 1e3, name, index, TIME, rtt_label, legendgroup=name, showlegend=False, line={"dash": "solid"}), row=2, col=1)
    return thinned


def _quantiles(t: np.ndarray, values: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Returns the centres of the bins of ``edges`` holding samples, and each one's 10 %,
    50 % and 90 % quantiles of ``values`` (rows)."""
    bins = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(edges) - 2)
    order = np.argsort(bins, kind="stable")
    bins, values = bins[order], values[order]
    cuts = np.flatnonzero(np.diff(bins)) + 1
    present = bins[np.concatenate([[0], cuts])] if len(bins) else bins
    parts = np.split(values, cuts)
    quantiles = np.array([np.nanquantile(part, [0.1, 0.5, 0.9]) if np.isfinite(part).any() else [np.nan] * 3 for part in parts]).T if parts and len(parts[0]) else np.empty((3, 0))
    return (edges[present] + edges[present + 1]) / 2, quantiles


def _per_group(figure: go.Figure, data: dict[str, np.ndarray], group_of: np.ndarray, groups: list[str], cwnd_label: str, rtt_label: str) -> None:
    t = data["t"]
    edges = np.linspace(t.min(), t.max(), min(BAND_BINS, len(np.unique(t))) + 1) if len(t) else np.array([0.0, 1.0])
    group = group_of[data["flow"]]
    for index, name in enumerate(groups):
        rows = group == index
        if not rows.any():
            continue
        for row, column, scale, label in ((1, "cwnd", 1.0, cwnd_label), (2, "srtt_s", 1e3, rtt_label)):
            centres, (low, median, high) = _quantiles(t[rows], data[column][rows].astype(float) * scale, edges)
            band = np.concatenate([centres, centres[::-1]])
            figure.add_trace(
                go.Scatter(x=band, y=np.concatenate([high, low[::-1]]), fill="toself", fillcolor=color(index), opacity=0.2, line={"width": 0}, hoverinfo="skip", legendgroup=name, showlegend=False),
                row=row,
                col=1,
            )
            figure.add_trace(scatter(centres, median, f"{name} (median)", index, TIME, label, legendgroup=name, showlegend=row == 1), row=row, col=1)


# --- completion times -------------------------------------------------------------------------


def _transfer_times(src: ResultsDir) -> dict[str, tuple[list[float], list[float]]] | None:
    """Returns each group's (finished, unfinished) completion times of every transfer of the
    run, from the transfer table; None for results without one (written before it
    existed)."""
    if not src.has("transfers") or not src.has("flows"):
        return None
    flows = src.table("flows", ["id", "group"]).to_pydict()
    group_of = dict(zip(flows["id"], flows["group"], strict=True))
    t = src.table("transfers", ["flow", "fct_s", "finished"]).to_pydict()
    times: dict[str, tuple[list[float], list[float]]] = {}
    for flow, fct, finished in zip(t["flow"], t["fct_s"], t["finished"], strict=True):
        times.setdefault(group_of[flow], ([], []))[0 if finished else 1].append(fct)
    return times


def completion_charts(src: ResultsDir) -> tuple[list[Chart], list[str]]:
    """Returns the CDF of every transfer's completion time per group (the transfer table:
    finite flows, incast responses, short flows), with the transfers unfinished at the end
    of the run marked where they were cut off. Results written before the transfer table
    existed give the finite flows' only, with notes on the groups whose transfers (a
    generator's) are only counted."""
    finite = _transfer_times(src)
    notes: list[str] = []
    if finite is not None:
        return _cdf_chart(src, finite, "Every transfer of the run, its warm-up included (the summary's mean FCT counts those that started in the measurement window)"), notes
    flows = src.table("flows", ["group", "size_bytes", "fct_s", "finished"]).to_pydict() if src.has("flows") else {"group": []}
    finite = {}
    for group, size, fct, finished in zip(flows["group"], flows.get("size_bytes", []), flows.get("fct_s", []), flows.get("finished", []), strict=True):
        if size is not None and fct is not None:
            finite.setdefault(group, ([], []))[0 if finished else 1].append(fct)
    for g in src.rows("groups"):
        transfers = (g["transfers_completed"] or 0) + (g["unfinished_transfers"] or 0)
        if g["group"] not in finite and transfers:
            bound = " (a lower bound: unfinished ones count the time they had run)" if g["unfinished_transfers"] else ""
            notes.append(
                f"{g['group']}: {g['transfers_completed']} transfers completed and {g['unfinished_transfers']} unfinished at the end of the run (started in the window); "
                f"mean completion time {g['mean_fct_s']:.4g} s{bound}. Its transfers' own times are not stored: the CDF shows finite flows only."
            )
    return _cdf_chart(src, finite, "Each finite flow's completion time"), notes


def _cdf_chart(src: ResultsDir, finite: dict[str, tuple[list[float], list[float]]], what: str) -> list[Chart]:
    """Returns the completion-time CDF of each group's (finished, unfinished) times."""
    if not finite:
        return []
    label = display("fct_s")[1]
    figure = new_figure(height=420)
    parts = []
    order = _group_order(src)
    for group, (done, unfinished) in finite.items():
        index = order.index(group) if group in order else len(order)
        total = len(done) + len(unfinished)
        done_sorted = np.sort(np.asarray(done, dtype=float))
        share = np.arange(1, len(done_sorted) + 1) / total
        keep = np.unique(np.linspace(0, len(done_sorted) - 1, MAX_CDF_POINTS).astype(int)) if len(done_sorted) > MAX_CDF_POINTS else np.arange(len(done_sorted))
        if len(done_sorted):
            figure.add_trace(
                scatter(
                    done_sorted[keep],
                    share[keep],
                    f"{group} ({len(done)} of {total} finished)",
                    index,
                    label,
                    "fraction of the group's transfers",
                    mode="lines+markers",
                    marker={"size": 5},
                    line={"shape": "hv"},
                    legendgroup=group,
                )
            )
        if unfinished:
            cut = np.sort(np.asarray(unfinished, dtype=float))
            cut = cut[np.unique(np.linspace(0, len(cut) - 1, min(len(cut), MAX_CDF_POINTS)).astype(int))]
            figure.add_trace(
                go.Scatter(
                    x=cut,
                    y=np.full(len(cut), len(done) / total),
                    mode="markers",
                    name=f"{group}: {len(unfinished)} unfinished (censored)",
                    marker={"symbol": "x", "size": 9, "color": color(index)},
                    legendgroup=group,
                    hovertemplate="<b>%{fullData.name}</b><br>ran %{x:.4g} s until the end of the run, unfinished<extra></extra>",
                )
            )
        parts.append(f"{group}: {len(done)} finished, {len(unfinished)} unfinished")
    figure.update_xaxes(title_text=label, rangemode="tozero")
    figure.update_yaxes(title_text="fraction of the group's transfers", range=[0, 1.05])
    caption = (
        f"{what}, as a fraction of all of its group's (so a curve stops below 1 when transfers did not finish). "
        f"Unfinished transfers (×) are drawn at the time they had run when the run ended, at the height the curve stops: censored, their completion time is longer. {'; '.join(parts)}."
    )
    return [Chart("Flow completion times", figure, caption)]
