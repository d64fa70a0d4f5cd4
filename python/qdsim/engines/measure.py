"""The measurement protocol every engine prints, and the core-shaped results made from it.

An engine's script counts what qdsim counts, in the engine's own terms, and prints it on
stdout as lines of words (``#`` lines are comments)::

    flow <i> start <s>                       the time configured flow i started (seconds)
    snap <phase> flow <i> <key>=<n> ...      flow i's cumulative counters at <phase>
    snap <phase> link <j> <key>=<n> ...      link j's cumulative counters at <phase>
    transfer <i> <round> <start_s> <bytes> <fct_s|->   one finite transfer of flow i
    end <events|->                           the last line; events processed, if counted

``<phase>`` is ``warmup`` (the start of the measurement window) or ``end`` (the end of the
run); a counter over the window is its ``end`` value less its ``warmup`` value, over the run
its ``end`` value. ``i`` and ``j`` index the configuration's ``flows`` and ``links``. A
transfer's ``fct_s`` is from its start until the receiver has every byte, ``-`` if it had not
finished when the run ended. A counter an engine cannot measure is left out, and its column
is null (never a made-up zero).

Flow counters: ``delivered_bytes`` (application bytes delivered in order to the receiver),
``sent_pkts``, ``retransmits`` (segments resent), ``fast_retransmits`` (entries into fast
recovery), ``timeouts`` (retransmission timeouts), ``drops`` (the flow's packets lost on any
link). Link counters: ``arrivals`` (packets offered to the queue), ``tx_pkts`` and
``tx_bytes`` (sent on the wire), ``drops`` (all causes) and ``drop_<reason>`` by the core's
reason names where the engine tells them apart, ``queue_pkt_s`` and ``queue_byte_s`` (the
time integral of the packets and bytes waiting, not counting the one on the wire),
``delay_sum_s`` and ``delay_n`` (the sojourn times of the packets that left the queue).

:func:`results` turns a parsed output into the core's ``RunResults`` shape, with the core's
definitions (``docs/experiment-file.md``): goodput over the window, a group's mean completion
time over the transfers that started in the window with the unfinished ones counted until
the end of the run, utilisation from the bytes sent, loss rate as drops over arrivals.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from ..results.rows import by_column

__all__ = ["Output", "Transfer", "complete", "parse", "results"]

PHASES = ("warmup", "end")


@dataclass(frozen=True)
class Transfer:
    """One finite transfer an engine reported."""

    flow: int
    round: int
    start_s: float
    size_bytes: int
    fct_s: float | None


@dataclass
class Output:
    """An engine's parsed output: counters by phase, flow starts, transfers, events."""

    flows: dict[str, dict[int, dict[str, float]]] = field(default_factory=lambda: {p: defaultdict(dict) for p in PHASES})
    links: dict[str, dict[int, dict[str, float]]] = field(default_factory=lambda: {p: defaultdict(dict) for p in PHASES})
    starts: dict[int, float] = field(default_factory=dict)
    transfers: list[Transfer] = field(default_factory=list)
    events: int | None = None


def complete(text: str) -> bool:
    """Returns whether ``text`` ends with the protocol's ``end`` line (the run finished)."""
    lines = [line for line in text.strip().splitlines() if line.strip() and not line.startswith("#")]
    return bool(lines) and lines[-1].split()[0] == "end"


def _number(text: str) -> float:
    value = float(text)
    return int(value) if value.is_integer() and "." not in text and "e" not in text.lower() else value


def parse(text: str) -> Output:
    """Returns the protocol lines of ``text`` (anything else an engine prints is ignored).

    Raises ValueError on a malformed protocol line."""
    out = Output()
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        try:
            kind = words[0]
            if kind == "snap" and words[2] in ("flow", "link"):
                phase, what, index = words[1], words[2], int(words[3])
                if phase not in PHASES:
                    raise ValueError(f"phase {phase!r}")
                target = (out.flows if what == "flow" else out.links)[phase][index]
                for pair in words[4:]:
                    key, _, value = pair.partition("=")
                    target[key] = _number(value)
            elif kind == "flow" and words[2] == "start":
                out.starts[int(words[1])] = float(words[3])
            elif kind == "transfer":
                fct = None if words[5] == "-" else float(words[5])
                out.transfers.append(Transfer(int(words[1]), int(words[2]), float(words[3]), int(words[4]), fct))
            elif kind == "end":
                out.events = None if len(words) < 2 or words[1] == "-" else int(words[1])
        except (IndexError, ValueError) as exc:
            raise ValueError(f"line {number}: {line.strip()!r} is not a protocol line ({exc})") from None
    return out


def _window(out: Output, what: str, index: int, key: str) -> float | None:
    """Returns a counter over the window (end − warmup), None if the engine did not report it."""
    table = out.flows if what == "flow" else out.links
    end = table["end"].get(index, {}).get(key)
    if end is None:
        return None
    return end - table["warmup"].get(index, {}).get(key, 0)


def _total(out: Output, what: str, index: int, key: str) -> float | None:
    table = out.flows if what == "flow" else out.links
    return table["end"].get(index, {}).get(key)


def _int(value: float | None) -> int | None:
    return None if value is None else round(value)


def _cc(source: dict[str, Any]) -> str:
    tcp = source.get("tcp")
    return tcp["cc"] if tcp else ""


def _flows(config: dict[str, Any], out: Output, window_s: float, fct: dict[int, Transfer]) -> list[dict[str, Any]]:
    rows = []
    for i, flow in enumerate(config["flows"]):
        source = flow["source"]
        finite = source["kind"] == "tcp" and source.get("size_bytes") is not None
        first = fct.get(i)
        delivered = _window(out, "flow", i, "delivered_bytes")
        start = out.starts.get(i, flow.get("start_ns", 0) / 1e9)
        row: dict[str, Any] = {
            "id": i,
            "group": flow["group"],
            "src": flow["src"],
            "dst": flow["dst"],
            "kind": source["kind"],
            "cc": _cc(source),
            "start_s": start,
            "size_bytes": source.get("size_bytes") if source["kind"] == "tcp" else None,
            "delivered_bytes": _int(delivered) if delivered is not None else 0,
            "goodput_bps": (delivered or 0) * 8 / window_s,
            "delivered_bytes_total": _int(_total(out, "flow", i, "delivered_bytes")),
            "fct_s": None,
            "finished": None,
            "mean_queue_delay_s": None,
            "rwnd_limited": None,  # no engine reports its window against the receiver's
        }
        for key in ("sent_pkts", "retransmits", "fast_retransmits", "timeouts", "drops"):
            row[key] = _int(_window(out, "flow", i, key))
            row[f"{key}_total"] = _int(_total(out, "flow", i, key))
        if finite:
            duration = config["duration_ns"] / 1e9
            if first is None or first.fct_s is None:
                row["fct_s"], row["finished"] = duration - (first.start_s if first else start), False
            else:
                row["fct_s"], row["finished"] = first.fct_s, True
        rows.append(row)
    return rows


def _groups(config: dict[str, Any], flows: list[dict[str, Any]], out: Output) -> list[dict[str, Any]]:
    warmup, duration = config.get("warmup_ns", 0) / 1e9, config["duration_ns"] / 1e9
    group_of = [f["group"] for f in config["flows"]]
    times: dict[str, list[float]] = defaultdict(list)
    done: dict[str, int] = defaultdict(int)
    for t in out.transfers:
        if not warmup <= t.start_s < duration:
            continue
        group = group_of[t.flow]
        times[group].append(t.fct_s if t.fct_s is not None else duration - t.start_s)
        done[group] += t.fct_s is not None
    rows = []
    for group in sorted({f["group"] for f in flows}):
        members = [f for f in flows if f["group"] == group]
        rows.append(
            {
                "group": group,
                "flows": len(members),
                "goodput_bps": sum(f["goodput_bps"] for f in members),
                "delay_samples": None,
                "mean_queue_delay_s": None,
                "p50_queue_delay_s": None,
                "p95_queue_delay_s": None,
                "p99_queue_delay_s": None,
                "mean_fct_s": sum(times[group]) / len(times[group]) if times[group] else None,
                "transfers_completed": done[group],
                "unfinished_transfers": len(times[group]) - done[group],
            }
        )
    return rows


def _links(config: dict[str, Any], out: Output, window_s: float) -> list[dict[str, Any]]:
    rows = []
    for j, link in enumerate(config["links"]):

        def w(key: str, j: int = j) -> float | None:
            return _window(out, "link", j, key)

        arrivals, drops, tx_bytes = w("arrivals"), w("drops"), w("tx_bytes")
        # Reasons with drops in the window only, as the core reports them.
        by_reason = {key[len("drop_") :]: _int(w(key)) for key in out.links["end"].get(j, {}) if key.startswith("drop_")}
        by_reason = {reason: n for reason, n in by_reason.items() if n}
        queue_pkt_s, queue_byte_s = w("queue_pkt_s"), w("queue_byte_s")
        delay_sum, delay_n = w("delay_sum_s"), w("delay_n")
        rows.append(
            {
                "name": link["name"],
                "from": link["from"],
                "to": link["to"],
                "rate_bps": link["rate_bps"],
                "delay_s": link["delay_ns"] / 1e9,
                "qdisc": link["qdisc"]["kind"],
                "utilization": None if tx_bytes is None else tx_bytes * 8 / (link["rate_bps"] * window_s),
                "tx_pkts": _int(w("tx_pkts")),
                "tx_bytes": _int(tx_bytes),
                "arrivals": _int(arrivals),
                "drops": _int(drops),
                "drops_by_reason": by_reason,
                "marks": None,
                "marks_by_reason": {},
                "loss_rate": None if drops is None or arrivals is None else (drops / arrivals if arrivals else 0.0),
                "mean_queue_pkts": None if queue_pkt_s is None else queue_pkt_s / window_s,
                "mean_queue_bytes": None if queue_byte_s is None else queue_byte_s / window_s,
                "max_queue_pkts": None,
                "mean_delay_s": None if not delay_n or delay_sum is None else delay_sum / delay_n,
                "p50_delay_s": None,
                "p95_delay_s": None,
                "p99_delay_s": None,
            }
        )
    return rows


def results(config: dict[str, Any], seed: int, out: Output) -> dict[str, Any]:
    """Returns an engine's output as the core's ``RunResults`` (flows, groups, links,
    transfers; no series), for :func:`qdsim.run.summarize`."""
    warmup, duration = config.get("warmup_ns", 0) / 1e9, config["duration_ns"] / 1e9
    window_s = duration - warmup
    firsts = {t.flow: t for t in out.transfers if t.round == 0}
    flows = _flows(config, out, window_s, firsts)
    ordered = sorted(out.transfers, key=lambda t: (t.flow, t.round, t.start_s))
    empty: dict[str, list[Any]] = {"t": []}
    return {
        "seed": seed,
        "duration_s": duration,
        "warmup_s": warmup,
        "events": out.events,
        "packets_forwarded": None,
        "flows": flows,
        "groups": _groups(config, flows, out),
        "links": by_column(_links(config, out, window_s)),
        "transfers": {
            "flow": [t.flow for t in ordered],
            "round": [t.round for t in ordered],
            "start_s": [t.start_s for t in ordered],
            "size_bytes": [t.size_bytes for t in ordered],
            "fct_s": [t.fct_s if t.fct_s is not None else duration - t.start_s for t in ordered],
            "finished": [t.fct_s is not None for t in ordered],
        },
        "series": {"queue": dict(empty), "tcp": dict(empty), "tcp_events": dict(empty), "qdisc": dict(empty), "packets": dict(empty)},
    }
