"""TCP variants reach the core from an experiment file: cc names, SACK and ECN options."""

import pytest

TEMPLATE = """
[experiment]
name = "variants"
duration = "12s"
warmup = "2s"
seed = 4

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = {{ kind = "fifo", limit = "20pkt" }}

[[flows]]
group = "g"
count = 1
kind = "tcp"
cc = "{cc}"
access_delay = "5ms"
tcp = {{ {tcp} }}
"""

#: A plain TCP (the options of the core's tests of physics): the RFCs' recovery (NewReno's
#: "Impatient" timer without SACK), no delayed ACKs, IW 10, RFC 3465 byte counting.
PLAIN = (
    'profile = "rfc", sack = {sack}, delayed_ack = false, initial_cwnd = 10, byte_counting = "rfc3465", limited_transmit = "off", '
    'rto_restart = "first_partial_ack", fast_retransmit_restarts_rto = true, min_rto = "200ms"'
)


def spec_text(cc: str = "newreno", sack: str = "false", tcp: str | None = None) -> str:
    """Returns the template with congestion control ``cc`` and ``tcp = {...}`` (default: the
    plain TCP with ``sack``)."""
    return TEMPLATE.format(cc=cc, tcp=PLAIN.format(sack=sack) if tcp is None else tcp)


@pytest.mark.parametrize(
    "cc, sack",
    [
        ("tahoe", "false"),
        ("reno", "false"),
        ("newreno", "false"),
        ("newreno", "true"),
        ("cubic", "false"),
        ("cubic", "true"),
        ("highspeed", "false"),
    ],
)
def test_every_congestion_control_runs_and_fills_the_bottleneck(qdsim, write_spec, cc, sack):
    result = qdsim("run", write_spec(spec_text(cc, sack)), "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["links"][0]["utilization"] > 0.9


def test_sack_avoids_the_timeouts_of_newreno_after_slow_start(qdsim, write_spec):
    timeouts = {}
    for sack in ("false", "true"):
        result = qdsim("run", write_spec(spec_text("newreno", sack)), "--json")
        assert result.code == 0, result.stderr
        timeouts[sack] = result.json()["flows"][0]["timeouts_total"]  # the overshoot is before the window
    assert timeouts["false"] > 0
    assert timeouts["true"] == 0


def test_unknown_congestion_control_names_the_key(qdsim, write_spec):
    result = qdsim("run", write_spec(spec_text("vegas")))
    assert result.code == 2
    assert "flows[0].cc" in result.stderr or "flows.0.cc" in result.stderr
    assert "cubic" in result.stderr


LIMITED = """
[experiment]
name = "limited"
duration = "12s"
warmup = "2s"
seed = 4

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = {{ kind = "fifo", limit = "8pkt" }}

[[flows]]
group = "g"
count = 8
access_delay = "5ms"
start_window = "1s"
tcp = {{ profile = "rfc", sack = false, delayed_ack = false, limited_transmit = "{lt}" }}
"""


def test_limited_transmit_turns_timeouts_of_small_windows_into_fast_retransmits(qdsim, write_spec):
    # Eight NewReno flows in an 8-packet FIFO keep windows of a few segments, where a loss
    # leaves fewer than three duplicate ACKs unless each duplicate releases a new segment
    # (measured over the whole run: 7 timeouts without limited transmit, 3 with either kind; ns-2's send_one alike).
    timeouts = {}
    for lt in ("off", "rfc3042", "pipe", "ns2"):
        result = qdsim("run", write_spec(LIMITED.format(lt=lt)), "--json")
        assert result.code == 0, result.stderr
        summary = result.json()
        assert summary["tcp"]["g"]["limited_transmit"] == lt
        timeouts[lt] = sum(f["timeouts_total"] for f in summary["flows"])
    assert timeouts["rfc3042"] < timeouts["off"], timeouts
    assert timeouts["pipe"] < timeouts["off"], timeouts
    assert timeouts["ns2"] < timeouts["off"], timeouts  # ns-2's send_one, one new segment per duplicate
    bad = qdsim("run", write_spec(LIMITED.format(lt="true")))
    assert bad.code == 2 and "limited_transmit" in bad.stderr and '"rfc3042"' in bad.stderr


@pytest.mark.parametrize("profile", ["linux", "ns3", "ns2-sack1", "linux-2.6", "rfc"])
def test_every_profile_runs_and_its_options_are_in_the_results(qdsim, write_spec, profile):
    # rwnd raised: ns-2's window_ of 20 packets is below this path's 25-packet BDP.
    text = spec_text(tcp=f'profile = "{profile}", min_rto = "300ms", rwnd = "1MB"')
    result = qdsim("run", write_spec(text), "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    tcp = summary["tcp"]["g"]
    assert (tcp["min_rto"], tcp["rwnd"]) == ("300ms", 1_000_000), "explicit keys override the profile"
    expected = {"linux": "prr", "ns3": "prr", "ns2-sack1": "ns2_sack1", "linux-2.6": "rate_halving", "rfc": "rfc6675"}[profile]
    assert tcp["recovery"] == expected
    assert summary["links"][0]["utilization"] > 0.9


def test_a_file_that_names_no_profile_runs_today_s_linux(qdsim, write_spec):
    text = spec_text(tcp="").replace("tcp = {  }", "")
    result = qdsim("run", write_spec(text), "--json")
    assert result.code == 0, result.stderr
    tcp = result.json()["tcp"]["g"]
    assert (tcp["recovery"], tcp["min_rto"], tcp["initial_cwnd"], tcp["byte_counting"], tcp["hystart"]) == ("prr", "200ms", 10, "linux", "linux")


def test_unknown_profile_and_option_values_name_the_key_and_what_is_allowed(qdsim, write_spec):
    for tcp, key, allowed in [
        ('profile = "linux-6"', "flows.0.tcp.profile", '"linux-2.6"'),
        ("hystart = true", "flows.0.tcp.hystart", '"rfc9406"'),
        ('hystart = "linux"', "flows.0.tcp.hystart", 'cc = "cubic"'),
        ('recovery = "fack"', "flows.0.tcp.recovery", '"rate_halving"'),
        ('rto_formula = "bsd"', "flows.0.tcp.rto_formula", '"ns2"'),
        ('initial_cwnd = "iw10"', "flows.0.tcp.initial_cwnd", '"rfc3390"'),
        ('sack = false, recovery = "ns2_sack1"', "flows.0.tcp.recovery", "sack = true"),
    ]:
        bad = qdsim("run", write_spec(spec_text(tcp=tcp)))
        assert bad.code == 2, tcp
        assert key in bad.stderr and allowed in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1, bad.stderr
