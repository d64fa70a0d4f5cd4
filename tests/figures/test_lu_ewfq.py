"""Shortened checks of Lu, Voelker & Snoeren, "Weighted Fair Queuing with Differential
Dropping", §V (Figs. 2-4).

Each test reads the ``[quick]`` run of a committed experiment file
(``experiments/lu-ewfq/figN.toml``; the ``quick`` fixture): the full 100-s runs with seeds
1-3 (Figs. 2, 3), and 6, 10, 20, 30 and 60 KB of total buffer with seeds 1-3 (Fig. 4), and
asserts the paper's finding on the mean over the seeds. Jain's index is over every flow,
UDP included, as the paper's; aggregate bandwidth is the flows' summed goodput
(``experiments/lu-ewfq/figures.py``). Findings our model does not reproduce are strict
xfails carrying the measured numbers; docs/reproductions/lu-ewfq.md explains them.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "lu-ewfq"
SEEDS = [1, 2, 3]

#: The swept keys: Figs. 2-3 sweep the bottleneck's qdisc table; Fig. 4(a) WFQ's per-flow
#: queue (one-fifth of the total), Fig. 4(b) EWFQ's shared limit.
QDISC = "topology.qdisc"
WFQ_PER_FLOW = "topology.links.0.qdisc.queue_limits.0"
EWFQ_LIMIT = "topology.links.0.qdisc.limit"

#: The sweep values of Figs. 2-3, as the files list them.
EWFQ_30KB = {"kind": "wfq", "buffer": "ewfq", "limit": "30KB", "ewfq_rtt_o": "300ms", "ewfq_responsive": [True, True, False]}
WFQ_UNIFORM = {"kind": "wfq", "buffer": "per_queue", "queue_limits": [10000, 10000, 10000]}
WFQ_VARIED = {"kind": "wfq", "buffer": "per_queue", "queue_limits": [15000, 5000, 10000]}

#: Fair shares: 5 Mb/s over three flows (Figs. 2-3), 10 Mb/s over five (Fig. 4).
FAIR_FIG23 = 5e6 / 3
FAIR_FIG4 = 10e6 / 5


def _figures_module():
    module_spec = importlib.util.spec_from_file_location("lu_ewfq_figures", FILES / "figures.py")
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def point(quick):
    """Returns a function giving the means over seeds 1-3 of ``figure``'s quick run where
    the swept ``key`` is ``value`` (per-flow goodput, Jain over every flow, aggregate)."""
    figures = _figures_module()

    def select(figure: str, key: str, value: Any) -> dict[str, Any]:
        m = figures.means(quick(FILES / f"{figure}.toml"), key, value)
        assert m["seeds"] == SEEDS, f"{figure}: {key} = {value!r} not run with seeds 1-3"
        return m

    return select


def _wfq_fig4(point, total_kb: int) -> dict[str, Any]:
    return point("fig4a", WFQ_PER_FLOW, total_kb * 1000 // 5)


def _ewfq_fig4(point, total_kb: int) -> dict[str, Any]:
    return point("fig4b", EWFQ_LIMIT, f"{total_kb}KB")


# --- Figs. 2-3: one static WFQ allocation does not fit every scenario; EWFQ needs none ----------


def test_fig2_every_configuration_is_fair_in_the_uniform_network(point):
    # Paper: EWFQ 0.9999, WFQ (10,10,10) KB 0.9998, (15,5,10) KB 0.9963.
    for qdisc in (EWFQ_30KB, WFQ_UNIFORM, WFQ_VARIED):
        assert point("fig2", QDISC, qdisc)["jain"] >= 0.99, qdisc


def test_fig2_ewfq_holds_the_udp_flow_near_its_fair_share(point):
    # "Near": within 10 % of 5/3 Mb/s, although it sends 10 Mb/s.
    udp = point("fig2", QDISC, EWFQ_30KB)["goodput"]["s3"]
    assert abs(udp / FAIR_FIG23 - 1) <= 0.10, udp


def test_fig3_ewfq_is_fair_in_the_varied_network(point):
    # Paper: 0.9978. With m_fair's step counted over AFD's window of b arrivals (docs).
    assert point("fig3", QDISC, EWFQ_30KB)["jain"] >= 0.95


def test_fig3_ewfq_holds_the_udp_flow_near_its_fair_share(point):
    udp = point("fig3", QDISC, EWFQ_30KB)["goodput"]["s3"]
    assert abs(udp / FAIR_FIG23 - 1) <= 0.10, udp


def test_fig3_static_wfq_allocations_lose_fairness_in_the_varied_network(point):
    # Paper: 0.9733 and 0.9765, below their 0.9998 and 0.9963 in the Uniform network.
    for qdisc in (WFQ_UNIFORM, WFQ_VARIED):
        varied, uniform = point("fig3", QDISC, qdisc)["jain"], point("fig2", QDISC, qdisc)["jain"]
        assert varied < 0.99 < uniform, (qdisc, varied, uniform)


# --- Fig. 4: 4 TCP + 1 UDP over a range of buffer sizes ----------------------------------------


def test_fig4a_wfq_starves_the_long_rtt_flows_at_small_buffers(point):
    # Paper: s3, s4 "well below their fair share"; "small RTT flows achieve 10x the bandwidth of
    # the long RTT flows". At 6 KB (1.2 KB, one packet, per flow).
    g = _wfq_fig4(point, 6)["goodput"]
    assert g["s3"] < 0.5 * FAIR_FIG4 and g["s4"] < 0.5 * FAIR_FIG4, g
    assert g["s1"] >= 10 * g["s4"], g


@pytest.mark.xfail(
    strict=True,
    reason="EWFQ's Jain at 20 KB is 0.854 against WFQ's 0.874 (full figure the same): m_fair stays near its "
    "ceiling (mean 1177 of 1250 KB at 30 KB, seed 1) because the queue stays below q_target, so flows are seldom held "
    "and EWFQ is a shared tail-drop buffer",
)
def test_fig4c_ewfq_is_fairer_than_wfq_at_20kb(point):
    assert _ewfq_fig4(point, 20)["jain"] > _wfq_fig4(point, 20)["jain"]


@pytest.mark.xfail(strict=True, reason="EWFQ's UDP flow gets 2.40 Mb/s at 30 KB (full figure 2.40), 1.2 x its fair share 2 Mb/s (about all its 2.5 Mb/s access link carries)")
def test_fig4b_ewfq_holds_the_udp_flow_near_its_fair_share(point):
    udp = _ewfq_fig4(point, 30)["goodput"]["s5"]
    assert abs(udp / FAIR_FIG4 - 1) <= 0.10, udp


@pytest.mark.xfail(
    strict=True,
    reason="EWFQ's aggregate is above WFQ's at small buffers: 8.36 vs 8.03 Mb/s at 6 KB, 8.82 vs 7.96 at 10 KB (full figure 8.36 vs 8.02, 8.87 vs 7.96)",
)
def test_fig4d_ewfq_aggregate_is_below_wfq_at_10kb_or_less(point):
    for total_kb in (6, 10):
        assert _ewfq_fig4(point, total_kb)["aggregate"] < _wfq_fig4(point, total_kb)["aggregate"], total_kb


@pytest.mark.xfail(
    strict=True,
    reason="EWFQ's aggregate stays below WFQ's from 30 KB: 9.22 vs 9.40 Mb/s at 30 KB, 9.27 vs 9.61 at 60 KB (full figure 9.20 vs 9.40, 9.29 vs 9.61)",
)
def test_fig4d_ewfq_aggregate_matches_wfq_from_30kb(point):
    for total_kb in (30, 60):
        assert _ewfq_fig4(point, total_kb)["aggregate"] >= _wfq_fig4(point, total_kb)["aggregate"], total_kb
