//! CoDel, "Controlled Delay" (Nichols, Jacobson, McGregor, Iyengar: RFC 8289, January 2018).
//!
//! Principles (RFC 8289 §3–§5):
//! - The signal is the *sojourn time* of each packet, measured as it leaves
//!   (`now − enq_time`, the port stamps `enq_time`); drops happen at dequeue, from the head.
//! - While the sojourn time stays at or above `target` for a whole `interval` (and more than
//!   one MTU is queued), CoDel enters the *dropping state* and drops one packet.
//! - In the dropping state the next drop is scheduled at `drop_next + interval/√count`
//!   (the control law, §5.5), so the drop rate grows until the sojourn time falls below
//!   `target`, which ends the dropping state.
//! - Re-entering soon (within 16 intervals) after leaving starts from the drop rate that
//!   last controlled the queue (`count − lastcount`), the Linux variant quoted by §5.5.
//! - With `ecn`, an ECN-capable packet is marked CE instead of dropped.
//!
//! The control law lives in [`Codel`], generic over a tiny [`CodelQueue`] trait, so that
//! [`CodelQdisc`] (this file) and every flow of FQ-CoDel share it without a copy (after
//! Linux `include/net/codel_impl.h`). Params ([`Codel`]), per-queue state ([`CodelVars`]) and
//! counters (the port's) are kept apart, as in Linux `codel.h`.
//!
//! Deviations: time is exact u64 ns and `interval/√count` is computed in `f64` as the RFC
//! writes it, not with Linux's Newton step on a 1024-ns clock.

use serde::{Deserialize, Serialize};

use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::{DropReason, MarkReason, PacketFifo, Probe, Qdisc, QdiscCtx, QdiscParams};
use crate::time::{Duration, Time};

/// A queue the CoDel control law can run against (Linux `codel_impl.h`'s callbacks).
pub trait CodelQueue {
    /// Removes the head packet, updating the queue's own counts, and returns it.
    fn pop_head(&mut self) -> Option<Packet>;
    /// Returns the bytes still queued (after a pop), for the one-MTU rule of RFC 8289 §5.4.
    fn backlog_bytes(&self) -> u64;
}

/// The CoDel control law and its parameters (Linux `codel_params`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Codel {
    /// Acceptable standing sojourn time (RFC 8289 `TARGET`).
    pub target: Duration,
    /// Sliding window over which the sojourn time must stay above target (`INTERVAL`).
    pub interval: Duration,
    /// Mark ECN-capable packets instead of dropping them.
    pub ecn: bool,
    /// Never drop when no more than this many bytes remain queued (`MAXPACKET`, one MTU).
    pub mtu_bytes: u64,
}

/// CoDel's state for one queue (Linux `codel_vars`, the RFC's variable names).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CodelVars {
    /// Drops (or marks) since entering the dropping state.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// Whether the queue is in the dropping state.
    pub dropping: bool,
    /// When the sojourn time will have been above target for an interval; `None` while it
    /// is below (the RFC's `first_above_time = 0`).
    pub first_above_time: Option<Time>,
    /// When the next drop is due in the dropping state.
    pub drop_next: Time,
}

// FQ-CoDel keeps one CodelVars per flow, 1024 by default: keep it small.
const _: () = assert!(std::mem::size_of::<CodelVars>() <= 40);

impl Codel {
    /// Returns `t + interval/√count` (RFC 8289 §5.5 `control_law`).
    pub fn control_law(&self, t: Time, count: u32) -> Time {
        let step = self.interval.as_ns() as f64 / (count.max(1) as f64).sqrt();
        t + Duration::from_ns(step.round() as u64)
    }

    /// Dequeues one packet and says whether it may be dropped (RFC 8289 `dodequeue`):
    /// true once the sojourn time has stayed at or above target for an interval.
    fn dodequeue<Q: CodelQueue>(&self, v: &mut CodelVars, q: &mut Q, now: Time) -> (Option<Packet>, bool) {
        let Some(p) = q.pop_head() else {
            v.first_above_time = None;
            return (None, false);
        };
        let sojourn = now.saturating_since(p.enq_time);
        if sojourn < self.target || q.backlog_bytes() <= self.mtu_bytes {
            // Below target, or too little queued to build a standing queue: reset.
            v.first_above_time = None;
            return (Some(p), false);
        }
        match v.first_above_time {
            None => {
                v.first_above_time = Some(now + self.interval);
                (Some(p), false)
            }
            Some(t) => (Some(p), now >= t),
        }
    }

    /// Signals congestion on `p`: marks it if ECN is on and it is ECN-capable (returning it),
    /// else drops it (returning `None`).
    fn signal(&self, mut p: Packet, ctx: &mut QdiscCtx) -> Option<Packet> {
        if self.ecn && ctx.mark(&mut p, MarkReason::TargetExceeded) {
            Some(p)
        } else {
            ctx.drop_queued(p, DropReason::TargetExceeded);
            None
        }
    }

    /// Returns the next packet of `q` to send, dropping (or marking) as RFC 8289 §5.5's
    /// `dequeue` says; drops are reported through `ctx` as queued drops.
    pub fn dequeue<Q: CodelQueue>(
        &self,
        v: &mut CodelVars,
        q: &mut Q,
        now: Time,
        ctx: &mut QdiscCtx,
    ) -> Option<Packet> {
        let (mut pkt, ok_to_drop) = self.dodequeue(v, q, now);
        if pkt.is_none() {
            v.dropping = false;
            return None;
        }
        if v.dropping {
            if !ok_to_drop {
                v.dropping = false; // sojourn time below target: leave the dropping state
            }
            // With a large backlog the next drop can already be due after this one, hence
            // a loop, not an if (RFC 8289 §5.5).
            while v.dropping && now >= v.drop_next {
                let p = pkt.take()?;
                v.count = v.count.saturating_add(1);
                if let Some(marked) = self.signal(p, ctx) {
                    // A mark does not shorten the queue: send it and schedule the next signal.
                    v.drop_next = self.control_law(v.drop_next, v.count);
                    return Some(marked);
                }
                let (next, ok) = self.dodequeue(v, q, now);
                pkt = next;
                if ok {
                    v.drop_next = self.control_law(v.drop_next, v.count);
                } else {
                    v.dropping = false;
                }
            }
        } else if ok_to_drop {
            let p = pkt.take()?;
            pkt = match self.signal(p, ctx) {
                Some(marked) => Some(marked),
                None => self.dodequeue(v, q, now).0,
            };
            v.dropping = true;
            // Re-entering soon after leaving: the drop rate that last controlled the queue
            // is a good start (drop_next is at most an interval after the last drop, so
            // now − drop_next approximates the time since it).
            let delta = v.count.wrapping_sub(v.lastcount);
            v.count = if delta > 1 && now.saturating_since(v.drop_next) < self.interval.saturating_mul(16) {
                delta
            } else {
                1
            };
            v.lastcount = v.count;
            v.drop_next = self.control_law(now, v.count);
        }
        pkt
    }
}

/// CoDel qdisc parameters. Defaults: Linux `sch_codel.c` / `codel_params_init`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct CodelParams {
    /// `TARGET`, ns. Default 5 ms (RFC 8289 §4.4, Linux).
    pub target_ns: u64,
    /// `INTERVAL`, ns. Default 100 ms (RFC 8289 §4.4, Linux).
    pub interval_ns: u64,
    /// Mark instead of drop. Default false (Linux `sch_codel`).
    pub ecn: bool,
    /// One MTU, bytes: no drop while no more remains queued. Default 1500 (RFC 8289 §5.3
    /// `MAXPACKET` "should use interface MTU"; qdsim packets carry no link-layer header).
    pub mtu_bytes: u64,
    /// Capacity in packets, tail drop (`overflow`) beyond. Default 1000 (Linux `sch_codel`).
    pub limit_pkts: u64,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams { target_ns: 5_000_000, interval_ns: 100_000_000, ecn: false, mtu_bytes: 1500, limit_pkts: 1000 }
    }
}

impl QdiscParams for CodelParams {
    /// Checks that every parameter is positive and target < interval.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.target_ns == 0 {
            return Err(ConfigError::new("target", "0", "a duration > 0"));
        }
        if self.interval_ns <= self.target_ns {
            return Err(ConfigError::new("interval", format!("{} ns", self.interval_ns), "a duration > target"));
        }
        if self.mtu_bytes == 0 {
            return Err(ConfigError::new("mtu", 0, "at least 1 byte"));
        }
        if self.limit_pkts == 0 {
            return Err(ConfigError::new("limit", 0, "at least 1 packet"));
        }
        Ok(())
    }
}

impl CodelParams {
    /// Returns the control law these parameters configure.
    pub fn controller(&self) -> Codel {
        Codel {
            target: Duration::from_ns(self.target_ns),
            interval: Duration::from_ns(self.interval_ns),
            ecn: self.ecn,
            mtu_bytes: self.mtu_bytes,
        }
    }
}

/// The catalog entries of the control law's parameters, shared with FQ-CoDel (whose
/// defaults are the same: RFC 8289 §4.4 and RFC 8290 §5 both take Linux's).
pub(crate) const LAW_PARAMS: [ParamInfo; 3] = [
    ParamInfo { name: "target", unit: "time", default: "5ms", help: "acceptable standing sojourn time" },
    ParamInfo { name: "interval", unit: "time", default: "100ms", help: "time above target before dropping; > target" },
    ParamInfo { name: "mtu", unit: "bytes", default: "1500B", help: "never drop with no more than this queued" },
];

pub(crate) fn info() -> AlgorithmInfo {
    let [target, interval, mtu] = LAW_PARAMS;
    AlgorithmInfo {
        name: "codel",
        summary: "CoDel, drops at dequeue on sojourn time (RFC 8289)",
        params: vec![
            target,
            interval,
            super::ECN_PARAM,
            mtu,
            ParamInfo { name: "limit", unit: "pkts", default: "1000", help: "capacity; tail drop (overflow) beyond" },
        ],
    }
}

/// The plain queue CoDel runs against in the `codel` qdisc.
impl CodelQueue for PacketFifo {
    fn pop_head(&mut self) -> Option<Packet> {
        self.pop()
    }
    fn backlog_bytes(&self) -> u64 {
        self.len_bytes()
    }
}

/// The CoDel qdisc: one FIFO, tail drop at `limit`, CoDel at dequeue.
#[derive(Debug)]
pub struct CodelQdisc {
    codel: Codel,
    vars: CodelVars,
    limit_pkts: u64,
    queue: PacketFifo,
}

impl CodelQdisc {
    /// Returns an empty CoDel queue.
    pub fn new(params: CodelParams) -> Self {
        CodelQdisc {
            codel: params.controller(),
            vars: CodelVars::default(),
            limit_pkts: params.limit_pkts,
            queue: PacketFifo::default(),
        }
    }

    /// Returns the control state (for probes and tests).
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl Qdisc for CodelQdisc {
    fn enqueue(&mut self, pkt: Packet, _now: Time, ctx: &mut QdiscCtx) {
        if self.queue.fits(pkt.size_bytes, Some(self.limit_pkts), None) {
            self.queue.push(pkt);
        } else {
            ctx.drop_arrival(pkt, DropReason::Overflow);
        }
    }

    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
        self.codel.dequeue(&mut self.vars, &mut self.queue, now, ctx)
    }

    /// CoDel's state (RFC 8289's names): `dropping` (1 or 0), `count`, `lastcount`.
    fn internals(&self, probe: &mut dyn Probe) {
        probe.record("dropping", None, f64::from(u8::from(self.vars.dropping)));
        probe.record("count", None, f64::from(self.vars.count));
        probe.record("lastcount", None, f64::from(self.vars.lastcount));
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

    /// Fills the queue at t = 0, then dequeues one packet per millisecond until `until_ms`;
    /// returns the times (ms) at which drops happened.
    fn drop_times_ms(params: CodelParams, n: u32, until_ms: u64) -> Vec<u64> {
        let mut h = Harness::new(CodelQdisc::new(params));
        for i in 0..n {
            h.enqueue(pkt(i, 1500));
        }
        let mut times = vec![];
        for t in 1..=until_ms {
            h.now = Time(t * MS);
            let before = h.drops.len();
            h.dequeue();
            for _ in before..h.drops.len() {
                times.push(t);
            }
        }
        assert!(h.drops.iter().all(|d| d.1 == DropReason::TargetExceeded && !d.2));
        times
    }

    #[test]
    fn first_drop_comes_one_interval_after_the_sojourn_time_exceeds_target() {
        // All packets enqueued at 0, so the sojourn time at t ms is t ms: it reaches the 5 ms
        // target at 5 ms, and the first drop is due at 5 + 100 = 105 ms, not before.
        let times = drop_times_ms(CodelParams::default(), 900, 200);
        assert_eq!(times.first(), Some(&105), "{times:?}");
    }

    #[test]
    fn drop_times_follow_interval_over_sqrt_count() {
        let times = drop_times_ms(CodelParams::default(), 900, 800);
        // Expected: enter at 105 ms (count 1, drop_next = 205); then drop_next advances by
        // 100/√count ms after each drop; a drop happens at the first 1 ms tick ≥ drop_next.
        let mut expected = vec![105u64];
        let (mut next, mut count) = (205.0f64, 1u32);
        while next <= 800.0 {
            expected.push(next.ceil() as u64);
            count += 1;
            next += 100.0 / (count as f64).sqrt();
        }
        assert_eq!(times, expected);
        assert!(expected.len() > 8);
    }

    #[test]
    fn a_dip_below_target_restarts_the_interval() {
        let mut h = Harness::new(CodelQdisc::new(CodelParams::default()));
        for i in 0..20 {
            h.enqueue(pkt(i, 1500));
        }
        // Sojourn 10 ms > target at 10 ms: the first drop would be due at 110 ms.
        h.now = Time(10 * MS);
        h.dequeue();
        assert_eq!(h.q.vars().first_above_time, Some(Time(110 * MS)));
        h.now = Time(95 * MS);
        for i in 0..300 {
            h.enqueue(pkt(i, 1500));
        }
        h.now = Time(96 * MS);
        for _ in 0..19 {
            h.dequeue(); // the old packets: still above target
        }
        // From 97 ms the fresh packets' sojourn is t − 95 ms: below target until 100 ms,
        // which resets the interval; it restarts at 100 ms, so the first drop is at 200 ms.
        let mut first_drop = None;
        for t in 97..=250 {
            h.now = Time(t * MS);
            h.dequeue();
            if first_drop.is_none() && !h.drops.is_empty() {
                first_drop = Some(t);
            }
        }
        assert_eq!(first_drop, Some(200));
    }

    #[test]
    fn never_drops_with_one_mtu_or_less_queued() {
        let mut h = Harness::new(CodelQdisc::new(CodelParams::default()));
        h.enqueue(pkt(0, 1500));
        h.enqueue(pkt(1, 1500));
        // The second packet is alone after the first leaves: whatever its sojourn time, it
        // is never dropped.
        for t in [10, 200, 400] {
            h.now = Time(t * MS);
            h.dequeue();
        }
        assert!(h.drops.is_empty());
    }

    #[test]
    fn reentry_soon_after_leaving_reuses_the_recent_count() {
        let mut h = Harness::new(CodelQdisc::new(CodelParams::default()));
        for i in 0..900 {
            h.enqueue(pkt(i, 1500));
        }
        for t in 1..=500 {
            h.now = Time(t * MS);
            h.dequeue();
        }
        assert!(h.q.vars().count > 3 && h.q.vars().dropping);
        // Drain the queue (leaving the dropping state), then build it again right away.
        while h.q.len_pkts() > 0 {
            h.dequeue();
        }
        h.dequeue();
        assert!(!h.q.vars().dropping);
        let count = h.q.vars().count;
        let t0 = 501;
        for i in 0..900 {
            h.now = Time(t0 * MS);
            h.enqueue(pkt(i, 1500));
        }
        let mut t = t0;
        while !h.q.vars().dropping {
            t += 1;
            h.now = Time(t * MS);
            h.dequeue();
        }
        // count − lastcount = count − 1 (the drops of the last cycle), reused.
        assert_eq!(h.q.vars().count, count - 1);
    }

    #[test]
    fn ecn_capable_packets_are_marked_not_dropped() {
        let p = CodelParams { ecn: true, ..CodelParams::default() };
        let mut h = Harness::new(CodelQdisc::new(p));
        for i in 0..900 {
            let mut q = pkt(i, 1500);
            q.ecn = Ecn::Ect;
            h.enqueue(q);
        }
        let mut marked = 0;
        for t in 1..=400 {
            h.now = Time(t * MS);
            if h.dequeue().is_some_and(|p| p.ecn == Ecn::Ce) {
                marked += 1;
            }
        }
        assert!(h.drops.is_empty());
        assert!(marked > 3);
        assert_eq!(h.ctx.marks.len(), marked);
    }

    #[test]
    fn tail_drops_beyond_the_limit() {
        let mut h = Harness::new(CodelQdisc::new(CodelParams { limit_pkts: 3, ..CodelParams::default() }));
        for i in 0..5 {
            h.enqueue(pkt(i, 100));
        }
        assert_eq!(
            h.drops.iter().map(|d| (d.0.flow, d.1, d.2)).collect::<Vec<_>>(),
            vec![(3, DropReason::Overflow, true), (4, DropReason::Overflow, true)]
        );
    }

    #[test]
    fn target_not_below_interval_is_refused_by_name() {
        let e = CodelParams { interval_ns: 5_000_000, ..CodelParams::default() }.validate().unwrap_err();
        assert_eq!(e.key, "interval");
        assert_eq!(CodelParams { target_ns: 0, ..CodelParams::default() }.validate().unwrap_err().key, "target");
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50) {
            // 100 µs steps: short target/interval so that the control law runs.
            let p = CodelParams { target_ns: 200_000, interval_ns: 1_000_000, limit_pkts: limit, ..CodelParams::default() };
            conserves(CodelQdisc::new(p), &ops);
        }
    }
}
