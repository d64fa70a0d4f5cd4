"""The star topology: hosts on one switch, as a data-center rack (Ismail et al. §III).

``[topology] kind = "star"`` resolves to one switch node ``sw`` and one node per host. Hosts
are every name a flow group uses (``src``/``dst``, an incast ``client``, the incast servers
``<group>.s<i>``) plus ``topology.hosts``, in that order of first use. Each host has a duplex
link to the switch with the topology's ``rate`` and one-way ``delay``, so the base RTT between
two hosts is ``4 × delay`` plus serialisation times.

Buffers: the switch's output port towards ``bottleneck`` is the link named ``bottleneck`` and
holds ``qdisc`` (the discipline under test); the switch's other output ports hold
``port_qdisc`` (default: a FIFO that never drops); host NICs (host → switch) hold
``host_qdisc`` (default: ``port_qdisc``). A NIC must be able to drop: a host link is as fast
as the bottleneck, so an unlimited NIC queue would hold a long flow's excess window without
loss while feeding the switch port at exactly line rate, keeping that port full and locking
every other flow out.
"""

from __future__ import annotations

from typing import Any

from . import algorithms
from .errors import SpecError
from .spec import IncastFlows, Spec, Star

__all__ = ["SWITCH", "star", "star_hosts"]

#: Name of the star's switch node.
SWITCH = "sw"


def star_hosts(spec: Spec) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Returns the star's hosts and each group's (src, dst) per flow.

    Raises SpecError naming the flow key when a group lacks an endpoint or uses the switch.
    """
    topo = spec.topology
    assert isinstance(topo, Star)
    hosts: list[str] = []

    def host(name: str, key: str) -> str:
        if name == SWITCH:
            raise SpecError(key, name, f'a host name other than "{SWITCH}" (the switch)')
        if name not in hosts:
            hosts.append(name)
        return name

    endpoints: list[list[tuple[str, str]]] = []
    for index, group in enumerate(spec.flows):
        key = f"flows.{index}"
        for field in ("access_delay", "access_rate"):
            if getattr(group, field) is not None:
                raise SpecError(f"{key}.{field}", getattr(group, field), "no value: in a star every host link has topology.rate and topology.delay")
        if isinstance(group, IncastFlows):
            for field in ("src", "dst"):
                if getattr(group, field) is not None:
                    raise SpecError(f"{key}.{field}", getattr(group, field), "no value: incast servers are <group>.s<i>, the receiver is `client`")
            client = host(group.client, f"{key}.client")
            endpoints.append([(host(f"{group.group}.s{i}", f"{key}.group"), client) for i in range(group.count)])
            continue
        for field in ("src", "dst"):
            if getattr(group, field) is None:
                raise SpecError(f"{key}.{field}", SpecError.MISSING, "a host name (star flows name their endpoints)")
        if group.src == group.dst:
            raise SpecError(f"{key}.dst", group.dst, "a host other than `src`")
        endpoints.append([(host(group.src, f"{key}.src"), host(group.dst, f"{key}.dst"))] * group.count)
    for index, name in enumerate(topo.hosts):
        host(name, f"topology.hosts.{index}")
    if topo.bottleneck not in hosts:
        raise SpecError("topology.bottleneck", topo.bottleneck, f"a host of the star ({', '.join(hosts[:8])}{', ...' if len(hosts) > 8 else ''})")
    return hosts, endpoints


def star(topo: Star, spec: Spec, bottleneck_name: str = "bottleneck") -> tuple[list[str], list[dict[str, Any]], list[list[tuple[str, str]]]]:
    """Returns nodes, links and per-group (src, dst) lists of a star (see the module doc)."""
    from .resolve import _link  # resolve imports this module; the link dict lives there

    hosts, endpoints = star_hosts(spec)
    port = algorithms.qdisc_config(topo.port_qdisc.kind, topo.port_qdisc.params, "topology.port_qdisc", topo.rate) if topo.port_qdisc else dict(algorithms.DEFAULT_QDISC)
    nic = algorithms.qdisc_config(topo.host_qdisc.kind, topo.host_qdisc.params, "topology.host_qdisc", topo.rate) if topo.host_qdisc else dict(port)
    under_test = algorithms.qdisc_config(topo.qdisc.kind, topo.qdisc.params, "topology.qdisc", topo.rate)
    links: list[dict[str, Any]] = []
    for name in hosts:
        links.append(_link(f"{name}->{SWITCH}", name, SWITCH, topo.rate, topo.delay, dict(nic)))
        if name == topo.bottleneck:
            links.append(_link(bottleneck_name, SWITCH, name, topo.rate, topo.delay, under_test))
        else:
            links.append(_link(f"{SWITCH}->{name}", SWITCH, name, topo.rate, topo.delay, dict(port)))
    return [SWITCH, *hosts], links, endpoints
