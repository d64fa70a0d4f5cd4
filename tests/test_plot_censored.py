"""Sweep plots mark completion-time means that include transfers unfinished at the end."""

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

from qdsim.plot.censored import CENSORED_LABEL, censored_runs, mark_censored

# Two transfers per run, 20 kB (finish) or 4 MB each (cannot finish in a 3 s run at 10 Mb/s).
SPEC = """
[experiment]
name = "censored"
duration = "3s"
warmup = "0s"
seed = 3

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "50pkt" }

[[flows]]
group = "g"
count = 2
start_window = "1s"

[sweep]
"flows.0.size" = ["20kB", "4MB"]
repetitions = 2

[plot]
x = "flows.0.size"
y = "mean_fct_s"
"""


def test_censored_runs_counts_runs_with_unfinished_transfers_per_line_and_x():
    rows = [
        {"mean_fct_s": 1.0, "unfinished_transfers": 0, "g": "a", "x": "1"},
        {"mean_fct_s": 2.0, "unfinished_transfers": 3, "g": "a", "x": "1"},
        {"mean_fct_s": 2.0, "unfinished_transfers": 1, "g": "b", "x": "2"},
        {"mean_fct_s": None, "unfinished_transfers": 0, "g": "b", "x": "1"},
    ]
    counts = censored_runs(rows, "mean_fct_s", lambda r: r["g"], lambda r: r["x"])
    assert counts["a"]["1"] == 1 and counts["b"]["2"] == 1 and counts["b"]["1"] == 0
    assert censored_runs(rows, "goodput_bps", lambda r: r["g"], lambda r: r["x"]) is None
    assert censored_runs([{"mean_fct_s": 1.0}], "mean_fct_s", lambda r: 0, lambda r: "1") is None


def test_mark_censored_rings_only_censored_points_and_names_them_in_the_legend():
    _fig, ax = plt.subplots()
    lines = [{"name": "a", "x": [1, 2, 3], "mean": [1.0, 2.0, 3.0], "censored": [0, 2, 0]}, {"name": "b", "x": [1], "mean": [5.0], "censored": [0]}]
    assert mark_censored(ax, lines, {})
    ringed = [c.get_offsets().tolist() for c in ax.collections]
    assert ringed[0] == [[2.0, 2.0]]
    assert CENSORED_LABEL in ax.get_legend_handles_labels()[1]
    _, clean = plt.subplots()
    assert not mark_censored(clean, [{"name": "a", "x": [1], "mean": [1.0], "censored": [0]}], {})
    assert not clean.collections
    plt.close("all")


def test_a_sweep_plot_of_completion_times_records_its_censored_points(qdsim, write_spec, tmp_path):
    out = tmp_path / "sweep"
    assert qdsim("sweep", write_spec(SPEC), "--out", out, "--jobs", "1").code == 0
    done = qdsim("plot", out, "--out", tmp_path / "fct.png")
    assert done.code == 0, done.stderr
    (line,) = json.loads((tmp_path / "fct.json").read_text())["panels"][0]["lines"]
    # 20 kB transfers all finish; 4 MB ones (3.2 s each at the full rate) cannot, in both runs.
    assert line["censored"] == [0, 2], line
