"""Reading a quick run's stored tables the way the figure tests compare them."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

from qdsim.engines.sweep import refused_points
from qdsim.results import store


class Lacked(Exception):
    """A check's runs are missing because the reference engine that made them refused them
    (a discipline it lacks): the finding cannot be decided there. Not an AssertionError, so
    the engine verdicts (``scripts/engine_verdicts.py``) tell it from a failing finding."""


def require(results_dir: Path, ok: bool, message: str) -> None:
    """Checks that the runs a finding needs are there: fails with ``message`` when they are
    not, or raises :class:`Lacked` when a reference engine refused some of the sweep's points."""
    if ok:
        return
    refused = refused_points(results_dir)
    if refused:
        raise Lacked(f"{message} ({refused[0]['reason']})")
    raise AssertionError(message)


def label_of(results_dir: Path, value: Any) -> str:
    """Returns the legend label ``[plot].labels`` gives a swept value (as stored in the tables)."""
    labels = store.read_spec(results_dir).get("plot", {}).get("labels", {})
    return labels.get(str(value), str(value))


def runs(results_dir: Path, group: str) -> list[dict[str, Any]]:
    """Returns one row per run: its swept values, ``rep``, the bottleneck's utilization, the
    group's AFCT (over every transfer started in the window, unfinished ones counted until the
    end) with its completed and unfinished transfers, the bottleneck link's queue, losses and
    drops."""
    points = store.read_rows(results_dir, "points")
    groups = {r["point_key"]: r for r in store.read_rows(results_dir, "groups") if r["group"] == group}
    links = {r["point_key"]: r for r in store.read_rows(results_dir, "links") if r["name"] == "bottleneck"}
    return [
        {
            **p,
            "utilization": p["bottleneck_utilization"],
            "afct_s": groups[p["point_key"]]["mean_fct_s"],
            "transfers": groups[p["point_key"]]["transfers_completed"],
            "unfinished": groups[p["point_key"]]["unfinished_transfers"],
            "mean_queue_pkts": links[p["point_key"]]["mean_queue_pkts"],
            "loss_rate": links[p["point_key"]]["loss_rate"],
            "drops": links[p["point_key"]]["drops"],
        }
        for p in points
    ]


def by_label(results_dir: Path, rows: list[dict[str, Any]], key: str = "topology.qdisc") -> dict[str, list[dict[str, Any]]]:
    """Returns ``rows`` per legend label of their ``key`` value, each list in repetition order."""
    out: dict[str, list[dict[str, Any]]] = {}
    for row in sorted(rows, key=lambda r: r["rep"]):
        out.setdefault(label_of(results_dir, row[key]), []).append(row)
    return out


def mean_of(rows: list[dict[str, Any]], metric: str) -> float:
    """Returns the mean of ``metric`` over every row; a run without it fails the test (no run
    is left out of a mean)."""
    missing = [r["rep"] for r in rows if r[metric] is None]
    assert not missing, f"runs {missing} produced no {metric}"
    return statistics.mean(r[metric] for r in rows)


def swept_table(value: str) -> dict[str, Any]:
    """Returns a swept table (a qdisc) from its stored canonical JSON text."""
    return json.loads(value)
