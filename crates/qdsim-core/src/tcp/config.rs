//! TCP endpoint parameters, with defaults and their sources, and their catalog entries
//! ([`OPTIONS`]: the experiment file's names, units and defaults, checked against
//! [`TcpConfig::default`] by this file's tests).

use serde::{Deserialize, Serialize};

use super::wire::{WireFormat, WireSizes};
use crate::catalog::TcpOptionInfo;
use crate::error::ConfigError;

/// Congestion control (and loss-recovery flavour) of a TCP sender, by the name papers use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum CcKind {
    /// TCP Tahoe: fast retransmit but no fast recovery; every loss restarts slow start
    /// (Jacobson 1988, as in ns-2's `Agent/TCP`).
    Tahoe,
    /// TCP Reno (RFC 5681): fast retransmit and fast recovery; any new ACK ends recovery.
    Reno,
    /// TCP NewReno (RFC 6582): stays in fast recovery until all data outstanding at the
    /// loss is acknowledged, retransmitting one segment per partial ACK.
    #[default]
    Newreno,
    /// CUBIC (RFC 9438) with NewReno loss recovery (or SACK with `sack = true`).
    Cubic,
    /// HighSpeed TCP (RFC 3649) with NewReno loss recovery (or SACK with `sack = true`).
    Highspeed,
    /// HighSpeed TCP with ns-2's decrease rules (`TcpAgent::slowdown`, `windowOption_ 8`):
    /// halve on the first decrease, in slow start and after a timeout (`cc/highspeed.rs`).
    HighspeedNs2,
}

impl CcKind {
    /// Every congestion control, with a one-line description (for `qdsim list`).
    pub const ALL: &'static [(CcKind, &'static str, &'static str)] = &[
        (CcKind::Tahoe, "tahoe", "Tahoe: fast retransmit, then slow start from one segment (no fast recovery)"),
        (CcKind::Reno, "reno", "RFC 5681 Reno: AIMD, fast retransmit, fast recovery ended by any new ACK"),
        (CcKind::Newreno, "newreno", "RFC 6582 NewReno: Reno whose fast recovery retransmits on partial ACKs"),
        (
            CcKind::Cubic,
            "cubic",
            "RFC 9438 CUBIC: C = 0.4, beta = 0.7, fast convergence, Reno-friendly region; no HyStart",
        ),
        (CcKind::Highspeed, "highspeed", "RFC 3649 HighSpeed TCP: a(w), b(w) above Low_Window 38; w = 0.12/p^0.835"),
        (
            CcKind::HighspeedNs2,
            "highspeed_ns2",
            "HighSpeed TCP as ns-2 runs it: same a(w), b(w); halves on the first decrease, in slow start and after a timeout",
        ),
    ];

    /// Returns the name used in experiment files.
    pub fn name(self) -> &'static str {
        Self::ALL.iter().find(|(k, _, _)| *k == self).map(|(_, n, _)| *n).unwrap_or("?")
    }
}

/// Parameters of one TCP connection (sender and receiver).
///
/// Defaults follow Linux where the RFCs leave room, except delayed ACKs, which are off as in
/// the ns-2 `TCPSink` the reproduced papers used (and as the Mathis law assumes); see
/// `docs/tcp.md`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Congestion control.
    pub cc: CcKind,
    /// Wire size of a full-sized data segment in bytes; the MSS is this minus the headers and
    /// options every data segment carries (40 bytes, plus the timestamp option's 12 with
    /// `timestamps` in the `ietf` wire format; see `wire.rs`). Default 1500 (Ethernet MTU).
    pub packet_bytes: u32,
    /// Initial congestion window in segments. Default 10 (RFC 6928, Linux).
    pub initial_cwnd_pkts: u32,
    /// Initial slow-start threshold in segments; `None` = arbitrarily high (RFC 5681 §3.1).
    pub initial_ssthresh_pkts: Option<u32>,
    /// Receiver window in bytes: the most the sender may have outstanding.
    /// Default 6 MiB, Linux's `tcp_rmem` maximum.
    pub rwnd_bytes: u64,
    /// Lower bound of the retransmission timeout in ns. Default 200 ms (Linux `TCP_RTO_MIN`;
    /// RFC 6298 says 1 s).
    pub min_rto_ns: u64,
    /// Upper bound of the retransmission timeout in ns. Default 60 s (RFC 6298 §2.5).
    pub max_rto_ns: u64,
    /// RTO before the first RTT sample in ns. Default 1 s (RFC 6298 §2.1).
    pub initial_rto_ns: u64,
    /// Duplicate ACKs that trigger fast retransmit. Default 3 (RFC 5681).
    pub dupack_threshold: u32,
    /// Delayed ACKs at the receiver (RFC 5681 §4.2): one ACK per `delayed_ack_count`
    /// full segments or after `delayed_ack_timeout_ns`. Default off.
    pub delayed_ack: bool,
    /// Segments per delayed ACK. Default 2.
    pub delayed_ack_count: u32,
    /// Delayed-ACK timer in ns. Default 40 ms (Linux `TCP_DELACK_MIN`).
    pub delayed_ack_timeout_ns: u64,
    /// ECN (RFC 3168): data sent ECT(0), the receiver echoes CE marks as ECE, the sender
    /// reduces once per window and answers CWR. Default off.
    pub ecn: bool,
    /// SACK (RFC 2018 blocks at the receiver, RFC 6675 loss recovery at the sender).
    /// Default off (the papers' ns-2 agents); Linux enables it.
    pub sack: bool,
    /// HyStart++ (RFC 9406 §4.2): leave slow start when a round's minimum RTT rises by
    /// `clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)` over the previous round's. Default off.
    pub hystart: bool,
    /// Limited transmit (RFC 3042): the first two duplicate ACKs each release one new
    /// segment, so a small window can still collect three duplicate ACKs. Default off.
    pub limited_transmit: bool,
    /// Linux's RTO, `SRTT + max(4·RTTVAR, min_rto)`, instead of RFC 6298's
    /// `max(SRTT + 4·RTTVAR, min_rto)`. Default off.
    pub linux_rto: bool,
    /// Restart from `min(IW, cwnd)` when a persistent connection gets new data after
    /// sending nothing for longer than the RTO (RFC 5681 §4.1; Linux's
    /// `tcp_slow_start_after_idle`). Default on; ns-2's one-way agents keep the window.
    pub idle_restart: bool,
    /// TCP timestamps for RTT measurement (RFC 7323 §4): the echoed timestamp identifies
    /// the transmission an ACK answers, so the ACK of a retransmission also gives an RTT
    /// sample (and ends the timer's backoff), where without timestamps Karn's rule skips it.
    /// Default off (ns-2's agents); Linux enables timestamps.
    pub timestamps: bool,
    /// Appropriate byte counting (RFC 3465 §2.2, L = 2): window growth counts the segments
    /// an ACK covers, at most two. Off: every ACK counts as one segment, whatever it covers,
    /// as in Linux before 3.0 (`tcp_abc = 0`) and ns-2's agents, so delayed ACKs slow the
    /// growth (slow start ×1.5 per round trip). Default on.
    pub byte_counting: bool,
    /// Open the connection with a SYN / SYN-ACK exchange before any data (RFC 9293 §3.5),
    /// so a lost SYN costs `initial_rto` (RFC 6298: 1 s; Linux 2.6 and RFC 1122: 3 s). The
    /// SYN-ACK gives the first RTT sample; after a retransmitted SYN the RTO restarts at 3 s
    /// (RFC 6298 §5.7) and the initial window is one segment (RFC 5681 §3.1). Default off,
    /// as ns-2's one-way agents: data flows from the start.
    pub handshake: bool,
    /// Whose rules set the segments' sizes on the wire (`wire.rs`): `ietf` (the RFCs' option
    /// layout, as Linux and ns-3 send it: timestamps 12 bytes on every segment, SACK blocks
    /// 4 + 8n on ACKs) or `ns2` (ns-2.35: timestamps 10 bytes on data only, SACK blocks 8n).
    /// Default `ietf`.
    pub wire: WireFormat,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            cc: CcKind::Newreno,
            packet_bytes: 1500,
            initial_cwnd_pkts: 10,
            initial_ssthresh_pkts: None,
            rwnd_bytes: 6 * 1024 * 1024,
            min_rto_ns: 200_000_000,
            max_rto_ns: 60_000_000_000,
            initial_rto_ns: 1_000_000_000,
            dupack_threshold: 3,
            delayed_ack: false,
            delayed_ack_count: 2,
            delayed_ack_timeout_ns: 40_000_000,
            ecn: false,
            sack: false,
            hystart: false,
            limited_transmit: false,
            linux_rto: false,
            idle_restart: true,
            timestamps: false,
            byte_counting: true,
            handshake: false,
            wire: WireFormat::Ietf,
        }
    }
}

const U32: Option<u64> = Some(u32::MAX as u64);
const U64: Option<u64> = Some(u64::MAX);

/// Every option of a flow group's `tcp = {...}`, with the `TcpConfig` field it sets (all but
/// `cc`, a key of the flow group itself), in `qdsim list` order.
pub const OPTIONS: &[TcpOptionInfo] = &[
    TcpOptionInfo {
        name: "packet_size",
        field: "packet_bytes",
        unit: "bytes",
        default: "1500B",
        help: "wire size of a full segment (MSS = size - 40)",
        max: U32,
        values: &[],
    },
    TcpOptionInfo {
        name: "initial_cwnd",
        field: "initial_cwnd_pkts",
        unit: "pkts",
        default: "10",
        help: "initial window (RFC 6928, Linux)",
        max: U32,
        values: &[],
    },
    TcpOptionInfo {
        name: "initial_ssthresh",
        field: "initial_ssthresh_pkts",
        unit: "pkts",
        default: "none",
        help: "initial slow-start threshold; none = unlimited",
        max: U32,
        values: &[],
    },
    TcpOptionInfo {
        name: "rwnd",
        field: "rwnd_bytes",
        unit: "bytes",
        default: "6MiB",
        help: "receiver window (Linux tcp_rmem max)",
        max: U64,
        values: &[],
    },
    TcpOptionInfo {
        name: "min_rto",
        field: "min_rto_ns",
        unit: "time",
        default: "200ms",
        help: "minimum RTO (Linux; RFC 6298 says 1 s)",
        max: U64,
        values: &[],
    },
    TcpOptionInfo {
        name: "max_rto",
        field: "max_rto_ns",
        unit: "time",
        default: "60s",
        help: "maximum RTO (RFC 6298)",
        max: U64,
        values: &[],
    },
    TcpOptionInfo {
        name: "initial_rto",
        field: "initial_rto_ns",
        unit: "time",
        default: "1s",
        help: "RTO before the first RTT sample (RFC 6298)",
        max: U64,
        values: &[],
    },
    TcpOptionInfo {
        name: "dupack_threshold",
        field: "dupack_threshold",
        unit: "pkts",
        default: "3",
        help: "duplicate ACKs that trigger fast retransmit",
        max: U32,
        values: &[],
    },
    TcpOptionInfo {
        name: "delayed_ack",
        field: "delayed_ack",
        unit: "bool",
        default: "false",
        help: "delayed ACKs at the receiver (off as in ns-2)",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "delayed_ack_count",
        field: "delayed_ack_count",
        unit: "pkts",
        default: "2",
        help: "segments per delayed ACK",
        max: U32,
        values: &[],
    },
    TcpOptionInfo {
        name: "delayed_ack_timeout",
        field: "delayed_ack_timeout_ns",
        unit: "time",
        default: "40ms",
        help: "delayed-ACK timer (Linux)",
        max: U64,
        values: &[],
    },
    TcpOptionInfo {
        name: "ecn",
        field: "ecn",
        unit: "bool",
        default: "false",
        help: "ECN (RFC 3168): ECT data, ECE/CWR, one reduction per RTT",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "sack",
        field: "sack",
        unit: "bool",
        default: "false",
        help: "SACK blocks (RFC 2018) and RFC 6675 loss recovery",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "hystart",
        field: "hystart",
        unit: "bool",
        default: "false",
        help: "HyStart++ delay-increase exit from slow start (RFC 9406)",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "limited_transmit",
        field: "limited_transmit",
        unit: "bool",
        default: "false",
        help: "RFC 3042: a new segment on each of the first two duplicate ACKs",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "linux_rto",
        field: "linux_rto",
        unit: "bool",
        default: "false",
        help: "RTO = SRTT + max(4 RTTVAR, min_rto) as Linux, not RFC 6298's max(SRTT + 4 RTTVAR, min_rto)",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "timestamps",
        field: "timestamps",
        unit: "bool",
        default: "false",
        help: "RFC 7323 RTT measurement: the ACK of a retransmission is a sample (Linux)",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "byte_counting",
        field: "byte_counting",
        unit: "bool",
        default: "true",
        help: "RFC 3465 growth per segment ACKed (at most 2 per ACK); false = per ACK (Linux < 3.0, ns-2)",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "idle_restart",
        field: "idle_restart",
        unit: "bool",
        default: "true",
        help: "RFC 5681 4.1: restart from min(IW, cwnd) after idling longer than the RTO",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "handshake",
        field: "handshake",
        unit: "bool",
        default: "false",
        help: "SYN / SYN-ACK before data; a lost SYN costs initial_rto",
        max: None,
        values: &[],
    },
    TcpOptionInfo {
        name: "wire",
        field: "wire",
        unit: "name",
        default: "ietf",
        help: "wire sizes: ietf (TS 12 B on every segment, SACK 4+8n on ACKs) or ns2 (TS 10 B on data, SACK 8n)",
        max: None,
        values: WireFormat::NAMES,
    },
];

impl TcpConfig {
    /// Returns the maximum segment size (payload bytes of a full segment).
    pub fn mss(&self) -> u32 {
        self.packet_bytes - self.wire_sizes().data_header_bytes
    }

    /// Returns the sizes of the connection's segments on the wire.
    pub fn wire_sizes(&self) -> WireSizes {
        WireSizes::new(self.wire, self.timestamps, self.sack)
    }

    /// Checks every parameter's range.
    ///
    /// # Errors
    /// The first parameter out of range, by its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let headers = self.wire_sizes().data_header_bytes;
        if self.packet_bytes <= headers || self.packet_bytes > 65_535 {
            return Err(ConfigError::new(
                "packet_bytes",
                self.packet_bytes,
                format!("{}..=65535 bytes (headers and options of a data segment are {headers} bytes)", headers + 1),
            ));
        }
        if self.initial_cwnd_pkts == 0 {
            return Err(ConfigError::new("initial_cwnd_pkts", 0, "at least 1 segment"));
        }
        if self.initial_ssthresh_pkts == Some(0) || self.initial_ssthresh_pkts == Some(1) {
            return Err(ConfigError::new(
                "initial_ssthresh_pkts",
                self.initial_ssthresh_pkts.unwrap(),
                "at least 2 segments, or absent",
            ));
        }
        if self.rwnd_bytes < self.mss() as u64 {
            return Err(ConfigError::new(
                "rwnd_bytes",
                self.rwnd_bytes,
                format!("at least one MSS ({} bytes)", self.mss()),
            ));
        }
        if self.min_rto_ns == 0 {
            return Err(ConfigError::new("min_rto_ns", 0, "> 0"));
        }
        if self.max_rto_ns < self.min_rto_ns {
            return Err(ConfigError::new(
                "max_rto_ns",
                self.max_rto_ns,
                format!("at least min_rto ({} ms)", self.min_rto_ns as f64 / 1e6),
            ));
        }
        if self.initial_rto_ns == 0 {
            return Err(ConfigError::new("initial_rto_ns", 0, "> 0"));
        }
        if self.dupack_threshold == 0 {
            return Err(ConfigError::new("dupack_threshold", 0, "at least 1"));
        }
        if self.delayed_ack && self.delayed_ack_count == 0 {
            return Err(ConfigError::new("delayed_ack_count", 0, "at least 1"));
        }
        if self.delayed_ack && self.delayed_ack_timeout_ns == 0 {
            return Err(ConfigError::new("delayed_ack_timeout_ns", 0, "> 0"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::check::core_value;

    #[test]
    fn every_option_default_is_the_rust_default() {
        let defaults = serde_json::to_value(TcpConfig::default()).unwrap();
        for o in OPTIONS {
            let actual = &defaults[o.field];
            match core_value(o.unit, o.default) {
                None => assert!(actual.is_null(), "{}: catalog says {}, Default has {actual}", o.name, o.default),
                Some(v) => assert_eq!(&v, actual, "{}: catalog says {}", o.name, o.default),
            }
        }
    }

    #[test]
    fn every_field_but_cc_has_exactly_one_option() {
        let defaults = serde_json::to_value(TcpConfig::default()).unwrap();
        let mut fields: Vec<&str> = defaults.as_object().unwrap().keys().map(String::as_str).collect();
        fields.retain(|f| *f != "cc");
        let mut listed: Vec<&str> = OPTIONS.iter().map(|o| o.field).collect();
        fields.sort();
        listed.sort();
        assert_eq!(fields, listed);
    }

    #[test]
    fn max_is_the_largest_value_the_field_takes() {
        for o in OPTIONS {
            let parse = |v: u128| serde_json::from_str::<TcpConfig>(&format!(r#"{{"{}": {v}}}"#, o.field));
            match o.max {
                Some(max) => {
                    assert!(parse(max as u128).is_ok(), "{}: {max} refused", o.name);
                    assert!(parse(max as u128 + 1).is_err(), "{}: {} accepted", o.name, max as u128 + 1);
                }
                None => assert!(matches!(o.unit, "bool" | "name"), "{}: a numeric option needs its max", o.name),
            }
        }
    }

    #[test]
    fn a_name_option_lists_its_values_and_only_they_parse() {
        for o in OPTIONS {
            assert_eq!(o.unit == "name", !o.values.is_empty(), "{}: values go with unit name", o.name);
            for v in o.values {
                let c: TcpConfig = serde_json::from_str(&format!(r#"{{"{}": "{v}"}}"#, o.field)).unwrap();
                assert_eq!(serde_json::to_value(&c).unwrap()[o.field], *v);
            }
            if !o.values.is_empty() {
                assert!(serde_json::from_str::<TcpConfig>(&format!(r#"{{"{}": "nope"}}"#, o.field)).is_err());
                assert!(o.values.contains(&o.default), "{}: default among the values", o.name);
            }
        }
    }

    #[test]
    fn the_mss_is_the_packet_size_less_the_data_segment_s_headers() {
        let c = |timestamps, wire| TcpConfig { packet_bytes: 1500, timestamps, wire, ..TcpConfig::default() };
        assert_eq!(c(false, WireFormat::Ietf).mss(), 1460);
        assert_eq!(c(true, WireFormat::Ietf).mss(), 1448, "Linux at MTU 1500 with timestamps");
        assert_eq!(c(true, WireFormat::Ns2).mss(), 1450);
        let tiny = TcpConfig { packet_bytes: 52, timestamps: true, ..TcpConfig::default() };
        assert_eq!(tiny.validate().unwrap_err().key, "packet_bytes", "no room for a payload byte");
    }
}
