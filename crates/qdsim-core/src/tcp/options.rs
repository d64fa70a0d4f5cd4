//! The catalog of TCP options ([`OPTIONS`]): the experiment file's key of every `TcpConfig`
//! field, its unit, the names it takes and its help. Defaults are not here: each profile
//! (`profiles.rs`) gives every option a value, and the default profile's are the defaults.

use super::config::{
    ByteCounting, CcKind, HyStartKind, IwRule, LimitedTransmit, PrrBound, RecoverCheck, RecoveryExit, RecoveryKind,
    ReductionBase, RescueRetransmit, RtoFormula, RtoRestart, SynLoss, TimeoutSsthresh, WindowArithmetic,
};
use super::sender::Scheme;
use super::wire::WireFormat;
use crate::catalog::{KeyUse, TcpOption};

const U32: Option<u64> = Some(u32::MAX as u64);
const U64: Option<u64> = Some(u64::MAX);

/// A numeric option (`bytes`, `pkts` or `time`), 0 refused.
const fn number(
    name: &'static str,
    field: &'static str,
    unit: &'static str,
    max: Option<u64>,
    help: &'static str,
) -> TcpOption {
    TcpOption { name, field, unit, values: &[], allow_zero: false, help, max }
}

/// A boolean option.
const fn flag(name: &'static str, field: &'static str, help: &'static str) -> TcpOption {
    TcpOption { name, field, unit: "bool", values: &[], allow_zero: false, help, max: None }
}

/// An option that takes one of `values` (the serde names of its enum).
const fn choice(name: &'static str, values: &'static [&'static str], help: &'static str) -> TcpOption {
    TcpOption { name, field: name, unit: "name", values, allow_zero: false, help, max: None }
}

/// The options read only under another option's value, or the group's `cc` (see
/// [`KeyUse`]): the delayed-ACK details only with `delayed_ack` (without it, `receiver.rs`
/// ACKs every segment at once); PRR's bound and duplicate-ACK rule only in PRR's recovery
/// (`sender/recovery`), and without SACK PRR itself only under a control of the NewReno
/// scheme (`LossRecovery::uses_prr`: Tahoe and Reno run their own recovery); the rescue retransmission only in SACK recovery other than ns-2
/// Sack1's (`sack_ack_in_recovery`, `sack_send`: two conditions, both must hold); the
/// window at the end of NewReno's recovery only there (`newreno_ack_in_recovery`: without
/// SACK, a control of the NewReno scheme — Reno ends recovery on any new ACK, Tahoe has
/// none —, and not under PRR, whose recovery ends at ssthresh); Linux's HyStart only in
/// CUBIC (`sender/mod.rs`: Linux keeps it in its CUBIC module, every other control runs
/// without).
pub fn key_uses() -> Vec<KeyUse> {
    let tcp = |key, when, values: &[&'static str]| KeyUse::new("tcp", key, when, values);
    let newreno_scheme: Vec<&'static str> =
        CcKind::ALL.iter().filter(|cc| Scheme::of(**cc) == Scheme::NewReno).map(|cc| cc.name()).collect();
    vec![
        tcp("delayed_ack_count", "delayed_ack", &["true"]),
        tcp("delayed_ack_timeout", "delayed_ack", &["true"]),
        tcp("quick_acks", "delayed_ack", &["true"]),
        tcp("prr_bound", "recovery", &["prr"]),
        tcp("prr_dupack_segment", "recovery", &["prr"]),
        // Without SACK the control names the scheme: Tahoe and Reno have no recovery to choose.
        // (recovery itself must still name a recovery without SACK there, so only "prr", the
        // one that would change something elsewhere, is refused.)
        tcp("recovery", "cc", &newreno_scheme).of_value("prr").only_while("sack", &["false"]),
        tcp("prr_bound", "cc", &newreno_scheme).only_while("sack", &["false"]),
        tcp("prr_dupack_segment", "cc", &newreno_scheme).only_while("sack", &["false"]),
        tcp("rescue_retransmit", "sack", &["true"]),
        tcp("rescue_retransmit", "recovery", &["rfc6675", "prr", "rate_halving"]),
        tcp("recovery_exit", "sack", &["false"]),
        tcp("recovery_exit", "cc", &newreno_scheme),
        tcp("recovery_exit", "recovery", &["rfc6675", "rate_halving", "ns2_sack1"]),
        tcp("hystart", "cc", &["cubic"]).of_value("linux"),
    ]
}

/// Every option of a flow group's `tcp = {...}`, with the `TcpConfig` field it sets (all but
/// `cc`, a key of the flow group itself), in `qdsim list` and profile-table order.
pub const OPTIONS: &[TcpOption] = &[
    number("packet_size", "packet_bytes", "bytes", U32, "wire size of a full segment (MSS = size - 40)"),
    TcpOption {
        name: "initial_cwnd",
        field: "initial_cwnd_pkts",
        unit: "pkts",
        values: IwRule::NAMES,
        allow_zero: false,
        help: "initial window, segments, or \"rfc3390\" (4/3/2 by the MSS)",
        max: U32,
    },
    number("initial_ssthresh", "initial_ssthresh_pkts", "pkts", U32, "initial slow-start threshold; none = unlimited"),
    number("rwnd", "rwnd_bytes", "bytes", U64, "receiver window: the most data outstanding"),
    number("min_rto", "min_rto_ns", "time", U64, "minimum retransmission timeout"),
    number("max_rto", "max_rto_ns", "time", U64, "maximum retransmission timeout"),
    number("initial_rto", "initial_rto_ns", "time", U64, "RTO before the first RTT sample (also the SYN's)"),
    choice(
        "rto_formula",
        RtoFormula::NAMES,
        "RTO from RTT samples: RFC 6298 (ns-3), Linux's tcp_rtt_estimator, ns-2's tick arithmetic",
    ),
    TcpOption {
        name: "clock_granularity",
        field: "clock_granularity_ns",
        unit: "time",
        values: &[],
        allow_zero: true,
        help: "clock tick G: RFC 6298's G and TS clock, the Linux jiffy, ns-2's tcpTick_ (0 = exact, rfc6298 only)",
        max: U64,
    },
    choice(
        "rto_restart",
        RtoRestart::NAMES,
        "ACKs that restart the timer: RFC 6298, Linux, ns-2; ns-3 / RFC 6582 impatient (first partial ACK only)",
    ),
    flag(
        "fast_retransmit_restarts_rto",
        "fast_retransmit_restarts_rto",
        "the fast retransmission restarts the timer (Linux, ns-2; not RFC 6298, ns-3)",
    ),
    number("dupack_threshold", "dupack_threshold", "pkts", U32, "duplicate ACKs that trigger fast retransmit"),
    flag("delayed_ack", "delayed_ack", "delayed ACKs at the receiver"),
    number("delayed_ack_count", "delayed_ack_count", "pkts", U32, "segments per delayed ACK"),
    number("delayed_ack_timeout", "delayed_ack_timeout_ns", "time", U64, "delayed-ACK timer"),
    TcpOption {
        name: "quick_acks",
        field: "quick_acks",
        unit: "pkts",
        values: &[],
        allow_zero: true,
        help: "with delayed ACKs, the first segments of a connection ACKed at once",
        max: U32,
    },
    flag("ecn", "ecn", "ECN (RFC 3168): ECT data, ECE/CWR, one reduction per RTT"),
    flag("sack", "sack", "SACK blocks (RFC 2018) and SACK loss recovery"),
    choice(
        "recovery",
        RecoveryKind::NAMES,
        "loss recovery: RFC 6675, PRR (RFC 6937/9937), Linux 2.6 rate-halving, ns-2 Sack1",
    ),
    choice("prr_bound", PrrBound::NAMES, "PRR's reduction bound once pipe <= ssthresh"),
    flag(
        "prr_dupack_segment",
        "prr_dupack_segment",
        "PRR counts a duplicate ACK as one more segment delivered, also with SACK (ns-3)",
    ),
    choice(
        "rescue_retransmit",
        RescueRetransmit::NAMES,
        "resending a tail loss: RFC 6675 rule 4, ns-3's partial-ACK retransmission, none",
    ),
    choice(
        "reduction_base",
        ReductionBase::NAMES,
        "what ssthresh (and PRR's RecoverFS) is cut from: RFC 5681, Linux / ns-2, ns-3's pipe, ns-3's per control (CUBIC: cwnd)",
    ),
    choice(
        "limited_transmit",
        LimitedTransmit::NAMES,
        "new data on duplicate ACKs before recovery: none, RFC 3042, one per SACKed segment, ns-2's send_one",
    ),
    choice(
        "recover_check",
        RecoverCheck::NAMES,
        "when duplicate ACKs may start another recovery: rfc = NewReno/SACK once the ACK reaches recover, Reno always; ns2 = every agent once past it (bugFix_)",
    ),
    choice(
        "recovery_exit",
        RecoveryExit::NAMES,
        "cwnd when NewReno's recovery ends: min(ssthresh, FlightSize + 1) (RFC 6582 option 1), or ssthresh (ns-2, ns-3)",
    ),
    choice(
        "window_arithmetic",
        WindowArithmetic::NAMES,
        "segments and a counter (Linux), or ns-2's double cwnd_: +1/cwnd_ per ACK, exact halves, inflation apart",
    ),
    choice(
        "syn_loss",
        SynLoss::NAMES,
        "after a retransmitted SYN: rfc = RTO >= 3 s, cwnd 1 (RFC 6298 5.7); ns2 = RTO backed off, cwnd 1; ns3 = a TS sample or the unbacked RTO, IW; linux = a TS sample or RTO 3 s, IW (1 after two SYN losses)",
    ),
    choice(
        "timeout_ssthresh",
        TimeoutSsthresh::NAMES,
        "timeouts that lower ssthresh: not in recovery nor repeated (RFC 5681), all but a repeated one (ns-3), all (ns-2)",
    ),
    choice(
        "hystart",
        HyStartKind::NAMES,
        "slow-start exit on delay: none, HyStart++'s delay test (RFC 9406), Linux CUBIC's HyStart (ACK trains, delay; cubic only)",
    ),
    flag("idle_restart", "idle_restart", "RFC 5681 4.1: restart from min(IW, cwnd) after idling longer than the RTO"),
    flag("timestamps", "timestamps", "RFC 7323 RTT measurement: the ACK of a retransmission is a sample"),
    choice(
        "byte_counting",
        ByteCounting::NAMES,
        "segments an ACK counts for window growth: one (off), at most 2 (RFC 3465), all it covers (Linux), ns-3's per control (CUBIC: all)",
    ),
    flag("handshake", "handshake", "SYN / SYN-ACK before data; a lost SYN costs initial_rto"),
    choice(
        "wire",
        WireFormat::NAMES,
        "wire sizes: ietf (TS 12 B on every segment, SACK 4+8n on ACKs) or ns2 (TS 10 B on data, SACK 8n)",
    ),
];

/// Returns the option named `name`.
pub fn find(name: &str) -> Option<&'static TcpOption> {
    OPTIONS.iter().find(|o| o.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::TcpConfig;

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
    fn the_listed_names_are_exactly_what_the_field_takes() {
        let parse = |o: &TcpOption, v: &str| serde_json::from_str::<TcpConfig>(&format!(r#"{{"{}": "{v}"}}"#, o.field));
        for o in OPTIONS {
            for v in o.values {
                let c = parse(o, v).unwrap_or_else(|e| panic!("{}: {v} refused ({e})", o.name));
                assert_eq!(serde_json::to_value(&c).unwrap()[o.field], *v, "{}: {v} does not round-trip", o.name);
            }
            assert!(parse(o, "no_such_name").is_err(), "{}: an unlisted name accepted", o.name);
            assert!(o.unit != "name" || o.field == o.name, "{}: a name option's field is its key", o.name);
        }
    }

    #[test]
    fn zero_is_allowed_exactly_where_the_catalog_says() {
        for o in OPTIONS.iter().filter(|o| matches!(o.unit, "bytes" | "pkts" | "time")) {
            let c: TcpConfig = serde_json::from_str(&format!(r#"{{"{}": 0}}"#, o.field)).unwrap();
            // With delayed ACKs on, the delayed-ACK count and timer must be > 0 too; an exact
            // clock (G = 0) is RFC 6298's formula's only.
            let c = TcpConfig { delayed_ack: true, rto_formula: crate::tcp::RtoFormula::Rfc6298, ..c };
            assert_eq!(
                c.validate().is_ok(),
                o.allow_zero,
                "{}: 0 {}",
                o.name,
                if o.allow_zero { "refused" } else { "accepted" }
            );
        }
    }
}
