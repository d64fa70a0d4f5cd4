"""Quantities with units, as written in experiment files, turned into the core's integers.

Every quantity the core sees is an integer in a fixed unit: nanoseconds, bit/s, bytes or
packets. Experiment files write them as strings with a unit (``"10Mbps"``, ``"5ms"``,
``"100pkt"``, ``"30KB"``); this module parses those strings *exactly* (decimal arithmetic,
no float rounding) and formats integers back into the shortest readable string.

Prefixes are decimal SI (k = 1000, M = 10^6, G = 10^9) for rates and sizes, as networking
papers use them: ``"30KB"`` is 30 000 bytes. Binary sizes are written with an ``i``:
``"64KiB"`` is 65 536 bytes. A plain number is read in the base unit of its kind: bit/s for
rates, seconds for durations, bytes for sizes and packets for packet counts.

A value that does not parse raises :class:`UnitError`, whose message says what is allowed.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation

__all__ = [
    "ALLOWED",
    "MAX_QUANTITY",
    "UnitError",
    "format_bytes",
    "format_duration",
    "format_rate",
    "parse_bytes",
    "parse_duration",
    "parse_limit",
    "parse_pkts",
    "parse_rate",
]

_RATE_UNITS = {"bps": 1, "kbps": 10**3, "Kbps": 10**3, "Mbps": 10**6, "Gbps": 10**9, "Tbps": 10**12}
_DURATION_UNITS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "min": 60 * 10**9}
_BYTE_UNITS = {
    "B": 1,
    "KB": 10**3,
    "kB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}
_PKT_UNITS = {"pkt": 1, "pkts": 1, "packet": 1, "packets": 1}

#: What each kind of quantity accepts, as the "allowed" part of an error message.
ALLOWED = {
    "rate": 'a rate such as "10Mbps" (units: bps, kbps, Mbps, Gbps, Tbps; a plain number is bit/s)',
    "duration": 'a duration such as "5ms" (units: ns, us, ms, s, min; a plain number is seconds)',
    "bytes": 'a size such as "1500B" or "30KB" (units: B, KB=1000 B, MB, GB, KiB=1024 B, MiB, GiB; a plain number is bytes)',
    "pkts": 'a packet count such as "100pkt" or a plain whole number',
    "limit": 'a buffer limit in packets ("100pkt", or a plain whole number) or bytes ("30KB", "64KiB")',
}

#: The largest whole number the core's unsigned 64-bit quantities hold.
MAX_QUANTITY = 2**64 - 1

_QUANTITY = re.compile(r"^\s*([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*([A-Za-zµ/]*)\s*$")


class UnitError(ValueError):
    """A value that is not a valid quantity of the expected kind.

    ``value`` is the rejected input and ``allowed`` describes what would be accepted.
    """

    def __init__(self, value: object, allowed: str):
        self.value = value
        self.allowed = allowed
        super().__init__(f"{value!r} is not allowed; {allowed}")


def _split(value: object, kind: str) -> tuple[Decimal, str]:
    """Returns the number and the unit suffix of ``value`` (a string or a number)."""
    if isinstance(value, bool):
        raise UnitError(value, ALLOWED[kind])
    if isinstance(value, int):
        return Decimal(value), ""
    if isinstance(value, float):
        if not math.isfinite(value):  # TOML's inf and nan
            raise UnitError(value, ALLOWED[kind])
        return Decimal(repr(value)), ""
    if not isinstance(value, str):
        raise UnitError(value, ALLOWED[kind])
    match = _QUANTITY.match(value)
    if not match:
        raise UnitError(value, ALLOWED[kind])
    try:
        number = Decimal(match.group(1))
    except InvalidOperation:  # pragma: no cover - the regex only admits valid decimals
        raise UnitError(value, ALLOWED[kind]) from None
    return number, match.group(2)


def _scaled(value: object, kind: str, units: dict[str, int], plain_scale: int, base: str) -> int:
    """Parses ``value`` with one of ``units`` into a non-negative whole number of ``base``."""
    number, unit = _split(value, kind)
    if unit == "":
        scale = plain_scale
    elif unit in units:
        scale = units[unit]
    else:
        raise UnitError(value, ALLOWED[kind])
    exact = number * scale
    if exact < 0:
        raise UnitError(value, f"a value >= 0; {ALLOWED[kind]}")
    if exact != exact.to_integral_value():
        raise UnitError(value, f"a whole number of {base}; {ALLOWED[kind]}")
    if exact > MAX_QUANTITY:
        raise UnitError(value, f"at most {MAX_QUANTITY} {base} (the core's 64-bit range); {ALLOWED[kind]}")
    return int(exact)


def parse_rate(value: object) -> int:
    """Returns the rate ``value`` (e.g. ``"10Mbps"``) in bit/s."""
    return _scaled(value, "rate", _RATE_UNITS, 1, "bit/s")


def parse_duration(value: object) -> int:
    """Returns the duration ``value`` (e.g. ``"5ms"``; a plain number is seconds) in ns."""
    return _scaled(value, "duration", _DURATION_UNITS, 10**9, "ns")


def parse_bytes(value: object) -> int:
    """Returns the size ``value`` (e.g. ``"30KB"``; a plain number is bytes) in bytes."""
    return _scaled(value, "bytes", _BYTE_UNITS, 1, "bytes")


def parse_pkts(value: object) -> int:
    """Returns the packet count ``value`` (e.g. ``"100pkt"`` or ``100``)."""
    return _scaled(value, "pkts", _PKT_UNITS, 1, "packets")


def parse_limit(value: object) -> tuple[str, int]:
    """Returns ``("pkts", n)`` or ``("bytes", n)`` for a buffer limit such as ``"100pkt"``.

    A plain number is a packet count, as in Linux ``pfifo``.
    """
    _, unit = _split(value, "limit")
    if unit in _BYTE_UNITS:
        return "bytes", _scaled(value, "limit", _BYTE_UNITS, 1, "bytes")
    if unit == "" or unit in _PKT_UNITS:
        return "pkts", _scaled(value, "limit", _PKT_UNITS, 1, "packets")
    raise UnitError(value, ALLOWED["limit"])


def _format(amount: int, units: list[tuple[str, int]]) -> str:
    """Formats ``amount`` with the largest unit that divides it exactly."""
    for name, scale in units:
        if amount != 0 and amount % scale == 0:
            return f"{amount // scale}{name}"
    return f"{amount}{units[-1][0]}"


def format_rate(bps: int) -> str:
    """Returns ``bps`` as the shortest exact rate string (``10_000_000`` → ``"10Mbps"``)."""
    return _format(bps, [("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3), ("bps", 1)])


def format_duration(ns: int) -> str:
    """Returns ``ns`` as the shortest exact duration string (``5_000_000`` → ``"5ms"``)."""
    return _format(ns, [("s", 10**9), ("ms", 10**6), ("us", 10**3), ("ns", 1)])


def format_bytes(size: int) -> str:
    """Returns ``size`` bytes as the shortest exact decimal size string (``30000`` → ``"30KB"``)."""
    return _format(size, [("GB", 10**9), ("MB", 10**6), ("KB", 10**3), ("B", 1)])
