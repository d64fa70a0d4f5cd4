//! CUBIC (RFC 9438): window growth as a cubic function of the time since the last
//! congestion event, independent of RTT, with a Reno-friendly floor.
//!
//! Principles (RFC 9438 §4): after a congestion event at window `W_max`, the window drops to
//! `β·W_max` and then follows `W_cubic(t) = C·(t − K)³ + W_max` with
//! `K = ∛(W_max·(1 − β)/C)` (eq. 1–2), C = 0.4 and β = 0.7; each ACK moves `cwnd` toward
//! `W_cubic(t + RTT)`, limited to 1.5·cwnd (§4.2). In the Reno-friendly region (§4.3) it grows at
//! least as an AIMD flow with `α = 3(1 − β)/(1 + β)` would. Fast convergence (§4.7) lowers
//! `W_max` when a flow loses before regaining its previous maximum. After a timeout (§4.8) the
//! epoch restarts. HyStart is not modelled (off, as the issue asks). Windows are in segments;
//! the fractional growth goes through Linux's "one segment per `cnt` ACKs" counter.

use super::{CongestionControl, Window};
use crate::time::{Duration, Time};

/// RFC 9438's constant C (segments / s³).
pub const C: f64 = 0.4;
/// RFC 9438's multiplicative decrease factor β_cubic.
pub const BETA: f64 = 0.7;

/// CUBIC state.
#[derive(Debug, Clone, Default)]
pub struct Cubic {
    /// Window before the last congestion event, segments (`W_max`).
    pub w_max: f64,
    /// `W_max` of the event before that, for fast convergence (`W_last_max`).
    w_last_max: f64,
    /// Start of the current congestion-avoidance epoch; `None` until the first ACK after
    /// a congestion event.
    epoch_start: Option<Time>,
    /// Time for the window to grow back to `W_max`, seconds (`K`).
    pub k: f64,
    /// The Reno-friendly window estimate, segments (`W_est`).
    w_est: f64,
    /// Latest smoothed RTT, fed by the sender.
    pub srtt: Duration,
}

impl Cubic {
    /// Returns `W_cubic(t)` for `t` seconds into the epoch (RFC 9438 eq. 1).
    pub fn w_cubic(&self, t: f64) -> f64 {
        C * (t - self.k).powi(3) + self.w_max
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, w: &mut Window, mut acked: u32, now: Time) {
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = w.cwnd as f64;
        let start = *self.epoch_start.get_or_insert_with(|| {
            // First ACK of a new epoch (e.g. after slow start with no loss yet): start the
            // curve at the current window.
            if self.w_max < cwnd {
                self.k = 0.0;
                self.w_max = cwnd;
            }
            self.w_est = cwnd;
            now
        });
        let t = (now - start).as_secs_f64() + self.srtt.as_secs_f64();
        let target = self.w_cubic(t).clamp(cwnd, 1.5 * cwnd);
        // Reno-friendly estimate (§4.3): grows by α per window of ACKs.
        let alpha = 3.0 * (1.0 - BETA) / (1.0 + BETA);
        self.w_est += alpha * acked as f64 / cwnd;
        let cnt = if self.w_est > target && self.w_est > cwnd {
            cwnd / (self.w_est - cwnd)
        } else if target > cwnd {
            cwnd / (target - cwnd)
        } else {
            100.0 * cwnd // at the plateau: grow very slowly (Linux uses 100 × cwnd)
        };
        w.additive_increase(cnt.max(1.0).min(u32::MAX as f64) as u32, acked);
    }

    /// β times the reduction base; W_max (fast convergence, §4.7) from the window at the loss.
    fn ssthresh_after_loss(&mut self, w: &Window, base: u32, _now: Time) -> u32 {
        let cwnd = w.cwnd as f64;
        // Fast convergence (§4.7).
        self.w_max = if cwnd < self.w_last_max { cwnd * (1.0 + BETA) / 2.0 } else { cwnd };
        self.w_last_max = cwnd;
        self.k = (self.w_max * (1.0 - BETA) / C).cbrt();
        self.epoch_start = None;
        ((base as f64 * BETA) as u32).max(2)
    }

    /// CUBIC has no `min_cwnd` hook in Linux 2.6.26: rate-halving stops at ssthresh.
    fn reduction_floor(&self, ssthresh: u32) -> u32 {
        ssthresh
    }

    /// RFC 9438 §4.8: after a timeout the first congestion-avoidance epoch uses K = 0 and
    /// W_max = the window at its start, i.e. convex growth from there — not a race back to a
    /// W_max from before the timeout.
    fn on_timeout(&mut self, _w: &Window, _now: Time) {
        self.epoch_start = None;
        self.w_max = 0.0;
        self.k = 0.0;
    }

    fn on_rtt(&mut self, srtt: Duration) {
        self.srtt = srtt;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k_and_the_curve_match_the_rfc_formula() {
        let mut c = Cubic::default();
        let w = Window::new(100, 50, 100_000, false);
        let ss = c.ssthresh_after_loss(&w, 100, Time::ZERO);
        assert_eq!(ss, 70);
        // K = cbrt(100 * 0.3 / 0.4) = cbrt(75) = 4.217 s.
        assert!((c.k - 75f64.cbrt()).abs() < 1e-12);
        assert!((c.w_cubic(0.0) - 70.0).abs() < 1e-9, "starts at beta * W_max");
        assert!((c.w_cubic(c.k) - 100.0).abs() < 1e-9, "back at W_max at K");
        assert!((c.w_cubic(c.k + 2.0) - (100.0 + 0.4 * 8.0)).abs() < 1e-9);
    }

    #[test]
    fn window_follows_the_cubic_curve_after_a_loss() {
        // Feed one ACK per segment every RTT and compare with W_cubic(t + RTT).
        let rtt = Duration::from_ms(100);
        let mut c = Cubic { srtt: rtt, ..Cubic::default() };
        let mut w = Window::new(100, 1000, 100_000, false);
        w.ssthresh = c.ssthresh_after_loss(&w, 100, Time::ZERO);
        w.cwnd = w.ssthresh;
        let mut now = Time::ZERO;
        let mut checked = 0;
        for round in 0..80 {
            let acks = w.cwnd;
            for i in 0..acks {
                let t = now + Duration::from_ns(rtt.as_ns() * i as u64 / acks as u64);
                c.on_ack(&mut w, 1, t);
            }
            now += rtt;
            let t = round as f64 * 0.1;
            if [1.0, 2.0, 4.0, 6.0].iter().any(|x| (t - x).abs() < 1e-9) {
                let expected = c.w_cubic(t + 0.1);
                let got = w.cwnd as f64;
                assert!((got - expected).abs() / expected < 0.05, "t={t}: cwnd {got} vs W_cubic {expected:.1}");
                checked += 1;
            }
        }
        assert_eq!(checked, 4);
    }

    #[test]
    fn after_a_timeout_growth_restarts_convex_from_the_current_window() {
        let rtt = Duration::from_ms(40);
        let mut c = Cubic { srtt: rtt, ..Cubic::default() };
        let big = Window::new(200, 1000, 100_000, false);
        c.ssthresh_after_loss(&big, 200, Time::ZERO);
        c.on_timeout(&big, Time::ZERO);
        let mut w = Window::new(36, 36, 100_000, false);
        let mut now = Time::ZERO;
        for _ in 0..5 {
            for _ in 0..w.cwnd {
                c.on_ack(&mut w, 1, now);
            }
            now += rtt;
        }
        // Five RTTs into a convex epoch from 36: C (0.24 s)^3 is far below one segment,
        // so growth comes from the Reno-friendly term (about 0.53 segments per RTT).
        assert!(w.cwnd <= 40, "cwnd {} raced toward the pre-timeout W_max", w.cwnd);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losing_below_the_last_maximum() {
        let mut c = Cubic::default();
        let w = |cwnd| Window::new(cwnd, 2, 100_000, false);
        c.ssthresh_after_loss(&w(100), 100, Time::ZERO);
        c.ssthresh_after_loss(&w(80), 80, Time::ZERO);
        assert!((c.w_max - 80.0 * 1.7 / 2.0).abs() < 1e-9);
    }
}
