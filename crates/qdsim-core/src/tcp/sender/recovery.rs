//! Loss recovery: what duplicate ACKs, ACKs during recovery and timeouts do to the window,
//! and what is retransmitted.
//!
//! Schemes ([`Scheme`]), chosen from the congestion control and the `sack` option:
//!
//! - fast retransmit on the `dupack_threshold`-th duplicate ACK (RFC 5681 §3.2), with
//!   `ssthresh` from [`TcpSender::loss_ssthresh`] and window inflation by one segment per
//!   further duplicate ACK;
//! - **Reno** leaves fast recovery on the first new ACK (`cwnd = ssthresh`);
//! - **Tahoe** retransmits and restarts slow start from one segment (no fast recovery);
//! - **NewReno** (RFC 6582 §3.2, also used by Cubic and HighSpeed TCP) leaves only when the
//!   ACK covers `recover` (all data outstanding at the loss); a partial ACK retransmits the
//!   next hole, deflates the window by the amount acknowledged minus one segment, and — on
//!   the first partial ACK only, the "Impatient" variant the RFC recommends — restarts the
//!   timer. A fast retransmit is skipped if the duplicate ACKs do not cover `recover` (after
//!   a timeout, §3.2 step 2);
//! - **SACK** (RFC 6675, with `sack = true` whatever the congestion control): `cwnd =
//!   ssthresh` at once, then `NextSeg` and `pipe` decide what is sent, every hole of the
//!   window within one RTT, with one rescue retransmission per recovery;
//! - limited transmit (RFC 3042, optional): the first two duplicate ACKs each release a new
//!   segment.
//!
//! A retransmission timeout (the sender's `on_timeout`) ends any recovery
//! ([`LossRecovery::on_timeout`]) and starts go-back-N, tracked until everything outstanding
//! at the timeout is acknowledged.
//!
//! The seams for what comes next: the state of a loss episode is one struct
//! ([`LossRecovery`]); the threshold after a loss is one function
//! ([`TcpSender::loss_ssthresh`]); the window is set in three places only — entering
//! recovery ([`TcpSender::fast_retransmit`]), each ACK during it
//! ([`TcpSender::on_dupack`], [`TcpSender::on_ack_in_recovery`]) and leaving it
//! ([`TcpSender::exit_recovery`]) — which is where a rate-halving rule such as PRR
//! (RFC 6937) goes.

use crate::outbox::Outbox;
use crate::tcp::config::{CcKind, TcpConfig};
use crate::tcp::sack::Scoreboard;
use crate::time::Time;

use super::TcpSender;
use crate::tcp::cc::CongestionControl;

/// How a loss detected by duplicate ACKs is repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// RFC 5681 fast recovery, ended by any new ACK.
    Reno,
    /// RFC 6582 fast recovery, ended by an ACK covering `recover`.
    NewReno,
    /// RFC 6675 SACK-based recovery.
    Sack,
}

impl Scheme {
    /// Returns the scheme of congestion control `kind` without SACK: Cubic and HighSpeed TCP
    /// recover as NewReno (Linux recovers with SACK when it is negotiated).
    pub fn of(kind: CcKind) -> Scheme {
        match kind {
            CcKind::Tahoe => Scheme::Tahoe,
            CcKind::Reno => Scheme::Reno,
            CcKind::Newreno | CcKind::Cubic | CcKind::Highspeed | CcKind::HighspeedNs2 => Scheme::NewReno,
        }
    }
}

/// The loss-recovery state of a sender (the RFCs' variables, one loss episode at a time).
#[derive(Debug)]
pub(super) struct LossRecovery {
    /// The scheme for losses detected by duplicate ACKs.
    pub scheme: Scheme,
    /// RFC 6582 §3.2 step 2: a fast retransmit whose duplicate ACKs do not cover `recover`
    /// is skipped. Every scheme but Reno's (also with SACK: Reno has no `recover` check).
    pub checks_recover: bool,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 DupThresh).
    pub dupack_threshold: u32,
    /// RFC 3042 limited transmit.
    pub limited_transmit: bool,
    /// What the receiver has SACKed (SACK scheme only).
    pub scoreboard: Scoreboard,
    /// Duplicate ACKs since the last new ACK.
    pub dupacks: u32,
    /// In fast recovery (Reno, NewReno or SACK).
    pub in_recovery: bool,
    /// RFC 6582 `recover` (RFC 6675 RecoveryPoint), exclusive: one past the highest segment
    /// sent when the last recovery or timeout began.
    pub recover: u64,
    /// Partial ACKs in this NewReno recovery.
    pub partial_acks: u32,
    /// RFC 6675 HighRxt, exclusive: one past the highest segment retransmitted in this recovery.
    pub high_rxt: u64,
    /// RFC 6675 rule 4: the rescue retransmission was sent in this recovery.
    pub rescue_sent: bool,
    /// Between a timeout and the ACK of everything outstanding at it.
    pub after_timeout: bool,
}

impl LossRecovery {
    /// Returns the state of a sender configured by `cfg`, before any loss.
    pub fn new(cfg: &TcpConfig) -> Self {
        let dupack_scheme = Scheme::of(cfg.cc);
        LossRecovery {
            scheme: if cfg.sack { Scheme::Sack } else { dupack_scheme },
            checks_recover: dupack_scheme != Scheme::Reno,
            dupack_threshold: cfg.dupack_threshold,
            limited_transmit: cfg.limited_transmit,
            scoreboard: Scoreboard::default(),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            high_rxt: 0,
            rescue_sent: false,
            after_timeout: false,
        }
    }

    /// Returns whether the receiver's SACK blocks are used.
    pub fn sack(&self) -> bool {
        self.scheme == Scheme::Sack
    }

    /// A retransmission timeout with `snd_max` sent: any recovery ends, and data sent so
    /// far cannot start another one (`recover`).
    pub fn on_timeout(&mut self, snd_max: u64) {
        self.after_timeout = true;
        self.in_recovery = false;
        self.dupacks = 0;
        self.recover = snd_max;
    }
}

impl TcpSender {
    /// Returns the slow-start threshold after a loss (duplicate ACKs, a timeout or an ECN
    /// echo): the congestion control's rule on the current FlightSize (RFC 5681 eq. 4 for
    /// Reno). The one place a different rule (cwnd-based as Linux, `pipe`-based as ns-3)
    /// would go.
    pub(super) fn loss_ssthresh(&mut self, now: Time) -> u32 {
        let flight = self.flight();
        self.cc.ssthresh_after_loss(&self.win, flight, now)
    }

    /// Handles a duplicate ACK.
    pub(super) fn on_dupack(&mut self, now: Time, out: &mut Outbox) {
        let r = &mut self.rec;
        r.dupacks += 1;
        if r.in_recovery {
            if r.scheme == Scheme::Sack {
                self.sack_send(now, out);
            } else {
                // Window inflation: each duplicate ACK means a segment has left the network.
                self.win.cwnd += 1;
                self.send_available(now, out);
            }
        } else if r.limited_transmit && r.dupacks < r.dupack_threshold && r.dupacks <= 2 {
            self.limited_transmit(now, out);
        } else if r.dupacks == r.dupack_threshold
            || (r.sack() && r.scoreboard.sacked_above(self.snd_una) >= r.dupack_threshold as u64)
        {
            self.fast_retransmit(now, out);
        }
    }

    /// RFC 3042: one new segment per duplicate ACK, beyond cwnd by at most two segments, if
    /// the receiver window allows and there is new data.
    fn limited_transmit(&mut self, now: Time, out: &mut Outbox) {
        let beyond = (self.win.cwnd + self.rec.dupacks) as u64;
        let allowed = self.snd_nxt == self.snd_max
            && self.snd_nxt < self.snd_una + beyond
            && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
            && self.data.has(self.snd_nxt);
        if allowed {
            let seq = self.snd_nxt;
            self.transmit(seq, now, out);
            self.snd_nxt += 1;
            self.snd_max = self.snd_nxt;
        }
    }

    /// The duplicate ACKs reached the threshold: retransmit and enter the scheme's recovery.
    fn fast_retransmit(&mut self, now: Time, out: &mut Outbox) {
        // Duplicate ACKs that do not cover `recover` are for data sent before a timeout
        // (RFC 6582 §3.2 step 2).
        if self.rec.checks_recover && self.snd_una < self.rec.recover {
            return;
        }
        self.stats.fast_retransmits += 1;
        out.event("fast_retransmit", self.snd_una);
        self.win.ssthresh = self.loss_ssthresh(now);
        self.rec.recover = self.snd_max;
        match self.rec.scheme {
            Scheme::Sack => {
                // RFC 6675 §5: cwnd = ssthresh, retransmit the first hole, then let `pipe`
                // decide what else goes out — every lost segment can be resent in this RTT.
                self.rec.in_recovery = true;
                self.win.cwnd = self.win.ssthresh;
                self.win.cwnd_cnt = 0;
                self.rec.rescue_sent = false;
                self.transmit(self.snd_una, now, out);
                self.rec.high_rxt = self.snd_una + 1;
                self.arm_rto(now, out);
                self.sack_send(now, out);
            }
            Scheme::Tahoe => {
                // Retransmit, then slow start from one segment, go-back-N.
                self.win.cwnd = 1;
                self.win.cwnd_cnt = 0;
                self.snd_nxt = self.snd_una;
                self.rec.dupacks = 0;
                self.send_available(now, out);
                self.arm_rto(now, out);
            }
            Scheme::Reno | Scheme::NewReno => {
                self.rec.in_recovery = true;
                self.rec.partial_acks = 0;
                self.transmit(self.snd_una, now, out);
                self.win.cwnd = self.win.ssthresh + self.rec.dupack_threshold;
                self.win.cwnd_cnt = 0;
                self.arm_rto(now, out);
                self.send_available(now, out);
            }
        }
    }

    /// Handles a new ACK of `acked` segments (up to `ack`) during fast recovery; returns
    /// whether the retransmission timer restarts.
    pub(super) fn on_ack_in_recovery(&mut self, ack: u64, acked: u32, now: Time, out: &mut Outbox) -> bool {
        let full = ack >= self.rec.recover;
        match self.rec.scheme {
            Scheme::Sack if full => self.exit_recovery(self.win.ssthresh),
            Scheme::Sack => self.sack_send(now, out),
            // Reno: any new ACK ends recovery, the window deflated to ssthresh.
            Scheme::Reno => self.exit_recovery(self.win.ssthresh),
            // RFC 6582 §3.2 step 3 option 1: min(ssthresh, max(FlightSize, SMSS) + SMSS).
            Scheme::NewReno | Scheme::Tahoe if full => {
                self.exit_recovery(self.win.ssthresh.min(self.flight().max(1) + 1));
            }
            Scheme::NewReno | Scheme::Tahoe => {
                // Partial ACK: retransmit the next hole; deflate by what was acknowledged,
                // then add back one segment (RFC 6582 §3.2 step 4). Only the first partial
                // ACK restarts the timer (the "Impatient" variant).
                self.transmit(self.snd_una, now, out);
                self.win.cwnd = (self.win.cwnd.saturating_sub(acked) + 1).max(1);
                self.rec.partial_acks += 1;
                return self.rec.partial_acks == 1;
            }
        }
        true
    }

    /// Leaves fast recovery with window `cwnd`.
    fn exit_recovery(&mut self, cwnd: u32) {
        self.win.cwnd = cwnd;
        self.win.cwnd_cnt = 0;
        self.rec.in_recovery = false;
        self.rec.dupacks = 0;
    }

    /// Sends during SACK recovery while `cwnd > pipe` (RFC 6675 §5 step 4), choosing each
    /// segment by `NextSeg`: a lost hole (rule 1), else new data (rule 2), else any unSACKed
    /// hole below the highest SACK (rule 3), else once the rescue retransmission (rule 4).
    fn sack_send(&mut self, now: Time, out: &mut Outbox) {
        let thr = self.rec.dupack_threshold as u64;
        loop {
            let pipe = self.rec.scoreboard.pipe(self.snd_una, self.snd_max, self.rec.high_rxt, thr);
            if self.win.cwnd as u64 <= pipe {
                break;
            }
            let from = self.rec.high_rxt.max(self.snd_una);
            let seq = if let Some(hole) = self.rec.scoreboard.next_hole(from, thr, true) {
                hole
            } else if self.snd_nxt == self.snd_max
                && self.data.has(self.snd_nxt)
                && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
            {
                let seq = self.snd_nxt;
                self.transmit(seq, now, out);
                self.snd_nxt += 1;
                self.snd_max = self.snd_nxt;
                continue;
            } else if let Some(hole) = self.rec.scoreboard.next_hole(from, thr, false) {
                hole
            } else {
                // Rule 4, the rescue retransmission: once per recovery, resend the highest
                // unSACKed segment, so a loss at the tail of a window (which no later segment
                // can reveal) need not wait for the timer. HighRxt is not updated.
                if !self.rec.rescue_sent {
                    let sb = &self.rec.scoreboard;
                    if let Some(last) = (self.snd_una..self.snd_max).rev().find(|&s| !sb.is_sacked(s)) {
                        self.rec.rescue_sent = true;
                        self.transmit(last, now, out);
                    }
                }
                break;
            };
            self.transmit(seq, now, out);
            self.rec.high_rxt = seq + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::outbox::Outbox;
    use crate::packet::FLAG_RETX;
    use crate::tcp::testing::*;
    use crate::tcp::{CcKind, TcpConfig, TcpSender};
    use crate::time::Time;

    #[test]
    fn third_duplicate_ack_triggers_fast_retransmit_with_halved_ssthresh() {
        let (mut s, mut out) = sender_with_window(CcKind::Newreno);
        // Segment 0 is lost: segments 1..=3 arrive and produce three duplicate ACKs for 0.
        s.on_ack(&ack(0, T), T, &mut out);
        s.on_ack(&ack(0, T), T, &mut out);
        assert_eq!(sent(&mut out), vec![]);
        s.on_ack(&ack(0, T), T, &mut out);
        // Retransmit 0; ssthresh = FlightSize/2 = 10/2 = 5; cwnd = ssthresh + 3 = 8 < flight 10,
        // so nothing new is sent yet.
        assert_eq!(sent(&mut out), vec![(0, true)]);
        assert_eq!(s.win.ssthresh, 5);
        assert_eq!(s.win.cwnd, 8);
        assert_eq!(s.stats.fast_retransmits, 1);
        // Three more duplicates inflate cwnd to 11: one new segment (10) may go.
        for _ in 0..3 {
            s.on_ack(&ack(0, T), T, &mut out);
        }
        assert_eq!(s.win.cwnd, 11);
        assert_eq!(sent(&mut out), vec![(10, false)]);
    }

    #[test]
    fn newreno_retransmits_the_next_hole_on_a_partial_ack() {
        let (mut s, mut out) = sender_with_window(CcKind::Newreno);
        // Segments 0 and 5 lost.
        for _ in 0..3 {
            s.on_ack(&ack(0, T), T, &mut out);
        }
        sent(&mut out);
        // The retransmitted 0 fills the first hole: ACK 5 is partial (recover = 10).
        s.on_ack(&ack(5, T), T, &mut out);
        let out1 = sent(&mut out);
        assert_eq!(out1.first(), Some(&(5, true)), "partial ACK retransmits the next hole: {out1:?}");
        // cwnd = 8 - 5 acked + 1 = 4: the window still covers 5..9 in flight, nothing new.
        assert_eq!(s.win.cwnd, 4);
        assert_eq!(s.snd_una, 5);
        // ACK 10 covers recover: full ACK. Nothing is outstanding, so RFC 6582's
        // cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(5, 1 + 1) = 2: two new segments.
        s.on_ack(&ack(10, T), T, &mut out);
        assert_eq!(s.win.cwnd, 2);
        assert_eq!(sent(&mut out), vec![(10, false), (11, false)]);
        assert_eq!(s.stats.timeouts, 0);
    }

    #[test]
    fn reno_leaves_fast_recovery_on_the_first_new_ack() {
        let (mut s, mut out) = sender_with_window(CcKind::Reno);
        for _ in 0..3 {
            s.on_ack(&ack(0, T), T, &mut out);
        }
        sent(&mut out);
        s.on_ack(&ack(5, T), T, &mut out);
        // Reno deflates to ssthresh and does not retransmit 5 on the partial ACK.
        assert_eq!(s.win.cwnd, 5);
        assert!(!sent(&mut out).contains(&(5, true)));
        // Three more duplicates for 5 start a second fast retransmit (Reno's known weakness).
        for _ in 0..3 {
            s.on_ack(&ack(5, T), T, &mut out);
        }
        assert!(sent(&mut out).contains(&(5, true)));
        assert_eq!(s.stats.fast_retransmits, 2);
    }

    #[test]
    fn tahoe_restarts_slow_start_from_one_segment_on_fast_retransmit() {
        let (mut s, mut out) = sender_with_window(CcKind::Tahoe);
        for _ in 0..3 {
            s.on_ack(&ack(0, T), T, &mut out);
        }
        assert_eq!(s.win.cwnd, 1);
        assert_eq!(s.win.ssthresh, 5);
        assert_eq!(sent(&mut out), vec![(0, true)], "go-back-N starts with the lost segment only");
        // The retransmission's ACK is cumulative to 4 (segments 1..=3 had arrived): it ACKs 4
        // segments but counts at most L = 2 toward growth (RFC 3465), so cwnd = 1 + 2 = 3 and
        // go-back-N resends 4..=6.
        s.on_ack(&ack(4, T), T, &mut out);
        assert_eq!(s.win.cwnd, 3);
        assert_eq!(sent(&mut out), (4..=6).map(|i| (i, true)).collect::<Vec<_>>());
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
        // A window of 4: segment 0 lost. Without limited transmit only 3 segments follow it, so
        // 3 duplicate ACKs are the most the sender can get; with it, each of the first two
        // duplicates releases a new segment (4 and 5), which can produce more duplicates.
        for (lt, expected) in [(false, vec![]), (true, vec![4u64, 5])] {
            let c = TcpConfig { limited_transmit: lt, initial_cwnd_pkts: 4, ..cfg(CcKind::Newreno) };
            let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            out.pkts.clear();
            s.on_ack(&ack(0, T), T, &mut out);
            s.on_ack(&ack(0, T), T, &mut out);
            assert_eq!(sent(&mut out).iter().map(|p| p.0).collect::<Vec<_>>(), expected, "limited transmit {lt}");
            assert_eq!(s.win.cwnd, 4, "cwnd is not changed by limited transmit");
            s.on_ack(&ack(0, T), T, &mut out);
            assert_eq!(s.stats.fast_retransmits, 1);
        }
    }

    #[test]
    fn sack_resends_every_lost_segment_of_a_window_in_one_rtt_where_newreno_needs_one_per_loss() {
        // Window 0..10; segments 0, 3 and 6 are lost. The receiver's ACKs for 1, 2, 4, 5, 7..9
        // are duplicates of 0 with growing SACK blocks.
        let arrivals: [&[(u64, u64)]; 7] = [
            &[(1, 2)],
            &[(1, 3)],
            &[(4, 5), (1, 3)],
            &[(4, 6), (1, 3)],
            &[(7, 8), (4, 6), (1, 3)],
            &[(7, 9), (4, 6), (1, 3)],
            &[(7, 10), (4, 6), (1, 3)],
        ];
        let mut resent = std::collections::BTreeMap::new();
        for (sack, cc) in [(true, CcKind::Newreno), (false, CcKind::Newreno)] {
            let c = TcpConfig { sack, ..cfg(cc) };
            let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
            let mut out = Outbox::default();
            s.start(Time::ZERO, &mut out);
            out.pkts.clear();
            for blocks in arrivals {
                s.on_ack(&sack_ack(0, if sack { blocks } else { &[] }), T, &mut out);
            }
            let retx: Vec<u64> = out.pkts.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq).collect();
            resent.insert(sack, retx);
            assert_eq!(s.stats.fast_retransmits, 1);
        }
        // Within the round trip of the duplicate ACKs, SACK has resent all three holes;
        // NewReno only the first (the others wait for partial ACKs, one RTT each).
        assert_eq!(resent[&true], vec![0, 3, 6]);
        assert_eq!(resent[&false], vec![0]);
    }

    #[test]
    fn sack_sends_one_rescue_retransmission_for_a_lost_tail() {
        // A finite transfer of 10 segments: segments 0 and 9 (the tail) are lost. Duplicate
        // ACKs SACK 1..9; nothing reveals 9's loss (fewer than DupThresh SACKed above it) and there
        // is no new data, so rule 4 resends the highest unSACKed segment once.
        let c = TcpConfig { sack: true, ..cfg(CcKind::Newreno) };
        let mut s = TcpSender::new(0, 0, 0, 1, &c, Some(10 * 1460));
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        out.pkts.clear();
        for hi in 2..=9 {
            s.on_ack(&sack_ack(0, &[(1, hi)]), T, &mut out);
        }
        let retx: Vec<u64> = out.pkts.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq).collect();
        assert_eq!(retx, vec![0, 9]);
    }
}
