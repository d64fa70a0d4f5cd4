//! Recovery without SACK: Tahoe, Reno and NewReno (RFC 5681 §3.2, RFC 6582 §3.2), and
//! NewReno with PRR's window (`recovery = "prr"`, ns-3's `TcpPrrRecovery` without SACK).
//!
//! Classic fast recovery inflates the window by one segment per duplicate ACK and deflates it
//! on each partial ACK by the amount acknowledged minus one segment; a full ACK (covering
//! `recover`) sets `cwnd = min(ssthresh, max(FlightSize, 1) + 1)` (RFC 6582 step 3 option 1).
//!
//! Under PRR the window is PRR's instead: without SACK, RFC 6937 estimates a duplicate ACK as
//! one segment delivered, and `pipe` is FlightSize less those estimates (ns-3's
//! `AddRenoSack`) less the first segment until it is retransmitted. A cumulative ACK is
//! taken to cover one retransmitted segment; the rest of what it acknowledges was counted by
//! duplicate ACKs already. Each partial ACK retransmits the next segment at once (RFC 6582),
//! outside the window, and recovery ends with `cwnd = ssthresh`.

use super::{AckInfo, Prr, Scheme, TcpSender};
use crate::outbox::Outbox;
use crate::tcp::config::RecoveryExit;
use crate::time::Time;

impl TcpSender {
    /// Enters the non-SACK scheme's recovery on the `dupack_threshold`-th duplicate ACK.
    pub(super) fn newreno_enter(&mut self, now: Time, out: &mut Outbox) {
        if self.rec.scheme == Scheme::Tahoe {
            // Retransmit, then slow start from one segment, go-back-N.
            self.win.ssthresh = self.loss_ssthresh(true, now);
            self.win.set(1);
            self.rec.recover = self.snd_max;
            self.snd_nxt = self.snd_una;
            self.rec.dupacks = 0;
            self.send_available(now, out);
            return;
        }
        let base = self.begin_recovery(true, now);
        if self.rec.uses_prr() {
            self.rec.dup_credit = self.rec.dupacks;
            self.rec.prr = Prr::start(base);
            self.newreno_prr(1, false);
            self.transmit(self.snd_una, now, out);
            self.rec.high_rxt = self.snd_una + 1;
            self.send_while_pipe_allows(now, out);
        } else {
            self.transmit(self.snd_una, now, out);
            self.rec.high_rxt = self.snd_una + 1;
            self.rec.ns2_dupwnd = self.rec.dupack_threshold;
            self.win.cwnd = self.recovery_base() + self.rec.dupack_threshold;
            self.send_available(now, out);
        }
    }

    /// A duplicate ACK during NewReno (or Reno) recovery.
    pub(super) fn newreno_dupack_in_recovery(&mut self, now: Time, out: &mut Outbox) {
        self.rec.dupacks += 1;
        if self.rec.uses_prr() {
            self.rec.dup_credit += 1;
            self.newreno_prr(1, false);
            self.send_while_pipe_allows(now, out);
        } else {
            // Window inflation: each duplicate ACK means a segment has left the network.
            self.rec.ns2_dupwnd += 1;
            self.win.cwnd += 1;
            self.send_available(now, out);
        }
    }

    /// A new ACK during Reno or NewReno recovery (`full`: it covers `recover`); returns
    /// whether recovery goes on.
    pub(super) fn newreno_ack_in_recovery(&mut self, info: AckInfo, full: bool, now: Time, out: &mut Outbox) -> bool {
        if self.rec.scheme == Scheme::Reno {
            // Reno: any new ACK ends recovery, the window deflated to ssthresh (ns-2: to
            // `cwnd_`, the halved window).
            self.exit_recovery(self.recovery_base());
            return false;
        }
        if self.rec.uses_prr() {
            // One retransmitted segment delivered; the rest of the ACK's segments were
            // counted as duplicate ACKs arrived.
            let counted = self.rec.dup_credit.min(info.acked.saturating_sub(1));
            self.rec.dup_credit -= counted;
            if full {
                self.exit_recovery(self.win.ssthresh);
                return false;
            }
            // The partial ACK reveals the next loss: not RFC 9937's safe ACK.
            self.newreno_prr(info.acked - counted, false);
            self.transmit(self.snd_una, now, out);
            self.rec.high_rxt = self.snd_una + 1;
            self.send_while_pipe_allows(now, out);
            return true;
        }
        if full {
            // RFC 6582 §3.2 step 3: option 1, min(ssthresh, max(FlightSize, SMSS) + SMSS), or
            // option 2 (ns-2, ns-3), ssthresh.
            let cwnd = match self.rec.exit {
                RecoveryExit::Flightsize => self.win.ssthresh.min(self.flight().max(1) + 1),
                RecoveryExit::Ssthresh => self.recovery_base(),
            };
            if self.win.ns2_cwnd.is_some() && self.rec.exit == RecoveryExit::Flightsize {
                // ns-2's exit_recovery_fix_: cwnd_ = min(ssthresh_, maxseq_ − ack + 1).
                self.win.set_ns2(f64::from(cwnd));
            }
            self.exit_recovery(cwnd);
            return false;
        }
        // Partial ACK: retransmit the next hole; deflate by what was acknowledged, then add
        // back one segment (RFC 6582 §3.2 step 4).
        self.transmit(self.snd_una, now, out);
        self.rec.high_rxt = self.snd_una + 1;
        if let Some(c) = self.win.ns2_cwnd {
            // ns-2's `partialnewack`: the inflation gives up all but one of the segments
            // acknowledged; past it, cwnd_ itself gives up the rest.
            let (deflate, dupwnd) = (info.acked, self.rec.ns2_dupwnd);
            if dupwnd > deflate {
                self.rec.ns2_dupwnd -= deflate - 1;
            } else {
                self.win.set_ns2((c - f64::from(deflate - dupwnd)).max(1.0));
                self.rec.ns2_dupwnd = 1;
            }
            self.win.cwnd = self.recovery_base() + self.rec.ns2_dupwnd;
        } else {
            self.win.cwnd = (self.win.cwnd.saturating_sub(info.acked) + 1).max(1);
        }
        true
    }

    /// The window without the duplicate ACKs' inflation: ssthresh, or with ns-2's
    /// arithmetic the integer part of `cwnd_` (at least one segment).
    fn recovery_base(&self) -> u32 {
        match self.win.ns2_cwnd {
            Some(c) => (c.floor() as u32).clamp(1, self.win.cwnd_clamp.max(1)),
            None => self.win.ssthresh,
        }
    }

    /// NewReno's `pipe` under PRR: FlightSize less the duplicate ACKs' estimates, less the
    /// first segment until it is retransmitted.
    fn newreno_pipe(&self) -> u32 {
        let head_lost = u32::from(self.rec.high_rxt <= self.snd_una);
        self.flight().saturating_sub(self.rec.dup_credit + head_lost)
    }

    /// PRR's window after an ACK that delivered `delivered` segments.
    fn newreno_prr(&mut self, delivered: u32, safe: bool) {
        let (pipe, ssthresh, bound) = (self.newreno_pipe(), self.win.ssthresh, self.rec.prr_bound);
        if let Some(cwnd) = self.rec.prr.on_ack(delivered, pipe, ssthresh, bound, safe) {
            self.win.cwnd = cwnd;
        }
    }

    /// Sends new data while NewReno's `pipe` is below cwnd.
    fn send_while_pipe_allows(&mut self, now: Time, out: &mut Outbox) {
        while self.newreno_pipe() < self.win.cwnd && self.may_send_new() {
            self.send_new(now, out);
        }
    }
}
