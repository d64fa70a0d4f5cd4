"""Resolution of experiment files into the core's RunConfig: shape, names, delays, qdiscs."""

import heapq
import json
from pathlib import Path

import pytest

from qdsim.errors import SpecError
from qdsim.experiment import algorithms, spec, units
from qdsim.experiment.resolve import resolve
from qdsim.experiment.tcp_options import profile_value
from qdsim.experiment.topologies import BOTTLENECK
from qdsim.results.rows import rows_of


def resolved(path, *overrides):
    return resolve(spec.load(path, list(overrides))[1])


def path_delay_ns(config, src, dst):
    """Returns the one-way propagation delay of the minimum-metric path (Dijkstra)."""
    adjacency = {}
    for link in config["links"]:
        adjacency.setdefault(link["from"], []).append((link["metric"], link["delay_ns"], link["to"]))
    queue, seen = [(0, 0, src)], set()
    while queue:
        metric, delay, node = heapq.heappop(queue)
        if node == dst:
            return delay
        if node in seen:
            continue
        seen.add(node)
        for m, d, nxt in adjacency.get(node, []):
            heapq.heappush(queue, (metric + m, delay + d, nxt))
    raise AssertionError(f"no path {src} -> {dst}")


def test_dumbbell_has_two_routers_two_hosts_per_flow_and_duplex_links(small_spec):
    config = resolved(small_spec)
    flows = 4
    assert len(config["nodes"]) == 2 + 2 * flows
    assert len(config["links"]) == 2 + 4 * flows
    assert len(config["flows"]) == flows
    assert len({link["name"] for link in config["links"]}) == len(config["links"])
    assert {"near.s0", "near.d1", "far.s1"} <= set(config["nodes"])


def test_only_the_forward_bottleneck_gets_the_qdisc_under_test(small_spec):
    config = resolved(small_spec)
    by_name = {link["name"]: link for link in config["links"]}
    assert by_name[BOTTLENECK]["qdisc"] == {"kind": "fifo", "limit_pkts": 50}
    assert (by_name[BOTTLENECK]["from"], by_name[BOTTLENECK]["to"]) == ("r1", "r2")
    others = [link for name, link in by_name.items() if name != BOTTLENECK]
    assert all(link["qdisc"] == {"kind": "fifo"} for link in others)
    with_reverse = resolved(small_spec, 'topology.reverse_qdisc={kind="fifo", limit="30KB"}')
    assert {link["name"]: link for link in with_reverse["links"]}["r2->r1"]["qdisc"] == {"kind": "fifo", "limit_bytes": 30_000}


def test_rtt_is_twice_access_plus_bottleneck_plus_receiver_delay(small_spec):
    config = resolved(small_spec, "topology.receiver_delay=2ms")
    for flow in config["flows"]:
        access = {"near": 5, "far": 20}[flow["group"]]
        rtt = path_delay_ns(config, flow["src"], flow["dst"]) + path_delay_ns(config, flow["dst"], flow["src"])
        assert rtt == 2 * (access + 5 + 2) * 10**6


def test_units_become_core_integers(small_spec):
    config = resolved(small_spec, "flows.0.tcp={min_rto='1s', packet_size='1000B', initial_cwnd=4}", "flows.0.size=1MB")
    assert config["duration_ns"] == 2 * 10**9 and config["warmup_ns"] == 500_000_000
    first = config["flows"][0]
    assert first["start_jitter_ns"] == 500_000_000
    # Every TCP field is resolved: the default profile's, with the file's overrides.
    default = algorithms.tcp_profile(None)["config"]
    assert first["source"] == {"kind": "tcp", "size_bytes": 10**6, "tcp": {**default, "min_rto_ns": 10**9, "packet_bytes": 1000, "initial_cwnd_pkts": 4}}
    assert config["flows"][2]["source"]["tcp"] == {**default, "cc": "reno"}
    json.dumps(config)  # serialisable as is


def test_a_profile_gives_every_tcp_field_and_explicit_keys_override_it(small_spec):
    config = resolved(small_spec, "flows.0.tcp={profile='ns2-sack1', min_rto='10ms', initial_cwnd='rfc3390'}")
    tcp = config["flows"][0]["source"]["tcp"]
    ns2 = algorithms.tcp_profile("ns2-sack1")["config"]
    assert tcp == {**ns2, "min_rto_ns": 10**7, "initial_cwnd_pkts": "rfc3390"}
    assert (tcp["recovery"], tcp["clock_granularity_ns"], tcp["packet_bytes"]) == ("ns2_sack1", 10**7, 1040)


def test_udp_cbr_groups_resolve_to_udp_sources(small_spec):
    config = resolved(small_spec, "flows.1={group='cbr', kind='udp_cbr', rate='2Mbps', packet_size='1000B', stop='1.5s', access_delay='1ms'}")
    cbr = [f for f in config["flows"] if f["group"] == "cbr"]
    assert cbr and cbr[0]["source"] == {"kind": "udp_cbr", "rate_bps": 2_000_000, "packet_bytes": 1000, "stop_ns": 1_500_000_000}


def test_graph_form_names_links_and_expands_duplex():
    config = resolved(Path(__file__).parents[1] / "experiments/examples/parking_lot.toml")
    names = [link["name"] for link in config["links"]]
    assert names == ["a->b", "b->a", "b->c", "c->b", "c->d", "d->c"]
    assert all(link["qdisc"] == {"kind": "fifo", "limit_pkts": 50} for link in config["links"])
    assert [(f["src"], f["dst"]) for f in config["flows"]] == [("a", "d"), ("a", "b"), ("b", "c"), ("c", "d")]


@pytest.mark.parametrize(
    ("overrides", "key", "hint"),
    [
        # c -> a instead of c -> d: no link leads to d.
        (["topology.links.2.to=a"], "flows.0.dst", "no path leads there"),
        # c -> d one way only: data reaches d, its ACKs cannot come back (UDP would be fine).
        (["topology.links.2.duplex=false", "flows.0.dst=d", "flows.0.src=c"], "flows.0.src", "for the ACKs"),
    ],
)
def test_graph_flows_need_a_path_there_and_back(overrides, key, hint):
    with pytest.raises(SpecError) as info:
        resolved(Path(__file__).parents[1] / "experiments/examples/parking_lot.toml", *overrides)
    assert info.value.key == key and hint in info.value.allowed


def test_sampling_is_off_unless_asked(small_spec):
    assert "sampling" not in resolved(small_spec)
    on = resolved(small_spec, "sampling.queues=true")
    assert on["sampling"] == {"interval_ns": 10_000_000, "queues": True, "tcp": False, "tcp_on_change": False, "tcp_events": False}


def test_every_flow_endpoint_gets_the_topology_s_host_jitter_and_routers_none(small_spec):
    config = resolved(small_spec)
    endpoints = {node for flow in config["flows"] for node in (flow["src"], flow["dst"])}
    assert {h["node"] for h in config["hosts"]} == endpoints
    assert len(config["hosts"]) == len(endpoints)
    # Without topology.host_jitter each host takes its flows' profile's: the default
    # profile's for all, then the rfc profile's 10 us for the far group's hosts.
    default = units.parse_duration(profile_value(algorithms.tcp_profile(None), "host_jitter"))
    assert all(h["jitter_ns"] == default for h in config["hosts"])
    far = resolved(small_spec, 'flows.1.tcp.profile="rfc"', 'flows.0.tcp.profile="ns2-sack1"')
    far_hosts = {node for flow in far["flows"] if flow["group"] == "far" for node in (flow["src"], flow["dst"])}
    assert {h["node"]: h["jitter_ns"] for h in far["hosts"]} == {h["node"]: (10_000 if h["node"] in far_hosts else 0) for h in far["hosts"]}
    assert not {"r1", "r2"} & {h["node"] for h in config["hosts"]}
    exact = resolved(small_spec, 'topology.host_jitter="0s"')
    assert all(h["jitter_ns"] == 0 for h in exact["hosts"])
    assert {h["jitter_ns"] for h in resolved(small_spec, 'topology.host_jitter="25us"')["hosts"]} == {25_000}


@pytest.mark.parametrize("value", ['"2s"', '"-1us"', '"fast"'])
def test_a_bad_host_jitter_names_the_key(small_spec, value):
    with pytest.raises(SpecError) as err:
        resolved(small_spec, f"topology.host_jitter={value}")
    assert err.value.key == "topology.host_jitter"


def test_the_wire_format_reaches_the_core_and_sizes_data_and_acks(small_spec):
    from qdsim import run_config

    config = resolved(small_spec, 'flows.0.tcp={wire="ns2", timestamps=true, sack=true}')
    assert {f["source"]["tcp"].get("wire") for f in config["flows"][:2]} == {"ns2"}
    assert config["flows"][2]["source"]["tcp"]["wire"] == "ietf", "the default profile's when not set"
    results = run_config(config).results
    by_name = {link["name"]: link for link in rows_of(results["links"])}
    # ns-2 accounting: a full data packet is packet_size (1500 B, payload 1450 after 40 + 10 B
    # of timestamps); near's receivers' ACKs are 40 B + 8 per SACK block, no TS bytes.
    sender_link, ack_link = by_name["near.s0->r1"], by_name["near.d0->r2"]
    assert sender_link["tx_bytes"] <= 1500 * sender_link["tx_pkts"]
    assert ack_link["tx_bytes"] > 40 * ack_link["tx_pkts"], "some ACKs carry SACK blocks"
    assert ack_link["tx_bytes"] % 8 == 0 and ack_link["tx_bytes"] <= 64 * ack_link["tx_pkts"]


PARKING_LOT = Path(__file__).parents[1] / "experiments/examples/parking_lot.toml"


def test_graph_qdisc_goes_to_every_link_without_one_and_a_link_s_own_wins():
    raw = spec.load_raw(PARKING_LOT)
    links = raw["topology"]["links"]
    links[0]["qdisc"] = {"kind": "red", "limit": "30pkt"}
    links[1].update(qdisc={"kind": "fifo", "limit": "9pkt"}, reverse_qdisc={"kind": "fifo"})
    del links[2]["qdisc"]
    raw["topology"]["qdisc"] = {"kind": "fifo", "limit": "7pkt"}
    config = resolve(spec.validate(raw))
    qdiscs = {link["name"]: link["qdisc"] for link in config["links"]}
    assert qdiscs["a->b"]["kind"] == "red" and qdiscs["b->a"]["kind"] == "red"
    assert qdiscs["b->c"] == {"kind": "fifo", "limit_pkts": 9} and qdiscs["c->b"] == algorithms.DEFAULT_QDISC
    assert qdiscs["c->d"] == qdiscs["d->c"] == {"kind": "fifo", "limit_pkts": 7}, "the topology's qdisc, both directions"


def test_graph_groups_with_access_rate_get_one_sender_per_flow_behind_src():
    config = resolved(PARKING_LOT, "flows.0.count=3", "flows.0.access_rate='10Mbps'", "flows.0.access_delay='2ms'", "flows.1.count=4", "flows.1.users=2", "flows.1.access_rate='5Mbps'")
    long = [f for f in config["flows"] if f["group"] == "long"]
    assert [(f["src"], f["dst"]) for f in long] == [("long.s0", "d"), ("long.s1", "d"), ("long.s2", "d")]
    hop1 = [(f["src"], f["dst"]) for f in config["flows"] if f["group"] == "hop1"]
    assert hop1 == [("hop1.s0", "b"), ("hop1.s0", "b"), ("hop1.s1", "b"), ("hop1.s1", "b")], "one sender per user"
    links = {link["name"]: link for link in config["links"]}
    for name in ("long.s0->a", "a->long.s2"):
        assert (links[name]["rate_bps"], links[name]["delay_ns"], links[name]["qdisc"]) == (10_000_000, 2_000_000, algorithms.DEFAULT_QDISC)
    assert (links["hop1.s1->a"]["rate_bps"], links["hop1.s1->a"]["delay_ns"]) == (5_000_000, 0)
    assert path_delay_ns(config, "long.s1", "d") == 2_000_000 + 3 * 5_000_000
    assert {"long.s0", "hop1.s1"} <= set(config["nodes"]) and "hop2.s0" not in config["nodes"]


def test_graph_access_delay_without_access_rate_is_refused():
    with pytest.raises(SpecError) as info:
        resolved(PARKING_LOT, "flows.0.access_delay='2ms'")
    assert info.value.key == "flows.0.access_rate" and "access_delay" in info.value.allowed
