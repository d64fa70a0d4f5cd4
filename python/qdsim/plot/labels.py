"""Names and units of the results' columns and swept keys, as figures and tables show them,
and what both kinds of figure share: the palette, and the value that means an unlimited
ssthresh. Without matplotlib, so that ``qdsim report`` (plotly) uses them without loading it."""

from __future__ import annotations

__all__ = ["COLUMN_LABELS", "PALETTE", "UNLIMITED_SSTHRESH", "axis_label", "display"]

#: Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008), black last: the
#: colours stay apart under every common colour-vision deficiency and in grey print.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")

#: The core reports an ssthresh that is still "arbitrarily high" (RFC 5681) as 2^31 - 1.
UNLIMITED_SSTHRESH = 2**31 - 1


#: Display scale and axis label (name and unit) of the results' columns a figure shows most:
#: what :func:`display` gives a column; others get a label made from their name and unit
#: suffix. The scales are those ``[plot]`` tables' ``reference`` and ``model`` values are
#: written in (rates in Mb/s, delays in ms, fractions as fractions).
COLUMN_LABELS: dict[str, tuple[float, str]] = {
    "goodput_bps": (1e-6, "goodput (Mb/s)"),
    "per_flow_goodput_bps": (1e-6, "goodput per flow (Mb/s)"),
    "per_user_goodput_bps": (1e-6, "goodput per user (Mb/s)"),
    "fair_share_bps": (1e-6, "fair share (Mb/s)"),
    "rate_bps": (1e-6, "link rate (Mb/s)"),
    "fair_share_ratio": (1.0, "goodput / fair share"),
    "jain_index": (1.0, "Jain's fairness index"),
    "bottleneck_utilization": (1.0, "bottleneck utilisation"),
    "utilization": (1.0, "utilisation"),
    "loss_rate": (1.0, "loss rate"),
    "bottleneck_drops": (1.0, "bottleneck drops (packets)"),
    "drops": (1.0, "drops (packets)"),
    "mean_queue_pkts": (1.0, "mean queue (packets)"),
    "max_queue_pkts": (1.0, "largest queue (packets)"),
    "mean_delay_s": (1e3, "mean queueing delay (ms)"),
    "p95_delay_s": (1e3, "95th-percentile queueing delay (ms)"),
    "mean_queue_delay_s": (1e3, "mean queueing delay (ms)"),
    "p50_queue_delay_s": (1e3, "median queueing delay (ms)"),
    "p95_queue_delay_s": (1e3, "95th-percentile queueing delay (ms)"),
    "p99_queue_delay_s": (1e3, "99th-percentile queueing delay (ms)"),
    "mean_fct_s": (1.0, "mean flow completion time (s)"),
    "fct_s": (1.0, "flow completion time (s)"),
    "retransmits": (1.0, "retransmissions (segments)"),
    "timeouts": (1.0, "retransmission timeouts"),
    "unfinished_transfers": (1.0, "unfinished transfers"),
    "transfers_completed": (1.0, "completed transfers"),
}


def display(metric: str) -> tuple[float, str]:
    """Returns the scale and the axis label of a results column: :data:`COLUMN_LABELS`, else
    by its unit suffix (``*_bps`` in Mb/s, ``*delay_s`` in ms, ``*_s`` in s, ``*_bytes`` in
    bytes, ``*_pkts`` in packets) with the underscores of its name as spaces."""
    if metric in COLUMN_LABELS:
        return COLUMN_LABELS[metric]
    for suffix, scale, unit in (("delay_s", 1e3, "ms"), ("_bps", 1e-6, "Mb/s"), ("_s", 1.0, "s"), ("_bytes", 1.0, "bytes"), ("_pkts", 1.0, "packets")):
        if metric.endswith(suffix):
            name = metric.removesuffix("_s" if suffix == "delay_s" else suffix)
            return scale, f"{name.replace('_', ' ')} ({unit})"
    return 1.0, metric.replace("_", " ")


#: Unit texts of swept values as an axis label writes them.
_UNIT_NAMES = {"pkt": "packets", "pkts": "packets", "packet": "packets", "us": "µs", "bps": "bit/s", "kbps": "kb/s", "Kbps": "kb/s", "Mbps": "Mb/s", "Gbps": "Gb/s", "Tbps": "Tb/s"}


def axis_label(key: str, unit: str) -> str:
    """Returns the x-axis label of swept key ``key`` with values in ``unit`` (``""``: none):
    ``topology.qdisc.limit (packets)``."""
    return f"{key} ({_UNIT_NAMES.get(unit, unit)})" if unit else key
