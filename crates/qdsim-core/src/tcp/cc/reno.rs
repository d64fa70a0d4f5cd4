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

    /// RFC 5681 eq. 4, `ssthresh = max(FlightSize / 2, 2 * SMSS)`, with FlightSize capped at
    /// cwnd (Linux and ns-2 halve cwnd). The RFC prefers FlightSize because an
    /// application-limited cwnd overstates the load; the cap covers the opposite case: after a
    /// long NewReno recovery, data sent by window inflation while `snd_una` sat on consecutive
    /// holes makes FlightSize many times the pipe (153 segments against a cwnd of 11 and a
    /// pipe of 37 in one trace), and halving it would *raise* ssthresh.
    fn ssthresh_after_loss(&mut self, w: &Window, flight: u32, _now: Time) -> u32 {
        (flight.min(w.cwnd) / 2).max(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_the_flight_but_never_below_two() {
        let w = Window { cwnd: 20, cwnd_cnt: 0, ssthresh: 100, cwnd_clamp: 1000 };
        assert_eq!(Reno.ssthresh_after_loss(&w, 20, Time::ZERO), 10);
        assert_eq!(Reno.ssthresh_after_loss(&w, 3, Time::ZERO), 2);
    }

    #[test]
    fn a_flight_bloated_by_recovery_is_capped_at_cwnd() {
        let w = Window { cwnd: 11, cwnd_cnt: 0, ssthresh: 11, cwnd_clamp: 1000 };
        assert_eq!(Reno.ssthresh_after_loss(&w, 153, Time::ZERO), 5);
    }

    #[test]
    fn doubles_per_rtt_in_slow_start_then_grows_linearly() {
        let mut w = Window { cwnd: 2, cwnd_cnt: 0, ssthresh: 8, cwnd_clamp: 1000 };
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
