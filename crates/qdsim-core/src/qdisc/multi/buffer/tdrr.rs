//! `tdrr`: Throughput DRR (Kantawala & Turner, SPECTS 2002, as summarised in their 2005 paper
//! §2: "TDRR picks the queue with the current highest exponentially weighted throughput"):
//! ns-2's push-out loop (`push_out.rs`) whose victim is the queue with the highest average
//! throughput instead of the longest one. Heads dropped: reason `throughput`.
//!
//! ```text
//! every Δ, for every queue j:  thr_j ← (1 − w)·thr_j + w·served_j(Δ)/Δ
//! arrival p → queue i: append p; while total > B: drop the head of argmax_j thr_j
//! ```
//!
//! Not published (ALGORITHM-NOTES §1), so parameters, chosen before any reproduction:
//! - the EWMA weight `w` (`tdrr_w`, default 1/16) and period `Δ` (`tdrr_period`, default
//!   10 ms): the project's choice in ALGORITHM-NOTES, a time constant Δ/w ≈ 160 ms, about
//!   the long RTT (200 ms) of the paper's experiments: long enough to average over a window's
//!   worth of a flow's packets, short enough to follow a flow's backing off. The 2005 paper
//!   says nothing that implies other values.
//! - the quantity: bytes **served** (sent on the link), because the paper says throughput —
//!   what a queue gets through the link; bytes arrived would be the offered load. Under DRR
//!   backlogged queues are served alike, so the average mostly remembers which queues have
//!   been backlogged (and served at the fair rate) longest; a flow that has just backed off
//!   has a lower average and is spared, which is the desynchronisation the policy is after.
//!
//! Readings: ties in throughput (every queue at 0 before the first period ends) go to the
//! queue with the most bytes (the arrival counted), then to the first in DRR order from the
//! pointer, as ns-2's DRR; periods are counted lazily from the first packet (`Periods`), an
//! idle period decays every average by (1 − w).

use super::push_out::{first_max, push_out, Arrival, Limit, Periods};
use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::time::{Duration, Time};

/// TDRR: drop from the queue with the highest EWMA throughput.
#[derive(Debug, Clone, PartialEq)]
pub struct Tdrr {
    /// `B`, if limited.
    pub limit: Option<Limit>,
    /// EWMA weight `w` (`tdrr_w`).
    pub w: f64,
    /// `Δ` in seconds (`tdrr_period`).
    delta_s: f64,
    periods: Periods,
    /// `thr_j`, bytes per second.
    thr: Vec<f64>,
    /// `served_j` in the current period, bytes.
    served: Vec<u64>,
}

impl Tdrr {
    /// Returns `thr_j` in bytes per second, as of the last event.
    pub fn thr(&self, j: usize) -> f64 {
        self.thr.get(j).copied().unwrap_or(0.0)
    }

    /// Applies every period boundary up to `now`: the first closes the current period's
    /// counts, the others are idle periods.
    fn roll(&mut self, now: Time) {
        let k = self.periods.elapsed(now);
        if k == 0 {
            return;
        }
        let idle_decay = (1.0 - self.w).powi((k - 1).min(i32::MAX as u64) as i32);
        for (thr, served) in self.thr.iter_mut().zip(&mut self.served) {
            *thr = ((1.0 - self.w) * *thr + self.w * *served as f64 / self.delta_s) * idle_decay;
            *served = 0;
        }
    }
}

impl Policy for Tdrr {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "tdrr_w",
            unit: "float",
            default: "0.0625",
            help: "tdrr: EWMA weight w of each queue's throughput, in (0, 1]",
        },
        ParamInfo {
            name: "tdrr_period",
            unit: "time",
            default: "10ms",
            help: "tdrr: period Delta of the throughput average",
        },
    ];

    fn check_keys(p: &FqParams) -> Result<(), ConfigError> {
        if !(p.tdrr_w > 0.0 && p.tdrr_w <= 1.0) {
            return Err(ConfigError::new("tdrr_w", p.tdrr_w, "an EWMA weight in (0, 1]"));
        }
        if p.tdrr_period_ns == 0 {
            return Err(ConfigError::new("tdrr_period", "0s", "a period > 0"));
        }
        Ok(())
    }

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        Self::check_keys(p)?;
        let delta = Duration::from_ns(p.tdrr_period_ns);
        Ok(Tdrr {
            limit: Limit::from_params(p, false)?,
            w: p.tdrr_w,
            delta_s: delta.as_secs_f64(),
            periods: Periods::new(delta),
            thr: Vec::new(),
            served: Vec::new(),
        })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        sched: &mut S,
        ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        // The port stamps an arrival's enqueue time with the current time.
        self.roll(pkt.enq_time);
        let a = Arrival::new(q, pkt);
        let this = &*self;
        push_out(&a, self.limit, queues, sched, ctx, DropReason::Throughput, |queues, sched| {
            first_max(sched, queues, &a, |j| (this.thr(j), a.bytes_of(queues, j)))
                .expect("the arrival's queue is non-empty")
        })
    }

    fn sent(&mut self, q: usize, p: &Packet, _queues: &Queues, now: Time) {
        self.roll(now);
        if self.served.len() <= q {
            self.served.resize(q + 1, 0);
            self.thr.resize(q + 1, 0.0);
        }
        self.served[q] += p.size_bytes as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::multi::buffer::testing::{drops, fq, seq_pkt};
    use crate::qdisc::multi::buffer::BufferPolicy;
    use crate::qdisc::multi::Multi;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscParams;

    const MS: u64 = 1_000_000;

    fn tdrr() -> FqParams {
        fq("tdrr", |p| {
            p.limit_pkts = Some(7);
            p.tdrr_period_ns = MS;
            p.tdrr_w = 0.25;
        })
    }

    #[test]
    fn the_victim_is_the_queue_with_the_highest_throughput_not_the_longest() {
        let mut h = Harness::new(Multi::drr(tdrr()));
        // Period 1 (0–1 ms): queue 0 sends ten packets.
        for s in 0..10 {
            h.enqueue(seq_pkt(0, 1000, s));
            h.dequeue();
        }
        // After the boundary queue 0 has a throughput, the others none; queue 1 is longest.
        h.now = Time(3 * MS / 2);
        for (flow, seq) in [(0, 10), (0, 11), (1, 20), (1, 21), (1, 22), (1, 23), (1, 24)] {
            h.enqueue(seq_pkt(flow, 1000, seq));
        }
        h.enqueue(seq_pkt(2, 1000, 30));
        assert_eq!(drops(&h), vec![(0, 10, DropReason::Throughput, false)]);
    }

    #[test]
    fn without_throughput_history_the_longest_queue_loses() {
        let mut h = Harness::new(Multi::drr(tdrr()));
        for (flow, seq) in [(0, 0), (0, 1), (1, 10), (1, 11), (1, 12), (2, 20), (2, 21)] {
            h.enqueue(seq_pkt(flow, 1000, seq));
        }
        h.enqueue(seq_pkt(3, 1000, 30));
        assert_eq!(drops(&h), vec![(1, 10, DropReason::Throughput, false)]);
    }

    #[test]
    fn the_average_follows_the_ewma_of_served_bytes_per_period() {
        let mut h = Harness::new(Multi::drr(tdrr()));
        h.enqueue(seq_pkt(0, 1500, 0));
        h.dequeue(); // 1500 bytes served in the first period, which starts at 0
        h.now = Time(MS); // boundary at 1 ms: thr = 0.25 · 1500 B / 1 ms
        h.enqueue(seq_pkt(1, 100, 1));
        let thr = |h: &Harness<Multi<crate::qdisc::sched::Drr>>| match &h.q.buffer {
            BufferPolicy::Tdrr(t) => t.thr(0),
            other => panic!("{other:?}"),
        };
        assert!((thr(&h) - 0.25 * 1.5e6).abs() < 1e-6, "{}", thr(&h));
        // Three more boundaries (2, 3, 4 ms) without service: three decays by 0.75.
        h.now = Time(4 * MS);
        h.enqueue(seq_pkt(1, 100, 2));
        assert!((thr(&h) - 0.25 * 1.5e6 * 0.75f64.powi(3)).abs() < 1e-6, "{}", thr(&h));
    }

    #[test]
    fn bad_parameters_are_refused_by_key() {
        let key = |f: fn(&mut FqParams)| fq("tdrr", f).validate().unwrap_err().key;
        assert_eq!(key(|p| p.tdrr_w = 0.0), "tdrr_w");
        assert_eq!(key(|p| p.tdrr_w = 1.5), "tdrr_w");
        assert_eq!(key(|p| p.tdrr_w = f64::NAN), "tdrr_w");
        assert_eq!(key(|p| p.tdrr_period_ns = 0), "tdrr_period");
    }
}
