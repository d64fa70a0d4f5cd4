"""Unit parsing: exact integers in the core's units, clear errors, round trips."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from qdsim.experiment import units
from qdsim.experiment.units import UnitError


@pytest.mark.parametrize(
    ("text", "bps"),
    [("10Mbps", 10_000_000), ("1Gbps", 10**9), ("500kbps", 500_000), ("1.5Mbps", 1_500_000), ("64000", 64_000), (100, 100)],
)
def test_rates_parse_to_bits_per_second(text, bps):
    assert units.parse_rate(text) == bps


@pytest.mark.parametrize(
    ("text", "ns"),
    [("5ms", 5_000_000), ("300us", 300_000), ("1.5s", 1_500_000_000), ("30s", 30 * 10**9), ("7ns", 7), (2, 2 * 10**9), (0.5, 500_000_000)],
)
def test_durations_parse_to_nanoseconds(text, ns):
    assert units.parse_duration(text) == ns


@pytest.mark.parametrize(
    ("text", "size"),
    [("1500B", 1500), ("30KB", 30_000), ("1MB", 1_000_000), ("64KiB", 65_536), ("1MiB", 2**20), (1500, 1500)],
)
def test_sizes_use_decimal_kb_and_binary_kib(text, size):
    assert units.parse_bytes(text) == size


@pytest.mark.parametrize(("text", "limit"), [("100pkt", ("pkts", 100)), (100, ("pkts", 100)), ("30KB", ("bytes", 30_000)), ("2pkts", ("pkts", 2))])
def test_limits_are_packets_or_bytes(text, limit):
    assert units.parse_limit(text) == limit


@pytest.mark.parametrize(
    ("parse", "bad", "hint"),
    [
        (units.parse_rate, "10MB", "Mbps"),
        (units.parse_rate, "-1Mbps", ">= 0"),
        (units.parse_rate, "fast", "Mbps"),
        (units.parse_duration, "5 parsecs", "ms"),
        (units.parse_duration, "0.5ns", "whole number of ns"),
        (units.parse_bytes, "10Mbps", "KiB"),
        (units.parse_pkts, "1.5pkt", "whole number"),
        (units.parse_limit, "5ms", "packets"),
        (units.parse_rate, True, "Mbps"),
        # TOML has inf and nan floats; neither is a quantity.
        (units.parse_duration, float("inf"), "ms"),
        (units.parse_rate, float("nan"), "Mbps"),
        (units.parse_limit, float("-inf"), "packets"),
        # Beyond the core's unsigned 64-bit range (2^64 ns is 584 years).
        (units.parse_duration, "1e99s", "64-bit"),
        (units.parse_bytes, 2**64, "64-bit"),
    ],
)
def test_bad_quantities_name_what_is_allowed(parse, bad, hint):
    with pytest.raises(UnitError) as info:
        parse(bad)
    assert hint in info.value.allowed


def test_the_largest_quantity_is_accepted():
    assert units.parse_bytes(units.MAX_QUANTITY) == 2**64 - 1


@given(st.integers(min_value=0, max_value=10**15))
def test_rates_round_trip(bps):
    assert units.parse_rate(units.format_rate(bps)) == bps


@given(st.integers(min_value=0, max_value=10**15))
def test_durations_round_trip(ns):
    assert units.parse_duration(units.format_duration(ns)) == ns


@given(st.integers(min_value=0, max_value=10**15))
def test_sizes_round_trip(size):
    assert units.parse_bytes(units.format_bytes(size)) == size


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["ms", "us", "s", "ns"]))
def test_integer_durations_scale_exactly(amount, unit):
    scale = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}[unit]
    assert units.parse_duration(f"{amount}{unit}") == amount * scale
