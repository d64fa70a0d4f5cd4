"""The star topology and the incast / short-flow workloads of experiment files."""

from __future__ import annotations

import pytest

from qdsim.errors import SpecError
from qdsim.experiment.resolve import resolve
from qdsim.experiment.spec import validate

TCP = {"packet_size": "1000B", "min_rto": "10ms", "sack": True}


def _raw(flows, **topo):
    topology = {"kind": "star", "rate": "1Gbps", "delay": "75us", "bottleneck": "client", "qdisc": {"kind": "fifo", "limit": "200pkt"}, "port_qdisc": {"kind": "fifo", "limit": "200pkt"}}
    topology.update(topo)
    return {"experiment": {"name": "t", "duration": "50ms"}, "topology": topology, "flows": flows}


def _resolve(raw):
    return resolve(validate(raw))


def test_star_links_every_host_to_the_switch_with_the_qdisc_under_test_towards_the_bottleneck_host():
    config = _resolve(_raw([{"group": "long", "src": "bg", "dst": "client", "tcp": TCP}, {"group": "incast", "kind": "incast", "client": "client", "count": 3, "size": "10kB", "tcp": TCP}]))
    assert config["nodes"] == ["sw", "bg", "client", "incast.s0", "incast.s1", "incast.s2"]
    names = {link["name"]: link for link in config["links"]}
    assert len(names) == 2 * 5
    assert names["bottleneck"]["from"] == "sw" and names["bottleneck"]["to"] == "client"
    assert names["sw->bg"]["qdisc"] == {"kind": "fifo", "limit_pkts": 200}
    assert names["bg->sw"]["qdisc"] == {"kind": "fifo", "limit_pkts": 200}  # host_qdisc defaults to port_qdisc
    assert all(link["delay_ns"] == 75_000 and link["rate_bps"] == 10**9 for link in config["links"])


def test_incast_flows_share_one_barrier_and_split_a_total_size():
    config = _resolve(_raw([{"group": "q", "kind": "incast", "client": "client", "count": 8, "total_size": "1MB", "rounds": 3, "think": "1ms", "tcp": TCP}]))
    sources = [f["source"] for f in config["flows"]]
    assert len(sources) == 8 and all(f["dst"] == "client" for f in config["flows"])
    assert {s["size_bytes"] for s in sources} == {125_000}
    assert {(s["repeat"]["barrier"], s["repeat"]["rounds"], s["repeat"]["think_ns"]) for s in sources} == {("incast:q", 3, 1_000_000)}
    assert sources[0]["tcp"]["sack"] is True and sources[0]["tcp"]["min_rto_ns"] == 10_000_000


def test_persistent_incast_and_idle_restart_reach_the_core():
    tcp = dict(TCP, idle_restart=False)
    config = _resolve(_raw([{"group": "q", "kind": "incast", "client": "client", "count": 2, "size": "10kB", "persistent": True, "tcp": tcp}]))
    sources = [f["source"] for f in config["flows"]]
    assert all(s["repeat"]["persistent"] is True and s["tcp"]["idle_restart"] is False for s in sources)
    default = _resolve(_raw([{"group": "q", "kind": "incast", "client": "client", "count": 2, "size": "10kB", "tcp": TCP}]))
    assert all(f["source"]["repeat"]["persistent"] is False for f in default["flows"])


def test_a_persistent_incast_answers_later_rounds_from_its_kept_window():
    from qdsim.run.one import run_config

    def later_rounds_fct(persistent: bool) -> float:
        tcp = dict(TCP, initial_cwnd=2, idle_restart=False)
        group = {"group": "incast", "kind": "incast", "client": "client", "count": 4, "size": "10kB", "rounds": 3, "persistent": persistent, "tcp": tcp}
        t = run_config(_resolve(_raw([group]))).results["transfers"]
        assert sorted(t["round"]) == [0] * 4 + [1] * 4 + [2] * 4
        later = [fct for fct, r in zip(t["fct_s"], t["round"], strict=True) if r > 0]
        return sum(later) / len(later)

    # 11 segments per response, no loss: a fresh connection needs three round trips from
    # IW 2 (2 + 4 + 5), a kept window of 13 sends the response in one.
    fresh, kept = later_rounds_fct(False), later_rounds_fct(True)
    assert kept < 0.6 * fresh, (kept, fresh)


def test_short_flows_arrival_rate_follows_the_offered_load():
    config = _resolve(_raw([{"group": "short", "kind": "short_flows", "src": "a", "dst": "client", "load": 0.5}]))
    source = config["flows"][0]["source"]
    # λ = load · C / (8 · mean size) = 0.5 · 1e9 / (8 · 50 000)
    assert source["arrival_rate_per_s"] == pytest.approx(1250.0)
    assert (source["size_min_bytes"], source["size_max_bytes"]) == (2000, 98000)


def test_a_short_run_of_incast_completes_rounds():
    from qdsim.run.one import run_config

    config = _resolve(_raw([{"group": "incast", "kind": "incast", "client": "client", "count": 4, "size": "10kB", "rounds": 2, "tcp": TCP}]))
    results = run_config(config).results
    transfers = results["transfers"]
    rounds = transfers["round"] if isinstance(transfers, dict) else [t["round"] for t in transfers]
    assert sorted(rounds) == [0, 0, 0, 0, 1, 1, 1, 1]


@pytest.mark.parametrize(
    ("flows", "topo", "key"),
    [
        ([{"group": "q", "kind": "incast", "client": "client", "count": 2, "tcp": TCP}], {}, "flows.0.size"),
        ([{"group": "q", "kind": "incast", "client": "client", "count": 2, "size": "1kB", "total_size": "2kB"}], {}, "flows.0.size"),
        ([{"group": "s", "kind": "short_flows", "src": "a", "dst": "client"}], {}, "flows.0.load"),
        ([{"group": "s", "kind": "short_flows", "src": "a", "dst": "client", "load": 0.5, "size_min": "9kB", "size_max": "2kB"}], {}, "flows.0.size_max"),
        ([{"group": "l", "src": "a", "dst": "b"}], {}, "topology.bottleneck"),
        ([{"group": "l", "dst": "client"}], {}, "flows.0.src"),
        ([{"group": "l", "src": "sw", "dst": "client"}], {}, "flows.0.src"),
        ([{"group": "l", "src": "a", "dst": "client", "access_rate": "1Gbps"}], {}, "flows.0.access_rate"),
    ],
)
def test_mistakes_name_the_key(flows, topo, key):
    with pytest.raises(SpecError) as err:
        _resolve(_raw(flows, **topo))
    assert err.value.key == key


def test_incast_outside_a_star_is_an_error_naming_the_kind():
    raw = {
        "experiment": {"name": "t", "duration": "1s"},
        "topology": {"kind": "dumbbell", "bottleneck_rate": "1Gbps", "bottleneck_delay": "1ms", "qdisc": {"kind": "fifo"}},
        "flows": [{"group": "q", "kind": "incast", "client": "c", "count": 2, "size": "1kB"}],
    }
    with pytest.raises(SpecError) as err:
        _resolve(raw)
    assert err.value.key == "flows.0.kind"


def test_load_above_one_is_refused_by_validation():
    with pytest.raises(SpecError) as err:
        validate(_raw([{"group": "s", "kind": "short_flows", "src": "a", "dst": "client", "load": 1.5}]))
    assert err.value.key == "flows.0.load"
