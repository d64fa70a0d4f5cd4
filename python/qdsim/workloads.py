"""Data-center workloads of experiment files: incast rounds and Poisson short flows.

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
  dumbbell's bottleneck rate): λ = load · C / (8 · (size_min + size_max) / 2), counting
  application bytes.

Both become the core's ``SourceConfig`` (``tcp`` with ``repeat``, ``short_flows``).
"""

from __future__ import annotations

from typing import Any

from .errors import SpecError
from .spec import Dumbbell, IncastFlows, ShortFlows, Spec, Star
from .tcp_options import tcp_config

__all__ = ["CATALOG", "arrival_rate_per_s", "check_topology", "handles", "source"]


def _param(name: str, unit: str, default: str, help_: str) -> dict[str, str]:
    return {"name": name, "unit": unit, "default": default, "help": help_}


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
            _param("cc", "name", "newreno", "congestion control of the responses"),
            _param("tcp", "table", "{}", "TCP options, as for `tcp`"),
        ],
    },
    {
        "name": "short_flows",
        "summary": "Finite TCP transfers src -> dst arriving as a Poisson process, sizes uniform in [size_min, size_max]",
        "params": [
            _param("load", "float", "(load or arrival_rate)", "offered load as a fraction of load_rate, in (0, 1]"),
            _param("load_rate", "bit/s", "the star's link or the bottleneck rate", "the rate `load` is a fraction of"),
            _param("arrival_rate", "float", "(load or arrival_rate)", "transfers per second"),
            _param("size_min", "bytes", "2000B", "smallest transfer"),
            _param("size_max", "bytes", "98000B", "largest transfer"),
            _param("stop", "time", "end of run", "no arrivals after this time"),
            _param("cc", "name", "newreno", "congestion control of the transfers"),
            _param("tcp", "table", "{}", "TCP options, as for `tcp`"),
        ],
    },
]


def handles(group: Any) -> bool:
    """Returns whether ``group`` is a workload kind of this module."""
    return isinstance(group, (IncastFlows, ShortFlows))


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
    mean_bytes = (group.size_min + group.size_max) / 2
    return group.load * rate / (8 * mean_bytes)


def source(group: IncastFlows | ShortFlows, key: str, spec: Spec) -> dict[str, Any]:
    """Returns the core's ``SourceConfig`` of a workload group."""
    tcp = tcp_config(group, key)
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
    if group.size_max < group.size_min:
        raise SpecError(f"{key}.size_max", group.size_max, f">= size_min ({group.size_min} bytes)")
    out: dict[str, Any] = {
        "kind": "short_flows",
        "arrival_rate_per_s": arrival_rate_per_s(group, spec, key),
        "size_min_bytes": group.size_min,
        "size_max_bytes": group.size_max,
        "tcp": tcp,
    }
    if group.stop is not None:
        out["stop_ns"] = group.stop
    return out
