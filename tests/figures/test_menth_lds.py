"""Shortened checks of Menth, Mehl & Veith, "DRR-LDS" (2017), Figs. 3-5 (§4.3-4.5).

Each test runs the committed experiment file (``experiments/menth-lds/figNN.toml``) at one
grid point, shortened to ten seeds instead of 100 repetitions, and asserts the paper's
finding on the mean over the seeds. Throughput per user is a group's
goodput over its users, from 5 s on. Findings our model does not reproduce are strict
xfails carrying the measured numbers; docs/reproductions/menth-lds.md explains them.
"""

from __future__ import annotations

import statistics
from pathlib import Path

import pytest

from qdsim.resolve import resolve
from qdsim.run import run_config, summarize
from qdsim.spec import load

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "menth-lds"
SEEDS = tuple(range(1, 11))


def _runs(figure: str, sets: list[str], seeds=SEEDS) -> list[dict]:
    """Returns the summaries of ``figure``'s experiment file with ``sets`` for each seed."""
    _, spec = load(FILES / f"{figure}.toml", sets)
    summaries = []
    for seed in seeds:
        config = resolve(spec, seed=seed)
        summaries.append(summarize(run_config(config)))
    return summaries


def _per_user_kbps(figure: str, sets: list[str]) -> tuple[float, float]:
    """Returns the mean throughput per heavy user and per light user over the seeds, kb/s."""
    runs = _runs(figure, sets)
    heavy = statistics.mean(next(g for g in s["groups"] if g["group"] == "heavy")["per_user_goodput_bps"] for s in runs)
    light = statistics.mean(next(g for g in s["groups"] if g["group"] == "light")["per_user_goodput_bps"] for s in runs)
    return heavy / 1e3, light / 1e3


def _download_s(figure: str, sets: list[str]) -> float:
    """Returns the infrequent user's mean 100 kB download time over the seeds, seconds."""
    runs = _runs(figure, sets)
    times = [next(f for f in s["flows"] if f["group"] == "infrequent")["fct_s"] for s in runs]
    assert all(t is not None for t in times), f"a download did not finish within the run: {times}"
    return statistics.mean(times)


# --- Fig. 3: plain DRR favours heavy users when the delay is kept low ------------------------


def test_fig3a_drr_with_20_packet_buffer_gives_heavy_users_clearly_more():
    heavy, light = _per_user_kbps("fig3a", ["topology.qdisc.limit=20pkt"])
    assert heavy > 1.2 * light, (heavy, light)


def test_fig3a_drr_needs_a_large_buffer_for_equal_shares():
    # Paper: "DRR with drop-on-enqueue requires 50 packets to achieve equal bandwidth
    # allocation"; ours is within 10 % from 50 packets (1.08) and equal at 70.
    heavy, light = _per_user_kbps("fig3a", ["topology.qdisc.limit=70pkt"])
    assert abs(heavy / light - 1) <= 0.05, (heavy, light)


def test_fig3b_drr_with_24ms_delay_threshold_gives_heavy_users_clearly_more():
    heavy, light = _per_user_kbps("fig3b", ["topology.qdisc.t_d=24ms"])
    assert heavy > 1.2 * light, (heavy, light)


def test_fig3b_drop_on_dequeue_gap_is_larger_than_drop_on_enqueue_for_small_limits():
    # Paper: "even larger differences ... in particular for small delay thresholds"; T_D = 12 ms
    # is the transmission time of 10 packets, the buffer it is compared with.
    h_deq, l_deq = _per_user_kbps("fig3b", ["topology.qdisc.t_d=12ms"])
    h_enq, l_enq = _per_user_kbps("fig3a", ["topology.qdisc.limit=10pkt"])
    assert h_deq / l_deq > h_enq / l_enq, ((h_deq, l_deq), (h_enq, l_enq))


# --- Fig. 4: DRR-LDS equalises heavy and light users -----------------------------------------


@pytest.mark.parametrize("d_max", [10, 20])
def test_fig4a_lds_drop_on_enqueue_equalises_users_from_dmax_10(d_max):
    heavy, light = _per_user_kbps("fig4a", [f"topology.qdisc.d_max={d_max}"])
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


def test_fig4a_small_dmax_leaves_the_gap():
    heavy, light = _per_user_kbps("fig4a", ["topology.qdisc.d_max=2"])
    assert heavy > 1.15 * light, (heavy, light)


@pytest.mark.parametrize("d_max", [6, 10, 20])
def test_fig4b_lds_drop_on_dequeue_equalises_users_from_dmax_6(d_max):
    heavy, light = _per_user_kbps("fig4b", [f"topology.qdisc.d_max={d_max}"])
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


# --- Fig. 5: LDS speeds up an infrequent user's download --------------------------------------


def test_fig5b_lds_drop_on_dequeue_downloads_several_times_faster():
    without = _download_s("fig5b", ["topology.qdisc.d_max=0"])
    with_lds = _download_s("fig5b", ["topology.qdisc.d_max=100"])
    assert without > 3.0 * with_lds, (without, with_lds)
    assert with_lds < 0.4, with_lds  # the paper: "less than 0.4 s" for large D_max


@pytest.mark.xfail(
    strict=True,
    reason="measured (10 seeds, 5 connections per other user): 1.99 s with drop-on-dequeue vs 1.91 s with "
    "drop-on-enqueue (paper: 4.8 s, 'significantly larger'); a new segment per duplicate ACK keeps the "
    "download's ACK clock running through the dequeue drops. Without limited transmit (RFC 5681 TCP) "
    "it takes 4.75 s, as the paper, but then Fig. 4 does not reproduce (docs/reproductions/menth-lds.md)",
)
def test_fig5b_without_lds_drop_on_dequeue_is_far_slower_than_drop_on_enqueue():
    dequeue = _download_s("fig5b", ["topology.qdisc.d_max=0"])
    enqueue = _download_s("fig5a", ["topology.qdisc.d_max=0"])
    assert dequeue > 1.5 * enqueue, (dequeue, enqueue)
    assert dequeue > 1.68 * 2, dequeue  # far slower than the fair-share time


def test_fig5a_lds_drop_on_enqueue_downloads_below_fair_share_time():
    assert _download_s("fig5a", ["topology.qdisc.d_max=50"]) < 1.68
