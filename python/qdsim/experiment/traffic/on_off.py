"""``kind = "on_off"`` (Kantawala & Turner 2005, §4): each flow is one TCP connection that
sends a ``burst`` (``"256pkt"``: full segments, or bytes), waits an exponential ``idle`` time
(mean 2 s) after the receiver has it, and sends the next burst; ``first_burst`` (``"idle"``:
the source starts with an idle time; ``"start"``: with a burst). Every burst is a transfer
of the flow with its completion time. It becomes the core's ``on_off`` source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..fields import PositiveDuration, PositiveSize
from .base import TcpGroup, param, tcp_params

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "on_off"

#: Its entry in ``qdsim list`` (the flow group's common keys are listed with ``tcp``).
CATALOG: dict[str, Any] = {
    "name": NAME,
    "summary": "On-off TCP sources (Kantawala & Turner 2005): one connection per flow sends a burst, idles an exponential time once it has arrived, then the next; each burst is a transfer",
    "params": [
        param("burst", "pkts|bytes", "256pkt", "burst size in full segments (pkt) or bytes of data; the paper's 256 packets"),
        param("idle", "time", "2s", "mean of the exponential idle time after a burst completes; the paper's 2 s"),
        param("first_burst", "name", "idle", "idle: the first burst after one idle time from the flow's start; start: at the flow's start"),
        *tcp_params("the connection (reno, tahoe, ...)", " (idle_restart: restart from the initial window after an idle RTO)"),
    ],
}


class OnOffFlows(TcpGroup):
    """``[[flows]]`` with ``kind = "on_off"`` (see the module documentation)."""

    kind: Literal["on_off"]
    burst: PositiveSize = ("pkts", 256)
    idle: PositiveDuration = 2_000_000_000
    first_burst: Literal["idle", "start"] = "idle"


MODEL = OnOffFlows


def source(group: OnOffFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig``: ``on_off``, the burst in packets or bytes."""
    which, amount = group.burst
    return {"kind": "on_off", f"burst_{which}": amount, "idle_ns": group.idle, "first_burst": group.first_burst, "tcp": tcp}
