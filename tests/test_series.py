"""Time series from experiment files: the TCP event log, on-change sampling, and the
cwnd / queue plot kinds of `qdsim plot`."""

import pyarrow.parquet as pq

SPEC = """
[experiment]
name = "series"
duration = "6s"
warmup = "1s"
seed = 2

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "20pkt" }

[[flows]]
group = "g"
count = 2
kind = "tcp"
access_delay = "5ms"

[sampling]
interval = "10ms"
queues = true
tcp_on_change = true
tcp_events = true
"""


def test_event_log_and_on_change_series_reach_parquet(qdsim, write_spec, tmp_path):
    out = tmp_path / "res"
    result = qdsim("run", write_spec(SPEC), "--out", out, "--json")
    assert result.code == 0, result.stderr
    flows = result.json()["flows"]
    events = pq.read_table(out / "series_tcp_events.parquet").to_pydict()
    assert events["kind"].count("timeout") == sum(f["timeouts"] for f in flows)
    assert events["kind"].count("retransmit") == sum(f["retransmits"] for f in flows)
    tcp = pq.read_table(out / "series_tcp.parquet").to_pydict()
    assert set(tcp["flow"]) == {0, 1}
    assert "in_timeout" in tcp
    queue = pq.read_table(out / "series_queue.parquet").to_pydict()
    assert {"drops", "overflow_drops"} <= set(queue)


def test_plot_kinds_draw_cwnd_and_queue(qdsim, write_spec, tmp_path):
    out = tmp_path / "res"
    assert qdsim("run", write_spec(SPEC), "--out", out).code == 0
    cwnd = qdsim("plot", out, "--kind", "cwnd", "--flows", "0,1")
    assert cwnd.code == 0, cwnd.stderr
    assert (out / "cwnd.png").stat().st_size > 10_000
    from qdsim.plot_series import UNLIMITED_SSTHRESH

    assert UNLIMITED_SSTHRESH in pq.read_table(out / "series_tcp.parquet").column("ssthresh").to_pylist(), "slow start reports the sentinel"
    queue = qdsim("plot", out, "--kind", "queue", "--links", "bottleneck")
    assert queue.code == 0, queue.stderr
    assert (out / "queue.png").stat().st_size > 10_000


def test_plotting_an_absent_flow_names_the_option(qdsim, write_spec, tmp_path):
    out = tmp_path / "res"
    assert qdsim("run", write_spec(SPEC), "--out", out).code == 0
    bad = qdsim("plot", out, "--kind", "cwnd", "--flows", "7")
    assert bad.code == 2
    assert "--flows" in bad.stderr and "7" in bad.stderr
