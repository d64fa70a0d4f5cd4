//! Slow-start exits on delay (`hystart`): RFC 9406's HyStart++ delay test, or the HyStart
//! Linux's CUBIC runs (ACK trains and delay increase, `net/ipv4/tcp_cubic.c`).
//!
//! Both group RTT samples in rounds (a round ends when the data outstanding at its start is
//! acknowledged) and end slow start by setting `ssthresh = cwnd`. Neither models RFC 9406's
//! conservative slow start after the exit: Linux has none, and the original HyStart neither.

use crate::tcp::config::HyStartKind;
use crate::time::{Duration, Time};

/// What a slow-start exit test sees of one ACK with an RTT sample.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    /// The ACK's arrival.
    pub now: Time,
    /// Its RTT sample.
    pub rtt: Duration,
    /// The cumulative ACK (`snd_una` after it).
    pub ack: u64,
    /// One past the highest segment sent.
    pub snd_max: u64,
    /// The congestion window, segments.
    pub cwnd: u32,
    /// Bytes per segment and the smoothed RTT, for Linux's pacing rate.
    pub mss: u32,
    pub srtt: Option<Duration>,
}

/// The state of the configured exit test.
#[derive(Debug, Clone)]
pub(super) enum HyStart {
    Rfc9406(Rfc9406),
    Linux(LinuxHyStart),
}

impl HyStart {
    /// Returns the test `kind` names (None for `off`).
    pub fn new(kind: HyStartKind) -> Option<Self> {
        match kind {
            HyStartKind::Off => None,
            HyStartKind::Rfc9406 => Some(HyStart::Rfc9406(Rfc9406::default())),
            HyStartKind::Linux => Some(HyStart::Linux(LinuxHyStart::default())),
        }
    }

    /// Whether the test runs on samples taken during fast recovery: Linux's runs on every
    /// sample while `cwnd < ssthresh` (`cubictcp_acked` checks `tcp_in_slow_start` only, and
    /// PRR keeps cwnd below ssthresh); RFC 9406's is for slow start proper.
    pub fn during_recovery(&self) -> bool {
        matches!(self, HyStart::Linux(_))
    }

    /// Takes one sample taken in slow start; returns whether slow start should end.
    pub fn on_sample(&mut self, s: Sample) -> bool {
        match self {
            HyStart::Rfc9406(h) => h.on_sample(s.rtt, s.ack, s.snd_max),
            HyStart::Linux(h) => h.on_sample(s),
        }
    }

    /// A retransmission timeout: Linux's CUBIC starts over (`cubictcp_state` on
    /// `TCP_CA_Loss`: `bictcp_reset` clears `delay_min` and `found`, then a new round).
    pub fn on_timeout(&mut self) {
        if let HyStart::Linux(h) = self {
            *h = LinuxHyStart::default();
        }
    }
}

/// HyStart++ (RFC 9406 §4.2) round state: slow start ends when the minimum RTT of a round
/// (over its first `N_RTT_SAMPLE` = 8 samples) exceeds the previous round's by `RttThresh =
/// clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)`.
#[derive(Debug, Clone, Default)]
pub(super) struct Rfc9406 {
    round_end: u64,
    last_round_min: Option<Duration>,
    current_round_min: Option<Duration>,
    samples: u32,
}

impl Rfc9406 {
    const N_RTT_SAMPLE: u32 = 8;

    fn on_sample(&mut self, rtt: Duration, ack: u64, snd_max: u64) -> bool {
        if ack >= self.round_end {
            // A new round: the previous one's minimum becomes the baseline.
            self.last_round_min = self.current_round_min.or(self.last_round_min);
            self.current_round_min = None;
            self.samples = 0;
            self.round_end = snd_max;
        }
        self.samples += 1;
        self.current_round_min = Some(self.current_round_min.map_or(rtt, |m| m.min(rtt)));
        match (self.last_round_min, self.current_round_min) {
            (Some(last), Some(cur)) if self.samples >= Self::N_RTT_SAMPLE => {
                let thresh = Duration::from_ns((last.as_ns() / 8).clamp(4_000_000, 16_000_000));
                cur >= last + thresh
            }
            _ => false,
        }
    }
}

/// Linux CUBIC's HyStart (`tcp_cubic.c`, 6.1: `hystart_update`, `cubictcp_acked`), both
/// detections on (`hystart_detect` 3), from a window of `hystart_low_window` = 16 segments:
///
/// - **ACK train**: ACKs less than 2 ms apart (`hystart_ack_delta_us`) continue the train;
///   slow start ends once the train has lasted more than `(delay_min + ack_delay) / 2` since
///   the round began (halved because nothing paces the sender: `SK_PACING_NONE`).
///   `ack_delay` = `min(1 ms, 4 × 64 KiB / pacing rate)` (`hystart_ack_delay`, the GSO
///   cushion), the pacing rate `2 × cwnd × MSS / SRTT` in slow start
///   (`tcp_update_pacing_rate`, `tcp_pacing_ss_ratio` 200 %).
/// - **Delay increase**: the minimum of a round's first `HYSTART_MIN_SAMPLES` = 8 samples,
///   compared from the next sample on, above `delay_min + clamp(delay_min / 8, 4 ms, 16 ms)`.
///
/// `delay_min` is the least RTT the connection has seen; `found` holds until a timeout. A
/// round ends when `snd_una` passes the highest segment sent at its start. Not modelled: the
/// samples ignored during the first second of a CUBIC epoch (they only feed `delay_min`,
/// which nothing reads outside slow start before the next timeout resets it).
#[derive(Debug, Clone, Default)]
pub(super) struct LinuxHyStart {
    found: bool,
    delay_min: Option<Duration>,
    round_start: Time,
    last_ack: Time,
    end_seq: u64,
    curr_rtt: Option<Duration>,
    sample_cnt: u32,
    started: bool,
}

impl LinuxHyStart {
    const LOW_WINDOW: u32 = 16;
    const ACK_DELTA: Duration = Duration(2_000_000);
    const MIN_SAMPLES: u32 = 8;
    /// The GSO size of `hystart_ack_delay` (`sk_gso_max_size`, `GSO_LEGACY_MAX_SIZE`).
    const GSO_MAX_BYTES: u64 = 65_536;

    fn reset_round(&mut self, s: &Sample) {
        self.round_start = s.now;
        self.last_ack = s.now;
        self.end_seq = s.snd_max;
        self.curr_rtt = None;
        self.sample_cnt = 0;
        self.started = true;
    }

    /// `hystart_ack_delay`: `min(1 ms, 4 × GSO / pacing rate)`, 0 before an RTT estimate.
    fn ack_delay(s: &Sample) -> Duration {
        let Some(srtt) = s.srtt.filter(|d| d.as_ns() > 0) else { return Duration::ZERO };
        // Pacing rate in bytes per second: 2 × cwnd × MSS / SRTT.
        let rate = 2.0 * f64::from(s.cwnd) * f64::from(s.mss) / (srtt.as_ns() as f64 * 1e-9);
        let cushion_ns = (4 * Self::GSO_MAX_BYTES) as f64 / rate * 1e9;
        Duration(cushion_ns.min(1e6) as u64)
    }

    fn on_sample(&mut self, s: Sample) -> bool {
        let delay = s.rtt.max(Duration(1_000)); // a 0 sample is 1 us
        let delay_min = *self.delay_min.insert(self.delay_min.map_or(delay, |d| d.min(delay)));
        if self.found {
            return false;
        }
        if !self.started || s.ack > self.end_seq {
            self.reset_round(&s);
        }
        if s.cwnd < Self::LOW_WINDOW {
            return false;
        }
        if s.now - self.last_ack <= Self::ACK_DELTA {
            self.last_ack = s.now;
            let threshold = Duration((delay_min + Self::ack_delay(&s)).as_ns() / 2);
            if s.now - self.round_start > threshold {
                self.found = true;
                return true;
            }
        }
        self.curr_rtt = Some(self.curr_rtt.map_or(delay, |c| c.min(delay)));
        if self.sample_cnt < Self::MIN_SAMPLES {
            self.sample_cnt += 1;
        } else {
            let thresh = Duration::from_ns((delay_min.as_ns() / 8).clamp(4_000_000, 16_000_000));
            if self.curr_rtt.is_some_and(|c| c > delay_min + thresh) {
                self.found = true;
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outbox::Outbox;
    use crate::tcp::testing::*;
    use crate::tcp::{CcKind, TcpConfig, TcpSender};

    #[test]
    fn hystart_leaves_slow_start_when_a_round_s_rtt_rises() {
        let c = TcpConfig { hystart: HyStartKind::Rfc9406, ..cfg(CcKind::Cubic) };
        let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        // Rounds of RTT 100, 110 and 125 ms. A round starts with the ACK that covers windowEnd,
        // the highest segment sent when the previous round started (RFC 9406 §4.2). Round 2 rises
        // 10 ms over round 1, under clamp(100/8, 4, 16) = 12.5 ms; round 3 rises 15 ms over
        // round 2, above 13.75 ms: slow start ends during round 3, once it has 8 samples.
        let rtts = [100u64, 110, 125];
        let (mut round, mut window_end, mut acked) = (0usize, 0u64, 0u64);
        let mut exit_round = None;
        while round < 3 && acked < s.snd_max {
            acked += 1;
            if acked >= window_end {
                round += (acked > 1) as usize;
                window_end = s.snd_max;
            }
            if round == 3 {
                break;
            }
            let now = Time(1_000 * MS_NS + acked * MS_NS);
            s.on_ack(&ack(acked, Time(now.as_ns() - rtts[round] * MS_NS)), now, &mut out);
            if exit_round.is_none() && out.events.iter().any(|(k, _)| *k == "hystart_exit") {
                exit_round = Some(round + 1);
            }
        }
        assert_eq!(exit_round, Some(3));
        assert_eq!(s.win.ssthresh, s.win.cwnd.min(s.win.ssthresh));
        assert!(s.win.ssthresh < 1_000, "slow start ended at cwnd {}", s.win.ssthresh);
    }

    fn sample(now_us: u64, rtt_us: u64, ack: u64, snd_max: u64, cwnd: u32) -> Sample {
        Sample {
            now: Time(now_us * 1_000),
            rtt: Duration(rtt_us * 1_000),
            ack,
            snd_max,
            cwnd,
            mss: 1448,
            srtt: Some(Duration(rtt_us * 1_000)),
        }
    }

    #[test]
    fn linux_ack_train_ends_slow_start_past_half_the_minimum_rtt() {
        // delay_min 40 ms; ACKs 1 ms apart from t = 0 (the round's start). Pacing rate at
        // cwnd 20: 2 × 20 × 1448 B / 40 ms = 1.448 MB/s, so the cushion is min(1 ms,
        // 262144 / 1.448e6 s) = 1 ms: threshold (40 + 1) / 2 = 20.5 ms. The train passes it
        // with the ACK at 21 ms, not at 20 ms.
        let mut h = LinuxHyStart::default();
        assert!(!h.on_sample(sample(0, 40_000, 1, 100, 20)));
        for ms in 1..=20 {
            assert!(!h.on_sample(sample(ms * 1_000, 40_000, 1 + ms, 100, 20)), "ended at {ms} ms");
        }
        assert!(h.on_sample(sample(21_000, 40_000, 22, 100, 20)));
        assert!(!h.on_sample(sample(22_000, 40_000, 23, 100, 20)), "found holds: no second exit");
    }

    #[test]
    fn linux_ack_train_breaks_on_a_gap_and_needs_sixteen_segments() {
        let mut h = LinuxHyStart::default();
        // A 3 ms gap (> 2 ms) breaks the train: last_ack stays at the gap's start, and no
        // later ACK is within 2 ms of it, so the train never reaches the threshold.
        for i in 0..30u64 {
            assert!(!h.on_sample(sample(i * 3_000, 40_000, 1 + i, 1_000, 20)));
        }
        // Below 16 segments neither detection runs, however long the train.
        let mut small = LinuxHyStart::default();
        for i in 0..60u64 {
            assert!(!small.on_sample(sample(i * 1_000, 40_000 + i * 1_000, 1 + i, 1_000, 15)));
        }
    }

    #[test]
    fn linux_delay_increase_compares_a_round_with_the_least_rtt_seen() {
        // Rounds of 10 samples, 5 ms apart (no ACK train). delay_min 40 ms: the threshold is
        // clamp(40/8, 4, 16) = 5 ms above it. Round 2 at 45 ms is not above 45; round 3 at 45.1
        // ms is, from its ninth sample (8 samples taken, compared from the next).
        let mut h = LinuxHyStart::default();
        let (mut t, mut ack) = (0u64, 0u64);
        let mut exit = None;
        for (round, rtt) in [40_000u64, 45_000, 45_100].into_iter().enumerate() {
            let snd_max = (round as u64 + 1) * 10;
            for i in 0..10 {
                ack += 1;
                t += 5_000;
                if h.on_sample(sample(t, rtt, ack, snd_max, 32)) && exit.is_none() {
                    exit = Some((round, i));
                }
            }
        }
        assert_eq!(exit, Some((2, 8)));
    }

    #[test]
    fn linux_hystart_starts_over_after_a_timeout() {
        let mut h = HyStart::new(HyStartKind::Linux).unwrap();
        let mut t = 0;
        let mut found = false;
        for i in 0..30u64 {
            t += 1_000;
            found |= h.on_sample(sample(t, 40_000, i + 1, 100, 20));
        }
        assert!(found);
        h.on_timeout();
        assert!(!h.on_sample(sample(t + 1_000, 40_000, 31, 200, 20)));
        let HyStart::Linux(state) = &h else { unreachable!() };
        assert!(!state.found && state.delay_min == Some(Duration(40_000_000)));
    }
}
