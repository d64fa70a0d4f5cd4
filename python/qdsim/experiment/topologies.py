"""Topologies of experiment files → the core's nodes and links, and each flow's endpoints.

Every builder returns ``(nodes, links, endpoints)``: node names, link dicts (one per
direction, every quantity an integer: ns, bit/s) and, per flow group, one ``(src, dst)``
pair per flow. Every link without a qdisc of its own gets
:data:`~qdsim.experiment.algorithms.DEFAULT_QDISC`, a FIFO that never drops. Links are named
``"<from>-><to>"`` unless they are the bottleneck (:data:`BOTTLENECK`) or a graph link with a
``name``.

* **Dumbbell** (:func:`dumbbell`): routers ``r1`` and ``r2``; one sender ``g.s<h>`` and one
  receiver ``g.d<h>`` per user of group ``g`` (per flow when the group has no ``users``; per
  host pair of a ``short_flows`` pool, ``hosts = N``, whose group then lists the N pairs).
  ``g.s<h>`` ↔ ``r1`` has the group's ``access_rate`` / ``access_delay``; ``r1`` → ``r2``,
  named ``bottleneck``, has ``bottleneck_rate`` / ``bottleneck_delay``, the spec's ``qdisc``
  and ``loss``, its reverse ``r2->r1`` gets ``reverse_qdisc`` if given; ``r2`` ↔ ``g.d<h>``
  has the group's ``access_rate`` and the topology's ``receiver_delay``. A flow's base RTT
  is ``2 × (access_delay + bottleneck_delay + receiver_delay)`` plus serialisation times.
* **Graph** (:func:`graph`): the nodes and links as written, duplex unless ``duplex = false``;
  a link without a ``qdisc`` gets the topology's ``qdisc`` (if any). Flows name their ``src``
  and ``dst``, which must reach each other. A group with ``access_rate`` gets one sender host
  ``g.s<h>`` per user (per flow without ``users``) behind ``src``, over a duplex access link
  of ``access_rate`` and ``access_delay`` (default 0): the per-source access links of a
  parking lot (Kantawala & Turner's Fig. 3), whose rate caps each source.
* **Star** (:func:`star`): hosts on one switch, as a data-center rack (Ismail et al. §III).
  One switch node ``sw`` and one node per host. Hosts are every name a flow group uses
  (``src``/``dst``, an incast ``client``, the incast servers ``<group>.s<i>``) plus
  ``topology.hosts``, in that order of first use. Each host has a duplex link to the switch
  with the topology's ``rate`` and one-way ``delay``, so the base RTT between two hosts is
  ``4 × delay`` plus serialisation times. The switch's output port towards ``bottleneck`` is
  the link named ``bottleneck`` and holds ``qdisc`` (the discipline under test); the switch's
  other output ports hold ``port_qdisc`` (default: a FIFO that never drops); host NICs
  (host → switch) hold ``host_qdisc`` (default: ``port_qdisc``). A NIC must be able to drop:
  a host link is as fast as the bottleneck, so an unlimited NIC queue would hold a long
  flow's excess window without loss while feeding the switch port at exactly line rate,
  keeping that port full and locking every other flow out.
"""

from __future__ import annotations

import functools
from typing import Any

from ..errors import SpecError
from . import algorithms, units
from .spec import Dumbbell, Graph, GraphLink, QdiscSpec, Spec, Star
from .traffic import IncastFlows, ShortFlows, TcpGroup

__all__ = ["BOTTLENECK", "SWITCH", "dumbbell", "graph", "link", "star", "star_hosts"]

#: Name of the link whose qdisc is under test: the dumbbell's forward bottleneck, the star's
#: switch port towards ``topology.bottleneck`` (a graph may name one of its links so).
BOTTLENECK = "bottleneck"

#: Name of the star's switch node.
SWITCH = "sw"

#: What a builder returns: nodes, links and per-group (src, dst) lists.
Built = tuple[list[str], list[dict[str, Any]], list[list[tuple[str, str]]]]


def _access_value(group: Any, field: str) -> str:
    """Returns a group's ``access_rate`` or ``access_delay`` as a file writes it (``"1Gbps"``,
    ``"5ms"``), not as the integer it was parsed into, for an error message."""
    value = getattr(group, field)
    return units.format_rate(value) if field == "access_rate" else units.format_duration(value)


def link(name: str, src: str, dst: str, rate: int, delay: int, qdisc: dict[str, Any], loss: float = 0.0, metric: int = 1) -> dict[str, Any]:
    """Returns the core's ``LinkConfig`` of one unidirectional link."""
    return {
        "name": name,
        "from": src,
        "to": dst,
        "rate_bps": rate,
        "delay_ns": delay,
        "loss": loss,
        "metric": metric,
        "qdisc": qdisc,
    }


def _qdisc(qdisc: QdiscSpec | None, key: str, rate_bps: int, default: dict[str, Any] | None = None) -> dict[str, Any]:
    """Returns the core's ``QdiscConfig`` of a qdisc table at ``key`` (``default`` if absent)."""
    if qdisc is None:
        return dict(default if default is not None else algorithms.DEFAULT_QDISC)
    return algorithms.qdisc_config(qdisc.kind, qdisc.params, key, rate_bps)


def _duplex(a: str, b: str, rate: int, delay: int) -> list[dict[str, Any]]:
    """Returns both directions of an access link, each with the default qdisc."""
    return [
        link(f"{a}->{b}", a, b, rate, delay, dict(algorithms.DEFAULT_QDISC)),
        link(f"{b}->{a}", b, a, rate, delay, dict(algorithms.DEFAULT_QDISC)),
    ]


# --- dumbbell ---------------------------------------------------------------------------------


def dumbbell(topo: Dumbbell, spec: Spec) -> Built:
    """Returns nodes, links and per-group (src, dst) lists of a dumbbell (see the module doc)."""
    nodes = ["r1", "r2"]
    links = [
        link(BOTTLENECK, "r1", "r2", topo.bottleneck_rate, topo.bottleneck_delay, _qdisc(topo.qdisc, "topology.qdisc", topo.bottleneck_rate), loss=topo.loss),
        link("r2->r1", "r2", "r1", topo.bottleneck_rate, topo.bottleneck_delay, _qdisc(topo.reverse_qdisc, "topology.reverse_qdisc", topo.bottleneck_rate)),
    ]
    endpoints = []
    for index, group in enumerate(spec.flows):
        for field in ("src", "dst"):
            if getattr(group, field) is not None:
                raise SpecError(f"flows.{index}.{field}", getattr(group, field), 'no value: dumbbell flows get their own hosts (src/dst are for kind = "graph")')
        rate = group.access_rate if group.access_rate is not None else topo.access_rate
        delay = group.access_delay if group.access_delay is not None else topo.access_delay
        # One sender and one receiver host per user (per flow when `users` is absent): the
        # flows of a user share its access link, as in Menth et al.'s Fig. 2. A transfer pool
        # has one pair per host, all listed for its one generator (resolve.py).
        hosts = group.users if group.users is not None else group.count
        per_host = group.count // hosts if group.count % hosts == 0 else 1
        pool = _pool_size(group, index)
        if pool is not None:
            hosts, per_host = pool, 1
        pairs = []
        for h in range(hosts):
            sender, receiver = f"{group.group}.s{h}", f"{group.group}.d{h}"
            nodes += [sender, receiver]
            links += _duplex(sender, "r1", rate, delay)
            links += _duplex("r2", receiver, rate, topo.receiver_delay)
            pairs += [(sender, receiver)] * per_host
        endpoints.append(pairs)
    return nodes, links, endpoints


def _pool_size(group: Any, index: int) -> int | None:
    """Returns the number of host pairs of a ``short_flows`` pool (None without one).

    Raises SpecError when the pool's group has more than one generator or has users.
    """
    if not isinstance(group, ShortFlows) or group.hosts is None:
        return None
    for name, allowed in (("count", 1), ("users", None)):
        if getattr(group, name) != allowed:
            raise SpecError(f"flows.{index}.{name}", getattr(group, name), f"{'1' if allowed else 'no value'} with `hosts` (one generator whose transfers spread over the host pairs)")
    return group.hosts


def _no_pool(spec: Spec, where: str) -> None:
    """Raises SpecError for a ``short_flows`` pool (``hosts``) outside a dumbbell."""
    for index, group in enumerate(spec.flows):
        if isinstance(group, ShortFlows) and group.hosts is not None:
            raise SpecError(f"flows.{index}.hosts", group.hosts, f'no value: a pool of host pairs with their own access links exists only with kind = "dumbbell" (this is "{where}")')


# --- graph ------------------------------------------------------------------------------------


def graph(topo: Graph, spec: Spec) -> Built:
    """Returns nodes, links and per-group (src, dst) lists of a general graph."""
    _no_pool(spec, "graph")
    nodes: list[str] = []
    for index, node in enumerate(topo.nodes):
        if node.name in nodes:
            raise SpecError(f"topology.nodes.{index}.name", node.name, "a node name not used before")
        nodes.append(node.name)
    allowed_nodes = f"the name of a node in topology.nodes ({', '.join(nodes)})"
    links: list[dict[str, Any]] = []
    for index, graph_link in enumerate(topo.links):
        key = f"topology.links.{index}"
        for field, name in (("from", graph_link.from_), ("to", graph_link.to)):
            if name not in nodes:
                raise SpecError(f"{key}.{field}", name, allowed_nodes)
        if graph_link.from_ == graph_link.to:
            raise SpecError(f"{key}.to", graph_link.to, "a node other than `from`")
        for new in _graph_link(graph_link, key, topo.qdisc):
            if any(old["name"] == new["name"] for old in links):
                raise SpecError(f"{key}.name", new["name"], "a link name not used by another link (set `name`)")
            links.append(new)
    next_hops: dict[str, list[str]] = {}
    for each in links:
        next_hops.setdefault(each["from"], []).append(each["to"])
    reachable = functools.cache(lambda start: _reachable(start, next_hops))
    endpoints = []
    for index, group in enumerate(spec.flows):
        if group.access_delay is not None and group.access_rate is None:
            raise SpecError(f"flows.{index}.access_rate", SpecError.MISSING, "a rate: in a graph `access_delay` belongs to the access links `access_rate` asks for")
        for field in ("src", "dst"):
            name = getattr(group, field)
            if name is None:
                raise SpecError(f"flows.{index}.{field}", SpecError.MISSING, allowed_nodes)
            if name not in nodes:
                raise SpecError(f"flows.{index}.{field}", name, allowed_nodes)
        if group.src == group.dst:
            raise SpecError(f"flows.{index}.dst", group.dst, "a node other than `src`")
        if group.dst not in reachable(group.src):
            raise SpecError(f"flows.{index}.dst", group.dst, f"a node reachable over topology.links from `{group.src}` (no path leads there)")
        if isinstance(group, TcpGroup) and group.src not in reachable(group.dst):
            raise SpecError(f"flows.{index}.src", group.src, f"a node reachable over topology.links from `{group.dst}`, for the ACKs (no path leads back)")
        if group.access_rate is None:
            endpoints.append([(group.src, group.dst)] * group.count)
            continue
        # One sender per user (per flow without `users`) behind `src`, as the dumbbell's.
        hosts = group.users if group.users is not None else group.count
        pairs = []
        for h in range(hosts):
            sender = f"{group.group}.s{h}"
            if sender in nodes:
                raise SpecError(f"flows.{index}.group", group.group, f"a group name whose sender hosts ({sender}) are not already nodes")
            nodes.append(sender)
            links += _duplex(sender, group.src, group.access_rate, group.access_delay or 0)
            pairs += [(sender, group.dst)] * (group.count // hosts)
        endpoints.append(pairs)
    return nodes, links, endpoints


def _reachable(start: str, next_hops: dict[str, list[str]]) -> set[str]:
    """Returns the nodes reachable from ``start`` over directed links (``next_hops``)."""
    seen, todo = {start}, [start]
    while todo:
        for nxt in next_hops.get(todo.pop(), []):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _graph_link(spec_link: GraphLink, key: str, default: QdiscSpec | None = None) -> list[dict[str, Any]]:
    """Returns the one or two core links of a ``[[topology.links]]`` entry (``default``: the
    topology's ``qdisc``, for a link that gives none)."""
    qdisc, qdisc_key = (spec_link.qdisc, f"{key}.qdisc") if spec_link.qdisc is not None else (default, "topology.qdisc")
    forward = link(
        spec_link.name or f"{spec_link.from_}->{spec_link.to}",
        spec_link.from_,
        spec_link.to,
        spec_link.rate,
        spec_link.delay,
        _qdisc(qdisc, qdisc_key, spec_link.rate),
        loss=spec_link.loss,
        metric=spec_link.metric,
    )
    if not spec_link.duplex:
        return [forward]
    reverse_qdisc = spec_link.reverse_qdisc if spec_link.reverse_qdisc is not None else qdisc
    reverse = link(
        f"{spec_link.to}->{spec_link.from_}",
        spec_link.to,
        spec_link.from_,
        spec_link.rate,
        spec_link.delay,
        _qdisc(reverse_qdisc, f"{key}.reverse_qdisc" if spec_link.reverse_qdisc is not None else qdisc_key, spec_link.rate),
        loss=spec_link.loss,
        metric=spec_link.metric,
    )
    return [forward, reverse]


# --- star -------------------------------------------------------------------------------------


def star_hosts(spec: Spec) -> tuple[list[str], list[list[tuple[str, str]]]]:
    """Returns the star's hosts and each group's (src, dst) per flow.

    Raises SpecError naming the flow key when a group lacks an endpoint or uses the switch.
    """
    topo = spec.topology
    assert isinstance(topo, Star)
    _no_pool(spec, "star")
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
                raise SpecError(f"{key}.{field}", _access_value(group, field), "no value: in a star every host link has topology.rate and topology.delay")
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


def star(topo: Star, spec: Spec) -> Built:
    """Returns nodes, links and per-group (src, dst) lists of a star (see the module doc)."""
    hosts, endpoints = star_hosts(spec)
    port = _qdisc(topo.port_qdisc, "topology.port_qdisc", topo.rate)
    nic = _qdisc(topo.host_qdisc, "topology.host_qdisc", topo.rate, default=port)
    under_test = _qdisc(topo.qdisc, "topology.qdisc", topo.rate)
    links: list[dict[str, Any]] = []
    for name in hosts:
        links.append(link(f"{name}->{SWITCH}", name, SWITCH, topo.rate, topo.delay, dict(nic)))
        if name == topo.bottleneck:
            links.append(link(BOTTLENECK, SWITCH, name, topo.rate, topo.delay, under_test))
        else:
            links.append(link(f"{SWITCH}->{name}", SWITCH, name, topo.rate, topo.delay, dict(port)))
    return [SWITCH, *hosts], links, endpoints
