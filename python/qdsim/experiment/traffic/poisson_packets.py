"""``kind = "poisson_packets"``: unresponsive packets arriving as a Poisson process offering
``rate`` per flow, of ``packet_size`` bytes (``size_distribution = "fixed"``) or exponential
sizes of that mean, rounded and clamped to ``[min_packet_size, max_packet_size]`` (the core's
``poisson_packets`` source, ``traffic/poisson.rs``; its catalog entry lists the keys). Under
per-flow fair queueing, a background of many small flows is ``count`` flows of ``rate /
count`` each (their superposition is again Poisson at the total rate).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ...errors import SpecError
from ..fields import Duration, PositiveBytes, PositiveRate
from .base import FlowGroup

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "poisson_packets"
#: Listed by the core's catalog (``qdsim list``).
CATALOG = None

#: The core's smallest datagram (40 bytes of headers and one of payload) and its default
#: largest exponential size (an IP datagram's largest).
MIN_DATAGRAM, MAX_DATAGRAM = 41, 65535


class PoissonPacketsFlows(FlowGroup):
    """``[[flows]]`` with ``kind = "poisson_packets"`` (see the module documentation)."""

    kind: Literal["poisson_packets"]
    rate: PositiveRate
    packet_size: PositiveBytes | None = None
    size_distribution: Literal["fixed", "exponential"] = "fixed"
    min_packet_size: PositiveBytes | None = None
    max_packet_size: PositiveBytes | None = None
    stop: Duration | None = None


MODEL = PoissonPacketsFlows


def source(group: PoissonPacketsFlows, key: str, spec: Spec | None, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` (keys left at their default are left out: the
    core's defaults). Raises SpecError when a size is below a datagram's 41 bytes,
    ``min_packet_size`` ≤ ``packet_size`` ≤ ``max_packet_size`` fails, or a bound of
    exponential sizes is given with fixed ones."""
    for name in ("min_packet_size", "max_packet_size"):
        if getattr(group, name) is not None and group.size_distribution == "fixed":
            raise SpecError(f"{key}.{name}", f"{getattr(group, name)}B", 'no value with size_distribution = "fixed" (it bounds exponential sizes)')
    sizes = {"min_packet_size": group.min_packet_size or MIN_DATAGRAM, "packet_size": group.packet_size or 1500, "max_packet_size": group.max_packet_size or MAX_DATAGRAM}
    for name, value in sizes.items():
        if value < MIN_DATAGRAM:
            raise SpecError(f"{key}.{name}", f"{value}B", f"at least {MIN_DATAGRAM}B (40 bytes of headers and one of payload)")
    if sizes["packet_size"] > sizes["max_packet_size"]:
        raise SpecError(f"{key}.max_packet_size", f"{sizes['max_packet_size']}B", f">= packet_size ({sizes['packet_size']}B)")
    if sizes["min_packet_size"] > sizes["packet_size"]:
        raise SpecError(f"{key}.min_packet_size", f"{sizes['min_packet_size']}B", f"<= packet_size ({sizes['packet_size']}B)")
    out: dict[str, Any] = {"kind": "poisson_packets", "rate_bps": group.rate, "size_distribution": group.size_distribution}
    for name, core in (("packet_size", "packet_bytes"), ("min_packet_size", "min_packet_bytes"), ("max_packet_size", "max_packet_bytes"), ("stop", "stop_ns")):
        if getattr(group, name) is not None:
            out[core] = getattr(group, name)
    return out
