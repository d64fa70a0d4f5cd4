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
    # The log covers the whole run, as the counters' totals do.
    assert events["kind"].count("timeout") == sum(f["timeouts_total"] for f in flows)
    assert events["kind"].count("retransmit") == sum(f["retransmits_total"] for f in flows)
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
    from qdsim.plot.labels import UNLIMITED_SSTHRESH

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


def test_run_and_a_one_point_sweep_write_the_same_series(qdsim, write_spec, tmp_path):
    # `qdsim run` writes its tables directly, a sweep through its stored runs: both must give
    # the same tables, types included. The run takes the seed the sweep derives for its one
    # repetition (the hosts' processing delays draw on it).
    from qdsim._core import stream_seed
    from qdsim.experiment.spec import load

    spec = write_spec(SPEC)
    rep_seed = stream_seed(load(spec)[1].experiment.seed, "repetition", 0)
    assert qdsim("run", spec, "--out", tmp_path / "run", "--seed", str(rep_seed)).code == 0
    assert qdsim("sweep", spec, "--out", tmp_path / "sweep", "--jobs", "1").code == 0
    for name in ("series_queue", "series_tcp", "series_tcp_events"):
        ran = pq.read_table(tmp_path / "run" / f"{name}.parquet").drop(["seed"])
        swept = pq.read_table(tmp_path / "sweep" / f"{name}.parquet")
        swept = swept.select([c for c in swept.column_names if c in ran.column_names])
        assert ran.num_rows > 0 and ran.schema == swept.schema and ran.equals(swept), name


def test_series_columns_come_as_numpy_arrays_of_the_core_types(small_spec):
    import numpy as np

    from qdsim.experiment.resolve import resolve
    from qdsim.experiment.spec import load
    from qdsim.run.one import run_config, series_as_lists

    _, parsed = load(small_spec, ["sampling.tcp=true", "sampling.queues=true"])
    results = run_config(resolve(parsed)).results
    tcp, queue = results["series"]["tcp"], results["series"]["queue"]
    assert tcp["cwnd"].dtype == np.uint32 and tcp["srtt_s"].dtype == np.float64 and tcp["in_timeout"].dtype == np.bool_
    assert queue["pkts"].dtype == np.uint64 and queue["link"].dtype == np.uint32
    assert len({len(c) for c in tcp.values()}) == 1 and len(tcp["t"]) > 0
    assert series_as_lists(results)["series"]["tcp"]["cwnd"] == tcp["cwnd"].tolist()


def test_every_aqm_reports_its_variables_in_series_qdisc(small_spec):
    # [sampling] qdisc = true: RED and ARED their average, count, p_b and max_p (ARED's
    # adapted), CoDel its state, PIE its probability, Blue p_m; a FIFO nothing.
    from qdsim.experiment import spec
    from qdsim.experiment.resolve import resolve
    from qdsim.results import tables
    from qdsim.run.one import run_config, summarize

    cases = {
        '{kind="ared", min_th=5, max_th=15, limit="50pkt"}': {"avg", "count", "p_b", "max_p"},
        '{kind="red", min_th=5, max_th=15, limit="50pkt"}': {"avg", "count", "p_b", "max_p"},
        '{kind="codel", limit="50pkt"}': {"dropping", "count", "lastcount"},
        '{kind="pie", limit="50pkt"}': {"drop_prob", "qdelay_old", "burst_allowance"},
        '{kind="blue", limit="50pkt"}': {"p_m"},
    }
    for qdisc, names in cases.items():
        _, parsed = spec.load(small_spec, [f"topology.qdisc={qdisc}", "sampling.qdisc=true", 'sampling.interval="50ms"'])
        outcome = run_config(resolve(parsed))
        series = tables.run_tables(summarize(outcome), outcome.results)["series_qdisc"].to_pydict()
        bottleneck = {v for v, link in zip(series["var"], series["link_name"], strict=True) if link == "bottleneck"}
        assert bottleneck == names, (qdisc, bottleneck)
        values = dict(zip(series["var"], series["value"], strict=True))  # each variable's last sample
        if "max_p" in names:
            assert 0 < values["max_p"] <= 1 and values["avg"] >= 0, values
    # ARED adapts max_p: with a queue held above the band it rises from 0.1 within 2 s.
    _, parsed = spec.load(small_spec, ['topology.qdisc={kind="ared", min_th=2, max_th=6, limit="50pkt"}', "sampling.qdisc=true"])
    outcome = run_config(resolve(parsed))
    series = tables.run_tables(summarize(outcome), outcome.results)["series_qdisc"].to_pydict()
    max_p = [v for v, var, link in zip(series["value"], series["var"], series["link_name"], strict=True) if var == "max_p" and link == "bottleneck"]
    assert max_p[0] == 0.1 and len(set(max_p)) > 1, max_p[:3]
