//! Linux 2.6 rate-halving with FACK (`tcp_fastretrans_alert`, `tcp_update_scoreboard`,
//! `tcp_cwnd_down` and `tcp_xmit_retransmit_queue` of 2.6.26's `tcp_input.c` and
//! `tcp_output.c`; research notes §D of `docs/tcp-profiles.md`).
//!
//! - Recovery starts when more than `reordering` (`dupack_threshold`) segments lie between
//!   the first unacknowledged one and the highest SACKed one (`fackets_out`).
//! - `ssthresh` is the congestion control's decrease of the reduction base; **cwnd is not cut
//!   at entry**.
//! - FACK marks lost every unSACKed segment among the first `fackets_out − reordering` (at
//!   least one) from `snd_una`, never beyond `high_seq` (`recover`); on a duplicate ACK, and on
//!   a partial ACK while `fackets_out > reordering`.
//! - On each ACK that acknowledges or SACKs data, a counter steps; every second step cwnd
//!   falls by one segment while it is above the congestion control's floor (`tcp_cwnd_min`:
//!   `ssthresh / 2` for Reno and HighSpeed, `ssthresh` for CUBIC), then `cwnd = min(cwnd,
//!   in_flight + 1)`.
//! - What is sent: lost segments first, then new data, then (only when no new data may go)
//!   other holes below the highest SACK — RFC 6675's `NextSeg` rules 1–3 with FACK's losses.
//! - Recovery ends when `snd_una` reaches `high_seq`: `cwnd = min(cwnd, ssthresh)`.
//!
//! Not modelled: undo (DSACK, timestamps), the head's RTO-age loss marking, F-RTO.

use super::{AckInfo, TcpSender};
use crate::outbox::Outbox;
use crate::tcp::cc::CongestionControl;
use crate::time::Time;

impl TcpSender {
    /// Enters rate-halving recovery.
    pub(super) fn halving_enter(&mut self, info: AckInfo, now: Time, out: &mut Outbox) {
        // Linux marks the losses before it counts the ACK; its reduction base (cwnd) does not
        // depend on them.
        self.begin_recovery(false, now);
        self.rec.halving_cnt = 0;
        self.fack_mark();
        self.cwnd_down(info.delivered > 0);
        self.sack_send(now, out);
    }

    /// An ACK during rate-halving recovery (`partial`: it advanced `snd_una`): FACK's marks and
    /// the window's step down. The caller sends.
    pub(super) fn halving_on_ack(&mut self, info: AckInfo, partial: bool) {
        let fackets = self.fackets_out();
        // tcp_fastretrans_alert: a duplicate ACK always marks; a partial ACK (or an ACK that
        // SACKs) only when fackets_out > reordering.
        let do_lost = !partial || fackets > self.rec.dupack_threshold as u64;
        if do_lost {
            self.fack_mark();
        }
        self.cwnd_down(info.delivered > 0);
    }

    /// Segments from `snd_una` to the highest SACKed one (Linux `fackets_out`).
    fn fackets_out(&self) -> u64 {
        self.rec.scoreboard.highest().map_or(0, |h| h.saturating_sub(self.snd_una))
    }

    /// `tcp_update_scoreboard` with FACK: the first `max(fackets_out − reordering, 1)`
    /// segments are lost unless SACKed, up to `high_seq`.
    fn fack_mark(&mut self) {
        let lost = self.fackets_out().saturating_sub(self.rec.dupack_threshold as u64).max(1);
        let end = (self.snd_una + lost).min(self.rec.recover);
        self.rec.marked_lost_end = self.rec.marked_lost_end.max(end);
    }

    /// `tcp_cwnd_down`: on an ACK with progress, every second one takes a segment off cwnd
    /// (down to the congestion control's floor); cwnd never exceeds `in_flight + 1`.
    fn cwnd_down(&mut self, progress: bool) {
        if !progress {
            return;
        }
        let decr = self.rec.halving_cnt + 1;
        self.rec.halving_cnt = decr & 1;
        let floor = self.cc.reduction_floor(self.win.ssthresh);
        if decr >> 1 > 0 && self.win.cwnd > floor {
            self.win.cwnd -= decr >> 1;
        }
        let in_flight = self.sack_pipe().min(u32::MAX as u64 - 1) as u32;
        self.win.cwnd = self.win.cwnd.min(in_flight + 1).max(1);
    }
}
