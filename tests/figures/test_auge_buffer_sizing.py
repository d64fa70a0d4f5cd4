"""Shortened checks of Augé & Roberts, "Buffer Sizing for Elastic Traffic" (NGI 2006), Figs. 3,
5, 6-7 and §IV-B's expectation for one flow on an empty link, on the committed files in
``experiments/auge-buffer-sizing/``.

Each file's ``[quick]`` run gives the results: three seeds, 150 s (200 s on the empty link)
with the first 60 s left out (the first slow start's recovery). A bottlenecked flow's *share
of the residual capacity* is its goodput on the wire (1040 B per 1000 B delivered;
retransmissions not counted) over the 25 Mb/s the background leaves. The thresholds are the
paper's words turned into numbers before the runs: "around 40 %" → below 60 %, "100 %
utilization" → above 90 %, "75 %" and "around 80 %" → within 5 points. Findings our model
does not reproduce are strict xfails carrying the measured numbers;
docs/reproductions/auge-buffer-sizing.md explains them.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from figure_results import label_of, require

from qdsim.results import store

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "auge-buffer-sizing"

#: The capacity the 25 Mb/s background leaves on the 50 Mb/s link.
RESIDUAL_BPS = 25e6

#: Bytes on the wire per byte of payload: ns-2's 1000 B segments in 1040 B packets.
WIRE_PER_PAYLOAD = 1040 / 1000


def _groups(results_dir: Path, key: str) -> dict[str, dict[str, list[dict]]]:
    """Returns the group rows of a quick run per legend label of swept ``key``, then per group,
    each list in repetition order, with the bottleneck's utilization and the group's share of
    the residual capacity added."""
    points = {p["point_key"]: p for p in store.read_rows(results_dir, "points")}
    out: dict[str, dict[str, list[dict]]] = {}
    for row in sorted(store.read_rows(results_dir, "groups"), key=lambda r: r["rep"]):
        row = {**row, "utilization": points[row["point_key"]]["bottleneck_utilization"], "share": row["goodput_bps"] * WIRE_PER_PAYLOAD / RESIDUAL_BPS}
        out.setdefault(label_of(results_dir, row[key]), {}).setdefault(row["group"], []).append(row)
    return out


def _values(rows: list[dict], metric: str) -> list[float]:
    return [r[metric] for r in rows]


@pytest.fixture(scope="module")
def fig3(quick) -> dict[str, dict[str, list[dict]]]:
    results_dir = quick(FILES / "fig3.toml")
    out = _groups(results_dir, "topology.qdisc")
    require(results_dir, set(out) == {"FIFO 20 packets", "FIFO 625 packets"} and all(len(g["bottlenecked"]) == 3 for g in out.values()), str(sorted(out)))
    return out


def test_fig3_a_20_packet_buffer_leaves_one_newreno_flow_clearly_below_60_percent(fig3):
    shares = _values(fig3["FIFO 20 packets"]["bottlenecked"], "share")
    assert statistics.mean(shares) < 0.6 and max(shares) < 0.65, f"share of the residual capacity at 20 packets: {shares} (paper: about 40 %)"


def test_fig3_a_625_packet_buffer_gives_one_newreno_flow_above_90_percent(fig3):
    shares = _values(fig3["FIFO 625 packets"]["bottlenecked"], "share")
    assert min(shares) > 0.9, f"share of the residual capacity at 625 packets: {shares} (paper: 100 %)"
    assert min(_values(fig3["FIFO 625 packets"]["bottlenecked"], "utilization")) > 0.95


@pytest.fixture(scope="module")
def empty(quick) -> dict[tuple[str, str], list[float]]:
    """Returns the link utilization per (buffer, host jitter) of one flow alone on the link."""
    results_dir = quick(FILES / "empty.toml")
    points = store.read_rows(results_dir, "points")
    out: dict[tuple[str, str], list[float]] = {}
    for p in sorted(points, key=lambda p: p["rep"]):
        out.setdefault((p["topology.qdisc.limit"], p["topology.host_jitter"]), []).append(p["bottleneck_utilization"])
    require(results_dir, all(len(v) == 3 for v in out.values()) and len(out) == 4, str(sorted(out)))
    return out


#: ns-2.35 gives the same (qdsim validate, docs/reproductions/auge-buffer-sizing.md).
ONE_PACKET = "fails in ns-2.35 too: one NewReno flow from 1 Gb/s access links into a 1-packet FIFO loses the second packet of nearly every burst and never leaves windows of 2-7 segments: "


@pytest.mark.xfail(strict=True, reason=ONE_PACKET + "with 10 us host jitter utilization 0.0082, 0.0074, 0.0078 (ns-2.35 with overhead_: 0.0079-0.0084; paper: 75 %)")
def test_empty_link_one_flow_with_a_1_packet_buffer_gets_75_percent(empty):
    utilization = empty["1pkt", "10us"]
    assert all(abs(u - 0.75) < 0.05 for u in utilization), f"utilization with 1 packet: {utilization}"


def test_empty_link_one_flow_with_a_20_packet_buffer_gets_about_80_percent(empty):
    utilization = empty["20pkt", "10us"]
    assert all(abs(u - 0.80) < 0.05 for u in utilization), f"utilization with 20 packets: {utilization}"
    assert min(utilization) > max(empty["1pkt", "10us"])


@pytest.mark.xfail(strict=True, reason=ONE_PACKET + "exactly timed (the profile's timing) utilization 0.0057 in every seed, ns-2.35's to the packet (paper: 75 %)")
def test_empty_link_with_exact_timing_gives_75_percent_at_1_packet(empty):
    """ns-2's timing (host_jitter = 0): the Reno sawtooth the paper's 75 % comes from."""
    one = empty["1pkt", "0s"]
    assert all(abs(u - 0.75) < 0.05 for u in one), f"utilization with 1 packet: {one}"


def test_empty_link_with_exact_timing_gives_about_80_percent_at_20_packets(empty):
    twenty = empty["20pkt", "0s"]
    assert all(abs(u - 0.80) < 0.05 for u in twenty) and min(twenty) > max(empty["1pkt", "0s"]), f"utilization with 20 packets: {twenty}"


@pytest.fixture(scope="module")
def fig5(quick) -> dict[str, dict[str, list[dict]]]:
    results_dir = quick(FILES / "fig5.toml")
    out = _groups(results_dir, "flows.0.count")
    require(results_dir, set(out) == {"1 flow", "2 flows", "4 flows"}, str(sorted(out)))
    return out


def test_fig5_utilization_improves_with_the_number_of_bottlenecked_flows(fig5):
    means = [statistics.mean(_values(fig5[label]["bottlenecked"], "utilization")) for label in ("1 flow", "2 flows", "4 flows")]
    assert means[0] < means[1] < means[2], f"utilization with 1, 2, 4 flows: {means}"


@pytest.fixture(scope="module")
def fig6a(quick) -> dict[str, dict[str, list[dict]]]:
    results_dir = quick(FILES / "fig6a.toml")
    out = _groups(results_dir, "flows.0.cc")
    require(results_dir, set(out) == {"NewReno (Fig. 3)", "HSTCP (Fig. 6)"}, str(sorted(out)))
    return out


@pytest.mark.xfail(
    strict=True,
    reason="fails in ns-2.35 too: at 20 packets one HSTCP flow (ns-2's windowOption_ 8) gets 0.32, 0.30, 0.28 of the residual "
    "capacity and one NewReno flow 0.39, 0.40, 0.38 (ns-2.35: 0.33, 0.30, 0.30 vs 0.40, 0.37, 0.39). ns-3.37 'holds' it at "
    "shares of 0.12, 0.07, 0.07 vs 0.06, 0.06, 0.06: its TcpSocketBase without SACK standing in for ns-2's agent nearly stalls "
    "on this path (5 % utilisation alone on the link; docs/engine-ns3.md)",
)
def test_fig6_hstcp_does_better_than_newreno_with_a_20_packet_buffer(fig6a):
    hstcp, newreno = (_values(fig6a[label]["bottlenecked"], "share") for label in ("HSTCP (Fig. 6)", "NewReno (Fig. 3)"))
    assert statistics.mean(hstcp) > statistics.mean(newreno), f"share HSTCP {hstcp} vs NewReno {newreno}"


@pytest.fixture(scope="module")
def fig6b(quick) -> dict[str, dict[str, list[dict]]]:
    results_dir = quick(FILES / "fig6b.toml")
    out = _groups(results_dir, "topology.qdisc")
    require(results_dir, set(out) == {"FIFO 625 packets", "FQ 625 packets"}, str(sorted(out)))
    return out


def _gaps(rows: dict[str, list[dict]]) -> list[float]:
    """Returns HSTCP's share minus NewReno's, per seed."""
    return [h - n for h, n in zip(_values(rows["hstcp"], "share"), _values(rows["newreno"], "share"), strict=True)]


def test_fig6_hstcp_beats_newreno_under_fifo(fig6b):
    gaps = _gaps(fig6b["FIFO 625 packets"])
    assert min(gaps) > 0, f"HSTCP share minus NewReno share per seed: {gaps}"


def test_fig7_fair_queueing_shrinks_the_gap_between_hstcp_and_newreno(fig6b):
    fifo, fq = _gaps(fig6b["FIFO 625 packets"]), _gaps(fig6b["FQ 625 packets"])
    assert max(abs(g) for g in fq) < 0.05, f"FQ: HSTCP share minus NewReno share per seed: {fq}"
    assert statistics.mean(abs(g) for g in fq) < 0.25 * statistics.mean(abs(g) for g in fifo), f"gaps FIFO {fifo}, FQ {fq}"


@pytest.fixture(scope="module")
def fig7a(quick) -> dict[str, dict[str, list[dict]]]:
    results_dir = quick(FILES / "fig7a.toml")
    out = _groups(results_dir, "topology.qdisc")
    require(results_dir, set(out) == {"FIFO 20 packets", "FQ 20 packets"}, str(sorted(out)))
    return out


def test_fig7_under_fair_queueing_the_background_loses_almost_nothing(fig7a, fig6b):
    """§V-B: "the drop policy is such that non-bottlenecked flows remain loss free"; under
    FIFO the same background loses packets at both buffer sizes."""
    for fifo, fq in ((fig7a["FIFO 20 packets"], fig7a["FQ 20 packets"]), (fig6b["FIFO 625 packets"], fig6b["FQ 625 packets"])):
        fq_drops, fifo_drops = _values(fq["background"], "drops"), _values(fifo["background"], "drops")
        assert max(fq_drops) <= 1, f"background drops under FQ: {fq_drops}"
        assert min(fifo_drops) > 10, f"background drops under FIFO: {fifo_drops}"


def test_fig7_fair_queueing_barely_alleviates_the_small_buffer(fig7a):
    """§V-B: with 20 packets "fair queuing barely alleviates the loss in performance": one
    NewReno flow's share stays below 60 % and within 0.1 of its share under FIFO."""
    fifo, fq = (statistics.mean(_values(fig7a[label]["bottlenecked"], "share")) for label in ("FIFO 20 packets", "FQ 20 packets"))
    assert fq < 0.6 and abs(fq - fifo) < 0.1, f"share at 20 packets: FQ {fq:.3f}, FIFO {fifo:.3f}"
