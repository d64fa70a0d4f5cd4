"""Resolution: a validated experiment :class:`~qdsim.spec.Spec` → the core's ``RunConfig``.

The result is a plain dict that serialises to the JSON ``qdsim._core.run`` takes: every
node and unidirectional link explicit, every quantity an integer (ns, bit/s, bytes).

The dumbbell shorthand expands to routers ``r1`` and ``r2`` and, for flow ``i`` of group
``g``, a sender ``g.s<i>`` and a receiver ``g.d<i>``. Links, all duplex (one link per
direction):

* ``g.s<i>`` ↔ ``r1``: the group's ``access_rate`` / ``access_delay``;
* ``r1`` → ``r2``, named ``bottleneck``: ``bottleneck_rate`` / ``bottleneck_delay``, the
  spec's ``qdisc`` and ``loss``; its reverse ``r2->r1`` gets ``reverse_qdisc`` if given;
* ``r2`` ↔ ``g.d<i>``: the group's ``access_rate`` and the topology's ``receiver_delay``.

Every link without a qdisc of its own gets :data:`~qdsim.algorithms.DEFAULT_QDISC`, a FIFO
that never drops. Other links are named ``"<from>-><to>"``. A flow's base RTT is
``2 × (access_delay + bottleneck_delay + receiver_delay)`` plus serialisation times.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from . import algorithms, topologies, workloads
from .errors import SpecError
from .spec import Dumbbell, Graph, GraphLink, QdiscSpec, Spec, Star, TcpFlows, UdpCbrFlows
from .tcp_options import tcp_config
from .units import format_duration

__all__ = ["BOTTLENECK", "config_json", "resolve", "user_of_flows"]

#: Name of the dumbbell's forward bottleneck link.
BOTTLENECK = "bottleneck"


def config_json(config: dict[str, Any]) -> str:
    """Returns the canonical JSON of a run configuration (sorted keys, no spaces)."""
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def resolve(spec: Spec, seed: int | None = None) -> dict[str, Any]:
    """Returns the core's ``RunConfig`` dict for ``spec`` (seed: ``seed`` or the spec's).

    Raises SpecError for values only checkable here: qdisc kinds and parameters,
    congestion controls, node references, keys that do not fit the topology kind.
    """
    exp = spec.experiment
    if exp.warmup >= exp.duration:
        raise SpecError("experiment.warmup", format_duration(exp.warmup), f"a warm-up shorter than the duration ({format_duration(exp.duration)})")
    _check_group_names(spec)
    workloads.check_topology(spec)
    owners = _users(spec)
    if isinstance(spec.topology, Dumbbell):
        nodes, links, endpoints = _dumbbell(spec.topology, spec)
    elif isinstance(spec.topology, Star):
        nodes, links, endpoints = topologies.star(spec.topology, spec, BOTTLENECK)
    else:
        nodes, links, endpoints = _graph(spec.topology, spec)
    flows = []
    for index, group in enumerate(spec.flows):
        key = f"flows.{index}"
        if group.start >= exp.duration:
            raise SpecError(f"{key}.start", format_duration(group.start), f"a start before the end of the run ({format_duration(exp.duration)})")
        source = workloads.source(group, key, spec) if workloads.handles(group) else _source(group, key)
        for i, (src, dst) in enumerate(endpoints[index]):
            flow = {
                "group": group.group,
                "src": src,
                "dst": dst,
                "start_ns": group.start,
                "start_jitter_ns": group.start_window,
                "source": source,
            }
            if owners is not None:
                flow["user"] = owners[index][i]
            flows.append(flow)
    config: dict[str, Any] = {
        "seed": exp.seed if seed is None else seed,
        "duration_ns": exp.duration,
        "warmup_ns": exp.warmup,
        "nodes": nodes,
        "links": links,
        "flows": flows,
    }
    sampling = spec.sampling
    if sampling is not None and (sampling.queues or sampling.tcp or sampling.tcp_on_change or sampling.tcp_events):
        config["sampling"] = {
            "interval_ns": sampling.interval,
            "queues": sampling.queues,
            "tcp": sampling.tcp,
            "tcp_on_change": sampling.tcp_on_change,
            "tcp_events": sampling.tcp_events,
        }
    return config


def _users(spec: Spec) -> list[list[int]] | None:
    """Returns the global user id of every flow, per group; None if no group sets ``users``.

    Ids are assigned in file order: a group with ``users = k`` takes the next ``k`` ids (its
    flow ``i`` belongs to the ``i // (count // k)``-th), a group without takes one id for all
    its flows. Without any ``users`` key this equals the core's default (the group's index),
    so the flow's ``user`` is then left out of the configuration.
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


def user_of_flows(config: dict[str, Any]) -> list[int]:
    """Returns each flow's user id in a resolved configuration (the core's default if unset)."""
    group_index: dict[str, int] = {}
    users = []
    for flow in config["flows"]:
        default = group_index.setdefault(flow["group"], len(group_index))
        users.append(flow.get("user", default))
    return users


def _check_group_names(spec: Spec) -> None:
    seen: set[str] = set()
    for index, group in enumerate(spec.flows):
        if group.group in seen:
            raise SpecError(f"flows.{index}.group", group.group, "a group name not used by another [[flows]] entry")
        seen.add(group.group)


def _qdisc(qdisc: QdiscSpec | None, key: str, rate_bps: int) -> dict[str, Any]:
    if qdisc is None:
        return dict(algorithms.DEFAULT_QDISC)
    return algorithms.qdisc_config(qdisc.kind, qdisc.params, key, rate_bps)


def _link(name: str, src: str, dst: str, rate: int, delay: int, qdisc: dict[str, Any], loss: float = 0.0, metric: int = 1) -> dict[str, Any]:
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


def _duplex(a: str, b: str, rate: int, delay: int) -> list[dict[str, Any]]:
    """Returns both directions of an access link, each with the default qdisc."""
    return [
        _link(f"{a}->{b}", a, b, rate, delay, dict(algorithms.DEFAULT_QDISC)),
        _link(f"{b}->{a}", b, a, rate, delay, dict(algorithms.DEFAULT_QDISC)),
    ]


def _dumbbell(topo: Dumbbell, spec: Spec):
    """Returns nodes, links and per-group (src, dst) lists of a dumbbell."""
    nodes = ["r1", "r2"]
    links = [
        _link(BOTTLENECK, "r1", "r2", topo.bottleneck_rate, topo.bottleneck_delay, _qdisc(topo.qdisc, "topology.qdisc", topo.bottleneck_rate), loss=topo.loss),
        _link("r2->r1", "r2", "r1", topo.bottleneck_rate, topo.bottleneck_delay, _qdisc(topo.reverse_qdisc, "topology.reverse_qdisc", topo.bottleneck_rate)),
    ]
    endpoints = []
    for index, group in enumerate(spec.flows):
        for field in ("src", "dst"):
            if getattr(group, field) is not None:
                raise SpecError(f"flows.{index}.{field}", getattr(group, field), 'no value: dumbbell flows get their own hosts (src/dst are for kind = "graph")')
        rate = group.access_rate if group.access_rate is not None else topo.access_rate
        delay = group.access_delay if group.access_delay is not None else topo.access_delay
        # One sender and one receiver host per user (per flow when `users` is absent): the
        # flows of a user share its access link, as in Menth et al.'s Fig. 2.
        hosts = group.users if group.users is not None else group.count
        per_host = group.count // hosts if group.count % hosts == 0 else 1
        pairs = []
        for h in range(hosts):
            sender, receiver = f"{group.group}.s{h}", f"{group.group}.d{h}"
            nodes += [sender, receiver]
            links += _duplex(sender, "r1", rate, delay)
            links += _duplex("r2", receiver, rate, topo.receiver_delay)
            pairs += [(sender, receiver)] * per_host
        endpoints.append(pairs)
    return nodes, links, endpoints


def _graph(topo: Graph, spec: Spec):
    """Returns nodes, links and per-group (src, dst) lists of a general graph."""
    nodes: list[str] = []
    for index, node in enumerate(topo.nodes):
        if node.name in nodes:
            raise SpecError(f"topology.nodes.{index}.name", node.name, "a node name not used before")
        nodes.append(node.name)
    allowed_nodes = f"the name of a node in topology.nodes ({', '.join(nodes)})"
    links: list[dict[str, Any]] = []
    for index, link in enumerate(topo.links):
        key = f"topology.links.{index}"
        for field, name in (("from", link.from_), ("to", link.to)):
            if name not in nodes:
                raise SpecError(f"{key}.{field}", name, allowed_nodes)
        if link.from_ == link.to:
            raise SpecError(f"{key}.to", link.to, "a node other than `from`")
        for new in _graph_link(link, key):
            if any(old["name"] == new["name"] for old in links):
                raise SpecError(f"{key}.name", new["name"], "a link name not used by another link (set `name`)")
            links.append(new)
    next_hops: dict[str, list[str]] = {}
    for link in links:
        next_hops.setdefault(link["from"], []).append(link["to"])
    reachable = functools.cache(lambda start: _reachable(start, next_hops))
    endpoints = []
    for index, group in enumerate(spec.flows):
        for field in ("access_delay", "access_rate"):
            if getattr(group, field) is not None:
                raise SpecError(f"flows.{index}.{field}", getattr(group, field), 'no value: access links exist only with kind = "dumbbell"')
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
        if group.kind != "udp_cbr" and group.src not in reachable(group.dst):
            raise SpecError(f"flows.{index}.src", group.src, f"a node reachable over topology.links from `{group.dst}`, for the ACKs (no path leads back)")
        endpoints.append([(group.src, group.dst)] * group.count)
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


def _graph_link(link: GraphLink, key: str) -> list[dict[str, Any]]:
    forward = _link(
        link.name or f"{link.from_}->{link.to}",
        link.from_,
        link.to,
        link.rate,
        link.delay,
        _qdisc(link.qdisc, f"{key}.qdisc", link.rate),
        loss=link.loss,
        metric=link.metric,
    )
    if not link.duplex:
        return [forward]
    reverse_qdisc = link.reverse_qdisc if link.reverse_qdisc is not None else link.qdisc
    reverse = _link(
        f"{link.to}->{link.from_}",
        link.to,
        link.from_,
        link.rate,
        link.delay,
        _qdisc(reverse_qdisc, f"{key}.reverse_qdisc" if link.reverse_qdisc is not None else f"{key}.qdisc", link.rate),
        loss=link.loss,
        metric=link.metric,
    )
    return [forward, reverse]


def _source(group: TcpFlows | UdpCbrFlows, key: str) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of a flow group."""
    if isinstance(group, UdpCbrFlows):
        source: dict[str, Any] = {"kind": "udp_cbr", "rate_bps": group.rate}
        if group.packet_size is not None:
            source["packet_bytes"] = group.packet_size
        if group.stop is not None:
            source["stop_ns"] = group.stop
        return source
    source = {"kind": "tcp", "tcp": tcp_config(group, key)}
    if group.size is not None:
        source["size_bytes"] = group.size
    return source
