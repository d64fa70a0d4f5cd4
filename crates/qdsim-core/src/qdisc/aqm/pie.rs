//! PIE, Proportional Integral controller Enhanced (Pan, Natarajan, Baker, White: RFC 8033,
//! February 2017).
//!
//! Principles (RFC 8033 §4–§5, Appendix A pseudo-code):
//! - Arrivals are dropped (or ECN-marked) *before* enqueue with probability `drop_prob`.
//! - Every `t_update` the probability follows a PI controller on the queueing delay:
//!   `p = α·(qdelay − target) + β·(qdelay − qdelay_old)`, where `α`, `β` are scaled down
//!   while `drop_prob` is small (the auto-tuning table of §5.2: ÷2048 below 10⁻⁶ … ÷2 below
//!   0.1), a step is capped at 0.02 once `drop_prob ≥ 0.1` (§5.3), and `drop_prob` decays
//!   by ×0.98 while the delay is zero for two updates; `drop_prob` stays in [0, 1].
//! - Burst allowance (§4.4): no early drop while `burst_allowance > 0`; it starts at
//!   `max_burst`, falls by `t_update` each update, and is refilled when `drop_prob = 0`
//!   and the delay was below `target/2` for two updates.
//! - No early drop while `qdelay_old < target/2` and `drop_prob < 0.2`, nor with fewer
//!   than two MTUs queued (§4.1).
//! - Optional de-randomisation (§5.1): an accumulated probability makes drops neither too
//!   close (`< 0.85`) nor too far apart (`≥ 8.5`).
//! - ECN: an ECN-capable arrival is marked instead of dropped while `drop_prob ≤ mark_ecnth`.
//!
//! Queue delay is measured with timestamps (RFC 8033 §5.2's alternative to the departure-rate
//! estimate): the age `now − enq_time` of the head packet at each update, 0 when empty.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::catalog::{AlgorithmInfo, KeyUse, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::{DropReason, MarkReason, PacketFifo, Probe, Qdisc, QdiscCtx, QdiscParams};
use crate::time::{Duration, Time};

use super::Periodic;

/// PIE parameters. Defaults: RFC 8033 §4–§5 (and Linux `sch_pie.c` where the RFC gives none).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PieParams {
    /// `QDELAY_REF`, ns. Default 15 ms (RFC 8033 §4.2).
    pub target_ns: u64,
    /// Update period `T_UPDATE`, ns. Default 15 ms (RFC 8033 §4.2).
    pub t_update_ns: u64,
    /// α, per second. Default 0.125 (RFC 8033 §4.2).
    pub alpha: f64,
    /// β, per second. Default 1.25 (RFC 8033 §4.2).
    pub beta: f64,
    /// `MAX_BURST`, ns. Default 150 ms (RFC 8033 §4.4).
    pub max_burst_ns: u64,
    /// De-randomised drops (RFC 8033 §5.1, optional). Default false (the base algorithm;
    /// Linux always de-randomises).
    pub derandomize: bool,
    /// Mark ECN-capable packets instead of dropping (while `drop_prob ≤ mark_ecnth`).
    /// Default false (Linux `sch_pie`).
    pub ecn: bool,
    /// Highest probability at which marking replaces dropping. Default 0.1 (RFC 8033 §5.1).
    pub mark_ecnth: f64,
    /// One MTU, bytes: no early drop with fewer than two queued. Default 1500 (RFC
    /// `MEAN_PKTSIZE`; Linux `psched_mtu`).
    pub mtu_bytes: u64,
    /// Capacity in packets, tail drop (`overflow`) beyond. Default 1000 (Linux `sch_pie`).
    pub limit_pkts: u64,
}

impl Default for PieParams {
    fn default() -> Self {
        PieParams {
            target_ns: 15_000_000,
            t_update_ns: 15_000_000,
            alpha: 0.125,
            beta: 1.25,
            max_burst_ns: 150_000_000,
            derandomize: false,
            ecn: false,
            mark_ecnth: 0.1,
            mtu_bytes: 1500,
            limit_pkts: 1000,
        }
    }
}

impl QdiscParams for PieParams {
    fn validate(&self) -> Result<(), ConfigError> {
        if self.target_ns == 0 {
            return Err(ConfigError::new("target", 0, "a duration > 0"));
        }
        if self.t_update_ns == 0 {
            return Err(ConfigError::new("t_update", 0, "a duration > 0"));
        }
        if !(self.alpha >= 0.0 && self.alpha.is_finite()) {
            return Err(ConfigError::new("alpha", self.alpha, "a number >= 0 (per second)"));
        }
        if !(self.beta >= 0.0 && self.beta.is_finite()) {
            return Err(ConfigError::new("beta", self.beta, "a number >= 0 (per second)"));
        }
        if !(0.0..=1.0).contains(&self.mark_ecnth) {
            return Err(ConfigError::new("mark_ecnth", self.mark_ecnth, "a probability in [0, 1]"));
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

/// `mark_ecnth` is read only with `ecn` (without it every early drop is a drop).
pub(crate) fn key_uses() -> Vec<KeyUse> {
    vec![KeyUse::new("qdisc.pie", "mark_ecnth", "ecn", &["true"])]
}

pub(crate) fn info() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "pie",
        summary: "PIE, drop probability from a PI controller on queue delay (RFC 8033)",
        params: vec![
            ParamInfo { name: "target", unit: "time", default: "15ms", help: "reference queueing delay QDELAY_REF" },
            ParamInfo { name: "t_update", unit: "time", default: "15ms", help: "probability update period" },
            ParamInfo {
                name: "alpha",
                unit: "float",
                default: "0.125",
                help: "weight of (qdelay - target), per second",
            },
            ParamInfo {
                name: "beta",
                unit: "float",
                default: "1.25",
                help: "weight of (qdelay - qdelay_old), per second",
            },
            ParamInfo {
                name: "max_burst",
                unit: "time",
                default: "150ms",
                help: "burst allowance without early drops",
            },
            ParamInfo {
                name: "derandomize",
                unit: "bool",
                default: "false",
                help: "de-randomised drops (RFC 8033 5.1)",
            },
            super::ECN_PARAM,
            ParamInfo {
                name: "mark_ecnth",
                unit: "float",
                default: "0.1",
                help: "mark only while drop_prob is at most this",
            },
            ParamInfo {
                name: "mtu",
                unit: "bytes",
                default: "1500B",
                help: "no early drop with fewer than 2 MTUs queued",
            },
            ParamInfo { name: "limit", unit: "pkts", default: "1000", help: "capacity; tail drop (overflow) beyond" },
        ],
    }
}

/// The PIE qdisc.
#[derive(Debug)]
pub struct Pie {
    params: PieParams,
    queue: PacketFifo,
    /// Current drop probability.
    drop_prob: f64,
    /// Queue delay at the last update.
    qdelay_old: Duration,
    /// Remaining burst allowance.
    burst_allowance: Duration,
    /// De-randomisation accumulator.
    accu_prob: f64,
    /// The `t_update` timer, started by the first arrival.
    timer: Periodic,
}

impl Pie {
    /// Returns an empty PIE queue.
    pub fn new(params: PieParams) -> Self {
        let burst = Duration::from_ns(params.max_burst_ns);
        let timer = Periodic::new(Duration::from_ns(params.t_update_ns));
        Pie {
            params,
            queue: PacketFifo::default(),
            drop_prob: 0.0,
            qdelay_old: Duration::ZERO,
            burst_allowance: burst,
            accu_prob: 0.0,
            timer,
        }
    }

    /// Returns the current drop probability.
    pub fn drop_prob(&self) -> f64 {
        self.drop_prob
    }

    /// Returns the remaining burst allowance.
    pub fn burst_allowance(&self) -> Duration {
        self.burst_allowance
    }

    /// RFC 8033 `drop_early`: whether to drop (or mark) an arrival.
    fn drop_early(&mut self, rng: &mut crate::rng::StreamRng) -> bool {
        let half_target = Duration::from_ns(self.params.target_ns / 2);
        if self.burst_allowance > Duration::ZERO {
            return false;
        }
        if self.qdelay_old < half_target && self.drop_prob < 0.2 {
            return false;
        }
        if self.queue.len_bytes() <= 2 * self.params.mtu_bytes {
            return false;
        }
        if self.params.derandomize {
            if self.drop_prob == 0.0 {
                self.accu_prob = 0.0;
            }
            self.accu_prob += self.drop_prob;
            if self.accu_prob < 0.85 {
                return false;
            }
            if self.accu_prob >= 8.5 {
                self.accu_prob = 0.0;
                return true;
            }
            if rng.random::<f64>() < self.drop_prob {
                self.accu_prob = 0.0;
                return true;
            }
            return false;
        }
        rng.random::<f64>() < self.drop_prob
    }

    /// RFC 8033 `calculate_drop_prob`, with the queue delay measured at `now`.
    fn update(&mut self, now: Time) {
        let p = &self.params;
        let qdelay = self.queue.front().map_or(Duration::ZERO, |h| now.saturating_since(h.enq_time));
        let (cur, old, target) = (qdelay.as_secs_f64(), self.qdelay_old.as_secs_f64(), p.target_ns as f64 / 1e9);
        let mut step = p.alpha * (cur - target) + p.beta * (cur - old);
        // Auto-tuning (§5.2): small probabilities move in small steps.
        step /= match self.drop_prob {
            d if d < 0.000_001 => 2048.0,
            d if d < 0.000_01 => 512.0,
            d if d < 0.000_1 => 128.0,
            d if d < 0.001 => 32.0,
            d if d < 0.01 => 8.0,
            d if d < 0.1 => 2.0,
            _ => 1.0,
        };
        // Cap the increase once the probability is high (§5.3).
        if self.drop_prob >= 0.1 && step > 0.02 {
            step = 0.02;
        }
        self.drop_prob += step;
        // Decay when congestion has gone away (two updates with an empty queue).
        if qdelay == Duration::ZERO && self.qdelay_old == Duration::ZERO {
            self.drop_prob *= 0.98;
        }
        self.drop_prob = self.drop_prob.clamp(0.0, 1.0);
        let t_update = Duration::from_ns(p.t_update_ns);
        self.burst_allowance = Duration::from_ns(self.burst_allowance.as_ns().saturating_sub(t_update.as_ns()));
        let half_target = Duration::from_ns(p.target_ns / 2);
        if self.drop_prob == 0.0 && qdelay < half_target && self.qdelay_old < half_target {
            self.burst_allowance = Duration::from_ns(p.max_burst_ns);
        }
        self.qdelay_old = qdelay;
    }
}

impl Qdisc for Pie {
    fn enqueue(&mut self, mut pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
        self.timer.start(now, ctx);
        if !self.queue.fits(pkt.size_bytes, Some(self.params.limit_pkts), None) {
            ctx.drop_arrival(pkt, DropReason::Overflow);
            return;
        }
        if self.drop_early(&mut ctx.rng) {
            let may_mark = self.params.ecn && self.drop_prob <= self.params.mark_ecnth;
            if !(may_mark && ctx.mark(&mut pkt, MarkReason::Early)) {
                ctx.drop_arrival(pkt, DropReason::Early);
                return;
            }
        }
        self.queue.push(pkt);
    }

    fn dequeue(&mut self, _now: Time, _ctx: &mut QdiscCtx) -> Option<Packet> {
        let p = self.queue.pop()?;
        Some(p)
    }

    /// PIE's state (RFC 8033's names): `drop_prob`, `qdelay_old` (s), `burst_allowance` (s).
    fn internals(&self, probe: &mut dyn Probe) {
        probe.record("drop_prob", None, self.drop_prob);
        probe.record("qdelay_old", None, self.qdelay_old.as_secs_f64());
        probe.record("burst_allowance", None, self.burst_allowance.as_secs_f64());
    }

    fn len_pkts(&self) -> u64 {
        self.queue.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    fn on_timer(&mut self, now: Time, ctx: &mut QdiscCtx) {
        if self.timer.fire(now, ctx) {
            self.update(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use proptest::prelude::*;

    const MS: u64 = 1_000_000;

    /// Runs the timer if it is due at the harness's time; returns whether it ran.
    fn tick(h: &mut Harness<Pie>) -> bool {
        match h.ctx.timer {
            Some(at) if at <= h.now => {
                h.ctx.timer = None;
                h.q.on_timer(at, &mut h.ctx);
                h.drops.append(&mut h.ctx.drops);
                true
            }
            _ => false,
        }
    }

    #[test]
    fn probability_rises_while_delay_exceeds_target() {
        // 100 packets queued at 0 and never served: the head's age at the k-th update is
        // 15k ms, above the 15 ms target from the second update on.
        let mut h = Harness::new(Pie::new(PieParams::default()));
        for i in 0..100 {
            h.enqueue(pkt(i, 1000));
        }
        let mut probs = vec![];
        for k in 1..=30 {
            h.now = Time(15 * MS * k);
            assert!(tick(&mut h));
            probs.push(h.q.drop_prob());
        }
        // First update: qdelay 15 ms = target, so only β·(0.015 − 0) = 0.01875, ÷2048.
        assert!((probs[0] - 0.01875 / 2048.0).abs() < 1e-15, "{probs:?}");
        // Second: α·0.015 + β·0.015 = 0.020625, ÷512 (probability in [1e-6, 1e-5)).
        assert!((probs[1] - (probs[0] + 0.020625 / 512.0)).abs() < 1e-15, "{probs:?}");
        assert!(probs.windows(2).all(|w| w[1] > w[0]), "{probs:?}");
        assert!(probs[29] > 0.1);
    }

    #[test]
    fn probability_falls_once_delay_is_below_target() {
        let mut h = Harness::new(Pie::new(PieParams::default()));
        for i in 0..100 {
            h.enqueue(pkt(i, 1000));
        }
        for k in 1..=30 {
            h.now = Time(15 * MS * k);
            tick(&mut h);
        }
        let high = h.q.drop_prob();
        while h.dequeue().is_some() {}
        let mut last = high;
        for k in 31..=60 {
            h.now = Time(15 * MS * k);
            tick(&mut h);
            assert!(h.q.drop_prob() <= last);
            last = h.q.drop_prob();
        }
        assert!(last < high / 2.0, "{high} -> {last}");
    }

    #[test]
    fn no_early_drop_during_the_burst_allowance() {
        let mut h = Harness::new(Pie::new(PieParams::default()));
        h.q.drop_prob = 0.5;
        h.q.qdelay_old = Duration::from_ms(100);
        for i in 0..200 {
            h.enqueue(pkt(i, 1000));
        }
        assert!(h.drops.is_empty(), "150 ms of burst allowance left");
        // Ten updates use up the 150 ms allowance (the queue keeps the delay high).
        for k in 1..=10 {
            h.now = Time(15 * MS * k);
            tick(&mut h);
        }
        assert_eq!(h.q.burst_allowance(), Duration::ZERO);
        for i in 0..200 {
            h.enqueue(pkt(i, 1000));
        }
        assert!(h.drops.iter().filter(|d| d.1 == DropReason::Early).count() > 50);
    }

    #[test]
    fn early_drop_fraction_matches_the_probability() {
        let mut h = Harness::new(Pie::new(PieParams { limit_pkts: 1_000_000, ..PieParams::default() }));
        h.q.burst_allowance = Duration::ZERO;
        h.q.drop_prob = 0.3;
        h.q.qdelay_old = Duration::from_ms(100);
        h.enqueue(pkt(0, 1000));
        h.enqueue(pkt(0, 1000));
        h.enqueue(pkt(0, 1000));
        let n = 20_000;
        let before = h.drops.len();
        for i in 0..n {
            h.enqueue(pkt(i, 1000));
        }
        let frac = (h.drops.len() - before) as f64 / n as f64;
        assert!((frac - 0.3).abs() < 0.015, "{frac}");
    }

    #[test]
    fn derandomized_drops_are_neither_too_close_nor_too_far_apart() {
        let mut h =
            Harness::new(Pie::new(PieParams { derandomize: true, limit_pkts: 1_000_000, ..PieParams::default() }));
        h.q.burst_allowance = Duration::ZERO;
        h.q.drop_prob = 0.25;
        h.q.qdelay_old = Duration::from_ms(100);
        let mut last_drop = None;
        for i in 0..5_000u32 {
            let before = h.drops.len();
            h.enqueue(pkt(i, 1000));
            if h.drops.len() > before && i > 3 {
                if let Some(l) = last_drop {
                    let gap = i - l;
                    assert!((4..=34).contains(&gap), "gap {gap}"); // 0.85/0.25 → ≥ 4, 8.5/0.25 → ≤ 34
                }
                last_drop = Some(i);
            }
        }
    }

    #[test]
    fn ecn_marks_only_while_the_probability_is_low() {
        let mut h = Harness::new(Pie::new(PieParams { ecn: true, limit_pkts: 1_000_000, ..PieParams::default() }));
        h.q.burst_allowance = Duration::ZERO;
        h.q.qdelay_old = Duration::from_ms(100);
        h.q.drop_prob = 0.3; // below 0.2 the qdelay_old rule would also need a high delay
        let ect = |i| {
            let mut p = pkt(i, 1000);
            p.ecn = Ecn::Ect;
            p
        };
        for i in 0..3000 {
            h.enqueue(ect(i));
        }
        assert!(h.ctx.marks.is_empty() && h.drops.len() > 500, "above mark_ecnth: drops");
        h.q.drop_prob = 0.1;
        let drops = h.drops.len();
        for i in 0..3000 {
            h.enqueue(ect(i));
        }
        assert_eq!(h.drops.len(), drops, "at mark_ecnth: marks");
        assert!(h.ctx.marks.len() > 150);
    }

    #[test]
    fn bad_parameters_are_refused_by_name() {
        assert_eq!(PieParams { t_update_ns: 0, ..PieParams::default() }.validate().unwrap_err().key, "t_update");
        assert_eq!(PieParams { mark_ecnth: 1.5, ..PieParams::default() }.validate().unwrap_err().key, "mark_ecnth");
        assert!(PieParams::default().validate().is_ok());
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50, derandomize in any::<bool>()) {
            // `conserves` fires no timers: start with a high probability and no burst
            // allowance so that early drops happen.
            let mut q = Pie::new(PieParams { limit_pkts: limit, derandomize, ..PieParams::default() });
            q.drop_prob = 0.4;
            q.burst_allowance = Duration::ZERO;
            q.qdelay_old = Duration::from_ms(100);
            conserves(q, &ops);
        }
    }
}
