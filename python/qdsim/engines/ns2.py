"""ns-2.35 as a reference engine: a resolved run configuration as an ns-2 Tcl script.

The script builds the run's nodes and unidirectional links (``simplex-link``, routing by
``cost``), each link's queue, one ns-2 agent pair per TCP connection, the datagram sources,
and measures with ns-2's own instruments: a ``QueueMonitor`` on every link (arrivals,
departures, drops, time integrals of the queue, sojourn samples), the TCP agents' counters
(``ndatapack_``, ``nrexmitpack_``, ``nrexmit_``, ``ncwndcuts1_``), ``TCPSink``'s in-order
``bytes_`` and a receiver-side application that sees each transfer complete. It then prints
the protocol of :mod:`qdsim.engines.measure`; the library that does so is ``ns2_lib.tcl``,
copied into every script so that it runs by hand (``ns run.tcl``).

What translates exactly, what stands in, and what is refused (``docs/validation.md``):

* queues: ``fifo`` → ``DropTail`` (``queue-limit N + 1``: DropTail drops when length + 1 ≥
  limit, so it holds one packet less than its limit; in bytes ``queue_in_bytes_``), ``red`` /
  ``ared`` → ``RED`` (``adaptive_`` 1 for ARED; automatic values as ns-2 computes them),
  ``drr`` with ``buffer = "ns2_lqd"`` → ``DRR`` (exact but for the bucket hash: ns-2 hashes
  the source address), ``drr`` with ``shared`` → ``DRR`` as a stated stand-in. Anything else
  (CoDel, PIE, FQ-CoDel, Blue, WFQ, DRR-LDS, the discard policies, EWFQ) is refused: ns-2.35
  has none of them.
* TCP: ``Agent/TCP`` (Tahoe), ``/Reno``, ``/Newreno``, ``/Sack1`` by ``cc`` and ``sack``;
  HighSpeed as ``windowOption_ 8``; every option ns-2 has is set; an option whose value
  ns-2's agent cannot take is a stated stand-in (``Script.notes``). CUBIC is refused.
* traffic: bulk and finite TCP, incast rounds, Poisson short flows, on-off bursts, CBR and
  Poisson datagrams of fixed size.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import shutil
from pathlib import Path
from typing import Any

from .base import Script, Unsupported, comment_block, source_digest

__all__ = ["Ns2", "ns2_drr_hash"]

_LIB = Path(__file__).with_name("ns2_lib.tcl")
#: The largest queue-limit used for a queue qdsim leaves unlimited.
_UNLIMITED = 10_000_000
#: A rate that makes ns-2's Exponential on-off source a Poisson process: its packets leave
#: size·8/rate after each exponential idle time, 1.2e-11 s for 1500 B.
_POISSON_RATE = "1e15"


def ns2_drr_hash(address: int) -> int:
    """Returns ns-2.35's ``DRR::hash`` of a source address (``queue/drr.cc``), before the
    modulo of the buckets: ``((i + (i >> 8) + ~(i >> 4)) % ((2 << 23) - 1)) + 1`` with C's
    integer semantics."""
    value = address + (address >> 8) + ~(address >> 4)
    modulus = (2 << 23) - 1
    remainder = abs(value) % modulus * (1 if value >= 0 else -1)  # C truncates toward zero
    return remainder + 1


def _seconds(ns: int) -> str:
    return f"{ns / 1e9:.9f}".rstrip("0").rstrip(".") or "0"


class Ns2:
    """ns-2.35, from Debian's ``ns2`` package (the ``ns`` command)."""

    name = "ns2"
    title = "ns-2.35"

    def missing(self) -> str | None:
        """Returns None when ``ns`` is on the PATH, else what to run."""
        if shutil.which("ns") is None:
            return "ns-2.35 is not installed: run `make engines` (or `apt-get install ns2`)"
        return None

    def version(self) -> str:
        """Returns ``ns-2.35+<digest of the translator and its library>``."""
        return f"ns-2.35+{_digest()}"

    def command(self, script: Path) -> list[str]:
        """Returns ``ns <script>``."""
        return ["ns", str(script)]

    def translate(self, config: dict[str, Any], seed: int) -> Script:
        """Returns ``config`` as an ns-2 Tcl script seeded with ``seed``."""
        return _Translation(config, seed).script()


@functools.cache
def _digest() -> str:
    return source_digest("ns2.py", "ns2_lib.tcl")


class _Translation:
    """One configuration's script, built part by part."""

    def __init__(self, config: dict[str, Any], seed: int):
        self.config = config
        self.seed = seed
        self.node = {name: i for i, name in enumerate(config["nodes"])}
        self.jitter = {h["node"]: h["jitter_ns"] for h in config.get("hosts", [])}
        self.out: list[str] = []
        self.notes: dict[str, None] = {}
        self.setups: dict[str, str] = {}

    def note(self, text: str) -> None:
        self.notes.setdefault(text, None)

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def script(self) -> Script:
        cfg = self.config
        # ns-2's RNG takes a seed in [1, 2^31 - 2].
        self.emit(
            "set ns [new Simulator]",
            '$ns at 0 "set qd_started 1"',
            '$ns at 1.0 "qd_poll"',
            "global defaultRNG",
            f"$defaultRNG seed {self.seed % 2147483646 + 1}",
            f"set nflows {len(cfg['flows'])}",
            f"set nlinks {len(cfg['links'])}",
            "",
            "# nodes (ns-2's node i is qdsim's nodes[i])",
        )
        for name, i in self.node.items():
            self.emit(f"set n({i}) [$ns node] ;# {name}")
        self.emit("", "# links: rate in bit/s, delay in seconds")
        for j, link in enumerate(cfg["links"]):
            self.link(j, link)
        self.emit("", "# flows")
        for i, flow in enumerate(cfg["flows"]):
            self.flow(i, flow)
        warmup, duration = cfg.get("warmup_ns", 0), cfg["duration_ns"]
        self.emit("", f'$ns at {_seconds(warmup)} "qd_snap warmup"' if warmup else "qd_snap warmup", f'$ns at {_seconds(duration)} "qd_finish"', "$ns run")
        head = [
            f"qdsim {cfg.get('seed', '?')} -> ns-2.35, engine seed {self.seed} (written by qdsim validate)",
            "Run it by hand with `ns <this file>`: it prints the measurement protocol of",
            "qdsim.engines.measure (python/qdsim/engines/measure.py).",
        ]
        if self.notes:
            head += ["", "Mappings that are not exact:"] + [f"- {n}" for n in self.notes]
        text = comment_block("#", head) + "\n" + _LIB.read_text(encoding="utf-8") + "\n" + "\n".join(self.setups.values()) + "\n" + "\n".join(self.out) + "\n"
        return Script(engine="ns2", text=text, suffix=".tcl", notes=tuple(self.notes))

    # --- links and queues ------------------------------------------------------------------

    def link(self, j: int, link: dict[str, Any]) -> None:
        a, b = self.node[link["from"]], self.node[link["to"]]
        qdisc = link["qdisc"]
        kind = qdisc["kind"]
        key = f"links.{link['name']}.qdisc"
        queue, setup, reason = self.queue(key, qdisc, link)
        self.emit(f"$ns simplex-link $n({a}) $n({b}) {link['rate_bps']} {_seconds(link['delay_ns'])} {queue} ;# {link['name']}: {kind}")
        if link.get("metric", 1) != 1:
            self.emit(f"$ns cost $n({a}) $n({b}) {link['metric']}")
        self.emit(f"set q [[$ns link $n({a}) $n({b})] queue]", *setup)
        self.emit(
            f"set qm({j}) [$ns monitor-queue $n({a}) $n({b}) 0]",
            f"set qi({j}) [$qm({j}) get-pkts-integrator]",
            f"set qb({j}) [$qm({j}) get-bytes-integrator]",
            f"set qs({j}) [new Samples]",
            f"$qm({j}) set-delay-samples $qs({j})",
            f'set linkreason({j}) "{reason}"',
        )
        if link.get("loss", 0.0) > 0:
            # After the wire, as qdsim tosses the link's coin when a transmission ends.
            self.emit(
                "set em [new ErrorModel]",
                "$em unit pkt",
                f"$em set rate_ {link['loss']!r}",
                "$em ranvar [new RandomVariable/Uniform]",
                f"$ns link-lossmodel $em $n({a}) $n({b})",
                # link-lossmodel sends the losses to the link's drop head, the queue monitor's:
                # they would leave a queue they never were in. A monitor of their own instead.
                f"set lm({j}) [new QueueMonitor]",
                "set sd [new SnoopQueue/Drop]",
                f"$sd set-monitor $lm({j})",
                "$sd target [new Agent/Null]",
                "$em drop-target $sd",
            )

    def queue(self, key: str, q: dict[str, Any], link: dict[str, Any]) -> tuple[str, list[str], str]:
        """Returns the ns-2 queue type, the lines that set it up (on ``$q``) and the qdsim drop
        reason of its drops ("" when they mix reasons)."""
        kind = q["kind"]
        if kind == "fifo":
            if q.get("limit_bytes") is not None:
                if q.get("limit_pkts") is not None:
                    raise Unsupported(f"{key}.limit", "packets and bytes", "one limit: ns-2's DropTail counts packets or bytes")
                # DropTail drops when bytes + size >= limit * mean_pktsize_.
                return "DropTail", ["$q set queue_in_bytes_ true", "$q set mean_pktsize_ 1", f"$q set limit_ {q['limit_bytes'] + 1}"], "overflow"
            limit = q.get("limit_pkts")
            return "DropTail", [f"$q set limit_ {(limit if limit is not None else _UNLIMITED) + 1} ;# DropTail holds limit - 1"], "overflow"
        if kind in ("red", "ared"):
            return "RED", self.red(key, q, link), ""
        if kind == "drr":
            return "DRR", self.drr(key, q, link), "longest_queue"
        raise Unsupported(f"{key}.kind", kind, "a queue ns-2.35 has: fifo, red, ared, or drr with buffer ns2_lqd (or shared, as a stand-in); run --engine ns3 for codel, fq_codel and pie")

    def red(self, key: str, q: dict[str, Any], link: dict[str, Any]) -> list[str]:
        adaptive = q["kind"] == "ared"
        byte_mode = bool(q.get("byte_mode", False))
        lines = [
            f"$q set bytes_ {str(byte_mode).lower()}",
            f"$q set queue_in_bytes_ {str(byte_mode).lower()}",
            f"$q set mean_pktsize_ {q.get('mean_pktsize_bytes', 500)}",
            f"$q set gentle_ {str(q.get('gentle', True)).lower()}",
            f"$q set wait_ {str(q.get('wait', True)).lower()}",
            f"$q set linterm_ {1 / q.get('max_p', 0.1)!r}",
        ]
        if q.get("ecn"):
            # qdsim marks whatever the probability; ns-2 marks only below mark_p_ unless told.
            lines += ["$q set setbit_ true", "$q set use_mark_p_ false"]
        auto = {"min_th_pkts": "thresh_", "max_th_pkts": "maxthresh_", "w_q": "q_weight_"}
        for field, var in auto.items():
            value = q.get(field)
            if value is None and not adaptive:
                raise Unsupported(f"{key}.{field}", None, "a value (ns-2's automatic RED is the ared kind)")
            lines.append(f"$q set {var} {value if value is not None else 0}")
        # Measured against ns-2.35 with unresponsive traffic (95-150 % load): drops and mean
        # queue agree; these rule differences move them by at most 0.3 % there.
        self.note(f"{key}: ns-2's RED counts packets since the last drop from 1 when the average crosses thresh_ and drops when u <= p (qdsim: from 0, u < p)")
        if adaptive and q.get("gentle", True):
            self.note(
                f"{key}.gentle: ns-2.35 keeps the gentle region's slope from the initial max_p (red.cc:317-320 set v_c, v_d at reset; adaptive_ moves only cur_max_p); "
                "qdsim's ARED uses the adapted max_p, as Floyd, Gummadi and Shenker's"
            )
        if adaptive:
            lines += ["$q set adaptive_ 1", f"$q set targetdelay_ {_seconds(q.get('target_delay_ns', 5_000_000))}", f"$q set interval_ {_seconds(q.get('interval_ns', 500_000_000))}"]
        rate = q.get("link_rate_bps")
        if rate is not None and rate != link["rate_bps"]:
            raise Unsupported(f"{key}.link_rate", rate, f"the link's own rate ({link['rate_bps']} bit/s): ns-2's RED takes its link's bandwidth")
        limit = q.get("limit_pkts")
        if q.get("limit_bytes") is not None:
            if not byte_mode:
                raise Unsupported(f"{key}.limit", f"{q['limit_bytes']}B", "a limit in packets, or byte_mode = true (ns-2's RED counts its limit as its queue)")
            limit = math.ceil(q["limit_bytes"] / q.get("mean_pktsize_bytes", 500))
            self.note(f"{key}.limit: {q['limit_bytes']} B -> limit_ {limit} x mean_pktsize_ (ns-2 counts a byte limit in mean-sized packets)")
        # RED's forced drop is qlen >= limit before the arrival: it holds `limit` packets.
        return [*lines, f"$q set limit_ {limit if limit is not None else _UNLIMITED}"]

    def drr(self, key: str, q: dict[str, Any], link: dict[str, Any]) -> list[str]:
        buffer, classifier = q.get("buffer", "shared"), q.get("classifier", "per_flow")
        if buffer not in ("ns2_lqd", "shared"):
            raise Unsupported(f"{key}.buffer", buffer, "ns2_lqd (ns-2's Queue/DRR), or shared as a stand-in: ns-2.35 has no other DRR buffer policy")
        if buffer == "shared":
            self.note(f"{key}.buffer: shared -> ns-2's DRR, which queues the arrival first and drops the head of the queue with the most bytes (shared drops the arrival's or a tail, by packets)")
        if q.get("weights"):
            raise Unsupported(f"{key}.weights", q["weights"], "no weights: ns-2's DRR gives every queue one quantum")
        lines = [f"$q set quantum_ {q.get('quantum_bytes', 1500)}", "$q set mask_ 0"]
        if classifier in ("per_flow", "per_user"):
            sources = sorted({self.node[f["src"]] for f in self.config["flows"]})
            if classifier == "per_user":
                users: dict[int, set[str]] = {}
                for index, f in enumerate(self.config["flows"]):
                    users.setdefault(f.get("user", index), set()).add(f["src"])
                if any(len(hosts) > 1 for hosts in users.values()) or len(sources) != len(users):
                    raise Unsupported(f"{key}.classifier", classifier, "per_flow or hashed, or per_user where each user sends from hosts of its own, one each (ns-2's DRR queues per source address)")
            elif len(sources) != len(self.config["flows"]):
                self.note(f"{key}.classifier: per_flow -> ns-2's DRR queues per source address; flows from one host share a queue")
            buckets = _distinct_buckets(sources)
            if len({ns2_drr_hash(a) for a in sources}) < len(sources):
                self.note(f"{key}.classifier: per_flow -> ns-2's DRR::hash of the source address, which gives some of these addresses one queue")
            lines.append(f"$q set buckets_ {buckets} ;# every source address in its own queue")
        elif classifier == "ns2_hash":
            lines.append(f"$q set buckets_ {q.get('buckets', 1024)} ;# ns-2's own hash, as qdsim's ns2_hash")
        elif classifier == "hashed":
            lines.append(f"$q set buckets_ {q.get('buckets', 1024)}")
            self.note(f"{key}.classifier: hashed -> ns-2's DRR::hash of the source address, which spreads consecutive addresses nearly one to one (qdsim's hashed is random; ns2_hash is ns-2's)")
        else:
            raise Unsupported(f"{key}.classifier", classifier, "per_flow, per_user, hashed or ns2_hash (ns-2's DRR classifies by source address)")
        if q.get("limit_bytes") is not None:
            lines.append(f"$q set blimit_ {q['limit_bytes']}")
        elif q.get("limit_pkts") is not None:
            size = max(_data_packet_bytes(f) for f in self.config["flows"])
            lines.append(f"$q set blimit_ {q['limit_pkts'] * size}")
            self.note(f"{key}.limit: {q['limit_pkts']} packets -> blimit_ {q['limit_pkts'] * size} B (ns-2's DRR limits bytes: the limit times the largest data packet)")
        else:
            lines.append(f"$q set blimit_ {_UNLIMITED * 1500}")
        # The limit in packets on the link's queue object is ns-2's Queue limit_, unused by DRR.
        return [*lines, f"$q set limit_ {_UNLIMITED}"]

    # --- flows --------------------------------------------------------------------------------

    def flow(self, i: int, flow: dict[str, Any]) -> None:
        source = flow["source"]
        kind = source["kind"]
        src, dst = self.node[flow["src"]], self.node[flow["dst"]]
        start = (
            f"[expr {{{_seconds(flow.get('start_ns', 0))} + [$defaultRNG uniform 0 {_seconds(flow.get('start_jitter_ns', 0))}]}}]" if flow.get("start_jitter_ns") else _seconds(flow.get("start_ns", 0))
        )
        self.emit(f"# flow {i}: {flow['group']} {kind} {flow['src']} -> {flow['dst']}", f"set start({i}) {start}", f'puts "flow {i} start $start({i})"')
        after = f"proc qd_after_{i} {{c round}} {{}}"
        if kind in ("udp_cbr", "poisson_packets"):
            self.emit(f"set flowkind({i}) udp")
            self.datagrams(i, source, src, dst)
            return
        self.emit(f"set flowkind({i}) tcp")
        if kind == "tcp":
            setup = self.tcp_setup("tcp", source["tcp"], flow["src"])
            size, repeat = source.get("size_bytes"), source.get("repeat")
            if size is None:
                self.emit(f"set c [qd_conn {i} {src} {dst} {setup}]", f'$ns at $start({i}) "$tcpa($c) send -1"')
            elif repeat is None:
                self.emit(f"set c [qd_conn {i} {src} {dst} {setup}]", f'$ns at $start({i}) "qd_send $c {size} {i} 0"')
            else:
                self.incast(i, source, src, dst, setup)
                after = f"proc qd_after_{i} {{c round}} {{ qd_barrier_done {self.barrier_index(repeat['barrier'])} }}"
        elif kind == "short_flows":
            setup = self.tcp_setup("tcp", source["tcp"], flow["src"])
            self.short_flows(i, source, src, dst, setup)
            after = f"proc qd_after_{i} {{c round}} {{ qd_release_{i} $c }}"
        elif kind == "on_off":
            setup = self.tcp_setup("tcp", source["tcp"], flow["src"])
            after = self.on_off(i, flow, source, src, dst, setup)
        else:
            raise Unsupported(f"flows[{i}].source.kind", kind, "tcp, short_flows, on_off, udp_cbr or poisson_packets")
        self.emit(after)

    def barrier_index(self, name: str) -> int:
        names = list(dict.fromkeys(f["source"]["repeat"]["barrier"] for f in self.config["flows"] if f["source"].get("repeat")))
        return names.index(name)

    def incast(self, i: int, source: dict[str, Any], src: int, dst: int, setup: str) -> None:
        repeat, size = source["repeat"], source["size_bytes"]
        b = self.barrier_index(repeat["barrier"])
        self.emit(
            f"lappend barrier_members({b}) {i}",
            f"if {{![info exists barrier_left({b})]}} {{ set barrier_left({b}) 0; set barrier_round({b}) 0 }}",
            f"incr barrier_left({b})",
            f"set barrier_rounds({b}) {repeat.get('rounds') or 0}",
            f"set barrier_think({b}) {_seconds(repeat.get('think_ns', 0))}",
            f"set c [qd_conn {i} {src} {dst} {setup}]",
            f"set first({i}) $c",
            f'$ns at $start({i}) "qd_send $c {size} {i} 0"',
        )
        if repeat.get("persistent"):
            self.emit(f"proc qd_round_{i} {{round}} {{ global first; qd_send $first({i}) {size} {i} $round }}")
        else:
            self.emit(f"proc qd_round_{i} {{round}} {{ set c [qd_conn {i} {src} {dst} {setup}]; qd_send $c {size} {i} $round }}")

    def short_flows(self, i: int, source: dict[str, Any], src: int, dst: int, setup: str) -> None:
        pool = [(self.node[h["src"]], self.node[h["dst"]]) for h in source.get("hosts", [])] or [(src, dst)]
        sizes = source.get("sizes")
        if sizes is None:
            draw = f"expr {{{source['size_min_bytes']} + [$defaultRNG integer {source['size_max_bytes'] - source['size_min_bytes'] + 1}]}}"
        elif sizes["distribution"] == "fixed":
            draw = f"expr {{{sizes['bytes']}}}"
        elif sizes["distribution"] == "exponential":
            draw = f"expr {{max(1, round([$defaultRNG exponential {sizes['mean_bytes']}]))}}"
        else:
            self.emit(f"set sizes({i}) [new RandomVariable/Pareto]", f"$sizes({i}) set avg_ {sizes['mean_bytes']}", f"$sizes({i}) set shape_ {sizes['shape']!r}")
            draw = f"expr {{min({1 << 40}, max(1, round([$sizes({i}) value])))}}"
        stop = source.get("stop_ns") or self.config["duration_ns"]
        pairs = " ".join(f"{{{a} {b}}}" for a, b in pool)
        self.emit(
            f"set pool({i}) [list {pairs}]",
            f"set busy({i}) [lrepeat {len(pool)} 0]",
            f"proc qd_arrive_{i} {{}} {{",
            "\tglobal ns defaultRNG pool busy pair_of",
            f"\tif {{[$ns now] >= {_seconds(stop)}}} return",
            f"\tset size [{draw}]",
            f"\tset gap [$defaultRNG exponential {1 / source['arrival_rate_per_s']!r}]",
            # The first pair with nothing in progress, else the one with the fewest (qdsim's rule).
            f"\tset k [lsearch -exact $busy({i}) 0]",
            f"\tif {{$k < 0}} {{ set k [lsearch -exact $busy({i}) [tcl::mathfunc::min {{*}}$busy({i})]] }}",
            f"\tlset busy({i}) $k [expr {{[lindex $busy({i}) $k] + 1}}]",
            f"\tset ends [lindex $pool({i}) $k]",
            f"\tset c [qd_conn {i} [lindex $ends 0] [lindex $ends 1] {setup}]",
            "\tset pair_of($c) $k",
            f"\tqd_send $c $size {i} 0",
            "\tset next [expr {[$ns now] + $gap}]",
            f'\tif {{$next < {_seconds(stop)}}} {{ $ns at $next "qd_arrive_{i}" }}',
            "}",
            f"proc qd_release_{i} {{c}} {{ global busy pair_of; lset busy({i}) $pair_of($c) [expr {{[lindex $busy({i}) $pair_of($c)] - 1}}] }}",
            f'$ns at $start({i}) "qd_arrive_{i}"',
        )

    def on_off(self, i: int, flow: dict[str, Any], source: dict[str, Any], src: int, dst: int, setup: str) -> str:
        mss = _payload(source["tcp"])
        burst = source.get("burst_bytes") or source["burst_pkts"] * mss
        idle = _seconds(source["idle_ns"])
        self.emit(f"set c [qd_conn {i} {src} {dst} {setup}]", f"set first({i}) $c", f"set bursts({i}) 0")
        if source.get("first_burst", "idle") == "idle":
            self.emit(f"set start({i}) [expr {{$start({i}) + [$defaultRNG exponential {idle}]}}]")
        self.emit(
            f"proc qd_burst_{i} {{}} {{ global first bursts; qd_send $first({i}) {burst} {i} $bursts({i}); incr bursts({i}) }}",
            f'if {{$start({i}) < {_seconds(self.config["duration_ns"])}}} {{ $ns at $start({i}) "qd_burst_{i}" }}',
        )
        return f'proc qd_after_{i} {{c round}} {{ global ns defaultRNG; $ns at [expr {{[$ns now] + [$defaultRNG exponential {idle}]}}] "qd_burst_{i}" }}'

    def datagrams(self, i: int, source: dict[str, Any], src: int, dst: int) -> None:
        kind = source["kind"]
        size = source.get("packet_bytes", 1500)
        self.emit(
            f"set udp({i}) [new Agent/UDP]",
            f"$udp({i}) set packetSize_ {size}",
            f"$udp({i}) set fid_ {i}",
            f"$ns attach-agent $n({src}) $udp({i})",
            f"set udp_sink({i}) [new Agent/LossMonitor]",
            f"$ns attach-agent $n({dst}) $udp_sink({i})",
            f"$ns connect $udp({i}) $udp_sink({i})",
        )
        if kind == "udp_cbr":
            self.emit(f"set app({i}) [new Application/Traffic/CBR]", f"$app({i}) set rate_ {source['rate_bps']}", f"$app({i}) set packetSize_ {size}", f"$app({i}) set random_ 0")
        else:
            if source.get("size_distribution", "fixed") != "fixed":
                raise Unsupported(f"flows[{i}].source.size_distribution", source["size_distribution"], "fixed: ns-2's Poisson source (Exponential on-off, no bursts) sends one packet size")
            mean_gap = size * 8 / source["rate_bps"]
            self.emit(
                f"set app({i}) [new Application/Traffic/Exponential]",
                f"$app({i}) set packetSize_ {size}",
                f"$app({i}) set burst_time_ 0",
                f"$app({i}) set idle_time_ {mean_gap!r}",
                f"$app({i}) set rate_ {_POISSON_RATE}",
            )
            self.note(f"poisson_packets -> ns-2's Exponential on-off source with no bursts (gaps exponential plus size*8/{_POISSON_RATE} s)")
        self.emit(f"$app({i}) attach-agent $udp({i})", f'$ns at $start({i}) "$app({i}) start"')
        stop = source.get("stop_ns")
        if stop is not None:
            self.emit(f'$ns at {_seconds(stop)} "$app({i}) stop"')

    # --- TCP ----------------------------------------------------------------------------------

    def tcp_setup(self, key: str, tcp: dict[str, Any], sender: str) -> str:
        """Returns the name of a Tcl proc that creates one connection's agent and sink with
        ``tcp``'s options (one proc per distinct set of options and sender jitter)."""
        jitter = self.jitter.get(sender, 0)
        ident = hashlib.sha256(json.dumps([tcp, jitter], sort_keys=True).encode()).hexdigest()[:10]
        name = f"qd_setup_{ident}"
        if name not in self.setups:
            agent, sink, lines, pay, wire, syn, post = self.agent(key, tcp)
            if jitter:
                lines.append(f"$t set overhead_ {_seconds(jitter)}")
                self.note("host_jitter: U[0, J] on every packet an endpoint sends -> ns-2's overhead_ J on each TCP sender's data packets (ACKs and datagrams leave at once)")
            body = "\n".join(f"\t{line}" for line in lines)
            self.setups[name] = f"proc {name} {{}} {{\n\tset t [new {agent}]\n\tset s [new {sink}]\n{body}\n\treturn [list $t $s {pay} {wire} {syn} {{{post}}}]\n}}"
        return name

    def agent(self, key: str, tcp: dict[str, Any]) -> tuple[str, str, list[str], int, int, int, str]:
        """Returns the agent and sink classes, the lines setting ``$t`` and ``$s``, the
        payload and wire bytes of a data packet, the SYN's wire bytes, and what to set on
        ``$t`` after ns-2 resets it."""
        cc, sack = tcp["cc"], tcp["sack"]
        if cc == "cubic":
            raise Unsupported(f"{key}.cc", cc, "newreno, reno, tahoe, highspeed or highspeed_ns2: ns-2.35's one-way agents have no CUBIC (run --engine ns3)")
        if sack:
            if cc == "tahoe":
                raise Unsupported(f"{key}.sack", True, "false with cc = tahoe: ns-2's Sack1 agent is Reno's")
            agent, sink = "Agent/TCP/Sack1", "Agent/TCPSink/Sack1"
        else:
            agent = {"tahoe": "Agent/TCP", "reno": "Agent/TCP/Reno"}.get(cc, "Agent/TCP/Newreno")
            sink = "Agent/TCPSink"
        if tcp["delayed_ack"]:
            sink += "/DelAck"
        lines: list[str] = []
        ts = bool(tcp["timestamps"])
        header = 40 + (10 if ts else 0)
        if tcp["wire"] == "ns2":
            pay = tcp["packet_bytes"] - header
        else:
            pay = tcp["packet_bytes"] - 40 - (12 if ts else 0)
            self.note(
                f"{key}.wire: ietf -> ns-2's header accounting (data = payload + 40, + 10 with timestamps; an ACK 40 + 8 per SACK block; "
                "a transfer's last packet full-size: ns-2's agents send every packet packetSize_, agent.cc:461)"
            )
        wire = pay + header
        window = max(1, tcp["rwnd_bytes"] // pay)
        if window * pay != tcp["rwnd_bytes"]:
            self.note(f"{key}.rwnd: {tcp['rwnd_bytes']} B -> window_ {window} packets of {pay} B (ns-2's window counts packets)")
        iw = tcp["initial_cwnd_pkts"]
        lines += [
            f"$t set packetSize_ {pay}",
            f"$t set window_ {window}",
            f"$t set windowInitOption_ {2 if iw == 'rfc3390' else 1}",
            f"$t set windowInit_ {iw if isinstance(iw, int) else 2}",
            f"$t set syn_ {str(bool(tcp['handshake'])).lower()}",
            f"$t set minrto_ {_seconds(tcp['min_rto_ns'])}",
            f"$t set maxrto_ {_seconds(tcp['max_rto_ns'])}",
            f"$t set rtxcur_init_ {_seconds(tcp['initial_rto_ns'])}",
            f"$t set tcpTick_ {_seconds(tcp['clock_granularity_ns'])}",
            f"$t set numdupacks_ {tcp['dupack_threshold']}",
            f"$t set timestamps_ {str(ts).lower()}",
            f"$t set ecn_ {int(bool(tcp['ecn']))}",
            f"$t set singledup_ {0 if tcp['limited_transmit'] == 'off' else 1}",
        ]
        post = f"$t set ssthresh_ {tcp['initial_ssthresh_pkts']}" if tcp["initial_ssthresh_pkts"] is not None else ""
        if cc in ("highspeed", "highspeed_ns2"):
            lines.append("$t set windowOption_ 8")
            if cc == "highspeed":
                self.note(f"{key}.cc: highspeed (RFC 3649) -> ns-2's windowOption_ 8 (halves on the first decrease, in slow start and after a timeout)")
        if tcp["delayed_ack"]:
            lines.append(f"$s set interval_ {_seconds(tcp['delayed_ack_timeout_ns'])}")
            if tcp["delayed_ack_count"] != 2:
                self.note(f"{key}.delayed_ack_count: {tcp['delayed_ack_count']} -> 2 (ns-2's DelAck sink ACKs every second segment)")
            if tcp["quick_acks"]:
                self.note(f"{key}.quick_acks: {tcp['quick_acks']} -> 0 (ns-2's DelAck sink has no quick-ACK start)")
        if ts:
            lines.append("$s set ts_echo_rfc1323_ true")
        self.agent_rules(key, tcp, agent, lines)
        return agent, sink, lines, pay, wire, 40 if tcp["handshake"] else 0, post

    def recover_rules(self, key: str, tcp: dict[str, Any], agent: str, lines: list[str]) -> None:
        """Sets, or notes, when another recovery may start, how NewReno's ends, and what a lost
        SYN and a timeout do (each agent's fixed rule where ns-2 has no variable)."""
        if tcp.get("recover_check", "ns2") == "rfc":
            if agent == "Agent/TCP/Reno":
                lines.append("$t set bugFix_ false ;# RFC 5681's Reno: no recover check")
            elif agent == "Agent/TCP/Newreno":
                lines.append("$t set lessCareful_ true ;# a fast retransmit once highest_ack_ reaches recover_")
            elif agent == "Agent/TCP/Sack1" and tcp["recovery"] != "ns2_sack1":
                self.note(f"{key}.recover_check: rfc -> ns2 (Sack1 waits until the ACK is past recover_)")
        exit_rule = tcp.get("recovery_exit", "ssthresh")
        if agent == "Agent/TCP/Newreno":
            lines.append(f"$t set exit_recovery_fix_ {1 if exit_rule == 'flightsize' else 0}")
        elif exit_rule == "flightsize" and agent == "Agent/TCP/Reno":
            self.note(f"{key}.recovery_exit: flightsize -> ssthresh (Reno's recovery ends with the halved window)")
        _ns2_only(self.note, key, tcp, "syn_loss", "ns2", "ns-2 backs the RTO off for a lost SYN and starts with one segment")
        _ns2_only(self.note, key, tcp, "window_arithmetic", "ns2", "ns-2's cwnd_ is a double: +1/cwnd_ per ACK, halved exactly")
        _ns2_only(self.note, key, tcp, "timeout_ssthresh", "every", "ns-2 halves at every timeout")

    def agent_rules(self, key: str, tcp: dict[str, Any], agent: str, lines: list[str]) -> None:
        """Sets, or notes as a stand-in, the rules that differ between qdsim's options and the
        agent ``agent``'s fixed behaviour."""
        if tcp["rto_formula"] != "ns2":
            self.note(f"{key}.rto_formula: {tcp['rto_formula']} -> ns-2's (tcp.cc rtt_update, rtt_timeout)")
        restart = tcp["rto_restart"]
        if agent == "Agent/TCP/Newreno":
            lines.append(f"$t set newreno_changes1_ {1 if restart == 'first_partial_ack' else 0}")
        elif restart != "every_ack":
            self.note(f"{key}.rto_restart: {restart} -> every_ack ({agent} restarts its timer on every new ACK)")
        if not tcp["fast_retransmit_restarts_rto"]:
            self.note(f"{key}.fast_retransmit_restarts_rto: false -> true (ns-2 restarts the timer at a fast retransmit)")
        if tcp["limited_transmit"] in ("pipe", "rfc3042"):
            self.note(
                f"{key}.limited_transmit: {tcp['limited_transmit']} -> ns2 (ns-2's singledup_ is send_one, tcp.cc:1576-1588: the next segment in sequence per duplicate ACK "
                "within cwnd + dupacks, after a timeout a go-back-N resend, with no recover_ check)"
            )
        if tcp["sack"]:
            if tcp["recovery"] != "ns2_sack1":
                self.note(f"{key}.recovery: {tcp['recovery']} -> ns-2 Sack1's (tcp-sack1.cc)")
            if tcp["rescue_retransmit"] != "off":
                self.note(f"{key}.rescue_retransmit: {tcp['rescue_retransmit']} -> off (Sack1 has none)")
        self.recover_rules(key, tcp, agent, lines)
        if tcp["reduction_base"] != "cwnd":
            self.note(f"{key}.reduction_base: {tcp['reduction_base']} -> cwnd (ns-2 halves min(cwnd_, window_))")
        if tcp["idle_restart"]:
            self.note(f"{key}.idle_restart: true -> false (ns-2's one-way agents have no restart after idle)")
        for option, meaning in (("hystart", "HyStart"), ("byte_counting", "byte counting")):
            if tcp[option] != "off":
                self.note(f"{key}.{option}: {tcp[option]} -> off (ns-2's one-way agents have no {meaning})")


def _ns2_only(note: Any, key: str, tcp: dict[str, Any], option: str, own: str, meaning: str) -> None:
    """Notes ``option`` when ``tcp`` takes another value than ns-2's own ``own``."""
    if tcp.get(option, own) != own:
        note(f"{key}.{option}: {tcp[option]} -> {own} ({meaning})")


def _payload(tcp: dict[str, Any]) -> int:
    header = 40 + ((10 if tcp["wire"] == "ns2" else 12) if tcp["timestamps"] else 0)
    return tcp["packet_bytes"] - header


def _data_packet_bytes(flow: dict[str, Any]) -> int:
    source = flow["source"]
    if "tcp" in source:
        return source["tcp"]["packet_bytes"]
    return source.get("packet_bytes", 1500)


def _distinct_buckets(addresses: list[int]) -> int:
    """Returns the fewest buckets (at least 16, ns-2's default) in which ns-2's DRR hash puts
    every address of ``addresses`` in a queue of its own."""
    hashes = {ns2_drr_hash(a) for a in addresses}  # addresses that hash alike share a queue anyway
    buckets = max(16, len(hashes))
    while len({h % buckets for h in hashes}) < len(hashes):
        buckets += 1
    return buckets
