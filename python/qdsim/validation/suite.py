"""The validation suite of ``qdsim validate --suite`` (run by :mod:`qdsim.validation.page`).

The suite is two lists. :data:`SCENARIOS` are the five papers' set-ups that a reference engine
can run — their DropTail, RED and DRR baselines, the TCP variants on a dumbbell, an incast,
Poisson short flows — each validated as ``qdsim validate FILE --set ...`` would. :data:`LAWS`
are analytic laws (Mathis for Reno and NewReno, RFC 3649, RFC 9438, processor sharing,
M/M/1/K, max-min with DRR's byte bound), each
an experiment file in ``experiments/validation/`` run in qdsim and in every engine that can,
and held against the law's prediction. Every tolerance is stated before the runs, in
:data:`qdsim.validation.validate.TOLERANCES` and here (:attr:`Law.tolerance`).

A disagreement is reported, never tuned away: :data:`CAUSES` holds, for each disagreement
found, what the engine does differently, found by changing one setting at a time on one
side; a disagreement without a stated cause says so on the page.
"""

from __future__ import annotations

import fnmatch
import math
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..experiment.spec import load
from ..packaged import EXPERIMENT_FILES
from ..results import store
from .validate import Row, Validation

__all__ = ["CAUSES", "LAWS", "SCENARIOS", "Law", "Scenario", "cause", "law_rows", "raw_of", "scenario_rows"]


@dataclass(frozen=True)
class Scenario:
    """One paper set-up of the suite: an experiment file with overrides, the engines that can
    run it, and the overrides that shorten it for ``--quick``."""

    id: str
    title: str
    file: str
    sets: tuple[str, ...] = ()
    engines: tuple[str, ...] = ("ns2", "ns3")
    quick: tuple[str, ...] = ("experiment.duration=6s", "experiment.warmup=2s")
    seeds: int = 3


@dataclass(frozen=True)
class Law:
    """An analytic law: an experiment file (with overrides), the engines that run it, the
    metric it predicts — ``(table, row, column)`` of the results — the prediction, and the
    relative tolerance stated before the run."""

    id: str
    title: str
    file: str
    sets: tuple[str, ...]
    engines: tuple[str, ...]
    metric: tuple[str, str | None, str]
    predicted: float
    tolerance: float
    formula: str
    seeds: int = 3
    quick: tuple[str, ...] = field(default_factory=tuple)


#: The quick runs (CI): a few simulated seconds, each as the scenario's time scale allows.
_Q_DC = ("experiment.duration=0.5s",)
_Q_AUGE = ("experiment.duration=20s", "experiment.warmup=5s")
_Q_10S = ("experiment.duration=10s", "experiment.warmup=2s")
_FIFO_200 = 'topology.qdisc={kind="fifo", limit="200pkt"}'
_RED_DC = 'topology.qdisc={kind="ared", gentle=false, w_q=1.0, link_rate="1Gbps", mean_pktsize="1000B", min_th=25, max_th=51, limit="200pkt"}'
_RED_KT = 'topology.qdisc={kind="red", min_th=101, max_th=304, w_q=0.00002464, max_p=0.1, mean_pktsize="1540B", limit="1000pkt"}'
_CODEL_DC = 'topology.qdisc={kind="codel", target="300us", interval="750us", mtu="1000B", limit="200pkt"}'

#: The papers' set-ups an engine can run.
SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "quickstart-ns3",
        "The quickstart: 4 + 4 NewReno flows, RTT 30 / 110 ms, FIFO 100, with ns-3's stack (profile ns3)",
        "quickstart.toml",
        ('flows.0.tcp={profile="ns3"}', 'flows.1.tcp={profile="ns3"}'),
        engines=("ns3",),
    ),
    Scenario(
        "quickstart-ns2-sack1",
        "The quickstart with ns-2's Sack1 agents (profile ns2-sack1, window_ 100)",
        "quickstart.toml",
        ('flows.0.tcp={profile="ns2-sack1", rwnd="100000B"}', 'flows.1.tcp={profile="ns2-sack1", rwnd="100000B"}'),
        engines=("ns2",),
    ),
    Scenario("codel-incast-droptail", "CoDel-DC Fig. 5: incast, 40 servers x 100 kB, DropTail 200", "codel-dc/fig5.toml", (_FIFO_200,), quick=_Q_DC),
    Scenario("codel-incast-red", "CoDel-DC Fig. 5: incast, 40 servers x 100 kB, RED", "codel-dc/fig5.toml", (_RED_DC,), quick=_Q_DC),
    Scenario("codel-incast-codel", "CoDel-DC Fig. 5: incast, 40 servers x 100 kB, CoDel", "codel-dc/fig5.toml", (_CODEL_DC,), ("ns3",), quick=_Q_DC),
    Scenario("codel-short-droptail", "CoDel-DC Fig. 11: Poisson short flows at 50 % load, DropTail 200", "codel-dc/fig11.toml", (_FIFO_200,), quick=_Q_DC),
    Scenario("codel-short-red", "CoDel-DC Fig. 11: Poisson short flows at 50 % load, RED", "codel-dc/fig11.toml", (_RED_DC,), quick=_Q_DC),
    Scenario("codel-short-codel", "CoDel-DC Fig. 11: Poisson short flows at 50 % load, CoDel", "codel-dc/fig11.toml", (_CODEL_DC,), ("ns3",), quick=_Q_DC),
    Scenario(
        "auge-newreno-20",
        "Augé-Roberts Fig. 3: one NewReno flow + Poisson background, FIFO 20",
        "auge-buffer-sizing/fig3.toml",
        ('topology.qdisc={kind="fifo", limit="20pkt"}',),
        ("ns2",),
        quick=_Q_AUGE,
    ),
    Scenario(
        "auge-newreno-100",
        "Augé-Roberts Fig. 3: one NewReno flow + Poisson background, FIFO 100",
        "auge-buffer-sizing/fig3.toml",
        ('topology.qdisc={kind="fifo", limit="100pkt"}',),
        ("ns2",),
        quick=_Q_AUGE,
    ),
    Scenario(
        "auge-hstcp-20",
        "Augé-Roberts Fig. 6: one HighSpeed flow + background, FIFO 20",
        "auge-buffer-sizing/fig6a.toml",
        ('topology.qdisc={kind="fifo", limit="20pkt"}',),
        ("ns2",),
        quick=_Q_AUGE,
    ),
    Scenario(
        "kantawala-droptail",
        "Kantawala-Turner Fig. 4(a): 100 flows, RTT 40-200 ms, Tail-Drop 1000",
        "kantawala-discard/fig4ab.toml",
        ('topology.qdisc={kind="fifo", limit="1000pkt"}',),
        ("ns2",),
        quick=_Q_10S,
    ),
    Scenario(
        "kantawala-red",
        "Kantawala-Turner Fig. 4(a): 100 flows, RTT 40-200 ms, RED 1000",
        "kantawala-discard/fig4ab.toml",
        ('topology.qdisc={kind="red", min_th=101, max_th=304, w_q=0.00002464, max_p=0.1, mean_pktsize="1540B", limit="1000pkt"}',),
        ("ns2",),
        quick=_Q_10S,
    ),
    Scenario(
        "kantawala-drr",
        "Kantawala-Turner Fig. 4(a): 100 flows, ns-2's DRR (longest queue drop) 1000",
        "kantawala-discard/fig4ab.toml",
        ('topology.qdisc={kind="drr", quantum="1540B", buffer="ns2_lqd", limit="1000pkt"}',),
        ("ns2",),
        quick=_Q_10S,
    ),
    Scenario(
        "ns3-dumbbell100",
        "100 ns3-profile CUBIC flows, RTT 40 / 200 ms, 500 Mb/s FIFO 1000 (Kantawala-Turner's set-up with ns-3's TCP)",
        "validation/dumbbell100.toml",
        engines=("ns3",),
        quick=("experiment.duration=8s", "experiment.warmup=4s"),
    ),
    Scenario(
        "menth-drr-20",
        "Menth-Mehl-Veith Fig. 3(a): heavy and light users, DRR shared buffer 20",
        "menth-lds/fig3a.toml",
        ("topology.qdisc.limit=20pkt",),
        ("ns2",),
        quick=_Q_10S,
    ),
)

_RTT = 0.1  # the law files' base RTT, s (two 50 ms bottleneck delays; access links add none)


def _mathis(p: float) -> float:
    """Mathis et al.: MSS/RTT·sqrt(3/(2p)) in bit/s (1000 B payload)."""
    return 1000 * 8 / _RTT * math.sqrt(1.5 / p)


def _hstcp(p: float) -> float:
    """RFC 3649: w = 0.12/p^0.835 segments, as bit/s (1000 B payload)."""
    return 0.12 / p**0.835 * 1000 * 8 / _RTT


def _cubic(p: float) -> float:
    """RFC 9438's average window (C = 0.4, β = 0.7), as bit/s (1448 B payload): the cubic
    function's (§5.1), or where it is smaller the Reno-friendly region's (§4.3: the window
    follows max(W_cubic, W_est), and W_est's AIMD(3(1-β)/(1+β), β) averages Reno's
    sqrt(3/(2p))) — at p = 0.001 and RTT 100 ms the Reno-friendly region, 38.7 against 33.3
    segments per RTT."""
    cubic = (0.4 * 3.7 / (4 * 0.3)) ** 0.25 * (_RTT / p) ** 0.75
    reno_friendly = math.sqrt(1.5 / p)
    return max(cubic, reno_friendly) * 1448 * 8 / _RTT


def _ps_fct(mean_bytes: float, load: float, rate_bps: float) -> float:
    """Processor sharing's mean completion time, s: 8 E[S_wire] / (C (1 - rho_wire)), the
    wire size of a transfer its payload plus ns-2's 40 B per 1000 B segment (half a segment's
    headers more for the last, partial one)."""
    wire = mean_bytes * 1.04 + 20
    rho = load * wire / mean_bytes
    return 8 * wire / (rate_bps * (1 - rho))


def _mm1k(rho: float, places: int) -> float:
    return (1 - rho) * rho**places / (1 - rho ** (places + 1))


def _loss_laws(
    name: str, title: str, file: str, group: str, law: Any, formula: str, losses: tuple[float, ...], engines: tuple[str, ...], quick: tuple[str, ...], sets: tuple[str, ...] = ()
) -> tuple[Law, ...]:
    """Returns one law per random loss rate: ``group``'s goodput in ``file`` against
    ``law(p)``, within 25 %."""
    return tuple(Law(f"{name}-{p}", f"{title} at p = {p:g}", file, (f"topology.loss={p}", *sets), engines, ("groups", group, "goodput_bps"), law(p), 0.25, formula, quick=quick) for p in losses)


_NS2_NEWRENO = ("flows.0.group=newreno", "flows.0.cc=newreno", 'flows.0.tcp={profile="ns2-newreno", rwnd="100MB", initial_ssthresh=100000}')

#: The analytic laws, each with its tolerance stated here, before any run.
LAWS: tuple[Law, ...] = (
    *_loss_laws("mathis", "Mathis: Reno", "validation/mathis.toml", "reno", _mathis, "MSS/RTT sqrt(3/(2p))", (0.001, 0.005, 0.01, 0.02), ("ns2", "ns3"), ("experiment.duration=60s",)),
    *_loss_laws("mathis-newreno", "Mathis: NewReno", "validation/mathis.toml", "newreno", _mathis, "MSS/RTT sqrt(3/(2p))", (0.005, 0.02), ("ns2", "ns3"), ("experiment.duration=60s",), _NS2_NEWRENO),
    *_loss_laws(
        "hstcp",
        "RFC 3649: HighSpeed",
        "validation/highspeed.toml",
        "hstcp",
        _hstcp,
        "0.12/p^0.835 segments per RTT",
        (0.0001, 0.0003),
        ("ns2", "ns3"),
        ("experiment.duration=120s", "experiment.warmup=20s"),
    ),
    *_loss_laws(
        "cubic",
        "RFC 9438: CUBIC",
        "validation/cubic.toml",
        "cubic",
        _cubic,
        "max((C(3+b)/(4(1-b)))^(1/4) (RTT/p)^(3/4), sqrt(3/(2p))) segments per RTT",
        (0.0001, 0.001),
        ("ns3",),
        ("experiment.duration=60s",),
    ),
    Law(
        "ps",
        "Processor sharing: Poisson TCP transfers, exponential 500 kB, load 0.5",
        "validation/ps.toml",
        (),
        ("ns2", "ns3"),
        ("groups", "transfers", "mean_fct_s"),
        _ps_fct(500_000, 0.5, 10e6),
        0.25,
        "8 E[S_wire] / (C (1 - rho_wire)), 40 B of headers per 1000 B",
        quick=("experiment.duration=120s", "experiment.warmup=10s"),
    ),
    Law(
        "mm1k",
        "M/M/1/K: Poisson packets, rho 0.9, 10-packet FIFO",
        "validation/mm1k.toml",
        (),
        ("ns3",),
        ("links", "bottleneck", "loss_rate"),
        _mm1k(0.9, 11),
        0.15,
        "(1-rho) rho^K / (1-rho^(K+1)), K = 11",
        quick=("experiment.duration=30s",),
    ),
    *(
        Law(
            f"maxmin-{g}",
            f"Max-min under DRR: {g} gets {share} Mb/s",
            "validation/maxmin.toml",
            (),
            ("ns2",),
            ("groups", g, "goodput_bps"),
            share * 1e6 * (size - 40) / size,
            0.05,
            "min(rate, fair share), bytes on the wire",
            quick=("experiment.duration=5s", "experiment.warmup=1s"),
        )
        for g, share, size in (("udp2", 2, 1500), ("udp6", 4, 500), ("udp8", 4, 1500))
    ),
)

#: What an engine does differently, for each disagreement found: ``(scenario or law id,
#: engine, metric pattern)`` → the cause, found by changing one setting at a time on one side.
_TIE_NOISE = (
    "ns-2 computes event times in floating point: on this set-up's lattice of exact rates (500 Mb/s = 50 x 10 Mb/s, "
    "every packet 1540 B) arrivals tie at the bottleneck and ns-2's ties fall by rounding noise, which qdsim's integer "
    "nanoseconds cannot reproduce; with 10 us of host jitter standing in for that noise qdsim agrees with ns-2.35 "
    '(docs/tcp.md, "Timing jitter")'
)
_NS3_STAND_IN = (
    "the file's profile is ns-2's Sack1 agent, which ns-3.37 does not have: ns-3's own TCP runs as its stand-in "
    "(the stated mappings below: recovery, RTO estimator and restart, limited transmit), so its retransmissions and "
    "timeouts follow ns-3's rules, not the agent's; ns-2.35 is the reference for this file"
)
_NS3_CUBIC = (
    "ns-3.37's TcpCubic has no Reno-friendly region (ns-3.41) and grows its window while the receive window limits "
    "the sender (suppressed since ns-3.42); the ns3 profile follows ns-3.44. With TcpNewReno on both sides these "
    'agree (Jain 0.639 vs 0.631, 200-ms share 0.247 vs 0.233, drops, queue): docs/engine-ns3.md, "100-flow dumbbell"'
)
_NS3_NEXTSEG = (
    "ns-3.37 resends segments still in flight: in recovery with no unsent data (the send buffer is the window), its "
    "NextSeg rule 3 takes the first segment neither SACKed nor resent without RFC 6675's condition (1.b), below the "
    "highest SACK (tcp-tx-buffer.cc:1003-1007), so on every ACK it resends the segment just past the SACKed edge. "
    "With (1.b) added to ns-3.37 (one change, linked over the library's), its retransmissions equal its drops "
    "(1212 + 1083 for 1212 + 1083 drops, seed 1) and goodput barely moves (111.2 / 370.9 vs 106.9 / 369.4 Mb/s)"
)
_NS3_PRR_DUPACK = (
    "each of qdsim's timeouts is a retransmission dropped again, and ns-3.37 loses fewer (1 of 1083 in seed 1, qdsim "
    "40 of 2722): the profile follows ns-3.44's PRR, which counts a segment delivered on every duplicate ACK and "
    "takes RecoverFS from pipe (tcp-prr-recovery.cc:64, 74-77; ns-3.37 and ns-3-dev after 3.48 do not, #1350/#1351), "
    "so a flow keeps its rate through the first round trip of a recovery and the bottleneck's bursts of drops last "
    "110-116 ms instead of 41-59. Timeouts per run without / with that rule: TcpNewReno 0.7 / 9.3 in qdsim, 3.7 / 9.0 "
    "in ns-3.37 (the rule linked over its PRR); TcpCubic 11.0 / 24.7 and 1.0 / 6.3, the rest the TcpCubic version: "
    'docs/engine-ns3.md, "100-flow dumbbell"'
)
_NS3_RENO_SACK = (
    "ns-3.37 without SACK counts each duplicate ACK as a SACK of the next segment and clears these guesses only at a "
    "timeout; when the cumulative ACK reaches a guessed segment it moves the guess on and marks the head lost "
    "(tcp-tx-buffer.cc:752-763), so the head still in flight is resent and its duplicate ACK keeps the loop going "
    "(tcp-socket-base.cc:1741-1747): the resends repair random losses without cutting the window (33626 "
    "retransmissions for 2069 drops at p = 1 %). Dropping the guess instead (one change, linked over the library's) "
    "gives 0.81-0.84 Mb/s, qdsim's 0.83, and 469 retransmissions for 334 drops"
)
_NS3_RENO_SACK_HSTCP = (
    "the file runs ns-2's Newreno agent without SACK, which ns-3.37 runs as TcpSocketBase without SACK, and its "
    "duplicate-ACK guesses (AddRenoSack, as for the Mathis laws) looped in one of the two seeds ns-3.37 finished: "
    "116702 retransmissions for 203 drops and 29.4 Mb/s; the other seed retransmits exactly its 164 drops and gives "
    "25.5 Mb/s, as ns-2.35's 25.1-25.2 in two of its three seeds"
)
_NS3_RENO_SACK_PS = (
    "the file runs ns-2's Newreno agent without SACK, which ns-3.37 runs as TcpSocketBase without SACK, and its "
    "duplicate-ACK guesses (AddRenoSack, as for the Mathis laws) resend segments still in flight: 17-25 % of the "
    "packets ns-3.37 sends are retransmissions (140453-229040 for 6667-8904 drops; qdsim and ns-2.35 2-4 %, 2.1-2.5 "
    "times their drops) with 7-17 times their timeouts, and the resends load the bottleneck to 0.61-0.68 (qdsim and "
    "ns-2.35 0.52-0.54) for an offered 0.5, which lengthens every transfer"
)
_MENTH_STAND_INS = (
    "stand-ins on both sides: ns-2.35 has no Linux 2.6.26 TCP (its Sack1 agent runs for the linux-2.6 profile) and "
    "its Queue/DRR drops from the head of the longest queue in bytes where the file's shared buffer drops the "
    "arrival (the stated mappings below)"
)

_PS_TCP = (
    "the law is the fluid limit of processor sharing, which TCP over a 1000-packet FIFO is not: long transfers' windows "
    "(rwnd 10 MB) fill the buffer, losing 0.5-1 % of packets with about 200 timeouts a run; slow start and the handshake "
    "add the rest. Changing one setting at a time in qdsim (3 seeds): 1.34x as the file is, 1.16x with rwnd 100 kB (no "
    "drops, no timeouts), 1.08x with initial_cwnd 100 as well; ns-2.35 gives the same 1.31x"
)

#: The cause of each disagreement found, by (scenario or law id, engine, metric pattern as
#: ``fnmatch`` takes it: ``?`` for the brackets of a group's or link's metric). Each was found
#: by changing one setting at a time on one side; a disagreement without one says so on the page.
CAUSES: dict[tuple[str, str, str], str] = {
    **{("kantawala-droptail", "ns2", m): _TIE_NOISE for m in ("jain_index", "groups.goodput_bps?*", "groups.fair_share_ratio?*")},
    **{("codel-*", "ns3", m): _NS3_STAND_IN for m in ("groups.retransmits?*", "groups.timeouts?*", "groups.goodput_bps?long?", "groups.fair_share_ratio?long?")},
    **{
        ("ns3-dumbbell100", "ns3", m): _NS3_CUBIC
        for m in ("jain_index", "groups.goodput_bps?*", "groups.fair_share_ratio?*", "links.drops?*", "links.loss_rate?*", "links.mean_queue_pkts?*", "links.mean_delay_s?*")
    },
    **{("ns3-dumbbell100", "ns3", m): _NS3_NEXTSEG for m in ("groups.retransmits?*",)},
    ("ns3-dumbbell100", "ns3", "groups.timeouts?*"): _NS3_PRR_DUPACK,
    ("mathis-*", "ns3", "goodput_bps"): _NS3_RENO_SACK,
    ("menth-drr-20", "ns2", "*"): _MENTH_STAND_INS,
    **{("ps", simulator, "*"): _PS_TCP for simulator in ("qdsim", "ns2")},
    ("hstcp-*", "ns3", "goodput_bps"): _NS3_RENO_SACK_HSTCP,
    ("ps", "ns3", "*"): _NS3_RENO_SACK_PS,
}


def cause(scenario: str, engine: str, metric: str) -> str | None:
    """Returns the stated cause of a disagreement, None if none is stated yet."""
    for (sid, eng, pattern), text in CAUSES.items():
        if fnmatch.fnmatchcase(scenario, sid) and eng in (engine, "*") and fnmatch.fnmatchcase(metric, pattern):
            return text
    return None


def raw_of(file: str, sets: tuple[str, ...]) -> dict[str, Any]:
    """Returns the experiment file ``file`` (under the packaged experiments) with ``sets`` applied."""
    raw, _ = load(EXPERIMENT_FILES / file, list(sets))
    return raw


def _law_values(validation: Validation, law: Law) -> dict[str, list[float] | None]:
    """Returns each side's per-seed values of the law's metric."""
    table, row, column = law.metric
    key = {"groups": "group", "links": "name", "points": None}[table]

    def values(directory: Path | None) -> list[float] | None:
        if directory is None:
            return None
        out = [r[column] for r in store.read_rows(directory, table) if key is None or r.get(key) == row]
        return [float(v) for v in out] if out and all(v is not None for v in out) else None

    sides = {"qdsim": values(validation.qdsim_out)}
    for side in validation.sides:
        sides[side.name] = None if side.refused else values(side.out)
    return sides


def law_rows(law: Law, validation: Validation) -> list[dict[str, Any]]:
    """Returns, per simulator, the law's prediction, the simulator's mean and CI, and the verdict."""
    rows = []
    for name, values in _law_values(validation, law).items():
        if values is None:
            continue
        mean = statistics.fmean(values)
        ci = None if len(values) < 2 else _ci(values)
        verdict = "agree" if abs(mean - law.predicted) <= law.tolerance * abs(law.predicted) else "disagree"
        rows.append({"simulator": name, "mean": mean, "ci": ci, "predicted": law.predicted, "ratio": mean / law.predicted if law.predicted else None, "verdict": verdict})
    return rows


def _ci(values: list[float]) -> float:
    from ..results.stats import mean_ci

    return mean_ci(values)[1]


def scenario_rows(validation: Validation) -> list[tuple[str, dict[str, Row]]]:
    """Returns the scenario's metrics in order, each with its row per engine."""
    order: dict[str, dict[str, Row]] = {}
    for side in validation.sides:
        for row in side.rows:
            order.setdefault(row.metric, {})[side.name] = row
    return list(order.items())
