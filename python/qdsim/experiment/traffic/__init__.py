"""The traffic kinds of ``[[flows]]`` groups: one module each, and their registry.

A kind's module holds everything about it on the Python side: ``NAME`` (its ``kind``), its
group model ``MODEL`` (derived from :class:`~qdsim.experiment.traffic.base.FlowGroup`, or
:class:`~qdsim.experiment.traffic.base.TcpGroup` when its flows are TCP connections),
``CATALOG`` (its ``qdsim list`` entry, or None when the core's catalog lists it),
``source(group, key, spec, tcp)`` → the core's ``SourceConfig``, and optionally
``check(group, key, spec)`` for what only the whole file can tell (incast needs a star).
:data:`KINDS` lists them: adding a kind is its module and one entry there (and, for a new
core source, its Rust side). The reference engines translate each core source in their own
translators (:mod:`qdsim.engines`).

User ids (:func:`user_ids`) are global and assigned in file order: a group with ``users = k``
takes the next ``k`` ids (its flow ``i`` belongs to the ``i // (count // k)``-th), a group
without takes one id for all its flows. Without any ``users`` key this equals the core's
default (the group's index), so the flow's ``user`` is then left out of the configuration.
"""

from __future__ import annotations

from types import ModuleType
from typing import TYPE_CHECKING, Annotated, Any, Union

from pydantic import Discriminator, Tag

from ...errors import SpecError
from .. import algorithms
from . import incast, on_off, poisson_packets, short_flows, tcp, udp_cbr
from .base import FlowGroup, TcpGroup
from .incast import IncastFlows
from .on_off import OnOffFlows
from .poisson_packets import PoissonPacketsFlows
from .short_flows import ShortFlows
from .tcp import TcpFlows
from .udp_cbr import UdpCbrFlows

if TYPE_CHECKING:
    from ..spec import Spec

__all__ = [
    "KINDS",
    "AnyFlowGroup",
    "FlowGroup",
    "IncastFlows",
    "OnOffFlows",
    "PoissonPacketsFlows",
    "ShortFlows",
    "TcpFlows",
    "TcpGroup",
    "UdpCbrFlows",
    "catalog",
    "check",
    "source",
    "user_ids",
]

#: Every traffic kind, ``tcp`` (the default) first.
KINDS: tuple[ModuleType, ...] = (tcp, udp_cbr, incast, short_flows, poisson_packets, on_off)

_BY_NAME = {kind.NAME: kind for kind in KINDS}


def _kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return value.get("kind", tcp.NAME)
    return getattr(value, "kind", tcp.NAME)


#: A ``[[flows]]`` group of any kind, told apart by its ``kind`` (``tcp`` when absent).
AnyFlowGroup = Annotated[Union[tuple(Annotated[kind.MODEL, Tag(kind.NAME)] for kind in KINDS)], Discriminator(_kind_of)]  # type: ignore[valid-type]  # noqa: UP007


def check(spec: Spec) -> None:
    """Raises SpecError for a group its kind cannot run in this file (its ``check``)."""
    for index, group in enumerate(spec.flows):
        kind_check = getattr(_BY_NAME[group.kind], "check", None)
        if kind_check is not None:
            kind_check(group, f"flows.{index}", spec)


def source(group: FlowGroup, key: str, spec: Spec, tcp_config: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of a flow group; ``key`` is its key path, for errors.

    ``tcp_config`` is the group's ``TcpConfig`` (:func:`qdsim.experiment.tcp_options.tcp_config`;
    None without TCP), translated by the caller so that this package stays below the
    parameter catalog (which lists its kinds).
    """
    return _BY_NAME[group.kind].source(group, key, spec, tcp_config)  # type: ignore[attr-defined]


def user_ids(spec: Spec) -> list[list[int]] | None:
    """Returns the global user id of every flow, per group; None if no group sets ``users``.

    See the module doc for the assignment. Raises SpecError when ``users`` does not divide
    ``count``.
    """
    if all(group.users is None for group in spec.flows):
        return None
    owners: list[list[int]] = []
    next_id = 0
    for index, group in enumerate(spec.flows):
        users = group.users or 1
        if group.count % users:
            raise SpecError(f"flows.{index}.users", users, f"a divisor of count ({group.count}): every user holds count / users flows")
        per_user = group.count // users
        owners.append([next_id + i // per_user for i in range(group.count)])
        next_id += users
    if next_id > 2**32:
        raise SpecError("flows", next_id, "at most 2^32 users in all groups")
    return owners


def catalog() -> dict[str, Any]:
    """Returns the whole catalog ``qdsim list`` shows: the core's
    (:func:`qdsim.experiment.algorithms.core_catalog`) with the kinds resolved in Python (the
    ``CATALOG`` of each kind that has one) added to its traffic kinds.

    The core lists a TCP flow's profile and options among the ``tcp`` kind's parameters; a
    file writes them inside the group's ``tcp = { ... }`` table, so they are named as the
    file's keys: ``tcp.profile``, ``tcp.packet_size`` (a top-level ``packet_size`` is the
    UDP source's)."""
    core = algorithms.core_catalog()
    in_tcp_table = {"profile"} | {option["name"] for option in core["tcp"]}
    traffic = [{**kind, "params": [{**p, "name": f"tcp.{p['name']}"} if p["name"] in in_tcp_table else p for p in kind["params"]]} if kind["name"] == "tcp" else kind for kind in core["traffic"]]
    return {**core, "traffic": traffic + [kind.CATALOG for kind in KINDS if kind.CATALOG is not None]}
