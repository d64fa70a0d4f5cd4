"""The value types of experiment-file keys, shared by every section's model.

Quantities are parsed from their unit strings into the core's integers (ns, bit/s, bytes,
packets) by :mod:`qdsim.experiment.units`; ``Positive*`` refuse 0. :class:`Strict` is the
base of every section (an unknown key is an error), and :data:`TcpOptions` the model of a
flow group's ``tcp = {...}`` table, generated from the core's catalog.
"""

from __future__ import annotations

import typing
from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StrictBool

from . import tcp_options, units

__all__ = [
    "MAX_FLOWS_PER_GROUP",
    "MAX_HOST_JITTER_NS",
    "MAX_POOL_HOSTS",
    "Bytes",
    "Duration",
    "HostJitter",
    "Name",
    "Pkts",
    "PositiveBytes",
    "PositiveDuration",
    "PositivePkts",
    "PositiveRate",
    "PositiveSize",
    "Probability",
    "Rate",
    "Strict",
    "TcpOptions",
]


def _positive(parse: typing.Callable[[object], int], kind: str) -> typing.Callable[[object], int]:
    def check(value: object) -> int:
        amount = parse(value)
        if amount <= 0:
            raise units.UnitError(value, f"a value > 0; {units.ALLOWED[kind]}")
        return amount

    return check


def _host_jitter(value: object) -> int:
    amount = units.parse_duration(value)
    if amount > MAX_HOST_JITTER_NS:
        raise units.UnitError(value, f"a processing delay of at most 1s; {units.ALLOWED['duration']}")
    return amount


def _probability(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < 1:
        raise units.UnitError(value, "a probability in [0, 1), such as 0.01")
    return float(value)


#: The most flows one ``[[flows]]`` group may have.
MAX_FLOWS_PER_GROUP = 1_000_000

#: The most host pairs a ``short_flows`` group's pool may have (each is two hosts and four
#: links).
MAX_POOL_HOSTS = 100_000

#: Largest ``[topology] host_jitter`` (the core's bound).
MAX_HOST_JITTER_NS = 1_000_000_000


Rate = Annotated[int, BeforeValidator(units.parse_rate)]
PositiveRate = Annotated[int, BeforeValidator(_positive(units.parse_rate, "rate"))]
Duration = Annotated[int, BeforeValidator(units.parse_duration)]
PositiveDuration = Annotated[int, BeforeValidator(_positive(units.parse_duration, "duration"))]
Bytes = Annotated[int, BeforeValidator(units.parse_bytes)]
PositiveBytes = Annotated[int, BeforeValidator(_positive(units.parse_bytes, "bytes"))]
Pkts = Annotated[int, BeforeValidator(units.parse_pkts)]
PositivePkts = Annotated[int, BeforeValidator(_positive(units.parse_pkts, "pkts"))]
Probability = Annotated[float, BeforeValidator(_probability)]
HostJitter = Annotated[int, BeforeValidator(_host_jitter)]


def _positive_size(value: object) -> tuple[str, int]:
    which, amount = units.parse_limit(value)
    if amount <= 0:
        raise units.UnitError(value, f"a size > 0; {units.ALLOWED['limit']}")
    return which, amount


#: A size in packets or bytes: ``("pkts", n)`` or ``("bytes", n)``.
PositiveSize = Annotated[tuple[str, int], BeforeValidator(_positive_size)]
Name = Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z0-9_][A-Za-z0-9_.\-]*$")]


class Strict(BaseModel):
    """Base of every section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, allow_inf_nan=False)


#: ``tcp = {...}`` of a TCP flow group: a profile (``profile = "ns3"``, the default) and
#: overrides of its options, one optional key per TCP option of the core's catalog, typed by
#: its unit (:mod:`qdsim.experiment.tcp_options`).
TcpOptions = tcp_options.options_model(
    Strict,
    {"bytes": PositiveBytes, "pkts": PositivePkts, "time": PositiveDuration, "bool": StrictBool},
    {"bytes": Bytes, "pkts": Pkts, "time": Duration},
)
