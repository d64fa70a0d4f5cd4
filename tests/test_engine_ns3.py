"""The ns-3 engine: what a run configuration becomes in the scenario file (no ns-3 needed),
and, where ns-3.37 is installed, what the program measures on small hand-checkable runs."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import EXPERIMENTS
from qdsim.engines import Unsupported, measure, ns3, run
from qdsim.engines.ns3 import QDISC_DEFAULTS, UNLIMITED_PKTS, Ns3
from qdsim.experiment import algorithms
from qdsim.experiment.resolve import resolve
from qdsim.experiment.spec import load
from qdsim.run.one import summarize

ROOT = Path(__file__).resolve().parents[1]
ENGINE = Ns3()
MISSING = ENGINE.missing()
needs_ns3 = pytest.mark.skipif(MISSING is not None, reason=f"ns-3 engine unavailable: {MISSING}")

DIRECTIVES = {"qdsim-ns3", "run", "default", "node", "link", "channel", "loss", "devqueue", "qdisc", "reason", "tcp", "tcpattr", "flow", "pair"}


def config(path: str, *sets: str) -> dict[str, Any]:
    _, spec = load(str(ROOT / path), list(sets))
    return resolve(spec)


def quickstart(*sets: str) -> dict[str, Any]:
    """The quickstart with the ns3 profile (the default is today's Linux)."""
    return config("experiments/quickstart.toml", 'flows.0.tcp.profile="ns3"', 'flows.1.tcp.profile="ns3"', *sets)


def ns3_tcp(**changes: Any) -> dict[str, Any]:
    """The quickstart's TCP options (the ns3 profile), changed."""
    tcp = copy.deepcopy(quickstart()["flows"][0]["source"]["tcp"])
    tcp.update(changes)
    return tcp


def lines(text: str, directive: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines() if line.split()[:1] == [directive]]


def attrs(words: list[str]) -> dict[str, str]:
    return dict(w.split("=", 1) for w in words if "=" in w)


def pair(flows: list[dict[str, Any]], rate: int = 10_000_000, delay: int = 10_000_000, qdisc: dict[str, Any] | None = None, duration: float = 3, warmup: float = 1) -> dict[str, Any]:
    """Two nodes a, b joined by a link each way; ``qdisc`` on a->b."""

    def link(a: str, b: str, q: dict[str, Any]) -> dict[str, Any]:
        return {"name": f"{a}->{b}", "from": a, "to": b, "rate_bps": rate, "delay_ns": delay, "loss": 0.0, "metric": 1, "qdisc": q}

    return {
        "seed": 1,
        "duration_ns": int(duration * 1e9),
        "warmup_ns": int(warmup * 1e9),
        "nodes": ["a", "b"],
        "links": [link("a", "b", qdisc or {"kind": "fifo", "limit_pkts": 100}), link("b", "a", {"kind": "fifo"})],
        "flows": flows,
    }


def flow(source: dict[str, Any], group: str = "g", src: str = "a", dst: str = "b", start_ns: int = 0, jitter_ns: int = 0) -> dict[str, Any]:
    return {"group": group, "src": src, "dst": dst, "start_ns": start_ns, "start_jitter_ns": jitter_ns, "source": source}


# --- translation (no ns-3 needed) -------------------------------------------------------------


def test_the_scenario_opens_with_comments_naming_the_run_and_every_stand_in():
    script = ENGINE.translate(quickstart(), 7)
    head = []
    for line in script.text.splitlines():
        if not line.startswith("#"):
            break
        head.append(line)
    assert head and "seed 1" in head[0] and "18 nodes, 34 links, 8 flows" in head[0] and "engine seed 7" in head[1]
    for note in script.notes:
        assert f"# - {note}" in head, note
    body = [line.split() for line in script.text.splitlines() if line and not line.startswith("#")]
    assert body[0] == ["qdsim-ns3", "1"] and body[1] == ["run", "7", str(30 * 10**9), str(5 * 10**9)]
    assert {words[0] for words in body} <= DIRECTIVES
    assert script.engine == "ns3" and script.suffix == ".ns3"


def test_the_quickstart_tcp_becomes_these_socket_attributes():
    text = ENGINE.translate(quickstart(), 1).text
    [tcp] = lines(text, "tcp")
    assert tcp[2:] == ["ns3::TcpNewReno", "ns3::TcpPrrRecovery", "ns3::RttMeanDeviation"]
    parts = {words[2]: attrs(words[3:]) for words in lines(text, "tcpattr")}
    socket = parts["socket"]
    expected = {
        "SegmentSize": "1448",  # 1500 - 40 - 12 (timestamps)
        "InitialCwnd": "10",
        "InitialSlowStartThreshold": "4294967295",
        # The profile's 131072 B hold 90 whole segments of 1448 B: qdsim's window, without
        # the 752 B that ns-3 would send as a short segment.
        "RcvBufSize": "130320",
        "SndBufSize": "130320",
        "MinRto": "1000000000ns",
        "ClockGranularity": "1000000ns",
        "ConnTimeout": "3000000000ns",
        "ReTxThreshold": "3",
        "DelAckCount": "2",
        "DelAckTimeout": "200000000ns",
        "UseEcn": "Off",
        "Sack": "true",
        "Timestamp": "true",
        "LimitedTransmit": "true",
    }
    assert {k: socket[k] for k in expected} == expected
    assert parts["recovery"] == {"ReductionBound": "SSRB"}
    assert parts["rtt"] == {"InitialEstimation": "3000000000ns"}
    flows = lines(text, "flow")
    assert len(flows) == 8 and all(f[2] == "bulk" and f[6] == "1000000000" and f[7] == "tcp=0" for f in flows)


def test_the_quickstart_notes_are_ns_3_37_s_differences_from_the_ns3_profile():
    notes = ENGINE.translate(quickstart(), 1).notes
    fields = {n.split(":")[0] for n in notes}
    # The ns3 profile's hosts send at exact times, as ns-3's do: no jitter to stand in for.
    assert fields == {"tcp.prr_bound", "tcp.prr_dupack_segment", "tcp.reduction_base"}


def test_an_ns_2_profile_lists_each_stand_in_once():
    notes = ENGINE.translate(config("experiments/codel-dc/fig5.toml"), 1).notes
    fields = [n.split(":")[0] for n in notes]
    assert len(fields) == len(set(fields)), notes
    for field in ("tcp.recovery", "tcp.rto_formula", "tcp.rto_restart", "tcp.fast_retransmit_restarts_rto", "tcp.limited_transmit", "tcp.rescue_retransmit", "tcp.reduction_base", "tcp.wire"):
        assert field in fields, field
    [recovery] = [n for n in notes if n.startswith("tcp.recovery")]
    assert "ns2_sack1 → ns-3.37 TcpClassicRecovery" in recovery


@pytest.mark.parametrize(
    ("path", "sets", "kind"),
    [
        ("experiments/lu-ewfq/fig2.toml", [], "wfq"),
        ("experiments/kantawala-discard/fig4c.toml", [], "drr"),
        ("experiments/quickstart.toml", ["topology.qdisc.kind=drr"], "drr"),
        ("experiments/quickstart.toml", ["topology.qdisc.kind=blue"], "blue"),
    ],
)
def test_a_queue_ns_3_lacks_is_refused_by_its_key(path: str, sets: list[str], kind: str):
    with pytest.raises(Unsupported) as err:
        ENGINE.translate(config(path, *sets), 1)
    assert err.value.key == "links.bottleneck.qdisc.kind" and err.value.value == kind
    assert "fifo, red, ared, codel, fq_codel, pie" in err.value.allowed


def test_unequal_delays_and_a_link_without_its_reverse_are_refused():
    cfg = quickstart()
    cfg["links"][1]["delay_ns"] += 1
    with pytest.raises(Unsupported) as err:
        ENGINE.translate(cfg, 1)
    assert err.value.key == "links.r2->r1.delay_ns"
    cfg = quickstart()
    del cfg["links"][1]
    with pytest.raises(Unsupported) as err:
        ENGINE.translate(cfg, 1)
    assert err.value.key == "links.bottleneck"


def test_tahoe_is_refused():
    cfg = pair([flow({"kind": "tcp", "tcp": ns3_tcp(cc="tahoe")})])
    with pytest.raises(Unsupported) as err:
        ENGINE.translate(cfg, 1)
    assert err.value.key == "flows[0].source.tcp.cc"


@pytest.mark.parametrize("kind", ["fifo", "red", "codel", "fq_codel", "pie"])
def test_a_limit_of_n_packets_is_a_queue_disc_of_n_minus_1(kind: str):
    text = ENGINE.translate(quickstart(f"topology.qdisc.kind={kind}", "topology.qdisc.limit=20pkt"), 1).text
    bottleneck = next(words for words in lines(text, "qdisc") if words[1] == "0")
    assert attrs(bottleneck[3:])["MaxSize"] == "19p"
    assert not lines(text, "devqueue"), "every device queue keeps the default of one packet"
    access = next(words for words in lines(text, "qdisc") if words[1] == "1")
    assert attrs(access[3:])["MaxSize"] == f"{UNLIMITED_PKTS}p", "an unlimited queue never drops"


def test_a_fifo_of_one_packet_is_the_device_queue_alone_and_other_queues_refuse_it():
    text = ENGINE.translate(quickstart("topology.qdisc.limit=1pkt"), 1).text
    assert next(words for words in lines(text, "qdisc") if words[1] == "0")[2] == "none"
    with pytest.raises(Unsupported) as err:
        ENGINE.translate(quickstart("topology.qdisc.kind=codel", "topology.qdisc.limit=1pkt"), 1)
    assert err.value.key == "links.bottleneck.qdisc.limit"


def test_a_byte_limit_leaves_room_for_the_device_s_packet_and_says_so():
    script = ENGINE.translate(quickstart("topology.qdisc.limit=30000B"), 1)
    bottleneck = next(words for words in lines(script.text, "qdisc") if words[1] == "0")
    assert attrs(bottleneck[3:])["MaxSize"] == "28500B"  # less the largest packet, 1500 B
    assert any(n.startswith("links.bottleneck.qdisc.limit: 30000 B") for n in script.notes)


def test_aqm_parameters_map_to_ns_3_attributes():
    q = {"kind": "red", "limit_pkts": 50, "min_th_pkts": 10, "max_th_pkts": 30, "w_q": 0.01, "max_p": 0.2, "ecn": True}
    text = ENGINE.translate(pair([flow({"kind": "tcp", "tcp": ns3_tcp()})], qdisc=q), 1).text
    red = attrs(lines(text, "qdisc")[0][3:])
    assert (red["MaxSize"], red["MinTh"], red["MaxTh"], red["QW"], red["LInterm"], red["UseEcn"], red["LinkBandwidth"]) == ("49p", "10.0", "30.0", "0.01", "5.0", "true", "10000000bps")
    q = {"kind": "codel", "target_ns": 300_000, "interval_ns": 750_000, "mtu_bytes": 1000, "limit_pkts": 200}
    text = ENGINE.translate(pair([flow({"kind": "tcp", "tcp": ns3_tcp()})], qdisc=q), 1).text
    codel = attrs(lines(text, "qdisc")[0][3:])
    assert codel == {"MaxSize": "199p", "Target": "300000ns", "Interval": "750000ns", "MinBytes": "1001", "UseEcn": "false"}
    assert ["reason", "ns3::CoDelQueueDisc", "target_exceeded", "Target", "exceeded", "drop"] in lines(text, "reason")


def test_host_jitter_and_the_tcp_stand_ins_are_notes():
    tcp = ns3_tcp(recovery="rate_halving", max_rto_ns=120_000_000_000, rto_formula="linux", idle_restart=True, byte_counting="linux", handshake=False, cc="cubic", hystart="linux")
    cfg = pair([flow({"kind": "tcp", "tcp": tcp})])
    cfg["hosts"] = [{"node": "a", "jitter_ns": 10_000}]
    notes = ENGINE.translate(cfg, 1).notes
    fields = {n.split(":")[0] for n in notes}
    assert {"tcp.recovery", "tcp.max_rto_ns", "tcp.rto_formula", "tcp.idle_restart", "tcp.byte_counting", "tcp.handshake", "tcp.cc", "tcp.hystart", "topology.host_jitter"} <= fields
    text = ENGINE.translate(cfg, 1).text
    assert lines(text, "tcp")[0][2] == "ns3::TcpCubic"
    cc = attrs(next(words for words in lines(text, "tcpattr") if words[2] == "cc")[3:])
    assert cc["HyStart"] == "true" and cc["Beta"] == "0.7"


@pytest.mark.parametrize(("rwnd", "buffer"), [(131072, 130320), (130320, 130320), (1000, 1448), (20 * 1448 + 1447, 20 * 1448)])
def test_the_socket_buffers_hold_qdsim_s_window_of_whole_segments(rwnd: int, buffer: int):
    # qdsim's sender keeps at most rwnd / MSS whole segments (at least one) outstanding; a
    # buffer with a part of a segment more would let ns-3 send it as a short segment.
    text = ENGINE.translate(pair([flow({"kind": "tcp", "tcp": ns3_tcp(rwnd_bytes=rwnd)})]), 1).text
    socket = attrs(next(words for words in lines(text, "tcpattr") if words[2] == "socket")[3:])
    assert (socket["RcvBufSize"], socket["SndBufSize"]) == (str(buffer), str(buffer))
    assert not any(n.startswith("tcp.rwnd_bytes") for n in ENGINE.translate(pair([flow({"kind": "tcp", "tcp": ns3_tcp(rwnd_bytes=rwnd)})]), 1).notes)


@pytest.mark.parametrize(
    ("cc", "base", "byte_counting", "expected"),
    [
        # TcpNewReno cuts the bytes in flight and counts ACKs: the ns3 profile's own values.
        ("newreno", "pipe", "off", {"tcp.reduction_base": "takes ssthresh from pipe but PRR's RecoverFS"}),
        # The ns3 profile's own rule, the same for each control.
        ("newreno", "ns3", "off", {"tcp.reduction_base": "ns3 → ns-3.37 takes ssthresh from pipe but PRR's RecoverFS"}),
        ("cubic", "ns3", "ns3", {"tcp.reduction_base": "ns3 → ns-3.37 takes ssthresh from cwnd but PRR's RecoverFS"}),
        ("highspeed", "ns3", "ns3", {"tcp.reduction_base": "ns3 → ns-3.37 takes ssthresh from pipe but", "tcp.byte_counting": "ns3 → ns-3.37's TcpHighSpeed counts ACKs in slow start"}),
        ("newreno", "cwnd", "rfc3465", {"tcp.reduction_base": "from pipe (the bytes in flight", "tcp.byte_counting": "rfc3465 → off"}),
        # TcpCubic::GetSsThresh cuts its cWnd, and TcpCubic counts the segments an ACK covers.
        ("cubic", "pipe", "off", {"tcp.reduction_base": "from cwnd (TcpCubic cuts beta x cwnd", "tcp.byte_counting": "off → linux"}),
        ("cubic", "cwnd", "linux", {"tcp.reduction_base": "takes ssthresh from cwnd but PRR's RecoverFS", "tcp.byte_counting": "without RFC 3465's limit of 2"}),
        ("highspeed", "pipe", "off", {"tcp.reduction_base": "takes ssthresh from pipe but", "tcp.byte_counting": "toward a(w) in congestion avoidance"}),
    ],
)
def test_each_congestion_control_s_own_reduction_and_growth_rules_are_noted(cc: str, base: str, byte_counting: str, expected: dict[str, str]):
    tcp = ns3_tcp(cc=cc, reduction_base=base, byte_counting=byte_counting)
    notes = ENGINE.translate(pair([flow({"kind": "tcp", "tcp": tcp})]), 1).notes
    fields = [n.split(":")[0] for n in notes]
    assert len(fields) == len(set(fields)), notes
    for field in ("tcp.reduction_base", "tcp.byte_counting"):
        found = [n for n in notes if n.startswith(field + ":")]
        if field in expected:
            assert len(found) == 1 and expected[field] in found[0], found
        else:
            assert not found, found


def test_every_traffic_kind_becomes_a_flow_line():
    cfg = config("experiments/codel-dc/fig11.toml")
    kinds = [f[2] for f in lines(ENGINE.translate(cfg, 1).text, "flow")]
    assert kinds == ["bulk", "short"]
    cfg = config("experiments/auge-buffer-sizing/fig3.toml")
    kinds = {f[2] for f in lines(ENGINE.translate(cfg, 1).text, "flow")}
    assert kinds == {"bulk", "poisson"}
    incast = lines(ENGINE.translate(config("experiments/codel-dc/fig5.toml"), 1).text, "flow")
    assert {f[2] for f in incast} == {"bulk", "rounds"}
    on_off = pair([flow({"kind": "on_off", "burst_pkts": 10, "idle_ns": 10**8, "first_burst": "start", "tcp": ns3_tcp()})])
    [words] = lines(ENGINE.translate(on_off, 1).text, "flow")
    assert words[2] == "onoff" and attrs(words[7:]) == {"tcp": "0", "burst": "14480", "idle_ns": "100000000", "first": "start"}


def test_the_qdisc_defaults_the_translator_fills_in_are_the_catalog_s():
    for q in algorithms.core_catalog()["qdiscs"]:
        if q["name"] not in QDISC_DEFAULTS:
            continue
        for p in q["params"]:
            default = p["default"]
            if default in ("none", "auto", "none (required)", "the link's rate"):
                continue
            try:
                value = json.loads(default)
            except ValueError:
                value = default
            if p["unit"] in ("pkts", "pkts|bytes"):
                value = f"{value}pkt"
            # A key read only under another's value (PIE's mark_ecnth, with ecn) is set with it.
            switch = next((u for u in algorithms.core_catalog()["key_uses"] if u["table"] == f"qdisc.{q['name']}" and u["key"] == p["name"]), None)
            params = {p["name"]: value} | ({switch["when"]: json.loads(switch["values"][0])} if switch else {})
            [(field, core)] = [(k, v) for k, v in algorithms.qdisc_config(q["name"], params, "t", 10**7).items() if k not in ("kind", *params.keys() - {p["name"]})]
            assert QDISC_DEFAULTS[q["name"]][field] == core, (q["name"], field)


def test_missing_says_what_to_install(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setattr(ns3, "_HEADERS", tmp_path)
    assert ns3.Ns3().missing() == "ns-3.37 is not installed: run `make engines` (or `apt-get install libns3-dev`)"


def test_version_names_the_installed_ns_3_and_the_translator():
    assert re.fullmatch(r"ns-3\.\d+(\.\d+)?\+[0-9a-f]{12}", ENGINE.version())


def test_command_runs_the_program_on_the_scenario(tmp_path: Path):
    cmd = ENGINE.command(tmp_path / "x.ns3")
    assert cmd[1] == str(tmp_path / "x.ns3") and cmd[0].endswith("qdsim-ns3") and "ns3-" in cmd[0]


# --- end to end (ns-3.37 installed) -------------------------------------------------------------


def run_ns3(cfg: dict[str, Any], tmp_path: Path, stem: str = "run", seed: int = 1) -> tuple[dict[str, Any], measure.Output]:
    result = run(ENGINE, cfg, seed, tmp_path, stem)
    out = measure.parse((tmp_path / f"{stem}.out").read_text())
    return summarize(result.outcome), out


def window(out: measure.Output, j: int, key: str) -> float:
    return out.links["end"][j][key] - out.links["warmup"][j][key]


@needs_ns3
def test_a_cbr_flow_below_the_link_rate_delivers_rate_times_window(tmp_path: Path):
    # 1000-B datagrams at 8 Mb/s: one per ms; in a window of 2 s, 2000 of them, each
    # delivering 1000 - 40 bytes (qdsim counts the 40 bytes of headers out).
    cfg = pair([flow({"kind": "udp_cbr", "rate_bps": 8_000_000, "packet_bytes": 1000})], duration=3, warmup=1)
    summary, out = run_ns3(cfg, tmp_path)
    f, link = summary["flows"][0], summary["links"][0]
    assert f["delivered_bytes"] == 2000 * 960
    assert f["goodput_bps"] == pytest.approx(7_680_000)
    assert window(out, 0, "tx_bytes") == 2000 * 1000
    assert link["utilization"] == pytest.approx(0.8)
    assert link["drops"] == 0 and link["mean_queue_pkts"] == 0


@needs_ns3
def test_saturated_tcp_fills_a_fifo_bottleneck_and_its_counters_conserve(tmp_path: Path):
    cfg = pair([flow({"kind": "tcp", "tcp": ns3_tcp()}, jitter_ns=10**7) for _ in range(2)], qdisc={"kind": "fifo", "limit_pkts": 20}, duration=4, warmup=1)
    summary, out = run_ns3(cfg, tmp_path)
    link = summary["links"][0]
    assert link["utilization"] >= 0.95
    assert link["drops"] > 0 and link["drops"] == link["drops_by_reason"]["overflow"]
    # Arrivals = sent + dropped + what the queue gained, within the packet on the wire.
    gained = window(out, 0, "queued_pkts")
    balance = window(out, 0, "arrivals") - window(out, 0, "tx_pkts") - window(out, 0, "drops") - gained
    assert abs(balance) <= 1
    assert 0 < link["mean_queue_pkts"] <= 20
    assert sum(f["drops"] for f in summary["flows"]) == link["drops"], "every drop is charged to its flow"


@needs_ns3
def test_a_finite_transfer_takes_at_least_its_transmission_time_and_a_round_trip(tmp_path: Path):
    size = 1_000_000
    cfg = pair([flow({"kind": "tcp", "size_bytes": size, "tcp": ns3_tcp()})], duration=3, warmup=0)
    summary, out = run_ns3(cfg, tmp_path)
    f = summary["flows"][0]
    assert f["finished"] is True
    transmission, rtt = size * 8 / 10_000_000, 2 * 10_000_000 / 1e9
    assert transmission + rtt <= f["fct_s"] < transmission + 10 * rtt
    [t] = out.transfers
    assert (t.flow, t.round, t.size_bytes, t.fct_s) == (0, 0, size, f["fct_s"])
    assert out.flows["end"][0]["delivered_bytes"] == size


@needs_ns3
def test_codel_keeps_the_sojourn_near_its_target_where_a_fifo_does_not(tmp_path: Path):
    flows = [flow({"kind": "tcp", "tcp": ns3_tcp()}, jitter_ns=10**8) for _ in range(4)]
    fifo, _ = run_ns3(pair(flows, qdisc={"kind": "fifo", "limit_pkts": 1000}, duration=4, warmup=2), tmp_path, "fifo")
    codel, _ = run_ns3(pair(flows, qdisc={"kind": "codel", "limit_pkts": 1000}, duration=4, warmup=2), tmp_path, "codel")
    target = 0.005
    assert codel["links"][0]["mean_delay_s"] < 4 * target
    assert fifo["links"][0]["mean_delay_s"] > 10 * codel["links"][0]["mean_delay_s"]
    assert codel["links"][0]["drops_by_reason"].get("target_exceeded", 0) > 0
    assert codel["links"][0]["utilization"] > 0.9


@needs_ns3
@pytest.mark.parametrize("persistent", [False, True])
def test_an_incast_round_completes_and_reports_every_transfer(tmp_path: Path, persistent: bool):
    servers = [f"s{k}" for k in range(4)]
    links = []
    for node in ["client", *servers]:
        for a, b in ((node, "sw"), ("sw", node)):
            q = {"kind": "fifo", "limit_pkts": 50} if b == "client" else {"kind": "fifo"}
            links.append({"name": f"{a}->{b}", "from": a, "to": b, "rate_bps": 100_000_000, "delay_ns": 50_000, "loss": 0.0, "metric": 1, "qdisc": q})
    repeat = {"barrier": "incast", "rounds": 3, "think_ns": 1_000_000, "persistent": persistent}
    tcp = ns3_tcp(min_rto_ns=10_000_000, initial_rto_ns=10_000_000)
    cfg = {
        "seed": 1,
        "duration_ns": 10**9,
        "warmup_ns": 0,
        "nodes": ["sw", "client", *servers],
        "links": links,
        "flows": [flow({"kind": "tcp", "size_bytes": 50_000, "tcp": tcp, "repeat": repeat}, group="incast", src=s, dst="client") for s in servers],
    }
    summary, out = run_ns3(cfg, tmp_path)
    rounds = sorted((t.round, t.flow) for t in out.transfers)
    assert rounds == [(r, f) for r in range(3) for f in range(4)]
    assert all(t.fct_s is not None and t.fct_s > 0 for t in out.transfers)
    for r in (1, 2):
        last_of_previous = max(t.start_s + t.fct_s for t in out.transfers if t.round == r - 1)
        starts = [t.start_s for t in out.transfers if t.round == r]
        assert starts == pytest.approx([last_of_previous + 0.001] * 4, abs=1e-9), "the next round starts a think time after the last response"
    assert summary["groups"][0]["transfers_completed"] == 12


@needs_ns3
def test_the_same_seed_gives_the_same_run_and_another_seed_other_start_times(tmp_path: Path):
    cfg = pair([flow({"kind": "tcp", "tcp": ns3_tcp()}, jitter_ns=10**8) for _ in range(2)], duration=1.5, warmup=0.5)
    run_ns3(cfg, tmp_path, "a", seed=1)
    run_ns3(cfg, tmp_path, "b", seed=1)
    run_ns3(cfg, tmp_path, "c", seed=2)
    a, b, c = ((tmp_path / f"{s}.out").read_text() for s in "abc")
    assert a == b
    starts = {s: measure.parse(text).starts for s, text in (("a", a), ("c", c))}
    assert starts["a"] != starts["c"]


@needs_ns3
def test_validate_runs_a_short_file_in_ns3_and_prints_rows(qdsim, write_spec):
    # The CLI end to end with ns-3 (CI's short validation of this engine): the quickstart's
    # dumbbell shortened to 3 s, with the ns3 profile, two seeds a side.
    text = (EXPERIMENTS / "quickstart.toml").read_text().replace('duration = "30s"', 'duration = "3s"').replace('warmup = "5s"', 'warmup = "1s"')
    text = text.replace('cc = "newreno"', 'cc = "newreno"\ntcp = { profile = "ns3" }')
    out = qdsim("validate", write_spec(text), "--engine", "ns3", "--seeds", "2", "--json")
    assert out.code == 0, out.stderr
    doc = out.json()
    assert doc["engine"] == "ns3" and doc["notes"] is not None
    rows = {(r["column"], r["row"]): r for r in doc["rows"]}
    utilisation = rows["utilization", "bottleneck"]
    assert utilisation["reference_mean"] > 0.9 and utilisation["verdict"] in ("agree", "unclear", "disagree")
    assert all(r["verdict"] in ("agree", "disagree", "unclear", "n/a") for r in doc["rows"])
