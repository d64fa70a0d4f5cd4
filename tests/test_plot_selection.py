"""`qdsim plot` never averages different grid points silently: one line per combination of the
other swept keys, --facet, --where, a title that says what a point is the mean of; the
time series of a sweep name one run."""

import json
import statistics

import pytest

from conftest import SMALL_SPEC
from qdsim.errors import SpecError
from qdsim.experiment.spec import load
from qdsim.plot.series import plot_queue
from qdsim.plot.sweep import plot_sweep
from qdsim.results import store
from qdsim.run.sweep import run_sweep

TWO_AXES = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "0.6s"').replace('warmup = "0.5s"', 'warmup = "0.1s"')
    + """
[sampling]
interval = "50ms"
queues = true

[sweep]
"topology.qdisc.limit" = [10, 40]
"topology.qdisc" = [{ kind = "fifo", limit = "20pkt" }, { kind = "drr", limit = "20pkt" }]
repetitions = 2
"""
)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """A sweep over a FIFO's limit and over FIFO/DRR (limit overridden: the tables are swept
    after the limit), 2 repetitions each, sampled."""
    path = tmp_path_factory.mktemp("spec") / "two.toml"
    path.write_text(TWO_AXES.replace('"topology.qdisc.limit" = [10, 40]', '"flows.0.count" = [1, 2]'))
    raw, _ = load(path)
    out = tmp_path_factory.mktemp("two-axes")
    run_sweep(raw, out, jobs=2)
    return out


def _drawn(png):
    return json.loads(png.with_suffix(".json").read_text())


def test_other_swept_keys_split_the_lines_and_the_title_says_what_a_point_averages(swept, tmp_path):
    png = plot_sweep(swept, x="flows.0.count", y="bottleneck_utilization", out=tmp_path / "u.png")
    lines = _drawn(png)["panels"][0]["lines"]
    assert [line["name"] for line in lines] == ["qdisc=fifo", "qdisc=drr"]
    # Each point is the mean of its own grid point's two repetitions, nothing else.
    points = store.read_rows(swept, "points")
    for line, kind in zip(lines, ("fifo", "drr"), strict=True):
        for x, mean in zip(line["x"], line["mean"], strict=True):
            runs = [p["bottleneck_utilization"] for p in points if p["flows.0.count"] == x and json.loads(p["topology.qdisc"])["kind"] == kind]
            assert len(runs) == 2 and mean == pytest.approx(statistics.mean(runs))
    assert _drawn(png)["mean_of"] == "2 repetitions"
    title_png = plot_sweep(swept, x="flows.0.count", y="goodput_bps", by="group", out=tmp_path / "g.png")
    names = [line["name"] for line in _drawn(title_png)["panels"][0]["lines"]]
    assert names == ["far · qdisc=fifo", "far · qdisc=drr", "near · qdisc=fifo", "near · qdisc=drr"]


def test_where_keeps_the_runs_of_one_value_and_facet_gives_a_panel_per_value(swept, tmp_path):
    where = _drawn(plot_sweep(swept, x="flows.0.count", y="bottleneck_utilization", where=["topology.qdisc.kind=drr"], out=tmp_path / "w.png"))
    assert [line["name"] for line in where["panels"][0]["lines"]] == ["bottleneck_utilization"]
    assert where["where"] == {"topology.qdisc.kind": "drr"}
    faceted = _drawn(plot_sweep(swept, x="flows.0.count", y=["bottleneck_utilization", "jain_index"], facet="topology.qdisc", out=tmp_path / "f.png"))
    assert [(p["metric"], p["facet"]) for p in faceted["panels"]] == [
        ("bottleneck_utilization", "qdisc=fifo"),
        ("bottleneck_utilization", "qdisc=drr"),
        ("jain_index", "qdisc=fifo"),
        ("jain_index", "qdisc=drr"),
    ]
    assert faceted["panels"][1]["lines"][0]["mean"] == where["panels"][0]["lines"][0]["mean"]


@pytest.mark.parametrize(
    ("where", "facet", "key", "message"),
    [
        (["topology.qdisc.kind=red"], None, "--where", "a value topology.qdisc.kind takes in this sweep"),
        (["nothing=1"], None, "--where", "KEY=VALUE with KEY a swept key (flows.0.count, topology.qdisc)"),
        (["flows.0.count"], None, "--where", "KEY=VALUE"),
        ([], "flows.0.count", "--facet", "a swept key other than the x-axis (flows.0.count) and the key giving the lines"),
        ([], "group", "--facet", "a swept key (flows.0.count, topology.qdisc)"),
    ],
)
def test_bad_where_and_facet_name_the_option(swept, tmp_path, where, facet, key, message):
    with pytest.raises(SpecError) as error:
        plot_sweep(swept, x="flows.0.count", y="jain_index", where=where, facet=facet, out=tmp_path / "x.png")
    assert error.value.key == key and message in error.value.allowed, error.value


def test_a_sweeps_queue_plot_asks_which_run(swept, qdsim, tmp_path):
    unpicked = qdsim("plot", swept, "--kind", "queue", "--out", tmp_path / "q.png")
    assert unpicked.code == 2 and len(unpicked.stderr.splitlines()) == 1
    assert "pick one run of the sweep (8 match): fix flows.0.count (1, 2); topology.qdisc (" in unpicked.stderr and "rep (0, 1)" in unpicked.stderr
    with pytest.raises(SpecError, match="fix rep"):
        plot_queue(swept, out=tmp_path / "q.png", where=["flows.0.count=2", "topology.qdisc.kind=fifo"])
    png = plot_queue(swept, out=tmp_path / "q.png", where=["flows.0.count=2", "topology.qdisc.kind=fifo", "rep=1"])
    assert png.stat().st_size > 5000


def test_a_swept_seed_is_averaged_over_like_repetitions(write_spec, tmp_path):
    raw, _ = load(write_spec(TWO_AXES.replace('"topology.qdisc" = [{ kind = "fifo", limit = "20pkt" }, { kind = "drr", limit = "20pkt" }]', '"experiment.seed" = [1, 2, 3]')))
    out = tmp_path / "seeds"
    run_sweep(raw, out, jobs=2)
    drawn = _drawn(plot_sweep(out, y="jain_index", out=tmp_path / "s.png"))
    assert [line["name"] for line in drawn["panels"][0]["lines"]] == ["jain_index"]
    assert drawn["mean_of"] == "6 runs (3 seeds × 2 repetitions)"
    points = store.read_rows(out, "points")
    for x, mean in zip(drawn["panels"][0]["lines"][0]["x"], drawn["panels"][0]["lines"][0]["mean"], strict=True):
        runs = [p["jain_index"] for p in points if p["topology.qdisc.limit"] == x]
        assert len(runs) == 6 and mean == pytest.approx(statistics.mean(runs))
