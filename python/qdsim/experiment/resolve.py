"""Resolution: a validated :class:`~qdsim.experiment.spec.Spec` → the core's ``RunConfig``.

The result is a plain dict that serialises to the JSON ``qdsim._core.run`` takes: every
node and unidirectional link explicit, every quantity an integer (ns, bit/s, bytes).

This module orchestrates; each part is built where it is defined: nodes, links and each
flow's endpoints by :mod:`qdsim.experiment.topologies` (dumbbell, graph, star), each group's
source and the flows' user ids by :mod:`qdsim.experiment.traffic` (one module per kind), qdisc and TCP
parameters by :mod:`qdsim.experiment.algorithms` and :mod:`qdsim.experiment.tcp_options`.
None of them imports this module.
"""

from __future__ import annotations

import json
from typing import Any

from ..errors import SpecError
from . import algorithms, topologies, traffic, units
from .spec import Dumbbell, Pcap, Spec, Star
from .tcp_options import profile_value, tcp_config
from .traffic import ShortFlows, TcpGroup
from .units import format_duration

__all__ = ["config_json", "core_json", "resolve", "with_inline_sources", "with_shared_sources"]


def config_json(config: dict[str, Any]) -> str:
    """Returns the canonical JSON of a run configuration (sorted keys, no spaces)."""
    return json.dumps(config, sort_keys=True, separators=(",", ":"))


def core_json(config: dict[str, Any]) -> str:
    """Returns the JSON the core is given of a run configuration: each source its flows share
    written once (:func:`with_shared_sources`; as it stands if it already names them so), keys
    in their order, no spaces. Not :func:`config_json`, the canonical text that keys sweep
    points: sorting every flow's kilobyte of TCP options made a 400-flow configuration 7.8 ms
    to encode where this takes 1.1 ms, each run of a sweep. A configuration whose flows do
    not each hold a source goes as it is, for the core to name what is missing."""
    flows = config.get("flows")
    whole = "sources" not in config and isinstance(flows, list) and all(isinstance(f, dict) and isinstance(f.get("source"), dict) for f in flows)
    return json.dumps(with_shared_sources(config) if whole else config, separators=(",", ":"))


def with_shared_sources(config: dict[str, Any]) -> dict[str, Any]:
    """Returns ``config`` as ``config.json`` holds it: each source the flows hold listed once
    in ``sources`` (before ``flows``) and each flow naming its own by index (``"source": 0``),
    as the core reads it (``RunConfig::sources``). A group's flows share one source object,
    a kilobyte of TCP options: 10⁵ flows wrote 10⁵ copies of it, 100 of ``config.json``'s
    184 MB and a quarter of ``qdsim run``'s time. :func:`with_inline_sources` undoes it."""
    sources: list[Any] = []
    index: dict[int, int] = {}
    flows = []
    for flow in config["flows"]:
        source = flow["source"]
        at = index.get(id(source))
        if at is None:
            at = index[id(source)] = len(sources)
            sources.append(source)
        flows.append({**flow, "source": at})
    out: dict[str, Any] = {}
    for key, value in config.items():
        if key == "flows":
            out["sources"] = sources
            value = flows
        out[key] = value
    return out


def with_inline_sources(config: dict[str, Any]) -> dict[str, Any]:
    """Returns a configuration read from ``config.json`` with each flow holding its source
    again (the flows that named one by index share its object), as :func:`resolve` made it;
    one without ``sources`` (written before they were shared) as it is."""
    if "sources" not in config:
        return config
    sources = config["sources"]
    flows = [{**flow, "source": sources[flow["source"]]} if isinstance(flow["source"], int) else flow for flow in config["flows"]]
    return {key: flows if key == "flows" else value for key, value in config.items() if key != "sources"}


def resolve(spec: Spec, seed: int | None = None) -> dict[str, Any]:
    """Returns the core's ``RunConfig`` dict for ``spec`` (seed: ``seed`` or the spec's).

    Raises SpecError for values only checkable here: qdisc kinds and parameters,
    congestion controls, node references, keys that do not fit the topology kind.
    """
    exp = spec.experiment
    if exp.warmup >= exp.duration:
        raise SpecError("experiment.warmup", format_duration(exp.warmup), f"a warm-up shorter than the duration ({format_duration(exp.duration)})")
    _check_group_names(spec)
    traffic.check(spec)
    owners = traffic.user_ids(spec)
    if isinstance(spec.topology, Dumbbell):
        nodes, links, endpoints = topologies.dumbbell(spec.topology, spec)
    elif isinstance(spec.topology, Star):
        nodes, links, endpoints = topologies.star(spec.topology, spec)
    else:
        nodes, links, endpoints = topologies.graph(spec.topology, spec)
    flows = []
    for index, group in enumerate(spec.flows):
        key = f"flows.{index}"
        if group.start >= exp.duration:
            raise SpecError(f"{key}.start", format_duration(group.start), f"a start before the end of the run ({format_duration(exp.duration)})")
        tcp = tcp_config(group, key) if isinstance(group, TcpGroup) else None
        source = traffic.source(group, key, spec, tcp)
        pairs = endpoints[index]
        if isinstance(group, ShortFlows) and group.hosts is not None:
            # One generator over its pool of host pairs (topologies.dumbbell built them).
            source = {**source, "hosts": [{"src": src, "dst": dst} for src, dst in pairs]}
            pairs = pairs[:1]
        for i, (src, dst) in enumerate(pairs):
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
        "hosts": _hosts(flows, spec.topology.host_jitter, _profile_jitter(spec, flows)),
    }
    sampling = _sampling(spec, links)
    if sampling is not None:
        config["sampling"] = sampling
    if spec.pcap is not None:
        config["pcap"] = _pcap(spec.pcap, links)
    return config


def _pcap(pcap: Pcap, links: list[dict[str, Any]]) -> dict[str, Any]:
    """Returns the core's capture settings; ``dir`` stays empty until a run names its results
    directory (:func:`qdsim.run.one.prepare_capture`)."""
    return {"links": _link_names("pcap.links", pcap.links, links), "drops": pcap.drops, "dir": ""}


def _link_names(key: str, names: list[str], links: list[dict[str, Any]]) -> list[str]:
    """Returns ``names``, each checked to name a link of ``links`` once (``key.INDEX`` in the
    error)."""
    known, seen = {link["name"] for link in links}, set()
    for index, name in enumerate(names):
        _check_link(f"{key}.{index}", name, known, links)
        if name in seen:
            raise SpecError(f"{key}.{index}", name, "a link listed once")
        seen.add(name)
    return list(names)


def _check_link(key: str, name: str, known: set[str], links: list[dict[str, Any]]) -> None:
    """Raises the error of ``key`` unless ``name`` is one of the ``known`` link names."""
    if name not in known:
        first = [link["name"] for link in links[:8]]
        raise SpecError(key, name, f"the name of a link ({', '.join(first)}{', ...' if len(links) > 8 else ''})")


def _sampling(spec: Spec, links: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Returns the core's ``SamplingConfig`` (None when nothing is recorded). Keys added after
    the first five are written only when set, so the resolved configs of files without them
    stay as they were."""
    s = spec.sampling
    if s is None or not (s.queues or s.tcp or s.tcp_on_change or s.tcp_events or s.qdisc or s.tx_bytes or s.tcp_groups or s.flows_in_progress or s.packets or s.link_delays):
        return None
    out: dict[str, Any] = {"interval_ns": s.interval, "queues": s.queues, "tcp": s.tcp, "tcp_on_change": s.tcp_on_change, "tcp_events": s.tcp_events}
    for name in ("qdisc", "tx_bytes", "flows_in_progress"):
        if getattr(s, name):
            out[name] = True
    if s.tcp_groups is not None:
        groups = [group.group for group in spec.flows]
        for index, name in enumerate(s.tcp_groups):
            if name not in groups:
                raise SpecError(f"sampling.tcp_groups.{index}", name, f"the name of a flow group ({', '.join(groups)})")
        out["tcp_groups"] = list(s.tcp_groups)
    if s.link_delays is not None:
        out["link_delays"] = _link_names("sampling.link_delays", s.link_delays, links)
    if s.packets is not None:
        _check_link("sampling.packets.link", s.packets.link, {link["name"] for link in links}, links)
        if s.packets.stop is not None and s.packets.stop <= s.packets.start:
            raise SpecError("sampling.packets.stop", format_duration(s.packets.stop), f"a time after sampling.packets.start ({format_duration(s.packets.start)})")
        out["packets"] = {"link": s.packets.link, "start_ns": s.packets.start, "max_rows": s.packets.max_rows}
        if s.packets.stop is not None:
            out["packets"]["stop_ns"] = s.packets.stop
    return out


def _profile_jitter(spec: Spec, flows: list[dict[str, Any]]) -> list[int]:
    """Returns each flow's default host jitter: its group's TCP profile's (the default
    profile's for a datagram group), in ns."""
    by_group: dict[str, int] = {}
    for group in spec.flows:
        tcp = getattr(group, "tcp", None)
        profile = algorithms.tcp_profile(getattr(tcp, "profile", None) if tcp is not None else None)
        by_group[group.group] = units.parse_duration(profile_value(profile, "host_jitter"))
    return [by_group[flow["group"]] for flow in flows]


def _hosts(flows: list[dict[str, Any]], jitter_ns: int | None, defaults: list[int]) -> list[dict[str, Any]]:
    """Returns the core's ``hosts``: every flow endpoint, in order of first use, with the
    topology's processing delay ``host_jitter``, or without one the largest default of the
    profiles of the flows it serves (routers are no endpoints: they add none)."""
    jitter: dict[str, int] = {}
    for flow, default in zip(flows, defaults, strict=True):
        for node in (flow["src"], flow["dst"]):
            jitter[node] = max(jitter.get(node, 0), default) if jitter_ns is None else jitter_ns
    return [{"node": node, "jitter_ns": ns} for node, ns in jitter.items()]


def _check_group_names(spec: Spec) -> None:
    """Raises SpecError when two ``[[flows]]`` share a group name (results are keyed by it)."""
    seen: set[str] = set()
    for index, group in enumerate(spec.flows):
        if group.group in seen:
            raise SpecError(f"flows.{index}.group", group.group, "a group name not used by another [[flows]] entry")
        seen.add(group.group)
