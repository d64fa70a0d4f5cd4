"""What every ``[[flows]]`` group has, and what a TCP-carrying one adds.

A traffic kind is one module of this package (see :mod:`qdsim.experiment.traffic`): its
group model derives from :class:`FlowGroup` (or :class:`TcpGroup` when its flows are TCP
connections: the group's ``cc`` and ``tcp = {...}`` table).
"""

from __future__ import annotations

from pydantic import Field

from ..fields import MAX_FLOWS_PER_GROUP, Duration, Name, PositiveRate, Strict, TcpOptions

__all__ = ["FlowGroup", "TcpGroup", "param", "tcp_params"]


class FlowGroup(Strict):
    """The keys of every flow group, whatever its kind."""

    group: Name
    #: Flows in the group; at most a million (each is a sender, a receiver and their state).
    count: int = Field(1, ge=1, le=MAX_FLOWS_PER_GROUP)
    #: Users the group's flows belong to (``count`` must be a multiple): flow ``i`` belongs to
    #: the group's user ``i // (count // users)``. Absent = the whole group is one user.
    users: int | None = Field(None, ge=1, lt=2**31)
    start: Duration = 0
    start_window: Duration = 0
    access_delay: Duration | None = None
    access_rate: PositiveRate | None = None
    src: Name | None = None
    dst: Name | None = None


class TcpGroup(FlowGroup):
    """A group whose flows are TCP connections: its congestion control (the profile's
    without it) and TCP options (:mod:`qdsim.experiment.tcp_options`)."""

    cc: str | None = None
    tcp: TcpOptions = TcpOptions()


def param(name: str, unit: str, default: str, help_: str) -> dict[str, str]:
    """Returns one key of a kind's catalog entry, in the core catalog's format."""
    return {"name": name, "unit": unit, "default": default, "help": help_}


def tcp_params(whose: str, tcp_note: str = "") -> list[dict[str, str]]:
    """Returns the ``cc`` and ``tcp`` keys of a TCP-carrying kind's catalog entry."""
    return [
        param("cc", "name", "the profile's", f"congestion control of {whose} (without it, the profile's)"),
        param("tcp", "table", "{}", f"TCP options, as for `tcp`{tcp_note}"),
    ]
