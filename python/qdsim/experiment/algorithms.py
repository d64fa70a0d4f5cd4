"""The simulator's catalog of algorithms, and the translation of their parameters.

The core describes every queue discipline, congestion control and traffic kind it has
(``_core.catalog()``): name, one-line summary and, for each parameter, its experiment-file
key, unit, default and help. ``qdsim list`` prints it, and :func:`qdisc_config` uses the
``unit`` field to turn a qdisc table of an experiment file into the core's ``QdiscConfig``: a
parameter ``name`` with unit ``pkts`` becomes ``name_pkts`` (a packet count), ``bytes`` →
``name_bytes``, ``ns`` or ``time`` → ``name_ns`` (a duration), ``bps`` or ``bit/s`` →
``name_bps`` (a rate), and ``pkts|bytes`` becomes ``name_pkts`` or ``name_bytes`` depending
on the unit written. Parameters with any other unit (``bool``, ``int``, ``float``, ``list``,
``bools``, ...) pass through unchanged (checked to be of their type), so a new qdisc in the
core needs no Python change as long as it follows this naming. The TCP options
(:func:`tcp_options`) name their core field explicitly; :mod:`qdsim.experiment.tcp_options`
builds the experiment file's ``tcp = {...}`` model and translation from them.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

from ..errors import SpecError
from . import units

__all__ = ["DEFAULT_QDISC", "cc_names", "core_catalog", "qdisc_config", "qdisc_names", "tcp_options", "tcp_profile", "tcp_profiles"]

#: The queue of every link not under study: a FIFO that never drops.
DEFAULT_QDISC: dict[str, Any] = {"kind": "fifo"}


@functools.cache
def core_catalog() -> dict[str, Any]:
    """Returns the core's catalog: ``{"qdiscs": [...], "cc": [...], "traffic": [...], "tcp": [...]}``."""
    from .. import _core

    return json.loads(_core.catalog())


def tcp_options() -> list[dict[str, Any]]:
    """Returns the TCP options of a flow group's ``tcp = {...}``, from the core: each with
    ``name``, ``field`` (the core's ``TcpConfig`` field), ``unit``, ``default``, ``help`` and
    ``max`` (the largest value of a numeric option, in the core's unit) and ``values`` (the
    names an option of unit ``name`` takes)."""
    return core_catalog()["tcp"]


def tcp_profiles() -> list[dict[str, Any]]:
    """Returns the TCP profiles, the default first: each with ``name``, ``summary``,
    ``default``, ``options`` (``option``, ``value`` as a file writes it, ``source``) and
    ``config`` (the core's resolved ``TcpConfig``)."""
    return core_catalog()["tcp_profiles"]


def tcp_profile(name: str | None) -> dict[str, Any]:
    """Returns the TCP profile ``name`` (the default profile for None)."""
    profiles = tcp_profiles()
    if name is None:
        return next(p for p in profiles if p["default"])
    return next(p for p in profiles if p["name"] == name)


def qdisc_names() -> list[str]:
    """Returns the names of every queue discipline, as used for ``kind``."""
    return [q["name"] for q in core_catalog()["qdiscs"]]


def cc_names() -> list[str]:
    """Returns the names of every congestion control."""
    return [c["name"] for c in core_catalog()["cc"]]


def _typed(check: Callable[[object], bool], what: str) -> Callable[[object], object]:
    def convert(value: object) -> object:
        if not check(value):
            raise units.UnitError(value, what)
        return value

    return convert


_BOOL = _typed(lambda v: isinstance(v, bool), "true or false")
_INT = _typed(lambda v: isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 2**63, "a whole number >= 0")
_FLOAT = _typed(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v), "a finite number")
_INT_LIST = _typed(
    lambda v: isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and -(2**63) <= x < 2**63 for x in v),
    "a list of whole numbers, e.g. [3, 1, 1]",
)
_BOOL_LIST = _typed(lambda v: isinstance(v, list) and all(isinstance(x, bool) for x in v), "a list of true/false, e.g. [true, true, false]")

#: unit in the catalog → (suffix of the core's key, parser of the experiment-file value)
_UNIT_TRANSLATIONS: dict[str, tuple[str, Callable[[object], Any]]] = {
    "pkts": ("_pkts", units.parse_pkts),
    "bytes": ("_bytes", units.parse_bytes),
    "ns": ("_ns", units.parse_duration),
    "time": ("_ns", units.parse_duration),
    "bps": ("_bps", units.parse_rate),
    "bit/s": ("_bps", units.parse_rate),
    "bool": ("", _BOOL),
    "int": ("", _INT),
    "float": ("", _FLOAT),
    "list": ("", _INT_LIST),
    "bools": ("", _BOOL_LIST),
    "name": ("", _typed(lambda v: isinstance(v, str), "a name, as listed by `qdsim list`")),
}


def _translate(name: str, unit: str, value: object) -> tuple[str, Any]:
    """Returns the core's key and value for one qdisc parameter of the experiment file."""
    if unit == "pkts|bytes":
        which, amount = units.parse_limit(value)
        return f"{name}_{which}", amount
    if unit in _UNIT_TRANSLATIONS:
        suffix, parse = _UNIT_TRANSLATIONS[unit]
        return name + suffix, parse(value)
    return name, value


def qdisc_config(kind: str, params: dict[str, Any], key: str, rate_bps: int) -> dict[str, Any]:
    """Returns the core's ``QdiscConfig`` for qdisc ``kind`` with experiment-file ``params``,
    checked by the core as it will check it on a link of ``rate_bps``.

    ``key`` is the table's key path (e.g. ``topology.qdisc``), used in errors.
    """
    by_name = {q["name"]: q for q in core_catalog()["qdiscs"]}
    if kind not in by_name:
        raise SpecError(f"{key}.kind", kind, f"one of {', '.join(sorted(by_name))} (see `qdsim list`)")
    known = {p["name"]: p for p in by_name[kind]["params"]}
    unknown = next((name for name in params if name not in known), None)
    if unknown is not None:
        raise SpecError(f"{key}.{unknown}", params[unknown], f"a parameter of {kind} ({', '.join(known) or 'none'})")
    from .. import _core

    def checked_selector(name: str) -> object:
        # The key that switches others off is checked first: an unknown `buffer` is the
        # mistake to name, not the keys it would leave unread.
        if name in params:
            try:
                _translate(name, known[name]["unit"], params[name])
            except units.UnitError as exc:
                raise SpecError(f"{key}.{name}", params[name], exc.allowed) from None
            try:
                _core.check_qdisc(json.dumps({"kind": kind, name: params[name]}), rate_bps)
            except _core.ConfigError as exc:
                if getattr(exc, "key", None) == name:
                    raise SpecError(f"{key}.{name}", params[name], str(getattr(exc, "allowed", exc))) from None
        return params.get(name, known[name]["default"])

    refuse_idle_keys(f"qdisc.{kind}", params, checked_selector, key)
    config: dict[str, Any] = {"kind": kind}
    fields: dict[str, tuple[str, object]] = {}
    for name, value in params.items():
        try:
            core_key, core_value = _translate(name, known[name]["unit"], value)
        except units.UnitError as exc:
            raise SpecError(f"{key}.{name}", value, exc.allowed) from None
        config[core_key] = core_value
        fields[core_key] = fields[name] = (name, value)
    core_checked(lambda: _core.check_qdisc(json.dumps(config), rate_bps), key, fields)
    return config


def as_written(value: object) -> str:
    """Returns a key's value as the catalog writes values: booleans ``true``/``false``."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


def refuse_idle_keys(table: str, given: Mapping[str, object], value_of: Callable[[str], object], key: str) -> None:
    """Refuses a key of ``given`` (what the file set in ``table``: ``qdisc.<kind>`` or
    ``tcp``) that the core would not read with the values of the others: the core declares,
    beside the parameters that read them, the keys read only under a value of another key
    (``t_d`` only with ``buffer = "drop_on_dequeue"``); a key under several conditions needs
    them all, and a condition with ``only_while`` applies only while that other key has one
    of its values (``recovery`` needs a NewReno-scheme ``cc`` only without SACK). ``value_of`` returns the value a key
    takes (set, a profile's or the default); ``key`` is the table's key path, for the error.
    """
    for use in core_catalog()["key_uses"]:
        name = use["key"]
        if use["table"] != table or name not in given:
            continue
        if use["value"] is not None and as_written(given[name]) != use["value"]:
            continue
        guard = ""
        if use["only_while"] is not None:
            other, values = use["only_while"]
            if as_written(value_of(other)) not in values:
                continue
            guard = f' and {other} = "{as_written(value_of(other))}"'
        current = as_written(value_of(use["when"]))
        if current not in use["values"]:
            readers = " or ".join(f'"{v}"' for v in use["values"])
            raise SpecError(f"{key}.{name}", given[name], f'no value with {use["when"]} = "{current}"{guard}: read only with {use["when"]} = {readers}')


def core_checked(check: Callable[[], None], key: str, fields: dict[str, tuple[str, object]]) -> None:
    """Runs one of the core's range checks (``check``); a value it refuses becomes a
    SpecError naming the experiment file's key ``<key>.<name>`` and the value as written
    there. ``fields`` maps the core's parameter names (and the file's) to (file name, file
    value); a parameter the file did not set (a default in conflict with a set one) is
    named by its core name with the core's value.
    """
    from .. import _core

    try:
        check()
    except _core.ConfigError as exc:
        core_key = str(getattr(exc, "key", ""))
        name, value = fields.get(core_key) or (core_key, getattr(exc, "value", "?"))
        raise SpecError(f"{key}.{name}", value, str(getattr(exc, "allowed", exc))) from None
