//! `dsdrr`: Discard State DRR (Kantawala & Turner 2005, §3.2 and Figure 1): DTDRR's dynamic
//! threshold with hysteresis. A queue over the threshold is *marked* for discard, at most `W`
//! queues at a time; every arrival for a marked queue is discarded until the queue empties;
//! `W` adapts every period `T`. Only arrivals are dropped.
//!
//! Figure 1, as implemented (its three conditions are OR-ed, so all are evaluated):
//! ```text
//! W ← ⌈W₀·n⌉,  W_max ← ⌈W_max·n⌉            (n = number of queues; W₀ = 10 %, W_max = 50 %)
//! Enqueue p for queue i:
//!   if F = 0 ("full": no room for p): set the overflow bit
//!   if Q_i ≥ α·F and n_mark < W: mark i
//!   if i is marked: discard p (discard_state); else if full: discard p (overflow)
//!   else queue p
//! Dequeue: a queue that becomes empty has its discard bit cleared
//! Every T: if overflow: (if W < W_max: W ← W + 2)  else if n_mark < W: W ← n_mark + 1
//! ```
//! Constants (§3.2): α = 0.1, T = 1 s, W₀ = 10 % and W_max = 50 % of the number of queues.
//!
//! Readings where the paper is silent (ALGORITHM-NOTES §1, marked R there):
//! - The overflow bit is cleared at the end of every period: it reports "the last time
//!   period" (§3.2: "if there is no overflow in the last time period").
//! - "Full" (`F(t) = 0`) is: the arrival does not fit — `F` = 0 packets, or `F` below its
//!   size in bytes. `Q_i` and `F` are taken before the arrival, in the unit of `limit`.
//! - W₀·n and W_max·n are rounded up, and W ≥ 1, so a few queues still allow one mark.
//! - `W < W_max` is tested before adding 2, as printed, so W may end one above W_max.
//! - The number of queues n: with the `hashed` classifier, `buckets` (the paper's Fig. 6
//!   "buckets"); per flow (or per user), the queues that have received a packet so far — the
//!   flows seen on this link, which is the paper's "number of queues (flows)" for its
//!   per-flow runs; a configured bound does not exist there. As flows keep arriving, W
//!   follows ⌈W₀·n⌉ until the first period ends, and W_max always follows ⌈W_max·n⌉.
//! - An empty queue is never left marked: with F = 0 an arrival for an empty queue meets
//!   `Q_i ≥ α·F` (0 ≥ 0), but a bit set on an empty queue would never be cleared (only a
//!   dequeue that empties the queue clears it) and would starve its flow for good; such an
//!   arrival is dropped as overflow, and its queue stays unmarked.
//! - Periods are counted lazily from the first packet (`Periods`); an idle stretch of k
//!   periods is k periods without overflow.

use super::dtdrr::Alpha;
use super::push_out::{Limit, Periods};
use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::time::{Duration, Time};

/// DSDRR: dynamic threshold with per-queue discard bits and an adaptive bound `W`.
#[derive(Debug, Clone, PartialEq)]
pub struct Dsdrr {
    /// `B` (required).
    pub limit: Limit,
    /// α (`dsdrr_alpha`).
    pub alpha: Alpha,
    /// `W₀` as a fraction of the number of queues (`dsdrr_w0`).
    w0: f64,
    /// `W_max` as a fraction of the number of queues (`dsdrr_w_max`).
    w_max: f64,
    periods: Periods,
    /// The number of queues when it is configured (`buckets` of the hashed classifier).
    buckets: Option<u64>,
    /// Which queues have received a packet, and how many.
    seen: Vec<bool>,
    n_seen: u64,
    /// The discard bit of each queue.
    marked: Vec<bool>,
    /// Queues with the discard bit set.
    n_mark: u64,
    /// `W`; `None` until the first period ends (it then follows `⌈W₀·n⌉`).
    w: Option<u64>,
    /// The overflow bit: some arrival found the buffer full in this period.
    overflow: bool,
}

/// Returns `⌈fraction · n⌉`, at least 1.
fn share(fraction: f64, n: u64) -> u64 {
    ((fraction * n as f64).ceil() as u64).max(1)
}

impl Dsdrr {
    /// Returns the number of queues `n`.
    pub fn queues(&self) -> u64 {
        self.buckets.unwrap_or(self.n_seen)
    }

    /// Returns the bound `W` on marked queues.
    pub fn window(&self) -> u64 {
        self.w.unwrap_or_else(|| share(self.w0, self.queues()))
    }

    /// Returns `W`'s ceiling, `⌈W_max · n⌉`.
    pub fn window_max(&self) -> u64 {
        share(self.w_max, self.queues())
    }

    /// Returns the number of queues marked for discard.
    #[cfg(test)]
    pub fn n_mark(&self) -> u64 {
        self.n_mark
    }

    /// Applies every period boundary up to `now` (Figure 1, "Every time period T").
    fn roll(&mut self, now: Time) {
        let k = self.periods.elapsed(now);
        if k == 0 {
            return;
        }
        let mut w = self.window();
        if self.overflow {
            if w < self.window_max() {
                w += 2;
            }
        } else if self.n_mark < w {
            w = self.n_mark + 1;
        }
        self.overflow = false;
        // The other k − 1 periods had no event, so no overflow.
        if k > 1 && self.n_mark < w {
            w = self.n_mark + 1;
        }
        self.w = Some(w);
    }

    /// Notes queue `q`, growing the per-queue state.
    fn see(&mut self, q: usize) {
        if self.marked.len() <= q {
            self.marked.resize(q + 1, false);
            self.seen.resize(q + 1, false);
        }
        if !self.seen[q] {
            self.seen[q] = true;
            self.n_seen += 1;
        }
    }
}

impl Policy for Dsdrr {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "dsdrr_alpha",
            unit: "float",
            default: "0.1",
            help: "dsdrr: mark a queue when it holds >= alpha x the free buffer (units of `limit`)",
        },
        ParamInfo { name: "dsdrr_period", unit: "time", default: "1s", help: "dsdrr: period T of W's adaptation" },
        ParamInfo {
            name: "dsdrr_w0",
            unit: "float",
            default: "0.1",
            help: "dsdrr: initial W as a fraction of the number of queues (rounded up)",
        },
        ParamInfo {
            name: "dsdrr_w_max",
            unit: "float",
            default: "0.5",
            help: "dsdrr: W_max as a fraction of the number of queues (rounded up)",
        },
    ];

    fn check_keys(p: &FqParams) -> Result<(), ConfigError> {
        Alpha::new(p.dsdrr_alpha, "dsdrr_alpha")?;
        if p.dsdrr_period_ns == 0 {
            return Err(ConfigError::new("dsdrr_period", "0s", "a period > 0"));
        }
        if !(p.dsdrr_w_max > 0.0 && p.dsdrr_w_max <= 1.0) {
            return Err(ConfigError::new("dsdrr_w_max", p.dsdrr_w_max, "a fraction of the queues in (0, 1]"));
        }
        if !(p.dsdrr_w0 > 0.0 && p.dsdrr_w0 <= p.dsdrr_w_max) {
            return Err(ConfigError::new(
                "dsdrr_w0",
                p.dsdrr_w0,
                format!("a fraction of the queues in (0, dsdrr_w_max = {}]", p.dsdrr_w_max),
            ));
        }
        Ok(())
    }

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        Self::check_keys(p)?;
        let alpha = Alpha::new(p.dsdrr_alpha, "dsdrr_alpha")?;
        let limit = Limit::from_params(p, true)?.expect("required");
        Ok(Dsdrr {
            limit,
            alpha,
            w0: p.dsdrr_w0,
            w_max: p.dsdrr_w_max,
            periods: Periods::new(Duration::from_ns(p.dsdrr_period_ns)),
            buckets: (p.classifier == "hashed").then_some(p.buckets.max(1) as u64),
            seen: Vec::new(),
            n_seen: 0,
            marked: Vec::new(),
            n_mark: 0,
            w: None,
            overflow: false,
        })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        _sched: &mut S,
        _ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        // The port stamps an arrival's enqueue time with the current time.
        self.roll(pkt.enq_time);
        self.see(q);
        let full = !self.limit.fits(queues, pkt);
        self.overflow |= full;
        let q_i = self.limit.len(queues, q);
        if !self.marked[q] && q_i > 0 && self.n_mark < self.window() && self.alpha.reached(q_i, self.limit.free(queues))
        {
            self.marked[q] = true;
            self.n_mark += 1;
        }
        if self.marked[q] {
            Err(DropReason::DiscardState)
        } else if full {
            Err(DropReason::Overflow)
        } else {
            Ok(())
        }
    }

    fn sent(&mut self, q: usize, _p: &Packet, queues: &Queues, now: Time) {
        self.roll(now);
        if self.marked.get(q) == Some(&true) && queues.is_empty(q) {
            self.marked[q] = false;
            self.n_mark -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::multi::buffer::testing::{drops, fq, seq_pkt};
    use crate::qdisc::multi::buffer::BufferPolicy;
    use crate::qdisc::multi::Multi;
    use crate::qdisc::sched::Drr;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscParams;

    const MS: u64 = 1_000_000;

    fn state(h: &Harness<Multi<Drr>>) -> &Dsdrr {
        match &h.q.buffer {
            BufferPolicy::Dsdrr(d) => d,
            other => panic!("{other:?}"),
        }
    }

    /// Ten flows with one packet each in a 12-packet buffer (n = 10: W = 1, W_max = 5),
    /// periods of 1 ms, α = 0.1.
    fn ten_queued() -> Harness<Multi<Drr>> {
        let mut h = Harness::new(Multi::drr(fq("dsdrr", |p| {
            p.limit_pkts = Some(12);
            p.dsdrr_period_ns = MS;
        })));
        for f in 0..10 {
            h.enqueue(seq_pkt(f, 1000, 10 * f as u64));
        }
        assert!(h.drops.is_empty(), "an empty queue is never over the threshold");
        h
    }

    #[test]
    fn marks_at_most_w_queues() {
        let mut h = ten_queued();
        assert_eq!((state(&h).window(), state(&h).window_max()), (1, 5));
        // F = 2: flow 9's queue (1 ≥ 0.1·2) is marked and the arrival dropped; flows 8 and 7
        // are over the threshold too, but W = 1 is taken: they are queued. Then the buffer is
        // full: flow 6's arrival is an overflow drop, and its queue stays unmarked.
        for f in [9, 8, 7, 6] {
            h.enqueue(seq_pkt(f, 1000, 10 * f as u64 + 1));
        }
        assert_eq!(drops(&h), vec![(9, 91, DropReason::DiscardState, true), (6, 61, DropReason::Overflow, true)]);
        assert_eq!(state(&h).n_mark(), 1);
    }

    #[test]
    fn a_marked_queue_s_arrivals_are_dropped_until_it_empties() {
        let mut h = ten_queued();
        h.enqueue(seq_pkt(9, 1000, 91)); // marks queue 9
                                         // Free room appears as the link sends, yet flow 9 loses every arrival until its
                                         // queue has sent its last packet.
        let mut seq = 92;
        loop {
            let p = h.dequeue().expect("queued");
            h.enqueue(seq_pkt(9, 1000, seq));
            if p.flow == 9 {
                break;
            }
            assert_eq!(drops(&h).last(), Some(&(9, seq, DropReason::DiscardState, true)));
            seq += 1;
        }
        assert_eq!(state(&h).n_mark(), 0);
        assert_eq!(drops(&h).last(), Some(&(9, seq - 1, DropReason::DiscardState, true)), "accepted once empty");
        assert_eq!(h.q.queues.len_pkts(9), 1);
    }

    /// Offers packets of flows 0, 1, …, 9 in turn until the buffer is full, then one more:
    /// that arrival sets the overflow bit. Returns the next flow in turn.
    fn overflow(h: &mut Harness<Multi<Drr>>, mut f: u32) -> u32 {
        loop {
            let full = h.q.queues.total_pkts() == 12;
            h.enqueue(seq_pkt(f, 1000, 0));
            f = (f + 1) % 10;
            if full {
                return f;
            }
        }
    }

    #[test]
    fn w_grows_by_two_after_a_period_with_overflow_up_to_w_max() {
        let mut h = ten_queued();
        let mut f = 0;
        let mut windows = vec![];
        for period in 0..3 {
            f = overflow(&mut h, f);
            h.now = Time((period + 1) * MS);
            h.dequeue(); // the first event after the boundary closes the period
            windows.push(state(&h).window());
        }
        // W = ⌈0.1·10⌉ = 1 → 3 → 5; then W = W_max = 5 stops growing.
        assert_eq!(windows, vec![3, 5, 5]);
    }

    #[test]
    fn w_shrinks_to_n_mark_plus_one_after_a_period_without_overflow() {
        let mut h = ten_queued();
        let mut f = 0;
        for period in 0..2 {
            f = overflow(&mut h, f);
            h.now = Time((period + 1) * MS);
            h.dequeue();
        }
        assert_eq!(state(&h).window(), 5);
        // The third period (2–3 ms) has no overflow: only departures.
        h.dequeue();
        let n_mark = state(&h).n_mark();
        assert!(n_mark < 4, "{n_mark} marked: W must shrink to show the rule");
        h.now = Time(3 * MS);
        h.dequeue();
        assert_eq!(state(&h).window(), n_mark + 1);
        // An idle stretch of many periods: W = n_mark + 1 again, with the n_mark of then.
        let n_mark = state(&h).n_mark();
        h.now = Time(50 * MS);
        h.dequeue();
        assert_eq!(state(&h).window(), n_mark + 1);
    }

    #[test]
    fn the_number_of_queues_is_buckets_when_hashed_else_the_queues_seen() {
        let h = Harness::new(Multi::drr(fq("dsdrr", |p| {
            p.limit_pkts = Some(100);
            p.classifier = "hashed".into();
            p.buckets = 25;
        })));
        assert_eq!((state(&h).window(), state(&h).window_max()), (3, 13));
        let mut h = Harness::new(Multi::drr(fq("dsdrr", |p| p.limit_pkts = Some(100))));
        assert_eq!(state(&h).window(), 1, "W >= 1 before any queue");
        for f in 0..11 {
            h.enqueue(seq_pkt(3 * f, 100, 0)); // queue ids 0, 3, ..., 30: eleven queues seen
        }
        assert_eq!((state(&h).queues(), state(&h).window(), state(&h).window_max()), (11, 2, 6));
    }

    #[test]
    fn bad_parameters_are_refused_by_key() {
        let key = |f: fn(&mut FqParams)| {
            let mut p = fq("dsdrr", |p| p.limit_pkts = Some(10));
            f(&mut p);
            p.validate().unwrap_err().key
        };
        assert_eq!(key(|p| p.limit_pkts = None), "limit");
        assert_eq!(key(|p| p.dsdrr_alpha = 0.0), "dsdrr_alpha");
        assert_eq!(key(|p| p.dsdrr_period_ns = 0), "dsdrr_period");
        assert_eq!(key(|p| p.dsdrr_w_max = 1.5), "dsdrr_w_max");
        assert_eq!(key(|p| p.dsdrr_w0 = 0.0), "dsdrr_w0");
        assert_eq!(key(|p| p.dsdrr_w0 = 0.6), "dsdrr_w0");
    }
}
