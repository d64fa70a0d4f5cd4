"""``kind = "incast"`` (partition/aggregate, Vasudevan et al. 2009; Ismail et al. §III-B).

``count`` servers each send ``size`` bytes (or ``total_size / count``, rounded down) to
``client`` on a fresh TCP connection, or with ``persistent = true`` on one connection per
server kept across rounds (its window and RTO survive; ``tcp.idle_restart`` decides whether
an idle period resets the window); all of a group's flows share the barrier
``incast:<group>``, so the client asks again only after every response has arrived, plus
``think``. ``rounds`` absent = until the end of the run. Star topologies only (the servers
are hosts ``<group>.s<i>``, :mod:`qdsim.experiment.topologies`). It becomes the core's
``tcp`` source with ``repeat``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field, StrictBool

from ...errors import SpecError
from ..fields import Duration, Name, PositiveBytes
from .base import TcpGroup, param, tcp_params

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "incast"

#: Its entry in ``qdsim list`` (the flow group's common keys are listed with ``tcp``).
CATALOG: dict[str, Any] = {
    "name": NAME,
    "summary": "Partition/aggregate (star only): `count` servers answer `client` in rounds; the next round starts when every response has arrived",
    "params": [
        param("client", "name", "(required)", "the host that asks and receives"),
        param("size", "bytes", "(size or total_size)", "bytes each server sends per round"),
        param("total_size", "bytes", "(size or total_size)", "bytes per round, split over the servers (rounded down)"),
        param("rounds", "int", "until the end", "rounds to run"),
        param("think", "time", "0s", "pause between a round's last response and the next request"),
        param("persistent", "bool", "false", "one connection per server across rounds (window and RTO survive), else a fresh one per response"),
        *tcp_params("the responses"),
    ],
}


class IncastFlows(TcpGroup):
    """``[[flows]]`` with ``kind = "incast"``: ``count`` servers answer a ``client`` in rounds
    (see the module documentation)."""

    kind: Literal["incast"]
    client: Name
    size: PositiveBytes | None = None
    total_size: PositiveBytes | None = None
    rounds: int | None = Field(None, ge=1, lt=2**32)
    think: Duration = 0
    persistent: StrictBool = False


MODEL = IncastFlows


def check(group: IncastFlows, key: str, spec: Spec) -> None:
    """Raises SpecError outside a star (the servers are its hosts)."""
    if spec.topology.kind != "star":
        raise SpecError(f"{key}.kind", NAME, f'a kind other than incast: incast needs [topology] kind = "star" (this is "{spec.topology.kind}")')


def source(group: IncastFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig``: a finite ``tcp`` source repeated behind the group's barrier."""
    if (group.size is None) == (group.total_size is None):
        raise SpecError(f"{key}.size", group.size if group.size is not None else SpecError.MISSING, "exactly one of size (bytes per server) and total_size (split over count)")
    size = group.size if group.size is not None else group.total_size // group.count
    if size <= 0:
        raise SpecError(f"{key}.total_size", group.total_size, f"at least count ({group.count}) bytes")
    repeat: dict[str, Any] = {"barrier": f"incast:{group.group}", "think_ns": group.think, "persistent": group.persistent}
    if group.rounds is not None:
        repeat["rounds"] = group.rounds
    return {"kind": "tcp", "size_bytes": size, "tcp": tcp, "repeat": repeat}
