"""``qdsim report``: one self-contained HTML page per results directory, checked as a file and
in a real browser.

The results are made once per module, small: a run (1.5 s simulated; finite transfers that
finish and ones that do not, a short-flows generator, queues and TCP sampled), a sweep (2 × 2
grid × 2 repetitions of 1 s), a validation whose "engine" is qdsim again with other seeds (no
reference engine needed) and a run of 300 flows (aggregated figures). The static tests read
the HTML; the browser tests open it in headless Chromium (Debian's ``chromium`` and
``chromium-driver``: ``scripts/install_engines.sh``; skipped without them — Selenium is
handed the driver's path, so Selenium Manager never downloads one). The browser tests save a
full-page screenshot of each page: to ``$QDSIM_TEST_ARTIFACTS`` when set (kept after the
run), else to the test's ``tmp_path``.
"""

from __future__ import annotations

import base64
import os
import re
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import qdsim
from conftest import SMALL_SPEC, SMALL_SWEEP
from qdsim.report.figures import MAX_FLOWS
from qdsim.report.style import thin
from qdsim.report.summary import number
from qdsim.results import store
from qdsim.results.stats import mean_ci
from qdsim.run.sweep import run_sweep
from qdsim.validation.validate import EngineSide, Validation, compare_sides, validation_raw

#: A run with every kind of figure: saturated, finite (some finish, some cannot) and short
#: flows; the TCP series of the configured flows only (per-flow lines).
RUN_SPEC = """
[experiment]
name = "report-run"
duration = "1.5s"
warmup = "0.3s"
seed = 5

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "30pkt" }

[[flows]]
group = "bulk"
count = 2
access_delay = "5ms"
start_window = "0.2s"
tcp = { min_rto = "50ms" }

[[flows]]
group = "files"
count = 3
size = "20kB"
access_delay = "10ms"
start_window = "0.3s"

[[flows]]
group = "big"
count = 2
size = "20MB"
access_delay = "10ms"
start_window = "0.2s"

[[flows]]
group = "web"
kind = "short_flows"
arrival_rate = 10
size_min = "2kB"
size_max = "20kB"
access_delay = "10ms"

[sampling]
interval = "10ms"
queues = true
tcp = true
tcp_groups = ["bulk", "files", "big"]
"""

SAMPLING = """
[sampling]
interval = "10ms"
queues = true
tcp = true
"""

#: The sweep's own figure: its [plot] names the x-axis and labels it.
SWEEP_PLOT = """
[plot]
x = "topology.qdisc.limit"
xlabel = "buffer (packets)"
"""

#: 300 saturated flows: more than the report draws one by one.
MANY_FLOWS_SPEC = (
    SMALL_SPEC.replace('duration = "2s"', 'duration = "0.6s"')
    .replace('warmup = "0.5s"', 'warmup = "0.2s"')
    .replace("count = 2", "count = 150")
    .replace('start_window = "0.5s"', 'start_window = "0.1s"')
    .replace('bottleneck_rate = "10Mbps"', 'bottleneck_rate = "100Mbps"')
    + SAMPLING
)

RUN_SECTIONS = ("Experiment", "TCP options", "Summary", "Throughput and fairness", "Queues", "Drops and marks", "TCP state", "Flow completion times")
SWEEP_SECTIONS = ("Experiment", "Summary", "Metrics against topology.qdisc.limit", "Metrics against topology.bottleneck_rate", "Bottleneck queue over time")


def _write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Returns the module's results directories by kind, each with its report written."""
    root = tmp_path_factory.mktemp("report")
    out = {
        "run": root / "run",
        "sweep": root / "sweep",
        "many": root / "many",
        "validation": root / "validation",
    }
    qdsim.simulate(_write(root, "run.toml", RUN_SPEC), out=out["run"])
    qdsim.sweep(_write(root, "sweep.toml", SMALL_SWEEP + SAMPLING + SWEEP_PLOT), out=out["sweep"], jobs=1)
    qdsim.simulate(_write(root, "many.toml", MANY_FLOWS_SPEC), out=out["many"])
    _validation(out["validation"])
    for path in out.values():
        qdsim.write_report(path)
    return out


def _validation(out: Path) -> None:
    """Writes a ``qdsim validate`` directory whose reference side is qdsim with other seeds
    (the comparison and its file are qdsim validate's own code)."""
    raw = validation_raw(tomllib.loads(SMALL_SPEC.replace('duration = "2s"', 'duration = "1s"').replace('warmup = "0.5s"', 'warmup = "0.2s"')), seeds=2)
    run_sweep(raw, out / "qdsim", jobs=1)
    run_sweep(raw, out / "stand-in", jobs=1, seed=99)
    side = EngineSide("ns2", "stand-in", out=out / "stand-in", rows=compare_sides(out / "qdsim", out / "stand-in"))
    wall = [row["wall_s"] for row in store.read_rows(out / "qdsim", "points")]
    validation = Validation(experiment="small", out=out, seeds=2, qdsim_out=out / "qdsim", qdsim_wall_s=wall, sides=[side])
    store.write_json(out / "validation.json", validation.as_json())


def _page(path: Path) -> str:
    return (path / "report.html").read_text(encoding="utf-8")


def _figures(page: str) -> int:
    match = re.search(r'<body data-figures="(\d+)">', page)
    assert match, "the page declares its figures"
    return int(match.group(1))


# --- the file ---------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["run", "sweep", "many", "validation"])
def test_the_report_is_one_self_contained_file(results, kind):
    page = _page(results[kind])
    # plotly.js inline, once; nothing loaded from anywhere (no src or stylesheet link at all).
    assert page.count("plotly.js v") >= 1 and "Plotly.newPlot" in page
    assert not re.search(r"<(script|link|img|iframe)\b[^>]*\b(src|href)\s*=\s*[\"']?(https?:)?//", page)
    assert "<script src" not in page and 'rel="stylesheet"' not in page
    # Every figure the page declares is a plot div with its plotting call.
    count = _figures(page)
    assert count == page.count('class="plotly-graph-div"') == page.count("Plotly.newPlot(") >= 1
    # plotly.js is 4.6 MB; the figures must not add more than a little.
    assert (results[kind] / "report.html").stat().st_size < 6_000_000


def test_a_runs_report_holds_every_section_with_units(results):
    page = _page(results["run"])
    for title in RUN_SECTIONS:
        assert f">{title}</h" in page, title
    assert _figures(page) >= 7
    figures = page.replace("\\u002f", "/")  # plotly's JSON escapes "/" (no "</script>" inside)
    for label in ("goodput (Mb/s)", "queue (packets)", "sojourn (ms)", "cwnd (segments)", "smoothed RTT (ms)", "flow completion time (s)"):
        assert label in figures, label
    # The resolved TCP of each group: its profile, and the option the file set over it.
    assert "profile <code>" in page and "bulk sets min_rto over it" in page and "50ms *" in page


def test_drops_and_marks_are_drawn_by_reason_over_time(results):
    # Every reason the bottleneck dropped for (series_reasons) is a line of its own.
    page = _page(results["run"])
    rows = store.read_rows(results["run"], "series_reasons")
    reasons = {(r["kind"], r["reason"]) for r in rows if r["link_name"] == "bottleneck"}
    assert ("drop", "overflow") in reasons, reasons
    assert "Drops and marks by reason over time" in page
    for kind, reason in reasons:
        assert f"bottleneck: {kind} {reason}" in page


def test_unfinished_transfers_are_counted_and_marked_never_dropped(results):
    # Every transfer of the run, from the transfer table: finite flows and the generator's
    # short flows alike, the unfinished marked where they were cut off.
    page = _page(results["run"])
    group_of = {f["id"]: f["group"] for f in store.read_rows(results["run"], "flows")}
    counts: dict[str, list[int]] = {}
    for t in store.read_rows(results["run"], "transfers"):
        counts.setdefault(group_of[t["flow"]], [0, 0])[0 if t["finished"] else 1] += 1
    assert counts["big"][1] > 0 and counts["files"][0] > 0 and counts["web"][0] > 0, counts
    big = [f for f in store.read_rows(results["run"], "flows") if f["group"] == "big"]
    assert counts["big"] == [sum(f["finished"] for f in big), sum(not f["finished"] for f in big)], "the table is the flows' own"
    for name, (done, cut) in counts.items():
        assert f"{name}: {done} finished, {cut} unfinished" in page, name
        if cut:
            assert f"{name}: {cut} unfinished (censored)" in page
    assert "own times are not stored" not in page


def test_a_sweeps_report_draws_metrics_with_confidence_intervals_faceted(results):
    page = _page(results["sweep"])
    for title in SWEEP_SECTIONS:
        assert f">{title}</h" in page, title
    assert "95 % confidence interval" in page and '"error_y"' in page
    # Faceted as `qdsim plot --facet`: each figure's columns are the other key's values.
    assert "bottleneck_rate=5Mbps" in page and "limit=10" in page
    # [plot]'s label names its own x-axis only; the other figure's axis has the key and unit.
    figures = page.replace("\\u002f", "/")
    assert '"text":"buffer (packets)"' in figures and '"text":"topology.bottleneck_rate (Mb/s)"' in figures
    # The table's means are the tables' numbers: a grid point's Jain's index ± CI.
    rows = [r for r in store.read_rows(results["sweep"], "points") if r["topology.qdisc.limit"] == 40 and r["topology.bottleneck_rate"] == "10Mbps"]
    values = [r["jain_index"] for r in rows]
    mean, ci = mean_ci(values)
    assert len(values) == 2
    assert (f"{number(mean)} ± {number(ci)}" if values[0] != values[1] else f">{number(values[0])}<") in page


def test_a_validations_report_shows_the_comparison_table(results):
    page = _page(results["validation"])
    doc = store.read_json(results["validation"] / "validation.json")
    assert "qdsim against stand-in, 2 seeds each" in page
    verdicts = re.findall(r'<td class="num[^"]*">(agree|unclear|disagree|n/a)</td>', page)
    assert len(verdicts) == len(doc["rows"]) >= 5 and verdicts == [row["verdict"] for row in doc["rows"]]
    assert ">qdsim&#x27;s runs</h2>" in page


def test_many_flows_are_aggregated_not_drawn_one_by_one(results):
    page = _page(results["many"])
    flows = len(store.read_rows(results["many"], "flows"))
    assert flows > MAX_FLOWS
    assert f"{flows} flows sampled: per flow group, the median" in page
    # Two groups: a median line and a band per group and panel, not a trace per flow.
    assert page.count('"name":"flow ') == 0


#: 10⁴ flows through one bottleneck, sampled: the scale a report must stay usable at.
TEN_THOUSAND_FLOWS_SPEC = """
[experiment]
name = "ten-thousand"
duration = "0.5s"
warmup = "0.2s"

[topology]
kind = "dumbbell"
bottleneck_rate = "1Gbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "2000pkt" }

[[flows]]
group = "bulk"
count = 10000
access_delay = "5ms"
start_window = "0.1s"

[sampling]
interval = "20ms"
queues = true
tcp = true
"""


@pytest.mark.slow
def test_a_run_of_ten_thousand_flows_gives_a_page_of_the_usual_size(tmp_path):
    """A few seconds: the run (10⁴ flows, 0.5 s simulated) and its page."""
    out = tmp_path / "run"
    qdsim.simulate(_write(tmp_path, "big.toml", TEN_THOUSAND_FLOWS_SPEC), out=out)
    page = qdsim.write_report(out).read_text(encoding="utf-8")
    assert len(page.encode()) < 6_000_000
    assert "10000 flows sampled: per flow group, the median" in page
    assert page.count('"name":"flow ') == 0 and "more links queued" in page
    assert _figures(page) == page.count("Plotly.newPlot(") >= 5


def test_thinning_keeps_every_peak_and_both_ends():
    series = np.zeros(100_000)
    series[12_345] = 7.0
    series[77_777] = -3.0
    keep = thin(series, limit=1000)
    assert len(keep) <= 1004
    assert {0, 12_345, 77_777, 99_999} <= set(keep.tolist())
    assert np.all(np.diff(keep) > 0)


def test_the_report_is_a_result_of_its_directory(results):
    # A run written into the directory again clears the page that described the old one.
    assert "report.html" not in store.describe(results["run"]).other


# --- the command ------------------------------------------------------------------------------


def test_report_writes_to_out_and_says_where(qdsim, results, tmp_path):
    out = tmp_path / "page.html"
    result = qdsim("report", results["sweep"], "-o", out)
    assert result.code == 0, result.stderr
    assert out.exists() and str(out) in result.stdout and "MB" in result.stdout


@pytest.mark.parametrize(
    ("args", "key", "value"),
    [
        (("missing-dir",), "RESULTS_DIR", "missing-dir"),
        (("not-results",), "RESULTS_DIR", "not-results"),
        (("a-file.txt",), "RESULTS_DIR", "a-file.txt"),
        (("RUN", "-o", "no-such-dir/r.html"), "--out", "no-such-dir/r.html"),
        (("RUN", "--out", "not-results"), "--out", "not-results"),
        (("RUN", "-o", "page.pdf"), "--out", "page.pdf"),
    ],
)
def test_bad_input_is_one_line_naming_the_argument_and_exit_2(qdsim, results, tmp_path, args, key, value):
    (tmp_path / "not-results").mkdir()
    (tmp_path / "a-file.txt").write_text("x")
    argv = [str(results["run"]) if a == "RUN" else a for a in args]
    result = qdsim("report", *argv)
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f'error: {key}: "{value}" is not allowed; '), lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert not (tmp_path / "page.pdf").exists()


# --- in a browser -----------------------------------------------------------------------------

CHROMIUM, CHROMEDRIVER = Path("/usr/bin/chromium"), Path("/usr/bin/chromedriver")


@pytest.fixture(scope="module")
def browser():
    """Returns a headless Chromium driven by Debian's chromedriver (skips without them)."""
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip("Chromium not installed: apt-get install chromium chromium-driver (scripts/install_engines.sh)")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1300,1000"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def artifacts(tmp_path: Path) -> Path:
    """Returns where screenshots go: ``$QDSIM_TEST_ARTIFACTS`` (kept), else ``tmp_path``."""
    chosen = Path(os.environ.get("QDSIM_TEST_ARTIFACTS", tmp_path))
    chosen.mkdir(parents=True, exist_ok=True)
    return chosen


def _open(driver: Any, path: Path) -> int:
    """Loads a report and waits until each of its figures has drawn; returns their count."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get_log("browser")  # what earlier pages logged
    driver.get(path.resolve().as_uri())
    declared = int(driver.execute_script("return document.body.dataset.figures"))
    drawn = "return [...document.querySelectorAll('.plotly-graph-div')].filter(div => div.querySelector('.main-svg')).length"
    WebDriverWait(driver, 30).until(lambda d: d.execute_script(drawn) == declared)
    return declared


def _screenshot(driver: Any, path: Path) -> None:
    """Saves a screenshot of the whole page (not only the window) to ``path``."""
    height = driver.execute_script("return document.documentElement.scrollHeight")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True, "clip": {"x": 0, "y": 0, "width": 1300, "height": height, "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))


@pytest.mark.parametrize("kind", ["run", "sweep", "validation"])
def test_every_figure_renders_offline_without_errors(browser, results, artifacts, kind):
    page = results[kind] / "report.html"
    declared = _open(browser, page)
    assert declared == _figures(_page(results[kind])) >= 1
    graphs = browser.find_elements("css selector", ".plotly-graph-div")
    assert len(graphs) == declared and all(g.find_elements("css selector", ".main-svg") for g in graphs)
    severe = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not severe, severe
    # Nothing was fetched: every resource the page loaded is the file itself or inline data.
    fetched = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert all(not name.startswith(("http:", "https:")) for name in fetched), fetched
    _screenshot(browser, artifacts / f"report-{kind}.png")
    assert (artifacts / f"report-{kind}.png").stat().st_size > 10_000


def _hover_text(driver: Any, element: Any, figure_id: str) -> str:
    """Moves the mouse onto ``element`` and returns the hover label's text in the figure."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.support.ui import WebDriverWait

    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", element)
    ActionChains(driver).move_to_element(element).perform()
    label = f"return [...document.querySelectorAll('#{figure_id} .hoverlayer .hovertext')].map(e => e.textContent).join(' | ')"
    WebDriverWait(driver, 10).until(lambda d: d.execute_script(label))
    return driver.execute_script(label)


def test_hovering_a_bar_shows_its_value_with_its_unit(browser, results):
    _open(browser, results["run"] / "report.html")
    group = store.read_rows(results["run"], "groups")[0]
    bar = browser.find_elements("css selector", "#figure-1 .bars .point path")[0]
    text = _hover_text(browser, bar, "figure-1")
    # d3's ".4g" keeps trailing zeros, as Python's "#.4g" does.
    assert f"goodput: {group['goodput_bps'] * 1e-6:#.4g} Mb/s" in text, text
    assert f"flows: {group['flows']}" in text, text


def test_hovering_a_sweep_point_shows_its_mean_and_confidence_interval(browser, results):
    _open(browser, results["sweep"] / "report.html")
    figure = browser.find_element("css selector", "section#metrics-against-the-swept-keys .plotly-graph-div")
    point = figure.find_elements("css selector", ".scatterlayer .point")[0]
    text = _hover_text(browser, point, figure.get_attribute("id"))
    assert "Mb/s" in text and "95 % CI: ±" in text, text
