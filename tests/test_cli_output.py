"""The CLI as a new user meets it: `--version`, `-q`/`-v`, tables and `qdsim list` at 80
columns piped to a file, `qdsim compare`, and the small things a wrong value shows."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from conftest import SMALL_SPEC
from qdsim.errors import SpecError
from qdsim.experiment.spec import load
from qdsim.results import store
from qdsim.results.stats import welch_ci

SHORT = SMALL_SPEC.replace('duration = "2s"', 'duration = "0.6s"').replace('warmup = "0.5s"', 'warmup = "0.1s"')
SWEPT = SHORT + '\n[sweep]\n"topology.qdisc.limit" = ["10pkt", "40pkt"]\nrepetitions = 2\n'


def qdsim_at_80(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Runs `qdsim ARGS` with stdout piped, as `qdsim ... > file` at an 80-column terminal."""
    env = {**os.environ, "COLUMNS": "80"}
    return subprocess.run([sys.executable, "-m", "qdsim", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=600, check=False, env=env)


@pytest.mark.parametrize("buffered", [True, False])
@pytest.mark.parametrize("command", [["list"], ["run", "s.toml", "--out", "out"], ["-q", "sweep", "w.toml", "--jobs", "1", "--out", "out", "--json"]])
def test_a_reader_that_leaves_ends_the_command_quietly_with_141(tmp_path, command, buffered):
    """`qdsim ... | head`: the reader gone before anything is written. Status 128 + SIGPIPE,
    as Unix tools end, nothing on stderr, the results written all the same. (rich's tables
    exited with 1; a short output on a buffered stdout failed only at exit, with status 120
    and Python's complaint.)"""
    (tmp_path / "s.toml").write_text(SHORT)
    (tmp_path / "w.toml").write_text(SWEPT)
    env = {name: value for name, value in os.environ.items() if not (buffered and name == "PYTHONUNBUFFERED")}
    with subprocess.Popen([sys.executable, "-m", "qdsim", *command], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait(timeout=120)
    assert code == 141 and err == ""
    if "list" not in command:  # the results are written all the same
        assert store.read_table(tmp_path / "out", "points").num_rows == (4 if "sweep" in command else 1)


def _widest(text: str) -> int:
    return max((len(line.rstrip()) for line in text.splitlines()), default=0)


def test_version_is_the_distribution_s(qdsim):
    result = qdsim("--version")
    # Then how the core was compiled: `make dev` builds it plainly, the wheel profile-guided.
    assert result.code == 0 and re.fullmatch(rf"qdsim {re.escape(version('qdsim'))} \(core: release(, profile-guided)? build\)", result.stdout.strip()), result.stdout


def test_quiet_leaves_stderr_to_errors_and_verbose_adds_the_traceback(qdsim, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(SWEPT)
    loud = qdsim("run", spec, "--out", tmp_path / "loud")
    assert "note: running the file's own values once" in loud.stderr
    quiet = qdsim("-q", "run", spec, "--out", tmp_path / "quiet")
    assert quiet.code == 0 and quiet.stderr == "" and "flow groups" in quiet.stdout
    bad = ["run", spec, "--set", "topology.qdisc.limit=-1"]
    assert qdsim(*bad).stderr.count("\n") == 1
    verbose = qdsim("-v", *bad)
    assert verbose.code == 2 and "Traceback" in verbose.stderr and verbose.stderr.rstrip().splitlines()[-1].startswith("error: topology.qdisc.limit")
    assert qdsim("-q", "-v", "list").code == 2  # one or the other


def test_the_run_tables_fit_80_columns_with_units_in_the_headers(tmp_path):
    (tmp_path / "s.toml").write_text(SHORT)
    (tmp_path / "w.toml").write_text(SWEPT)
    result = qdsim_at_80(tmp_path, "run", "s.toml", "--out", "r[1]")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert _widest(out) <= 80, out
    for header in ("(Mb/s)", "fair share", "(ms)", "(pkts)", "time-", "retrans-"):
        assert header in out
    assert "xfair" not in out and "…" not in out  # nothing cryptic, nothing cut
    assert "results written to r[1]/" in out  # brackets are text, not rich markup


def test_list_is_one_block_per_algorithm_at_80_columns(tmp_path):
    result = qdsim_at_80(tmp_path, "list")
    assert result.returncode == 0
    out = result.stdout
    assert _widest(out) <= 80
    assert "[size_min, size_max]" in out  # was eaten as rich markup
    for name in ("fifo", "fq_codel", "newreno", "tcp", "udp_cbr", "short_flows"):
        assert any(line.startswith(f"{name}: ") for line in out.splitlines()), name
    assert "  memory_limit (bytes, default 32MiB):" in out


def test_list_name_shows_one_entry_and_a_wrong_name_lists_the_names(tmp_path):
    one = qdsim_at_80(tmp_path, "list", "fq_codel").stdout
    assert one.startswith("fq_codel: ") and "codel: " not in one.replace("fq_codel: ", "") and "==" not in one
    assert json.loads(qdsim_at_80(tmp_path, "list", "red", "--json").stdout)["name"] == "red"
    assert "ns2-sack1" in qdsim_at_80(tmp_path, "list", "tcp-profiles").stdout
    wrong = qdsim_at_80(tmp_path, "list", "fq-codel")
    assert wrong.returncode == 2 and wrong.stderr.startswith('error: NAME: "fq-codel" is not allowed; a name `qdsim list` shows (fifo, ') and "fq_codel" in wrong.stderr


def test_list_puts_packet_size_where_the_file_does(tmp_path):
    tcp = qdsim_at_80(tmp_path, "list", "tcp").stdout
    assert "  tcp.packet_size (bytes, default 1500B):" in tcp and "  packet_size (" not in tcp
    assert "  packet_size (bytes, default 1500B):" in qdsim_at_80(tmp_path, "list", "udp_cbr").stdout
    # ... and the file takes it there, and only there.
    path = tmp_path / "p.toml"
    path.write_text(SHORT.replace('cc = "reno"', 'cc = "reno"\ntcp = { packet_size = "1000B" }'))
    load(path)
    path.write_text(SHORT.replace('cc = "reno"', 'cc = "reno"\npacket_size = "1000B"'))
    with pytest.raises(SpecError, match=r"flows\.1\.packet_size"):
        load(path)


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory):
    from qdsim.run.sweep import run_sweep

    root = tmp_path_factory.mktemp("compare")
    spec = root / "s.toml"
    spec.write_text(SWEPT)
    raw, _ = load(spec)
    run_sweep(raw, root / "a", jobs=1)
    faster, _ = load(spec, ["topology.bottleneck_rate=12Mbps"])
    run_sweep(faster, root / "b", jobs=1)
    return root


def test_compare_joins_two_sweeps_on_their_swept_keys(two_sweeps):
    result = qdsim_at_80(two_sweeps, "compare", "a", "b", "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["kind"] == "sweep" and data["keys"] == ["topology.qdisc.limit"] and data["only_a"] == data["only_b"] == []
    found = {(d["table"], json.dumps(d["row"]), d["metric"]): d for d in data["differences"]}
    points = {name: store.read_rows(two_sweeps / name, "points") for name in "ab"}
    for limit in ("10pkt", "40pkt"):
        a, b = ([p["bottleneck_utilization"] for p in points[n] if p["topology.qdisc.limit"] == limit] for n in "ab")
        d = found[("points", json.dumps({"topology.qdisc.limit": limit}), "bottleneck_utilization")]
        assert (d["a"], d["b"]) == (pytest.approx(sum(a) / 2), pytest.approx(sum(b) / 2))
        assert d["diff"] == pytest.approx(d["b"] - d["a"]) and d["ci95"] == pytest.approx(welch_ci(a, b))
        assert found[("points", json.dumps({"topology.qdisc.limit": limit}), "fair_share_bps")]["diff"] == pytest.approx(0.5e6)
    assert ("groups", json.dumps({"topology.qdisc.limit": "40pkt", "group": "far"}), "goodput_bps") in found
    assert not any(d["metric"] in ("seed", "rep", "wall_s") for d in data["differences"])
    text = qdsim_at_80(two_sweeps, "compare", "a", "b").stdout
    assert _widest(text) <= 80, text
    assert "points: topology.qdisc.limit=10pkt" in text and "fair_share_bps" in text and "+20.0 %" in text
    same = qdsim_at_80(two_sweeps, "compare", "a", "a").stdout
    assert same.rstrip().endswith("compared values are equal")


def test_compare_refuses_what_cannot_be_joined(two_sweeps, tmp_path):
    from qdsim.run.sweep import run_sweep

    raw, _ = load(two_sweeps / "s.toml", ['sweep={"flows.0.count"=[1, 2]}'])
    run_sweep(raw, tmp_path / "other", jobs=1)
    other = qdsim_at_80(two_sweeps, "compare", "a", tmp_path / "other")
    assert other.returncode == 2 and "a sweep over the keys A sweeps (topology.qdisc.limit; B sweeps flows.0.count)" in other.stderr
    assert qdsim_at_80(two_sweeps, "compare", "a", "nowhere").stderr.startswith('error: B: "nowhere" is not allowed; a results directory')
    assert "--metrics" in qdsim_at_80(two_sweeps, "compare", "a", "b", "--metrics", "goodput").stderr
    only = json.loads(qdsim_at_80(two_sweeps, "compare", "a", "b", "--metrics", "jain_index", "--json").stdout)
    assert {d["metric"] for d in only["differences"]} == {"jain_index"}


def test_compare_two_runs(tmp_path):
    (tmp_path / "s.toml").write_text(SHORT)
    (tmp_path / "w.toml").write_text(SWEPT)
    for out, sets in (("x", []), ("y", ["--set", "topology.qdisc.limit=20pkt"])):
        assert qdsim_at_80(tmp_path, "-q", "run", "s.toml", "--out", out, *sets).returncode == 0
    text = qdsim_at_80(tmp_path, "compare", "x", "y").stdout
    assert "points: (the run)" in text and "groups: group=near" in text and "links: name=bottleneck" in text
    assert "±" not in text  # one run each: no interval
    data = json.loads(qdsim_at_80(tmp_path, "compare", "x", "y", "--json").stdout)
    drops = next(d for d in data["differences"] if d["table"] == "links" and d["metric"] == "drops")
    assert drops["row"] == {"name": "bottleneck"}
    assert drops["a"] == next(link["drops"] for link in store.read_rows(tmp_path / "x", "links") if link["name"] == "bottleneck")


def test_an_experiment_file_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + SHORT.encode())
    _, spec = load(path)
    assert spec.experiment.name == "small"


def test_a_star_s_access_rate_error_shows_the_rate_as_written(tmp_path):
    path = tmp_path / "star.toml"
    path.write_text(
        """
[experiment]
name = "s"
duration = "50ms"
[topology]
kind = "star"
rate = "1Gbps"
delay = "75us"
bottleneck = "b"
qdisc = { kind = "fifo", limit = "100pkt" }
[[flows]]
group = "g"
src = "a"
dst = "b"
access_rate = "1Gbps"
"""
    )
    from qdsim.experiment.resolve import resolve

    _, spec = load(path)
    with pytest.raises(SpecError) as error:
        resolve(spec)
    assert str(error.value).startswith('flows.0.access_rate: "1Gbps" is not allowed; no value: in a star')


@pytest.mark.parametrize(
    ("qdisc", "message"),
    [
        ('{kind="red", min_th=20, max_th=60, limit="10pkt"}', 'topology.qdisc.limit: "10pkt" is not allowed; at least min_th (20 packets)'),
        ('{kind="red", min_th=20, max_th=60, mean_pktsize="500B", limit="9000B"}', 'topology.qdisc.limit: "9000B" is not allowed; at least min_th × mean_pktsize'),
        ('{kind="ared", min_th=25, max_th=51, limit="20pkt"}', "topology.qdisc.limit"),
    ],
)
def test_red_with_a_limit_below_min_th_is_an_error_naming_both(tmp_path, qdisc, message):
    path = tmp_path / "red.toml"
    path.write_text(SHORT)
    from qdsim.experiment.resolve import resolve

    _, spec = load(path, [f"topology.qdisc={qdisc}"])
    with pytest.raises(SpecError) as error:
        resolve(spec)
    assert message in str(error.value) and "min_th" in str(error.value)


def test_results_list_show_and_reproduce_list_keep_to_80_columns(tmp_path):
    # A results directory nested deep enough that its path alone takes most of a line, a
    # sweep's table-valued axis, and the figure list: each fits 80 columns piped to a file.
    spec = tmp_path / "small.toml"
    spec.write_text(SMALL_SPEC + '\n[sweep]\n"topology.qdisc" = [{kind = "fifo", limit = "20pkt"}, {kind = "codel", target = "5ms", interval = "100ms"}]\n')
    out = tmp_path / "results" / ("a-directory-named-at-length-" * 2) / "sweep"
    assert qdsim_at_80(tmp_path, "sweep", spec, "--out", out, "--jobs", "1").returncode == 0
    listed = qdsim_at_80(tmp_path, "results", "list").stdout
    shown = qdsim_at_80(tmp_path, "results", "show", out).stdout
    figures = qdsim_at_80(tmp_path, "reproduce", "--list").stdout
    for text in (listed, shown, figures):
        assert _widest(text) <= 80, text
    assert str(out.relative_to(tmp_path)) in listed and "sweep" in listed.splitlines()[2]
    assert "fifo, codel" in shown and "  runs" in shown
    assert "fig11.toml" in figures and "(files under experiments/<paper>/)" in figures


def test_a_run_over_many_busy_links_lists_the_bottleneck_the_dropping_and_the_busiest_few():
    import io

    from rich.console import Console

    from qdsim.cli.report import print_run

    def link(name, utilization, drops=0):
        return {"name": name, "qdisc": "fifo", "utilization": utilization, "drops": drops, "tx_pkts": 10, "arrivals": 10, "mean_queue_pkts": 0.0, "mean_delay_s": 0.0, "p95_delay_s": 0.0}

    links = [link("bottleneck", 0.9), link("lossy1", 0.02, drops=3), link("lossy2", 0.5, drops=1)] + [link(f"access{i}", 0.1 + i / 100) for i in range(30)]
    summary = {"seed": 1, "warmup_s": 0, "duration_s": 1, "jain_index": 1.0, "events": 1, "wall_s": 0.1, "groups": [], "links": links, "bottleneck": "bottleneck"}
    out = io.StringIO()
    print_run("many", summary, Path("out"), Console(file=out, width=80))
    text = out.getvalue()
    assert _widest(text) <= 80, text
    listed = [name for name in ("bottleneck", "lossy1", "lossy2", *(f"access{i}" for i in range(30))) if f" {name} " in text]
    assert listed == ["bottleneck", "lossy1", "lossy2", *(f"access{i}" for i in range(22, 30))], listed
    assert "22 more links carried traffic (at most 31.0% utilised, no drops): links.parquet" in text
