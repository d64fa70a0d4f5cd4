"""Same seed ⇒ identical summary (but wall time); different seeds ⇒ different start times."""


def summary(qdsim, spec, tmp_path, *args):
    result = qdsim("run", spec, "--json", "--out", tmp_path / "o", *args)
    assert result.code == 0, result.stderr
    data = result.json()
    data.pop("wall_s")
    return data


def test_same_seed_gives_identical_results(qdsim, small_spec, tmp_path):
    assert summary(qdsim, small_spec, tmp_path) == summary(qdsim, small_spec, tmp_path)


def test_different_seeds_give_different_start_times(qdsim, small_spec, tmp_path):
    one = summary(qdsim, small_spec, tmp_path, "--seed", "1")
    two = summary(qdsim, small_spec, tmp_path, "--seed", "2")
    assert [f["start_s"] for f in one["flows"]] != [f["start_s"] for f in two["flows"]]
    assert all(0 <= f["start_s"] < 0.5 for f in one["flows"] + two["flows"])


def test_every_tcp_profile_and_recovery_gives_identical_results(qdsim, small_spec, tmp_path):
    # The options that change the sender's state machine: each profile (ns-2's clock phase is
    # drawn per connection from the seed), and each recovery with every RTO formula.
    variants = [f'flows.0.tcp={{profile="{p}", rwnd="1MB"}}' for p in ("linux", "ns3", "ns2-sack1", "linux-2.6", "rfc")]
    variants += [
        'flows.0.tcp={recovery="prr", prr_bound="ssrb", reduction_base="flightsize", rto_formula="ns2", clock_granularity="1ms"}',
        'flows.0.tcp={sack=false, recovery="prr", limited_transmit="pipe", rto_formula="linux", rto_restart="every_ack"}',
    ]
    for variant in variants:
        first = summary(qdsim, small_spec, tmp_path, "--set", variant)
        assert first == summary(qdsim, small_spec, tmp_path, "--set", variant), variant
