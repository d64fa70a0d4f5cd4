"""Experiment-file validation: every mistake is one line naming the key, value and what is allowed."""

import pytest

from qdsim.errors import SpecError
from qdsim.experiment import spec
from qdsim.experiment.resolve import resolve


def load_with(path, *overrides):
    raw, parsed = spec.load(path, list(overrides))
    resolve(parsed)  # the checks that need the catalog
    return raw, parsed


@pytest.mark.parametrize(
    ("override", "key", "hint"),
    [
        ("flows.0.colour=1", "flows.0.colour", "access_delay"),
        ("experiment.bogus=1", "experiment.bogus", "duration"),
        ("topology.bottleneck_rate=-10Mbps", "topology.bottleneck_rate", ">= 0"),
        ("topology.bottleneck_rate=0Mbps", "topology.bottleneck_rate", "> 0"),
        ("topology.bottleneck_rate=10MB", "topology.bottleneck_rate", "Mbps"),
        ("topology.bottleneck_delay=5parsecs", "topology.bottleneck_delay", "ms"),
        ("topology.kind=ring", "topology.kind", "dumbbell"),
        ("topology.qdisc.kind=nosuchqdisc", "topology.qdisc.kind", "fifo"),
        ("topology.qdisc.limit=5ms", "topology.qdisc.limit", "packets"),
        ("topology.qdisc.frob=3", "topology.qdisc.frob", "limit"),
        ("flows.0.cc=nosuchcc", "flows.0.cc", "newreno"),
        ("flows.1.kind=carrier_pigeon", "flows.1.kind", "udp_cbr"),
        ("flows.0.count=0", "flows.0.count", "greater than or equal to 1"),
        ("flows.0.src=r1", "flows.0.src", "graph"),
        ("flows.1.group=near", "flows.1.group", "not used"),
        ("experiment.warmup=3s", "experiment.warmup", "shorter than the duration"),
        ("flows.0.tcp.min_rto=-1ms", "flows.0.tcp.min_rto", ">= 0"),
        ("flows.0.rate=1Mbps", "flows.0.rate", "cc"),
        ("flows.0.tcp.sack=yes", "flows.0.tcp.sack", "boolean"),  # TOML has booleans: no "yes"
        ("flows.0.tcp.wire=ns3", "flows.0.tcp.wire", 'one of "ietf", "ns2"'),
        ("flows.0.tcp={timestamps=true,packet_size='52B'}", "flows.0.tcp.packet_size", "53..=65535 bytes"),
        # Range checks only the core knows, named by the file's key (not the core's path).
        ("topology.qdisc={kind='red',max_p=-0.5}", "topology.qdisc.max_p", "probability"),
        ("topology.qdisc={kind='red',min_th=30}", "topology.qdisc.max_th", "min_th"),
        ("topology.qdisc={kind='codel',interval='0s'}", "topology.qdisc.interval", ""),
        ("topology.qdisc={kind='drr',quantum='0B'}", "topology.qdisc.quantum", ""),
        ("flows.0.tcp={min_rto='2s',max_rto='1s'}", "flows.0.tcp.max_rto", "min_rto (2000 ms)"),
        # TOML's inf and nan, and values beyond the core's integer types.
        ("topology.bottleneck_delay=inf", "topology.bottleneck_delay", "ms"),
        ("topology.qdisc={kind='red',max_p=nan}", "topology.qdisc.max_p", "finite"),
        ("flows.0.start='1e99s'", "flows.0.start", "64-bit"),
        ("flows.0.tcp.packet_size=5000000000", "flows.0.tcp.packet_size", "4294967296"),
        ("flows.0.count=2000000", "flows.0.count", "1000000"),
        # List and name parameters are typed before the core sees them.
        ("topology.qdisc={kind='drr',weights=[1,'x']}", "topology.qdisc.weights", "list of whole numbers"),
        ("topology.qdisc={kind='drr',classifier=5}", "topology.qdisc.classifier", "qdsim list"),
        ("topology.qdisc={kind='drr',buffer='per_queue',queue_limits=[1,-1]}", "topology.qdisc.queue_limits[1]", "at least 1 byte"),
    ],
)
def test_bad_values_name_the_key_and_what_is_allowed(small_spec, override, key, hint):
    with pytest.raises(SpecError) as info:
        load_with(small_spec, override)
    assert info.value.key == key
    assert hint in info.value.allowed
    assert "\n" not in str(info.value)


def test_missing_key_is_named(write_spec):
    path = write_spec('[experiment]\nname = "x"\n[topology]\nkind = "dumbbell"\nbottleneck_rate = "1Mbps"\nbottleneck_delay = "1ms"\nqdisc = { kind = "fifo" }\n[[flows]]\ngroup = "g"\n')
    with pytest.raises(SpecError) as info:
        spec.load(path)
    assert info.value.key == "experiment.duration"


def test_malformed_toml_is_one_line(write_spec):
    with pytest.raises(SpecError) as info:
        spec.load(write_spec("[experiment\nname=1"))
    assert "valid TOML" in info.value.allowed and "\n" not in str(info.value)


def test_a_binary_file_is_one_line(tmp_path):
    path = tmp_path / "image.toml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    with pytest.raises(SpecError) as info:
        spec.load(path)
    assert "UTF-8" in info.value.allowed and "\n" not in str(info.value)


def test_overrides_are_parsed_as_toml_values_else_strings(small_spec):
    raw, parsed = spec.load(
        small_spec,
        ["topology.qdisc.limit=20pkt", "flows.0.count=8", "experiment.duration=5s", "flows.1.tcp.delayed_ack=true"],
    )
    assert raw["flows"][0]["count"] == 8 and parsed.flows[0].count == 8
    assert parsed.topology.qdisc.params == {"limit": "20pkt"}
    assert parsed.experiment.duration == 5 * 10**9
    assert parsed.flows[1].tcp.delayed_ack is True


def test_override_creates_missing_tables(small_spec):
    _, parsed = spec.load(small_spec, ["topology.reverse_qdisc.kind=fifo"])
    assert parsed.topology.reverse_qdisc.kind == "fifo"


def test_sweep_overrides_set_one_swept_key(small_spec):
    _, parsed = spec.load(small_spec, ["sweep.topology.qdisc.limit=['10pkt', '20pkt']", 'sweep."flows.0.count"=[1, 2]', "sweep.repetitions=3"])
    assert parsed.sweep is not None
    assert parsed.sweep.grid == {"topology.qdisc.limit": ["10pkt", "20pkt"], "flows.0.count": [1, 2]}
    assert parsed.sweep.repetitions == 3


@pytest.mark.parametrize(("text", "key"), [("novalue", "--set"), ("flows.9.count=1", "flows.9"), ("experiment.name.x=1", "experiment.name.x")])
def test_bad_overrides_are_spec_errors(small_spec, text, key):
    with pytest.raises(SpecError) as info:
        spec.load(small_spec, [text])
    assert info.value.key == key


def test_cli_reports_user_errors_with_exit_2_and_one_line(qdsim, small_spec):
    for args in (
        ["run", small_spec, "--set", "topology.bottleneck_rate=-1Mbps"],
        ["run", small_spec, "--set", "topology.qdisc.kind=nosuch"],
        ["run", small_spec, "--set", "flows.0.cc=cubic2"],
        ["run", small_spec, "--set", "flows.0.speling=1"],
        ["run", "does-not-exist.toml"],
        ["run", small_spec, "--seed", "-3"],
        ["run"],
        ["frobnicate"],
    ):
        result = qdsim(*args)
        assert result.code == 2, (args, result.stderr)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (args, result.stderr)
        assert "Traceback" not in result.stderr
    bad_rate = qdsim("run", small_spec, "--set", "topology.bottleneck_rate=-1Mbps")
    assert bad_rate.stderr.startswith("error: topology.bottleneck_rate: ")


def test_every_qdisc_with_its_defaults_passes_the_core_check():
    from qdsim.experiment import algorithms

    for q in algorithms.core_catalog()["qdiscs"]:
        assert algorithms.qdisc_config(q["name"], {}, "topology.qdisc", 10**9)["kind"] == q["name"]


_MULTI_QUEUE = ("drr", "drr_lds", "wfq", "wf2q_plus", "fifo_classes")


def test_no_buffer_policy_takes_a_key_of_another_and_each_takes_its_own():
    # Walks every buffer policy's keys against every other policy of every multi-queue qdisc:
    # a key the selected policy does not read is refused in one line naming the key and the
    # policies that read it (the core's Rust test proves the declared keys are the keys read).
    from qdsim.experiment import algorithms

    catalog = algorithms.core_catalog()
    by_table: dict[str, dict[str, list[str]]] = {}
    for use in catalog["key_uses"]:
        if use["when"] == "buffer":
            by_table.setdefault(use["table"], {})[use["key"]] = use["values"]
    policies = next(p for p in catalog["qdiscs"][1]["params"] if p["name"] == "buffer")
    assert catalog["qdiscs"][1]["name"] == "drr" and "dsdrr" in policies["help"]
    refused = 0
    for kind in _MULTI_QUEUE:
        readers = by_table[f"qdisc.{kind}"]
        names = sorted({n for rs in readers.values() for n in rs})
        assert len(names) == 9 and "t_d" in readers and "ewfq_alpha" in readers, names
        for buffer in names:
            for key, rs in readers.items():
                params = {"buffer": buffer, key: "whatever"}
                if buffer in rs:
                    continue
                with pytest.raises(SpecError) as exc:
                    algorithms.qdisc_config(kind, params, "topology.qdisc", 10**9)
                assert exc.value.key == f"topology.qdisc.{key}", (kind, buffer, key)
                assert f'buffer = "{buffer}"' in exc.value.allowed and f'"{rs[0]}"' in exc.value.allowed
                refused += 1
        # Its own keys are taken: the policy's required ones with a value, the rest at theirs.
        assert algorithms.qdisc_config(kind, {"buffer": "drop_on_dequeue", "t_d": "5ms", "limit": "50pkt"}, "q", 10**9)["t_d_ns"] == 5_000_000
    assert refused > 5 * 9 * 10


@pytest.mark.parametrize(
    ("table", "key", "fragment"),
    [
        ({"kind": "drr", "buckets": 16}, "buckets", 'classifier = "per_flow"'),
        ({"kind": "fifo_classes", "weights": [2, 1]}, "weights", 'buffer = "shared"'),
        ({"kind": "pie", "mark_ecnth": 0.2}, "mark_ecnth", 'ecn = "false"'),
    ],
)
def test_a_key_another_key_switches_off_is_refused(table, key, fragment):
    from qdsim.experiment import algorithms

    kind = table.pop("kind")
    with pytest.raises(SpecError) as exc:
        algorithms.qdisc_config(kind, table, "topology.qdisc", 10**9)
    assert (exc.value.key, fragment in exc.value.allowed) == (f"topology.qdisc.{key}", True), exc.value
    # With the switch on, the same key is taken.
    switch = {"buckets": {"classifier": "hashed"}, "weights": {"buffer": "ewfq", "limit": "100KB", "ewfq_rtt_o": "100ms"}, "mark_ecnth": {"ecn": True}}[key]
    assert algorithms.qdisc_config(kind, {**table, **switch}, "topology.qdisc", 10**9)["kind"] == kind


@pytest.mark.parametrize(
    ("tcp", "key"),
    [
        ('{profile="ns2-sack1", quick_acks=2}', "quick_acks"),
        ('{delayed_ack=false, delayed_ack_timeout="40ms"}', "delayed_ack_timeout"),
        ('{recovery="rfc6675", prr_bound="ssrb"}', "prr_bound"),
        ('{profile="ns2-newreno", hystart="linux"}', "hystart"),
        ('{sack=false, rescue_retransmit="rfc6675"}', "rescue_retransmit"),
        ('{profile="ns2-sack1", rescue_retransmit="rfc6675"}', "rescue_retransmit"),
        ('{recovery_exit="ssthresh"}', "recovery_exit"),  # linux: SACK's recovery
        ('{profile="ns2-reno", recovery_exit="ssthresh"}', "recovery_exit"),  # Reno ends on any new ACK
        ('{profile="ns2-newreno", recovery="prr", recovery_exit="ssthresh"}', "recovery_exit"),
        ('{profile="ns2-reno", recovery="prr"}', "recovery"),  # Reno has no choice of recovery
        ('{profile="ns2-reno", sack=true, window_arithmetic="segments", recovery="prr", prr_bound="ssrb"}', ""),  # with SACK: read
    ],
)
def test_a_tcp_option_the_stack_would_not_read_is_refused(small_spec, tcp, key):
    if not key:  # the same option where the stack reads it: taken
        load_with(small_spec, f"flows.0.tcp={tcp}")
        return
    with pytest.raises(SpecError) as exc:
        load_with(small_spec, f"flows.0.tcp={tcp}")
    assert exc.value.key == f"flows.0.tcp.{key}", exc.value


def test_a_tcp_option_read_under_the_profile_s_values_is_taken(small_spec):
    # linux: delayed ACKs and PRR on; the ns3 profile's default control is CUBIC.
    load_with(small_spec, 'flows.0.tcp={quick_acks=4, prr_bound="ssrb", rescue_retransmit="partial_ack"}')
    load_with(small_spec, 'flows.0.tcp={profile="ns3", hystart="linux"}', 'flows.0.cc="cubic"')
    load_with(small_spec, 'flows.0.tcp={profile="ns2-newreno", recovery_exit="flightsize"}')


def test_exponential_size_bounds_are_refused_for_fixed_sizes():
    from qdsim.experiment import traffic

    group = traffic.PoissonPacketsFlows(kind="poisson_packets", group="bg", rate=10**6, min_packet_size=100)
    with pytest.raises(SpecError) as exc:
        traffic.source(group, "flows.1", None, None)  # type: ignore[arg-type]
    assert exc.value.key == "flows.1.min_packet_size" and '"fixed"' in exc.value.allowed


def test_every_tcp_option_of_the_experiment_file_is_in_the_catalog():
    # The model of `tcp = {...}` is generated from the core's options, and `qdsim list` shows
    # them under the `tcp` traffic kind, named where the file writes them (`tcp.packet_size`,
    # inside the group's tcp table): an option missing there is undiscoverable.
    from qdsim.experiment import algorithms, traffic
    from qdsim.experiment.fields import TcpOptions
    from qdsim.experiment.traffic import TcpFlows

    options = {o["name"] for o in algorithms.tcp_options()} | {"profile"}
    assert set(TcpOptions.model_fields) == options
    tcp = next(t for t in traffic.catalog()["traffic"] if t["name"] == "tcp")
    listed = {p["name"] for p in tcp["params"]}
    assert {f"tcp.{o}" for o in options} <= listed, sorted({f"tcp.{o}" for o in options} - listed)
    # Every other key listed is a key of the group itself.
    assert {name for name in listed if not name.startswith("tcp.")} <= set(TcpFlows.model_fields)
    assert "packet_size" not in listed


def test_every_traffic_kind_is_listed_once_with_every_key_of_its_model():
    # A kind is one module of qdsim.experiment.traffic and one entry of KINDS; `qdsim list`
    # shows it once — from the core's catalog, or from its module's CATALOG when Python
    # resolves it — with every key its group takes beside the common ones (the TCP options
    # are listed under `tcp`, as `tcp.<option>`).
    from qdsim.experiment import traffic
    from qdsim.experiment.traffic.base import FlowGroup

    listed = traffic.catalog()["traffic"]
    assert sorted(entry["name"] for entry in listed) == sorted(kind.NAME for kind in traffic.KINDS)
    in_core = {entry["name"] for entry in traffic.algorithms.core_catalog()["traffic"]}
    for kind in traffic.KINDS:
        assert (kind.CATALOG is None) == (kind.NAME in in_core), kind.NAME
        entry = next(t for t in listed if t["name"] == kind.NAME)
        keys = {p["name"] for p in entry["params"] if not p["name"].startswith("tcp.")}
        own = set(kind.MODEL.model_fields) - set(FlowGroup.model_fields) - {"kind"} - ({"tcp"} if kind.NAME == "tcp" else set())
        assert own == keys, (kind.NAME, own ^ keys)


def test_a_group_s_kind_picks_its_model_and_tcp_is_the_default(small_spec):
    from qdsim.experiment import traffic

    for kind in traffic.KINDS:
        assert kind.MODEL.model_fields["kind"].annotation.__args__ == (kind.NAME,)
    _, parsed = spec.load(small_spec)
    assert all(type(group) is traffic.TcpFlows for group in parsed.flows)
    _, parsed = spec.load(small_spec, ['flows.0.kind="on_off"'])
    assert type(parsed.flows[0]) is traffic.OnOffFlows
    with pytest.raises(SpecError) as exc:
        spec.load(small_spec, ['flows.0.kind="bulk"'])
    assert exc.value.key == "flows.0.kind" and all(kind.NAME in exc.value.allowed for kind in traffic.KINDS)


@pytest.mark.parametrize(
    ("sets", "quick", "refused"),
    [
        # A swept key, and a key inside a swept value: every run takes the sweep's.
        (["topology.qdisc.limit=20pkt"], False, "topology.qdisc.limit"),
        (["topology.bottleneck_rate=5Mbps"], False, "topology.bottleneck_rate"),
        # With --quick, a key the [quick] table sets.
        (["experiment.duration=9s"], True, "experiment.duration"),
        # Allowed: keys no sweep touches, the sweep's own keys, a parent of a swept key (its
        # other entries still count), and the [quick] keys without --quick.
        (["experiment.warmup=1s", 'sweep."topology.bottleneck_rate"=["1Mbps"]', "topology.qdisc={kind='fifo', limit=5}"], False, None),
        (["experiment.duration=9s"], False, None),
    ],
)
def test_a_set_that_a_sweep_would_override_is_refused(sets: list[str], quick: bool, refused: str | None):
    raw = {
        "experiment": {"duration": "2s"},
        "sweep": {"topology.qdisc.limit": [10, 40], "topology.bottleneck_rate": ["5Mbps"], "repetitions": 2},
        "quick": {"set": {"experiment.duration": "1s"}},
    }
    if refused is None:
        spec.refuse_overridden_sets(raw, sets, quick=quick)
        spec.refuse_overridden_sets(raw, dict(spec.parse_override(s) for s in sets), quick=quick, option="set")
        return
    with pytest.raises(SpecError) as caught:
        spec.refuse_overridden_sets(raw, sets, quick=quick)
    assert caught.value.key == "--set" and refused in str(caught.value), str(caught.value)
    with pytest.raises(SpecError) as by_api:
        spec.refuse_overridden_sets(raw, dict(spec.parse_override(s) for s in sets), quick=quick, option="set")
    assert by_api.value.key == "set"
