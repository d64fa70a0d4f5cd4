//! The retransmission timer's estimator, in the three forms stacks use (`rto_formula`):
//!
//! - **RFC 6298** (ns-3's `RttMeanDeviation`), in integer nanoseconds: `SRTT`, `RTTVAR` with
//!   gains 1/8 and 1/4, `RTO = max(min_rto, SRTT + max(G, 4·RTTVAR))`. With timestamps and
//!   G > 0 a sample is a whole number of ticks of the timestamp clock (ns-3: `now_ms −
//!   echo_ms`), a zero sample taken as 1 µs (ns-3's `CalculateRttSample`).
//! - **Linux** (`tcp_rtt_estimator`, `tcp_set_rto` of 2.6.26), in jiffies of G: `srtt` ×8 with
//!   gain 1/8, `mdev` ×4 with gain 1/4 (1/32 when the sample falls), `rttvar` the largest
//!   `mdev` of the last round trip, decaying by a quarter of the gap each round trip and never
//!   below `min_rto`; `RTO = srtt + rttvar`. A sample is at least one jiffy.
//! - **ns-2** (`TcpAgent::rtt_update`, `rtt_timeout`, `rtt_backoff`), in ticks of G
//!   (`tcpTick_`): `t_srtt` ×8, `t_rttvar` ×4 as C integers, `RTO = (t_srtt + 4·t_rttvar) / 8`
//!   ticks, `max(min_rto, RTO)` times the backoff, at least two ticks; after four backoffs
//!   SRTT is folded into RTTVAR and restarts from the next sample. A sample is
//!   `round(rtt / tick)` with timestamps, else the ticks between the send and receive instants
//!   of a clock with a random phase (`boot_time_`); at least one tick.
//!
//! Backoff: the timer doubles on each timeout, up to `max_rto`. A valid sample ends it for
//! RFC 6298 and Linux; ns-2 ends it only when its timed segment is ACKed (the sender calls
//! [`RttEstimator::end_backoff`]).

use crate::time::{Duration, Time};

use super::config::{RtoFormula, TcpConfig};

/// SRTT, RTTVAR and RTO, with exponential backoff.
#[derive(Debug, Clone)]
pub struct RttEstimator {
    /// Smoothed RTT; `None` before the first sample.
    pub srtt: Option<Duration>,
    /// RTT variation (the mean deviation; Linux's `rttvar / 4`).
    pub rttvar: Duration,
    /// Current RTO before bounds and backoff.
    rto: Duration,
    /// Number of consecutive timeouts (the backoff exponent).
    pub backoff: u32,
    min_rto: Duration,
    max_rto: Duration,
    formula: RtoFormula,
    /// Clock granularity G, ns (0: exact, RFC 6298 only).
    g: u64,
    /// Samples come from timestamp echoes (ticks of the timestamp clock).
    ts_clock: bool,
    /// ns-2's `boot_time_`: the phase of the tick clock, ns in `[0, G)`.
    boot: u64,
    /// Integer state in ticks: Linux `srtt` (×8), `mdev` (×4), `mdev_max`, `rttvar`; ns-2
    /// `t_srtt` (×8) in `srtt8`, `t_rttvar` (×4) in `rttvar4`.
    srtt8: i64,
    mdev: i64,
    mdev_max: i64,
    rttvar4: i64,
    /// Linux `rtt_seq`: the round trip ends when `snd_una` passes it.
    rtt_seq: u64,
}

impl RttEstimator {
    /// Returns an RFC 6298 estimator with RTO `initial` (§2.1), bounded to `[min, max]`, an
    /// exact clock.
    pub fn new(initial: Duration, min: Duration, max: Duration) -> Self {
        RttEstimator {
            srtt: None,
            rttvar: Duration::ZERO,
            rto: initial,
            backoff: 0,
            min_rto: min,
            max_rto: max,
            formula: RtoFormula::Rfc6298,
            g: 0,
            ts_clock: false,
            boot: 0,
            srtt8: 0,
            mdev: 0,
            mdev_max: 0,
            rttvar4: 0,
            rtt_seq: 0,
        }
    }

    /// Returns the estimator of a connection configured by `cfg`; `boot` (ns, reduced modulo
    /// G) is the phase of ns-2's tick clock.
    pub fn for_config(cfg: &TcpConfig, boot: u64) -> Self {
        let mut e = RttEstimator::new(
            Duration::from_ns(cfg.initial_rto_ns),
            Duration::from_ns(cfg.min_rto_ns),
            Duration::from_ns(cfg.max_rto_ns),
        );
        e.formula = cfg.rto_formula;
        e.g = cfg.clock_granularity_ns;
        e.ts_clock = cfg.timestamps;
        e.boot = if e.g > 0 { boot % e.g } else { 0 };
        e
    }

    /// Returns the RTO formula.
    pub fn formula(&self) -> RtoFormula {
        self.formula
    }

    /// Starts data transmission after a handshake whose SYN was retransmitted: no sample,
    /// the backoff cleared and the RTO at least `floor` (RFC 6298 §5.7: 3 s).
    pub fn restart_after_lost_syn(&mut self, floor: Duration) {
        self.backoff = 0;
        self.rto = self.rto.max(floor).min(self.max_rto);
    }

    /// Takes the RTT sample of a segment sent at `sent` and acknowledged at `now` (the ACK
    /// moved `snd_una`; `snd_max` is one past the highest segment sent). RFC 6298 and Linux
    /// end the backoff.
    pub fn sample(&mut self, sent: Time, now: Time, snd_una: u64, snd_max: u64) {
        let (sent, now) = (sent.as_ns(), now.as_ns());
        let g = self.g;
        match self.formula {
            RtoFormula::Rfc6298 => {
                let r = if self.ts_clock && g > 0 {
                    match now / g - sent / g {
                        0 => 1_000, // ns-3: a zero timestamp difference is taken as 1 us
                        ticks => ticks * g,
                    }
                } else {
                    now - sent
                };
                self.rfc6298(r);
                self.backoff = 0;
            }
            RtoFormula::Linux => {
                let m = ((now / g - sent / g) as i64).max(1);
                self.linux(m, snd_una, snd_max);
                self.backoff = 0;
            }
            RtoFormula::Ns2 => {
                let ticks = if self.ts_clock {
                    (now - sent + g / 2) / g
                } else {
                    (now + self.boot) / g - (sent + self.boot) / g
                };
                self.ns2((ticks as i64).max(1));
            }
        }
    }

    /// RFC 6298 §2.2–2.3 with sample `r` ns.
    fn rfc6298(&mut self, r: u64) {
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
        // RTO <- SRTT + max(G, K RTTVAR), K = 4.
        let var = (4 * self.rttvar.as_ns()).max(self.g);
        self.rto = self.srtt.unwrap() + Duration(var);
    }

    /// Linux 2.6.26 `tcp_rtt_estimator` with sample `m` jiffies, then `tcp_set_rto`.
    fn linux(&mut self, mut m: i64, snd_una: u64, snd_max: u64) {
        let g = self.g as i64;
        let rto_min = (self.min_rto.as_ns() as i64 / g).max(1);
        if self.srtt8 != 0 {
            m -= self.srtt8 >> 3; // m is now the error in the estimate
            self.srtt8 += m; // srtt = 7/8 srtt + 1/8 new
            if m < 0 {
                m = -m - (self.mdev >> 2);
                // A falling RTT moves mdev with the finer gain 1/32 (Eifel-like).
                if m > 0 {
                    m >>= 3;
                }
            } else {
                m -= self.mdev >> 2;
            }
            self.mdev += m; // mdev = 3/4 mdev + 1/4 new
            if self.mdev > self.mdev_max {
                self.mdev_max = self.mdev;
                self.rttvar4 = self.rttvar4.max(self.mdev_max);
            }
            if snd_una > self.rtt_seq {
                // One round trip is over: rttvar decays towards its largest mdev.
                if self.mdev_max < self.rttvar4 {
                    self.rttvar4 -= (self.rttvar4 - self.mdev_max) >> 2;
                }
                self.rtt_seq = snd_max;
                self.mdev_max = rto_min;
            }
        } else {
            self.srtt8 = m << 3;
            self.mdev = m << 1; // so that rto = 3 * rtt
            self.mdev_max = self.mdev.max(rto_min);
            self.rttvar4 = self.mdev_max;
            self.rtt_seq = snd_max;
        }
        self.srtt = Some(Duration(((self.srtt8 >> 3) * g) as u64));
        self.rttvar = Duration((self.rttvar4 * g / 4) as u64);
        self.rto = Duration((((self.srtt8 >> 3) + self.rttvar4) * g) as u64);
    }

    /// ns-2 `rtt_update` with sample `t_rtt` ticks (`rttvar_exp_` 2, `T_SRTT_BITS` 3,
    /// `T_RTTVAR_BITS` 2).
    fn ns2(&mut self, t_rtt: i64) {
        if self.srtt8 != 0 {
            let mut delta = t_rtt - (self.srtt8 >> 3);
            self.srtt8 += delta;
            if self.srtt8 <= 0 {
                self.srtt8 = 1;
            }
            delta = delta.abs() - (self.rttvar4 >> 2);
            self.rttvar4 += delta;
            if self.rttvar4 <= 0 {
                self.rttvar4 = 1;
            }
        } else {
            self.srtt8 = t_rtt << 3;
            self.rttvar4 = t_rtt << 1;
        }
        let g = self.g as i64;
        self.srtt = Some(Duration(((self.srtt8 >> 3) * g) as u64));
        self.rttvar = Duration(((self.rttvar4 >> 2) * g) as u64);
        self.rto = Duration(((((self.rttvar4 << 3) + self.srtt8) >> 3) * g) as u64);
    }

    /// Ends the backoff (ns-2: the timed segment was ACKed, or a Sack1 partial ACK).
    pub fn end_backoff(&mut self) {
        self.backoff = 0;
    }

    /// Doubles the timer after a timeout (RFC 6298 §5.5; ns-2's `rtt_backoff`).
    pub fn back_off(&mut self) {
        if self.formula == RtoFormula::Ns2 {
            if (1u64 << self.backoff) < 64 || self.rto() < self.max_rto {
                self.backoff = (self.backoff + 1).min(30);
            }
            if (1u64 << self.backoff) > 8 {
                // Backed off this far, the estimate is distrusted: SRTT goes into RTTVAR and
                // the next sample starts a new estimate.
                self.rttvar4 += self.srtt8 >> 3;
                self.srtt8 = 0;
            }
            return;
        }
        self.backoff = (self.backoff + 1).min(30);
    }

    /// Returns the timeout to arm: the RTO bounded to `[min, max]`, times 2^backoff (ns-2:
    /// at least two ticks).
    pub fn rto(&self) -> Duration {
        let base = self.rto.max(self.min_rto).min(self.max_rto);
        let to = base.saturating_mul(1 << self.backoff).min(self.max_rto);
        if self.formula == RtoFormula::Ns2 {
            to.max(Duration(2 * self.g))
        } else {
            to
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn est() -> RttEstimator {
        RttEstimator::new(Duration::from_secs(1), Duration::from_ms(200), Duration::from_secs(60))
    }

    const MS: u64 = 1_000_000;

    /// Feeds a sample of `ms` milliseconds (sent at 0, or at `at` ms).
    fn feed(e: &mut RttEstimator, at_ms: u64, rtt_ms: u64, snd_una: u64, snd_max: u64) {
        e.sample(Time(at_ms * MS), Time((at_ms + rtt_ms) * MS), snd_una, snd_max);
    }

    fn with(formula: RtoFormula, g_ms: u64, ts: bool) -> RttEstimator {
        let cfg = TcpConfig {
            rto_formula: formula,
            clock_granularity_ns: g_ms * MS,
            timestamps: ts,
            min_rto_ns: 200 * MS,
            max_rto_ns: 60_000 * MS,
            initial_rto_ns: 3_000 * MS,
            ..TcpConfig::default()
        };
        RttEstimator::for_config(&cfg, 0)
    }

    #[test]
    fn first_sample_sets_srtt_and_half_rttvar() {
        let mut e = est();
        feed(&mut e, 0, 100, 1, 1);
        assert_eq!(e.srtt, Some(Duration::from_ms(100)));
        assert_eq!(e.rttvar, Duration::from_ms(50));
        assert_eq!(e.rto(), Duration::from_ms(300));
    }

    #[test]
    fn later_samples_follow_the_rfc_gains() {
        let mut e = est();
        feed(&mut e, 0, 100, 1, 1);
        feed(&mut e, 0, 180, 1, 1);
        // rttvar = (3*50 + 80)/4 = 57.5 ms; srtt = (7*100 + 180)/8 = 110 ms.
        assert_eq!(e.rttvar, Duration::from_us(57_500));
        assert_eq!(e.srtt, Some(Duration::from_ms(110)));
        assert_eq!(e.rto(), Duration::from_ms(340));
    }

    #[test]
    fn rto_is_bounded_below_and_backs_off_to_the_maximum() {
        let mut e = est();
        feed(&mut e, 0, 1, 1, 1);
        assert_eq!(e.rto(), Duration::from_ms(200));
        for _ in 0..10 {
            e.back_off();
        }
        assert_eq!(e.rto(), Duration::from_secs(60));
        feed(&mut e, 0, 1, 1, 1);
        assert_eq!(e.rto(), Duration::from_ms(200));
    }

    #[test]
    fn rfc6298_g_bounds_the_variation_term_and_ticks_timestamp_samples() {
        // G = 1 ms, timestamps: a 0.3-ms RTT within one tick is 1 us (ns-3), across a tick 1 ms.
        let mut e = with(RtoFormula::Rfc6298, 1, true);
        e.sample(Time(100_000), Time(400_000), 1, 1);
        assert_eq!(e.srtt, Some(Duration::from_us(1)));
        // RTO = SRTT + max(G, 4 RTTVAR) = 1 us + max(1 ms, 2 us), below min_rto = 200 ms.
        assert_eq!(e.rto, Duration::from_us(1_001));
        let mut e = with(RtoFormula::Rfc6298, 1, true);
        e.sample(Time(800_000), Time(1_100_000), 1, 1);
        assert_eq!(e.srtt, Some(Duration::from_ms(1)));
        // Without timestamps the sample is exact (ns-3 times the segment itself).
        let mut e = with(RtoFormula::Rfc6298, 1, false);
        e.sample(Time(800_000), Time(1_100_000), 1, 1);
        assert_eq!(e.srtt, Some(Duration::from_us(300)));
    }

    #[test]
    fn linux_rto_is_srtt_plus_the_largest_deviation_of_the_round_trip_at_least_min_rto() {
        // Jiffies of 1 ms, rto_min 200 jiffies. First sample 100: srtt 100, mdev 200,
        // rttvar = max(200, 200) = 200 -> RTO 300 ms (3 RTT, as tcp_rtt_estimator says).
        let mut e = with(RtoFormula::Linux, 1, true);
        feed(&mut e, 0, 100, 1, 10);
        assert_eq!(e.rto(), Duration::from_ms(300));
        // A steady 100-ms path: mdev decays, rttvar stays at rto_min: SRTT + 200 ms.
        for i in 0..50 {
            feed(&mut e, 0, 100, 10 + i, 10 + i);
        }
        assert_eq!(e.srtt, Some(Duration::from_ms(100)));
        assert_eq!(e.rto(), Duration::from_ms(300));
        // A sample 100 ms up: m = 100 - 100/8... error 100: srtt8 800 -> 900 (srtt 112),
        // mdev += 100 - mdev/4; mdev_max rises above 200 only if mdev does.
        let before = e.mdev;
        feed(&mut e, 0, 200, 70, 70);
        assert_eq!(e.srtt8, 900);
        assert_eq!(e.mdev, before + 100 - (before >> 2));
    }

    #[test]
    fn linux_falling_samples_move_mdev_with_gain_one_thirty_second() {
        let mut e = with(RtoFormula::Linux, 1, true);
        feed(&mut e, 0, 400, 1, 1); // srtt8 3200, mdev 800
        feed(&mut e, 0, 80, 1, 1); // error -320: |e| - mdev/4 = 320 - 200 = 120, >> 3 = 15
        assert_eq!(e.srtt8, 3200 - 320);
        assert_eq!(e.mdev, 815);
        // A sample below one jiffy counts as one.
        let mut e = with(RtoFormula::Linux, 1, true);
        e.sample(Time(100), Time(200), 1, 1);
        assert_eq!(e.srtt, Some(Duration::from_ms(1)));
    }

    #[test]
    fn ns2_rto_is_three_ticks_for_paths_shorter_than_a_tick() {
        // research §A: every sample is 1 tick, t_srtt = 8, t_rttvar = 2 forever, RTO = 3 ticks.
        let mut e = with(RtoFormula::Ns2, 10, false);
        for i in 0..20 {
            e.sample(Time(i * 50 * MS + 1_000), Time(i * 50 * MS + 301_000), 1, 1);
            assert_eq!((e.srtt8, e.rttvar4), (8, 2));
        }
        assert_eq!(e.rto, Duration::from_ms(30));
        // minrto_ 200 ms binds, times the backoff; with minrto_ 10 ms the RTO is 30 ms.
        assert_eq!(e.rto(), Duration::from_ms(200));
        e.min_rto = Duration::from_ms(10);
        assert_eq!(e.rto(), Duration::from_ms(30));
        // With tcpTick_ 1 ms: samples of 1 tick, RTO 3 ms, raised to minrto_ 10 ms.
        let mut e = with(RtoFormula::Ns2, 1, false);
        e.min_rto = Duration::from_ms(10);
        e.sample(Time(0), Time(300_000), 1, 1);
        assert_eq!(e.rto, Duration::from_ms(3));
        assert_eq!(e.rto(), Duration::from_ms(10));
    }

    #[test]
    fn ns2_samples_count_clock_ticks_or_round_timestamps() {
        // Without timestamps: the ticks between send and receive of a clock of phase `boot`.
        // 25 ms from 8 ms to 33 ms: boot 0 -> ticks 0 and 3 = 3; boot 5 ms -> 1 and 3 = 2.
        let mut e = with(RtoFormula::Ns2, 10, false);
        e.sample(Time(8 * MS), Time(33 * MS), 1, 1);
        assert_eq!(e.srtt8 >> 3, 3);
        let cfg = TcpConfig {
            rto_formula: RtoFormula::Ns2,
            clock_granularity_ns: 10 * MS,
            timestamps: false,
            ..TcpConfig::default()
        };
        let mut e = RttEstimator::for_config(&cfg, 5 * MS);
        e.sample(Time(8 * MS), Time(33 * MS), 1, 1);
        assert_eq!(e.srtt8 >> 3, 2);
        // With timestamps: int(25 ms / 10 ms + 0.5) = 3.
        let mut e = with(RtoFormula::Ns2, 10, true);
        e.sample(Time(8 * MS), Time(33 * MS), 1, 1);
        assert_eq!(e.srtt8 >> 3, 3);
    }

    #[test]
    fn ns2_backoff_is_not_ended_by_samples_and_forgets_srtt_after_four_doublings() {
        let mut e = with(RtoFormula::Ns2, 10, true);
        feed(&mut e, 0, 100, 1, 1); // 10 ticks: srtt8 80, rttvar4 20, RTO 30 ticks
        assert_eq!(e.rto(), Duration::from_ms(300));
        e.back_off();
        feed(&mut e, 0, 100, 1, 1);
        assert_eq!(e.backoff, 1, "only the timed segment's ACK ends ns-2's backoff");
        assert_eq!(e.rto(), Duration::from_ms(2 * 250));
        for _ in 0..3 {
            e.back_off();
        }
        // t_backoff = 16 > 8: t_rttvar += t_srtt >> 3, t_srtt = 0.
        assert_eq!(e.srtt8, 0);
        e.end_backoff();
        feed(&mut e, 0, 50, 1, 1);
        assert_eq!((e.srtt8, e.rttvar4), (40, 10), "the next sample starts a new estimate");
    }
}
