//! The retransmission timer's estimator (RFC 6298 §2), in integer nanoseconds.

use crate::time::Duration;

/// SRTT, RTTVAR and RTO, with exponential backoff.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: Option<Duration>,
    /// RTT variation.
    pub rttvar: Duration,
    /// Current RTO before backoff.
    rto: Duration,
    /// Number of consecutive timeouts (the backoff exponent).
    pub backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    /// Linux's form: `RTO = SRTT + max(4·RTTVAR, min_rto)` instead of RFC 6298's
    /// `max(SRTT + 4·RTTVAR, min_rto)`.
    linux_form: bool,
}

impl RttEstimator {
    /// Returns an estimator with RTO `initial` (RFC 6298 §2.1), bounded to `[min, max]`.
    pub fn new(initial: Duration, min: Duration, max: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: initial,
            backoff: 0,
            min_rto: min,
            max_rto: max,
            linux_form: false,
        }
    }

    /// Uses Linux's RTO form (`tcp_set_rto`): the minimum bounds the variation term, so the
    /// timer always exceeds SRTT by at least `min_rto`.
    pub fn with_linux_form(mut self, on: bool) -> Self {
        self.linux_form = on;
        self
    }

    /// Starts data transmission after a handshake whose SYN was retransmitted: no sample,
    /// the backoff cleared and the RTO at least `floor` (RFC 6298 §5.7: 3 s).
    pub fn restart_after_lost_syn(&mut self, floor: Duration) {
        self.backoff = 0;
        self.rto = self.rto.max(floor).min(self.max_rto);
    }

    /// Takes an RTT measurement `r` (RFC 6298 §2.2–2.3) and clears the backoff.
    pub fn sample(&mut self, r: Duration) {
        let r = r.as_ns();
        match self.srtt {
            None => {
                self.srtt = Some(Duration(r));
                self.rttvar = Duration(r / 2);
            }
            Some(srtt) => {
                let s = srtt.as_ns();
                // RTTVAR <- 3/4 RTTVAR + 1/4 |SRTT - R'|; SRTT <- 7/8 SRTT + 1/8 R'.
                self.rttvar = Duration((3 * self.rttvar.as_ns() + s.abs_diff(r)) / 4);
                self.srtt = Some(Duration((7 * s + r) / 8));
            }
        }
        // RTO <- SRTT + max(G, 4 RTTVAR); the clock granularity G is 1 ns here, so the
        // minimum RTO alone provides the floor (as in Linux).
        let var = Duration(4 * self.rttvar.as_ns());
        self.rto = self.srtt.unwrap() + if self.linux_form { var.max(self.min_rto) } else { var };
        self.backoff = 0;
    }

    /// Doubles the timer after a timeout (RFC 6298 §5.5).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff + 1).min(30);
    }

    /// Returns the timeout to arm: the RTO bounded to `[min, max]`, times 2^backoff.
    pub fn rto(&self) -> Duration {
        let base = self.rto.max(self.min_rto).min(self.max_rto);
        base.saturating_mul(1 << self.backoff).min(self.max_rto)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Duration::from_secs(1), Duration::from_ms(200), Duration::from_secs(60))
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        e.sample(Duration::from_ms(100));
        assert_eq!(e.srtt, Some(Duration::from_ms(100)));
        assert_eq!(e.rttvar, Duration::from_ms(50));
        assert_eq!(e.rto(), Duration::from_ms(300));
    }

    #[test]
    fn later_samples_follow_the_rfc_gains() {
        let mut e = est();
        e.sample(Duration::from_ms(100));
        e.sample(Duration::from_ms(180));
        // rttvar = (3*50 + 80)/4 = 57.5 ms; srtt = (7*100 + 180)/8 = 110 ms.
        assert_eq!(e.rttvar, Duration::from_us(57_500));
        assert_eq!(e.srtt, Some(Duration::from_ms(110)));
        assert_eq!(e.rto(), Duration::from_ms(340));
    }

    #[test]
    fn linux_form_adds_the_minimum_to_srtt() {
        let mut e = est().with_linux_form(true);
        e.sample(Duration::from_ms(100));
        // 100 ms + max(4 * 50 ms, 200 ms) = 300 ms; a steady 100 ms path keeps SRTT + 200 ms.
        assert_eq!(e.rto(), Duration::from_ms(300));
        for _ in 0..50 {
            e.sample(Duration::from_ms(100));
        }
        assert_eq!(e.rto(), Duration::from_ms(300));
        let mut rfc = est();
        for _ in 0..51 {
            rfc.sample(Duration::from_ms(100));
        }
        assert_eq!(rfc.rto(), Duration::from_ms(200), "RFC 6298: max(SRTT + 4 RTTVAR, min)");
    }

    #[test]
    fn rto_is_bounded_below_and_backs_off_to_the_maximum() {
        let mut e = est();
        e.sample(Duration::from_ms(1));
        assert_eq!(e.rto(), Duration::from_ms(200));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        e.sample(Duration::from_ms(1));
        assert_eq!(e.rto(), Duration::from_ms(200));
    }
}
