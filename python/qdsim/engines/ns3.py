"""ns-3.37 as a reference engine: a resolved run configuration as a scenario file that one
generic ns-3 program (``ns3_scenario.cc``, compiled once per machine) builds and runs.

The program is an executor: it builds nodes, point-to-point links, queue discs, sockets and
qdsim's applications from the scenario and measures what qdsim measures. Every ns-3 TypeId,
attribute name and value is chosen here, so that the mapping lives in one place (and in
``docs/engine-ns3.md``).

The scenario file is line-based; the format is documented at the top of ``ns3_scenario.cc``.
Its first lines are comments naming the configuration, the seed and every mapping that is
not exact. In short::

    qdsim-ns3 1
    run <seed> <duration_ns> <warmup_ns>
    default <attribute path> <value>
    node <name>
    link <j> <from> <to> <rate_bps> <metric>
    channel <j> <k> <delay_ns>
    loss <j> <probability>
    devqueue <j> <QueueSize>
    qdisc <j> <TypeId|none> <Attr>=<value> ... [@Quantum=<bytes>]
    reason <TypeId> <qdsim reason> <ns-3 drop reason>
    tcp <k> <congestion TypeId> <recovery TypeId> <RTT estimator TypeId>
    tcpattr <k> socket|cc|recovery|rtt <Attr>=<value> ...
    flow <i> <bulk|finite|rounds|short|onoff|cbr|poisson> <src> <dst> <start_ns> <jitter_ns> <key>=<value> ...
    pair <i> <src> <dst>

What translates exactly, what stands in (``Script.notes``, also at the top of the file) and
what is refused (:class:`~qdsim.engines.base.Unsupported`):

* links: each ``a->b`` with its ``b->a`` on one ``PointToPointChannel`` (one delay, so unequal
  delays and a link without its reverse are refused); loss as a per-packet ``RateErrorModel``
  on the receiving device (the lost packet was transmitted); metrics as interface metrics of
  global routing.
* queues: the device queue holds 1 packet and the queue disc N − 1, so that N packets wait as
  in qdsim (whose limit does not count the packet on the wire); ``fifo`` → ``FifoQueueDisc``,
  ``red`` / ``ared`` → ``RedQueueDisc``, ``codel`` → ``CoDelQueueDisc``, ``fq_codel`` →
  ``FqCoDelQueueDisc``, ``pie`` → ``PieQueueDisc``; everything else is refused.
* TCP: every option ns-3.37's ``TcpSocketBase`` has is set per socket; a value it cannot take
  runs with ns-3's own behaviour as a stated stand-in. Tahoe is refused.
* traffic: bulk and finite TCP, incast rounds (fresh or persistent connections), Poisson short
  flows (with host pools), on-off bursts, CBR and Poisson datagrams.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import hashlib
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any

from .base import Script, Unsupported, comment_block, source_digest

__all__ = ["Ns3", "binary_path", "build"]

# `python -m qdsim.engines.ns3 --build` runs this module after the package's registry imported
# it: runpy's warning about that is expected here.
warnings.filterwarnings("ignore", message=r"'qdsim\.engines\.ns3' found in sys\.modules", category=RuntimeWarning)

_SOURCE = Path(__file__).with_name("ns3_scenario.cc")
_HEADERS = Path("/usr/include/ns3")
_LIBS = ("ns3-core", "ns3-network", "ns3-internet", "ns3-point-to-point", "ns3-traffic-control", "ns3-applications")

#: The queue-disc limit of a queue qdsim leaves unlimited: never reached (a run would need a
#: million packets waiting at one link).
UNLIMITED_PKTS = 1_000_000
#: The same in bytes (a QueueSize is a 32-bit count).
UNLIMITED_BYTES = 4_000_000_000
#: The device queue: one packet waits there, the rest in the queue disc (flow control stops
#: the queue disc's dequeues while the device queue is full).
DEVICE_QUEUE = "1p"
#: Flow i's receivers listen on port 1000 + i, below ns-3's ephemeral ports (49152).
MAX_FLOWS = 48_000
#: qdsim's HEADER_BYTES: what a datagram carries beyond its delivered bytes.
DATAGRAM_HEADER_BYTES = 40
#: The largest window ns-3 can advertise: 65535 << 14.
MAX_WINDOW = 65535 << 14
#: ns-3.37's cap on the backed-off RTO (TcpSocketBase::ReTxTimeout).
NS3_MAX_RTO_NS = 60_000_000_000

#: The qdisc kinds ns-3.37 has, as the refusal says them.
QDISCS = "what ns-3.37 has: fifo, red, ared, codel, fq_codel, pie"

#: qdsim's drop reason of each ns-3 drop reason, per queue disc.
REASONS: dict[str, dict[str, str]] = {
    "ns3::FifoQueueDisc": {"Queue disc limit exceeded": "overflow", "Dropped by internal queue": "overflow"},
    "ns3::RedQueueDisc": {"Unforced drop": "early", "Forced drop": "forced", "Dropped by internal queue": "overflow"},
    "ns3::CoDelQueueDisc": {"Target exceeded drop": "target_exceeded", "Overlimit drop": "overflow", "Dropped by internal queue": "overflow"},
    "ns3::FqCoDelQueueDisc": {
        "Overlimit drop": "overlimit",
        "(Dropped by child queue disc) Target exceeded drop": "target_exceeded",
        "(Dropped by child queue disc) Overlimit drop": "overflow",
    },
    "ns3::PieQueueDisc": {"Unforced drop": "early", "Forced drop": "overflow", "Dropped by internal queue": "overflow"},
}

#: The core's defaults of the parameters a resolved configuration may leave out, per kind
#: (``crates/qdsim-core/src/qdisc``; the engine tests check them against the catalog).
QDISC_DEFAULTS: dict[str, dict[str, Any]] = {
    "fifo": {},
    "red": {"min_th_pkts": 5, "max_th_pkts": 15, "w_q": 0.002, "max_p": 0.1, "gentle": True, "wait": True, "byte_mode": False, "mean_pktsize_bytes": 500, "ecn": False},
    "ared": {"mean_pktsize_bytes": 500, "max_p": 0.1, "target_delay_ns": 5_000_000, "interval_ns": 500_000_000, "gentle": True, "wait": True, "ecn": False},
    "codel": {"target_ns": 5_000_000, "interval_ns": 100_000_000, "ecn": False, "mtu_bytes": 1500, "limit_pkts": 1000},
    "fq_codel": {
        "flows": 1024,
        "quantum_bytes": 1514,
        "target_ns": 5_000_000,
        "interval_ns": 100_000_000,
        "ecn": True,
        "mtu_bytes": 1500,
        "limit_pkts": 10240,
        "memory_limit_bytes": 32 << 20,
        "drop_batch_size": 64,
    },
    "pie": {
        "target_ns": 15_000_000,
        "t_update_ns": 15_000_000,
        "alpha": 0.125,
        "beta": 1.25,
        "max_burst_ns": 150_000_000,
        "derandomize": False,
        "ecn": False,
        "mark_ecnth": 0.1,
        "mtu_bytes": 1500,
        "limit_pkts": 1000,
    },
}

#: Congestion controls: qdsim's name → ns-3.37 TypeId (tahoe is refused, see _tcp).
CONGESTION = {
    "newreno": "ns3::TcpNewReno",
    "reno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "highspeed": "ns3::TcpHighSpeed",
    "highspeed_ns2": "ns3::TcpHighSpeed",
}


#: Every TcpConfig field the translator maps or notes; a field it does not know is refused
#: rather than ignored (the core grows options; this table must follow).
TCP_FIELDS = frozenset(
    {
        "cc", "packet_bytes", "initial_cwnd_pkts", "initial_ssthresh_pkts", "rwnd_bytes", "min_rto_ns", "max_rto_ns",
        "initial_rto_ns", "rto_formula", "clock_granularity_ns", "rto_restart", "fast_retransmit_restarts_rto",
        "dupack_threshold", "delayed_ack", "delayed_ack_count", "delayed_ack_timeout_ns", "quick_acks", "ecn", "sack",
        "recovery", "prr_bound", "prr_dupack_segment", "rescue_retransmit", "reduction_base", "limited_transmit",
        "recover_check", "recovery_exit", "window_arithmetic", "syn_loss", "timeout_ssthresh", "hystart", "idle_restart", "timestamps", "byte_counting",
        "handshake", "wire",
    }
)  # fmt: skip

#: Each qdisc kind's parameters (the core's field names) the translator maps.
QDISC_FIELDS: dict[str, frozenset[str]] = {
    "fifo": frozenset({"limit_pkts", "limit_bytes"}),
    "red": frozenset({"min_th_pkts", "max_th_pkts", "w_q", "max_p", "gentle", "wait", "byte_mode", "mean_pktsize_bytes", "link_rate_bps", "ecn", "limit_pkts", "limit_bytes"}),
    "ared": frozenset({"link_rate_bps", "mean_pktsize_bytes", "min_th_pkts", "max_th_pkts", "w_q", "max_p", "target_delay_ns", "interval_ns", "gentle", "wait", "ecn", "limit_pkts", "limit_bytes"}),
    "codel": frozenset({"target_ns", "interval_ns", "ecn", "mtu_bytes", "limit_pkts"}),
    "fq_codel": frozenset({"flows", "quantum_bytes", "target_ns", "interval_ns", "ecn", "mtu_bytes", "limit_pkts", "memory_limit_bytes", "drop_batch_size"}),
    "pie": frozenset({"target_ns", "t_update_ns", "alpha", "beta", "max_burst_ns", "derandomize", "ecn", "mark_ecnth", "mtu_bytes", "limit_pkts"}),
}


#: Each traffic kind's fields, a flow's and a link's (a field not listed is refused).
SOURCE_FIELDS: dict[str, frozenset[str]] = {
    "tcp": frozenset({"size_bytes", "tcp", "repeat"}),
    "short_flows": frozenset({"arrival_rate_per_s", "size_min_bytes", "size_max_bytes", "sizes", "tcp", "stop_ns", "hosts"}),
    "on_off": frozenset({"burst_pkts", "burst_bytes", "idle_ns", "first_burst", "tcp"}),
    "poisson_packets": frozenset({"rate_bps", "packet_bytes", "size_distribution", "min_packet_bytes", "max_packet_bytes", "stop_ns"}),
    "udp_cbr": frozenset({"rate_bps", "packet_bytes", "stop_ns"}),
}
REPEAT_FIELDS = frozenset({"barrier", "rounds", "think_ns", "persistent"})
# `user` only matters to class-based queues, which are all refused.
FLOW_FIELDS = frozenset({"group", "src", "dst", "user", "start_ns", "start_jitter_ns", "source"})
LINK_FIELDS = frozenset({"name", "from", "to", "rate_bps", "delay_ns", "loss", "metric", "qdisc"})


def _known(key: str, given: dict[str, Any], known: frozenset[str], what: str) -> None:
    """Refuses a field of ``given`` outside ``known`` (never ignored silently)."""
    for field in sorted(set(given) - known - {"kind"}):
        raise Unsupported(f"{key}.{field}", given[field], f"a {what} the ns-3 translator maps ({', '.join(sorted(known))}); update qdsim/engines/ns3.py")


# --- the program: where it lives, building it --------------------------------------------------


def _source_digest() -> str:
    return hashlib.sha256(_SOURCE.read_bytes()).hexdigest()[:16]


def _cache_root() -> Path:
    explicit = os.environ.get("QDSIM_ENGINE_CACHE")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "qdsim"


def binary_path() -> Path:
    """Returns where the program built from this ``ns3_scenario.cc`` lives (built or not):
    ``${QDSIM_ENGINE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/qdsim}/ns3-<digest>/qdsim-ns3``."""
    return _cache_root() / f"ns3-{_source_digest()}" / "qdsim-ns3"


def _compiler() -> str | None:
    return os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")


def build(force: bool = False) -> Path:
    """Compiles ``ns3_scenario.cc`` against the installed ns-3 into :func:`binary_path`
    unless it is there (or ``force``), and returns the path.

    The compiler writes a temporary file in the same directory that is renamed into place,
    under a lock: concurrent builds wait for one another and never see half a binary.

    Raises RuntimeError (naming the compiler's first error) when it does not build."""
    target = binary_path()
    if target.exists() and not force:
        return target
    cxx = _compiler()
    if cxx is None:
        raise RuntimeError("no C++ compiler (g++) on the PATH: apt-get install g++")
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target.parent / ".lock", "w") as lock:
        with contextlib.suppress(ImportError, OSError):
            import fcntl

            fcntl.flock(lock, fcntl.LOCK_EX)
        if target.exists() and not force:
            return target
        fd, tmp = tempfile.mkstemp(prefix=".qdsim-ns3.", dir=target.parent)
        os.close(fd)
        try:
            cmd = [cxx, "-O2", "-std=c++17", "-o", tmp, str(_SOURCE), *(f"-l{lib}" for lib in _LIBS)]
            done = subprocess.run(cmd, check=False, capture_output=True, text=True)
            if done.returncode != 0:
                errors = [line for line in done.stderr.splitlines() if "error" in line] or done.stderr.strip().splitlines() or ["(no output)"]
                raise RuntimeError(f"the ns-3 engine does not build ({' '.join(cmd[:2])} ...): {errors[0].strip()}")
            os.chmod(tmp, 0o755)
            os.replace(tmp, target)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
    return target


def _ns3_version() -> str:
    """Returns the installed ns-3's version from its headers (``3.37``), or ``3.37`` when it
    cannot be read."""
    with contextlib.suppress(OSError):
        text = (_HEADERS / "version-defines.h").read_text(encoding="utf-8", errors="replace")
        parts = {m.group(1): m.group(2) for m in re.finditer(r"#define NS3_VERSION_(MAJOR|MINOR|PATCH) (\d+)", text)}
        if "MAJOR" in parts and "MINOR" in parts:
            patch = f".{parts['PATCH']}" if parts.get("PATCH", "0") != "0" else ""
            return f"{parts['MAJOR']}.{parts['MINOR']}{patch}"
    return "3.37"


@functools.cache
def _digest() -> str:
    return source_digest("ns3.py", "ns3_scenario.cc")


class Ns3:
    """ns-3.37, from Debian's ``libns3-dev``, through the generic program ``qdsim-ns3``."""

    name = "ns3"
    title = "ns-3.37"

    def missing(self) -> str | None:
        """Returns None when ns-3's headers are installed and the program builds (it is built
        here on first use), else one line saying what to run."""
        if not (_HEADERS / "tcp-socket-base.h").exists() or not (_HEADERS / "point-to-point-net-device.h").exists():
            return "ns-3.37 is not installed: run `make engines` (or `apt-get install libns3-dev`)"
        if _compiler() is None:
            return "no C++ compiler to build the ns-3 engine: apt-get install g++, then `make engines`"
        try:
            build()
        except (RuntimeError, OSError) as exc:
            return f"{exc}; run `make engines` (or `apt-get install libns3-dev`)"
        return None

    def version(self) -> str:
        """Returns ``ns-<installed version>+<digest of the program and translator>``."""
        return f"ns-{_ns3_version()}+{_digest()}"

    def command(self, script: Path) -> list[str]:
        """Returns ``qdsim-ns3 <scenario>``, building the program if it is not built (when it
        cannot be, the path where it would be: :meth:`missing` says why)."""
        with contextlib.suppress(RuntimeError, OSError):
            build()
        return [str(binary_path()), str(script)]

    def translate(self, config: dict[str, Any], seed: int) -> Script:
        """Returns ``config`` as an ns-3 scenario seeded with ``seed``."""
        return _Translation(config, seed).script()


# --- translation ------------------------------------------------------------------------------


def _ns(value: int) -> str:
    """A Time attribute value in whole nanoseconds."""
    return f"{int(value)}ns"


def _bool(value: Any) -> str:
    return "true" if value else "false"


def _real(value: float) -> str:
    return repr(float(value))


def _mss(tcp: dict[str, Any]) -> int:
    """qdsim's MSS: the packet size less the headers and options of a data segment in the
    connection's wire format (``tcp/wire.rs``)."""
    options = (12 if tcp["wire"] == "ietf" else 10) if tcp["timestamps"] else 0
    return tcp["packet_bytes"] - 40 - options


def _ns3_data_bytes(tcp: dict[str, Any]) -> int:
    """The IP size of a full data segment in ns-3: MSS, IPv4 and TCP headers, and the
    timestamp option padded to 12 bytes."""
    return _mss(tcp) + 40 + (12 if tcp["timestamps"] else 0)


def _initial_cwnd(tcp: dict[str, Any]) -> int:
    iw = tcp["initial_cwnd_pkts"]
    if iw == "rfc3390":
        return min(4, max(2, 4380 // _mss(tcp)))
    return int(iw)


def _whole_segments(rwnd: int, mss: int) -> int:
    """The bytes qdsim lets a connection have outstanding for a receiver window of ``rwnd``:
    whole segments, at least one (``TcpSender``'s clamp, ``rwnd_bytes / mss``), at most ns-3's
    largest window. A buffer with a part of a segment more would let ns-3 send that part as
    a short segment at the end of every window that reaches it (a 752-byte one for the ns3
    profile's 131072 bytes of 1448-byte segments), which qdsim never sends: in the 100-flow
    dumbbell of ``experiments/validation/dumbbell100.toml`` the odd segment alone moved the
    200 ms group's goodput from qdsim's to 1.3 times it (docs/engine-ns3.md)."""
    return min(max(1, rwnd // mss) * mss, MAX_WINDOW)


def _advertised(rwnd: int) -> int:
    """The window ns-3 advertises for a receive buffer of ``rwnd`` bytes: scaled by the
    smallest shift that fits 16 bits (at most 14), rounded down to that scale."""
    shift = 0
    space = rwnd
    while space > 65535:
        space >>= 1
        shift += 1
    shift = min(shift, 14)
    return min(rwnd >> shift, 65535) << shift


class _Translation:
    """One configuration's scenario, built part by part."""

    def __init__(self, config: dict[str, Any], seed: int):
        self.config = config
        self.seed = seed
        self.node = {name: i for i, name in enumerate(config["nodes"])}
        self.out: list[str] = []
        self.notes: dict[str, None] = {}
        self.tcp_sets: dict[str, int] = {}
        self.tcp_lines: list[str] = []
        self.types: set[str] = set()
        self.defaults: dict[str, str] = {}
        self.largest = self.largest_packet()

    def note(self, text: str) -> None:
        self.notes.setdefault(text, None)

    def emit(self, *lines: str) -> None:
        self.out.extend(lines)

    def default(self, key: str, path: str, value: str) -> None:
        """Sets an ns-3 default once; a second, different value is refused under ``key``."""
        if self.defaults.setdefault(path, value) != value:
            raise Unsupported(key, value, f"{self.defaults[path]} as elsewhere in the run: ns-3 has one {path} for the whole run")

    def largest_packet(self) -> int:
        """Returns the largest IP packet the run's sources send in ns-3 (data, not ACKs)."""
        largest = 0
        for flow in self.config["flows"]:
            source = flow["source"]
            if "tcp" in source:
                largest = max(largest, _ns3_data_bytes(source["tcp"]))
            elif source["kind"] == "poisson_packets" and source.get("size_distribution", "fixed") == "exponential":
                largest = max(largest, source.get("max_packet_bytes", 65535))
            else:
                largest = max(largest, source.get("packet_bytes", 1500))
        return largest

    def script(self) -> Script:
        cfg = self.config
        flows = cfg["flows"]
        if len(flows) > MAX_FLOWS:
            raise Unsupported("flows", f"{len(flows)} flows", f"at most {MAX_FLOWS}: each flow's receivers listen on a port of their own, below ns-3's ephemeral ports")
        self.emit("qdsim-ns3 1", f"run {self.seed} {cfg['duration_ns']} {cfg.get('warmup_ns', 0)}")
        mtu = max(1500, self.largest)
        if mtu > 65535:
            raise Unsupported("flows", f"{mtu} B packets", "packets of at most 65535 bytes on the wire (a device's MTU)")
        # The device MTU must let the largest packet through unfragmented.
        self.default("flows", "ns3::PointToPointNetDevice::Mtu", str(mtu))
        body_start = len(self.out)
        for name in cfg["nodes"]:
            self.emit(f"node {name}")
        self.links()
        self.endpoints()
        for i, flow in enumerate(flows):
            self.flow(i, flow)
        jitters = sorted({h["jitter_ns"] for h in cfg.get("hosts", []) if h.get("jitter_ns", 0) > 0})
        if jitters:
            shown = ", ".join(f"{j / 1000:g} µs" for j in jitters)
            self.note(f"topology.host_jitter: U[0, {shown}] on every packet an endpoint sends → none (ns-3 runs exactly timed)")
        digest = hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest()[:12]
        head = [
            f"qdsim run configuration {digest} (sha256 of its JSON; {len(cfg['nodes'])} nodes, {len(cfg['links'])} links, {len(flows)} flows, seed {cfg.get('seed', '?')})",
            f"→ ns-3.37 (qdsim-ns3 {_digest()}), engine seed {self.seed}: RngSeedManager seed 1, run {self.seed}",
            "Written by qdsim validate; run it by hand with `qdsim-ns3 <this file>` (python -m qdsim.engines.ns3 --build",
            "prints where the program is). It prints the measurement protocol of qdsim.engines.measure.",
            "Format: the comment at the top of python/qdsim/engines/ns3_scenario.cc; the mapping: docs/engine-ns3.md.",
            "",
            "Queues: every device queue holds 1 packet (DropTailQueue MaxSize 1p) and its queue disc the",
            "rest: a qdsim limit of N packets (which does not count the packet on the wire) is a queue disc",
            f"limit of N - 1. A limit of 1 is a fifo without a queue disc. An unlimited queue is {UNLIMITED_PKTS} packets.",
        ]
        if self.notes:
            head += ["", "Mappings that are not exact:"] + [f"- {n}" for n in self.notes]
        defaults = [f"default {path} {value}" for path, value in self.defaults.items()]
        reasons = [f"reason {t} {name} {reason}" for t in sorted(self.types) for reason, name in REASONS[t].items()]
        lines = self.out[:body_start] + defaults + reasons + self.tcp_lines + self.out[body_start:]
        text = comment_block("#", head) + "\n".join(lines) + "\n"
        return Script(engine="ns3", text=text, suffix=".ns3", notes=tuple(self.notes))

    # --- links and queues ---------------------------------------------------------------------

    def links(self) -> None:
        links = self.config["links"]
        by_ends: dict[tuple[str, str], list[int]] = {}
        for j, link in enumerate(links):
            by_ends.setdefault((link["from"], link["to"]), []).append(j)
        paired: dict[int, int] = {}
        for j, link in enumerate(links):
            if j in paired:
                continue
            reverse = [k for k in by_ends.get((link["to"], link["from"]), []) if k not in paired and k != j]
            if not reverse:
                allowed = f"a link {link['to']}->{link['from']} beside it: ns-3's PointToPointChannel joins two devices, one each way"
                raise Unsupported(f"links.{link['name']}", f"{link['from']}->{link['to']} alone", allowed)
            k = reverse[0]
            paired[j], paired[k] = k, j
        for j, link in enumerate(links):
            _known(f"links.{link['name']}", link, LINK_FIELDS, "link field")
            metric = link.get("metric", 1)
            if not 1 <= metric <= 65535:
                raise Unsupported(f"links.{link['name']}.metric", metric, "1 to 65535 (ns-3's interface metric is 16 bits)")
            self.emit(f"link {j} {self.node[link['from']]} {self.node[link['to']]} {link['rate_bps']} {metric}")
        for j, link in enumerate(links):
            k = paired[j]
            if k < j:
                continue
            if link["delay_ns"] != links[k]["delay_ns"]:
                raise Unsupported(
                    f"links.{links[k]['name']}.delay_ns",
                    links[k]["delay_ns"],
                    f"{link['delay_ns']} as its reverse {link['name']}: ns-3's PointToPointChannel has one delay for both directions",
                )
            self.emit(f"channel {j} {k} {link['delay_ns']}")
        for j, link in enumerate(links):
            if link.get("loss", 0.0) > 0:
                self.emit(f"loss {j} {_real(link['loss'])}")
            qtype, attrs, devqueue = self.qdisc(f"links.{link['name']}.qdisc", link)
            if devqueue != DEVICE_QUEUE:
                self.emit(f"devqueue {j} {devqueue}")
            self.emit(f"qdisc {j} {qtype}" + "".join(f" {a}" for a in attrs))
        self.paired = paired

    def limit(self, key: str, q: dict[str, Any], unit: str) -> str:
        """Returns the queue disc's MaxSize for qdsim's limit ``q`` counted in ``unit``
        (``p`` or ``B``): N − 1 packets, one less than qdsim's, as the device queue holds one;
        a byte limit less the run's largest packet (the most the device queue can hold)."""
        if unit == "p":
            if q.get("limit_bytes") is not None:
                raise Unsupported(f"{key}.limit", f"{q['limit_bytes']}B", "a limit in packets: ns-3's queue disc measures its queue in the unit of its MaxSize, here packets")
            n = q.get("limit_pkts")
            if n is None:
                return f"{UNLIMITED_PKTS}p"
            if n < 2:
                raise Unsupported(f"{key}.limit", n, "at least 2 packets: one waits in the device queue and ns-3's queue disc needs room for one more (a fifo of 1 packet has no queue disc)")
            return f"{n - 1}p"
        if q.get("limit_pkts") is not None:
            raise Unsupported(f"{key}.limit", q["limit_pkts"], "a limit in bytes: ns-3's queue disc measures its queue in the unit of its MaxSize, here bytes")
        b = q.get("limit_bytes")
        if b is None:
            return f"{UNLIMITED_BYTES}B"
        room = b - self.largest
        if room < self.largest:
            raise Unsupported(f"{key}.limit", f"{b}B", f"at least twice the run's largest packet ({2 * self.largest} B): the device queue holds one packet beside the queue disc")
        self.note(f"{key}.limit: {b} B → queue disc {room} B + one packet in the device queue (at most {b} B wait, as in qdsim, but a full queue can hold up to {self.largest - 1} B less)")
        return f"{room}B"

    def qdisc(self, key: str, link: dict[str, Any]) -> tuple[str, list[str], str]:
        """Returns the root queue disc TypeId of ``link`` (``none`` for a 1-packet fifo), its
        attributes and the device queue's size."""
        kind = link["qdisc"]["kind"]
        if kind not in QDISC_DEFAULTS:
            raise Unsupported(f"{key}.kind", kind, QDISCS)
        _known(key, link["qdisc"], QDISC_FIELDS[kind], f"{kind} parameter")
        q = {**QDISC_DEFAULTS[kind], **{k: v for k, v in link["qdisc"].items() if v is not None}}
        if kind == "fifo":
            if q.get("limit_pkts") is not None and q.get("limit_bytes") is not None:
                raise Unsupported(f"{key}.limit", "packets and bytes", "one limit: ns-3's FifoQueueDisc has one MaxSize, in packets or in bytes")
            if q.get("limit_pkts") == 1:
                return "none", [], DEVICE_QUEUE  # the device queue alone: 1 waits, exactly
            unit = "B" if q.get("limit_bytes") is not None else "p"
            return self.typed("ns3::FifoQueueDisc"), [f"MaxSize={self.limit(key, q, unit)}"], DEVICE_QUEUE
        if kind in ("red", "ared"):
            return self.typed("ns3::RedQueueDisc"), self.red(key, q, link), DEVICE_QUEUE
        if kind == "codel":
            return (
                self.typed("ns3::CoDelQueueDisc"),
                [
                    f"MaxSize={self.limit(key, q, 'p')}",
                    f"Target={_ns(q['target_ns'])}",
                    f"Interval={_ns(q['interval_ns'])}",
                    # ns-3 drops only with at least MinBytes queued, qdsim with more than mtu.
                    f"MinBytes={q['mtu_bytes'] + 1}",
                    f"UseEcn={_bool(q['ecn'])}",
                ],
                DEVICE_QUEUE,
            )
        if kind == "fq_codel":
            return self.typed("ns3::FqCoDelQueueDisc"), self.fq_codel(key, q), DEVICE_QUEUE
        if kind == "pie":
            mtu = q["mtu_bytes"]
            self.note(f"{key}.mtu: no early drop below 2 × {mtu} B queued → ns-3's PIE in packets: none with at most 2 packets queued")
            return (
                self.typed("ns3::PieQueueDisc"),
                [
                    f"MaxSize={self.limit(key, q, 'p')}",
                    f"QueueDelayReference={_ns(q['target_ns'])}",
                    f"Tupdate={_ns(q['t_update_ns'])}",
                    f"A={_real(q['alpha'])}",
                    f"B={_real(q['beta'])}",
                    f"MaxBurstAllowance={_ns(q['max_burst_ns'])}",
                    f"UseDerandomization={_bool(q['derandomize'])}",
                    f"UseEcn={_bool(q['ecn'])}",
                    f"MarkEcnThreshold={_real(q['mark_ecnth'])}",
                    f"MeanPktSize={mtu}",
                    "UseDequeueRateEstimator=false",
                    "UseCapDropAdjustment=true",
                ],
                DEVICE_QUEUE,
            )
        raise Unsupported(f"{key}.kind", kind, QDISCS)

    def typed(self, type_id: str) -> str:
        self.types.add(type_id)
        return type_id

    def red(self, key: str, q: dict[str, Any], link: dict[str, Any]) -> list[str]:
        adaptive = q["kind"] == "ared"
        byte_mode = bool(q.get("byte_mode", False))
        mean = q["mean_pktsize_bytes"]
        rate = q.get("link_rate_bps") or link["rate_bps"]
        max_p = q["max_p"]
        attrs = [f"MaxSize={self.limit(key, q, 'B' if byte_mode else 'p')}"]
        if adaptive:
            # ns-3's ARED = true zeroes given thresholds and weight; AdaptMaxP with qdsim's own
            # automatic values (the same rules: Floyd et al. 2001 and ns-2) keeps both.
            c = rate / (8.0 * mean)
            min_th = q.get("min_th_pkts")
            min_th = float(min_th) if min_th is not None else max(5.0, q["target_delay_ns"] / 1e9 * c / 2.0)
            max_th = q.get("max_th_pkts")
            max_th = float(max_th) if max_th is not None else 3.0 * min_th
            w_q = q.get("w_q")
            w_q = w_q if w_q is not None else 1.0 - math.exp(-1.0 / c)
            attrs += [
                "ARED=false",
                "AdaptMaxP=true",
                f"TargetDelay={_ns(q['target_delay_ns'])}",
                f"Interval={_ns(q['interval_ns'])}",
                "Top=0.5",
                f"Bottom={_real(min(0.01, 80000.0 / rate))}",
                "Alpha=0.01",
                "Beta=0.9",
            ]
            self.note(f"{key}.kind: ared → ns-3's RED adapts max_p on an arrival at least an interval after the last change (ns-2's rule) and keeps the gentle slope of the initial max_p")
        else:
            min_th, max_th, w_q = float(q["min_th_pkts"]), float(q["max_th_pkts"]), q["w_q"]
        unit = mean if byte_mode else 1
        attrs += [
            f"MinTh={_real(min_th * unit)}",
            f"MaxTh={_real(max_th * unit)}",
            f"QW={_real(w_q)}",
            f"LInterm={_real(1.0 / max_p)}",
            f"Gentle={_bool(q['gentle'])}",
            f"Wait={_bool(q['wait'])}",
            f"MeanPktSize={mean}",
            f"LinkBandwidth={rate}bps",
            f"UseEcn={_bool(q['ecn'])}",
            "UseHardDrop=true",
        ]
        return attrs

    def fq_codel(self, key: str, q: dict[str, Any]) -> list[str]:
        limit = q["limit_pkts"]
        memory = q["memory_limit_bytes"]
        if memory < limit * self.largest:
            allowed = f"at least limit × the run's largest packet ({limit * self.largest} B), which never binds: ns-3.37's FqCoDelQueueDisc has no memory limit"
            raise Unsupported(f"{key}.memory_limit", f"{memory}B", allowed)
        mtu = q["mtu_bytes"]
        # The flow queues are CoDel queue discs ns-3 builds itself: their MinBytes is the default.
        self.default(f"{key}.mtu", "ns3::CoDelQueueDisc::MinBytes", str(mtu + 1))
        self.note(f"{key}.mtu: CoDel's one-MTU rule over the whole backlog → ns-3.37 applies it to each flow queue's own backlog")
        return [
            f"MaxSize={self.limit(key, q, 'p')}",
            f"Flows={q['flows']}",
            f"Target={_ns(q['target_ns'])}",
            f"Interval={_ns(q['interval_ns'])}",
            f"UseEcn={_bool(q['ecn'])}",
            f"DropBatchSize={q['drop_batch_size']}",
            f"@Quantum={q['quantum_bytes']}",
        ]

    def endpoints(self) -> None:
        """Notes the endpoints ns-3 reaches through one of several links: a node's address is
        its address on its first link (global routing reaches it through that subnet)."""
        links = self.config["links"]
        first: dict[str, str] = {}
        count: dict[str, int] = {}
        for j, link in enumerate(links):
            if self.paired[j] < j:
                continue
            for end in (link["from"], link["to"]):
                first.setdefault(end, link["name"])
                count[end] = count.get(end, 0) + 1
        for flow in self.config["flows"]:
            ends = [(flow["src"], flow["dst"])] + [(h["src"], h["dst"]) for h in flow["source"].get("hosts", [])]
            for node in {n for pair in ends for n in pair}:
                if count.get(node, 0) > 1:
                    self.note(
                        f"routing: {node} is on {count[node]} links; ns-3 addresses it by its address on {first[node]}, "
                        "which global routing reaches through that link's subnet (not always qdsim's shortest path to the node)"
                    )

    # --- flows ---------------------------------------------------------------------------------

    def flow(self, i: int, flow: dict[str, Any]) -> None:
        source = flow["source"]
        kind = source["kind"]
        _known(f"flows[{i}]", flow, FLOW_FIELDS, "flow field")
        if kind not in SOURCE_FIELDS:
            raise Unsupported(f"flows[{i}].source.kind", kind, "tcp, short_flows, on_off, udp_cbr or poisson_packets")
        _known(f"flows[{i}].source", source, SOURCE_FIELDS[kind], f"{kind} field")
        if source.get("repeat"):
            _known(f"flows[{i}].source.repeat", source["repeat"], REPEAT_FIELDS, "repeat field")
        src, dst = self.node[flow["src"]], self.node[flow["dst"]]
        head = f"flow {i} {{}} {src} {dst} {flow.get('start_ns', 0)} {flow.get('start_jitter_ns', 0)}"
        stop = source.get("stop_ns")
        stop = self.config["duration_ns"] if stop is None else stop
        if kind == "udp_cbr":
            size = source.get("packet_bytes", 1500)
            # qdsim's interval: ceil(size * 8 s / rate), in whole ns.
            interval = -(-size * 8 * 1_000_000_000 // source["rate_bps"])
            self.emit(head.format("cbr") + f" bytes={size} interval_ns={interval} stop_ns={stop} uncounted={DATAGRAM_HEADER_BYTES}")
            return
        if kind == "poisson_packets":
            size = source.get("packet_bytes", 1500)
            law = source.get("size_distribution", "fixed")
            lo, hi = source.get("min_packet_bytes", 41), source.get("max_packet_bytes", 65535)
            mean = size if law == "fixed" else lo + size * (math.exp(-lo / size) - math.exp(-hi / size))
            gap = mean * 8 / source["rate_bps"] * 1e9
            self.emit(head.format("poisson") + f" bytes={size} law={law} min={lo} max={hi} gap_ns={_real(gap)} stop_ns={stop} uncounted={DATAGRAM_HEADER_BYTES}")
            return
        t = source["tcp"]
        k = self.tcp_set(f"flows[{i}].source.tcp", t)
        finite = kind != "tcp" or source.get("size_bytes") is not None
        if finite and t["delayed_ack"] and t["min_rto_ns"] < t["delayed_ack_timeout_ns"]:
            self.note(
                f"tcp.delayed_ack: ns-3.37 delays the ACK of a transfer's last segment like any other (qdsim ACKs a completed transfer at once); "
                f"with min_rto {t['min_rto_ns'] / 1e6:g} ms < delayed_ack_timeout {t['delayed_ack_timeout_ns'] / 1e6:g} ms the sender may time out and resend it first"
            )
        if kind == "tcp":
            size, repeat = source.get("size_bytes"), source.get("repeat")
            if size is None:
                self.emit(head.format("bulk") + f" tcp={k}")
            elif repeat is None:
                self.emit(head.format("finite") + f" tcp={k} size={size}")
            else:
                barrier = re.sub(r"\s", "_", repeat["barrier"])
                rounds = repeat.get("rounds") or 0
                self.emit(head.format("rounds") + f" tcp={k} size={size} barrier={barrier} rounds={rounds} think_ns={repeat.get('think_ns', 0)} persistent={int(bool(repeat.get('persistent')))}")
        elif kind == "short_flows":
            sizes = source.get("sizes")
            if sizes is None:
                law = f"uniform:{source['size_min_bytes']}:{source['size_max_bytes']}"
            elif sizes["distribution"] == "fixed":
                law = f"fixed:{sizes['bytes']}"
            elif sizes["distribution"] == "exponential":
                law = f"exponential:{sizes['mean_bytes']}"
            else:
                law = f"pareto:{sizes['mean_bytes']}:{_real(sizes['shape'])}"
            self.emit(head.format("short") + f" tcp={k} rate={_real(source['arrival_rate_per_s'])} sizes={law} stop_ns={stop}")
            for pair in source.get("hosts", []):
                self.emit(f"pair {i} {self.node[pair['src']]} {self.node[pair['dst']]}")
        elif kind == "on_off":
            burst = source.get("burst_bytes") or source["burst_pkts"] * _mss(source["tcp"])
            self.emit(head.format("onoff") + f" tcp={k} burst={burst} idle_ns={source['idle_ns']} first={source.get('first_burst', 'idle')}")
        else:
            raise Unsupported(f"flows[{i}].source.kind", kind, "tcp, short_flows, on_off, udp_cbr or poisson_packets")

    # --- TCP -------------------------------------------------------------------------------------

    def tcp_set(self, key: str, tcp: dict[str, Any]) -> int:
        """Returns the index of ``tcp``'s option set, writing it the first time."""
        ident = json.dumps(tcp, sort_keys=True)
        if ident not in self.tcp_sets:
            k = len(self.tcp_sets)
            self.tcp_sets[ident] = k
            cc, recovery, rtt, parts = self.tcp(key, tcp)
            self.tcp_lines.append(f"tcp {k} {cc} {recovery} {rtt}")
            for part, attrs in parts.items():
                if attrs:
                    self.tcp_lines.append(f"tcpattr {k} {part} " + " ".join(attrs))
        return self.tcp_sets[ident]

    def tcp(self, key: str, t: dict[str, Any]) -> tuple[str, str, str, dict[str, list[str]]]:
        """Returns the congestion control, recovery and RTT estimator TypeIds of one option
        set and the attributes of each object; notes every stand-in."""
        note = self.note
        _known(key, t, TCP_FIELDS, "TCP option")
        cc = t["cc"]
        if cc == "tahoe":
            raise Unsupported(f"{key}.cc", cc, "newreno, reno, cubic, highspeed or highspeed_ns2: ns-3.37 has no Tahoe (its TcpSocketBase always runs fast recovery)")
        mss = _mss(t)
        sack, ts = bool(t["sack"]), bool(t["timestamps"])
        cc_attrs: list[str] = []
        if cc == "reno":
            note("tcp.cc: reno → ns-3.37 TcpNewReno (TcpSocketBase's fast recovery ends at the recovery point, NewReno's, not on the first new ACK)")
        elif cc == "highspeed_ns2":
            note("tcp.cc: highspeed_ns2 → ns-3.37 TcpHighSpeed (RFC 3649's b(w) on every decrease, not ns-2's halving on the first one, in slow start and after a timeout)")
        elif cc == "cubic":
            cc_attrs += ["C=0.4", "Beta=0.7", "FastConvergence=true", f"HyStart={_bool(t['hystart'] != 'off')}"]
            note(
                "tcp.cc: cubic → ns-3.37 TcpCubic (C 0.4, beta 0.7, fast convergence; it has no Reno-friendly region, and its window grows on while "
                "the receive window limits the sender, a loss then cutting beta x that window: ns-3.42 grows it only when cwnd-limited)"
            )
        if t["hystart"] != "off":
            if cc == "cubic":
                like = "Linux's, with ns-3's constants" if t["hystart"] == "linux" else "not RFC 9406's HyStart++"
                note(f"tcp.hystart: {t['hystart']} → ns-3.37 TcpCubic's HyStart (ACK trains and delay increase: {like})")
            elif t["hystart"] == "rfc9406":
                note(f"tcp.hystart: rfc9406 → none (ns-3.37's {CONGESTION[cc].removeprefix('ns3::')} has no HyStart)")
        if t["wire"] == "ns2":
            parts = ["a SYN 48-60 B instead of 40"]
            if sack:
                parts.append("an ACK with SACK blocks 4 B longer")
            if ts:
                parts.append("every segment 2 B longer (timestamps padded to 12 B, on ACKs too)")
            parts.append("a transfer's last segment as short as its data (qdsim's ns2 wire sends it full-size, as ns-2's agents do)")
            note(f"tcp.wire: ns2 → ietf (ns-3 lays options out as the RFCs: {', '.join(parts)}); the MSS stays {mss} B")
        if not t["handshake"]:
            note("tcp.handshake: false → true (ns-3's TcpSocketBase always opens with SYN, SYN-ACK)")

        rwnd = t["rwnd_bytes"]
        buffer = _whole_segments(rwnd, mss)
        window = _advertised(buffer)
        if window != buffer:
            note(f"tcp.rwnd_bytes: {rwnd} → {window} (the window ns-3 advertises: the buffer rounded down to its window scale)")
        ssthresh = t["initial_ssthresh_pkts"]
        ssthresh_bytes = 4294967295 if ssthresh is None else min(4294967295, ssthresh * mss)
        socket = [
            f"SegmentSize={mss}",
            f"InitialCwnd={_initial_cwnd(t)}",
            f"InitialSlowStartThreshold={ssthresh_bytes}",
            # The receiver advertises its free buffer, which an application reading at once
            # keeps at its size; the sender's buffer bounds what is outstanding (snd.max -
            # snd.una). Both hold qdsim's window, whole segments (_whole_segments).
            f"RcvBufSize={buffer}",
            f"SndBufSize={buffer}",
            "WindowScaling=true",
            f"MinRto={_ns(t['min_rto_ns'])}",
            f"ClockGranularity={_ns(t['clock_granularity_ns'])}",
            # The SYN's timer; data has an RTT sample from the handshake before it is sent.
            f"ConnTimeout={_ns(t['initial_rto_ns'])}",
            f"ReTxThreshold={t['dupack_threshold']}",
            f"DelAckCount={t['delayed_ack_count'] if t['delayed_ack'] else 1}",
            f"DelAckTimeout={_ns(t['delayed_ack_timeout_ns'])}",
            f"UseEcn={'On' if t['ecn'] else 'Off'}",
            f"Sack={_bool(sack)}",
            f"Timestamp={_bool(ts)}",
            "TcpNoDelay=true",
            # qdsim never gives a connection up: no abort after 6 retransmissions, SYNs retried
            # 16 times (ns-3 doubles the SYN timer without a cap).
            "DataRetries=4294967295",
            "ConnCount=16",
        ]
        if t["max_rto_ns"] != NS3_MAX_RTO_NS:
            note(f"tcp.max_rto_ns: {t['max_rto_ns'] / 1e9:g} s → 60 s (ns-3.37 caps the backed-off RTO at 60 s)")
        if t["rto_formula"] != "rfc6298":
            note(f"tcp.rto_formula: {t['rto_formula']} → rfc6298 (ns-3.37's RttMeanDeviation and max(MinRto, SRTT + max(G, 4 RTTVAR)))")
        elif ts and t["clock_granularity_ns"] != 1_000_000:
            g = t["clock_granularity_ns"] / 1e6
            note(f"tcp.clock_granularity_ns: RTT samples from timestamps in ticks of {g:g} ms → 1 ms (ns-3's timestamp clock); G = {g:g} ms in the RTO")
        if t["rto_restart"] != "first_partial_ack":
            note(f"tcp.rto_restart: {t['rto_restart']} → first_partial_ack (ns-3.37 restarts the timer on the first partial ACK of a recovery only)")
        if t["fast_retransmit_restarts_rto"]:
            note("tcp.fast_retransmit_restarts_rto: true → false (ns-3.37 starts the timer at a retransmission only when it is stopped)")
        if t["delayed_ack"] and t["quick_acks"] != 1:
            note(f"tcp.quick_acks: {t['quick_acks']} → 1 (ns-3.37 ACKs the first data segment after the handshake at once)")
        self.growth(cc, t["byte_counting"])
        if t["idle_restart"]:
            note("tcp.idle_restart: true → false (ns-3.37's TcpSocketBase keeps its window over an idle period)")

        recovery, rec_attrs = self.recovery(t)
        limited = t["limited_transmit"]
        if sack:
            socket.append("LimitedTransmit=true")
            if limited != "pipe":
                note(f"tcp.limited_transmit: {limited} → pipe (with SACK, ns-3.37 sends new data on duplicate ACKs while pipe < cwnd)")
        else:
            socket.append(f"LimitedTransmit={_bool(limited != 'off')}")
            if limited == "rfc3042":
                note("tcp.limited_transmit: rfc3042 → pipe (ns-3.37's limited transmit sends one segment per duplicate ACK while pipe < cwnd, without RFC 3042's bound of two)")
            elif limited == "ns2":
                note("tcp.limited_transmit: ns2 → pipe (ns-3.37's limited transmit sends new data while pipe < cwnd, never a go-back-N resend as ns-2's send_one after a timeout)")
        if t["rescue_retransmit"] != "partial_ack":
            note(f"tcp.rescue_retransmit: {t['rescue_retransmit']} → partial_ack (ns-3.37 retransmits the new head on a partial ACK; it has no NextSeg rule 4)")
        base = t["reduction_base"]
        # TcpSocketBase::EnterRecovery hands GetSsThresh the bytes in flight with the head
        # marked lost; TcpCubic::GetSsThresh ignores them and cuts its own cWnd (tcp-cubic.cc:
        # 411, 428: max(cWnd x Beta, 2 segments)), TcpNewReno and TcpHighSpeed cut them.
        # The core's `ns3` base is that rule (ReductionBase::for_cc).
        own = "cwnd" if cc == "cubic" else "pipe"
        prr = recovery == "ns3::TcpPrrRecovery" and base != "flightsize"
        if base not in (own, "ns3"):
            whence = "cwnd (TcpCubic cuts beta x cwnd, whatever is in flight)" if own == "cwnd" else "pipe (the bytes in flight with the head marked lost)"
            and_prr = " and PRR's RecoverFS from FlightSize (snd.max - snd.una)" if prr else ""
            note(f"tcp.reduction_base: {base} → ns-3.37 takes ssthresh from {whence}{and_prr}")
        elif prr:
            note(f"tcp.reduction_base: {base} → ns-3.37 takes ssthresh from {own} but PRR's RecoverFS from FlightSize (snd.max - snd.una)")
        self.later_options(key, t)
        rtt = [f"InitialEstimation={_ns(t['initial_rto_ns'])}"]
        return CONGESTION[cc], recovery, "ns3::RttMeanDeviation", {"socket": socket, "cc": cc_attrs, "recovery": rec_attrs, "rtt": rtt}

    def growth(self, cc: str, byte_counting: str) -> None:
        """Notes how ns-3.37's congestion control ``cc`` counts what an ACK covers where it is
        not ``byte_counting``'s rule: TcpNewReno counts ACKs (tcp-congestion-ops.cc:163-201,
        one segment per ACK in slow start, the ACKed segments beyond ssthresh carried into
        congestion avoidance: ``off``); TcpCubic counts segments in both phases (tcp-cubic.cc:
        197, the window grows by every segment an ACK covers in slow start, with no limit L;
        :206, they count toward cnt, at most one segment of growth per ACK: nearest ``linux``);
        TcpHighSpeed slow-starts as TcpNewReno and counts segments toward a(w) after
        (tcp-highspeed.cc:109: none of the three)."""
        name = CONGESTION[cc].removeprefix("ns3::")
        if byte_counting == "ns3":
            # The core's rule per control (ByteCounting::Ns3): all segments with CUBIC, the ACK
            # once with the others, which is TcpHighSpeed's only in slow start.
            if cc in ("highspeed", "highspeed_ns2"):
                self.note(f"tcp.byte_counting: ns3 → ns-3.37's {name} counts ACKs in slow start and the segments an ACK covers toward a(w) in congestion avoidance")
            return
        if cc == "cubic":
            rule = "in slow start without RFC 3465's limit of 2, in congestion avoidance toward cnt with at most one segment of growth per ACK, SACKed segments not counted"
            if byte_counting == "linux":
                self.note(f"tcp.byte_counting: linux → ns-3.37's {name} counts every segment an ACK covers cumulatively: {rule}")
            else:
                self.note(f"tcp.byte_counting: {byte_counting} → linux (ns-3.37's {name} counts every segment an ACK covers cumulatively: {rule})")
        elif cc in ("highspeed", "highspeed_ns2"):
            self.note(f"tcp.byte_counting: {byte_counting} → ns-3.37's {name} counts ACKs in slow start and the segments an ACK covers toward a(w) in congestion avoidance")
        elif byte_counting != "off":
            self.note(f"tcp.byte_counting: {byte_counting} → off (ns-3.37's {name} counts ACKs, not bytes)")

    def later_options(self, key: str, t: dict[str, Any]) -> None:
        """Notes the options a configuration may carry or not (they came to the core after the
        others): ns-3.37's rule for each, and refuses a value the translator does not know."""
        choices = {
            # ns-3.37 (TcpSocketBase::DupAck) starts another recovery once the cumulative ACK
            # reaches m_recover: the RFCs' rule.
            "recover_check": ("rfc", {"ns2": "ns-3.37 allows another fast retransmit once the cumulative ACK reaches recover, not only past it"}),
            # ns-3.37's classic recovery (TcpClassicRecovery::ExitRecovery) and PRR end with
            # cwnd = ssthresh.
            "recovery_exit": ("ssthresh", {"flightsize": "ns-3.37 ends a recovery with cwnd = ssthresh"}),
            # ns-3.37 counts the window in bytes, SMSS^2/cWnd per ACK after slow start: in
            # segments, one per window of ACKs.
            "window_arithmetic": ("segments", {"ns2": "ns-3.37 counts bytes, not ns-2's double cwnd_"}),
            # ns-3.37 keeps the initial window after a retransmitted SYN; a timestamp sample of
            # the SYN-ACK sets the RTO, else the handshake's ACK sets max(MinRto, initial
            # estimate + G) (TcpSocketBase::SendEmptyPacket).
            "syn_loss": (
                "ns3",
                {
                    "rfc": "ns-3.37 keeps the initial window after a retransmitted SYN, and its RTO is not raised to 3 s",
                    "ns2": "ns-3.37 keeps the initial window after a retransmitted SYN",
                    "linux": "ns-3.37 keeps the initial window after any number of SYN retransmissions; without timestamps its RTO is not 3 s",
                },
            ),
            # ns-3.37 (TcpSocketBase::ReTxTimeout) lowers ssthresh unless the timeout repeats
            # one of the same data, in fast recovery too.
            "timeout_ssthresh": (
                "not_repeated",
                {
                    "new_episode": "ns-3.37 lowers ssthresh also at a timeout during fast recovery (not at a repeated one)",
                    "every": "ns-3.37 does not lower ssthresh again at a repeated timeout of the same data",
                },
            ),
        }
        for field, (own, others) in choices.items():
            value = t.get(field)
            if value is None or value == own:
                continue
            if value not in others:
                raise Unsupported(f"{key}.{field}", value, f"one of {', '.join([own, *others])}")
            self.note(f"tcp.{field}: {value} → {own} ({others[value]})")
        if t.get("syn_loss") == "ns3" and not t["timestamps"]:
            self.note("tcp.syn_loss: ns3 → without timestamps ns-3.37 clears the backoff of a retransmitted SYN: the RTO is max(min_rto, initial_rto + G) until the first sample")

    def recovery(self, t: dict[str, Any]) -> tuple[str, list[str]]:
        """Returns the recovery TypeId and its attributes for ``t``; notes the stand-ins."""
        kind = t["recovery"]
        if kind == "rfc6675":
            return "ns3::TcpClassicRecovery", []
        if kind == "ns2_sack1":
            self.note("tcp.recovery: ns2_sack1 → ns-3.37 TcpClassicRecovery (ns-3 has no ns-2 Sack1 recovery; the nearest sets cwnd = ssthresh at once and sends by pipe, RFC 6675)")
            return "ns3::TcpClassicRecovery", []
        if kind == "rate_halving":
            self.note("tcp.recovery: rate_halving → ns-3.37 TcpPrrRecovery (ns-3 has no Linux 2.6 rate-halving; PRR, which replaced it in Linux 3.2, also lowers cwnd step by step)")
        bound = t["prr_bound"]
        if bound == "ssrb":
            self.note("tcp.prr_bound: ssrb → ns-3.37 SSRB, which adds the extra segment only on an ACK of retransmitted data and otherwise sends what the ACK delivered")
        elif bound == "rfc9937":
            self.note("tcp.prr_bound: rfc9937 → ns-3.37 SSRB (on an ACK of retransmitted data max(prr_delivered - prr_out, delivered) + MSS as RFC 9937, otherwise only what the ACK delivered)")
        if t["prr_dupack_segment"]:
            self.note("tcp.prr_dupack_segment: true → false (ns-3.37's PRR counts only newly SACKed bytes as delivered on a duplicate ACK; the extra segment is ns-3.43's)")
        return "ns3::TcpPrrRecovery", [f"ReductionBound={'CRB' if bound == 'crb' else 'SSRB'}"]


# --- command line -------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """``python -m qdsim.engines.ns3 --build``: builds the program (``make engines`` runs it)
    and prints where it is."""
    parser = argparse.ArgumentParser(prog="python -m qdsim.engines.ns3", description="Builds qdsim's ns-3 engine program.")
    parser.add_argument("--build", action="store_true", help="compile ns3_scenario.cc (once per source digest) and print the binary's path")
    parser.add_argument("--force", action="store_true", help="compile even if the binary exists")
    args = parser.parse_args(argv)
    if not args.build:
        parser.print_help()
        return 2
    if not (_HEADERS / "tcp-socket-base.h").exists():
        print("ns-3.37 is not installed: apt-get install libns3-dev", file=sys.stderr)
        return 1
    try:
        path = build(force=args.force)
    except RuntimeError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
