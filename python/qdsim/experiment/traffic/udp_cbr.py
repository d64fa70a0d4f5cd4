"""``kind = "udp_cbr"``: constant-bit-rate UDP at ``rate``, optionally stopping at ``stop``
(the core's ``udp_cbr`` source; its catalog entry lists the keys)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..fields import Duration, PositiveBytes, PositiveRate
from .base import FlowGroup

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "udp_cbr"
#: Listed by the core's catalog (``qdsim list``).
CATALOG = None


class UdpCbrFlows(FlowGroup):
    """``[[flows]]`` with ``kind = "udp_cbr"``: constant-bit-rate UDP sources."""

    kind: Literal["udp_cbr"]
    rate: PositiveRate
    packet_size: PositiveBytes | None = None
    stop: Duration | None = None


MODEL = UdpCbrFlows


def source(group: UdpCbrFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig``: ``udp_cbr`` (keys left out take the core's defaults)."""
    out: dict[str, Any] = {"kind": "udp_cbr", "rate_bps": group.rate}
    if group.packet_size is not None:
        out["packet_bytes"] = group.packet_size
    if group.stop is not None:
        out["stop_ns"] = group.stop
    return out
