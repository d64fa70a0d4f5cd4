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
tcp = {{ sack = {sack} }}
"""


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
    result = qdsim("run", write_spec(TEMPLATE.format(cc=cc, sack=sack)), "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["links"][0]["utilization"] > 0.9


def test_sack_avoids_the_timeouts_of_newreno_after_slow_start(qdsim, write_spec):
    timeouts = {}
    for sack in ("false", "true"):
        result = qdsim("run", write_spec(TEMPLATE.format(cc="newreno", sack=sack)), "--json")
        assert result.code == 0, result.stderr
        timeouts[sack] = result.json()["flows"][0]["timeouts_total"]  # the overshoot is before the window
    assert timeouts["false"] > 0
    assert timeouts["true"] == 0


def test_unknown_congestion_control_names_the_key(qdsim, write_spec):
    result = qdsim("run", write_spec(TEMPLATE.format(cc="vegas", sack="false")))
    assert result.code == 2
    assert "flows[0].cc" in result.stderr or "flows.0.cc" in result.stderr
    assert "cubic" in result.stderr


def test_limited_transmit_and_linux_rto_reach_the_core(qdsim, write_spec):
    # As Linux runs them: with SACK. (Over NewReno recovery, Linux's longer RTO lets slow
    # one-hole-per-RTT recoveries of loss bursts run on instead of timing out: 0.64 here.)
    text = TEMPLATE.format(cc="newreno", sack="true").replace("tcp = { sack = true }", "tcp = { sack = true, limited_transmit = true, linux_rto = true }")
    result = qdsim("run", write_spec(text), "--json")
    assert result.code == 0, result.stderr
    assert result.json()["links"][0]["utilization"] > 0.9
    bad = qdsim("run", write_spec(text.replace("linux_rto = true", "linux_rto = 3")))
    assert bad.code == 2 and "linux_rto" in bad.stderr
