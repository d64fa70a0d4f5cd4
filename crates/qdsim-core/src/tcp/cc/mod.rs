//! Congestion controls behind one trait, dispatched statically through [`AnyCc`].
//!
//! The sender owns loss detection and recovery (fast retransmit, fast recovery, timeouts);
//! a congestion control only decides how the window grows on new ACKs and what the slow-start
//! threshold becomes on a loss. Windows are counted in segments with a fractional-growth
//! counter, as Linux does (`snd_cwnd`, `snd_cwnd_cnt`): that makes "one segment per RTT"
//! exact and lets Cubic or HighSpeed TCP express growth as "one segment per `cnt` ACKed
//! segments".

mod cubic;
mod highspeed;
mod reno;

pub use cubic::Cubic;
pub use highspeed::{HighSpeed, HighSpeedNs2};
pub use reno::Reno;

use crate::time::{Duration, Time};

use super::config::CcKind;

/// The window state a congestion control reads and updates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Window {
    /// Congestion window, segments (`snd_cwnd`): what the sender may have outstanding.
    pub cwnd: u32,
    /// Fractional growth counter: ACKed segments since the last increase (`snd_cwnd_cnt`).
    pub cwnd_cnt: u32,
    /// Slow-start threshold, segments.
    pub ssthresh: u32,
    /// Upper bound of `cwnd` (the receiver window in segments).
    pub cwnd_clamp: u32,
    /// ns-2's `cwnd_`, a double, when the sender keeps ns-2's window arithmetic
    /// (`window_arithmetic = "ns2"`): +1 per ACK in slow start and `+1/cwnd_` after
    /// (`TcpAgent::opencwnd`), the exact half at a loss (`slowdown`), never clamped (ns-2 caps
    /// what it sends at `window_`, not `cwnd_`). `cwnd` is then its integer part within the
    /// clamp — plus, during a Reno or NewReno recovery, the duplicate ACKs' inflation, which
    /// ns-2 keeps apart (`dupwnd_`). `None`: segments and a counter, as Linux.
    pub ns2_cwnd: Option<f64>,
}

impl Window {
    /// Returns a window of `cwnd` segments (`ns2`: with ns-2's arithmetic).
    pub fn new(cwnd: u32, ssthresh: u32, cwnd_clamp: u32, ns2: bool) -> Self {
        Window { cwnd, cwnd_cnt: 0, ssthresh, cwnd_clamp, ns2_cwnd: ns2.then_some(f64::from(cwnd)) }
    }

    /// Sets the window to `cwnd` whole segments, restarting the growth counter (and ns-2's
    /// `cwnd_`).
    pub fn set(&mut self, cwnd: u32) {
        self.cwnd = cwnd;
        self.cwnd_cnt = 0;
        if let Some(c) = self.ns2_cwnd.as_mut() {
            *c = f64::from(cwnd);
        }
    }

    /// ns-2's `windowd()`: `min(cwnd_, window_)`, the window a decrease halves.
    pub fn ns2_windowd(&self) -> Option<f64> {
        self.ns2_cwnd.map(|c| c.min(f64::from(self.cwnd_clamp)))
    }

    /// Sets ns-2's `cwnd_` to `c` and the window to its integer part (at least one segment:
    /// ns-2 would send nothing below one), within the clamp.
    pub fn set_ns2(&mut self, c: f64) {
        self.ns2_cwnd = Some(c);
        self.cwnd = (c.floor() as u32).clamp(1, self.cwnd_clamp.max(1));
    }

    /// ns-2's `opencwnd` for one ACK (`increase`: the linear increase, `1/cwnd_` for Reno):
    /// `+1` below ssthresh, else `increase`. Returns false in segment arithmetic (nothing done).
    pub fn ns2_open(&mut self, increase: impl FnOnce(f64) -> f64) -> bool {
        let Some(c) = self.ns2_cwnd else { return false };
        let next = if c < f64::from(self.ssthresh) { c + 1.0 } else { c + increase(c) };
        self.set_ns2(next);
        true
    }

    /// Returns whether the sender is in slow start.
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }

    /// Slow start (RFC 5681 §3.1 with Linux's `tcp_slow_start`): grows `cwnd` by the number
    /// of segments ACKed, up to `ssthresh`; returns the ACKed segments left over.
    pub fn slow_start(&mut self, acked: u32) -> u32 {
        let cwnd = (self.cwnd + acked).min(self.ssthresh);
        let left = acked - (cwnd - self.cwnd);
        self.cwnd = cwnd.min(self.cwnd_clamp);
        left
    }

    /// Additive increase (Linux `tcp_cong_avoid_ai`): one segment per `w` ACKed segments.
    pub fn additive_increase(&mut self, w: u32, acked: u32) {
        let w = w.max(1);
        if self.cwnd_cnt >= w {
            self.cwnd_cnt = 0;
            self.cwnd += 1;
        }
        self.cwnd_cnt += acked;
        if self.cwnd_cnt >= w {
            let delta = self.cwnd_cnt / w;
            self.cwnd_cnt -= delta * w;
            self.cwnd += delta;
        }
        self.cwnd = self.cwnd.min(self.cwnd_clamp);
    }
}

/// A congestion control algorithm.
pub trait CongestionControl {
    /// Grows the window for `acked` newly ACKed segments outside loss recovery.
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time);
    /// Returns the slow-start threshold after a loss is detected: the decrease applied to
    /// `base` segments, what the sender's `reduction_base` names (FlightSize in RFC 5681
    /// eq. 4, cwnd in Linux and ns-2, pipe in ns-3).
    fn ssthresh_after_loss(&mut self, w: &Window, base: u32, now: Time) -> u32;
    /// Returns the lowest cwnd rate-halving may step down to in a recovery with threshold
    /// `ssthresh` (Linux `tcp_cwnd_min`). Default: `ssthresh / 2`, `tcp_reno_min_cwnd`.
    fn reduction_floor(&self, ssthresh: u32) -> u32 {
        ssthresh / 2
    }
    /// Returns ns-2's `cwnd_` after a decrease by duplicate ACKs or ECN (`slowdown` with
    /// `CLOSE_CWND_HALF`), called after `ssthresh_after_loss`; `windowd` is `min(cwnd_,
    /// window_)`. Default: the exact half (Reno's `halfwin`).
    fn ns2_window_after_loss(&self, windowd: f64) -> f64 {
        windowd / 2.0
    }
    /// Notes that a retransmission timeout begins, before its `ssthresh_after_loss` (if the
    /// timeout lowers ssthresh). Default: nothing.
    fn on_timeout_start(&mut self) {}
    /// Notes a retransmission timeout (after `ssthresh_after_loss` was applied). Default: nothing.
    fn on_timeout(&mut self, _w: &Window, _now: Time) {}
    /// Receives the sender's smoothed RTT after each sample. Default: ignored.
    fn on_rtt(&mut self, _srtt: Duration) {}
}

/// Every congestion control, for static dispatch.
#[derive(Debug, Clone)]
pub enum AnyCc {
    /// Reno-style AIMD, used by Tahoe, Reno and NewReno (they differ in recovery, not AIMD).
    Reno(Reno),
    /// CUBIC (RFC 9438).
    Cubic(Cubic),
    /// HighSpeed TCP (RFC 3649).
    HighSpeed(HighSpeed),
    /// HighSpeed TCP with ns-2's decrease rules.
    HighSpeedNs2(HighSpeedNs2),
}

impl AnyCc {
    /// Builds the congestion control named by `kind`.
    pub fn new(kind: CcKind) -> AnyCc {
        match kind {
            CcKind::Tahoe | CcKind::Reno | CcKind::Newreno => AnyCc::Reno(Reno),
            CcKind::Cubic => AnyCc::Cubic(Cubic::default()),
            CcKind::Highspeed => AnyCc::HighSpeed(HighSpeed::default()),
            CcKind::HighspeedNs2 => AnyCc::HighSpeedNs2(HighSpeedNs2::default()),
        }
    }
}

macro_rules! dispatch_cc {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            AnyCc::Reno($c) => $e,
            AnyCc::Cubic($c) => $e,
            AnyCc::HighSpeed($c) => $e,
            AnyCc::HighSpeedNs2($c) => $e,
        }
    };
}

impl CongestionControl for AnyCc {
    fn on_ack(&mut self, w: &mut Window, acked: u32, now: Time) {
        dispatch_cc!(self, c => c.on_ack(w, acked, now))
    }
    fn ssthresh_after_loss(&mut self, w: &Window, base: u32, now: Time) -> u32 {
        dispatch_cc!(self, c => c.ssthresh_after_loss(w, base, now))
    }
    fn reduction_floor(&self, ssthresh: u32) -> u32 {
        dispatch_cc!(self, c => c.reduction_floor(ssthresh))
    }
    fn ns2_window_after_loss(&self, windowd: f64) -> f64 {
        dispatch_cc!(self, c => c.ns2_window_after_loss(windowd))
    }
    fn on_timeout_start(&mut self) {
        dispatch_cc!(self, c => c.on_timeout_start())
    }
    fn on_timeout(&mut self, w: &Window, now: Time) {
        dispatch_cc!(self, c => c.on_timeout(w, now))
    }
    fn on_rtt(&mut self, srtt: Duration) {
        dispatch_cc!(self, c => c.on_rtt(srtt))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn win(cwnd: u32, ssthresh: u32) -> Window {
        Window::new(cwnd, ssthresh, 10_000, false)
    }

    #[test]
    fn slow_start_stops_at_ssthresh_and_returns_the_rest() {
        let mut w = win(8, 10);
        assert_eq!(w.slow_start(5), 3);
        assert_eq!(w.cwnd, 10);
    }

    #[test]
    fn additive_increase_adds_one_segment_per_window_of_acks() {
        let mut w = win(10, 5);
        for _ in 0..10 {
            w.additive_increase(10, 1);
        }
        assert_eq!(w.cwnd, 11);
        for _ in 0..11 {
            w.additive_increase(11, 1);
        }
        assert_eq!(w.cwnd, 12);
    }

    #[test]
    fn window_never_exceeds_the_clamp() {
        let mut w = Window::new(9, 100, 10, false);
        w.slow_start(5);
        assert_eq!(w.cwnd, 10);
        w.additive_increase(1, 50);
        assert_eq!(w.cwnd, 10);
    }
}
