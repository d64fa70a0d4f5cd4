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
