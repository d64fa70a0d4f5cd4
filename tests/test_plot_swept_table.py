"""`qdsim plot` against a key inside swept tables (a whole qdisc table swept, its `limit` or
`target` on the x-axis)."""

SPEC = """
[experiment]
name = "swept-table"
duration = "3s"
warmup = "1s"
seed = 3

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

[sweep]
"topology.qdisc" = [{ kind = "codel", target = "500us" }, { kind = "codel", target = "5ms" }, { kind = "codel", target = "20ms" }]
repetitions = 1
"""


def test_a_key_inside_swept_tables_can_be_the_x_axis(qdsim, write_spec, tmp_path):
    out = tmp_path / "sweep"
    assert qdsim("sweep", write_spec(SPEC), "--out", out, "--jobs", "1").code == 0
    ok = qdsim("plot", out, "--x", "topology.qdisc.target", "--y", "bottleneck_utilization", "--out", tmp_path / "u.png")
    assert ok.code == 0, ok.stderr
    assert (tmp_path / "u.png").stat().st_size > 10_000
    bad = qdsim("plot", out, "--x", "topology.qdisc.interval", "--y", "bottleneck_utilization")
    assert bad.code == 2 and "--x" in bad.stderr and "interval" in bad.stderr
