//! HyStart++'s delay-increase test (RFC 9406 §4.2), the sender's optional slow-start exit.

use crate::time::Duration;

/// HyStart++ (RFC 9406 §4.2) round state: RTT samples are grouped in rounds (a round ends
/// when the data outstanding at its start is acknowledged); slow start ends when the minimum
/// RTT of a round (over its first `N_RTT_SAMPLE` = 8 samples) exceeds the previous round's by
/// `RttThresh = clamp(lastRoundMinRTT / 8, 4 ms, 16 ms)`. The conservative slow start phase
/// that follows in RFC 9406 is not modelled: the exit sets `ssthresh = cwnd` at once, as the
/// original HyStart (and Linux's CUBIC) does.
#[derive(Debug, Clone)]
pub(super) struct HyStart {
    pub round_end: u64,
    pub last_round_min: Option<Duration>,
    pub current_round_min: Option<Duration>,
    pub samples: u32,
}

impl HyStart {
    const N_RTT_SAMPLE: u32 = 8;

    /// Takes an RTT sample for an ACK of `ack`; returns whether slow start should end.
    pub fn on_sample(&mut self, rtt: Duration, ack: u64, snd_max: u64) -> bool {
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

#[cfg(test)]
mod tests {
    use crate::outbox::Outbox;
    use crate::tcp::testing::*;
    use crate::tcp::{CcKind, TcpConfig, TcpSender};
    use crate::time::Time;

    #[test]
    fn hystart_leaves_slow_start_when_a_round_s_rtt_rises() {
        let c = TcpConfig { hystart: true, ..cfg(CcKind::Cubic) };
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
}
