"""`qdsim plot` against a key inside swept tables (a whole qdisc table swept, its `limit` or
`target` on the x-axis)."""

import json

import pytest

from qdsim.results import store
from qdsim.results.selection import cell_label

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


def test_each_panel_can_show_its_own_groups(qdsim, write_spec, tmp_path):
    # Kantawala & Turner's Fig. 4(a) and 4(b): one sweep, one group per panel, lines by qdisc.
    two_groups = SPEC.replace('[[flows]]\ngroup = "g"', '[[flows]]\ngroup = "near"\naccess_delay = "1ms"\n\n[[flows]]\ngroup = "g"', 1).replace(
        "repetitions = 1",
        'repetitions = 1\n\n[plot]\nx = "topology.qdisc.target"\nby = "topology.qdisc"\ny = [{ metric = "goodput_bps", groups = ["near"] }, { metric = "goodput_bps", groups = ["g"] }, "goodput_bps"]',
    )
    out = tmp_path / "sweep"
    assert qdsim("sweep", write_spec(two_groups), "--out", out, "--jobs", "1").code == 0
    assert qdsim("plot", out, "--out", tmp_path / "p.png").code == 0
    data = json.loads((tmp_path / "p.json").read_text())
    goodput = {(r["group"], r["topology.qdisc"]): r["goodput_bps"] / 1e6 for r in store.read_rows(out, "groups")}
    # Lines are named by what tells the swept tables apart (`codel target=5ms`).
    tables = sorted({q for _, q in goodput})
    name = {q: cell_label(q, tables) for q in tables}
    assert sorted(name.values()) == ["codel target=20ms", "codel target=500us", "codel target=5ms"]
    near, far, both = data["panels"]
    for panel, group in ((near, "near"), (far, "g")):
        drawn = {line["name"]: line["mean"] for line in panel["lines"]}
        assert drawn == {name[q]: [pytest.approx(g)] for (grp, q), g in goodput.items() if grp == group}
    mixed = {line["name"]: line["mean"] for line in both["lines"]}
    assert mixed == {name[q]: [pytest.approx((goodput[("near", q)] + goodput[("g", q)]) / 2)] for _, q in goodput}, "without groups: every group's rows"
