//! ns-2.35's `Agent/TCP/Sack1` recovery (`tcp/tcp-sack1.cc`: `recv`, `dupack_action`,
//! `send_much`; `tcp/scoreboard-rq.cc`: `GetNextRetran`), in segments (ns-2's `highest_ack_`
//! is `snd_una − 1`, `maxseq_` is `snd_max − 1`):
//!
//! - The third duplicate ACK that changed the scoreboard (`CheckUpdate`) starts recovery:
//!   `recover_ = maxseq_`, `pipe_ = maxseq_ − highest_ack_ − numdupacks_` (FlightSize − 3),
//!   ssthresh and cwnd both the halved window at once (`slowdown`), the first segment resent —
//!   outside `pipe_` — and nothing else on that ACK.
//! - Every ACK in recovery takes one off `pipe_`; a partial ACK one more (so it never does
//!   worse than slow start), restarts the timer and ends its backoff.
//! - `send_much`: while `pipe_ < cwnd`, resend the lowest unSACKed segment above the last one
//!   resent and below the highest SACK (`h_seqno_` only moves forward: no hole is resent twice
//!   before a timeout), else a new segment within the window; each adds one to `pipe_`.
//! - An ACK at or above `recover_` ends recovery with cwnd left at the halved window (no
//!   growth on that ACK), the scoreboard cleared and `recover_` forgotten (set to 0: the next
//!   third duplicate ACK may start a recovery whatever it ACKs); a new ACK outside recovery
//!   clears the scoreboard too.
//!
//! The timeout's side (ssthresh halved on every timeout, the scoreboard forgotten, go-back-N
//! over everything) is in the sender's `on_timeout` and `LossRecovery::on_timeout`.

use super::TcpSender;
use crate::outbox::Outbox;
use crate::time::Time;

impl TcpSender {
    /// `dupack_action`: enter recovery on the third counted duplicate ACK.
    pub(super) fn ns2_enter(&mut self, now: Time, out: &mut Outbox) {
        let base = self.begin_recovery(false, now);
        if let Some(c) = self.win.ns2_cwnd {
            // ns-2's arithmetic: cwnd_ is the exact half; Sack1 sends while pipe_ < int(cwnd_).
            self.win.set_ns2(c);
        } else {
            self.win.cwnd = self.win.ssthresh;
            // ns-2 keeps cwnd_ as the exact half of an odd window (5.5 for 11): the half segment
            // becomes half the additive-increase counter, so growth after recovery starts halfway.
            if base % 2 == 1 && self.win.ssthresh == base / 2 {
                self.win.cwnd_cnt = self.win.cwnd / 2;
            }
        }
        self.rec.ns2_pipe = self.flight() as i64 - self.rec.dupack_threshold as i64;
        self.transmit(self.snd_una, now, out);
        self.rec.high_rxt = self.snd_una + 1; // MarkRetran(highest_ack_ + 1)
    }

    /// An ACK during recovery (`partial`: a partial ACK, not a duplicate).
    pub(super) fn ns2_ack_in_recovery(&mut self, partial: bool, now: Time, out: &mut Outbox) {
        self.rec.ns2_pipe -= 1;
        if partial {
            self.rec.ns2_pipe -= 1;
            self.rtt.end_backoff(); // t_backoff_ = 1
        }
        self.ns2_send_much(now, out);
    }

    /// `send_much` during recovery.
    fn ns2_send_much(&mut self, now: Time, out: &mut Outbox) {
        let wnd = self.win.cwnd_clamp as u64;
        while self.rec.ns2_pipe < self.win.cwnd as i64 {
            let sb = &self.rec.scoreboard;
            let from = self.rec.high_rxt.max(self.snd_una);
            match sb.highest().and_then(|top| sb.next_hole(from, top)) {
                Some(seq) if seq < self.snd_una + wnd => {
                    self.transmit(seq, now, out);
                    self.rec.high_rxt = seq + 1;
                }
                Some(_) => break,
                None if self.may_send_new() => self.send_new(now, out),
                None => break,
            }
            self.rec.ns2_pipe += 1;
        }
    }
}
