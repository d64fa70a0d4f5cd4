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
from qdsim.results import add_users
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
        summaries.append(add_users(summarize(run_config(config)), config))
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


def test_fig3b_drr_with_24ms_delay_threshold_gives_heavy_users_clearly_more():
    heavy, light = _per_user_kbps("fig3b", ["topology.qdisc.t_d=24ms"])
    assert heavy > 1.5 * light, (heavy, light)


# --- Fig. 4: DRR-LDS equalises heavy and light users -----------------------------------------


_ENQUEUE_GAP = (
    "not reproduced: light users stay TCP-limited (about 230 kb/s, 137 timeouts per flow in "
    "55 s) so heavy users keep the rest; measured over 10 seeds heavy/light = 339/230 kb/s at "
    "D_max = 10 and 293/236 at D_max = 20 (docs/reproductions/menth-lds.md)"
)


@pytest.mark.parametrize("d_max", [pytest.param(10, marks=pytest.mark.xfail(strict=True, reason=_ENQUEUE_GAP)), pytest.param(20, marks=pytest.mark.xfail(strict=True, reason=_ENQUEUE_GAP))])
def test_fig4a_lds_drop_on_enqueue_equalises_users_from_dmax_10(d_max):
    heavy, light = _per_user_kbps("fig4a", [f"topology.qdisc.d_max={d_max}"])
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


_DEQUEUE_AT_6 = (
    "reproduced only from D_max = 10: at D_max = 6 heavy/light = 271/239 kb/s over 10 seeds "
    "(+13 %; 270/239 over 100 repetitions; the paper: equal) (docs/reproductions/menth-lds.md)"
)


@pytest.mark.parametrize("d_max", [pytest.param(6, marks=pytest.mark.xfail(strict=True, reason=_DEQUEUE_AT_6)), 10, 20])
def test_fig4b_lds_drop_on_dequeue_equalises_users_from_dmax_6(d_max):
    heavy, light = _per_user_kbps("fig4b", [f"topology.qdisc.d_max={d_max}"])
    assert abs(heavy / light - 1) <= 0.10, (heavy, light)


# --- Fig. 5: LDS speeds up an infrequent user's download --------------------------------------


def test_fig5b_lds_drop_on_dequeue_downloads_several_times_faster():
    without = _download_s("fig5b", ["topology.qdisc.d_max=0"])
    with_lds = _download_s("fig5b", ["topology.qdisc.d_max=50"])
    assert without > 3.0 * with_lds, (without, with_lds)
    assert without > 1.68 * 2, without  # far slower than the fair-share time without LDS


def test_fig5a_lds_drop_on_enqueue_downloads_below_fair_share_time():
    assert _download_s("fig5a", ["topology.qdisc.d_max=50"]) < 1.68
