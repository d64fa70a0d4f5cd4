//! Loss recovery: what duplicate ACKs, ACKs during recovery and timeouts do to the window,
//! and what is retransmitted.
//!
//! Without SACK the congestion control names the scheme (`newreno.rs`): **Tahoe**
//! (retransmit, slow start from one segment), **Reno** (RFC 5681 fast recovery, ended by any
//! new ACK), **NewReno** (RFC 6582, also Cubic's and HighSpeed's: partial ACKs retransmit the
//! next hole), the last with PRR's window instead of inflation when `recovery = "prr"`.
//!
//! With SACK the `recovery` option names it:
//!
//! - **rfc6675** (RFC 6675 §5): `cwnd = ssthresh` at once; `NextSeg` and `pipe` decide what
//!   goes out ([`TcpSender::sack_send`]);
//! - **prr** (`prr.rs`, RFC 6937 / RFC 9937): the same `NextSeg`, with cwnd set per ACK by
//!   Proportional Rate Reduction;
//! - **rate_halving** (`rate_halving.rs`, Linux 2.6): FACK loss marking, cwnd one segment
//!   down per two ACKs, the same `NextSeg` order;
//! - **ns2_sack1** (`ns2_sack1.rs`): ns-2's `pipe_` counter and in-order hole retransmission.
//!
//! Common to all: a duplicate ACK of a SACK connection counts only if it SACKs something new
//! (RFC 6675 §2); fast retransmit needs `dupack_threshold` of them (or RFC 6675's `IsLost`
//! of the first segment, or FACK for rate-halving), and not for data sent before the last
//! timeout or recovery (RFC 6582 §3.2 step 2, `recover`); `ssthresh` is the congestion
//! control's decrease of the `reduction_base` ([`TcpSender::loss_ssthresh`]); limited
//! transmit (`limited_transmit`) sends new data on duplicate ACKs before recovery.
//!
//! A retransmission timeout (the sender's `on_timeout`) ends any recovery
//! ([`LossRecovery::on_timeout`]) and starts go-back-N, tracked until everything outstanding
//! at the timeout is acknowledged.

mod newreno;
mod ns2_sack1;
mod prr;
mod rate_halving;

use crate::outbox::Outbox;
use crate::tcp::cc::CongestionControl;
use crate::tcp::config::{
    CcKind, LimitedTransmit, PrrBound, RecoverCheck, RecoveryExit, RecoveryKind, ReductionBase, RescueRetransmit,
    TcpConfig,
};
use crate::tcp::sack::Scoreboard;
use crate::time::Time;

use super::TcpSender;
use prr::Prr;

/// How a loss detected by duplicate ACKs is repaired.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Fast retransmit, then slow start from one segment (no fast recovery).
    Tahoe,
    /// RFC 5681 fast recovery, ended by any new ACK.
    Reno,
    /// RFC 6582 fast recovery, ended by an ACK covering `recover`.
    NewReno,
    /// SACK-based recovery, of the kind `recovery` names.
    Sack,
}

impl Scheme {
    /// Returns the scheme of congestion control `kind` without SACK: Cubic and HighSpeed TCP
    /// recover as NewReno.
    pub fn of(kind: CcKind) -> Scheme {
        match kind {
            CcKind::Tahoe => Scheme::Tahoe,
            CcKind::Reno => Scheme::Reno,
            CcKind::Newreno | CcKind::Cubic | CcKind::Highspeed | CcKind::HighspeedNs2 => Scheme::NewReno,
        }
    }
}

/// What one ACK told the sender, for the recovery rules.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct AckInfo {
    /// Segments newly acknowledged cumulatively (the advance of `snd_una`).
    pub acked: u32,
    /// RFC 6937's DeliveredData: the advance of `snd_una` plus the change of the SACKed count.
    pub delivered: u32,
    /// The ACK SACKed a segment not SACKed before.
    pub new_sack: bool,
    /// The ACK made a segment lost that was not before (RFC 9937's "new loss").
    pub new_loss: bool,
}

/// The loss-recovery state of a sender (the RFCs' variables, one loss episode at a time).
#[derive(Debug)]
pub(super) struct LossRecovery {
    /// The scheme for losses detected by duplicate ACKs.
    pub scheme: Scheme,
    /// The SACK recovery (and, without SACK, whether NewReno uses PRR's window).
    pub kind: RecoveryKind,
    /// PRR's reduction bound.
    pub prr_bound: PrrBound,
    /// PRR counts a duplicate ACK as one more segment delivered (ns-3).
    pub prr_dupack_segment: bool,
    /// How a tail loss is resent.
    pub rescue: RescueRetransmit,
    /// What ssthresh (and PRR's RecoverFS) is cut from.
    pub base: ReductionBase,
    /// RFC 6582 §3.2 step 2: a fast retransmit whose duplicate ACKs do not cover `recover`
    /// is skipped. Every scheme but Reno's (also with SACK: Reno has no `recover` check),
    /// unless `recover_check = "ns2"` (ns-2's `bugFix_`: every agent).
    pub checks_recover: bool,
    /// The cumulative ACK must be past `recover`, not only reach it (ns-2's
    /// `highest_ack_ > recover_`; Tahoe and ns-2 Sack1 under the RFC rule too).
    pub strict_recover: bool,
    /// The window when NewReno's recovery ends.
    pub exit: RecoveryExit,
    /// Duplicate ACKs that trigger fast retransmit (RFC 5681 DupThresh).
    pub dupack_threshold: u32,
    /// Sending new data on duplicate ACKs before recovery.
    pub limited_transmit: LimitedTransmit,
    /// What the receiver has SACKed (SACK connections only).
    pub scoreboard: Scoreboard,
    /// Duplicate ACKs since the last new ACK.
    pub dupacks: u32,
    /// In fast recovery (Reno, NewReno or SACK).
    pub in_recovery: bool,
    /// RFC 6582 `recover` (RFC 6675 RecoveryPoint, Linux `high_seq`), exclusive: one past the
    /// highest segment sent when the last recovery or timeout began.
    pub recover: u64,
    /// Partial ACKs in this recovery.
    pub partial_acks: u32,
    /// RFC 6675 HighRxt (ns-2 `h_seqno_`), exclusive: one past the highest segment
    /// retransmitted in this recovery.
    pub high_rxt: u64,
    /// Segments below this (and unSACKed) are marked lost: the head at a fast retransmit
    /// (ns-3's `MarkHeadAsLost`), FACK's marks (Linux `tcp_mark_head_lost`).
    pub marked_lost_end: u64,
    /// RFC 6675 rule 4: the rescue retransmission was sent in this recovery.
    pub rescue_sent: bool,
    /// Between a timeout and the ACK of everything outstanding at it.
    pub after_timeout: bool,
    /// ns-2's `timeout_` (tcp-sack1.cc:129-166, 397-399): set by a timeout, cleared by the
    /// next new ACK; while set, ns-2's Sack1 takes no duplicate ACK into account.
    pub ns2_timeout: bool,
    /// PRR's state.
    pub prr: Prr,
    /// Rate-halving's ACK counter (Linux `snd_cwnd_cnt` during recovery).
    pub halving_cnt: u32,
    /// ns-2 Sack1's `pipe_`.
    pub ns2_pipe: i64,
    /// Without SACK, under PRR: duplicate ACKs counted as delivered segments that no
    /// cumulative ACK has covered yet.
    pub dup_credit: u32,
    /// With ns-2's window arithmetic, Reno's and NewReno's inflation (`dupwnd_`): the
    /// window sent is `cwnd_`'s integer part plus this.
    pub ns2_dupwnd: u32,
}

impl LossRecovery {
    /// Returns the state of a sender configured by `cfg`, before any loss.
    pub fn new(cfg: &TcpConfig) -> Self {
        let dupack_scheme = Scheme::of(cfg.cc);
        LossRecovery {
            scheme: if cfg.sack { Scheme::Sack } else { dupack_scheme },
            kind: cfg.recovery,
            prr_bound: cfg.prr_bound,
            prr_dupack_segment: cfg.prr_dupack_segment,
            rescue: cfg.rescue_retransmit,
            base: cfg.reduction_base.for_cc(cfg.cc),
            checks_recover: dupack_scheme != Scheme::Reno || cfg.recover_check == RecoverCheck::Ns2,
            strict_recover: cfg.recover_check == RecoverCheck::Ns2
                || (!cfg.sack && dupack_scheme == Scheme::Tahoe)
                || (cfg.sack && cfg.recovery == RecoveryKind::Ns2Sack1),
            exit: cfg.recovery_exit,
            dupack_threshold: cfg.dupack_threshold,
            limited_transmit: cfg.limited_transmit,
            scoreboard: Scoreboard::default(),
            dupacks: 0,
            in_recovery: false,
            recover: 0,
            partial_acks: 0,
            high_rxt: 0,
            marked_lost_end: 0,
            rescue_sent: false,
            after_timeout: false,
            ns2_timeout: false,
            prr: Prr::default(),
            halving_cnt: 0,
            ns2_pipe: 0,
            dup_credit: 0,
            ns2_dupwnd: 0,
        }
    }

    /// Returns whether the receiver's SACK blocks are used.
    pub fn sack(&self) -> bool {
        self.scheme == Scheme::Sack
    }

    /// Returns whether this recovery's window is PRR's (SACK or NewReno).
    pub fn uses_prr(&self) -> bool {
        self.kind == RecoveryKind::Prr && matches!(self.scheme, Scheme::Sack | Scheme::NewReno)
    }

    /// Returns the end of the lost prefix of the unSACKed segments: RFC 6675's `IsLost`
    /// (except under rate-halving, whose losses are FACK's marks) or the marks.
    pub fn lost_end(&self) -> u64 {
        let is_lost = match self.kind {
            RecoveryKind::RateHalving => 0,
            _ => self.scoreboard.is_lost_end(self.dupack_threshold as u64),
        };
        is_lost.max(self.marked_lost_end)
    }

    /// A retransmission timeout with `snd_max` sent: any recovery ends, and data sent so
    /// far cannot start another one (`recover`). ns-2 forgets the SACK scoreboard.
    pub fn on_timeout(&mut self, snd_max: u64) {
        self.after_timeout = true;
        self.ns2_timeout = true;
        self.in_recovery = false;
        self.dupacks = 0;
        self.dup_credit = 0;
        self.recover = snd_max;
        if self.kind == RecoveryKind::Ns2Sack1 {
            self.scoreboard.clear();
        }
    }
}

impl TcpSender {
    /// Returns the segments the reduction after a loss starts from (`reduction_base`); with
    /// `head_lost` the first unacknowledged segment counts as lost (a fast retransmit).
    fn reduction_base(&self, head_lost: bool) -> u32 {
        let r = &self.rec;
        match r.base {
            // FlightSize, capped at cwnd: after a long NewReno recovery, data sent by window
            // inflation makes FlightSize many times the pipe (153 segments against a cwnd of
            // 11 in one trace), and halving it would *raise* ssthresh.
            ReductionBase::Flightsize => self.flight().min(self.win.cwnd),
            // The window itself: during a Reno or NewReno recovery that is ssthresh, without
            // the duplicate ACKs' inflation, which ns-2 keeps apart (`dupwnd_`) and Linux
            // never adds (a timeout in recovery halves the halved window again).
            // ns-2's `windowd()`, `min(cwnd_, window_)`, never inflated.
            ReductionBase::Cwnd if self.win.ns2_windowd().is_some() => {
                self.win.ns2_windowd().unwrap_or_default() as u32
            }
            ReductionBase::Cwnd
                if r.in_recovery && matches!(r.scheme, Scheme::Reno | Scheme::NewReno) && !r.uses_prr() =>
            {
                self.win.ssthresh
            }
            ReductionBase::Cwnd => self.win.cwnd,
            // `Ns3` is resolved per congestion control in `new` (`for_cc`); were it not, the
            // pipe is what ns-3's TcpSocketBase hands every control.
            ReductionBase::Pipe | ReductionBase::Ns3 => {
                let head = u32::from(head_lost);
                if r.sack() {
                    let high_rxt = if r.in_recovery { r.high_rxt } else { self.snd_una };
                    let lost = r.lost_end().max(if head_lost { self.snd_una + 1 } else { 0 });
                    r.scoreboard.pipe(self.snd_una, self.snd_max, high_rxt, lost) as u32
                } else {
                    // Each duplicate ACK stands for a segment that left the network (ns-3's
                    // `AddRenoSack`).
                    self.flight().saturating_sub(r.dupacks + head)
                }
            }
        }
    }

    /// Returns the slow-start threshold after a loss (duplicate ACKs with `head_lost`, a
    /// timeout or an ECN echo): the congestion control's decrease of the reduction base.
    pub(super) fn loss_ssthresh(&mut self, head_lost: bool, now: Time) -> u32 {
        let base = self.reduction_base(head_lost);
        self.cc.ssthresh_after_loss(&self.win, base, now)
    }

    /// Handles a duplicate ACK (`info.acked == 0`).
    pub(super) fn on_dupack(&mut self, info: AckInfo, now: Time, out: &mut Outbox) {
        if self.rec.in_recovery {
            match self.rec.scheme {
                Scheme::Sack => self.sack_ack_in_recovery(info, false, now, out),
                _ => self.newreno_dupack_in_recovery(now, out),
            }
            return;
        }
        // RFC 6675 §2: with SACK, a duplicate ACK must SACK something new.
        if self.rec.sack() && !info.new_sack {
            return;
        }
        self.rec.dupacks += 1;
        if self.recovery_starts() {
            self.fast_retransmit(info, now, out);
        } else {
            self.limited_transmit(now, out);
        }
    }

    /// Returns whether duplicate ACKs may start a recovery now: not while they may be for
    /// data sent before the last timeout or recovery, which go-back-N resends and the receiver
    /// answers with duplicate ACKs (RFC 6582 §3.2 step 2, RFC 6675 §5.1). Once `snd_una`
    /// reaches `recover` (RFC 6675's `HighACK ≥ RecoveryPoint`, ns-3's `m_highRxAckMark >=
    /// m_recover`) — but for Tahoe and ns-2 Sack1 only once it is past it (ns-2's
    /// `highest_ack_ > recover_`, RFC 6582's "covers more than recover"): their every fast
    /// retransmit goes back N (Tahoe) or their duplicate ACKs need no new SACK information
    /// (Sack1 counts any change of its scoreboard), and the echoes of the resent segments,
    /// ACKing exactly `recover`, would otherwise start a spurious recovery after each one.
    /// Reno has no check — but under ns-2's rule (`recover_check = "ns2"`, its `bugFix_`)
    /// every agent has, and every one is past it.
    fn may_recover(&self) -> bool {
        let r = &self.rec;
        if !r.checks_recover || r.recover == 0 {
            return true;
        }
        if r.strict_recover {
            self.snd_una > r.recover
        } else {
            self.snd_una >= r.recover
        }
    }

    /// Returns whether the duplicate ACKs so far start a recovery.
    fn recovery_starts(&self) -> bool {
        let r = &self.rec;
        if !self.may_recover() {
            return false;
        }
        let thr = r.dupack_threshold;
        if !r.sack() || r.kind == RecoveryKind::Ns2Sack1 {
            return r.dupacks == thr;
        }
        if r.kind == RecoveryKind::RateHalving {
            // FACK (tcp_time_to_recover): more than `reordering` segments from the head to
            // the highest SACKed one.
            return r.scoreboard.highest().is_some_and(|h| h - self.snd_una > thr as u64);
        }
        // RFC 6675 §5 (1)-(2): DupAcks >= DupThresh, or IsLost(HighACK + 1).
        r.dupacks == thr || r.scoreboard.is_lost_end(thr as u64) > self.snd_una
    }

    /// New data on a duplicate ACK before recovery (`limited_transmit`); not while the
    /// duplicates are for data sent before the last timeout or recovery (Linux's Loss state,
    /// ns-3 ignoring duplicates in LOSS), when they may be echoes of go-back-N.
    fn limited_transmit(&mut self, now: Time, out: &mut Outbox) {
        let r = &self.rec;
        if r.limited_transmit == LimitedTransmit::Ns2 {
            return self.ns2_send_one(now, out);
        }
        if !self.may_recover() {
            return;
        }
        let (beyond, limit) = match r.limited_transmit {
            LimitedTransmit::Off | LimitedTransmit::Ns2 => return,
            // RFC 3042: one new segment on each of the first two duplicate ACKs, at most two
            // beyond cwnd.
            LimitedTransmit::Rfc3042 if r.dupacks <= 2 => (self.win.cwnd + r.dupacks, 1),
            LimitedTransmit::Rfc3042 => return,
            // Linux / ns-3: segments SACKed (without SACK, one per duplicate ACK) have left the
            // network, so new ones may go while pipe < cwnd.
            LimitedTransmit::Pipe => {
                // Without SACK at most FlightSize − 1, as Linux's `tcp_limit_reno_sacked`.
                let left = if r.sack() {
                    r.scoreboard.sacked_total()
                } else {
                    r.dupacks.min(self.flight().saturating_sub(1)) as u64
                };
                (self.win.cwnd + left.min(u32::MAX as u64) as u32, u32::MAX)
            }
        };
        for _ in 0..limit {
            let allowed = self.snd_nxt == self.snd_max
                && self.snd_nxt < self.snd_una + beyond as u64
                && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
                && self.data.has(self.snd_nxt);
            if !allowed {
                break;
            }
            self.send_new(now, out);
        }
    }

    /// ns-2's `send_one` on a duplicate ACK before the fast retransmit: the next segment in
    /// sequence, new or (after a timeout) a go-back-N resend, if `snd_nxt < snd_una + cwnd +
    /// dupacks` (ns-2's `t_seqno_ <= highest_ack_ + cwnd_ + dupacks_`) and within the
    /// receiver's window — with no `recover_` check; Sack1 not before a new ACK has followed
    /// a timeout (`timeout_`).
    fn ns2_send_one(&mut self, now: Time, out: &mut Outbox) {
        let r = &self.rec;
        if r.dupacks >= r.dupack_threshold || (r.kind == RecoveryKind::Ns2Sack1 && r.ns2_timeout) {
            return;
        }
        let window = self.snd_una + u64::from(self.win.cwnd) + u64::from(r.dupacks);
        if self.snd_nxt < window
            && self.snd_nxt < self.snd_una + u64::from(self.win.cwnd_clamp)
            && self.data.has(self.snd_nxt)
        {
            self.send_new(now, out);
        }
    }

    /// Sends the next segment in sequence (new, unless go-back-N is resending).
    fn send_new(&mut self, now: Time, out: &mut Outbox) {
        let seq = self.snd_nxt;
        self.transmit(seq, now, out);
        self.snd_nxt += 1;
        self.snd_max = self.snd_max.max(self.snd_nxt);
    }

    /// Whether a new segment may go out beyond what the window allows: one is written and
    /// within the receiver window.
    fn may_send_new(&self) -> bool {
        self.snd_nxt == self.snd_max
            && self.data.has(self.snd_nxt)
            && self.snd_nxt < self.snd_una + self.win.cwnd_clamp as u64
    }

    /// The duplicate ACKs reached the threshold: retransmit and enter the scheme's recovery.
    fn fast_retransmit(&mut self, info: AckInfo, now: Time, out: &mut Outbox) {
        self.stats.fast_retransmits += 1;
        out.event("fast_retransmit", self.snd_una);
        self.karn_reset();
        if self.restarts_on_fast_retransmit() {
            self.arm_rto(now, out);
        }
        match self.rec.scheme {
            Scheme::Sack => match self.rec.kind {
                RecoveryKind::Rfc6675 | RecoveryKind::Prr => self.sack_enter(info, now, out),
                RecoveryKind::RateHalving => self.halving_enter(info, now, out),
                RecoveryKind::Ns2Sack1 => self.ns2_enter(now, out),
            },
            _ => self.newreno_enter(now, out),
        }
    }

    /// Starts a recovery: the threshold, `recover`, nothing retransmitted yet.
    fn begin_recovery(&mut self, head_lost: bool, now: Time) -> u32 {
        let base = self.reduction_base(head_lost);
        let windowd = self.win.ns2_windowd();
        self.win.ssthresh = self.cc.ssthresh_after_loss(&self.win, base, now);
        self.win.cwnd_cnt = 0;
        if let Some(wd) = windowd {
            // ns-2's `cwnd_` after `slowdown(CLOSE_CWND_HALF)`; each scheme sets what it sends.
            self.win.ns2_cwnd = Some(self.cc.ns2_window_after_loss(wd));
        }
        let r = &mut self.rec;
        r.recover = self.snd_max;
        r.in_recovery = true;
        r.partial_acks = 0;
        r.rescue_sent = false;
        r.high_rxt = self.snd_una;
        r.marked_lost_end = if head_lost { self.snd_una + 1 } else { self.snd_una };
        base
    }

    /// RFC 6675 §5 step 4 (and PRR's entry): the threshold, the window, the fast
    /// retransmission of the first segment, then `NextSeg` while `cwnd > pipe`.
    fn sack_enter(&mut self, info: AckInfo, now: Time, out: &mut Outbox) {
        let base = self.begin_recovery(true, now);
        if self.rec.uses_prr() {
            // PRR sets cwnd from this ACK; the fast retransmission goes out whatever it allows
            // (ns-3's `EnterRecovery`) and counts in prr_out.
            self.rec.prr = Prr::start(base);
            self.prr_on_ack(info, true, false);
        } else {
            self.win.cwnd = self.win.ssthresh;
        }
        self.transmit(self.snd_una, now, out);
        self.rec.high_rxt = self.snd_una + 1;
        self.sack_send(now, out);
    }

    /// PRR's window after an ACK (`dupack`: it counted as a duplicate ACK).
    fn prr_on_ack(&mut self, info: AckInfo, dupack: bool, safe: bool) {
        let r = &self.rec;
        let extra = dupack && r.prr_dupack_segment && r.prr.prr_delivered < r.prr.recover_fs;
        let pipe = self.sack_pipe() as u32;
        let (ssthresh, bound) = (self.win.ssthresh, r.prr_bound);
        if let Some(cwnd) = self.rec.prr.on_ack(info.delivered + u32::from(extra), pipe, ssthresh, bound, safe) {
            self.win.cwnd = cwnd;
        }
    }

    /// An ACK during a SACK recovery (`partial`: it advanced `snd_una` below `recover`).
    fn sack_ack_in_recovery(&mut self, info: AckInfo, partial: bool, now: Time, out: &mut Outbox) {
        match self.rec.kind {
            RecoveryKind::Ns2Sack1 => return self.ns2_ack_in_recovery(partial, now, out),
            RecoveryKind::RateHalving => self.halving_on_ack(info, partial),
            RecoveryKind::Prr => self.prr_on_ack(info, info.new_sack, partial && !info.new_loss),
            RecoveryKind::Rfc6675 => {}
        }
        if partial && self.rec.rescue == RescueRetransmit::PartialAck && self.rec.high_rxt <= self.snd_una {
            // ns-3: the new first segment is taken as lost and resent at once, outside cwnd.
            self.transmit(self.snd_una, now, out);
            self.rec.high_rxt = self.snd_una + 1;
        }
        self.sack_send(now, out);
    }

    /// Handles a new ACK of `info.acked` segments (up to `ack`) during fast recovery; returns
    /// whether it was a partial ACK (recovery goes on).
    pub(super) fn on_ack_in_recovery(&mut self, ack: u64, info: AckInfo, now: Time, out: &mut Outbox) -> bool {
        let full = ack >= self.rec.recover;
        if !full {
            self.rec.partial_acks += 1;
        }
        match self.rec.scheme {
            Scheme::Sack if full => {
                let cwnd = match self.rec.kind {
                    // RFC 6675 and PRR (RFC 9937 §6.3, ns-3) leave with cwnd = ssthresh.
                    RecoveryKind::Rfc6675 | RecoveryKind::Prr => self.win.ssthresh,
                    // Linux `tcp_complete_cwr`.
                    RecoveryKind::RateHalving => self.win.cwnd.min(self.win.ssthresh),
                    // ns-2: cwnd stays at the halved window.
                    RecoveryKind::Ns2Sack1 => self.win.cwnd,
                };
                self.exit_recovery(cwnd);
                if self.rec.kind == RecoveryKind::Ns2Sack1 {
                    self.rec.scoreboard.clear();
                    // ns-2 forgets the recovery point when a recovery ends (tcp-sack1.cc:194,
                    // `recover_ = 0`): the next third duplicate ACK starts a recovery even if
                    // it ACKs exactly the old point (the first segment after it lost).
                    self.rec.recover = 0;
                }
                false
            }
            Scheme::Sack => {
                self.sack_ack_in_recovery(info, true, now, out);
                true
            }
            _ => self.newreno_ack_in_recovery(info, full, now, out),
        }
    }

    /// Leaves fast recovery with window `cwnd`.
    fn exit_recovery(&mut self, cwnd: u32) {
        if self.rec.kind != RecoveryKind::Ns2Sack1 {
            self.win.cwnd_cnt = 0;
        }
        self.win.cwnd = cwnd.max(1);
        self.rec.in_recovery = false;
        self.rec.dupacks = 0;
        self.rec.dup_credit = 0;
        self.rec.halving_cnt = 0;
    }

    /// RFC 6675 `SetPipe` for the current recovery state.
    fn sack_pipe(&self) -> u64 {
        let r = &self.rec;
        r.scoreboard.pipe(self.snd_una, self.snd_max, r.high_rxt, r.lost_end())
    }

    /// Sends during SACK recovery while `cwnd > pipe` (RFC 6675 §5 step C), choosing each
    /// segment by `NextSeg`: a lost hole (rule 1), else new data (rule 2), else any unSACKed
    /// hole below the highest SACK (rule 3; Linux's forward retransmission, only when no new
    /// data may go), else — with `rescue_retransmit = "rfc6675"` — once the rescue (rule 4).
    fn sack_send(&mut self, now: Time, out: &mut Outbox) {
        loop {
            if self.win.cwnd as u64 <= self.sack_pipe() {
                break;
            }
            let r = &self.rec;
            let from = r.high_rxt.max(self.snd_una);
            let hole = r.scoreboard.next_hole(from, r.lost_end());
            if let Some(seq) = hole {
                self.retransmit_hole(seq, now, out);
            } else if self.may_send_new() {
                self.send_new(now, out);
            } else if let Some(seq) = r.scoreboard.highest().and_then(|top| r.scoreboard.next_hole(from, top)) {
                self.retransmit_hole(seq, now, out);
            } else {
                // Rule 4, the rescue retransmission: once per recovery, resend the highest
                // unSACKed segment, so a loss at the tail of a window (which no later segment
                // can reveal) need not wait for the timer. HighRxt is not updated.
                if self.rec.rescue == RescueRetransmit::Rfc6675 && !self.rec.rescue_sent {
                    let sb = &self.rec.scoreboard;
                    if let Some(last) = (self.snd_una..self.snd_max).rev().find(|&s| !sb.is_sacked(s)) {
                        self.rec.rescue_sent = true;
                        self.transmit(last, now, out);
                    }
                }
                break;
            }
        }
    }

    fn retransmit_hole(&mut self, seq: u64, now: Time, out: &mut Outbox) {
        self.transmit(seq, now, out);
        self.rec.high_rxt = seq + 1;
    }
}

#[cfg(test)]
mod tests;
