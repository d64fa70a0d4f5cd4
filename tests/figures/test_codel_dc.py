"""Shortened checks of Ismail, Pirzada & Qazi, "On the Effectiveness of CoDel in Data
Centers" (Figs. 3, 5/6, 7/8(a), 11), on the committed files in ``experiments/codel-dc/``.

Each file's ``[quick]`` run (``qdsim reproduce --quick``; the ``quick`` fixture) gives the
results, under the paper's stack (profile ``ns2-sack1``, RTO_min 10 ms), exactly timed as ns-2
runs it. Incast (Fig. 5/6): 40 servers x 100 kB and the neighbouring set-ups 30 and 48 servers
and 80 kB, one long-lived flow, 1 s runs, three seeds (the seed moves the start times within
1 ms / 100 us, and draws RED's early drops). Fig. 11: short flows at
30 % load, 1 s, three seeds. Fig. 3: one long flow through CoDel at four targets, 0.6 s runs.
Fig. 7/8(a): one incast event, 0.2 s runs, three seeds. Findings our model does not reproduce
are strict xfails carrying the measured numbers; docs/reproductions/codel-dc.md explains them.
"""

from __future__ import annotations

import importlib.util
import itertools
from collections.abc import Callable
from pathlib import Path

import pytest
from figure_results import by_label, mean_of, require, runs, swept_table

from qdsim.engines.sweep import refused_points
from qdsim.experiment.spec import validate
from qdsim.experiment.units import parse_duration
from qdsim.papers.reproduce import find_figures, quick_raw
from qdsim.plot.series import run_series
from qdsim.results import store

pytestmark = pytest.mark.figure

FILES = Path(__file__).resolve().parents[2] / "experiments" / "codel-dc"


def _equation_7():
    """Returns the module beside the experiment files that holds equation 7."""
    module_spec = importlib.util.spec_from_file_location("codel_dc_figures", FILES / "figures.py")
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    return module


#: The incast set-ups each Fig. 5/6 finding is checked on: the figure's point (40 servers x
#: 100 kB, the file's ``[quick]`` run) and its neighbours, where the paper's claims are general
#: (§III-B: "flow sizes of 10 kB, 50 kB, and 100 kB"; Fig. 9: 8 to 128 senders): 30 and 48
#: servers, 80 kB responses. Each: 1 s, three seeds.
INCAST_SETUPS = {
    "40x100kB": ((), None),
    "30x100kB": (("flows.1.count=30",), None),
    "48x100kB": (("flows.1.count=48",), None),
    "40x80kB": ((), {"flows.1.size": ["80kB"]}),
}


@pytest.fixture(scope="module")
def incast(quick, tmp_path_factory) -> Callable[[str], dict[str, list[dict]]]:
    """Returns a function giving the runs of Fig. 5 in one of ``INCAST_SETUPS`` per qdisc
    label (DropTail, CoDel, RED), each set-up run once per module."""
    done: dict[str, dict[str, list[dict]]] = {}

    def setup_runs(setup: str) -> dict[str, list[dict]]:
        if setup not in done:
            sets, sweep = INCAST_SETUPS[setup]
            if not sets and sweep is None:
                out_dir = quick(FILES / "fig5.toml")
            else:
                (figure,) = find_figures([str(FILES / "fig5.toml")], sets=sets, root=FILES.parent)
                raw = quick_raw(figure.raw)
                raw = {**raw, "sweep": {**raw["sweep"], **(sweep or {})}}
                out_dir = tmp_path_factory.mktemp(f"codel-dc-fig5-{setup}")
                quick.sweep(figure, raw, out_dir)
            out = by_label(out_dir, runs(out_dir, "incast"))
            # In an engine that lacks CoDel the others are there: a check that needs CoDel then
            # finds no runs for it (KeyError) and the engine cannot decide it.
            labels = {"DropTail", "CoDel", "RED"}
            whole = set(out) == labels or (set(out) < labels and bool(refused_points(out_dir)))
            require(out_dir, whole and all(len(v) == 3 for v in out.values()), setup)
            done[setup] = out
        return done[setup]

    return setup_runs


def _setups(failing: dict[str, str]) -> list:
    """Returns ``INCAST_SETUPS`` as test parameters, those in ``failing`` strict xfails with
    their measured numbers as the reason."""
    return [pytest.param(s, marks=pytest.mark.xfail(strict=True, reason=failing[s])) if s in failing else s for s in INCAST_SETUPS]


def _mean(runs: list[dict], metric: str) -> float:
    return mean_of(runs, metric)


#: Why Fig. 5/6 findings fail under the paper's stack (ns2-sack1, RTO_min 10 ms, exactly timed as ns-2).
FAITHFUL = "not reproduced with ns-2 TCP SACK (profile ns2-sack1, RTO_min 10 ms, exact timing; 3 seeds, 1 s): "


@pytest.mark.parametrize(
    "setup",
    _setups(
        {
            "30x100kB": FAITHFUL + "AFCT CoDel 24.41 ms vs DropTail 25.16 ms (0.970: 3.0 % faster, on the line the finding draws at 3 %), "
            "since the Sack1 agent forgets its recovery point when a recovery ends as ns-2's does (before: held); ns-3.37, with its own TCP, holds it. "
            "Over 30 seeds each (qdsim validate --engine ns3, 30 servers, 1 s) qdsim's ratio stays on the line (24.55 vs 25.21 ms, 0.974) and "
            "ns-3.37's is 0.84 (23.47 vs 27.82 ms): ns-3's TCP standing in for the Sack1 agent completes DropTail's responses 10 % later; "
            "Debian's ns-2.35, the paper's stack, has no CoDel",
        }
    ),
)
def test_fig5_codel_completes_incast_responses_faster_than_droptail(incast, setup):
    runs = incast(setup)
    codel, droptail = _mean(runs["CoDel"], "afct_s"), _mean(runs["DropTail"], "afct_s")
    assert codel < 0.97 * droptail, f"AFCT CoDel {codel * 1e3:.2f} ms vs DropTail {droptail * 1e3:.2f} ms"


@pytest.mark.parametrize(
    "setup",
    _setups(
        {
            "40x80kB": FAITHFUL + "CoDel's utilization 92.1 / 85.5 / 92.8 % (DropTail 97.6-98.3 %): seed 2's incast rounds leave the link idle "
            "after timeouts; ns-3.37 91.1 / 91.4 / 92.1 % with its own TCP standing in for ns-2's Sack1 agent. On its threshold in both: over 30 "
            "seeds each (qdsim validate --engine ns3, CoDel at 80 kB, 1 s) CoDel's utilization is 91.7 +- 0.8 % in qdsim and 92.3 +- 0.4 % in "
            "ns-3.37 (agree), with 4 of qdsim's 30 runs below 90 % and 1 of ns-3.37's (lowest 85.3 and 89.8 %)",
        }
    ),
)
def test_fig5_droptail_and_codel_keep_the_bottleneck_above_90_percent(incast, setup):
    for label in ("DropTail", "CoDel"):
        utils = [r["utilization"] for r in incast(setup)[label]]
        assert min(utils) > 0.90, f"{label}: {utils}"


@pytest.mark.parametrize("setup", list(INCAST_SETUPS))
def test_fig6_codel_keeps_a_shorter_queue_than_droptail(incast, setup):
    runs = incast(setup)
    codel, droptail = _mean(runs["CoDel"], "mean_queue_pkts"), _mean(runs["DropTail"], "mean_queue_pkts")
    assert codel < 0.6 * droptail, f"mean queue CoDel {codel:.1f} vs DropTail {droptail:.1f} packets"


@pytest.mark.parametrize(
    "setup",
    _setups(
        {
            "40x80kB": FAITHFUL + "RED's utilization 91.6 / 86.4 / 89.8 % since the profile sends as ns-2's send_one (before, with RFC 3042's "
            "rule: lowest seed 92.3 %). A finding on its threshold in both simulators, not a model difference: over 30 seeds each (qdsim "
            "validate, RED at 80 kB, 1 s) qdsim's utilization is 90.0 +- 1.0 % and ns-2.35's 90.8 +- 1.0 % (agree, as do all 16 metrics: "
            "the long flow's retransmissions 1.03x, timeouts 1.12x), and 11 of qdsim's 30 runs and 8 of ns-2.35's fall below 90 % (lowest "
            "84.1 and 84.5 %); ns-2.35's three quick seeds happen to hold (92.1-93.4 %), as qdsim's hold at 48 servers where ns-2.35's fail",
        }
    ),
)
def test_fig5_red_keeps_the_bottleneck_above_90_percent(incast, setup):
    utils = [r["utilization"] for r in incast(setup)["RED"]]
    assert min(utils) > 0.90, f"RED: {utils}"


@pytest.mark.parametrize(
    "setup",
    _setups(
        {
            "40x100kB": FAITHFUL + "loss RED 5.27 % vs CoDel 6.77 % (paper ~16 % vs ~11 %); RED on the instantaneous queue caps it at max_th = 51 and keeps about half of CoDel's queue",
            "30x100kB": FAITHFUL + "loss RED 4.56 % vs CoDel 5.72 %",
            "48x100kB": FAITHFUL + "loss RED 4.81 % vs CoDel 7.01 %",
            "40x80kB": FAITHFUL + "loss RED 5.34 % vs CoDel 6.70 %",
        }
    ),
)
def test_fig6_red_loses_more_packets_than_codel(incast, setup):
    # Paper: ~16 % with RED vs ~11 % with CoDel.
    runs = incast(setup)
    red, codel = _mean(runs["RED"], "loss_rate"), _mean(runs["CoDel"], "loss_rate")
    assert red > 1.1 * codel, f"loss RED {red:.4f} vs CoDel {codel:.4f}"


@pytest.mark.parametrize(
    "setup",
    _setups(
        {
            "40x100kB": FAITHFUL + "AFCT CoDel 31.41 ms vs RED 28.42 ms (1.11; paper: CoDel up to 35 % faster)",
            "30x100kB": FAITHFUL + "AFCT CoDel 24.41 ms vs RED 23.21 ms (1.05)",
            "48x100kB": FAITHFUL + "AFCT CoDel 34.21 ms vs RED 31.40 ms (1.09)",
            "40x80kB": FAITHFUL + "AFCT CoDel 26.24 ms vs RED 23.65 ms (1.11)",
        }
    ),
)
def test_fig5_codel_completes_incast_responses_faster_than_red(incast, setup):
    runs = incast(setup)
    codel, red = _mean(runs["CoDel"], "afct_s"), _mean(runs["RED"], "afct_s")
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
def one_incast_event(quick) -> dict[str, list[float]]:
    """Returns, per qdisc and panel, flows in timeout (summed over 1 ms samples) and drops
    between 100 and 150 ms of Fig. 7/8(a)'s runs, one value per seed (three): a long flow from
    0, 40 x 100 kB requested at 100 ms. The series are the figure's panels."""
    out_dir = quick(FILES / "fig7.toml")
    plot = validate(store.read_spec(out_dir)).plot
    window: dict[str, dict[int, float]] = {}
    for panel in plot.panels:
        for run in run_series(out_dir, panel, plot.by):
            label = plot.labels.get(str(run.value), str(run.value))
            window.setdefault(f"{label}.{panel.y}", {})[run.rep] = sum(v for t, v in zip(run.t, run.y, strict=True) if 100 <= t * 1e3 < 150)
    assert set(window) == {f"{q}.{k}" for q in ("DropTail", "CoDel", "RED") for k in ("in_timeout", "aqm_drops", "overflow_drops")}, window
    assert all(sorted(reps) == [0, 1, 2] for reps in window.values()), window
    return {key: [reps[rep] for rep in sorted(reps)] for key, reps in window.items()}


@pytest.mark.xfail(
    strict=True,
    reason=FAITHFUL.replace("1 s", "0.2 s") + "flows in timeout from 100 to 150 ms (summed over the samples) RED 67 / 50 / 69 vs CoDel 84 in every seed "
    "(DropTail 33); with 10 us host jitter RED was ahead in every seed (measured with RFC 3042 standing in for send_one)",
)
def test_fig7_red_puts_more_flows_in_timeout_than_codel_after_the_burst(one_incast_event):
    w = one_incast_event
    assert all(red > codel for red, codel in zip(w["RED.in_timeout"], w["CoDel.in_timeout"], strict=True)), w


@pytest.mark.xfail(
    strict=True,
    reason=FAITHFUL.replace("1 s", "0.2 s") + "drops from 100 to 150 ms over the three seeds RED 1365 vs CoDel 1242 (per seed 450/472/443 vs 414 each: "
    "1.099, the test asks 1.1); paper, Fig. 8(a): RED 'significantly more'",
)
def test_fig8a_red_drops_more_packets_than_codel_in_an_incast_event(one_incast_event):
    # Paper, Fig. 8(a): "RED introduces significantly more packet drops than CoDel".
    w = one_incast_event
    red = sum(w["RED.aqm_drops"]) + sum(w["RED.overflow_drops"])
    codel = sum(w["CoDel.aqm_drops"]) + sum(w["CoDel.overflow_drops"])
    assert red > 1.1 * codel, w


def test_fig8a_red_loses_more_than_codel_in_every_seed_of_an_incast_event(quick):
    # Paper, §III-B: "RED induces a higher loss rate under incast scenarios (see Figure 8)". The
    # event of Fig. 8(a) (40 x 100 kB at 100 ms), measured from 100 to 200 ms, three seeds: RED's
    # early drops are random, so each seed is a different draw.
    out_dir = quick(FILES / "fig7.toml")
    labelled = by_label(out_dir, runs(out_dir, "incast"))
    assert len(labelled["RED"]) == 3
    for red, codel in zip(labelled["RED"], labelled["CoDel"], strict=True):
        assert red["drops"] > codel["drops"] and red["loss_rate"] > codel["loss_rate"], (red, codel)
