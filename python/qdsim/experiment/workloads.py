"""Flow groups of experiment files → the core's ``SourceConfig``, and each flow's user.

* ``kind = "tcp"`` (the default): ``count`` TCP flows, saturated or of ``size`` bytes each;
  ``kind = "udp_cbr"``: constant-bit-rate UDP at ``rate``, optionally stopping at ``stop``.
* ``kind = "incast"`` (partition/aggregate, Vasudevan et al. 2009; Ismail et al. §III-B):
  ``count`` servers each send ``size`` bytes (or ``total_size / count``, rounded down) to
  ``client`` on a fresh TCP connection, or with ``persistent = true`` on one connection per
  server kept across rounds (its window and RTO survive; ``tcp.idle_restart`` decides
  whether an idle period resets the window); all of a group's flows share the barrier
  ``incast:<group>``, so the client asks again only after every response has arrived, plus
  ``think``. ``rounds`` absent = until the end of the run. Star topologies only (the servers
  are hosts ``<group>.s<i>``).
* ``kind = "short_flows"`` (Ismail et al. §III-D, after Wilson et al. 2011): finite TCP
  transfers from ``src`` to ``dst`` arriving as a Poisson process, sizes uniform in
  ``[size_min, size_max]`` (default 2 kB … 98 kB). The rate is ``arrival_rate`` per second, or
  from an offered ``load`` as a fraction of ``load_rate`` (default: the star's link rate or the
  dumbbell's bottleneck rate): λ = load · C / (8 · mean size), counting application bytes.
  ``size_distribution`` = ``"exponential"``, ``"pareto"`` (with ``pareto_shape`` > 1) or
  ``"fixed"`` replaces the uniform sizes by that law of mean ``size_mean`` (Augé & Roberts'
  flow-level background); ``hosts = N`` (dumbbell only) runs the transfers between N host
  pairs of the group, each behind its own access links (``access_rate``: the paper's 1 Mb/s
  cap per flow), a new transfer taking an idle pair (:mod:`qdsim.experiment.topologies`
  builds them).
* ``kind = "poisson_packets"``: unresponsive packets arriving as a Poisson process offering
  ``rate`` per flow, of fixed or exponential sizes (the core's ``poisson_packets``). Under
  per-flow fair queueing, a background of many small flows is ``count`` flows of
  ``rate / count`` each (their superposition is again Poisson at the total rate).

* ``kind = "on_off"`` (Kantawala & Turner 2005, §4): each flow is one TCP connection that
  sends a ``burst`` (``"256pkt"``: full segments, or bytes), waits an exponential ``idle``
  time (mean 2 s) after the receiver has it, and sends the next burst; ``first_burst``
  (``"idle"``: the source starts with an idle time; ``"start"``: with a burst). Every burst
  is a transfer of the flow with its completion time.

Incast and short flows are data-center workloads; they become the core's ``tcp`` source with
``repeat`` and its ``short_flows`` source. On-off groups become the core's ``on_off`` source.

User ids (:func:`user_ids`) are global and assigned in file order: a group with ``users = k``
takes the next ``k`` ids (its flow ``i`` belongs to the ``i // (count // k)``-th), a group
without takes one id for all its flows. Without any ``users`` key this equals the core's
default (the group's index), so the flow's ``user`` is then left out of the configuration.
"""

from __future__ import annotations

from typing import Any

from ..errors import SpecError
from . import algorithms
from .spec import Dumbbell, IncastFlows, OnOffFlows, PoissonPacketsFlows, ShortFlows, Spec, Star, TcpFlows, UdpCbrFlows

__all__ = ["CATALOG", "arrival_rate_per_s", "catalog", "check_topology", "mean_size", "source", "user_ids"]


def _param(name: str, unit: str, default: str, help_: str) -> dict[str, str]:
    return {"name": name, "unit": unit, "default": default, "help": help_}


def _tcp_params(whose: str, tcp_note: str = "") -> list[dict[str, str]]:
    """Returns the ``cc`` and ``tcp`` keys every TCP-carrying workload kind shares."""
    return [
        _param("cc", "name", "the profile's", f"congestion control of {whose} (without it, the profile's)"),
        _param("tcp", "table", "{}", f"TCP options, as for `tcp`{tcp_note}"),
    ]


#: The workload kinds for ``qdsim list``, in the core catalog's format. The flow group's common
#: keys (``group``, ``count``, ``start``, ...) and the ``tcp`` table are those of ``tcp``.
CATALOG: list[dict[str, Any]] = [
    {
        "name": "incast",
        "summary": "Partition/aggregate (star only): `count` servers answer `client` in rounds; the next round starts when every response has arrived",
        "params": [
            _param("client", "name", "(required)", "the host that asks and receives"),
            _param("size", "bytes", "(size or total_size)", "bytes each server sends per round"),
            _param("total_size", "bytes", "(size or total_size)", "bytes per round, split over the servers (rounded down)"),
            _param("rounds", "int", "until the end", "rounds to run"),
            _param("think", "time", "0s", "pause between a round's last response and the next request"),
            _param("persistent", "bool", "false", "one connection per server across rounds (window and RTO survive), else a fresh one per response"),
            *_tcp_params("the responses"),
        ],
    },
    {
        "name": "short_flows",
        "summary": "Finite TCP transfers src -> dst arriving as a Poisson process, sizes uniform in [size_min, size_max]",
        "params": [
            _param("load", "float", "(load or arrival_rate)", "offered load as a fraction of load_rate, in (0, 1]"),
            _param("load_rate", "bit/s", "the star's link or the bottleneck rate", "the rate `load` is a fraction of"),
            _param("arrival_rate", "float", "(load or arrival_rate)", "transfers per second"),
            _param("size_min", "bytes", "2000B", "smallest transfer (uniform sizes)"),
            _param("size_max", "bytes", "98000B", "largest transfer (uniform sizes)"),
            _param("size_distribution", "name", "uniform", "uniform in [size_min, size_max]; exponential, pareto or fixed of mean size_mean (rounded to whole bytes, at least 1)"),
            _param("size_mean", "bytes", "(required unless uniform)", "mean size of the exponential, Pareto or fixed law"),
            _param("pareto_shape", "float", "(required with pareto)", "Pareto shape alpha > 1 (finite mean; infinite variance up to 2)"),
            _param(
                "hosts",
                "int",
                "none (all transfers from one host)",
                "dumbbell only: transfers run between this many host pairs, each behind its own access links (access_rate); a new one takes an idle pair, else shares one (counted: shared_arrivals)",
            ),
            _param("stop", "time", "end of run", "no arrivals after this time"),
            *_tcp_params("the transfers"),
        ],
    },
    {
        "name": "on_off",
        "summary": "On-off TCP sources (Kantawala & Turner 2005): one connection per flow sends a burst, idles an exponential time once it has arrived, then the next; each burst is a transfer",
        "params": [
            _param("burst", "pkts|bytes", "256pkt", "burst size in full segments (pkt) or bytes of data; the paper's 256 packets"),
            _param("idle", "time", "2s", "mean of the exponential idle time after a burst completes; the paper's 2 s"),
            _param("first_burst", "name", "idle", "idle: the first burst after one idle time from the flow's start; start: at the flow's start"),
            *_tcp_params("the connection (reno, tahoe, ...)", " (idle_restart: restart from the initial window after an idle RTO)"),
        ],
    },
]


def check_topology(spec: Spec) -> None:
    """Raises SpecError when a workload kind is used with a topology that cannot host it."""
    for index, group in enumerate(spec.flows):
        if isinstance(group, IncastFlows) and not isinstance(spec.topology, Star):
            raise SpecError(f"flows.{index}.kind", "incast", f'a kind other than incast: incast needs [topology] kind = "star" (this is "{spec.topology.kind}")')


def arrival_rate_per_s(group: ShortFlows, spec: Spec, key: str) -> float:
    """Returns the Poisson arrival rate of a short-flow group (see the module doc)."""
    if (group.load is None) == (group.arrival_rate is None):
        raise SpecError(f"{key}.load", group.load if group.load is not None else SpecError.MISSING, "exactly one of load (a fraction of load_rate) and arrival_rate (per second)")
    if group.arrival_rate is not None:
        return float(group.arrival_rate)
    rate = group.load_rate
    if rate is None:
        topo = spec.topology
        if isinstance(topo, Star):
            rate = topo.rate
        elif isinstance(topo, Dumbbell):
            rate = topo.bottleneck_rate
        else:
            raise SpecError(f"{key}.load_rate", SpecError.MISSING, 'a rate such as "1Gbps" (the capacity `load` is a fraction of; needed in a graph)')
    return group.load * rate / (8 * mean_size(group, key))


def mean_size(group: ShortFlows, key: str) -> float:
    """Returns the mean transfer size of a short-flow group in bytes, checking its size keys.

    Raises SpecError when ``size_mean`` or ``pareto_shape`` is missing where the law needs it,
    or set, with ``size_min`` / ``size_max``, where it does not apply.
    """
    law = group.size_distribution
    if law == "uniform":
        for name in ("size_mean", "pareto_shape"):
            if getattr(group, name) is not None:
                raise SpecError(f"{key}.{name}", getattr(group, name), 'no value with size_distribution = "uniform" (sizes in [size_min, size_max])')
        if group.size_max < group.size_min:
            raise SpecError(f"{key}.size_max", group.size_max, f">= size_min ({group.size_min} bytes)")
        return (group.size_min + group.size_max) / 2
    for name in ("size_min", "size_max"):
        if name in group.model_fields_set:
            raise SpecError(f"{key}.{name}", getattr(group, name), f'no value with size_distribution = "{law}" (only with "uniform")')
    if group.size_mean is None:
        raise SpecError(f"{key}.size_mean", SpecError.MISSING, f'a mean size such as "100KB" (size_distribution = "{law}")')
    if (law == "pareto") != (group.pareto_shape is not None):
        value = group.pareto_shape if group.pareto_shape is not None else SpecError.MISSING
        raise SpecError(f"{key}.pareto_shape", value, 'a shape > 1 with size_distribution = "pareto", and only with it')
    return float(group.size_mean)


def source(group: TcpFlows | UdpCbrFlows | IncastFlows | ShortFlows | OnOffFlows | PoissonPacketsFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of a flow group; ``key`` is its key path, for errors.

    ``tcp`` is the group's ``TcpConfig`` (:func:`qdsim.experiment.tcp_options.tcp_config`;
    None for UDP), translated by the caller so that this module stays below the parameter
    catalog (which lists this module's workload kinds).
    """
    if isinstance(group, UdpCbrFlows):
        cbr: dict[str, Any] = {"kind": "udp_cbr", "rate_bps": group.rate}
        if group.packet_size is not None:
            cbr["packet_bytes"] = group.packet_size
        if group.stop is not None:
            cbr["stop_ns"] = group.stop
        return cbr
    if isinstance(group, TcpFlows):
        tcp_source: dict[str, Any] = {"kind": "tcp", "tcp": tcp}
        if group.size is not None:
            tcp_source["size_bytes"] = group.size
        return tcp_source
    if isinstance(group, PoissonPacketsFlows):
        return _poisson_source(group, key)
    if isinstance(group, OnOffFlows):
        which, amount = group.burst
        return {"kind": "on_off", f"burst_{which}": amount, "idle_ns": group.idle, "first_burst": group.first_burst, "tcp": tcp}
    return _workload_source(group, key, spec, tcp)


#: The core's smallest datagram (40 bytes of headers and one of payload) and its default
#: largest exponential size (an IP datagram's largest).
MIN_DATAGRAM, MAX_DATAGRAM = 41, 65535


def _poisson_source(group: PoissonPacketsFlows, key: str) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of a Poisson packet group (keys left at their
    default are left out: the core's defaults). Raises SpecError when a size is below a
    datagram's 41 bytes or ``min_packet_size`` ≤ ``packet_size`` ≤ ``max_packet_size`` fails."""
    for name in ("min_packet_size", "max_packet_size"):
        if getattr(group, name) is not None and group.size_distribution == "fixed":
            raise SpecError(f"{key}.{name}", f"{getattr(group, name)}B", 'no value with size_distribution = "fixed" (it bounds exponential sizes)')
    sizes = {"min_packet_size": group.min_packet_size or MIN_DATAGRAM, "packet_size": group.packet_size or 1500, "max_packet_size": group.max_packet_size or MAX_DATAGRAM}
    for name, value in sizes.items():
        if value < MIN_DATAGRAM:
            raise SpecError(f"{key}.{name}", f"{value}B", f"at least {MIN_DATAGRAM}B (40 bytes of headers and one of payload)")
    if sizes["packet_size"] > sizes["max_packet_size"]:
        raise SpecError(f"{key}.max_packet_size", f"{sizes['max_packet_size']}B", f">= packet_size ({sizes['packet_size']}B)")
    if sizes["min_packet_size"] > sizes["packet_size"]:
        raise SpecError(f"{key}.min_packet_size", f"{sizes['min_packet_size']}B", f"<= packet_size ({sizes['packet_size']}B)")
    out: dict[str, Any] = {"kind": "poisson_packets", "rate_bps": group.rate, "size_distribution": group.size_distribution}
    for name, core in (("packet_size", "packet_bytes"), ("min_packet_size", "min_packet_bytes"), ("max_packet_size", "max_packet_bytes"), ("stop", "stop_ns")):
        if getattr(group, name) is not None:
            out[core] = getattr(group, name)
    return out


def _workload_source(group: IncastFlows | ShortFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of an incast or short-flow group."""
    if isinstance(group, IncastFlows):
        if (group.size is None) == (group.total_size is None):
            raise SpecError(f"{key}.size", group.size if group.size is not None else SpecError.MISSING, "exactly one of size (bytes per server) and total_size (split over count)")
        size = group.size if group.size is not None else group.total_size // group.count
        if size <= 0:
            raise SpecError(f"{key}.total_size", group.total_size, f"at least count ({group.count}) bytes")
        repeat: dict[str, Any] = {"barrier": f"incast:{group.group}", "think_ns": group.think, "persistent": group.persistent}
        if group.rounds is not None:
            repeat["rounds"] = group.rounds
        return {"kind": "tcp", "size_bytes": size, "tcp": tcp, "repeat": repeat}
    mean_size(group, key)
    out: dict[str, Any] = {"kind": "short_flows", "arrival_rate_per_s": arrival_rate_per_s(group, spec, key)}
    if group.size_distribution == "uniform":
        out |= {"size_min_bytes": group.size_min, "size_max_bytes": group.size_max}
    elif group.size_distribution == "fixed":
        out["sizes"] = {"distribution": "fixed", "bytes": group.size_mean}
    else:
        out["sizes"] = {"distribution": group.size_distribution, "mean_bytes": group.size_mean}
        if group.pareto_shape is not None:
            out["sizes"]["shape"] = group.pareto_shape
    out["tcp"] = tcp
    if group.stop is not None:
        out["stop_ns"] = group.stop
    return out


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
    (:func:`qdsim.experiment.algorithms.core_catalog`) with the workload kinds resolved in
    Python (:data:`CATALOG`) added to its traffic kinds.

    The core lists a TCP flow's profile and options among the ``tcp`` kind's parameters; a
    file writes them inside the group's ``tcp = { ... }`` table, so they are named as the
    file's keys: ``tcp.profile``, ``tcp.packet_size`` (a top-level ``packet_size`` is the
    UDP source's)."""
    core = algorithms.core_catalog()
    in_tcp_table = {"profile"} | {option["name"] for option in core["tcp"]}
    traffic = [{**kind, "params": [{**p, "name": f"tcp.{p['name']}"} if p["name"] in in_tcp_table else p for p in kind["params"]]} if kind["name"] == "tcp" else kind for kind in core["traffic"]]
    return {**core, "traffic": traffic + CATALOG}
