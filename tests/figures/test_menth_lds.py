"""Shortened checks of Menth, Mehl & Veith, "DRR-LDS" (2017), Figs. 3-5 (§4.3-4.5).

Each test reads the ``[quick]`` run of a committed experiment file
(``experiments/menth-lds/figNN.toml``; the ``quick`` fixture): a few grid points, each with
seeds 1-10 instead of 100 repetitions, and asserts the paper's finding on the mean over the
seeds at one grid point, under the paper's stack (profile ``linux-2.6``, exactly timed as
INET runs it). Throughput per user is a group's goodput over its users, from 5 s
on. Findings our model does not reproduce are strict xfails carrying the measured numbers;
docs/reproductions/menth-lds.md explains them.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

import pytest
from figure_results import require

from qdsim.papers.reproduce import find_figures, quick_raw
from qdsim.results import store

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "menth-lds"
SEEDS = list(range(1, 11))

#: Why a finding fails under the paper's stack.
LINUX = "not reproduced with Linux 2.6.26 TCP (profile linux-2.6, exactly timed as INET runs it; 10 seeds): "


@pytest.fixture(scope="module")
def rows(quick):
    """Returns a function giving the rows of ``table`` of ``figure``'s quick run where the
    swept ``key`` has ``value`` (and the other swept keys the file's own values)."""

    def select(figure: str, table: str, key: str, value: Any) -> list[dict]:
        out_dir = quick(FILES / f"{figure}.toml")
        seeds = {r["point_key"]: r["seed"] for r in store.read_rows(out_dir, "points") if r[key] == value}
        require(out_dir, sorted(seeds.values()) == SEEDS, f"{figure}: {key} = {value!r} not run with seeds 1-10")
        return [r for r in store.read_rows(out_dir, table) if r["point_key"] in seeds]

    return select


@pytest.fixture(scope="module")
def rows_50ms(quick, tmp_path_factory):
    """Returns a function as ``rows`` for the paper's neighbouring set-up D_b = 50 ms ("We
    performed the same experiments with D_b = 50 ms and obtained almost the same results",
    §4.3, §4.4): ``figure``'s quick run at the one ``value`` of ``key``, seeds 1-10."""
    done: dict[tuple[str, str, Any], Path] = {}

    def select(figure: str, table: str, key: str, value: Any) -> list[dict]:
        if (figure, key, value) not in done:
            (fig,) = find_figures([str(FILES / f"{figure}.toml")], sets=["topology.bottleneck_delay=50ms"], root=FILES.parent)
            raw = quick_raw(fig.raw)
            raw = {**raw, "sweep": {**raw["sweep"], key: [value]}}
            out_dir = tmp_path_factory.mktemp(f"menth-lds-{figure}-50ms")
            quick.sweep(fig, raw, out_dir)
            done[(figure, key, value)] = out_dir
        out_dir = done[(figure, key, value)]
        assert sorted(r["seed"] for r in store.read_rows(out_dir, "points")) == SEEDS
        return store.read_rows(out_dir, table)

    return select


def _per_user_kbps(rows, figure: str, key: str, value: Any) -> tuple[float, float]:
    """Returns the mean throughput per heavy user and per light user over the seeds, kb/s."""
    groups = rows(figure, "groups", key, value)
    heavy = statistics.mean(g["per_user_goodput_bps"] for g in groups if g["group"] == "heavy")
    light = statistics.mean(g["per_user_goodput_bps"] for g in groups if g["group"] == "light")
    return heavy / 1e3, light / 1e3


def _download_s(rows, figure: str, d_max: int) -> float:
    """Returns the infrequent user's mean 100 kB download time over the seeds, seconds."""
    flows = [f for f in rows(figure, "flows", "topology.qdisc.d_max", d_max) if f["group"] == "infrequent"]
    times = [f["fct_s"] for f in flows]
    assert len(times) == len(SEEDS) and all(f["finished"] for f in flows), f"a download did not finish within the run: {times}"
    return statistics.mean(times)


# --- Fig. 3: plain DRR favours heavy users when the delay is kept low ------------------------


def test_fig3a_drr_with_20_packet_buffer_gives_heavy_users_clearly_more(rows):
    heavy, light = _per_user_kbps(rows, "fig3a", "topology.qdisc.limit", 20)
    assert heavy > 1.2 * light, (heavy, light)


@pytest.mark.xfail(
    strict=True,
    reason=LINUX + "at S_B = 70 packets heavy users 262 vs light 238 kb/s (1.10; paper: equal from 50 packets). ns-2.35 holds it "
    "(238.5 vs 241.7 kb/s, 0.99) with stand-ins on both sides: its Sack1 agent for Linux 2.6, and its Queue/DRR, which drops from "
    "the head of the longest queue in bytes where drop-on-enqueue drops the arrival (the translation's notes)",
)
def test_fig3a_drr_needs_a_large_buffer_for_equal_shares(rows):
    # Paper: "DRR with drop-on-enqueue requires 50 packets to achieve equal bandwidth
    # allocation"; within 5 % at 70 packets.
    heavy, light = _per_user_kbps(rows, "fig3a", "topology.qdisc.limit", 70)
    assert abs(heavy / light - 1) <= 0.05, (heavy, light)


def test_fig3b_drr_with_24ms_delay_threshold_gives_heavy_users_clearly_more(rows):
    heavy, light = _per_user_kbps(rows, "fig3b", "topology.qdisc.t_d", "24ms")
    assert heavy > 1.2 * light, (heavy, light)


def test_fig3b_drop_on_dequeue_gap_is_larger_than_drop_on_enqueue_for_small_limits(rows):
    # Paper: "even larger differences ... in particular for small delay thresholds"; T_D = 12 ms
    # is the transmission time of 10 packets, the buffer it is compared with.
    h_deq, l_deq = _per_user_kbps(rows, "fig3b", "topology.qdisc.t_d", "12ms")
    h_enq, l_enq = _per_user_kbps(rows, "fig3a", "topology.qdisc.limit", 10)
    assert h_deq / l_deq > h_enq / l_enq, ((h_deq, l_deq), (h_enq, l_enq))


# --- Fig. 4: DRR-LDS equalises heavy and light users -----------------------------------------


@pytest.mark.parametrize("d_max", [10, 20])
def test_fig4a_lds_drop_on_enqueue_equalises_users_from_dmax_10(rows, d_max):
    heavy, light = _per_user_kbps(rows, "fig4a", "topology.qdisc.d_max", d_max)
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


def test_fig4a_small_dmax_leaves_the_gap(rows):
    heavy, light = _per_user_kbps(rows, "fig4a", "topology.qdisc.d_max", 2)
    assert heavy > 1.15 * light, (heavy, light)


@pytest.mark.parametrize("d_max", [6, 10, 20])
def test_fig4b_lds_drop_on_dequeue_equalises_users_from_dmax_6(rows, d_max):
    heavy, light = _per_user_kbps(rows, "fig4b", "topology.qdisc.d_max", d_max)
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


# --- Fig. 5: LDS speeds up an infrequent user's download --------------------------------------


def test_fig5b_lds_drop_on_dequeue_downloads_several_times_faster(rows):
    without = _download_s(rows, "fig5b", 0)
    with_lds = _download_s(rows, "fig5b", 100)
    assert without > 3.0 * with_lds, (without, with_lds)
    assert with_lds < 0.4, with_lds  # the paper: "less than 0.4 s" for large D_max


@pytest.mark.xfail(
    strict=True,
    reason=LINUX + "without LDS, 5 connections per other user: 3.08 s with drop-on-dequeue vs 2.72 s with drop-on-enqueue (1.13; paper: 4.8 s, 'significantly larger')",
)
def test_fig5b_without_lds_drop_on_dequeue_is_far_slower_than_drop_on_enqueue(rows):
    dequeue = _download_s(rows, "fig5b", 0)
    enqueue = _download_s(rows, "fig5a", 0)
    assert dequeue > 1.5 * enqueue, (dequeue, enqueue)
    assert dequeue > 1.68 * 2, dequeue  # far slower than the fair-share time


def test_fig5a_lds_drop_on_enqueue_downloads_below_fair_share_time(rows):
    assert _download_s(rows, "fig5a", 50) < 1.68


# --- The neighbouring set-up D_b = 50 ms ("almost the same results", §4.3-4.4) -----------------


def test_fig3a_and_3b_drr_gives_heavy_users_clearly_more_also_at_50ms(rows_50ms):
    for figure, key, value in (("fig3a", "topology.qdisc.limit", 20), ("fig3b", "topology.qdisc.t_d", "24ms")):
        heavy, light = _per_user_kbps(rows_50ms, figure, key, value)
        assert heavy > 1.2 * light, (figure, heavy, light)


@pytest.mark.xfail(strict=True, reason=LINUX + "at D_b = 50 ms, S_B = 20, D_max = 10: heavy 280 vs light 236 kb/s (1.19; paper: 'almost the same results' as 5 ms)")
def test_fig4a_lds_drop_on_enqueue_equalises_users_also_at_50ms(rows_50ms):
    heavy, light = _per_user_kbps(rows_50ms, "fig4a", "topology.qdisc.d_max", 10)
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


@pytest.mark.xfail(strict=True, reason=LINUX + "at D_b = 50 ms, T_D = 24 ms, D_max = 6: heavy 350 vs light 224 kb/s (1.56; paper: 'almost the same results' as 5 ms)")
def test_fig4b_lds_drop_on_dequeue_equalises_users_also_at_50ms(rows_50ms):
    heavy, light = _per_user_kbps(rows_50ms, "fig4b", "topology.qdisc.d_max", 6)
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)
