"""Shortened checks of Ismail, Pirzada & Qazi, "On the Effectiveness of CoDel in Data
Centers" (Figs. 3, 5/6, 7/8(a), 11), on the committed files in ``experiments/codel-dc/``.

Each file's ``[quick]`` run (``qdsim reproduce --quick``; the ``quick`` fixture) gives the
results. Incast (Fig. 5/6 at S = 100 kB): 40 servers, one long-lived flow, 1 s runs, three
seeds (the seed moves the long flow's and the requests' start times within 1 ms / 100 us).
Fig. 11: short flows at 30 % load, 1 s, three seeds. Fig. 3: one long flow through CoDel at
four targets, 0.6 s runs. Fig. 7/8(a): one incast event, 0.2 s runs, three seeds. Findings
our model does not reproduce are strict xfails carrying the measured numbers;
docs/reproductions/codel-dc.md explains them.
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path

import pytest
from figure_results import by_label, mean_of, runs, swept_table

from qdsim import store
from qdsim.plot_series import run_series
from qdsim.spec import validate
from qdsim.units import parse_duration

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "codel-dc"


def _equation_7():
    """Returns the module beside the experiment files that holds equation 7."""
    module_spec = importlib.util.spec_from_file_location("codel_dc_figures", FILES / "figures.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def incast_100kb(quick) -> dict[str, list[dict]]:
    """Returns the runs of Fig. 5 at S = 100 kB per qdisc label (DropTail, CoDel, RED)."""
    out_dir = quick(FILES / "fig5.toml")
    out = by_label(out_dir, runs(out_dir, "incast"))
    assert set(out) == {"DropTail", "CoDel", "RED"} and all(len(v) == 3 for v in out.values())
    return out


def _mean(runs: list[dict], metric: str) -> float:
    return mean_of(runs, metric)


#: Why findings that held with exact timing are strict xfails since the hosts' processing delay.
JITTER = (
    "genuine model difference since the hosts' processing delay (host_jitter 10 us, issue 10): with exact "
    "timing the result depended on the phase relations of exact rates and sizes, which the delay breaks "
    "(docs/tcp.md, 'Timing jitter'). "
)


@pytest.mark.xfail(
    strict=True,
    reason=JITTER + "AFCT CoDel 30.36 ms vs DropTail 32.41 ms (0.94) before; now 29.25 vs 30.11 ms (0.97; 10 seeds 29.10 vs 29.95), with host_jitter = 0 still 29.78 vs 32.65 ms",
)
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


def test_fig5_red_keeps_the_bottleneck_above_90_percent(incast_100kb):
    utils = [r["utilization"] for r in incast_100kb["RED"]]
    assert min(utils) > 0.90, f"RED: {utils}"


@pytest.mark.xfail(
    strict=True,
    reason="measured (1 s, 3 seeds): loss RED 3.6 % vs CoDel 6.3 % (2.7 % vs 6.4 % with exact timing; paper ~16 % vs ~11 %). RED on the "
    "instantaneous queue caps it at max_th = 51 and puts more responses into timeout (which then send "
    "nothing), CoDel drops steadily from the long flow too; no TCP or connection variant tried reverses it "
    "(docs/reproductions/codel-dc.md)",
)
def test_fig6_red_loses_more_packets_than_codel(incast_100kb):
    # Paper: ~16 % with RED vs ~11 % with CoDel.
    red, codel = _mean(incast_100kb["RED"], "loss_rate"), _mean(incast_100kb["CoDel"], "loss_rate")
    assert red > 1.1 * codel, f"loss RED {red:.4f} vs CoDel {codel:.4f}"


@pytest.mark.xfail(
    strict=True,
    reason=JITTER + "AFCT CoDel 30.36 ms vs RED 34.46 ms (0.88) before; now 29.25 vs 30.34 ms (0.96; 10 seeds 29.10 vs 29.87), with host_jitter = 0 29.78 vs 31.90 ms",
)
def test_fig5_codel_completes_incast_responses_faster_than_red(incast_100kb):
    codel, red = _mean(incast_100kb["CoDel"], "afct_s"), _mean(incast_100kb["RED"], "afct_s")
    assert codel < 0.95 * red, f"AFCT CoDel {codel * 1e3:.2f} ms vs RED {red * 1e3:.2f} ms"


def test_fig3_utilization_rises_with_target_and_follows_equation_7(quick):
    rows = store.read_rows(quick(FILES / "fig3.toml"), "points")
    measured = sorted((parse_duration(swept_table(r["topology.links.1.qdisc"])["target"]) / 1e3, r["bottleneck_utilization"]) for r in rows)
    assert [q for q, _ in measured] == [10, 100, 150, 300], measured
    utils = [u for _, u in measured]
    model = [_equation_7().utilization(q, 300.0) for q, _ in measured]
    assert all(b >= a - 0.005 for a, b in itertools.pairwise(utils)), f"not rising with target: {measured}"
    assert utils[0] < 0.90 and utils[-1] > 0.99, f"CoDel's target does not matter: {measured}"
    assert all(abs(u - m) < 0.06 for u, m in zip(utils, model, strict=True)), f"far from eq. 7 {model}: {measured}"
    # The paper's check point: Q = T/2 gives ~96 % (model 23/24).
    assert abs(utils[2] - 23 / 24) < 0.02, f"Q = T/2: {utils[2]:.4f}"


@pytest.fixture(scope="module")
def short_flows_30(quick) -> dict[str, list[dict]]:
    """Returns the runs of Fig. 11 at 30 % offered load (1 s, three seeds) per qdisc label."""
    out_dir = quick(FILES / "fig11.toml")
    return by_label(out_dir, runs(out_dir, "short"))


def test_fig11_codel_cuts_short_flow_completion_times_against_droptail(short_flows_30):
    afct = {label: _mean(runs, "afct_s") for label, runs in short_flows_30.items()}
    # Paper: up to 63 % better than DropTail.
    assert afct["CoDel"] < 0.6 * afct["DropTail"], afct


@pytest.mark.xfail(
    strict=True,
    reason="genuine model difference, a margin of a few per cent that the model's changes of issue 10 flip: "
    "AFCT CoDel 2.95 ms vs RED 3.02 ms before; with the wire sizes of SACK ACKs and unfinished transfers "
    "counted (host_jitter = 0) 3.03 vs 3.01 ms; with host_jitter 10 us 2.97 vs 2.82 ms (10 seeds 2.97 vs 2.82)",
)
def test_fig11_codel_cuts_short_flow_completion_times_against_red(short_flows_30):
    afct = {label: _mean(runs, "afct_s") for label, runs in short_flows_30.items()}
    # Paper: up to 7 % better than RED.
    assert afct["CoDel"] < afct["RED"], afct


def test_fig11_codel_loses_fewer_packets_than_red(short_flows_30):
    # Paper: CoDel's AFCT gain over RED comes "due to lower packet loss rates".
    loss = {label: _mean(runs, "loss_rate") for label, runs in short_flows_30.items()}
    assert loss["CoDel"] < 0.7 * loss["RED"], loss


def test_fig11_droptail_keeps_full_utilization(short_flows_30):
    util = {label: _mean(runs, "utilization") for label, runs in short_flows_30.items()}
    assert util["DropTail"] > 0.99, util


def test_fig11_codel_keeps_higher_utilization_than_red(short_flows_30):
    util = {label: _mean(runs, "utilization") for label, runs in short_flows_30.items()}
    assert util["CoDel"] > util["RED"] + 0.01, util


@pytest.fixture(scope="module")
def one_incast_event(quick) -> dict[str, int]:
    """Returns, per qdisc, flows in timeout (summed over 1 ms samples) and drops between 100 and
    150 ms of Fig. 7/8(a)'s run (the first seed): a long flow from 0, 40 x 100 kB requested at
    100 ms. The series are the figure's panels."""
    out_dir = quick(FILES / "fig7.toml")
    plot = validate(store.read_spec(out_dir)).plot
    window = {}
    for panel in plot.panels:
        for run in run_series(out_dir, panel, plot.by):
            if run.rep == 0:
                label = plot.labels.get(str(run.value), str(run.value))
                window[f"{label}.{panel.y}"] = sum(v for t, v in zip(run.t, run.y, strict=True) if 100 <= t * 1e3 < 150)
    assert set(window) == {f"{q}.{k}" for q in ("DropTail", "CoDel", "RED") for k in ("in_timeout", "aqm_drops", "overflow_drops")}, window
    return window


def test_fig7_red_puts_more_flows_in_timeout_than_codel_after_the_burst(one_incast_event):
    w = one_incast_event
    assert w["RED.in_timeout"] > w["CoDel.in_timeout"], w


@pytest.mark.xfail(
    strict=True,
    reason=JITTER + "drops from 100 to 150 ms (seed 1) RED 446 vs CoDel 366 before; now 487 vs 484",
)
def test_fig8a_red_drops_more_packets_than_codel_in_an_incast_event(one_incast_event):
    # Paper, Fig. 8(a): "RED introduces significantly more packet drops than CoDel".
    w = one_incast_event
    red, codel = w["RED.aqm_drops"] + w["RED.overflow_drops"], w["CoDel.aqm_drops"] + w["CoDel.overflow_drops"]
    assert red > 1.1 * codel, w


@pytest.mark.xfail(
    strict=True,
    reason=JITTER + "loss from 100 to 200 ms RED 5.4 / 4.4 / 3.2 % vs CoDel 3.0 % in all three seeds before "
    "(with exact timing the seed's start-time shift left CoDel's run unchanged); now RED 3.82 % vs CoDel 3.85 % "
    "in seed 1, RED higher in 6 of 10 seeds",
)
def test_fig8a_red_loses_more_than_codel_in_every_seed_of_an_incast_event(quick):
    # Paper, §III-B: "RED induces a higher loss rate under incast scenarios (see Figure 8)". The
    # event of Fig. 8(a) (40 x 100 kB at 100 ms), measured from 100 to 200 ms, three seeds: RED's
    # early drops are random, so each seed is a different draw.
    out_dir = quick(FILES / "fig7.toml")
    labelled = by_label(out_dir, runs(out_dir, "incast"))
    assert len(labelled["RED"]) == 3
    for red, codel in zip(labelled["RED"], labelled["CoDel"], strict=True):
        assert red["drops"] > codel["drops"] and red["loss_rate"] > codel["loss_rate"], (red, codel)
