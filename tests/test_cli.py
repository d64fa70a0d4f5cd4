"""`qdsim run`, `qdsim list`: the JSON summary, the files written, the catalog."""

import json

import pyarrow.parquet as pq
import pytest

from qdsim.results import store
from qdsim.results.store import connect


def test_run_json_has_the_promised_keys(qdsim, small_spec, tmp_path):
    result = qdsim("run", small_spec, "--json", "--out", tmp_path / "out")
    assert result.code == 0, result.stderr
    summary = result.json()
    for key in ("jain_index", "flows", "links", "groups", "events", "wall_s"):
        assert key in summary
    assert len(summary["flows"]) == 4
    for flow in summary["flows"]:
        assert {"id", "group", "goodput_bps", "retransmits", "timeouts", "fct_s", "start_s"} <= flow.keys()
    for link in summary["links"]:
        assert {"name", "utilization", "drops", "mean_queue_pkts", "mean_delay_s"} <= link.keys()
    assert summary["events"] > 0 and summary["wall_s"] > 0
    assert 0 < summary["jain_index"] <= 1
    bottleneck = next(link for link in summary["links"] if link["name"] == "bottleneck")
    assert bottleneck["utilization"] > 0.5


def test_summary_json_leaves_the_flows_and_links_to_their_tables(qdsim, small_spec, tmp_path):
    out = tmp_path / "out"
    printed = qdsim("run", small_spec, "--json", "--out", out).json()
    written = json.loads((out / "summary.json").read_text())
    assert written.pop("qdsim_version")
    assert written == {key: value for key, value in printed.items() if key not in ("flows", "links")}
    # The tables hold every row --json prints, every value equal.
    flows = store.read_rows(out, "flows")
    assert [{key: row[key] for key in flow} for row, flow in zip(flows, printed["flows"], strict=True)] == printed["flows"]
    links = store.read_rows(out, "links")
    assert len(links) == len(printed["links"]) > 0
    for row, link in zip(links, printed["links"], strict=True):
        by_reason = {f"{what}_{reason}": count for what in ("drops", "marks") for reason, count in link[f"{what}_by_reason"].items()}
        plain = {key: value for key, value in link.items() if not key.endswith("_by_reason")}
        assert {key: row[key] for key in [*plain, *by_reason]} == plain | by_reason


def test_run_writes_parquet_and_provenance(qdsim, small_spec, tmp_path):
    out = tmp_path / "out"
    result = qdsim("run", small_spec, "--out", out, "--set", "sampling.queues=true")
    assert result.code == 0, result.stderr
    assert "flow groups" in result.stdout and "bottleneck" in result.stdout
    for name in ("flows", "groups", "links", "points", "series_queue"):
        assert pq.read_table(out / f"{name}.parquet").num_rows > 0
    assert pq.read_table(out / "flows.parquet").num_rows == 4
    assert json.loads((out / "config.json").read_text())["seed"] == 3
    assert json.loads((out / "spec.json").read_text())["sampling"] == {"queues": True}
    groups = dict(connect(out).execute('select "group", flows from groups order by 1').fetchall())
    assert groups == {"far": 2, "near": 2}


def test_run_default_out_dir_is_results_name_run(qdsim, small_spec, tmp_path):
    result = qdsim("run", small_spec, "--json")
    assert result.code == 0 and "results/small-run/" in result.stderr
    assert (tmp_path / "results" / "small-run" / "flows.parquet").exists()


def test_finite_transfers_record_fct(qdsim, small_spec, tmp_path):
    result = qdsim("run", small_spec, "--json", "--out", tmp_path / "o", "--set", "flows.0.size=50KB", "--set", "flows.0.start_window=0s")
    flows = [f for f in result.json()["flows"] if f["group"] == "near"]
    assert all(f["fct_s"] is not None and 0 < f["fct_s"] < 2 for f in flows)


def test_list_shows_qdiscs_and_congestion_controls(qdsim):
    result = qdsim("list")
    assert result.code == 0, result.stderr
    assert "fifo" in result.stdout and "newreno" in result.stdout and "limit" in result.stdout
    catalog = qdsim("list", "--json").json()
    assert "fifo" in [q["name"] for q in catalog["qdiscs"]]


def test_run_says_that_it_does_not_run_the_sweep(qdsim, small_spec, write_spec):
    plain = qdsim("run", small_spec, "--json")
    assert plain.code == 0 and "note:" not in plain.stderr
    swept_spec = write_spec(small_spec.read_text() + '\n[sweep]\nrepetitions = 3\n"flows.0.count" = [1, 2]\n')
    swept = qdsim("run", swept_spec, "--json")
    assert swept.code == 0, swept.stderr
    assert "2 point(s) x 3 repetition(s)" in swept.stderr and "qdsim sweep" in swept.stderr
    assert swept.json() == plain.json() | {"wall_s": swept.json()["wall_s"]}  # the file's own values, once


def test_reproduce_without_a_sweep_refuses_before_running(qdsim, small_spec, tmp_path):
    result = qdsim("reproduce", small_spec, "--out", tmp_path / "out")
    assert result.code == 2 and result.stderr.startswith("error: sweep:"), result.stderr
    assert not (tmp_path / "out").exists()


def test_unfinished_transfers_are_counted_until_the_end_and_named(qdsim, small_spec):
    # 2 MB transfers over 10 Mb/s shared by four flows cannot finish within 2 s.
    result = qdsim("run", small_spec, "--set", "flows.0.size=2MB", "--set", "experiment.warmup=0s", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    near = [f for f in summary["flows"] if f["group"] == "near"]
    assert all(f["finished"] is False for f in near)
    for f in near:
        assert f["fct_s"] == pytest.approx(summary["duration_s"] - f["start_s"]), "censored at the end of the run"
    group = next(g for g in summary["groups"] if g["group"] == "near")
    assert (group["transfers_completed"], group["unfinished_transfers"]) == (0, 2)
    assert group["mean_fct_s"] == pytest.approx(sum(f["fct_s"] for f in near) / 2), "no transfer is left out of the mean"
    saturated = [f for f in summary["flows"] if f["group"] == "far"]
    assert all(f["fct_s"] is None and f["finished"] is None for f in saturated)


def test_counters_cover_the_window_and_totals_the_whole_run(qdsim, small_spec):
    summary = qdsim("run", small_spec, "--json").json()
    for f in summary["flows"]:
        for counter in ("drops", "retransmits", "fast_retransmits", "timeouts"):
            assert f[f"{counter}_total"] >= f[counter]
    assert sum(f["drops_total"] for f in summary["flows"]) > sum(f["drops"] for f in summary["flows"]), "slow-start losses are before the window"
    # A flow's window drops are its data packets lost on any link in the window: here only
    # the bottleneck drops.
    assert sum(f["drops"] for f in summary["flows"]) == sum(link["drops"] for link in summary["links"])
    for g in summary["groups"]:
        members = [f for f in summary["flows"] if f["group"] == g["group"]]
        assert g["drops_total"] == sum(f["drops_total"] for f in members)
