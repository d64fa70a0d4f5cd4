"""Shortened checks of Kantawala & Turner, "Intelligent Packet Discard Policies for Improved
TCP Queue Management" (2005), Figs. 4(a), 5(a) and 6, on the committed files in
``experiments/kantawala-discard/``.

Each file's ``[quick]`` run (``qdsim reproduce --quick``; the ``quick`` fixture) gives the
results: the paper's scenarios scaled down in rate, flow count and buffer together (Figs. 4
and 5 tenfold: 50 Mb/s links, 5 + 5 flows, buffers of 40 and 100 packets for the paper's 400
and 1000; Fig. 6 fivefold: 100 Mb/s, 10 + 10 flows, 200 packets, 1, 2 and 20 buckets for the
paper's 1, 10 and 100), which keeps the fair share per flow (5 Mb/s), the RTTs, the buffer
per flow and the flows per bucket. 40 s runs measured from 10 s on, seeds 1-3. Goodput is a
group's mean per-flow goodput as a percentage of that fair share. Findings our model does not
reproduce are strict xfails carrying the measured numbers; docs/reproductions/kantawala-discard.md
explains them.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest
from figure_results import label_of, require

from qdsim.results import store

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "kantawala-discard"
SEEDS = [1, 2, 3]
#: The fair share per flow of every scenario (500 Mb/s over 100 flows a link; kept when scaled).
FAIR_SHARE_BPS = 5e6


@pytest.fixture(scope="module")
def fair_share_pct(quick):
    """Returns a function giving the mean over seeds 1-3 of ``group``'s per-flow goodput as %
    of the fair share in ``figure``'s quick run, at the policy labelled ``label`` and the
    swept ``key`` = ``value``."""

    def pct(figure: str, group: str, label: str, key: str, value) -> float:
        out_dir = quick(FILES / f"{figure}.toml")
        points = [p for p in store.read_rows(out_dir, "points") if p[key] == value and label_of(out_dir, p["topology.qdisc"]) == label]
        require(out_dir, sorted(p["seed"] for p in points) == SEEDS, f"{figure}: {label} at {key} = {value!r} not run with seeds 1-3")
        keys = {p["point_key"] for p in points}
        rows = [g for g in store.read_rows(out_dir, "groups") if g["point_key"] in keys and g["group"] == group]
        assert len(rows) == len(SEEDS)
        return 100 * statistics.mean(g["per_flow_goodput_bps"] for g in rows) / FAIR_SHARE_BPS

    return pct


def _long_rtt(fair_share_pct, label: str) -> dict[str, float]:
    """Returns the 200 ms RTT flows' % of fair share at the paper's 400 and 1000 packets."""
    return {limit: fair_share_pct("fig4ab", "rtt200", label, "topology.qdisc.limit", limit) for limit in ("40pkt", "100pkt")}


# --- Fig. 4(a): from 400 packets on, DTDRR and DSDRR give 200 ms flows ≥ 70 % of fair share ---


@pytest.mark.xfail(
    strict=True,
    reason="measured (seeds 1-3): 200 ms flows under DTDRR get 65.2 % of fair share at the paper's 400 packets, 82.6 % at 1000; "
    "paper about 80-90 %; at full scale (one run) 79.3 and 83.3 %, which holds",
)
def test_fig4a_dtdrr_gives_long_rtt_flows_70_percent_of_fair_share_from_400_packets(fair_share_pct):
    got = _long_rtt(fair_share_pct, "DTDRR")
    assert min(got.values()) >= 70, got


@pytest.mark.xfail(
    strict=True,
    reason="measured (seeds 1-3): 200 ms flows under DSDRR get 39.6 % of fair share at the paper's 400 packets (78.4 % at 1000): "
    "W is 1 mark at this scale and alpha moves it from 24 % (0.05) to 44 % (0.15) (measured before the profile's send_one); "
    "paper about 80 % from 400; at full scale 80.5 % at 400 (one run; 80-84 % for alpha 0.05-0.15, seeds 1-3, before send_one), "
    "82.7 % at 1000",
)
def test_fig4a_dsdrr_gives_long_rtt_flows_70_percent_of_fair_share_from_400_packets(fair_share_pct):
    got = _long_rtt(fair_share_pct, "DSDRR")
    assert min(got.values()) >= 70, got


def test_fig4a_red_and_blue_leave_long_rtt_flows_near_half_their_fair_share(fair_share_pct):
    # Paper: "only about 40 %" under RED and Blue; below 60 % and above 20 % here.
    for label in ("RED", "Blue"):
        got = _long_rtt(fair_share_pct, label)
        assert all(20 <= v <= 60 for v in got.values()), (label, got)


def test_fig4a_dtdrr_and_dsdrr_give_long_rtt_flows_more_than_red_and_blue(fair_share_pct):
    drr = {label: _long_rtt(fair_share_pct, label) for label in ("DTDRR", "DSDRR")}
    fifo = {label: _long_rtt(fair_share_pct, label) for label in ("RED", "Blue")}
    for limit in ("40pkt", "100pkt"):
        assert min(d[limit] for d in drr.values()) > max(f[limit] for f in fifo.values()), (limit, drr, fifo)


# --- Fig. 5(a): end-to-end flows get ≥ 1.5× RED's goodput under DSDRR --------------------------


@pytest.mark.xfail(
    strict=True,
    reason="measured (seeds 1-3, ns-2's Reno exactly timed): end-to-end flows under DSDRR get 33.8 % of fair share at the paper's "
    "400 packets vs 29.7 % under RED (1.14x); at 1000 packets 68.6 vs 23.2 % (3.0x, holds); with 10 us host jitter 1.85x and 2.8x "
    "(measured before the profile's send_one). "
    "DSDRR at 400 packets sits on the alpha cliff of Fig. 4(a)",
)
def test_fig5a_dsdrr_gives_end_to_end_flows_one_and_a_half_times_red_s_goodput(fair_share_pct):
    for limit in ("40pkt", "100pkt"):
        dsdrr = fair_share_pct("fig5ab", "e2e", "DSDRR", "topology.qdisc.limit", limit)
        red = fair_share_pct("fig5ab", "e2e", "RED", "topology.qdisc.limit", limit)
        assert dsdrr >= 1.5 * red, (limit, dsdrr, red)


# --- Fig. 6: ten buckets give most of the benefit of a hundred ----------------------------------


@pytest.mark.xfail(
    strict=True,
    reason="measured (seeds 1-3, 20 flows, ns-2's hash): 200 ms flows under DSDRR get 21.3 % of fair share with 1 bucket, 20.0 % with 2 "
    "(the paper's 10: ten flows a bucket), 72.8 % with 20 (the paper's 100): none of the gain, paper 'only a marginal increase' from 10 to 100; "
    "at full scale (100 flows, one run) 23.6, 50.3, 68.7 % with 1, 10, 100 buckets: 59 % of the gain",
)
def test_fig6_ten_buckets_give_most_of_the_benefit_of_a_hundred(fair_share_pct):
    one, tenth, full = (fair_share_pct("fig6", "rtt200", "DSDRR", "topology.qdisc.buckets", b) for b in (1, 2, 20))
    assert full > one, (one, full)
    assert tenth - one >= 0.8 * (full - one), (one, tenth, full)


# --- Fig. 6(b): the spread of goodput across flows stays small whatever the number of buckets ---


@pytest.mark.xfail(
    strict=True,
    reason="measured (seeds 1-3, 10 flows of 200 ms under DSDRR, ns-2's hash): the std across them is 4.7 % of fair share with 1 bucket, "
    "3.6 % with 2 (the paper's 10) and 41.5 % with 20 (the paper's 100): the spread grows with the buckets (flows alone in a "
    "bucket against flows sharing one); paper below 15 % for any number",
)
def test_fig6b_goodput_std_stays_below_15_percent_of_fair_share_for_every_bucket_count(quick):
    # The paper: "the overall standard deviation is below 15% of the fair share goodput for all
    # our multi-queue policies, regardless of the number of queues". Read as the spread across
    # the flows Fig. 6(a) shows (the 200 ms RTT flows), per run, averaged over seeds 1-3.
    out_dir = quick(FILES / "fig6.toml")
    points = {p["point_key"]: p for p in store.read_rows(out_dir, "points")}
    spread: dict[int, list[float]] = {}
    for g in store.read_rows(out_dir, "groups"):
        if g["group"] == "rtt200":
            spread.setdefault(points[g["point_key"]]["topology.qdisc.buckets"], []).append(100 * g["per_flow_goodput_std_bps"] / FAIR_SHARE_BPS)
    require(out_dir, sorted(spread) == [1, 2, 20] and all(len(v) == len(SEEDS) for v in spread.values()), str(spread))
    means = {buckets: statistics.mean(v) for buckets, v in spread.items()}
    assert all(m < 15 for m in means.values()), means
