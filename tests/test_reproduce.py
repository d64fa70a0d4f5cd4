"""`qdsim reproduce`: papers and files, --list, --quick, --docs, the figure kinds and their JSON."""

from __future__ import annotations

import itertools
import json
import statistics
from pathlib import Path

import pytest

from conftest import SMALL_SPEC
from qdsim.errors import SpecError
from qdsim.experiment.spec import load_raw
from qdsim.papers.reproduce import find_figures, quick_raw, reproduce
from qdsim.results import store
from qdsim.run.sweep import plan

# A paper "toy" with two figures: the same short dumbbell swept over the FIFO's limit.
FIGURE = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "0.8s"').replace('warmup = "0.5s"', 'warmup = "0.2s"')
    + """
[source]
paper = "A toy paper"
figure = "Fig. 1 (goodput vs buffer)"

[sweep]
"topology.qdisc.limit" = [10, 20, 40]
repetitions = 2

[plot]
y = ["bottleneck_utilization", { metric = "goodput_bps", improvement_over = "near" }]
groups = ["near", "far"]

[quick]
repetitions = 1
set = { "experiment.duration" = "0.6s" }
sweep = { "topology.qdisc.limit" = [10, 40] }
"""
)

# Sampled series of one run per discipline: the `series` figure kind.
SERIES = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "0.5s"').replace('warmup = "0.5s"', 'warmup = "0s"').replace('name = "small"', 'name = "series"')
    + """
[source]
paper = "A toy paper"
figure = "Fig. 2"

[sampling]
interval = "50ms"
queues = true
tcp = true

[sweep]
"topology.qdisc" = [{ kind = "fifo", limit = "10pkt" }, { kind = "codel" }]

[plot]
kind = "series"
by = "topology.qdisc"
panels = [
  { table = "series_tcp", y = "cwnd", label = "total window" },
  { table = "series_queue", y = "drops", per_interval = true, label = "drops per 50 ms" },
]
labels = { "{\\"kind\\": \\"codel\\"}" = "CoDel" }

[quick]
set = { "experiment.duration" = "0.3s" }
"""
)


@pytest.fixture
def experiments(tmp_path: Path) -> Path:
    """Returns an experiments directory with paper `toy` (fig1, fig2) and a non-paper file."""
    root = tmp_path / "experiments"
    (root / "toy").mkdir(parents=True)
    (root / "examples").mkdir()
    (root / "toy" / "fig1.toml").write_text(FIGURE)
    (root / "toy" / "fig2.toml").write_text(SERIES)
    (root / "examples" / "small.toml").write_text(SMALL_SPEC)
    return root


def test_list_shows_each_figure_with_runs_and_cpu_time_within_80_columns(qdsim, experiments, tmp_path):
    listed = qdsim("reproduce", "--list", "--experiments", experiments)
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:4] == ["paper", "figure", "file", "runs"]
    assert lines[1].split()[:3] == ["toy", "Fig.", "1"] and lines[1].split()[-2:] == ["6", "unknown"]
    assert lines[2].split()[-2:] == ["2", "unknown"] and lines[-2].startswith("2 figures, 8 runs")
    assert lines[1].split()[3] == "fig1.toml" and lines[-1].startswith("(files under ") and lines[-1].endswith("/<paper>/)")
    assert max(map(len, lines)) <= 80, lines
    assert qdsim("reproduce", experiments / "toy" / "fig1.toml", "--experiments", experiments, "--jobs", "1").code == 0
    estimated = qdsim("reproduce", "toy", "--list", "--json", "--experiments", experiments).json()["figures"]
    walls = store.wall_times(tmp_path / "results" / "small")
    assert len(walls) == 6 and estimated[0]["cpu_s"] == pytest.approx(statistics.mean(walls) * 6)
    assert estimated[1]["cpu_s"] is None and estimated[1]["runs"] == 2


def test_a_wrong_paper_name_is_one_line_and_exit_2(qdsim, experiments):
    result = qdsim("reproduce", "no-such-paper", "--experiments", experiments)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr == 'error: FILE|PAPER: "no-such-paper" is not allowed; an experiment file or a paper (toy)\n'
    as_directory = qdsim("reproduce", experiments / "toy", "--list", "--json", "--experiments", experiments)
    assert [f["figure"] for f in as_directory.json()["figures"]] == ["Fig. 1", "Fig. 2"]
    nothing = qdsim("reproduce", "--experiments", experiments)
    assert nothing.code == 2 and nothing.stderr.startswith("error: FILE|PAPER: missing;")


def test_a_paper_reproduces_every_figure_with_png_and_json_and_publishes_them(qdsim, experiments, tmp_path):
    result = qdsim("reproduce", "toy", "--docs", "--json", "--jobs", "1", "--experiments", experiments)
    assert result.code == 0, result.stderr
    figures = result.json()["figures"]
    assert [f["figure"] for f in figures] == ["Fig. 1", "Fig. 2"] and [f["ran"] for f in figures] == [6, 2]
    docs = tmp_path / "docs" / "reproductions" / "toy"
    for figure in figures:
        assert Path(tmp_path / figure["png"]).stat().st_size > 10_000
        assert figure["docs"] == str(docs)
        stem = Path(figure["file"]).stem
        assert (docs / f"{stem}.png").read_bytes() == (tmp_path / figure["png"]).read_bytes()
        assert json.loads((docs / f"{stem}.json").read_text()) == json.loads((tmp_path / figure["json"]).read_text())
    again = qdsim("reproduce", "toy", "--json", "--experiments", experiments).json()["figures"]
    assert [f["ran"] for f in again] == [0, 0] and [f["reused"] for f in again] == [6, 2]


def test_docs_refuses_changed_runs_and_files_outside_a_paper(qdsim, experiments):
    quick = qdsim("reproduce", "toy", "--docs", "--quick", "--experiments", experiments)
    assert quick.code == 2 and quick.stderr.startswith('error: --docs: "--quick" is not allowed;')
    outside = qdsim("reproduce", str(experiments / "examples" / "small.toml"), "--docs", "--experiments", experiments)
    assert outside.code == 2 and outside.stderr.startswith("error: --docs:")


def test_sweep_figure_json_holds_the_numbers_drawn(experiments, tmp_path):
    (figure,) = find_figures([str(experiments / "toy" / "fig1.toml")], root=experiments)
    result = reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments)
    data = json.loads(result.data.read_text())
    assert data["x"]["values"] == [10.0, 20.0, 40.0] and data["repetitions"] == 2
    utilization, improvement = data["panels"]
    points = store.read_rows(tmp_path / "out", "points")
    (line,) = utilization["lines"]
    for x, mean in zip(line["x"], line["mean"], strict=True):
        assert mean == pytest.approx(statistics.mean(p["bottleneck_utilization"] for p in points if p["topology.qdisc.limit"] == x))
    groups = store.read_rows(tmp_path / "out", "groups")
    goodput = {
        (g["group"], g["topology.qdisc.limit"]): statistics.mean(r["goodput_bps"] for r in groups if (r["group"], r["topology.qdisc.limit"]) == (g["group"], g["topology.qdisc.limit"])) for g in groups
    }
    lines = {line["name"]: line for line in improvement["lines"]}
    assert lines["near"]["mean"] == [0.0, 0.0, 0.0]
    for x, value in zip(lines["far"]["x"], lines["far"]["mean"], strict=True):
        near, far = goodput[("near", x)], goodput[("far", x)]
        assert value == pytest.approx(100 * (near - far) / near)


def test_series_figure_averages_runs_and_differences_cumulative_columns(experiments, tmp_path):
    (figure,) = find_figures([str(experiments / "toy" / "fig2.toml")], root=experiments)
    result = reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments)
    data = json.loads(result.data.read_text())
    window, drops = data["panels"]
    assert [line["name"] for line in drops["lines"]] == ["fifo limit=10pkt", "CoDel"]  # a swept table unlabelled: what tells it apart
    queue = store.read_table(tmp_path / "out", "series_queue").to_pylist()
    fifo = sorted((r["t"], r["drops"]) for r in queue if r["link_name"] == "bottleneck" and r["topology.qdisc"] == '{"kind": "fifo", "limit": "10pkt"}')
    cumulative = [d for _, d in fifo]
    assert drops["lines"][0]["t"] == [t for t, _ in fifo]
    assert drops["lines"][0]["y"] == [cumulative[0]] + [b - a for a, b in itertools.pairwise(cumulative)]
    assert sum(drops["lines"][0]["y"]) == cumulative[-1] > 0
    tcp = store.read_table(tmp_path / "out", "series_tcp").to_pylist()
    t0 = window["lines"][1]["t"][3]
    assert window["lines"][1]["y"][3] == sum(r["cwnd"] for r in tcp if r["t"] == t0 and r["topology.qdisc"] == '{"kind": "codel"}')


def test_a_series_panel_of_one_group_sums_that_group_s_flows_only(experiments, tmp_path):
    path = experiments / "toy" / "fig2.toml"
    path.write_text(SERIES.replace('{ table = "series_tcp", y = "cwnd", label = "total window" },', '{ table = "series_tcp", y = "cwnd", group = "far" },'))
    (figure,) = find_figures([str(path)], root=experiments)
    result = reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments)
    window = json.loads(result.data.read_text())["panels"][0]
    far = {(r["point_key"], r["id"]) for r in store.read_rows(tmp_path / "out", "flows") if r["group"] == "far"}
    tcp = store.read_table(tmp_path / "out", "series_tcp").to_pylist()
    t0 = window["lines"][1]["t"][3]
    rows = [r for r in tcp if r["t"] == t0 and r["topology.qdisc"] == '{"kind": "codel"}']
    assert window["lines"][1]["y"][3] == sum(r["cwnd"] for r in rows if (r["point_key"], r["flow"]) in far)
    assert window["lines"][1]["y"][3] < sum(r["cwnd"] for r in rows)
    path.write_text(SERIES.replace('{ table = "series_tcp", y = "cwnd", label = "total window" },', '{ table = "series_tcp", y = "cwnd", group = "nowhere" },'))
    with pytest.raises(SpecError, match=r'plot\.panels\.group: "nowhere" is not allowed; a flow group of the results \(far, near\)'):
        reproduce(figure, load_raw(path), tmp_path / "out2", jobs=1, root=experiments)


def test_packets_figure_draws_the_record_of_the_first_repetition_with_the_upper_groups_on_top(experiments, tmp_path):
    path = experiments / "toy" / "fig2.toml"
    text = SERIES.replace("queues = true\ntcp = true\n", 'packets = { start = "0.2s" }\n')
    text = text[: text.index("[plot]")] + '[plot]\nkind = "packets"\nby = "topology.qdisc"\nupper = ["far"]\n\n' + text[text.index("[quick]") :]
    path.write_text(text.replace("[sweep]\n", "[sweep]\nrepetitions = 2\n"))
    (figure,) = find_figures([str(path)], root=experiments)
    result = reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments)
    panels = json.loads(result.data.read_text())["panels"]
    assert [p["name"] for p in panels] == ['{"kind": "fifo", "limit": "10pkt"}', '{"kind": "codel"}']
    far = {(r["point_key"], r["id"]) for r in store.read_rows(tmp_path / "out", "flows") if r["group"] == "far"}
    record = [r for r in store.read_table(tmp_path / "out", "series_packets").to_pylist() if r["rep"] == 0 and r["topology.qdisc"] == '{"kind": "codel"}']
    record.sort(key=lambda r: r["t"])
    assert panels[1]["t"] == [r["t"] for r in record] and min(panels[1]["t"]) >= 0.2
    assert panels[1]["upper"] == [(r["point_key"], r["flow"]) in far for r in record] and 0 < sum(panels[1]["upper"]) < len(record)
    assert panels[1]["lost"] == [r["lost"] for r in record]
    assert sum(panels[0]["lost"]) > 0, "the 10-packet FIFO drops"
    path.write_text(text.replace('upper = ["far"]', 'upper = ["nowhere"]'))
    with pytest.raises(SpecError, match=r'plot\.upper: "nowhere" is not allowed; a flow group of the results \(far, near\)'):
        reproduce(figure, load_raw(path), tmp_path / "out2", jobs=1, root=experiments)


@pytest.mark.parametrize(
    ("plot", "message"),
    [
        ('kind = "packets"', 'with kind = "packets": `by`'),
        ('kind = "series"\nby = "topology.qdisc"\nupper = ["far"]\npanels = [{ table = "series_tcp", y = "cwnd" }]', '`upper` only with kind = "packets"'),
    ],
)
def test_packets_figure_keys_are_checked(experiments, plot, message):
    path = experiments / "toy" / "fig2.toml"
    path.write_text(SERIES[: SERIES.index("[plot]")] + f"[plot]\n{plot}\n\n" + SERIES[SERIES.index("[quick]") :])
    with pytest.raises(SpecError) as err:
        find_figures([str(path)], root=experiments)
    assert err.value.key == "plot" and message in str(err.value)


def test_model_curve_comes_from_a_module_beside_the_file(experiments, tmp_path):
    path = experiments / "toy" / "fig1.toml"
    path.write_text(FIGURE.replace("[quick]", '[plot.model]\nmodule = "figures.py"\nfunction = "half"\nlabel = "x / 100"\n\n[quick]'))
    (experiments / "toy" / "figures.py").write_text("def half(x):\n    return x / 100\n")
    (figure,) = find_figures([str(path)], root=experiments)
    result = reproduce(figure, quick_raw(figure.raw), tmp_path / "out", jobs=1, root=experiments)
    model = json.loads(result.data.read_text())["panels"][0]["model"]
    assert model["at_x"] == [0.1, 0.4] and model["y"][0] == 0.1 and model["y"][-1] == 0.4
    (experiments / "toy" / "figures.py").write_text("def other(x):\n    return x\n")
    with pytest.raises(SpecError, match=r"plot\.model\.function: \"half\" is not allowed; a function of figures\.py \(other\)"):
        reproduce(figure, quick_raw(figure.raw), tmp_path / "out", jobs=1, root=experiments)


def test_quick_shortens_the_file_as_declared(experiments):
    raw = load_raw(experiments / "toy" / "fig1.toml")
    points = plan(quick_raw(raw))
    assert [(p.params["topology.qdisc.limit"], p.rep) for p in points] == [(10, 0), (40, 0)]
    assert all(p.config["duration_ns"] == 600_000_000 for p in points)
    with pytest.raises(SpecError, match=r'quick\.sweep\."flows\.0\.count"'):
        quick_raw({**raw, "quick": {"sweep": {"flows.0.count": [1]}}})
    with pytest.raises(SpecError, match=r"^quick: missing; a \[quick\] table"):
        quick_raw(load_raw(experiments / "examples" / "small.toml"))


def test_quick_runs_go_to_their_own_results_directory(qdsim, experiments, tmp_path, monkeypatch):
    monkeypatch.setenv("QDSIM_PROGRESS_INTERVAL", "0")  # a progress line per update, also piped
    result = qdsim("reproduce", "toy", "--quick", "--json", "--jobs", "1", "--experiments", experiments)
    assert result.code == 0, result.stderr
    assert "toy fig1: 1/2 runs (50 %)" in result.stderr and "toy fig2: planning: 0/1 grid points" not in result.stderr
    assert [f["out"] for f in result.json()["figures"]] == ["results/small-quick", "results/series-quick"]
    assert [f["ran"] for f in result.json()["figures"]] == [2, 2]
    assert not (tmp_path / "results" / "small").exists()


def test_listed_seeds_replace_derived_ones(experiments):
    raw = load_raw(experiments / "toy" / "fig1.toml")
    points = plan({**raw, "sweep": {"topology.qdisc.limit": [10], "seeds": [7, 9]}})
    assert [(p.rep, p.seed, p.config["seed"]) for p in points] == [(0, 7, 7), (1, 9, 9)]
    with pytest.raises(SpecError, match=r"sweep\.repetitions: 3 is not allowed; the number of sweep\.seeds \(2\)"):
        plan({**raw, "sweep": {"topology.qdisc.limit": [10], "seeds": [7, 9], "repetitions": 3}})


def test_an_interrupted_reproduction_keeps_finished_points(experiments, tmp_path):
    (figure,) = find_figures([str(experiments / "toy" / "fig1.toml")], root=experiments)

    def stop_after_two(done: int, total: int) -> None:
        if done >= 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments, on_progress=stop_after_two)
    assert not (tmp_path / "out" / "fig1.png").exists()
    result = reproduce(figure, figure.raw, tmp_path / "out", jobs=1, root=experiments)
    assert (result.sweep.reused, result.sweep.ran) == (2, 4) and result.png.exists()


def test_a_figure_that_cannot_be_drawn_fails_before_anything_runs(qdsim, experiments, tmp_path):
    path = experiments / "toy" / "fig1.toml"
    path.write_text(FIGURE.replace("[plot]\n", '[plot]\nx = "topology.qdisc.target"\n'))
    result = qdsim("reproduce", path, "--experiments", experiments)
    assert result.code == 2 and result.stderr.startswith('error: plot.x: "topology.qdisc.target" is not allowed; a swept key'), result.stderr
    assert not (tmp_path / "results").exists()


# The toy figure over a FIFO and CoDel, every group on a congestion control ns-2 has: ns-2.35
# runs the FIFO points and has no CoDel.
ENGINE_FIGURE = (
    FIGURE.replace('group = "near"', 'group = "near"\ncc = "newreno"')
    .replace('"topology.qdisc.limit" = [10, 20, 40]', '"topology.qdisc" = [{ kind = "fifo", limit = "20pkt" }, { kind = "codel" }]')
    .replace('sweep = { "topology.qdisc.limit" = [10, 40] }', "")
)


def test_engine_option_is_checked_before_anything_runs(qdsim, experiments):
    bad = qdsim("reproduce", "toy", "--engine", "ns4", "--experiments", experiments)
    assert bad.code == 2 and bad.stderr.startswith("error: --engine:") and "ns2" in bad.stderr and len(bad.stderr.splitlines()) == 1
    docs = qdsim("reproduce", "toy", "--docs", "--engine", "ns2", "--experiments", experiments)
    assert docs.code == 2 and docs.stderr.startswith("error: --docs:") and "--engine" in docs.stderr


@pytest.mark.skipif(__import__("shutil").which("ns") is None, reason="ns-2.35 is not installed (`make engines`)")
def test_a_figure_runs_in_ns2_without_the_points_it_lacks(qdsim, experiments, tmp_path):
    (experiments / "toy" / "fig1.toml").write_text(ENGINE_FIGURE)
    result = qdsim("reproduce", str(experiments / "toy" / "fig1.toml"), "--quick", "--engine", "ns2", "--experiments", experiments, "--out", tmp_path / "ns2")
    assert result.code == 0, result.stderr
    assert "1 runs" in result.stdout and "1 the engine cannot run" in result.stdout
    out = tmp_path / "ns2"
    points = store.read_rows(out, "points")
    assert len(points) == 1 and json.loads(points[0]["topology.qdisc"])["kind"] == "fifo"
    (refused,) = json.loads((out / "refused.json").read_text())
    assert refused["params"]["topology.qdisc"] == {"kind": "codel"} and "codel" in refused["reason"]
    assert (out / "scripts").is_dir() and list((out / "scripts").glob("p1-seed-1.tcl")) == []
    assert [p.name for p in (out / "scripts").glob("*.tcl")] == ["p0-seed-1.tcl"]
    drawn = json.loads((out / "fig1.json").read_text())
    assert drawn["engine"] == "ns2"
