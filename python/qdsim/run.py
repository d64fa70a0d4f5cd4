"""Running one resolved configuration on the core, and summarising what it produced.

:func:`run_config` hands the configuration to ``qdsim._core.run`` (which releases the GIL)
and measures wall-clock time; the sampled queue and TCP series come back as NumPy columns
(:func:`series_as_lists` turns them into lists for JSON). :func:`summarize` turns the core's
results into the summary ``qdsim run --json`` prints: fairness, per-flow, per-group and
per-link figures.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import SpecError
from .resolve import BOTTLENECK, config_json

__all__ = ["RunOutcome", "bottleneck_link", "code_version", "jain_index", "run_config", "series_as_lists", "summarize"]


@dataclass(frozen=True)
class RunOutcome:
    """One finished run: its configuration, the core's results and the wall-clock time."""

    config: dict[str, Any]
    results: dict[str, Any]
    wall_s: float


def run_config(config: dict[str, Any]) -> RunOutcome:
    """Simulates ``config`` (a ``RunConfig`` dict) and returns the outcome.

    A value the core refuses becomes a SpecError whose key is the core's path, prefixed
    with ``config.`` (this means the Python validation missed it: please report it).
    """
    from . import _core

    started = time.perf_counter()
    try:
        text, columns = _core.run(config_json(config))
    except _core.ConfigError as exc:
        key = getattr(exc, "key", "")
        raise SpecError(f"config.{key}", getattr(exc, "value", "?"), getattr(exc, "allowed", str(exc))) from None
    results = json.loads(text)
    for kind, table in columns.items():
        results["series"][kind] = {name: np.frombuffer(data, dtype=dtype) for name, (dtype, data) in table.items()}
    return RunOutcome(config=config, results=results, wall_s=time.perf_counter() - started)


def series_as_lists(results: dict[str, Any]) -> dict[str, Any]:
    """Returns ``results`` with its NumPy series columns turned into lists (JSON-ready)."""
    series = {kind: {name: col.tolist() if isinstance(col, np.ndarray) else col for name, col in table.items()} for kind, table in results["series"].items()}
    return {**results, "series": series}


@functools.cache
def code_version() -> str:
    """Returns the package version plus a digest of the compiled core.

    Results keyed by this never survive a rebuild of the core, so a resumed sweep never
    mixes results of two simulators.
    """
    from . import _core

    digest = hashlib.sha256(Path(_core.__file__).read_bytes()).hexdigest()[:16]
    return f"{_core.__version__}+{digest}"


def jain_index(values: list[float]) -> float | None:
    """Returns Jain's fairness index (Σx)² / (n·Σx²) of ``values``; None if empty or all zero."""
    total_sq = sum(v * v for v in values)
    if not values or total_sq == 0:
        return None
    return sum(values) ** 2 / (len(values) * total_sq)


def bottleneck_link(links: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Returns the link named ``bottleneck``, else the most utilised link (None if no links)."""
    for link in links:
        if link["name"] == BOTTLENECK:
            return link
    return max(links, key=lambda link: link["utilization"], default=None)


def _is_saturated(flow: dict[str, Any]) -> bool:
    return flow["kind"] == "tcp" and flow.get("size_bytes") is None


def summarize(outcome: RunOutcome) -> dict[str, Any]:
    """Returns the run summary: ``jain_index``, ``flows``, ``groups``, ``links``, ``events``, ``wall_s``, ...

    Jain's index is over the saturated TCP flows' goodput (all flows if there are none).
    A group's ``fair_share_ratio`` is its mean per-flow goodput over the fair share, the
    bottleneck's rate divided by the number of flows.
    """
    res = outcome.results
    flows = [
        {
            "id": f["id"],
            "group": f["group"],
            "kind": f["kind"],
            "cc": f["cc"],
            "src": f["src"],
            "dst": f["dst"],
            "start_s": f["start_s"],
            "size_bytes": f["size_bytes"],
            "goodput_bps": f["goodput_bps"],
            "delivered_bytes": f["delivered_bytes"],
            "retransmits": f["retransmits"],
            "fast_retransmits": f["fast_retransmits"],
            "timeouts": f["timeouts"],
            "drops": f["drops"],
            "fct_s": f["fct_s"],
            "mean_queue_delay_s": f["mean_queue_delay_s"],
        }
        for f in res["flows"]
    ]
    saturated = [f["goodput_bps"] for f in flows if _is_saturated(f)]
    jain = jain_index(saturated or [f["goodput_bps"] for f in flows])
    bottleneck = bottleneck_link(res["links"])
    fair_share = bottleneck["rate_bps"] / len(flows) if bottleneck and flows else None
    groups = []
    for g in res["groups"]:
        members = [f for f in flows if f["group"] == g["group"]]
        per_flow = g["goodput_bps"] / g["flows"] if g["flows"] else 0.0
        groups.append(
            {
                "group": g["group"],
                "flows": g["flows"],
                "goodput_bps": g["goodput_bps"],
                "per_flow_goodput_bps": per_flow,
                "fair_share_ratio": per_flow / fair_share if fair_share else None,
                "mean_queue_delay_s": g["mean_queue_delay_s"],
                "p50_queue_delay_s": g["p50_queue_delay_s"],
                "p95_queue_delay_s": g["p95_queue_delay_s"],
                "p99_queue_delay_s": g["p99_queue_delay_s"],
                "retransmits": sum(f["retransmits"] for f in members),
                "timeouts": sum(f["timeouts"] for f in members),
                "mean_fct_s": g["mean_fct_s"],
            }
        )
    links = [
        {
            "name": link["name"],
            "from": link["from"],
            "to": link["to"],
            "qdisc": link["qdisc"],
            "rate_bps": link["rate_bps"],
            "utilization": link["utilization"],
            "tx_pkts": link["tx_pkts"],
            "arrivals": link["arrivals"],
            "drops": link["drops"],
            "drops_by_reason": link["drops_by_reason"],
            "loss_rate": link["loss_rate"],
            "mean_queue_pkts": link["mean_queue_pkts"],
            "max_queue_pkts": link["max_queue_pkts"],
            "mean_delay_s": link["mean_delay_s"],
            "p95_delay_s": link["p95_delay_s"],
        }
        for link in res["links"]
    ]
    return {
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
    }
