"""TCP options of a flow group: the experiment file's ``tcp = {...}`` → the core's ``TcpConfig``.

Every fact about an option — its key, the ``TcpConfig`` field it sets, its unit, default and
largest value — comes from the core's catalog (:func:`qdsim.algorithms.tcp_options`):
:func:`options_model` builds the pydantic model of ``tcp = {...}`` from it and
:func:`tcp_config` maps keys to fields by it, so an option added to the core needs no change
here.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, create_model

from . import _core, algorithms
from .errors import SpecError
from .units import format_duration

__all__ = ["options_model", "tcp_config"]


def options_model(base: type[BaseModel], types: Mapping[str, Any]) -> type[BaseModel]:
    """Returns the model of ``tcp = {...}``, a subclass of ``base``: one optional field per
    option of the core, of type ``types[unit]``, a number bounded by the option's ``max``
    (the core field's largest value), or for unit ``name`` one of the option's ``values``;
    absent (``None``) by default."""
    fields: dict[str, Any] = {}
    for option in algorithms.tcp_options():
        kind = Literal[tuple(option["values"])] if option["unit"] == "name" else types[option["unit"]]
        if option["max"] is not None:
            kind = Annotated[kind, Field(lt=option["max"] + 1)]
        fields[option["name"]] = (kind | None, Field(None, description=option["help"]))
    model = create_model("TcpOptions", __base__=base, **fields)
    model.__doc__ = "``tcp = {...}`` of a TCP flow group: overrides of the core's TCP defaults."
    return model


def tcp_config(group: Any, key: str) -> dict[str, Any]:
    """Returns the core's ``TcpConfig`` of a TCP-carrying flow group (its ``tcp = {...}``
    options and ``cc``); ``key`` is the group's key path, used in errors."""
    by_name = {o["name"]: o for o in algorithms.tcp_options()}
    options = group.tcp.model_dump(exclude_none=True)
    tcp = {by_name[name]["field"]: value for name, value in options.items()}
    if group.cc is not None:
        names = algorithms.cc_names()
        if group.cc not in names:
            raise SpecError(f"{key}.cc", group.cc, f"one of {', '.join(names)} (see `qdsim list`)")
        tcp["cc"] = group.cc
    # The core's cross-checks (e.g. max_rto >= min_rto), named by the file's key and value.
    fields = {by_name[name]["field"]: (name, format_duration(v) if by_name[name]["unit"] == "time" else v) for name, v in options.items()}
    algorithms.core_checked(lambda: _core.check_tcp(json.dumps(tcp)), f"{key}.tcp", fields)
    return tcp
