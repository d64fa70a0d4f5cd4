//! Reno AIMD (RFC 5681 §3.1): slow start, then one segment per RTT; halve on loss.
//!
//! Used by both Reno and NewReno senders; the two differ only in how the sender recovers
//! from a loss, which lives in `tcp::sender`.

use super::{CongestionControl, Window};
use crate::time::Time;

/// Reno's additive-increase / multiplicative-decrease.
#[derive(Debug, Clone, Copy, Default)]
pub struct Reno;

impl CongestionControl for Reno {
    fn on_ack(&mut self, w: &mut Window, mut acked: u32, _now: Time) {
        // ns-2's arithmetic: once per ACK, whatever it covers (`opencwnd`, increase_num_ 1).
        if w.ns2_open(|c| 1.0 / c) {
            return;
        }
        if w.in_slow_start() {
            acked = w.slow_start(acked);
            if acked == 0 {
                return;
            }
        }
        // Congestion avoidance: cwnd += 1/cwnd per ACKed segment (RFC 5681 eq. 3).
        let cwnd = w.cwnd;
        w.additive_increase(cwnd, acked);
    }

    /// RFC 5681 eq. 4, `ssthresh = max(base / 2, 2 * SMSS)` (Linux `tcp_reno_ssthresh`,
    /// ns-2 `slowdown`, ns-3 `TcpNewReno::GetSsThresh`), `base` the sender's reduction base.
    fn ssthresh_after_loss(&mut self, _w: &Window, base: u32, _now: Time) -> u32 {
        (base / 2).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_the_base_but_never_below_two() {
        let w = Window::new(20, 100, 1000, false);
        assert_eq!(Reno.ssthresh_after_loss(&w, 20, Time::ZERO), 10);
        assert_eq!(Reno.ssthresh_after_loss(&w, 3, Time::ZERO), 2);
        assert_eq!(Reno.reduction_floor(10), 5, "Linux tcp_reno_min_cwnd");
    }

    #[test]
    fn doubles_per_rtt_in_slow_start_then_grows_linearly() {
        let mut w = Window::new(2, 8, 1000, false);
        // One RTT = one ACK per segment of the window.
        for expected in [4, 8, 9, 10] {
            let acks = w.cwnd;
            for _ in 0..acks {
                Reno.on_ack(&mut w, 1, Time::ZERO);
            }
            assert_eq!(w.cwnd, expected);
        }
    }
}
