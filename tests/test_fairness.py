"""Two NewReno flows with equal RTTs over a FIFO share the bottleneck fairly."""

from conftest import SMALL_SPEC


def test_two_equal_rtt_flows_reach_jain_095_over_60s(qdsim, write_spec, tmp_path):
    text = (
        SMALL_SPEC.replace('duration = "2s"', 'duration = "60s"')
        .replace('warmup = "0.5s"', 'warmup = "5s"')
        .replace('cc = "reno"\n', "")
        .replace("count = 2", 'cc = "newreno"\ncount = 2')
        .replace('access_delay = "20ms"', 'access_delay = "5ms"')
        .replace("count = 2", "count = 1")
    )
    result = qdsim("run", write_spec(text), "--json", "--out", tmp_path / "o")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert len(summary["flows"]) == 2
    assert summary["jain_index"] >= 0.95
    assert summary["bottleneck_utilization"] > 0.9
