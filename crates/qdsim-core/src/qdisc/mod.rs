//! Queue disciplines: the [`Qdisc`] trait, drop and mark reasons, configuration, and the
//! [`AnyQdisc`] enum that dispatches statically to each algorithm.
//!
//! A qdisc decides which packet leaves next and which packets are dropped. It does not keep
//! statistics, stamp enqueue times or measure sojourn times: the link's port
//! (`net::port`) does that around every call, so no algorithm can forget to count. What the
//! algorithm must do is report every packet it discards through [`QdiscCtx`], with a
//! [`DropReason`], saying whether it was the arriving packet or one already queued.
//!
//! Invariant, asserted by the port in tests and checked for every qdisc:
//! packets offered = packets dequeued + packets dropped + packets queued, in packets and bytes.
//!
//! Panics: none on any packet sequence. Configuration is validated once, by
//! [`QdiscConfig::validate`], before a qdisc is built.

mod aqm;
pub mod classify;
mod fifo;
mod fq_codel;
mod multi;
mod queue;
pub mod sched;

pub use aqm::{
    Ared, AredParams, Blue, BlueParams, Codel, CodelParams, CodelQdisc, CodelQueue, CodelVars, Pie, PieParams, Red,
    RedParams,
};
pub use fifo::{Fifo, FifoParams};
pub use fq_codel::{FqCodel, FqCodelParams};
pub use multi::{FqParams, Multi};
pub use queue::PacketFifo;

use serde::{Deserialize, Serialize};

use crate::catalog::{AlgorithmInfo, KeyUse};
use crate::error::ConfigError;
use crate::packet::{Ecn, Packet};
use crate::rng::StreamRng;
use crate::time::Time;

named_enum! {
    /// Why a qdisc dropped a packet. Counted per link, per reason. (Losses on the wire are the
    /// link's own count, not a qdisc's reason; results list them as `random_loss`.)
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[repr(u8)]
    pub enum DropReason {
        /// The queue (or its share of the buffer) was full when the packet arrived.
        Overflow = "overflow",
        /// A probabilistic AQM decision on arrival (RED, ARED, Blue, PIE).
        Early = "early",
        /// RED's average queue above its maximum threshold: every arrival dropped.
        Forced = "forced",
        /// CoDel's sojourn time stayed above target for an interval (RFC 8289), at dequeue.
        TargetExceeded = "target_exceeded",
        /// FQ-CoDel's packet limit: dropped from the fattest flow (Linux `drop_overlimit`).
        Overlimit = "overlimit",
        /// FQ-CoDel's memory limit: dropped from the fattest flow (Linux `drop_overmemory`).
        Overmemory = "overmemory",
        /// McKenney's buffer stealing: the head of the longest queue made room for an arrival.
        LongestQueue = "longest_queue",
        /// Drop-on-dequeue: the head packet waited longer than the delay threshold `T_D`.
        DelayThreshold = "delay_threshold",
        /// EWFQ's weighted differential dropping: the arrival's class was over its fair share.
        Differential = "differential",
        /// DSDRR: the arrival's queue is marked for discard (Kantawala & Turner 2005, Fig. 1).
        DiscardState = "discard_state",
        /// DTDRR: the arrival's queue holds at least α times the free buffer (Choudhury & Hahne).
        DynamicThreshold = "dynamic_threshold",
        /// TDRR: the head of the queue with the highest average throughput made room.
        Throughput = "throughput",
        /// QSDRR: the head of the current drop queue made room.
        DropQueue = "drop_queue",
    }
}

named_enum! {
    /// Why a packet was ECN-marked (CE set) instead of dropped. Counted per link, per reason.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    #[repr(u8)]
    pub enum MarkReason {
        /// A probabilistic AQM decision (RED, ARED, Blue, PIE) marked instead of dropping.
        Early = "early",
        /// CoDel's sojourn time stayed above target for an interval (RFC 8289).
        TargetExceeded = "target_exceeded",
    }
}

/// What a qdisc hands back to the framework during one call: the packets it dropped and
/// the timer it wants.
///
/// The drop list is reused across calls (cleared by the port), so reporting a drop does
/// not allocate once the list has grown to the largest batch seen.
#[derive(Debug)]
pub struct QdiscCtx {
    /// Packets dropped during this call, with their reason and whether they were the
    /// arriving packet (`true`) or one already queued (`false`).
    pub drops: Vec<(Packet, DropReason, bool)>,
    /// ECN marks made during this call, by reason.
    pub marks: Vec<MarkReason>,
    /// A timer the qdisc asks for (the earliest request of the call wins).
    pub timer: Option<Time>,
    /// The qdisc's random stream (derived from the run seed and the link index).
    pub rng: StreamRng,
}

impl QdiscCtx {
    /// Returns a context using the random stream `rng`.
    pub fn new(rng: StreamRng) -> Self {
        QdiscCtx { drops: Vec::new(), marks: Vec::new(), timer: None, rng }
    }
    /// Reports that the arriving packet was not queued.
    pub fn drop_arrival(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason, true));
    }
    /// Reports that a packet already in the queue was discarded.
    pub fn drop_queued(&mut self, pkt: Packet, reason: DropReason) {
        self.drops.push((pkt, reason, false));
    }
    /// Marks `pkt` Congestion Experienced instead of dropping it, if it is ECN-capable;
    /// returns whether it was marked (if not, the caller drops it as its algorithm says).
    pub fn mark(&mut self, pkt: &mut Packet, reason: MarkReason) -> bool {
        match pkt.ecn {
            Ecn::Ect => {
                pkt.ecn = Ecn::Ce;
                self.marks.push(reason);
                true
            }
            Ecn::Ce => true, // already marked upstream: nothing more to signal
            Ecn::NotEct => false,
        }
    }

    /// Asks for [`Qdisc::on_timer`] to be called at `at`.
    pub fn request_timer(&mut self, at: Time) {
        self.timer = Some(self.timer.map_or(at, |t| t.min(at)));
    }
}

/// A queue discipline.
///
/// Every method receives the current time; a qdisc never reads a clock of its own, so the
/// same code could drive a real interface.
pub trait Qdisc {
    /// Offers `pkt` (its `enq_time` already stamped). The qdisc queues it, or reports it
    /// (and/or queued packets) as dropped through `ctx`.
    fn enqueue(&mut self, pkt: Packet, now: Time, ctx: &mut QdiscCtx);
    /// Returns the next packet to transmit, if any. May drop queued packets on the way
    /// (reported through `ctx` as queued drops).
    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet>;
    /// Returns the number of packets queued.
    fn len_pkts(&self) -> u64;
    /// Returns the number of bytes queued.
    fn len_bytes(&self) -> u64;
    /// Returns `[packets, bytes]` queued, in one dispatch (the port reads both as its window
    /// starts and as its mean queue is read).
    #[inline]
    fn queued(&self) -> [u64; 2] {
        [self.len_pkts(), self.len_bytes()]
    }
    /// Handles a timer requested through [`QdiscCtx::request_timer`]. Default: nothing.
    fn on_timer(&mut self, _now: Time, _ctx: &mut QdiscCtx) {}
    /// Reports the algorithm's internal variables (control variables, estimates, table
    /// sizes) to `probe`, for the `[sampling] qdisc` time series. Default: none.
    fn internals(&self, _probe: &mut dyn Probe) {}
    /// Whether [`Qdisc::dequeue`] on an empty qdisc changes nothing at all: no state, no
    /// timer request, no drop. A link whose qdisc says so may end a transmission that leaves
    /// it idle without an event (`net::link`, "Transmissions no event ends"), skipping that
    /// dequeue. Default: `false` (an AQM may leave its dropping state when the queue empties).
    fn idle_dequeue_is_noop(&self) -> bool {
        false
    }
    /// Whether `pkt`, offered now, would be queued and then be the next packet dequeued with
    /// nothing else changed (an empty FIFO with room for it): the port may then book it as
    /// queued and dequeued at once without queueing it ([`Port::pass_through`](crate::net::Port::pass_through)).
    /// Default: `false`.
    fn passes_through(&self, _pkt: &Packet) -> bool {
        false
    }
}

/// Receives a qdisc's internal variables at a sample, one value per call.
///
/// Generic so that any algorithm can expose its state (EWFQ's `m_fair`, a RED's average
/// queue, ...) without the simulator knowing it: the simulator's probe appends rows of
/// (time, link, `name`, `class`, `value`). Only called when that sampling is on.
pub trait Probe {
    /// Records variable `name` of the whole qdisc (`class` = `None`) or of class/queue
    /// `class`, with `value`.
    fn record(&mut self, name: &'static str, class: Option<u32>, value: f64);
}

/// What the registry needs of every qdisc's parameters (besides serde and `Default`).
pub trait QdiscParams {
    /// Checks every parameter's range.
    ///
    /// # Errors
    /// The first parameter out of range, by its experiment-file key.
    fn validate(&self) -> Result<(), ConfigError>;
    /// Fills in what the parameters take from the link the qdisc is installed on, a link of
    /// `rate_bps`, unless the experiment set it. Default: nothing.
    fn on_link(&mut self, _rate_bps: u64) {}
}

/// Declares every queue discipline once: each line names the [`QdiscConfig`] variant and its
/// parameters, the [`AnyQdisc`] variant's qdisc type and the constructor that builds it from
/// the parameters, the `kind` (the experiment file's name and the serde tag) and the catalog
/// entry. The enums, their dispatch and the catalog are generated from this one list.
macro_rules! registry {
    ($($(#[$doc:meta])* $variant:ident($params:ty) => $qdisc:ty = $new:path, $kind:literal, $info:path;)*) => {
        /// Configuration of a link's queue discipline, tagged by `kind` (the algorithm's name).
        #[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
        #[serde(tag = "kind", deny_unknown_fields)]
        pub enum QdiscConfig {
            $($(#[$doc])* #[serde(rename = $kind)] $variant($params),)*
        }

        /// Static dispatch over every qdisc (no `dyn` on the per-packet path).
        #[derive(Debug)]
        pub enum AnyQdisc {
            $($(#[$doc])* $variant($qdisc),)*
        }

        impl QdiscConfig {
            /// Every `kind`, in catalog order.
            pub const KINDS: &'static [&'static str] = &[$($kind),*];

            /// Returns the algorithm's name (the `kind` tag).
            pub fn kind(&self) -> &'static str {
                match self {
                    $(QdiscConfig::$variant(_) => $kind,)*
                }
            }

            /// Checks every parameter's range.
            ///
            /// # Errors
            /// The first parameter out of range, by its key.
            pub fn validate(&self) -> Result<(), ConfigError> {
                match self {
                    $(QdiscConfig::$variant(p) => p.validate(),)*
                }
            }

            /// Returns this configuration as installed on a link of `rate_bps`: algorithms
            /// that need the link's rate (RED's idle-time correction, ARED's automatic
            /// parameters) get it unless the experiment set it ([`QdiscParams::on_link`]).
            pub fn on_link(&self, rate_bps: u64) -> QdiscConfig {
                let mut q = self.clone();
                match &mut q {
                    $(QdiscConfig::$variant(p) => p.on_link(rate_bps),)*
                }
                q
            }

            /// Builds the qdisc.
            pub fn build(&self) -> AnyQdisc {
                match self {
                    $(QdiscConfig::$variant(p) => AnyQdisc::$variant($new(p.clone())),)*
                }
            }
        }

        impl Qdisc for AnyQdisc {
            fn enqueue(&mut self, pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
                match self {
                    $(AnyQdisc::$variant(q) => q.enqueue(pkt, now, ctx),)*
                }
            }
            fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
                match self {
                    $(AnyQdisc::$variant(q) => q.dequeue(now, ctx),)*
                }
            }
            fn len_pkts(&self) -> u64 {
                match self {
                    $(AnyQdisc::$variant(q) => q.len_pkts(),)*
                }
            }
            fn len_bytes(&self) -> u64 {
                match self {
                    $(AnyQdisc::$variant(q) => q.len_bytes(),)*
                }
            }
            fn queued(&self) -> [u64; 2] {
                match self {
                    $(AnyQdisc::$variant(q) => q.queued(),)*
                }
            }
            fn on_timer(&mut self, now: Time, ctx: &mut QdiscCtx) {
                match self {
                    $(AnyQdisc::$variant(q) => q.on_timer(now, ctx),)*
                }
            }
            fn internals(&self, probe: &mut dyn Probe) {
                match self {
                    $(AnyQdisc::$variant(q) => q.internals(probe),)*
                }
            }
            fn idle_dequeue_is_noop(&self) -> bool {
                match self {
                    $(AnyQdisc::$variant(q) => q.idle_dequeue_is_noop(),)*
                }
            }
            fn passes_through(&self, pkt: &Packet) -> bool {
                match self {
                    $(AnyQdisc::$variant(q) => q.passes_through(pkt),)*
                }
            }
        }

        /// Returns every qdisc with its parameters, in registry order.
        pub fn catalog() -> Vec<AlgorithmInfo> {
            vec![$($info()),*]
        }
    };
}

/// Returns the qdisc keys read only under a value of another key ([`KeyUse`]).
pub fn key_uses() -> Vec<KeyUse> {
    multi::key_uses().into_iter().chain(aqm::pie::key_uses()).collect()
}

registry! {
    /// First-in first-out with tail drop.
    Fifo(FifoParams) => Fifo = Fifo::new, "fifo", fifo::info;
    /// Deficit Round Robin over a classifier and a buffer policy.
    Drr(FqParams) => Multi<sched::Drr> = Multi::drr, "drr", multi::info_drr;
    /// DRR with Limited Deficit Savings.
    DrrLds(FqParams) => Multi<sched::DrrLds> = Multi::drr_lds, "drr_lds", multi::info_drr_lds;
    /// Weighted Fair Queueing (SCFQ virtual time).
    Wfq(FqParams) => Multi<sched::Wfq> = Multi::wfq, "wfq", multi::info_wfq;
    /// WF2Q+.
    Wf2qPlus(FqParams) => Multi<sched::Wfq> = Multi::wf2q_plus, "wf2q_plus", multi::info_wf2q_plus;
    /// One FIFO over classified packets (a buffer policy per class).
    FifoClasses(FqParams) => Multi<sched::Arrival> = Multi::fifo_classes, "fifo_classes", multi::info_fifo_classes;
    /// CoDel (RFC 8289).
    Codel(CodelParams) => CodelQdisc = CodelQdisc::new, "codel", aqm::codel::info;
    /// RED (Floyd & Jacobson 1993).
    Red(RedParams) => Red = Red::new, "red", aqm::red::info;
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001).
    Ared(AredParams) => Ared = Ared::new, "ared", aqm::ared::info;
    /// PIE (RFC 8033).
    Pie(PieParams) => Pie = Pie::new, "pie", aqm::pie::info;
    /// Blue (Feng et al.).
    Blue(BlueParams) => Blue = Blue::new, "blue", aqm::blue::info;
    /// FQ-CoDel (RFC 8290).
    FqCodel(FqCodelParams) => FqCodel = FqCodel::new, "fq_codel", fq_codel::info;
}

#[cfg(test)]
pub(crate) mod testing;

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::catalog::check;

    /// The defaults of `kind` as the core's JSON (every field, `null` when absent).
    fn defaults(kind: &str) -> Value {
        let c: QdiscConfig = serde_json::from_str(&format!(r#"{{"kind":"{kind}"}}"#)).unwrap();
        serde_json::to_value(c).unwrap()
    }

    /// The names of a JSON object's fields but `kind`.
    fn fields(v: &Value) -> Vec<String> {
        v.as_object().unwrap().keys().filter(|k| *k != "kind").cloned().collect()
    }

    #[test]
    fn the_catalog_lists_every_kind_under_its_name() {
        let names: Vec<&str> = catalog().iter().map(|i| i.name).collect();
        assert_eq!(names, QdiscConfig::KINDS);
    }

    #[test]
    fn every_catalog_default_is_the_params_default() {
        for info in catalog() {
            check::defaults_match(info.name, &info.params, &defaults(info.name));
        }
    }

    #[test]
    fn catalog_keys_map_to_params_fields_by_the_unit_contract() {
        // The Python side turns key + unit into the core's field (python/qdsim/algorithms.py):
        // each field a parameter names must parse, with a value of its unit.
        for info in catalog() {
            for p in &info.params {
                let name_default = defaults(info.name)[p.name].to_string();
                let value = match p.unit {
                    "time" | "int" => "16",
                    "pkts" | "pkts|bytes" | "bytes" => "1500",
                    "bit/s" => "1000000",
                    "float" => "0.5",
                    "bool" => "true",
                    "list" => "[1]",
                    "bools" => "[true]",
                    "name" => name_default.as_str(),
                    u => panic!("{}: {} has an unexpected unit {u}", info.name, p.name),
                };
                for field in check::fields(p) {
                    let j = format!(r#"{{"kind":"{}","{field}":{value}}}"#, info.name);
                    let c: QdiscConfig = serde_json::from_str(&j).unwrap_or_else(|e| panic!("{j}: {e}"));
                    assert_eq!(c.kind(), info.name);
                }
            }
        }
    }

    #[test]
    fn every_params_field_is_in_a_catalog_entry() {
        // The reverse of the unit contract: a field no catalog entry names cannot be set from
        // an experiment file. Kinds sharing one Params type (drr, wfq, ...) may each leave out
        // the fields they ignore (WFQ has no quantum), as long as one of them lists it.
        let catalog = catalog();
        for info in &catalog {
            let own = fields(&defaults(info.name));
            let covered: Vec<String> = catalog
                .iter()
                .filter(|other| fields(&defaults(other.name)) == own)
                .flat_map(|other| other.params.iter().flat_map(check::fields))
                .collect();
            for field in &own {
                assert!(covered.contains(field), "{}: field {field} has no catalog entry", info.name);
            }
        }
    }

    #[test]
    fn defaults_are_valid_except_ared_which_needs_the_link_rate() {
        for kind in QdiscConfig::KINDS {
            let c: QdiscConfig = serde_json::from_str(&format!(r#"{{"kind":"{kind}"}}"#)).unwrap();
            assert_eq!(c.validate().is_ok(), *kind != "ared", "{kind}");
            assert!(c.on_link(1_000_000_000).validate().is_ok(), "{kind} on a link");
        }
        assert!(
            serde_json::from_str::<QdiscConfig>(r#"{"kind":"codel","target":5}"#).is_err(),
            "unknown keys are refused"
        );
    }

    #[test]
    fn on_link_gives_red_and_ared_the_link_rate_unless_set() {
        let rate = |j: &str| match serde_json::from_str::<QdiscConfig>(j).unwrap().on_link(10) {
            QdiscConfig::Red(p) => p.link_rate_bps,
            QdiscConfig::Ared(p) => p.link_rate_bps,
            other => panic!("{other:?}"),
        };
        assert_eq!(rate(r#"{"kind":"red"}"#), Some(10));
        assert_eq!(rate(r#"{"kind":"ared"}"#), Some(10));
        assert_eq!(rate(r#"{"kind":"red","link_rate_bps":7}"#), Some(7));
    }
}
