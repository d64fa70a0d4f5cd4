//! HighSpeed TCP (RFC 3649): AIMD whose increase a(w) and decrease b(w) depend on the window,
//! so large windows recover faster, with the response function `w = 0.12 / p^0.835` above
//! `Low_Window`.
//!
//! Principles (RFC 3649 §5): at or below Low_Window = 38 segments it is Reno. Above, with
//! Low_P = 1.5/Low_Window², High_Window = 83000, High_P = 1e-7 and High_Decrease = 0.1:
//! `p(w) = exp((ln w − ln LW)/(ln HW − ln LW)·(ln HP − ln LP) + ln LP)`,
//! `b(w) = (HD − 0.5)·(ln w − ln LW)/(ln HW − ln LW) + 0.5`,
//! `a(w) = w²·p(w)·2·b(w)/(2 − b(w))`; each ACK adds `a(w)/w`, a loss multiplies by `1 − b(w)`.
//!
//! `p(w)` is §5's log-log line through (Low_Window, Low_P) and (High_Window, High_P), the
//! function ns-2's `TcpAgent::increase_param` evaluates (`p = exp(p1 + ln(cwnd)·p2)`,
//! `tcp/tcp.cc`). It is *not* the rounded closed form `p ≈ 0.078/w^1.2` from which RFC 3649
//! Appendix B's table (Linux's `tcp_highspeed.c`, ns-3's `TcpHighSpeed`) was computed: the
//! line gives a(w) 3–4 % higher (a(118) = 2.094 against the table's 2, a(10661) = 30.94
//! against 30). We evaluate the formulas directly, never the table.
//!
//! Two congestion controls share a(w), b(w) and the growth:
//! - [`HighSpeed`] (`highspeed`): every loss multiplies by `1 − b(w)`, b(w) = 0.5 at or
//!   below Low_Window.
//! - [`HighSpeedNs2`] (`highspeed_ns2`): the decrease of ns-2's `TcpAgent::slowdown` with
//!   `windowOption_ 8`, which Augé & Roberts (2006) ran: ssthresh is `cwnd/2` for the
//!   connection's first decrease, a loss in slow start and at a timeout itself (ns-2's
//!   `timeout` sets `last_cwnd_action_ = CWND_ACTION_TIMEOUT` just before its `slowdown`,
//!   while every `dupack_action` sets `CWND_ACTION_DUPACK` before its own, so the fast
//!   retransmit after a timeout takes b(w) like any other); otherwise `cwnd − b(cwnd)·cwnd` above Low_Window, and at or below it
//!   `decrease_num_·cwnd`, where `decrease_num_` starts at 0.5 but ns-2 overwrites it with
//!   the last b(w) it computed above Low_Window (a multiplier read as a decrease: after a
//!   decrease at w = 100, b = 0.45, a later loss at w ≤ 38 keeps 0.45·w, not 0.55·w). We
//!   keep that quirk because it is what ns-2 did; it matters only for a loss at or below
//!   38 segments after one above. b(w) is not clamped beyond High_Window (ns-2's clamp is
//!   commented out). ns-2's `cwnd_range_ 0` (recompute a(w) on every ACK) and
//!   `max_ssthresh_ 0` (no Limited Slow-Start) are its defaults and ours.

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

/// Grows `w` for `acked` segments: slow start below ssthresh, then `a(w)/w` per segment,
/// the fractional part kept in `frac` (shared by both readings).
fn grow(frac: &mut f64, w: &mut Window, mut acked: u32) {
    if w.in_slow_start() {
        acked = w.slow_start(acked);
        if acked == 0 {
            return;
        }
    }
    let cwnd = w.cwnd as f64;
    *frac += a(cwnd) * acked as f64 / cwnd;
    if *frac >= 1.0 {
        let inc = frac.floor();
        *frac -= inc;
        w.cwnd = (w.cwnd + inc as u32).min(w.cwnd_clamp);
    }
}

/// HighSpeed TCP state: the fractional part of the window.
#[derive(Debug, Clone, Default)]
pub struct HighSpeed {
    frac: f64,
}

impl CongestionControl for HighSpeed {
    fn on_ack(&mut self, w: &mut Window, acked: u32, _now: Time) {
        grow(&mut self.frac, w, acked);
    }

    /// `base · (1 − b(w))`, the decrease b taken at the window at the loss.
    fn ssthresh_after_loss(&mut self, w: &Window, base: u32, _now: Time) -> u32 {
        self.frac = 0.0;
        let cwnd = w.cwnd as f64;
        ((base as f64 * (1.0 - b(cwnd))) as u32).max(2)
    }
}

/// HighSpeed TCP as ns-2's `TcpAgent` (`windowOption_ 8`) does it: the growth of
/// [`HighSpeed`], the decrease of `slowdown` (see the module doc).
#[derive(Debug, Clone)]
pub struct HighSpeedNs2 {
    frac: f64,
    /// ns-2 `decrease_num_`: 0.5, then the last b(w) computed above Low_Window.
    decrease_num: f64,
    /// ns-2 `first_decrease_`: no decrease yet.
    first_decrease: bool,
    /// ns-2 `last_cwnd_action_ == CWND_ACTION_TIMEOUT` during a timeout's own `slowdown`.
    timing_out: bool,
    /// With ns-2's window arithmetic, `cwnd_` after the last decrease (`CLOSE_CWND_HALF`).
    ns2_after: f64,
}

impl Default for HighSpeedNs2 {
    /// Returns a connection's state before its first decrease (ns-default.tcl
    /// `decrease_num_ 0.5`).
    fn default() -> Self {
        HighSpeedNs2 { frac: 0.0, decrease_num: 0.5, first_decrease: true, timing_out: false, ns2_after: 0.0 }
    }
}

impl CongestionControl for HighSpeedNs2 {
    fn on_ack(&mut self, w: &mut Window, acked: u32, _now: Time) {
        // ns-2's arithmetic: `cwnd_ += increase_param()`, a(cwnd_)/cwnd_ above Low_Window.
        if !w.ns2_open(|c| if c <= LOW_WINDOW { 1.0 / c } else { a(c) / c }) {
            grow(&mut self.frac, w, acked);
        }
    }

    /// ns-2 `slowdown(CLOSE_SSTHRESH_HALF | ...)` on `windowd()` (= cwnd; the flight is not
    /// used), truncated to whole segments as ns-2's `(int)` casts do, at least 2. With ns-2's
    /// arithmetic, on the double `cwnd_` itself, and `cwnd_` after it recorded
    /// (`CLOSE_CWND_HALF`: the half on a first decrease, in slow start or while
    /// `decrease_num_` is 0.5, else the decreased window).
    fn ssthresh_after_loss(&mut self, w: &Window, _flight: u32, _now: Time) -> u32 {
        self.frac = 0.0;
        if let (Some(c), Some(windowd)) = (w.ns2_cwnd, w.ns2_windowd()) {
            let halfwin = windowd / 2.0;
            let decreasewin = if c > LOW_WINDOW {
                self.decrease_num = b(c);
                windowd - self.decrease_num * windowd
            } else {
                self.decrease_num * windowd
            };
            let slow_start = c < f64::from(w.ssthresh);
            let halve = self.first_decrease || slow_start || self.timing_out;
            self.ns2_after =
                if self.first_decrease || slow_start || self.decrease_num == 0.5 { halfwin } else { decreasewin };
            self.first_decrease = false;
            self.timing_out = false;
            return ((if halve { halfwin } else { decreasewin }) as u32).max(2);
        }
        let cwnd = w.cwnd as f64;
        // Computed before the choice below, so even a halving records b(w) (as ns-2 does).
        let decreasewin = if cwnd > LOW_WINDOW {
            self.decrease_num = b(cwnd);
            cwnd - self.decrease_num * cwnd
        } else {
            self.decrease_num * cwnd
        };
        let halve = self.first_decrease || w.in_slow_start() || self.timing_out;
        self.first_decrease = false;
        self.timing_out = false;
        let ssthresh = if halve { cwnd / 2.0 } else { decreasewin };
        (ssthresh as u32).max(2)
    }

    fn ns2_window_after_loss(&self, _windowd: f64) -> f64 {
        self.ns2_after
    }

    fn on_timeout_start(&mut self) {
        self.timing_out = true;
    }

    fn on_timeout(&mut self, _w: &Window, _now: Time) {
        self.timing_out = false;
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
    fn a_w_is_ns2_s_log_log_line_not_the_table_s_closed_form() {
        // ALGORITHM-NOTES §6: ns-2's interpolation gives a(118) = 2.094 and a(10661) =
        // 30.94; the closed form 0.078/w^1.2 behind RFC 3649's table gives 2.006 and 30.01.
        assert!((a(118.0) - 2.094).abs() < 0.0005, "a(118) = {}", a(118.0));
        assert!((a(10661.0) - 30.94).abs() < 0.005, "a(10661) = {}", a(10661.0));
        let closed = |w: f64| w * w * (0.078 / w.powf(1.2)) * 2.0 * b(w) / (2.0 - b(w));
        assert!((closed(118.0) - 2.006).abs() < 0.0005);
        assert!(a(118.0) / closed(118.0) > 1.03 && a(10661.0) / closed(10661.0) > 1.03);
    }

    fn win(cwnd: u32, ssthresh: u32) -> Window {
        Window::new(cwnd, ssthresh, 100_000, false)
    }

    #[test]
    fn ns2_halves_on_the_first_decrease_in_slow_start_and_at_a_timeout() {
        let mut h = HighSpeedNs2::default();
        // The first decrease of the connection halves, even at a large window.
        assert_eq!(h.ssthresh_after_loss(&win(1000, 2000), 1000, Time::ZERO), 500);
        // Later decreases in congestion avoidance use b(w): 1000·(1 − 0.330) = 670.
        let w = win(1000, 500);
        assert_eq!(h.ssthresh_after_loss(&w, 1000, Time::ZERO), (1000.0 * (1.0 - b(1000.0))) as u32);
        assert_eq!(h.ssthresh_after_loss(&w, 1000, Time::ZERO), 670);
        // A loss in slow start halves.
        assert_eq!(h.ssthresh_after_loss(&win(1000, 1500), 1000, Time::ZERO), 500);
        // A timeout halves at the timeout itself (ns-2's `timeout` marks the action a timeout
        // before its `slowdown`); the fast retransmit after it takes b(w) (`dupack_action`
        // marks a duplicate-ACK action before its own).
        h.on_timeout_start();
        assert_eq!(h.ssthresh_after_loss(&w, 1000, Time::ZERO), 500);
        h.on_timeout(&win(1, 500), Time::ZERO);
        assert_eq!(h.ssthresh_after_loss(&w, 1000, Time::ZERO), 670);
        // A timeout that does not lower ssthresh leaves no mark behind either.
        h.on_timeout_start();
        h.on_timeout(&win(1, 500), Time::ZERO);
        assert_eq!(h.ssthresh_after_loss(&w, 1000, Time::ZERO), 670);
    }

    #[test]
    fn ns2_keeps_the_last_b_as_its_multiplier_at_or_below_low_window() {
        let mut h = HighSpeedNs2::default();
        // Before any decrease above Low_Window, decrease_num_ = 0.5: 30 → 15 (as Reno).
        h.ssthresh_after_loss(&win(30, 10), 30, Time::ZERO); // the first decrease
        assert_eq!(h.ssthresh_after_loss(&win(30, 10), 30, Time::ZERO), 15);
        // A decrease at w = 100 sets decrease_num_ = b(100) = 0.450; at w = 30 ns-2 then
        // keeps 0.450·30 = 13 segments, not (1 − 0.450)·30 = 16.
        h.ssthresh_after_loss(&win(100, 50), 100, Time::ZERO);
        assert!((h.decrease_num - b(100.0)).abs() < 1e-12);
        assert_eq!(h.ssthresh_after_loss(&win(30, 10), 30, Time::ZERO), (30.0 * b(100.0)) as u32);
        assert_eq!(h.ssthresh_after_loss(&win(30, 10), 30, Time::ZERO), 13);
        // Never below 2.
        assert_eq!(h.ssthresh_after_loss(&win(3, 2), 3, Time::ZERO), 2);
    }

    #[test]
    fn both_readings_grow_alike() {
        let (mut rfc, mut ns2) = (HighSpeed::default(), HighSpeedNs2::default());
        let (mut w1, mut w2) = (win(500, 100), win(500, 100));
        for _ in 0..5000 {
            rfc.on_ack(&mut w1, 1, Time::ZERO);
            ns2.on_ack(&mut w2, 1, Time::ZERO);
        }
        assert_eq!(w1, w2);
        assert!(w1.cwnd > 500 + 5000 * 4 / 600, "a(500) ≈ 4.9 segments per window: {}", w1.cwnd);
    }

    #[test]
    fn behaves_as_reno_at_small_windows() {
        let mut h = HighSpeed::default();
        let mut w = Window::new(20, 10, 10_000, false);
        for _ in 0..20 {
            h.on_ack(&mut w, 1, Time::ZERO);
        }
        assert_eq!(w.cwnd, 21);
        assert_eq!(h.ssthresh_after_loss(&w, 21, Time::ZERO), 10);
    }
}
