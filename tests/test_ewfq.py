"""EWFQ from an experiment file: its keys reach the core, bad values are named by the file's
key, and its internals are recorded as the ``series_qdisc`` table."""

import pyarrow.parquet as pq
import pytest

from qdsim.errors import SpecError
from qdsim.experiment import spec
from qdsim.experiment.resolve import resolve

SPEC = """
[experiment]
name = "ewfq"
duration = "8s"
warmup = "2s"
seed = 1

[topology]
kind = "dumbbell"
bottleneck_rate = "5Mbps"
bottleneck_delay = "1ms"
access_rate = "10Mbps"
qdisc = { kind = "wfq", buffer = "ewfq", limit = "30KB", ewfq_rtt_o = "300ms", weights = [2, 1], ewfq_responsive = [true, false], ewfq_tcp_flows = [1, 1] }

[[flows]]
group = "tcp"
access_delay = "10ms"

[[flows]]
group = "udp"
kind = "udp_cbr"
rate = "5Mbps"
access_delay = "10ms"

[sampling]
interval = "100ms"
qdisc = true
"""


def load(path, *overrides):
    return resolve(spec.load(path, list(overrides))[1])


def bottleneck_qdisc(config):
    return next(link["qdisc"] for link in config["links"] if link["name"] == "bottleneck")


def test_ewfq_keys_reach_the_core_by_the_unit_contract(write_spec):
    config = load(write_spec(SPEC))
    q = bottleneck_qdisc(config)
    assert q == {
        "kind": "wfq",
        "buffer": "ewfq",
        "limit_bytes": 30_000,
        "ewfq_rtt_o_ns": 300_000_000,
        "weights": [2, 1],
        "ewfq_responsive": [True, False],
        "ewfq_tcp_flows": [1, 1],
    }
    assert config["sampling"]["qdisc"] is True


@pytest.mark.parametrize(
    ("override", "key", "hint"),
    [
        ("topology.qdisc.ewfq_alpha=0", "topology.qdisc.ewfq_alpha", "a finite gain > 0"),
        ("topology.qdisc.ewfq_alpha=-0.5", "topology.qdisc.ewfq_alpha", "a finite gain > 0"),
        ("topology.qdisc.ewfq_beta=0.5", "topology.qdisc.ewfq_beta", "greater than ewfq_alpha"),
        ("topology.qdisc.ewfq_beta=0", "topology.qdisc.ewfq_beta", "greater than ewfq_alpha"),
        ("topology.qdisc.ewfq_k=0", "topology.qdisc.ewfq_k", "match-hit stages"),
        ("topology.qdisc.ewfq_p_c=0", "topology.qdisc.ewfq_p_c", "(0, 1]"),
        ("topology.qdisc.ewfq_p_c=1.5", "topology.qdisc.ewfq_p_c", "(0, 1]"),
        ("topology.qdisc.ewfq_f_s=0", "topology.qdisc.ewfq_f_s", "frequency"),
        ("topology.qdisc.ewfq_t_i=1ms", "topology.qdisc.ewfq_t_i", "1/f_s"),
        ("topology.qdisc.ewfq_window=0s", "topology.qdisc.ewfq_window", "or auto"),
        ("topology.qdisc.ewfq_ceiling=fair", "topology.qdisc.ewfq_ceiling", "link or fair_share"),
        ("topology.qdisc.weights=[2,0]", "topology.qdisc.weights[1]", "at least 1"),
        ("topology.qdisc.ewfq_tcp_flows=[0]", "topology.qdisc.ewfq_tcp_flows[0]", "at least 1"),
        ("topology.qdisc.ewfq_responsive=[1,0]", "topology.qdisc.ewfq_responsive", "true/false"),
        ("topology.qdisc.limit=20pkt", "topology.qdisc.limit", "in bytes"),
        ("topology.qdisc.ewfq_p_miss=1", "topology.qdisc.ewfq_p_miss", "(0, 1)"),
    ],
)
def test_bad_ewfq_values_name_the_key_the_value_and_what_is_allowed(write_spec, override, key, hint):
    with pytest.raises(SpecError) as info:
        load(write_spec(SPEC), override)
    assert info.value.key == key
    assert hint in info.value.allowed, info.value.allowed
    assert "\n" not in str(info.value)


def test_afd_s_own_gains_a_window_and_the_fair_share_ceiling_are_accepted(write_spec):
    # AFD's alpha = 1.7, beta = 1.8 (beta > alpha is the condition, not alpha < 1).
    overrides = ("topology.qdisc.ewfq_alpha=1.7", "topology.qdisc.ewfq_beta=1.8", "topology.qdisc.ewfq_window=100ms", "topology.qdisc.ewfq_ceiling=fair_share")
    q = bottleneck_qdisc(load(write_spec(SPEC), *overrides))
    assert (q["ewfq_alpha"], q["ewfq_beta"], q["ewfq_window_ns"], q["ewfq_ceiling"]) == (1.7, 1.8, 100_000_000, "fair_share")


def test_a_missing_rtt_o_is_named(write_spec):
    text = SPEC.replace(' ewfq_rtt_o = "300ms",', "")
    with pytest.raises(SpecError) as info:
        load(write_spec(text))
    assert info.value.key == "topology.qdisc.ewfq_rtt_o"
    assert "required by buffer = ewfq" in info.value.allowed


def test_every_multi_queue_kind_takes_the_ewfq_buffer(write_spec):
    for kind in ("wfq", "drr", "fifo_classes", "wf2q_plus", "drr_lds"):
        assert bottleneck_qdisc(load(write_spec(SPEC), f"topology.qdisc.kind={kind}"))["kind"] == kind


def test_internals_are_stored_as_series_qdisc(qdsim, write_spec, tmp_path):
    out = tmp_path / "res"
    result = qdsim("run", write_spec(SPEC), "--out", out, "--json")
    assert result.code == 0, result.stderr
    table = pq.read_table(out / "series_qdisc.parquet").to_pydict()
    assert set(table["link_name"]) == {"bottleneck"}
    assert {"m_fair", "p", "holding", "window", "m_i", "m_i_last", "gamma_i", "d_i"} <= set(table["var"])
    m_fair = [v for v, var in zip(table["value"], table["var"], strict=True) if var == "m_fair"]
    assert len(m_fair) == 80, "every 100 ms of 8 s"
    assert all(1500 <= v <= 5e6 / 8 for v in m_fair), "within [floor, link rate × t_i]"
    classes = {c for c, var in zip(table["class"], table["var"], strict=True) if var == "d_i"}
    assert classes == {0, 1}
    assert {c for c, var in zip(table["class"], table["var"], strict=True) if var == "m_fair"} == {-1}
    drops = result.json()["links"]
    bottleneck = next(link for link in drops if link["name"] == "bottleneck")
    assert bottleneck["drops_by_reason"].get("differential", 0) > 0, bottleneck["drops_by_reason"]


def test_run_and_a_one_point_sweep_write_the_same_qdisc_series(qdsim, write_spec, tmp_path):
    # The run gets the series as binary columns (names as NumPy unicode), the sweep through
    # its stored JSON points: one schema, the same rows (the sweep's one seed is the run's).
    path = write_spec(SPEC)
    assert qdsim("run", path, "--out", tmp_path / "run").code == 0
    assert qdsim("sweep", path, "--out", tmp_path / "sweep", "--jobs", "1", "--set", "sweep.seeds=[1]").code == 0
    ran = pq.read_table(tmp_path / "run" / "series_qdisc.parquet")
    swept = pq.read_table(tmp_path / "sweep" / "series_qdisc.parquet")
    swept = swept.select([c for c in swept.column_names if c in ran.column_names])
    assert ran.num_rows > 0 and ran.schema == swept.schema and ran.equals(swept)
