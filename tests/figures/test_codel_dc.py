"""Shortened checks of Ismail, Pirzada & Qazi, "On the Effectiveness of CoDel in Data
Centers" (Figs. 3, 5/6), on the committed files in ``experiments/codel-dc/``.

Incast (Fig. 5/6 at S = 100 kB): 40 servers, one long-lived flow, 1 s runs, three seeds (the
seed moves the long flow's and the requests' start times within 1 ms / 100 us). Fig. 3: one
long flow through CoDel at four targets, 0.6 s runs. Findings our model does not reproduce
are strict xfails carrying the measured numbers; docs/reproductions/codel-dc.md explains them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from qdsim import dcmodel
from qdsim.dcfigs import mean_of, qdisc_label, run_points
from qdsim.units import parse_duration

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "codel-dc"


@pytest.fixture(scope="module")
def incast_100kb() -> dict[str, list[dict]]:
    """Returns the runs of Fig. 5 at S = 100 kB per qdisc label (DropTail, CoDel, RED)."""
    rows = run_points(FILES / "fig5.toml", ["experiment.duration=1s"], repetitions=3, grid={"flows.1.size": ["100kB"]})
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(qdisc_label(row["topology.qdisc"]), []).append(row)
    assert set(out) == {"DropTail", "CoDel", "RED"} and all(len(v) == 3 for v in out.values())
    return out


def _mean(runs: list[dict], metric: str) -> float:
    value = mean_of(runs, metric)
    assert value is not None, f"no run produced {metric}"
    return value


def test_fig5_codel_completes_incast_responses_faster_than_droptail(incast_100kb):
    codel, droptail = _mean(incast_100kb["CoDel"], "afct_s"), _mean(incast_100kb["DropTail"], "afct_s")
    assert codel < 0.97 * droptail, f"AFCT CoDel {codel * 1e3:.2f} ms vs DropTail {droptail * 1e3:.2f} ms"


def test_fig5_droptail_and_codel_keep_the_bottleneck_above_90_percent(incast_100kb):
    for label in ("DropTail", "CoDel"):
        utils = [r["utilization"] for r in incast_100kb[label]]
        assert min(utils) > 0.90, f"{label}: {utils}"


def test_fig6_codel_keeps_a_shorter_queue_than_droptail(incast_100kb):
    codel, droptail = _mean(incast_100kb["CoDel"], "mean_queue_pkts"), _mean(incast_100kb["DropTail"], "mean_queue_pkts")
    assert codel < 0.6 * droptail, f"mean queue CoDel {codel:.1f} vs DropTail {droptail:.1f} packets"


@pytest.mark.xfail(
    strict=True,
    reason="measured (1 s, 3 seeds): ARED utilization 0.57-0.84 (paper > 98 %); rounds stall behind a "
    "response in repeated timeouts (RTO backoff up to ~1 s), leaving the link to the long flow",
)
def test_fig5_red_keeps_the_bottleneck_above_90_percent(incast_100kb):
    utils = [r["utilization"] for r in incast_100kb["RED"]]
    assert min(utils) > 0.90, f"RED: {utils}"


@pytest.mark.xfail(
    strict=True,
    reason="measured (1 s, 3 seeds): loss rate ARED 1.2-3.4 % vs CoDel 6.1-6.5 % (paper ~16 % vs ~11 %); "
    "ARED's own drops are few beside buffer overflows (its auto w_q, as ns-2, averages over ~1 s), "
    "and its stalled rounds offer fewer packets",
)
def test_fig6_red_loses_more_packets_than_codel(incast_100kb):
    red, codel = _mean(incast_100kb["RED"], "loss_rate"), _mean(incast_100kb["CoDel"], "loss_rate")
    assert red > codel, f"loss RED {red:.4f} vs CoDel {codel:.4f}"


def test_fig3_utilization_rises_with_target_and_follows_equation_7():
    targets = [("10us", "750us"), ("100us", "750us"), ("150us", "750us"), ("300us", "750us")]
    grid = {"topology.links.1.qdisc": [{"kind": "codel", "target": t, "interval": i, "mtu": "1000B", "limit": "200pkt"} for t, i in targets]}
    rows = run_points(FILES / "fig3.toml", ["experiment.duration=0.6s"], repetitions=1, grid=grid)
    measured = [(parse_duration(r["topology.links.1.qdisc"]["target"]) / 1e3, r["utilization"]) for r in rows]
    utils = [u for _, u in measured]
    model = [dcmodel.utilization(q, 300.0) for q, _ in measured]
    assert all(b >= a - 0.005 for a, b in zip(utils, utils[1:])), f"not rising with target: {measured}"
    assert utils[0] < 0.90 and utils[-1] > 0.99, f"CoDel's target does not matter: {measured}"
    assert all(abs(u - m) < 0.06 for u, m in zip(utils, model)), f"far from eq. 7 {model}: {measured}"
    # The paper's check point: Q = T/2 gives ~96 % (model 23/24).
    assert abs(utils[2] - 23 / 24) < 0.02, f"Q = T/2: {utils[2]:.4f}"
