//! Traffic sources and their sinks, and the [`Outbox`] through which every endpoint talks to
//! the simulator.
//!
//! Kinds: TCP flows (saturated bulk when no size is given, finite transfers otherwise) and
//! UDP constant-bit-rate sources. Start times are drawn by the simulator from the
//! `flow_start` random stream.

mod cbr;

pub use cbr::CbrSource;

use crate::event::FlowTimer;
use crate::packet::Packet;
use crate::qdisc::{AlgorithmInfo, ParamInfo};
use crate::time::Time;

/// Packets an endpoint wants sent and timers it wants set, collected during one call.
///
/// The simulator drains it after every call; its vectors are reused, so sending does not
/// allocate once they have grown.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to inject at the endpoint's node, in order.
    pub pkts: Vec<Packet>,
    /// Timers to schedule for the endpoint's flow.
    pub timers: Vec<(Time, FlowTimer)>,
    /// Loss-recovery events to log: kind and segment.
    pub events: Vec<(&'static str, u64)>,
}

impl Outbox {
    /// Queues `pkt` for sending.
    pub fn send(&mut self, pkt: Packet) {
        self.pkts.push(pkt);
    }
    /// Logs a loss-recovery event of `kind` about segment `seq`.
    pub fn event(&mut self, kind: &'static str, seq: u64) {
        self.events.push((kind, seq));
    }
    /// Asks for `timer` to fire at `at`.
    pub fn timer(&mut self, at: Time, timer: FlowTimer) {
        self.timers.push((at, timer));
    }
}

/// Returns every traffic kind with its parameters.
pub fn catalog() -> Vec<AlgorithmInfo> {
    vec![
        AlgorithmInfo {
            name: "tcp",
            summary: "A TCP connection: saturated (bulk) without `size`, a finite transfer with it (FCT recorded)",
            params: vec![
                ParamInfo { name: "size", unit: "bytes", default: "none", help: "bytes to transfer; none = saturated" },
                ParamInfo { name: "cc", unit: "name", default: "newreno", help: "congestion control" },
                ParamInfo {
                    name: "packet_size",
                    unit: "bytes",
                    default: "1500B",
                    help: "wire size of a full segment (MSS = size - 40)",
                },
                ParamInfo {
                    name: "initial_cwnd",
                    unit: "pkts",
                    default: "10",
                    help: "initial window (RFC 6928, Linux)",
                },
                ParamInfo {
                    name: "initial_ssthresh",
                    unit: "pkts",
                    default: "none",
                    help: "initial slow-start threshold; none = unlimited",
                },
                ParamInfo {
                    name: "rwnd",
                    unit: "bytes",
                    default: "6MiB",
                    help: "receiver window (Linux tcp_rmem max)",
                },
                ParamInfo {
                    name: "min_rto",
                    unit: "time",
                    default: "200ms",
                    help: "minimum RTO (Linux; RFC 6298 says 1 s)",
                },
                ParamInfo { name: "max_rto", unit: "time", default: "60s", help: "maximum RTO (RFC 6298)" },
                ParamInfo {
                    name: "initial_rto",
                    unit: "time",
                    default: "1s",
                    help: "RTO before the first RTT sample (RFC 6298)",
                },
                ParamInfo {
                    name: "dupack_threshold",
                    unit: "pkts",
                    default: "3",
                    help: "duplicate ACKs that trigger fast retransmit",
                },
                ParamInfo {
                    name: "delayed_ack",
                    unit: "bool",
                    default: "false",
                    help: "delayed ACKs at the receiver (off as in ns-2)",
                },
                ParamInfo { name: "delayed_ack_count", unit: "pkts", default: "2", help: "segments per delayed ACK" },
                ParamInfo {
                    name: "delayed_ack_timeout",
                    unit: "time",
                    default: "40ms",
                    help: "delayed-ACK timer (Linux)",
                },
                ParamInfo {
                    name: "ecn",
                    unit: "bool",
                    default: "false",
                    help: "ECN (RFC 3168): ECT data, ECE/CWR, one reduction per RTT",
                },
                ParamInfo {
                    name: "sack",
                    unit: "bool",
                    default: "false",
                    help: "SACK blocks (RFC 2018) and RFC 6675 loss recovery",
                },
                ParamInfo {
                    name: "hystart",
                    unit: "bool",
                    default: "false",
                    help: "HyStart++ delay-increase exit from slow start (RFC 9406)",
                },
                ParamInfo {
                    name: "limited_transmit",
                    unit: "bool",
                    default: "false",
                    help: "RFC 3042: a new segment on each of the first two duplicate ACKs",
                },
                ParamInfo {
                    name: "linux_rto",
                    unit: "bool",
                    default: "false",
                    help: "RTO = SRTT + max(4 RTTVAR, min_rto) as Linux, not RFC 6298's max(SRTT + 4 RTTVAR, min_rto)",
                },
                ParamInfo {
                    name: "timestamps",
                    unit: "bool",
                    default: "false",
                    help: "RFC 7323 RTT measurement: the ACK of a retransmission is a sample (Linux)",
                },
                ParamInfo {
                    name: "byte_counting",
                    unit: "bool",
                    default: "true",
                    help: "RFC 3465 growth per segment ACKed (at most 2 per ACK); false = per ACK (Linux < 3.0, ns-2)",
                },
                ParamInfo {
                    name: "idle_restart",
                    unit: "bool",
                    default: "true",
                    help: "RFC 5681 4.1: restart from min(IW, cwnd) after idling longer than the RTO",
                },
                ParamInfo {
                    name: "handshake",
                    unit: "bool",
                    default: "false",
                    help: "SYN / SYN-ACK before data; a lost SYN costs initial_rto",
                },
            ],
        },
        AlgorithmInfo {
            name: "udp_cbr",
            summary: "UDP constant bit rate: fixed-size packets at a fixed rate, unresponsive",
            params: vec![
                ParamInfo { name: "rate", unit: "bit/s", default: "(required)", help: "sending rate" },
                ParamInfo { name: "packet_size", unit: "bytes", default: "1500B", help: "wire size of each packet" },
                ParamInfo { name: "stop", unit: "time", default: "end of run", help: "when the source stops" },
            ],
        },
    ]
}
