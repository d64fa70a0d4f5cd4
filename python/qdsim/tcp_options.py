"""TCP options of a flow group: the experiment file's ``tcp = {...}`` → the core's ``TcpConfig``."""

from __future__ import annotations

import json
from typing import Any

from . import _core, algorithms
from .errors import SpecError
from .units import format_duration

__all__ = ["TCP_KEYS", "tcp_config"]

#: ``tcp = {...}`` key in the experiment file → ``TcpConfig`` field of the core.
TCP_KEYS = {
    "packet_size": "packet_bytes",
    "initial_cwnd": "initial_cwnd_pkts",
    "initial_ssthresh": "initial_ssthresh_pkts",
    "rwnd": "rwnd_bytes",
    "min_rto": "min_rto_ns",
    "max_rto": "max_rto_ns",
    "initial_rto": "initial_rto_ns",
    "dupack_threshold": "dupack_threshold",
    "delayed_ack": "delayed_ack",
    "delayed_ack_count": "delayed_ack_count",
    "delayed_ack_timeout": "delayed_ack_timeout_ns",
    "ecn": "ecn",
    "sack": "sack",
    "hystart": "hystart",
    "limited_transmit": "limited_transmit",
    "linux_rto": "linux_rto",
    "idle_restart": "idle_restart",
    "timestamps": "timestamps",
    "byte_counting": "byte_counting",
    "handshake": "handshake",
}


def tcp_config(group: Any, key: str) -> dict[str, Any]:
    """Returns the core's ``TcpConfig`` of a TCP-carrying flow group (its ``tcp = {...}``
    options and ``cc``); ``key`` is the group's key path, used in errors."""
    options = group.tcp.model_dump(exclude_none=True)
    tcp = {TCP_KEYS[name]: value for name, value in options.items()}
    if group.cc is not None:
        names = algorithms.cc_names()
        if group.cc not in names:
            raise SpecError(f"{key}.cc", group.cc, f"one of {', '.join(names)} (see `qdsim list`)")
        tcp["cc"] = group.cc
    # The core's cross-checks (e.g. max_rto >= min_rto), named by the file's key.
    fields = {TCP_KEYS[name]: (name, format_duration(v) if TCP_KEYS[name].endswith("_ns") else v) for name, v in options.items()}
    algorithms.core_checked(lambda: _core.check_tcp(json.dumps(tcp)), f"{key}.tcp", fields)
    return tcp
