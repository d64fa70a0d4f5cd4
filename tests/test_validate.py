"""``qdsim validate`` and the ns-2 engine: the translation (no ns-2 needed), the measurement
protocol, the verdicts, and runs in real ns-2.35 (skipped, with the reason, where it is absent)."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

from conftest import SMALL_SPEC as _SMALL
from qdsim.engines import ENGINES, Unsupported, measure, run
from qdsim.engines.ns2 import ns2_drr_hash
from qdsim.errors import SpecError
from qdsim.experiment.resolve import resolve
from qdsim.experiment.spec import load
from qdsim.results.rows import rows_of
from qdsim.run.one import summarize
from qdsim.validation.validate import _verdict

#: The CLI tests' small dumbbell, every group with a congestion control ns-2 has.
SMALL_SPEC = _SMALL.replace('group = "near"', 'group = "near"\ncc = "newreno"')

NS2 = ENGINES["ns2"]
needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2.35 is not installed (`make engines`)")


def _config(text: str = SMALL_SPEC, sets: tuple[str, ...] = (), tmp: Path | None = None) -> dict:
    """Returns the resolved configuration of experiment-file text (written under ``tmp``)."""
    assert tmp is not None
    path = tmp / "spec.toml"
    path.write_text(text)
    _, spec = load(path, list(sets))
    return resolve(spec)


UDP_SPEC = """
[experiment]
name = "udp"
duration = "3s"
warmup = "1s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "20pkt" }
host_jitter = "0s"

[[flows]]
group = "cbr"
kind = "udp_cbr"
rate = "6Mbps"
packet_size = "1000B"
"""


# --- the translation -------------------------------------------------------------------------


def test_droptail_gets_one_more_place_than_qdsims_limit(tmp_path: Path) -> None:
    text = NS2.translate(_config(tmp=tmp_path), 1).text
    # ns-2's DropTail drops when length + 1 >= limit: a limit of 51 holds qdsim's 50.
    assert "$q set limit_ 51 ;# DropTail holds limit - 1" in text


def test_red_defaults_are_made_explicit_and_packet_mode(tmp_path: Path) -> None:
    spec = SMALL_SPEC.replace('qdisc = { kind = "fifo", limit = "50pkt" }', 'qdisc = { kind = "red", min_th = 5, max_th = 15, w_q = 0.002, limit = "50pkt" }')
    text = NS2.translate(_config(spec, tmp=tmp_path), 1).text
    # ns-2's RED counts bytes by default (bytes_, queue_in_bytes_ true since 2004).
    for line in ("$q set bytes_ false", "$q set queue_in_bytes_ false", "$q set thresh_ 5", "$q set maxthresh_ 15", "$q set q_weight_ 0.002", "$q set linterm_ 10.0", "$q set limit_ 50"):
        assert line in text


def test_what_ns2_lacks_is_refused_in_one_line_naming_the_key(tmp_path: Path) -> None:
    spec = SMALL_SPEC.replace('qdisc = { kind = "fifo", limit = "50pkt" }', 'qdisc = { kind = "codel" }')
    with pytest.raises(Unsupported) as err:
        NS2.translate(_config(spec, tmp=tmp_path), 1)
    assert err.value.key == "links.bottleneck.qdisc.kind" and err.value.value == "codel"
    assert "ns-2.35 has" in err.value.allowed and "\n" not in str(err.value)
    cubic = SMALL_SPEC.replace('cc = "reno"', 'cc = "cubic"')
    with pytest.raises(Unsupported, match=r"tcp\.cc: \"cubic\""):
        NS2.translate(_config(cubic, tmp=tmp_path), 1)


def test_each_stand_in_is_a_note_and_a_comment_of_the_script(tmp_path: Path) -> None:
    jittered = SMALL_SPEC.replace("[topology]", '[topology]\nhost_jitter = "10us"')
    script = NS2.translate(_config(jittered, tmp=tmp_path), 1)
    assert any(n.startswith("tcp.recovery: prr -> ns-2 Sack1's") for n in script.notes)
    assert any(n.startswith("host_jitter:") for n in script.notes)
    header = script.text.split("\n\n")[0]
    for note in script.notes:
        assert note.split(":")[0] in header
    # The ns2-sack1 profile is ns-2's own agent, send_one included (limited_transmit = "ns2"):
    # nothing stands in for it; RFC 3042's limited transmit does (singledup_ is send_one).
    exact = SMALL_SPEC.replace("[topology]", '[topology]\nhost_jitter = "0s"').replace('access_delay = "5ms"', 'access_delay = "5ms"\ntcp = { profile = "ns2-sack1" }')
    exact = exact.replace('cc = "reno"', 'cc = "newreno"\ntcp = { profile = "ns2-sack1" }')
    assert NS2.translate(_config(exact, tmp=tmp_path), 1).notes == ()
    rfc3042 = exact.replace('tcp = { profile = "ns2-sack1" }', 'tcp = { profile = "ns2-sack1", limited_transmit = "rfc3042" }')
    notes = NS2.translate(_config(rfc3042, tmp=tmp_path), 1).notes
    assert [note.split(":")[0] for note in notes] == ["tcp.limited_transmit"], notes


def test_ns2_drr_hash_is_drr_cc_with_c_integer_semantics() -> None:
    # queue/drr.cc: ((i + (i >> 8) + ~(i >> 4)) % ((2 << 23) - 1)) + 1, worked by hand.
    assert [ns2_drr_hash(i) for i in (0, 1, 15, 16, 17, 256)] == [0, 1, 15, 15, 16, 241]


def test_drr_with_longest_queue_drop_is_ns2s_drr_with_a_queue_per_source(tmp_path: Path) -> None:
    spec = SMALL_SPEC.replace('qdisc = { kind = "fifo", limit = "50pkt" }', 'qdisc = { kind = "drr", buffer = "ns2_lqd", limit = "30000B" }')
    script = NS2.translate(_config(spec, tmp=tmp_path), 1)
    assert "DRR ;# bottleneck: drr" in script.text and "$q set blimit_ 30000" in script.text
    with pytest.raises(Unsupported, match="buffer"):
        NS2.translate(_config(spec.replace("ns2_lqd", "dsdrr"), tmp=tmp_path), 1)


# --- the measurement protocol ----------------------------------------------------------------------


def test_protocol_counters_become_the_cores_window_and_run_figures(tmp_path: Path) -> None:
    config = _config(UDP_SPEC, tmp=tmp_path)
    text = "\n".join(
        [
            "flow 0 start 0.25",
            "snap warmup flow 0 delivered_bytes=1000",
            "snap end flow 0 delivered_bytes=3001000",
            *(f"snap warmup link {j} arrivals=10 tx_pkts=10 tx_bytes=10000 drops=0 drop_overflow=0 queue_pkt_s=1.0 queue_byte_s=1000 delay_sum_s=0.1 delay_n=10" for j in range(len(config["links"]))),
            *(
                f"snap end link {j} arrivals=110 tx_pkts=100 tx_bytes=100000 drops=10 drop_overflow=10 queue_pkt_s=5.0 queue_byte_s=5000 delay_sum_s=0.5 delay_n=100"
                for j in range(len(config["links"]))
            ),
            "end -",
        ]
    )
    assert measure.complete(text)
    results = measure.results(config, 1, measure.parse(text))
    flow, link = results["flows"][0], rows_of(results["links"])[0]
    assert flow["delivered_bytes"] == 3_000_000 and flow["goodput_bps"] == pytest.approx(3e6 * 8 / 2.0)
    assert flow["retransmits"] is None  # not reported: null, never a made-up 0
    assert link["arrivals"] == 100 and link["drops"] == 10 and link["loss_rate"] == pytest.approx(0.1)
    assert link["mean_queue_pkts"] == pytest.approx(4.0 / 2.0) and link["mean_delay_s"] == pytest.approx(0.4 / 90)
    assert link["utilization"] == pytest.approx(90_000 * 8 / (link["rate_bps"] * 2.0))
    assert link["drops_by_reason"] == {"overflow": 10}


def test_an_unfinished_transfer_is_censored_at_the_end_and_counted(tmp_path: Path) -> None:
    spec = SMALL_SPEC.replace('cc = "newreno"\ncount = 2', 'cc = "newreno"\ncount = 1\nsize = "100kB"')
    config = _config(spec, tmp=tmp_path)
    out = measure.parse("transfer 0 0 0.6 100000 -\nend -\n")
    results = measure.results(config, 1, out)
    near = next(g for g in results["groups"] if g["group"] == "near")
    assert near["unfinished_transfers"] == 1 and near["mean_fct_s"] == pytest.approx(2.0 - 0.6)
    assert results["flows"][0]["finished"] is False and results["flows"][0]["fct_s"] == pytest.approx(1.4)
    with pytest.raises(ValueError, match="line 1"):
        measure.parse("snap later flow 0 delivered_bytes=1\n")


# --- verdicts ------------------------------------------------------------------------------------------


def test_verdicts_hold_the_stated_tolerance_and_call_noise_unclear() -> None:
    assert _verdict("goodput_bps", [100.0, 101.0, 99.0], [95.0, 96.0, 94.0])[1] == "agree"  # 5 % < 10 %
    assert _verdict("goodput_bps", [130.0, 131.0, 129.0], [100.0, 101.0, 99.0])[1] == "disagree"
    assert _verdict("goodput_bps", [130.0, 60.0, 200.0], [100.0, 101.0, 99.0])[1] == "unclear"
    assert _verdict("jain_index", [0.90], [0.94])[1] == "agree"  # 0.05 absolute
    assert _verdict("timeouts", None, [1.0])[1] == "n/a"


# --- real ns-2 -----------------------------------------------------------------------------------------


@needs_ns2
def test_a_cbr_flow_below_the_rate_delivers_exactly_its_rate_in_ns2(tmp_path: Path) -> None:
    config = _config(UDP_SPEC, tmp=tmp_path)
    summary = summarize(run(NS2, config, 1, tmp_path / "ns2", "seed-1").outcome)
    # 6 Mb/s of 1000 B packets for 2 s: 1500 packets, 960 B each beyond qdsim's 40 B of headers.
    assert summary["flows"][0]["delivered_bytes"] == pytest.approx(1500 * 960, abs=960)
    bottleneck = next(link for link in summary["links"] if link["name"] == "bottleneck")
    assert bottleneck["drops"] == 0 and bottleneck["utilization"] == pytest.approx(0.6, abs=0.005)


@needs_ns2
def test_ns2_runs_are_deterministic_and_seeds_move_start_times(tmp_path: Path) -> None:
    config = _config(tmp=tmp_path)
    outs = [(tmp_path / str(seed)) for seed in (1, 1, 2)]
    for seed, out in zip((1, 1, 2), outs, strict=True):
        run(NS2, config, seed, out, "run")
    texts = [(out / "run.out").read_text() for out in outs]
    assert texts[0] == texts[1] and texts[0] != texts[2]


@needs_ns2
def test_a_finite_transfer_completes_after_its_transmission_and_an_rtt(tmp_path: Path) -> None:
    spec = UDP_SPEC.replace('kind = "udp_cbr"\nrate = "6Mbps"\npacket_size = "1000B"', 'size = "100kB"\ntcp = { profile = "ns2-sack1" }\naccess_delay = "10ms"')
    summary = summarize(run(NS2, _config(spec.replace('warmup = "1s"', 'warmup = "0s"'), tmp=tmp_path), 1, tmp_path / "ns2", "seed-1").outcome)
    flow = summary["flows"][0]
    rtt = 2 * (0.010 + 0.005)
    assert flow["finished"] and flow["fct_s"] > 100_000 * 8 / 10e6 + rtt


@needs_ns2
def test_validate_prints_80_columns_and_json_with_engine_and_rows(qdsim, write_spec, tmp_path: Path) -> None:
    spec = write_spec(SMALL_SPEC)
    table = qdsim("validate", spec, "--engine", "ns2", "--seeds", "2", "--jobs", "1")
    assert table.code == 0, table.stderr
    assert "verdict" in table.stdout and max(len(line) for line in table.stdout.splitlines()) <= 80
    out = qdsim("validate", spec, "--engine", "ns2", "--seeds", "2", "--json")
    assert out.code == 0, out.stderr
    doc = out.json()
    assert doc["engine"] == "ns2" and doc["rows"]
    for row in doc["rows"]:
        assert {"metric", "qdsim_mean", "reference_mean", "verdict"} <= set(row)
        assert row["verdict"] in ("agree", "disagree", "unclear", "n/a")
    # The second run reused every stored run on both sides.
    assert doc["speed"]["engine_runs_reused"] == 2
    # The engine's runs are a results directory like qdsim's: compare reads both.
    base = Path(doc["out"])
    cmp = qdsim("compare", base / "qdsim", base / "ns2", "--json")
    assert cmp.code == 0, cmp.stderr
    scripts = sorted((tmp_path / base / "ns2" / "scripts").glob("*.tcl"))
    assert len(scripts) == 2 and "Run it by hand with `ns <this file>`" in scripts[0].read_text()


def test_validate_refuses_bad_input_in_one_line(qdsim, write_spec) -> None:
    spec = write_spec(SMALL_SPEC)
    for args, key in (
        (("--engine", "omnet"), "--engine"),
        (("--seeds", "0"), "--seeds"),
        (("--quick",), "--quick"),
    ):
        out = qdsim("validate", spec, *args)
        assert out.code == 2 and out.stderr.count("\n") == 1 and key in out.stderr, (args, out.stderr)
    codel = write_spec(SMALL_SPEC.replace('qdisc = { kind = "fifo", limit = "50pkt" }', 'qdisc = { kind = "codel" }'))
    if shutil.which("ns"):
        out = qdsim("validate", codel, "--engine", "ns2")
        assert out.code == 2 and "links.bottleneck.qdisc.kind" in out.stderr and out.stderr.count("\n") == 1
    out = qdsim("validate")
    assert out.code == 2 and "SPEC" in out.stderr


def test_the_suites_laws_hold_the_formulas_they_name() -> None:
    from qdsim.validation.suite import LAWS

    by = {law.id: law for law in LAWS}
    # Mathis at p = 1 %: 1000 B / 0.1 s x sqrt(150) = 0.98 Mb/s.
    assert by["mathis-0.01"].predicted == pytest.approx(8e4 * math.sqrt(150))
    # M/M/1/K, rho = 0.9, K = 11: 4.37 %.
    assert by["mm1k"].predicted == pytest.approx(0.1 * 0.9**11 / (1 - 0.9**12))
    # Processor sharing, 500 kB at load 0.5 on 10 Mb/s: 520 020 B on the wire, rho 0.52002:
    # 8 x 520 020 / (1e7 x 0.47998) = 0.8667 s.
    assert by["ps"].predicted == pytest.approx(8 * 520_020 / (1e7 * (1 - 0.5 * 520_020 / 500_000)))
    assert by["ps"].predicted == pytest.approx(0.8667, abs=1e-4)
    assert by["mathis-newreno-0.02"].metric == ("groups", "newreno", "goodput_bps")
    assert json.dumps([law.id for law in LAWS])  # ids are plain strings for the page


class _Spinner:
    """An engine whose run never ends: a CPU loop (for the CPU limit)."""

    name, title = "spin", "spinner"

    def translate(self, config, seed):
        from qdsim.engines.base import Script

        return Script("spin", "while True:\n    pass\n", ".py")

    def command(self, path):
        import sys

        return [sys.executable, str(path)]


def test_an_engine_run_over_its_cpu_limit_fails_with_the_reason(tmp_path: Path, monkeypatch) -> None:
    from qdsim.engines import EngineError

    monkeypatch.setenv("QDSIM_ENGINE_CPU_LIMIT", "1")
    with pytest.raises(EngineError, match=r"spinner exceeded its CPU limit of 1 s on .*spin\.py \(QDSIM_ENGINE_CPU_LIMIT\)"):
        run(_Spinner(), {}, 1, tmp_path, "spin")
    monkeypatch.setenv("QDSIM_ENGINE_CPU_LIMIT", "soon")
    with pytest.raises(SpecError, match="QDSIM_ENGINE_CPU_LIMIT"):
        run(_Spinner(), {}, 1, tmp_path, "spin")


@needs_ns2
def test_a_failed_engine_run_is_left_out_and_said_the_others_compared(write_spec, tmp_path: Path, monkeypatch) -> None:
    # The engine crashes on its second seed: the validation compares the other two and says so.
    from qdsim.engines import EngineError
    from qdsim.engines import sweep as engine_sweep
    from qdsim.validation.validate import table_lines, validate

    real = engine_sweep.run

    def crashing(engine, config, seed, workdir, stem):
        if seed == 2:
            raise EngineError(f"{engine.title} failed on {workdir}/{stem} (exit -11): snap")
        return real(engine, config, seed, workdir, stem)

    monkeypatch.setattr(engine_sweep, "run", crashing)
    raw, _ = load(write_spec(SMALL_SPEC))
    result = validate(raw, tmp_path / "v", ["ns2"], seeds=3, jobs=1)
    (side,) = result.sides
    assert side.failed == [f"seed 2: ns-2.35 failed on {tmp_path / 'v' / 'ns2' / 'scripts'}/seed-2 (exit -11): snap"]
    assert side.rows and all(r.reference_mean is not None for r in side.rows if r.metric == "jain_index")
    assert "  ns-2.35 failed 1 run(s), left out of its means:" in table_lines(result)
    assert result.as_json()["failed"] == side.failed


def test_every_stated_cause_belongs_to_a_scenario_or_law_of_the_suite_and_an_engine() -> None:
    import fnmatch

    from qdsim.validation.suite import CAUSES, LAWS, SCENARIOS, cause

    ids = [s.id for s in SCENARIOS] + [law.id for law in LAWS]
    for (pattern, engine, _metric), text in CAUSES.items():
        assert any(fnmatch.fnmatchcase(i, pattern) for i in ids), pattern
        # qdsim's own side of a law too.
        assert (engine in ENGINES or engine == "qdsim") and text.strip(), (pattern, engine)
    # A metric with brackets is matched by the ? of its pattern; no cause is made up.
    assert cause("kantawala-droptail", "ns2", "groups.goodput_bps[rtt200]") is not None
    assert cause("kantawala-droptail", "ns3", "groups.goodput_bps[rtt200]") is None
    assert cause("ns3-dumbbell100", "ns3", "groups.retransmits[rtt40]") is not None
    assert cause("ns3-dumbbell100", "ns3", "groups.timeouts[rtt40]") is not None
    assert cause("quickstart-ns3", "ns3", "groups.timeouts[rtt30]") is None
    assert cause("mathis-newreno-0.02", "ns3", "goodput_bps") is not None and cause("mathis-0.01", "ns2", "goodput_bps") is None
    assert all(cause("ps", simulator, "mean_fct_s") is not None for simulator in ("qdsim", "ns2", "ns3"))
    assert cause("hstcp-0.0001", "ns3", "goodput_bps") is not None and cause("hstcp-0.0001", "ns2", "goodput_bps") is None


@needs_ns2
def test_a_run_over_the_cpu_limit_is_not_rerun_under_the_same_limit(write_spec, tmp_path: Path, monkeypatch) -> None:
    # The same script exceeds the same CPU limit again: the next validation says so without
    # spending the limit once more, and a higher limit runs it again.
    from qdsim.engines import EngineError
    from qdsim.engines import sweep as engine_sweep
    from qdsim.validation.validate import validate

    real, calls = engine_sweep.run, []

    def slow_on_seed_2(engine, config, seed, workdir, stem):
        calls.append(seed)
        if seed == 2:
            raise EngineError(f"{engine.title} exceeded its CPU limit of 900 s on {workdir}/{stem} (QDSIM_ENGINE_CPU_LIMIT)")
        return real(engine, config, seed, workdir, stem)

    monkeypatch.setattr(engine_sweep, "run", slow_on_seed_2)
    monkeypatch.setenv("QDSIM_ENGINE_CPU_LIMIT", "900")
    raw, _ = load(write_spec(SMALL_SPEC))
    validate(raw, tmp_path / "v", ["ns2"], seeds=3, jobs=1)
    assert sorted(calls) == [1, 2, 3]
    calls.clear()
    (side,) = validate(raw, tmp_path / "v", ["ns2"], seeds=3, jobs=1).sides
    assert calls == [] and len(side.failed) == 1
    assert side.failed[0].startswith("seed 2: ns-2.35 exceeded its CPU limit of 900 s") and "raise QDSIM_ENGINE_CPU_LIMIT above 900 s to retry" in side.failed[0]
    monkeypatch.setenv("QDSIM_ENGINE_CPU_LIMIT", "1800")
    validate(raw, tmp_path / "v", ["ns2"], seeds=3, jobs=1)
    assert calls == [2]
