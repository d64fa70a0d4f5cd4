"""``kind = "tcp"`` (the default): ``count`` TCP flows, saturated or of ``size`` bytes each
(the core's ``tcp`` source; its catalog entry lists the keys)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from ..fields import PositiveBytes
from .base import TcpGroup

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "tcp"
#: Listed by the core's catalog (``qdsim list``).
CATALOG = None


class TcpFlows(TcpGroup):
    """``[[flows]]`` with ``kind = "tcp"`` (the default): saturated or finite TCP transfers."""

    kind: Literal["tcp"] = "tcp"
    size: PositiveBytes | None = None


MODEL = TcpFlows


def source(group: TcpFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig``: ``tcp``, finite with ``size``."""
    out: dict[str, Any] = {"kind": "tcp", "tcp": tcp}
    if group.size is not None:
        out["size_bytes"] = group.size
    return out
