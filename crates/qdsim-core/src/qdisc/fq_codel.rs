//! FQ-CoDel, Flow Queue CoDel (Hoeiland-Joergensen, McKenney, Taht, Gettys, Dumazet:
//! RFC 8290, January 2018), as Linux `net/sched/sch_fq_codel.c`.
//!
//! Principles (RFC 8290 §1.3, §4; the "Principles" block of `sch_fq_codel.c`):
//! - Packets are hashed by flow into `flows` queues (1024); collisions are accepted.
//! - Each queue is a FIFO run by its own CoDel state ([`Codel`] from `aqm/codel.rs`,
//!   reused, not copied); drops are head drops.
//! - Queues are served by deficit round robin with a byte `quantum`.
//! - A queue that becomes active goes on the *new* list, served before the *old* list, so
//!   sparse flows (that never build a queue) get priority. A new queue that spends its
//!   quantum moves to the old list; a new queue that empties moves to the old list too
//!   (not off the lists) while old queues wait, to prevent starvation (§4.2).
//! - Over the packet `limit` or the `memory_limit`, the arrival is queued and then up to
//!   `drop_batch_size` packets (at most half its bytes) are dropped from the head of the
//!   fattest queue (most bytes), whose CoDel `count` grows by as many (Linux `fq_codel_drop`).
//! - ECN is on by default (marks instead of CoDel drops for ECN-capable packets).
//!
//! Memory is counted as packet bytes (Linux counts `skb->truesize`, the buffer memory).

use std::collections::VecDeque;

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::aqm::{codel, Codel, CodelParams, CodelQueue, CodelVars};
use super::sched::Queues;
use super::{DropReason, Qdisc, QdiscCtx, QdiscParams};
use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::rng::mix64;
use crate::time::Time;

/// FQ-CoDel parameters. Defaults: Linux `fq_codel_init` and `codel_params_init` (RFC 8290 §5).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct FqCodelParams {
    /// Number of flow queues (hash buckets). Default 1024 (RFC 8290 §5.1, Linux).
    pub flows: u64,
    /// DRR quantum, bytes. Default 1514 (Linux: one Ethernet MTU with header; RFC 8290 §5.1).
    pub quantum_bytes: u64,
    /// CoDel target, ns. Default 5 ms.
    pub target_ns: u64,
    /// CoDel interval, ns. Default 100 ms.
    pub interval_ns: u64,
    /// Mark ECN-capable packets instead of CoDel drops. Default true (Linux `fq_codel`).
    pub ecn: bool,
    /// CoDel's one-MTU rule, bytes (over the whole qdisc's backlog, as Linux). Default 1500.
    pub mtu_bytes: u64,
    /// Capacity in packets. Default 10240 (Linux, RFC 8290 §5.1).
    pub limit_pkts: u64,
    /// Capacity in bytes. Default 32 MiB (Linux `memory_limit`, `32 << 20`).
    pub memory_limit_bytes: u64,
    /// Most packets dropped from the fattest queue per overflow. Default 64 (Linux).
    pub drop_batch_size: u64,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            flows: 1024,
            quantum_bytes: 1514,
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            ecn: true,
            mtu_bytes: 1500,
            limit_pkts: 10240,
            memory_limit_bytes: 32 << 20,
            drop_batch_size: 64,
        }
    }
}

impl FqCodelParams {
    /// Returns the CoDel parameters of every flow queue, with the qdisc's packet limit: the
    /// keys FQ-CoDel shares with CoDel mean the same and are checked by CoDel's rules.
    pub fn codel(&self) -> CodelParams {
        CodelParams {
            target_ns: self.target_ns,
            interval_ns: self.interval_ns,
            ecn: self.ecn,
            mtu_bytes: self.mtu_bytes,
            limit_pkts: self.limit_pkts,
        }
    }
}

impl QdiscParams for FqCodelParams {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.flows == 0 || self.flows > 65536 {
            return Err(ConfigError::new("flows", self.flows, "1 to 65536 (Linux)"));
        }
        if self.quantum_bytes == 0 {
            return Err(ConfigError::new("quantum", 0, "at least 1 byte"));
        }
        self.codel().validate()?;
        if self.memory_limit_bytes == 0 {
            return Err(ConfigError::new("memory_limit", 0, "at least 1 byte"));
        }
        if self.drop_batch_size == 0 {
            return Err(ConfigError::new("drop_batch_size", 0, "at least 1 packet"));
        }
        Ok(())
    }
}

pub(super) fn info() -> AlgorithmInfo {
    let [target, interval, mtu] = codel::LAW_PARAMS;
    AlgorithmInfo {
        name: "fq_codel",
        summary: "FQ-CoDel: hashed flow queues, DRR with new-flow priority, CoDel per queue (RFC 8290)",
        params: vec![
            ParamInfo { name: "flows", unit: "int", default: "1024", help: "number of flow queues (hash buckets)" },
            ParamInfo { name: "quantum", unit: "bytes", default: "1514B", help: "DRR quantum" },
            ParamInfo { help: "CoDel target of each flow queue", ..target },
            interval,
            ParamInfo {
                name: "ecn",
                unit: "bool",
                default: "true",
                help: "mark ECN-capable packets instead of CoDel drops",
            },
            mtu,
            ParamInfo {
                name: "limit",
                unit: "pkts",
                default: "10240",
                help: "capacity; beyond, drop from the fattest queue",
            },
            ParamInfo {
                name: "memory_limit",
                unit: "bytes",
                default: "32MiB",
                help: "capacity in bytes; beyond, drop from the fattest queue",
            },
            ParamInfo {
                name: "drop_batch_size",
                unit: "int",
                default: "64",
                help: "most packets dropped per overflow",
            },
        ],
    }
}

/// Which list a flow queue is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    None,
    New,
    Old,
}

/// One flow's scheduling state (Linux `fq_codel_flow`); its packets are queue `i` of
/// [`FqCodel::queues`], the storage every multi-queue qdisc shares.
#[derive(Debug)]
struct Flow {
    /// DRR deficit, bytes.
    deficit: i64,
    list: List,
    cvars: CodelVars,
}

// 1024 of these by default: keep each small (Linux asks for 64 bytes per flow).
const _: () = assert!(std::mem::size_of::<Flow>() <= 64);

/// A flow's FIFO seen by the CoDel control law. The one-MTU rule looks at the whole
/// backlog, as Linux passes `sch->qstats.backlog`.
struct FlowQueue<'a> {
    queues: &'a mut Queues,
    flow: usize,
}

impl CodelQueue for FlowQueue<'_> {
    fn pop_head(&mut self) -> Option<Packet> {
        self.queues.pop_head(self.flow)
    }
    fn backlog_bytes(&self) -> u64 {
        self.queues.total_bytes()
    }
}

/// The FQ-CoDel qdisc.
#[derive(Debug)]
pub struct FqCodel {
    params: FqCodelParams,
    codel: Codel,
    flows: Vec<Flow>,
    /// The flows' packets, queue `i` for flow `i`, with the qdisc's totals.
    queues: Queues,
    new_flows: VecDeque<u32>,
    old_flows: VecDeque<u32>,
    /// Hash perturbation, drawn from the qdisc's stream at the first arrival (Linux draws
    /// `perturbation` at init).
    salt: Option<u64>,
}

impl FqCodel {
    /// Returns an empty FQ-CoDel qdisc.
    pub fn new(params: FqCodelParams) -> Self {
        let codel = params.codel().controller();
        let flows =
            (0..params.flows).map(|_| Flow { deficit: 0, list: List::None, cvars: CodelVars::default() }).collect();
        let mut queues = Queues::default();
        queues.ensure(params.flows.max(1) as usize - 1);
        FqCodel { params, codel, flows, queues, new_flows: VecDeque::new(), old_flows: VecDeque::new(), salt: None }
    }

    /// Returns the queue index of flow id `flow`: a salted 64-bit mix scaled to
    /// `[0, flows)` (Linux `reciprocal_scale` of a perturbed hash).
    fn classify(&mut self, flow: u32, ctx: &mut QdiscCtx) -> usize {
        let salt = *self.salt.get_or_insert_with(|| ctx.rng.random());
        let z = mix64(flow as u64 ^ salt);
        (((z >> 32) * self.flows.len() as u64) >> 32) as usize
    }

    /// Drops up to `drop_batch_size` packets, at most about half its bytes, from the head of
    /// the queue with the most bytes (Linux `fq_codel_drop`): scanning 1024 backlogs is
    /// cheap next to a tree on every packet, and batching spreads the cost.
    fn drop_from_fattest(&mut self, reason: DropReason, ctx: &mut QdiscCtx) {
        // The first of the fattest, as Linux's strict `>` scan (not `Queues::longest`'s
        // oldest-head tie-break, which is Menth's longest-queue drop).
        let mut idx = 0;
        let mut max = 0;
        for i in 0..self.queues.count() {
            if self.queues.len_bytes(i) > max {
                max = self.queues.len_bytes(i);
                idx = i;
            }
        }
        let threshold = max / 2;
        let (mut len, mut n) = (0u64, 0u64);
        while let Some(p) = self.queues.pop_head(idx) {
            len += p.size_bytes as u64;
            n += 1;
            ctx.drop_queued(p, reason);
            if n >= self.params.drop_batch_size || len >= threshold {
                break;
            }
        }
        // Tell CoDel to signal harder too.
        let cvars = &mut self.flows[idx].cvars;
        cvars.count = cvars.count.saturating_add(n as u32);
    }
}

impl Qdisc for FqCodel {
    fn enqueue(&mut self, pkt: Packet, _now: Time, ctx: &mut QdiscCtx) {
        let idx = self.classify(pkt.flow, ctx);
        self.queues.push(idx, pkt);
        let flow = &mut self.flows[idx];
        if flow.list == List::None {
            flow.list = List::New;
            flow.deficit = self.params.quantum_bytes as i64;
            self.new_flows.push_back(idx as u32);
        }
        let memory_limited = self.queues.total_bytes() > self.params.memory_limit_bytes;
        if self.queues.total_pkts() > self.params.limit_pkts || memory_limited {
            let reason = if memory_limited { DropReason::Overmemory } else { DropReason::Overlimit };
            self.drop_from_fattest(reason, ctx);
        }
    }

    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
        loop {
            let from_new = !self.new_flows.is_empty();
            let head = if from_new { &mut self.new_flows } else { &mut self.old_flows };
            let idx = *head.front()? as usize;
            let flow = &mut self.flows[idx];
            if flow.deficit <= 0 {
                flow.deficit += self.params.quantum_bytes as i64;
                head.pop_front();
                flow.list = List::Old;
                self.old_flows.push_back(idx as u32);
                continue;
            }
            let mut view = FlowQueue { queues: &mut self.queues, flow: idx };
            match self.codel.dequeue(&mut flow.cvars, &mut view, now, ctx) {
                Some(p) => {
                    flow.deficit -= p.size_bytes as i64;
                    return Some(p);
                }
                None => {
                    head.pop_front();
                    // An emptied new flow goes to the old list while old flows wait, so
                    // that a stream of "new" flows cannot starve them (RFC 8290 §4.2).
                    if from_new && !self.old_flows.is_empty() {
                        flow.list = List::Old;
                        self.old_flows.push_back(idx as u32);
                    } else {
                        flow.list = List::None;
                    }
                }
            }
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
mod tests {
    use super::*;
    use crate::qdisc::aqm::{CodelParams, CodelQdisc};
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    fn fq(params: FqCodelParams) -> Harness<FqCodel> {
        let mut h = Harness::new(FqCodel::new(params));
        h.q.salt = Some(0);
        h
    }

    fn numbered(flow: u32, seq: u64, size: u32) -> Packet {
        let mut p = pkt(flow, size);
        p.number = seq;
        p
    }

    #[test]
    fn test_flows_land_in_distinct_queues() {
        // The tests below rely on flows 0..4 not colliding with salt 0.
        let mut h = fq(FqCodelParams::default());
        let idx: Vec<usize> = (0..4).map(|f| h.q.classify(f, &mut h.ctx)).collect();
        let mut d = idx.clone();
        d.sort();
        d.dedup();
        assert_eq!(d.len(), 4, "{idx:?}");
    }

    #[test]
    fn a_new_sparse_flow_is_served_before_backlogged_old_flows() {
        let mut h = fq(FqCodelParams::default());
        for s in 0..20 {
            h.enqueue(numbered(0, s, 1500));
            h.enqueue(numbered(1, s, 1500));
        }
        // Serve a few rounds: both flows spend their quantum and move to the old list.
        for _ in 0..6 {
            h.dequeue().unwrap();
        }
        h.enqueue(numbered(2, 0, 100));
        let next = h.dequeue().unwrap();
        assert_eq!(next.flow, 2, "the sparse flow goes first");
        assert_ne!(h.dequeue().unwrap().flow, 2);
    }

    #[test]
    fn old_flows_share_bytes_by_deficit_round_robin() {
        let mut h = fq(FqCodelParams::default());
        for s in 0..300 {
            h.enqueue(numbered(0, s, 1500));
            h.enqueue(numbered(1, s, 500));
            h.enqueue(numbered(1, s, 500));
            h.enqueue(numbered(1, s, 500));
        }
        let mut bytes = [0i64; 2];
        for _ in 0..200 {
            let p = h.dequeue().unwrap();
            bytes[p.flow as usize] += p.size_bytes as i64;
        }
        assert!((bytes[0] - bytes[1]).abs() <= 2 * 1514, "{bytes:?}");
    }

    #[test]
    fn overflow_drops_half_the_fattest_flow_from_its_head() {
        let mut h = fq(FqCodelParams { limit_pkts: 10, ..FqCodelParams::default() });
        for s in 0..8 {
            h.enqueue(numbered(0, s, 1000));
        }
        h.enqueue(numbered(1, 0, 1000));
        h.enqueue(numbered(1, 1, 1000));
        assert!(h.drops.is_empty());
        h.enqueue(numbered(2, 0, 1000)); // 11 > 10
        let dropped: Vec<(u32, u64, DropReason, bool)> =
            h.drops.iter().map(|(p, r, a)| (p.flow, p.seq(), *r, *a)).collect();
        // Flow 0 holds 8000 bytes: drop from its head until 4000 bytes are gone.
        assert_eq!(dropped, (0..4).map(|s| (0, s, DropReason::Overlimit, false)).collect::<Vec<_>>());
        assert_eq!(h.q.len_pkts(), 7);
    }

    #[test]
    fn overflow_drops_at_most_a_batch() {
        let mut h = fq(FqCodelParams { limit_pkts: 10, drop_batch_size: 2, ..FqCodelParams::default() });
        for s in 0..11 {
            h.enqueue(numbered(0, s, 1000));
        }
        assert_eq!(h.drops.len(), 2);
    }

    #[test]
    fn the_memory_limit_drops_from_the_fattest_flow_too() {
        let mut h = fq(FqCodelParams { memory_limit_bytes: 5000, ..FqCodelParams::default() });
        for s in 0..4 {
            h.enqueue(numbered(0, s, 1000));
        }
        h.enqueue(numbered(1, 0, 1000));
        h.enqueue(numbered(1, 1, 1000)); // 6000 > 5000
        assert_eq!(h.drops.len(), 2);
        assert!(h.drops.iter().all(|d| d.0.flow == 0 && d.1 == DropReason::Overmemory));
    }

    #[test]
    fn a_single_flow_sees_plain_codel_drops() {
        // One flow: DRR always serves it and CoDel sees the same backlog, so the drop
        // times equal plain CoDel's.
        let times = |mut deq: Box<dyn FnMut(Time) -> usize>| -> Vec<u64> {
            let mut out = vec![];
            for t in 1..=600 {
                let n = deq(Time(t * MS));
                out.extend(std::iter::repeat_n(t, n));
            }
            out
        };
        let mut a = fq(FqCodelParams { ecn: false, ..FqCodelParams::default() });
        let mut b = Harness::new(CodelQdisc::new(CodelParams::default()));
        for s in 0..900 {
            a.enqueue(numbered(0, s, 1500));
            b.enqueue(numbered(0, s, 1500));
        }
        let ta = times(Box::new(move |now| {
            let before = a.drops.len();
            a.now = now;
            a.dequeue();
            a.drops.len() - before
        }));
        let tb = times(Box::new(move |now| {
            let before = b.drops.len();
            b.now = now;
            b.dequeue();
            b.drops.len() - before
        }));
        assert!(ta.len() > 5);
        assert_eq!(ta, tb);
    }

    #[test]
    fn codel_runs_per_flow() {
        // Flow 0 has a standing queue, flow 1 sends one packet now and then: only flow 0
        // loses packets to CoDel.
        let mut h = fq(FqCodelParams { ecn: false, ..FqCodelParams::default() });
        for s in 0..900 {
            h.enqueue(numbered(0, s, 1500));
        }
        for t in 1..=600u64 {
            h.now = Time(t * MS);
            if t % 10 == 0 {
                h.enqueue(numbered(1, t, 200));
            }
            h.dequeue();
        }
        assert!(h.drops.len() > 5);
        assert!(h.drops.iter().all(|d| d.0.flow == 0 && d.1 == DropReason::TargetExceeded));
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        assert_eq!(FqCodelParams { flows: 0, ..FqCodelParams::default() }.validate().unwrap_err().key, "flows");
        assert_eq!(
            FqCodelParams { quantum_bytes: 0, ..FqCodelParams::default() }.validate().unwrap_err().key,
            "quantum"
        );
        assert_eq!(
            FqCodelParams { drop_batch_size: 0, ..FqCodelParams::default() }.validate().unwrap_err().key,
            "drop_batch_size"
        );
        assert!(FqCodelParams::default().validate().is_ok());
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50, flows in 1u64..8, quantum in 100u64..3000) {
            let p = FqCodelParams { flows, quantum_bytes: quantum, target_ns: 200_000, interval_ns: 1_000_000,
                                    limit_pkts: limit, memory_limit_bytes: limit * 700, drop_batch_size: 3, ..FqCodelParams::default() };
            conserves(FqCodel::new(p), &ops);
        }
    }
}
