"""Figures fit for a paper: no backend switched by importing qdsim, figures returned (from a
results directory or the API's Results) and drawn into a caller's axes, a colour-blind-safe palette with markers and line styles, axis
labels with units, log axes ticked at the swept values, 300 dpi, cwnd from each flow's start."""

import subprocess
import sys

import matplotlib.image
import pytest
from matplotlib.figure import Figure

import qdsim
from conftest import SMALL_SPEC
from qdsim.experiment.spec import load
from qdsim.plot.labels import PALETTE, axis_label, display
from qdsim.plot.series import draw_cwnd
from qdsim.plot.sweep import DPI, draw_sweep, figure_data, plot_sweep
from qdsim.results import store
from qdsim.run.sweep import run_sweep

SWEEP = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "0.6s"').replace('warmup = "0.5s"', 'warmup = "0.1s"')
    + """
[sampling]
interval = "20ms"
tcp = true

[sweep]
"topology.qdisc.limit" = ["10pkt", "40pkt", "160pkt"]
repetitions = 2

[plot]
logx = true
"""
)


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    path = tmp_path_factory.mktemp("spec") / "limits.toml"
    path.write_text(SWEEP)
    raw, _ = load(path)
    out = tmp_path_factory.mktemp("limits")
    run_sweep(raw, out, jobs=1)
    return out


def test_importing_qdsim_selects_no_matplotlib_backend():
    # Forcing Agg at import (as qdsim.plot once did) breaks a notebook's inline figures.
    code = (
        "import sys, matplotlib\n"
        "import qdsim, qdsim.plot, qdsim.plot.series, qdsim.plot.packets, qdsim.papers.reproduce, qdsim.cli\n"
        "assert matplotlib.rcParams._get('backend') is matplotlib.rcsetup._auto_backend_sentinel, matplotlib.rcParams._get('backend')\n"
        "assert 'matplotlib.pyplot' not in sys.modules\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr


def test_import_qdsim_loads_no_matplotlib_until_qdsim_plot_is_used():
    code = "import sys\nimport qdsim\nassert 'matplotlib' not in sys.modules\nfrom qdsim.plot.sweep import draw_sweep\nassert qdsim.plot.draw_sweep is draw_sweep\n"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False, env={"PATH": "/usr/bin:/bin"})
    assert proc.returncode == 0, proc.stderr


def test_a_sweep_figure_takes_the_results_the_api_returns(swept, small_spec):
    from_results = draw_sweep(qdsim.load(swept), y="goodput_bps")
    assert figure_data(from_results) == figure_data(qdsim.plot.draw_sweep(swept, y="goodput_bps"))
    with pytest.raises(qdsim.SpecError, match="a sweep's results"):
        qdsim.plot.draw_sweep(qdsim.simulate(small_spec), y="goodput_bps")


def test_a_figure_is_returned_and_draws_into_a_given_axes(swept):
    fig = draw_sweep(swept, y="goodput_bps")
    assert isinstance(fig, Figure)
    assert figure_data(fig)["panels"][0]["metric"] == "goodput_bps"
    mine = Figure()
    ax = mine.add_subplot()
    assert draw_sweep(swept, y="jain_index", ax=ax) is mine
    assert len(ax.containers) == 1  # one errorbar line, in the caller's axes
    with pytest.raises(ValueError, match="ax= draws one panel"):
        draw_sweep(swept, y=["jain_index", "goodput_bps"], ax=ax)


def test_lines_differ_in_colour_marker_and_style_from_a_colour_blind_safe_palette(swept):
    fig = draw_sweep(swept, y="goodput_bps")  # a line per group: near, far
    ax = fig.axes[0]
    styles = [(c.lines[0].get_color(), c.lines[0].get_marker(), c.lines[0].get_linestyle()) for c in ax.containers]
    assert len(styles) == 2
    assert all(color in PALETTE for color, _, _ in styles)
    for i in range(3):
        assert len({s[i] for s in styles}) == 2, styles


def test_axes_are_labelled_with_names_and_units_and_a_log_axis_is_ticked_at_the_swept_values(swept):
    fig = draw_sweep(swept, y="goodput_bps")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "goodput (Mb/s)"
    assert ax.get_xlabel() == "topology.qdisc.limit (packets)"
    assert ax.get_xscale() == "log"
    assert list(ax.get_xticks()) == [10.0, 40.0, 160.0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["10", "40", "160"]
    assert "mean of 2 repetitions" in ax.get_title()


@pytest.mark.parametrize(
    ("column", "scale", "label"),
    [
        ("goodput_bps", 1e-6, "goodput (Mb/s)"),
        ("mean_queue_delay_s", 1e3, "mean queueing delay (ms)"),
        ("jain_index", 1.0, "Jain's fairness index"),
        ("mean_fct_s", 1.0, "mean flow completion time (s)"),
        ("some_rate_bps", 1e-6, "some rate (Mb/s)"),
        ("x_delay_s", 1e3, "x delay (ms)"),
        ("odd_count", 1.0, "odd count"),
    ],
)
def test_columns_get_a_name_and_a_unit(column, scale, label):
    assert display(column) == (scale, label)


def test_swept_units_are_spelt_out():
    assert axis_label("topology.qdisc.limit", "pkt") == "topology.qdisc.limit (packets)"
    assert axis_label("topology.bottleneck_rate", "Mbps") == "topology.bottleneck_rate (Mb/s)"
    assert axis_label("flows.0.count", "") == "flows.0.count"


def test_figures_are_saved_at_300_dpi(swept, tmp_path):
    png = plot_sweep(swept, y="jain_index", out=tmp_path / "j.png")
    height, width = matplotlib.image.imread(png).shape[:2]
    assert DPI == 300 and (width, height) == (6 * 300, 4 * 300)


def test_cwnd_lines_start_at_each_flow_s_start(swept):
    where = ["topology.qdisc.limit=40pkt", "rep=0"]
    flows = {f["id"]: f["start_s"] for f in store.read_rows(swept, "flows") if f["topology.qdisc.limit"] == "40pkt" and f["rep"] == 0}
    samples = [s for s in store.read_rows(swept, "series_tcp") if s["topology.qdisc.limit"] == "40pkt" and s["rep"] == 0]
    # The sampler reports flows before they start (else this test could not fail) ...
    assert any(s["t"] < flows[s["flow"]] for s in samples)
    drawn = figure_data(draw_cwnd(swept, where=where))["flows"]
    assert {d["flow"] for d in drawn} == set(flows)
    for line in drawn:
        # ... and the figure does not: each line begins at its flow's first sample from its start.
        assert line["t"] and min(line["t"]) >= flows[line["flow"]]
        assert min(line["t"]) == min(s["t"] for s in samples if s["flow"] == line["flow"] and s["t"] >= flows[line["flow"]])
