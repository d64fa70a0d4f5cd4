//! HighSpeed TCP (RFC 3649): AIMD whose increase a(w) and decrease b(w) depend on the window,
//! so large windows recover faster, with the response function `w = 0.12 / p^0.835` above
//! `Low_Window`.
//!
//! Principles (RFC 3649 §5): at or below Low_Window = 38 segments it is Reno. Above, with
//! Low_P = 1.5/Low_Window², High_Window = 83000, High_P = 1e-7 and High_Decrease = 0.1:
//! `p(w) = exp((ln w − ln LW)/(ln HW − ln LW)·(ln HP − ln LP) + ln LP)`,
//! `b(w) = (HD − 0.5)·(ln w − ln LW)/(ln HW − ln LW) + 0.5`,
//! `a(w) = w²·p(w)·2·b(w)/(2 − b(w))`; each ACK adds `a(w)/w`, a loss multiplies by `1 − b(w)`.
//! We evaluate the formulas directly rather than Linux's 73-row table.

use super::{CongestionControl, Window};
use crate::time::Time;

/// RFC 3649 Low_Window, segments.
pub const LOW_WINDOW: f64 = 38.0;
/// RFC 3649 High_Window, segments.
pub const HIGH_WINDOW: f64 = 83000.0;
/// RFC 3649 High_P.
pub const HIGH_P: f64 = 1e-7;
/// RFC 3649 High_Decrease.
pub const HIGH_DECREASE: f64 = 0.1;

fn low_p() -> f64 {
    1.5 / (LOW_WINDOW * LOW_WINDOW)
}

fn scale(w: f64) -> f64 {
    (w.ln() - LOW_WINDOW.ln()) / (HIGH_WINDOW.ln() - LOW_WINDOW.ln())
}

/// Returns p(w), the loss rate at which HSTCP holds window `w` (RFC 3649 §5).
pub fn p(w: f64) -> f64 {
    (scale(w) * (HIGH_P.ln() - low_p().ln()) + low_p().ln()).exp()
}

/// Returns b(w), the decrease factor (0.5 at Low_Window, High_Decrease at High_Window).
pub fn b(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        0.5
    } else {
        (HIGH_DECREASE - 0.5) * scale(w) + 0.5
    }
}

/// Returns a(w), the increase in segments per RTT (1 at or below Low_Window).
pub fn a(w: f64) -> f64 {
    if w <= LOW_WINDOW {
        1.0
    } else {
        let bw = b(w);
        w * w * p(w) * 2.0 * bw / (2.0 - bw)
    }
}

/// HighSpeed TCP state: the fractional part of the window.
#[derive(Debug, Clone, Default)]
pub struct HighSpeed {
    frac: f64,
}

impl CongestionControl for HighSpeed {
    fn on_ack(&mut self, w: &mut Window, mut acked: u32, _now: Time) {
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        let cwnd = w.cwnd as f64;
        self.frac += a(cwnd) * acked as f64 / cwnd;
        if self.frac >= 1.0 {
            let inc = self.frac.floor();
            self.frac -= inc;
            w.cwnd = (w.cwnd + inc as u32).min(w.cwnd_clamp);
        }
    }

    /// `base · (1 − b(w))`, the decrease b taken at the window at the loss.
    fn ssthresh_after_loss(&mut self, w: &Window, base: u32, _now: Time) -> u32 {
        self.frac = 0.0;
        let cwnd = w.cwnd as f64;
        ((base as f64 * (1.0 - b(cwnd))) as u32).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_match_the_rfc_table_points() {
        // RFC 3649 §5 endpoints, and rows of the table RFC 3649 Appendix B tabulates (as in
        // Linux's tcp_highspeed.c): w = 118 -> a = 2, b = 0.44; w = 1058 -> a = 8, b = 0.33.
        assert_eq!(a(38.0), 1.0);
        assert_eq!(b(38.0), 0.5);
        assert!((b(HIGH_WINDOW) - 0.1).abs() < 1e-12);
        assert!((p(HIGH_WINDOW) - 1e-7).abs() / 1e-7 < 1e-9);
        assert!((a(118.0) - 2.0).abs() < 0.5, "a(118) = {}", a(118.0));
        assert!((b(118.0) - 0.44).abs() < 0.01, "b(118) = {}", b(118.0));
        assert!((a(1058.0) - 8.0).abs() < 0.5, "a(1058) = {}", a(1058.0));
        assert!((b(1058.0) - 0.33).abs() < 0.01, "b(1058) = {}", b(1058.0));
    }

    #[test]
    fn response_function_is_0_12_over_p_to_the_0_835() {
        for w in [200.0, 1000.0, 10_000.0] {
            let predicted = 0.12 / p(w).powf(0.835);
            assert!((predicted - w).abs() / w < 0.05, "w = {w}: 0.12/p^0.835 = {predicted}");
        }
    }

    #[test]
    fn behaves_as_reno_at_small_windows() {
        let mut h = HighSpeed::default();
        let mut w = Window { cwnd: 20, cwnd_cnt: 0, ssthresh: 10, cwnd_clamp: 10_000 };
        for _ in 0..20 {
            h.on_ack(&mut w, 1, Time::ZERO);
        }
        assert_eq!(w.cwnd, 21);
        assert_eq!(h.ssthresh_after_loss(&w, 21, Time::ZERO), 10);
    }
}
