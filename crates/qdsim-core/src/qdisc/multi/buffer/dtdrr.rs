//! `dtdrr`: Dynamic Threshold DRR (Kantawala & Turner 2005, §3.1, after Choudhury & Hahne's
//! dynamic queue length thresholds, their ref. 9): an arrival for queue i is discarded if
//! `Q_i(t) ≥ α·F(t)` (their equation 1), where `F = B − Σ_j Q_j` is the free buffer; nothing
//! already queued is ever dropped. α = 2 (`dtdrr_alpha`), the value of all their runs.
//!
//! Units: `Q_i` and `F` are measured in the unit `limit` is written in — packets, as the
//! paper sizes its buffers (ALGORITHM-NOTES §1), or bytes. Both are taken before the arrival
//! is queued. An arrival that does not fit (`F` = 0 packets, or `F` below its size in bytes)
//! is dropped as `overflow` — with `F` = 0 equation 1 holds for every queue anyway, so this
//! only names the cause; otherwise equation 1 drops it as `dynamic_threshold`.
//!
//! α is taken as the decimal fraction it is written as ([`Alpha`]), so the boundary
//! `Q_i = α·F` is decided exactly (1.1 × 50 is 55, not 55.00000000000001).

use super::push_out::Limit;
use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};

/// The multiplier α of a dynamic threshold, as an exact fraction `num / den`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alpha {
    num: u128,
    den: u128,
}

/// The largest α accepted: the threshold's arithmetic stays exact in `u128` below it.
const ALPHA_MAX: f64 = 1e6;

impl Alpha {
    /// Returns α as the decimal fraction with the fewest digits (up to 9) that is the same
    /// `f64`; beyond 9 decimals, α rounded to 9.
    ///
    /// # Errors
    /// α not finite, not > 0 or above 10⁶, named by `key`.
    pub fn new(alpha: f64, key: &str) -> Result<Alpha, ConfigError> {
        if !(alpha.is_finite() && alpha > 0.0 && alpha <= ALPHA_MAX) {
            return Err(ConfigError::new(key, alpha, "a multiplier > 0 and at most 1e6"));
        }
        let mut den: u128 = 1;
        for _ in 0..=9 {
            let num = (alpha * den as f64).round();
            if num / den as f64 == alpha {
                return Ok(Alpha { num: num as u128, den });
            }
            den *= 10;
        }
        Ok(Alpha { num: (alpha * 1e9).round().max(1.0) as u128, den: 1_000_000_000 })
    }

    /// Returns whether `q ≥ α·f`.
    pub fn reached(self, q: u64, f: u64) -> bool {
        q as u128 * self.den >= self.num * f as u128
    }
}

/// DTDRR: discard an arrival whose queue holds at least α times the free buffer.
#[derive(Debug, Clone, PartialEq)]
pub struct Dtdrr {
    /// `B` (required).
    pub limit: Limit,
    /// α (`dtdrr_alpha`).
    pub alpha: Alpha,
}

impl Policy for Dtdrr {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "dtdrr_alpha",
            unit: "float",
            default: "2.0",
            help: "dtdrr: drop an arrival when its queue >= alpha x the free buffer (units of `limit`)",
        },
    ];

    fn check_keys(p: &FqParams) -> Result<(), ConfigError> {
        Alpha::new(p.dtdrr_alpha, "dtdrr_alpha").map(|_| ())
    }

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        let alpha = Alpha::new(p.dtdrr_alpha, "dtdrr_alpha")?;
        let limit = Limit::from_params(p, true)?.expect("required");
        Ok(Dtdrr { limit, alpha })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        _sched: &mut S,
        _ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        if !self.limit.fits(queues, pkt) {
            return Err(DropReason::Overflow);
        }
        if self.alpha.reached(self.limit.len(queues, q), self.limit.free(queues)) {
            return Err(DropReason::DynamicThreshold);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::multi::buffer::testing::{drops, fq, seq_pkt};
    use crate::qdisc::multi::Multi;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscParams;

    #[test]
    fn alpha_is_the_decimal_fraction_it_is_written_as() {
        let a = Alpha::new(0.1, "k").unwrap();
        assert_eq!((a.num, a.den), (1, 10));
        assert!(a.reached(1, 10) && !a.reached(1, 11));
        let b = Alpha::new(1.1, "k").unwrap();
        let (alpha, f) = (std::hint::black_box(1.1f64), std::hint::black_box(50.0f64));
        assert!(55.0 < alpha * f, "floating point would miss the boundary");
        assert!(b.reached(55, 50) && !b.reached(54, 50));
        assert_eq!(Alpha::new(2.0, "k").unwrap(), Alpha { num: 2, den: 1 });
        assert_eq!(Alpha::new(0.375, "k").unwrap(), Alpha { num: 375, den: 1000 });
    }

    #[test]
    fn an_arrival_is_dropped_exactly_from_q_i_equal_to_alpha_times_f() {
        // B = 10 packets, α = 2. Queue 0 grows alone: an arrival finding Q_0 = q queued (F =
        // 10 − q) is dropped iff q ≥ 2·(10 − q), i.e. q ≥ 7: 6 ≥ 2·4 fails, 7 ≥ 2·3 holds.
        let mut h = Harness::new(Multi::drr(fq("dtdrr", |p| p.limit_pkts = Some(10))));
        for s in 0..9 {
            h.enqueue(seq_pkt(0, 1000, s));
        }
        assert_eq!(h.q.queues.total_pkts(), 7);
        assert_eq!(
            drops(&h),
            vec![(0, 7, DropReason::DynamicThreshold, true), (0, 8, DropReason::DynamicThreshold, true)]
        );
        // Exactly at the boundary: Q_0 = 6 = 2·F with F = 3 after another queue takes one.
        let mut h = Harness::new(Multi::drr(fq("dtdrr", |p| p.limit_pkts = Some(10))));
        for s in 0..6 {
            h.enqueue(seq_pkt(0, 1000, s));
        }
        h.enqueue(seq_pkt(1, 1000, 10)); // Q_1 = 0 < 2·4: queued; now F = 3, Q_0 = 6
        h.enqueue(seq_pkt(0, 1000, 6)); // 6 ≥ 6: dropped
        assert_eq!(drops(&h), vec![(0, 6, DropReason::DynamicThreshold, true)]);
        h.enqueue(seq_pkt(1, 1000, 11)); // Q_1 = 1 < 6: queued
        assert_eq!(h.q.queues.total_pkts(), 8);
    }

    #[test]
    fn in_bytes_the_threshold_and_the_fit_are_in_bytes() {
        // B = 10 000 bytes, α = 2: queue 0 holds 6 000 B, F = 4 000; a 1 000-byte arrival for
        // queue 1 is queued (Q_1 = 0), leaving F = 3 000: queue 0 reaches 2·F (6 000 ≥ 6 000).
        let mut h = Harness::new(Multi::drr(fq("dtdrr", |p| p.limit_bytes = Some(10_000))));
        for s in 0..3 {
            h.enqueue(seq_pkt(0, 2000, s));
        }
        h.enqueue(seq_pkt(1, 1000, 10));
        h.enqueue(seq_pkt(0, 100, 3)); // Q_0 = 6000 ≥ 2·3000
        h.enqueue(seq_pkt(2, 1000, 20)); // Q_2 = 0: queued, F = 2000
        h.enqueue(seq_pkt(3, 2500, 30)); // does not fit in 2000: overflow
        assert_eq!(drops(&h), vec![(0, 3, DropReason::DynamicThreshold, true), (3, 30, DropReason::Overflow, true)]);
    }

    #[test]
    fn bad_parameters_are_refused_by_key() {
        let key = |f: fn(&mut FqParams)| fq("dtdrr", f).validate().unwrap_err().key;
        assert_eq!(key(|p| p.limit_pkts = None), "limit");
        assert_eq!(key(|p| p.dtdrr_alpha = 0.0), "dtdrr_alpha");
        assert_eq!(key(|p| p.dtdrr_alpha = -2.0), "dtdrr_alpha");
        assert_eq!(key(|p| p.dtdrr_alpha = f64::INFINITY), "dtdrr_alpha");
    }
}
