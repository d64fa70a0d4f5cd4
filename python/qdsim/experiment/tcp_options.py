"""TCP options of a flow group: the experiment file's ``tcp = {...}`` → the core's ``TcpConfig``.

Every fact about an option — its key, the ``TcpConfig`` field it sets, its unit, the names it
takes, its default and largest value — and every profile (``tcp = { profile = "..." }``) comes
from the core's catalog (:func:`qdsim.experiment.algorithms.tcp_options`,
:func:`qdsim.experiment.algorithms.tcp_profiles`): :func:`options_model` builds the pydantic
model of ``tcp = {...}`` from it and :func:`tcp_config` resolves a group's options — the
profile's ``TcpConfig`` (the default profile when none is named), overridden by the keys the
file sets — so an option or profile added to the core needs no change here.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, Field, create_model

from .. import _core
from ..errors import SpecError
from . import algorithms, units
from .units import format_duration

__all__ = ["options_model", "resolved_options", "tcp_config"]

#: The parser of each numeric unit.
_PARSERS: dict[str, Callable[[object], int]] = {"bytes": units.parse_bytes, "pkts": units.parse_pkts, "time": units.parse_duration}
_KINDS = {"bytes": "bytes", "pkts": "pkts", "time": "duration"}


def _one_of(names: list[str]) -> str:
    return "one of " + ", ".join(json.dumps(n) for n in names)


def _name(names: list[str]) -> Callable[[object], str]:
    """Returns a validator that takes exactly one of ``names``."""

    def check(value: object) -> str:
        if not isinstance(value, str) or value not in names:
            raise units.UnitError(value, _one_of(names))
        return value

    return check


def _number_or_name(unit: str, names: list[str], allow_zero: bool, largest: int) -> Callable[[object], int | str]:
    """Returns a validator that takes one of ``names`` or a quantity of ``unit`` up to ``largest``."""
    allowed = f"{units.ALLOWED[_KINDS[unit]]} {'>= 0' if allow_zero else '> 0'} and <= {largest}, or {_one_of(names)}"

    def check(value: object) -> int | str:
        if isinstance(value, str) and value in names:
            return value
        try:
            amount = _PARSERS[unit](value)
        except units.UnitError:
            raise units.UnitError(value, allowed) from None
        if amount < 0 or (amount == 0 and not allow_zero) or amount > largest:
            raise units.UnitError(value, allowed)
        return amount

    return check


def options_model(base: type[BaseModel], types: Mapping[str, Any], zero_types: Mapping[str, Any]) -> type[BaseModel]:
    """Returns the model of ``tcp = {...}``, a subclass of ``base``: ``profile`` (one of the
    core's profiles) and one optional field per option of the core — a name option takes one
    of its names, a numeric one ``types[unit]`` (``zero_types[unit]`` where 0 is allowed)
    bounded by the option's ``max``, or one of its names; all absent (``None``) by default."""
    profiles = [p["name"] for p in algorithms.tcp_profiles()]
    fields: dict[str, Any] = {
        "profile": (Annotated[str, BeforeValidator(_name(profiles))] | None, Field(None, description="the stack whose defaults the options override")),
    }
    for option in algorithms.tcp_options():
        unit, names = option["unit"], list(option["values"])
        if unit == "name":
            kind: Any = Annotated[str, BeforeValidator(_name(names))]
        elif names:
            kind = Annotated[int | str, BeforeValidator(_number_or_name(unit, names, option["allow_zero"], option["max"]))]
        else:
            kind = (zero_types if option["allow_zero"] else types)[unit]
        if option["max"] is not None and not names:
            kind = Annotated[kind, Field(lt=option["max"] + 1)]
        fields[option["name"]] = (kind | None, Field(None, description=option["help"]))
    model = create_model("TcpOptions", __base__=base, **fields)
    model.__doc__ = "``tcp = {...}`` of a TCP flow group: a profile and overrides of its options."
    return model


def tcp_config(group: Any, key: str) -> dict[str, Any]:
    """Returns the core's complete ``TcpConfig`` of a TCP-carrying flow group: its profile's
    (the default profile when the group names none), the group's ``tcp = {...}`` options over
    it, and ``cc``; ``key`` is the group's key path, used in errors."""
    by_name = {o["name"]: o for o in algorithms.tcp_options()}
    options = group.tcp.model_dump(exclude_none=True)
    profile = algorithms.tcp_profile(options.pop("profile", None))
    tcp = dict(profile["config"])
    tcp.update({by_name[name]["field"]: value for name, value in options.items()})
    if group.cc is not None:
        names = algorithms.cc_names()
        if group.cc not in names:
            raise SpecError(f"{key}.cc", group.cc, f"one of {', '.join(names)} (see `qdsim list`)")
        tcp["cc"] = group.cc
    # An option set where the core would not read it (delayed-ACK details without delayed
    # ACKs, Linux's HyStart outside CUBIC, ...) is refused, as the core declares them.
    algorithms.refuse_idle_keys("tcp", options, lambda name: tcp["cc"] if name == "cc" else options.get(name, profile_value(profile, name)), f"{key}.tcp")
    # The core's cross-checks (e.g. max_rto >= min_rto), named by the file's key and value; a
    # value from the profile is named by the option's key with the profile's value.
    fields = {o["field"]: (name, o["unit"], options.get(name, profile_value(profile, name))) for name, o in by_name.items()}
    rendered = {field: (name, format_duration(v) if unit == "time" and isinstance(v, int) else v) for field, (name, unit, v) in fields.items()}
    algorithms.core_checked(lambda: _core.check_tcp(json.dumps(tcp)), f"{key}.tcp", rendered)
    return tcp


def profile_value(profile: dict[str, Any], option: str) -> str:
    """Returns ``option``'s value in ``profile`` (a catalog entry), as a file writes it."""
    return next(o["value"] for o in profile["options"] if o["option"] == option)


def resolved_options(tcp: dict[str, Any]) -> dict[str, Any]:
    """Returns a resolved ``TcpConfig`` by the experiment file's option names (``cc`` kept),
    durations as text (``"200ms"``): what a flow group ran with, for the run summary."""
    out: dict[str, Any] = {"cc": tcp.get("cc")}
    for option in algorithms.tcp_options():
        value = tcp.get(option["field"])
        out[option["name"]] = format_duration(value) if option["unit"] == "time" and isinstance(value, int) else value
    return out
