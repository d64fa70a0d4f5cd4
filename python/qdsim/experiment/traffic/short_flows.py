"""``kind = "short_flows"`` (Ismail et al. §III-D, after Wilson et al. 2011): finite TCP
transfers from ``src`` to ``dst`` arriving as a Poisson process.

Sizes are uniform in ``[size_min, size_max]`` (default 2 kB … 98 kB). The rate is
``arrival_rate`` per second, or from an offered ``load`` as a fraction of ``load_rate``
(default: the star's link rate or the dumbbell's bottleneck rate): λ = load · C / (8 · mean
size), counting application bytes. ``size_distribution`` = ``"exponential"``, ``"pareto"``
(with ``pareto_shape`` > 1) or ``"fixed"`` replaces the uniform sizes by that law of mean
``size_mean`` (Augé & Roberts' flow-level background); ``hosts = N`` (dumbbell only) runs the
transfers between N host pairs of the group, each behind its own access links
(``access_rate``: the paper's 1 Mb/s cap per flow), a new transfer taking an idle pair
(:mod:`qdsim.experiment.topologies` builds them). It becomes the core's ``short_flows``
source.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from ...errors import SpecError
from ..fields import MAX_POOL_HOSTS, Duration, PositiveBytes, PositiveRate
from .base import TcpGroup, param, tcp_params

if TYPE_CHECKING:
    from ..spec import Spec

NAME = "short_flows"

#: Its entry in ``qdsim list`` (the flow group's common keys are listed with ``tcp``).
CATALOG: dict[str, Any] = {
    "name": NAME,
    "summary": "Finite TCP transfers src -> dst arriving as a Poisson process, sizes uniform in [size_min, size_max]",
    "params": [
        param("load", "float", "(load or arrival_rate)", "offered load as a fraction of load_rate, in (0, 1]"),
        param("load_rate", "bit/s", "the star's link or the bottleneck rate", "the rate `load` is a fraction of"),
        param("arrival_rate", "float", "(load or arrival_rate)", "transfers per second"),
        param("size_min", "bytes", "2000B", "smallest transfer (uniform sizes)"),
        param("size_max", "bytes", "98000B", "largest transfer (uniform sizes)"),
        param("size_distribution", "name", "uniform", "uniform in [size_min, size_max]; exponential, pareto or fixed of mean size_mean (rounded to whole bytes, at least 1)"),
        param("size_mean", "bytes", "(required unless uniform)", "mean size of the exponential, Pareto or fixed law"),
        param("pareto_shape", "float", "(required with pareto)", "Pareto shape alpha > 1 (finite mean; infinite variance up to 2)"),
        param(
            "hosts",
            "int",
            "none (all transfers from one host)",
            "dumbbell only: transfers run between this many host pairs, each behind its own access links (access_rate); a new one takes an idle pair, else shares one (counted: shared_arrivals)",
        ),
        param("stop", "time", "end of run", "no arrivals after this time"),
        *tcp_params("the transfers"),
    ],
}


class ShortFlows(TcpGroup):
    """``[[flows]]`` with ``kind = "short_flows"``: Poisson arrivals of finite TCP transfers
    (see the module documentation)."""

    kind: Literal["short_flows"]
    load: float | None = Field(None, gt=0, le=1)
    load_rate: PositiveRate | None = None
    arrival_rate: float | None = Field(None, gt=0)
    size_min: PositiveBytes = 2000
    size_max: PositiveBytes = 98000
    size_distribution: Literal["uniform", "exponential", "pareto", "fixed"] = "uniform"
    size_mean: PositiveBytes | None = None
    pareto_shape: float | None = Field(None, gt=1)
    hosts: int | None = Field(None, ge=1, le=MAX_POOL_HOSTS)
    stop: Duration | None = None


MODEL = ShortFlows


def arrival_rate_per_s(group: ShortFlows, spec: Spec, key: str) -> float:
    """Returns the Poisson arrival rate of the group (see the module documentation)."""
    if (group.load is None) == (group.arrival_rate is None):
        raise SpecError(f"{key}.load", group.load if group.load is not None else SpecError.MISSING, "exactly one of load (a fraction of load_rate) and arrival_rate (per second)")
    if group.arrival_rate is not None:
        return float(group.arrival_rate)
    rate = group.load_rate
    if rate is None:
        topo = spec.topology
        if topo.kind == "star":
            rate = topo.rate
        elif topo.kind == "dumbbell":
            rate = topo.bottleneck_rate
        else:
            raise SpecError(f"{key}.load_rate", SpecError.MISSING, 'a rate such as "1Gbps" (the capacity `load` is a fraction of; needed in a graph)')
    return group.load * rate / (8 * mean_size(group, key))


def mean_size(group: ShortFlows, key: str) -> float:
    """Returns the mean transfer size of the group in bytes, checking its size keys.

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


def source(group: ShortFlows, key: str, spec: Spec, tcp: dict[str, Any] | None) -> dict[str, Any]:
    """Returns the core's ``SourceConfig``: ``short_flows`` (the host pool is added by
    :mod:`qdsim.experiment.resolve` once the topology has built it)."""
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
