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
pub mod buffer;
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

use crate::config::ConfigError;
use crate::packet::{Ecn, Packet};
use crate::rng::StreamRng;
use crate::time::Time;

/// Why a packet was dropped. Counted per link, per reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    /// The queue (or its share of the buffer) was full when the packet arrived.
    Overflow = 0,
    /// Lost on the wire by the link's random loss model (not a qdisc decision).
    RandomLoss = 1,
    /// A probabilistic AQM decision on arrival (RED, ARED, Blue, PIE).
    Early = 2,
    /// RED's average queue above its maximum threshold: every arrival dropped.
    Forced = 3,
    /// CoDel's sojourn time stayed above target for an interval (RFC 8289), at dequeue.
    TargetExceeded = 4,
    /// FQ-CoDel's packet limit: dropped from the fattest flow (Linux `drop_overlimit`).
    Overlimit = 5,
    /// FQ-CoDel's memory limit: dropped from the fattest flow (Linux `drop_overmemory`).
    Overmemory = 6,
    /// McKenney's buffer stealing: the head of the longest queue made room for an arrival.
    LongestQueue = 7,
    /// Drop-on-dequeue: the head packet waited longer than the delay threshold `T_D`.
    DelayThreshold = 8,
}

impl DropReason {
    /// Number of reasons (the length of per-reason counter arrays).
    pub const COUNT: usize = 9;
    /// Every reason, in index order.
    pub const ALL: [DropReason; Self::COUNT] = [
        DropReason::Overflow,
        DropReason::RandomLoss,
        DropReason::Early,
        DropReason::Forced,
        DropReason::TargetExceeded,
        DropReason::Overlimit,
        DropReason::Overmemory,
        DropReason::LongestQueue,
        DropReason::DelayThreshold,
    ];

    /// Returns the reason's name as used in results.
    pub fn name(self) -> &'static str {
        match self {
            DropReason::Overflow => "overflow",
            DropReason::RandomLoss => "random_loss",
            DropReason::Early => "early",
            DropReason::Forced => "forced",
            DropReason::TargetExceeded => "target_exceeded",
            DropReason::Overlimit => "overlimit",
            DropReason::Overmemory => "overmemory",
            DropReason::LongestQueue => "longest_queue",
            DropReason::DelayThreshold => "delay_threshold",
        }
    }
}

/// Why a packet was ECN-marked (CE set) instead of dropped. Counted per link, per reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum MarkReason {
    /// A probabilistic AQM decision (RED, ARED, Blue, PIE) marked instead of dropping.
    Early = 0,
    /// CoDel's sojourn time stayed above target for an interval (RFC 8289).
    TargetExceeded = 1,
}

impl MarkReason {
    /// Number of reasons.
    pub const COUNT: usize = 2;
    /// Every reason, in index order.
    pub const ALL: [MarkReason; Self::COUNT] = [MarkReason::Early, MarkReason::TargetExceeded];

    /// Returns the reason's name as used in results.
    pub fn name(self) -> &'static str {
        match self {
            MarkReason::Early => "early",
            MarkReason::TargetExceeded => "target_exceeded",
        }
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
/// same code can later drive a real interface (see ROADMAP "Emulation").
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
    /// Handles a timer requested through [`QdiscCtx::request_timer`]. Default: nothing.
    fn on_timer(&mut self, _now: Time, _ctx: &mut QdiscCtx) {}
}

/// Configuration of a link's queue discipline, tagged by `kind` (the algorithm's name).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum QdiscConfig {
    /// First-in first-out with tail drop.
    Fifo(FifoParams),
    /// Deficit Round Robin over a classifier and a buffer policy.
    Drr(FqParams),
    /// DRR with Limited Deficit Savings.
    #[serde(rename = "drr_lds")]
    DrrLds(FqParams),
    /// Weighted Fair Queueing (SCFQ virtual time).
    Wfq(FqParams),
    /// WF2Q+.
    #[serde(rename = "wf2q_plus")]
    Wf2qPlus(FqParams),
    /// CoDel (RFC 8289).
    Codel(CodelParams),
    /// FQ-CoDel (RFC 8290).
    FqCodel(FqCodelParams),
    /// Blue (Feng et al.).
    Blue(BlueParams),
    /// PIE (RFC 8033).
    Pie(PieParams),
    /// RED (Floyd & Jacobson 1993).
    Red(RedParams),
    /// Adaptive RED (Floyd, Gummadi, Shenker 2001).
    Ared(AredParams),
}

impl QdiscConfig {
    /// Checks every parameter's range.
    ///
    /// # Errors
    /// The first parameter out of range, by its key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self {
            QdiscConfig::Fifo(p) => p.validate(),
            QdiscConfig::Drr(p) | QdiscConfig::DrrLds(p) | QdiscConfig::Wfq(p) | QdiscConfig::Wf2qPlus(p) => {
                p.validate()
            }
            QdiscConfig::Codel(p) => p.validate(),
            QdiscConfig::FqCodel(p) => p.validate(),
            QdiscConfig::Blue(p) => p.validate(),
            QdiscConfig::Pie(p) => p.validate(),
            QdiscConfig::Red(p) => p.validate(),
            QdiscConfig::Ared(p) => p.validate(),
        }
    }

    /// Returns this configuration as installed on a link of `rate_bps`: algorithms that need
    /// the link's rate (RED's idle-time correction, ARED's automatic parameters) get it unless
    /// the experiment set `link_rate` explicitly. Without it RED's average would not decay
    /// while the queue is idle, and a flow that lost its window could be starved.
    pub fn on_link(&self, rate_bps: u64) -> QdiscConfig {
        let mut q = self.clone();
        match &mut q {
            QdiscConfig::Red(p) => {
                p.link_rate_bps.get_or_insert(rate_bps);
            }
            QdiscConfig::Ared(p) => {
                p.link_rate_bps.get_or_insert(rate_bps);
            }
            _ => {}
        }
        q
    }

    /// Returns the algorithm's name (the `kind` tag).
    pub fn kind(&self) -> &'static str {
        match self {
            QdiscConfig::Fifo(_) => "fifo",
            QdiscConfig::Drr(_) => "drr",
            QdiscConfig::DrrLds(_) => "drr_lds",
            QdiscConfig::Wfq(_) => "wfq",
            QdiscConfig::Wf2qPlus(_) => "wf2q_plus",
            QdiscConfig::Codel(_) => "codel",
            QdiscConfig::FqCodel(_) => "fq_codel",
            QdiscConfig::Blue(_) => "blue",
            QdiscConfig::Pie(_) => "pie",
            QdiscConfig::Red(_) => "red",
            QdiscConfig::Ared(_) => "ared",
        }
    }

    /// Builds the qdisc.
    pub fn build(&self) -> AnyQdisc {
        match self {
            QdiscConfig::Fifo(p) => AnyQdisc::Fifo(Fifo::new(p.clone())),
            QdiscConfig::Drr(p) => AnyQdisc::Drr(Multi::drr(p)),
            QdiscConfig::DrrLds(p) => AnyQdisc::DrrLds(Multi::drr_lds(p)),
            QdiscConfig::Wfq(p) => AnyQdisc::Wfq(Multi::wfq(p)),
            QdiscConfig::Wf2qPlus(p) => AnyQdisc::Wfq(Multi::wf2q_plus(p)),
            QdiscConfig::Codel(p) => AnyQdisc::Codel(CodelQdisc::new(p.clone())),
            QdiscConfig::FqCodel(p) => AnyQdisc::FqCodel(FqCodel::new(p.clone())),
            QdiscConfig::Blue(p) => AnyQdisc::Blue(Blue::new(p.clone())),
            QdiscConfig::Pie(p) => AnyQdisc::Pie(Pie::new(p.clone())),
            QdiscConfig::Red(p) => AnyQdisc::Red(Red::new(p.clone())),
            QdiscConfig::Ared(p) => AnyQdisc::Ared(Ared::new(p.clone())),
        }
    }
}

/// Static dispatch over every qdisc (no `dyn` on the per-packet path).
#[derive(Debug)]
pub enum AnyQdisc {
    /// See [`Fifo`].
    Fifo(Fifo),
    /// See [`sched::Drr`].
    Drr(Multi<sched::Drr>),
    /// See [`sched::DrrLds`].
    DrrLds(Multi<sched::DrrLds>),
    /// See [`sched::Wfq`] (WFQ and WF2Q+).
    Wfq(Multi<sched::Wfq>),
    /// See [`CodelQdisc`].
    Codel(CodelQdisc),
    /// See [`FqCodel`].
    FqCodel(FqCodel),
    /// See [`Blue`].
    Blue(Blue),
    /// See [`Pie`].
    Pie(Pie),
    /// See [`Red`].
    Red(Red),
    /// See [`Ared`].
    Ared(Ared),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQdisc::Fifo($q) => $e,
            AnyQdisc::Drr($q) => $e,
            AnyQdisc::DrrLds($q) => $e,
            AnyQdisc::Wfq($q) => $e,
            AnyQdisc::Codel($q) => $e,
            AnyQdisc::FqCodel($q) => $e,
            AnyQdisc::Blue($q) => $e,
            AnyQdisc::Pie($q) => $e,
            AnyQdisc::Red($q) => $e,
            AnyQdisc::Ared($q) => $e,
        }
    };
}

impl Qdisc for AnyQdisc {
    fn enqueue(&mut self, pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
        dispatch!(self, q => q.enqueue(pkt, now, ctx))
    }
    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
        dispatch!(self, q => q.dequeue(now, ctx))
    }
    fn len_pkts(&self) -> u64 {
        dispatch!(self, q => q.len_pkts())
    }
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    fn on_timer(&mut self, now: Time, ctx: &mut QdiscCtx) {
        dispatch!(self, q => q.on_timer(now, ctx))
    }
}

/// One parameter of an algorithm, for `qdsim list` and generated docs.
#[derive(Debug, Clone, Serialize)]
pub struct ParamInfo {
    /// Key in the experiment file.
    pub name: &'static str,
    /// Unit or type (`"pkts"`, `"bytes"`, `"ns"`, `"bool"`, ...).
    pub unit: &'static str,
    /// Default, rendered; `"none"` when absent means "not set".
    pub default: &'static str,
    /// One-line description.
    pub help: &'static str,
}

/// One algorithm and its parameters, for `qdsim list`.
#[derive(Debug, Clone, Serialize)]
pub struct AlgorithmInfo {
    /// Name used as `kind` in experiment files.
    pub name: &'static str,
    /// One-line description with its source.
    pub summary: &'static str,
    /// Its parameters.
    pub params: Vec<ParamInfo>,
}

/// Returns every qdisc with its parameters.
pub fn catalog() -> Vec<AlgorithmInfo> {
    vec![
        fifo::info(),
        multi::info_drr(),
        multi::info_drr_lds(),
        multi::info_wfq(),
        multi::info_wf2q_plus(),
        aqm::codel::info(),
        aqm::red::info(),
        aqm::ared::info(),
        aqm::pie::info(),
        aqm::blue::info(),
        fq_codel::info(),
    ]
}

#[cfg(test)]
pub(crate) mod testing;
