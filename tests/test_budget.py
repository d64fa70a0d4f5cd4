"""A run that would exhaust memory stops at its budget with one line naming what grew."""

import time

import pytest

from qdsim.run.one import MEMORY_SHARE, default_memory_limit, physical_memory

FLOOD = """
[experiment]
name = "flood"
duration = "60s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo" }

[[flows]]
group = "flood"
kind = "udp_cbr"
rate = "1Tbps"
"""

FINE_SAMPLING = """
[experiment]
name = "fine"
duration = "60s"

[topology]
kind = "dumbbell"
bottleneck_rate = "10Mbps"
bottleneck_delay = "5ms"
qdisc = { kind = "fifo", limit = "100pkt" }

[[flows]]
group = "bulk"
count = 2

[sampling]
interval = "1ns"
queues = true
"""


def _one_line_error(result):
    assert result.code == 2, (result.code, result.stderr)
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr, result.stderr
    return result.stderr


def test_a_terabit_source_into_an_unlimited_fifo_stops_at_the_budget(qdsim, write_spec):
    started = time.monotonic()
    error = _one_line_error(qdsim("run", write_spec(FLOOD), "--memory-limit", "50MB"))
    assert time.monotonic() - started < 30
    assert error.startswith("error: memory budget: the run held 5")
    assert "over its budget of 50.0 MB; most of it packets queued or propagating on links (" in error
    assert "link flood.s0->r1 holds" in error and "--memory-limit" in error


def test_a_nanosecond_sampling_interval_stops_at_the_budget(qdsim, write_spec):
    error = _one_line_error(qdsim("run", write_spec(FINE_SAMPLING), "--memory-limit", "20MB"))
    assert "most of it sampled series rows (" in error and "every 1 ns of sampling.interval" in error


def test_a_sweep_point_over_the_budget_stops_the_sweep_with_the_same_line(qdsim, write_spec, tmp_path):
    spec = write_spec(FLOOD + '\n[sweep]\n"flows.0.rate" = ["1Mbps", "1Tbps"]\n')
    error = _one_line_error(qdsim("sweep", spec, "--memory-limit", "50MB", "--jobs", "1", "--out", tmp_path / "s", "--set", "experiment.duration=1s"))
    assert "packets queued or propagating on links" in error
    assert qdsim("results", "show", tmp_path / "s", "--json").json()["runs"] == 1, "the run that finished is kept"


@pytest.mark.parametrize(("value", "allowed"), [("lots", "a size such as"), ("10", "at least 1MB"), ("0.5kB", "at least 1MB")])
def test_a_bad_memory_limit_is_one_line(qdsim, write_spec, value, allowed):
    error = _one_line_error(qdsim("run", write_spec(FLOOD), "--memory-limit", value))
    assert error.startswith(f'error: --memory-limit: "{value}" is not allowed; {allowed}'), error


def test_the_default_budget_is_a_share_of_physical_memory_split_between_runs():
    memory = physical_memory()
    assert memory is not None and memory > 10**8
    assert default_memory_limit() == int(memory * MEMORY_SHARE)
    assert default_memory_limit(4) == int(memory * MEMORY_SHARE) // 4


def test_a_network_too_large_for_the_budget_is_refused_before_it_is_built(qdsim, small_spec, tmp_path):
    # 20 000 flows, 80 004 links: about 470 MiB of set-up against 100 MB, refused at once
    # (building it alone took seconds and most of that memory), no table written.
    out = tmp_path / "big"
    started = time.monotonic()
    error = _one_line_error(qdsim("run", small_spec, "--set", "flows.0.count=20000", "--memory-limit", "100MB", "--out", out))
    assert time.monotonic() - started < 20
    assert error.startswith("error: memory budget: the network needs about 4") and "refused before it was built" in error
    assert "80.0 k links for 20.0 k flows" in error and not (out / "flows.parquet").exists()
