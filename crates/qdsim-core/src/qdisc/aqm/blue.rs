//! Blue (Feng, Kandlur, Saha, Shin, "BLUE: A New Class of Active Queue Management
//! Algorithms", CSE-TR-387-99, 1999; IEEE/ACM ToN 10(4), 2002), as Feng's ns-2 `Queue/Blue`.
//!
//! Principles (paper §4, Fig. 5):
//! - One marking probability `p_m` for all arrivals: each arrival is dropped (reason
//!   `early`), or marked CE if `ecn` and ECN-capable, with probability `p_m`.
//! - Loss (a buffer overflow, reason `overflow`) raises it: `p_m += d1`.
//! - Link idle (the link asks for a packet and the queue is empty) lowers it: `p_m −= d2`.
//! - Either change happens only if more than `freeze_time` has passed since the last one,
//!   so `p_m` moves at most once per `freeze_time`. `d1 ≫ d2`: react quickly to loss, back
//!   off slowly. `p_m` stays in [0, 1] (ns-2).
//!
//! Order on arrival, as ns-2: the early decision first, then the overflow check.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::{DropReason, MarkReason, PacketFifo, Probe, Qdisc, QdiscCtx, QdiscParams};
use crate::time::{Duration, Time};

/// Blue parameters. Defaults: Feng's ns-2 script and the NITK ns-3 port (`docs/algorithms/blue.md`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct BlueParams {
    /// Increment of `p_m` on overflow. Default 0.0025.
    pub d1: f64,
    /// Decrement of `p_m` on link idle. Default 0.00025.
    pub d2: f64,
    /// Minimum time between two changes of `p_m`, ns. Default 100 ms.
    pub freeze_time_ns: u64,
    /// Mark ECN-capable packets instead of dropping. Default false.
    pub ecn: bool,
    /// Capacity in packets; an arrival beyond is dropped (`overflow`) and raises `p_m`.
    /// Default 1000 (as Linux qdiscs; the paper sizes it per experiment).
    pub limit_pkts: u64,
}

impl Default for BlueParams {
    fn default() -> Self {
        BlueParams { d1: 0.0025, d2: 0.00025, freeze_time_ns: 100_000_000, ecn: false, limit_pkts: 1000 }
    }
}

impl QdiscParams for BlueParams {
    /// Checks the steps are probabilities and the limit is positive.
    fn validate(&self) -> Result<(), ConfigError> {
        if !(self.d1 > 0.0 && self.d1 <= 1.0) {
            return Err(ConfigError::new("d1", self.d1, "a step in (0, 1]"));
        }
        if !(self.d2 > 0.0 && self.d2 <= 1.0) {
            return Err(ConfigError::new("d2", self.d2, "a step in (0, 1]"));
        }
        if self.limit_pkts == 0 {
            return Err(ConfigError::new("limit", 0, "at least 1 packet"));
        }
        Ok(())
    }
}

pub(crate) fn info() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "blue",
        summary: "Blue: marking probability raised on loss, lowered on idle (Feng et al. 1999/2002)",
        params: vec![
            ParamInfo { name: "d1", unit: "float", default: "0.0025", help: "increment of p_m on buffer overflow" },
            ParamInfo { name: "d2", unit: "float", default: "0.00025", help: "decrement of p_m on link idle" },
            ParamInfo {
                name: "freeze_time",
                unit: "time",
                default: "100ms",
                help: "minimum time between changes of p_m",
            },
            super::ECN_PARAM,
            ParamInfo { name: "limit", unit: "pkts", default: "1000", help: "capacity; overflow beyond raises p_m" },
        ],
    }
}

/// The Blue qdisc.
#[derive(Debug)]
pub struct Blue {
    params: BlueParams,
    freeze: Duration,
    queue: PacketFifo,
    /// The marking probability.
    p_m: f64,
    /// When `p_m` last changed; `None` before the first change.
    last_update: Option<Time>,
}

impl Blue {
    /// Returns an empty Blue queue with `p_m = 0`.
    pub fn new(params: BlueParams) -> Self {
        let freeze = Duration::from_ns(params.freeze_time_ns);
        Blue { params, freeze, queue: PacketFifo::default(), p_m: 0.0, last_update: None }
    }

    /// Returns the marking probability.
    pub fn p_m(&self) -> f64 {
        self.p_m
    }

    /// Changes `p_m` by `delta` unless it changed less than `freeze_time` ago.
    fn nudge(&mut self, delta: f64, now: Time) {
        if self.last_update.is_none_or(|t| now.saturating_since(t) > self.freeze) {
            self.p_m = (self.p_m + delta).clamp(0.0, 1.0);
            self.last_update = Some(now);
        }
    }
}

impl Qdisc for Blue {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
        if self.p_m > 0.0
            && ctx.rng.random::<f64>() < self.p_m
            && !(self.params.ecn && ctx.mark(&mut pkt, MarkReason::Early))
        {
            ctx.drop_arrival(pkt, DropReason::Early);
            return;
        }
        if !self.queue.fits(pkt.size_bytes, Some(self.params.limit_pkts), None) {
            ctx.drop_arrival(pkt, DropReason::Overflow);
            self.nudge(self.params.d1, now);
            return;
        }
        self.queue.push(pkt);
    }

    fn dequeue(&mut self, now: Time, _ctx: &mut QdiscCtx) -> Option<Packet> {
        let p = self.queue.pop();
        if p.is_none() {
            self.nudge(-self.params.d2, now); // the link is idle
        }
        p
    }

    /// Blue's marking probability `p_m`.
    fn internals(&self, probe: &mut dyn Probe) {
        probe.record("p_m", None, self.p_m);
    }

    fn len_pkts(&self) -> u64 {
        self.queue.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    fn full_queue(limit: u64) -> Harness<Blue> {
        let mut h = Harness::new(Blue::new(BlueParams { limit_pkts: limit, ..BlueParams::default() }));
        for i in 0..limit as u32 {
            h.enqueue(pkt(i, 1000));
        }
        h
    }

    #[test]
    fn overflow_raises_p_m_by_d1_at_most_once_per_freeze_time() {
        let mut h = full_queue(5);
        h.enqueue(pkt(9, 1000)); // overflow at 0: the first change is always allowed
        assert_eq!(h.q.p_m(), 0.0025);
        h.now = Time(50 * MS);
        let before = h.drops.len();
        h.enqueue(pkt(9, 1000));
        assert!(h.drops.len() > before);
        assert_eq!(h.q.p_m(), 0.0025, "frozen within 100 ms");
        h.now = Time(100 * MS);
        h.enqueue(pkt(9, 1000));
        assert_eq!(h.q.p_m(), 0.0025, "exactly freeze_time later: still frozen");
        h.now = Time(100 * MS + 1);
        h.enqueue(pkt(9, 1000));
        assert!((h.q.p_m() - 0.005).abs() < 1e-15);
    }

    #[test]
    fn link_idle_lowers_p_m_by_d2_respecting_freeze_time() {
        let mut h = Harness::new(Blue::new(BlueParams::default()));
        h.q.p_m = 0.01;
        h.dequeue(); // empty: idle at 0
        assert!((h.q.p_m() - 0.00975).abs() < 1e-15);
        h.now = Time(60 * MS);
        h.dequeue();
        assert!((h.q.p_m() - 0.00975).abs() < 1e-15, "frozen");
        h.now = Time(101 * MS);
        h.dequeue();
        assert!((h.q.p_m() - 0.0095).abs() < 1e-15);
        // Never below zero.
        h.q.p_m = 0.0001;
        h.now = Time(300 * MS);
        h.dequeue();
        assert_eq!(h.q.p_m(), 0.0);
    }

    #[test]
    fn a_busy_dequeue_does_not_lower_p_m() {
        let mut h = Harness::new(Blue::new(BlueParams::default()));
        h.q.p_m = 0.01;
        h.enqueue(pkt(0, 1000));
        h.dequeue();
        assert_eq!(h.q.p_m(), 0.01);
    }

    #[test]
    fn arrivals_are_dropped_with_probability_p_m() {
        let mut h = Harness::new(Blue::new(BlueParams { limit_pkts: 1_000_000, ..BlueParams::default() }));
        h.q.p_m = 0.2;
        let n = 20_000;
        for i in 0..n {
            h.enqueue(pkt(i, 1000));
        }
        let frac = h.drops.len() as f64 / n as f64;
        assert!((frac - 0.2).abs() < 0.015, "{frac}");
        assert!(h.drops.iter().all(|d| d.1 == DropReason::Early));
    }

    #[test]
    fn ecn_capable_arrivals_are_marked_instead() {
        let mut h = Harness::new(Blue::new(BlueParams { ecn: true, limit_pkts: 1_000_000, ..BlueParams::default() }));
        h.q.p_m = 0.2;
        for i in 0..2000 {
            let mut p = pkt(i, 1000);
            p.ecn = Ecn::Ect;
            h.enqueue(p);
        }
        assert!(h.drops.is_empty());
        assert!(h.ctx.marks.len() > 300);
    }

    #[test]
    fn bad_steps_are_refused_by_name() {
        assert_eq!(BlueParams { d1: 0.0, ..BlueParams::default() }.validate().unwrap_err().key, "d1");
        assert_eq!(BlueParams { d2: 2.0, ..BlueParams::default() }.validate().unwrap_err().key, "d2");
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50) {
            // Large steps and a short freeze so that p_m moves within the 100 µs steps.
            let p = BlueParams { d1: 0.2, d2: 0.05, freeze_time_ns: 150_000, limit_pkts: limit, ..BlueParams::default() };
            conserves(Blue::new(p), &ops);
        }
    }
}
