//! Multi-queue qdiscs: a classifier × a scheduler × a buffer policy (DESIGN.md), exposed as
//! `drr`, `drr_lds`, `wfq` and `wf2q_plus`.
//!
//! Principles: an arriving packet is classified ([`Classifier`]) into a queue, created on
//! first use; the buffer policy ([`BufferPolicy`]) admits it (possibly dropping the head of
//! the longest queue first) or drops it; the scheduler ([`Scheduler`]) picks which queue's
//! head leaves; drop-on-dequeue may discard that head and ask again.
//!
//! Sources: Menth, Mehl & Veith, "Deficit Round Robin with Limited Deficit Savings (DRR-LDS)
//! for Fairness Among TCP Users" (2017), §2.2 (DRR, buffer stealing), §3 (DRR-LDS), §4.1
//! (drop-on-enqueue, drop-on-dequeue); see each module for the rest.
//!
//! Invariants: every packet is in exactly one queue or reported dropped (the conservation
//! identity); queues only lose packets at their head. No allocation per packet once every
//! queue has grown to its largest backlog; no dynamic dispatch.

use serde::{Deserialize, Serialize};

use super::buffer::{fits_total, BufferPolicy};
use super::classify::Classifier;
use super::sched::{Drr, DrrLds, Queues, Scheduler, Wfq};
use super::{AlgorithmInfo, DropReason, ParamInfo, Qdisc, QdiscCtx};
use crate::config::ConfigError;
use crate::packet::Packet;
use crate::time::Time;

/// Default quantum in bytes (one Ethernet MTU; Menth et al. §4.1).
pub const DEFAULT_QUANTUM_BYTES: i64 = 1500;
/// Default deficit saving limit of `drr_lds`, in quanta (project choice: the paper's
/// findings need D_max ≥ 10 with drop-on-enqueue, §4).
pub const DEFAULT_D_MAX: i64 = 10;
/// Default number of buckets of the `hashed` classifier (Linux `sfq` `divisor`).
pub const DEFAULT_BUCKETS: i64 = 1024;

/// Parameters shared by `drr`, `drr_lds`, `wfq` and `wf2q_plus` (flat, one key each).
///
/// Keys that an algorithm does not use (`quantum` for WFQ, `d_max` outside `drr_lds`,
/// `t_d` outside drop-on-dequeue, ...) are accepted and ignored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FqParams {
    /// `per_flow`, `per_user` or `hashed`.
    #[serde(default = "default_classifier")]
    pub classifier: String,
    /// Buckets of the `hashed` classifier; default 1024 (`DEFAULT_BUCKETS`).
    #[serde(default)]
    pub buckets: Option<i64>,
    /// Weight of queue i (queues beyond the list weigh 1); each at least 1.
    #[serde(default)]
    pub weights: Vec<i64>,
    /// DRR quantum in bytes (§2.2); default 1500.
    #[serde(default)]
    pub quantum_bytes: Option<i64>,
    /// DRR-LDS deficit saving limit `D_max`, in quanta (§3); default 10.
    #[serde(default)]
    pub d_max: Option<i64>,
    /// `shared`, `drop_on_dequeue` or `per_queue`.
    #[serde(default = "default_buffer")]
    pub buffer: String,
    /// Buffer size `S_B` in packets (shared; optional for drop_on_dequeue).
    #[serde(default)]
    pub limit_pkts: Option<u64>,
    /// Buffer size `S_B` in bytes (shared; optional for drop_on_dequeue).
    #[serde(default)]
    pub limit_bytes: Option<u64>,
    /// Delay threshold `T_D` of drop-on-dequeue, ns.
    #[serde(default)]
    pub t_d_ns: Option<u64>,
    /// Per-queue byte limits of `per_queue` (the last repeats).
    #[serde(default)]
    pub queue_limits: Vec<i64>,
}

fn default_classifier() -> String {
    "per_flow".into()
}
fn default_buffer() -> String {
    "shared".into()
}

impl Default for FqParams {
    fn default() -> Self {
        FqParams {
            classifier: default_classifier(),
            buckets: None,
            weights: vec![],
            quantum_bytes: None,
            d_max: None,
            buffer: default_buffer(),
            limit_pkts: None,
            limit_bytes: None,
            t_d_ns: None,
            queue_limits: vec![],
        }
    }
}

impl FqParams {
    /// Checks every parameter's range and the names of classifier and buffer policy.
    ///
    /// # Errors
    /// The first bad key: an unknown classifier or buffer, buckets < 1, a weight < 1, a
    /// quantum < 1 byte, a negative `d_max`, a zero limit, drop-on-dequeue without `t_d`,
    /// per-queue limits missing or < 1 byte.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !matches!(self.classifier.as_str(), "per_flow" | "per_user" | "hashed") {
            return Err(ConfigError::new("classifier", &self.classifier, "per_flow, per_user or hashed"));
        }
        if let Some(b) = self.buckets {
            if b < 1 || b > super::classify::MAX_QUEUES as i64 {
                return Err(ConfigError::new("buckets", b, "between 1 and 65536"));
            }
        }
        for (i, &w) in self.weights.iter().enumerate() {
            if w < 1 {
                return Err(ConfigError::new(format!("weights[{i}]"), w, "a weight of at least 1"));
            }
        }
        if let Some(q) = self.quantum_bytes {
            if q < 1 {
                return Err(ConfigError::new("quantum", q, "at least 1 byte"));
            }
        }
        if let Some(d) = self.d_max {
            if d < 0 {
                return Err(ConfigError::new("d_max", d, "0 or more quanta (0 = plain DRR)"));
            }
        }
        if self.limit_pkts == Some(0) {
            return Err(ConfigError::new("limit", "0pkt", "at least 1 packet, or absent for no limit"));
        }
        if self.limit_bytes == Some(0) {
            return Err(ConfigError::new("limit", "0B", "at least 1 byte, or absent for no limit"));
        }
        // Checked whatever the buffer: a bad limit is a mistake even where it is not used.
        for (i, &l) in self.queue_limits.iter().enumerate() {
            if l < 1 {
                return Err(ConfigError::new(format!("queue_limits[{i}]"), l, "at least 1 byte"));
            }
        }
        match self.buffer.as_str() {
            "shared" => {}
            "drop_on_dequeue" => {
                if self.t_d_ns.is_none() {
                    return Err(ConfigError::new(
                        "t_d",
                        "none",
                        "a delay threshold, required by buffer = drop_on_dequeue",
                    ));
                }
            }
            "per_queue" => {
                if self.queue_limits.is_empty() {
                    return Err(ConfigError::new(
                        "queue_limits",
                        "[]",
                        "a non-empty list of byte limits, required by buffer = per_queue",
                    ));
                }
            }
            other => return Err(ConfigError::new("buffer", other, "shared, drop_on_dequeue or per_queue")),
        }
        Ok(())
    }

    fn quantum(&self) -> u64 {
        self.quantum_bytes.unwrap_or(DEFAULT_QUANTUM_BYTES).max(1) as u64
    }

    fn classifier(&self) -> Classifier {
        match self.classifier.as_str() {
            "per_user" => Classifier::PerUser,
            "hashed" => Classifier::Hashed {
                buckets: self.buckets.unwrap_or(DEFAULT_BUCKETS).clamp(1, 1 << 16) as u32,
                salt: None,
            },
            _ => Classifier::PerFlow,
        }
    }

    fn buffer_policy(&self) -> BufferPolicy {
        match self.buffer.as_str() {
            "drop_on_dequeue" => BufferPolicy::DropOnDequeue {
                t_d_ns: self.t_d_ns.unwrap_or(u64::MAX),
                limit_pkts: self.limit_pkts,
                limit_bytes: self.limit_bytes,
            },
            "per_queue" if !self.queue_limits.is_empty() => {
                BufferPolicy::PerQueue { limits_bytes: self.queue_limits.iter().map(|&l| l.max(1) as u64).collect() }
            }
            _ => BufferPolicy::Shared { limit_pkts: self.limit_pkts, limit_bytes: self.limit_bytes },
        }
    }
}

fn common_params(with_quantum: bool, with_d_max: bool) -> Vec<ParamInfo> {
    let mut v = vec![
        ParamInfo {
            name: "classifier",
            unit: "name",
            default: "per_flow",
            help: "queue per flow (per_flow), per user id (per_user) or hashed buckets (hashed)",
        },
        ParamInfo { name: "buckets", unit: "int", default: "1024", help: "number of queues of the hashed classifier" },
        ParamInfo {
            name: "weights",
            unit: "list",
            default: "[]",
            help: "weight of queue i (integers >= 1); missing entries weigh 1",
        },
    ];
    if with_quantum {
        v.push(ParamInfo {
            name: "quantum",
            unit: "bytes",
            default: "1500",
            help: "bytes added to a queue's deficit per turn, times its weight",
        });
    }
    if with_d_max {
        v.push(ParamInfo {
            name: "d_max",
            unit: "int",
            default: "10",
            help: "deficit saving limit D_max in quanta (0 = plain DRR)",
        });
    }
    v.extend([
        ParamInfo {
            name: "buffer",
            unit: "name",
            default: "shared",
            help: "shared (longest-queue drop on enqueue), drop_on_dequeue or per_queue",
        },
        ParamInfo {
            name: "limit",
            unit: "pkts|bytes",
            default: "none",
            help: "shared buffer size S_B (also caps drop_on_dequeue); none = unlimited",
        },
        ParamInfo {
            name: "t_d",
            unit: "time",
            default: "none",
            help: "drop_on_dequeue: drop head packets older than T_D",
        },
        ParamInfo {
            name: "queue_limits",
            unit: "list",
            default: "[]",
            help: "per_queue: byte limit of queue i, e.g. [15000, 5000, 10000]; the last repeats",
        },
    ]);
    v
}

pub(super) fn info_drr() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "drr",
        summary: "Deficit Round Robin (Shreedhar & Varghese 1995; Menth et al. 2017 §2.2)",
        params: common_params(true, false),
    }
}
pub(super) fn info_drr_lds() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "drr_lds",
        summary: "DRR with Limited Deficit Savings (Menth, Mehl & Veith 2017 §3)",
        params: common_params(true, true),
    }
}
pub(super) fn info_wfq() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "wfq",
        summary: "Weighted Fair Queueing, finish tags with self-clocked virtual time (SCFQ, Golestani 1994)",
        params: common_params(false, false),
    }
}
pub(super) fn info_wf2q_plus() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "wf2q_plus",
        summary: "WF2Q+: smallest finish tag among eligible heads (Bennett & Zhang 1996)",
        params: common_params(false, false),
    }
}

/// A multi-queue qdisc: classifier, queues, scheduler `S`, buffer policy.
#[derive(Debug)]
pub struct Multi<S: Scheduler> {
    classifier: Classifier,
    weights: Vec<u64>,
    buffer: BufferPolicy,
    queues: Queues,
    sched: S,
}

impl<S: Scheduler> Multi<S> {
    fn with(params: &FqParams, sched: S) -> Self {
        Multi {
            classifier: params.classifier(),
            weights: params.weights.iter().map(|&w| w.max(1) as u64).collect(),
            buffer: params.buffer_policy(),
            queues: Queues::default(),
            sched,
        }
    }

    fn queue_for(&mut self, pkt: &Packet, ctx: &mut QdiscCtx) -> usize {
        let q = self.classifier.classify(pkt, &mut ctx.rng);
        let first_new = self.queues.ensure(q);
        // Empty when q already existed (first_new > q).
        for i in first_new..=q {
            self.sched.add_queue(i, self.weights.get(i).copied().unwrap_or(1));
        }
        q
    }
}

impl Multi<Drr> {
    /// Returns a DRR qdisc (`drr`).
    pub fn drr(params: &FqParams) -> Self {
        Multi::with(params, Drr::new(params.quantum()))
    }
}

impl Multi<DrrLds> {
    /// Returns a DRR-LDS qdisc (`drr_lds`).
    pub fn drr_lds(params: &FqParams) -> Self {
        Multi::with(params, DrrLds::new(params.quantum(), params.d_max.unwrap_or(DEFAULT_D_MAX).max(0) as u64))
    }
}

impl Multi<Wfq> {
    /// Returns a WFQ qdisc (`wfq`, SCFQ virtual time).
    pub fn wfq(params: &FqParams) -> Self {
        Multi::with(params, Wfq::new(false))
    }
    /// Returns a WF2Q+ qdisc (`wf2q_plus`).
    pub fn wf2q_plus(params: &FqParams) -> Self {
        Multi::with(params, Wfq::new(true))
    }
}

impl<S: Scheduler> Qdisc for Multi<S> {
    fn enqueue(&mut self, pkt: Packet, _now: Time, ctx: &mut QdiscCtx) {
        let q = self.queue_for(&pkt, ctx);
        let admitted = match &self.buffer {
            BufferPolicy::Shared { limit_pkts, limit_bytes } => {
                let (lp, lb) = (*limit_pkts, *limit_bytes);
                // McKenney's buffer stealing: make room from the longest queue's head.
                while !fits_total(&self.queues, &pkt, lp, lb) {
                    let Some(v) = self.queues.longest(lp.is_some()) else { break };
                    let Some(old) = self.queues.pop_head(v) else { break };
                    self.sched.head_dropped(v, old.size_bytes as u64, &self.queues);
                    ctx.drop_queued(old, DropReason::LongestQueue);
                }
                fits_total(&self.queues, &pkt, lp, lb)
            }
            BufferPolicy::DropOnDequeue { limit_pkts, limit_bytes, .. } => {
                fits_total(&self.queues, &pkt, *limit_pkts, *limit_bytes)
            }
            BufferPolicy::PerQueue { .. } => {
                self.buffer.queue_limit_bytes(q).is_none_or(|l| self.queues.len_bytes(q) + pkt.size_bytes as u64 <= l)
            }
        };
        if admitted {
            self.queues.push(q, pkt);
            self.sched.enqueued(q, &self.queues);
        } else {
            ctx.drop_arrival(pkt, DropReason::Overflow);
        }
    }

    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
        let t_d = self.buffer.t_d_ns();
        loop {
            let q = self.sched.select(&self.queues)?;
            let p = self.queues.pop_head(q)?;
            let size = p.size_bytes as u64;
            if t_d.is_some_and(|t| now.0.saturating_sub(p.enq_time.0) > t) {
                self.sched.head_dropped(q, size, &self.queues);
                ctx.drop_queued(p, DropReason::DelayThreshold);
                continue;
            }
            self.sched.sent(q, size, &self.queues);
            return Some(p);
        }
    }

    fn len_pkts(&self) -> u64 {
        self.queues.total_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queues.total_bytes()
    }
}

#[cfg(test)]
mod tests;
