//! Proportional Rate Reduction (RFC 6937 §3.1, RFC 9937; ns-3's `TcpPrrRecovery`): during
//! recovery the window follows the data delivered, so that by the end of one round trip the
//! sender has sent `ssthresh / RecoverFS` of what was delivered, without a burst and without
//! stalling.
//!
//! Per ACK, with `DeliveredData` the segments it newly acknowledged or SACKed:
//!
//! ```text
//! prr_delivered += DeliveredData
//! if pipe > ssthresh:  sndcnt = CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out
//! else:                CRB (RFC 6937):  limit = prr_delivered − prr_out
//!                      SSRB (RFC 6937): limit = MAX(prr_delivered − prr_out, DeliveredData) + 1
//!                      RFC 9937:        limit = MAX(prr_delivered − prr_out, DeliveredData),
//!                                       + 1 on a "safe" ACK
//!                      sndcnt = MIN(ssthresh − pipe, limit)
//! sndcnt = MAX(sndcnt, 1 if prr_out = 0)      // the fast retransmission always goes out
//! cwnd = pipe + sndcnt
//! ```
//!
//! An ACK that delivers nothing changes nothing (RFC 9937 §6.2). Every segment sent during
//! recovery adds to `prr_out` (the sender counts it, `TcpSender::transmit`).

use crate::tcp::config::PrrBound;

/// PRR's state during one recovery, in segments.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Prr {
    /// RecoverFS: what the reduction is proportional to (the reduction base at entry).
    pub recover_fs: u32,
    /// Data delivered to the receiver since recovery started.
    pub prr_delivered: u32,
    /// Segments sent since recovery started.
    pub prr_out: u32,
}

impl Prr {
    /// Starts a recovery whose reduction is proportional to `recover_fs` segments.
    pub fn start(recover_fs: u32) -> Self {
        Prr { recover_fs: recover_fs.max(1), prr_delivered: 0, prr_out: 0 }
    }

    /// Takes an ACK that delivered `delivered` segments, with `pipe` segments in the network
    /// and threshold `ssthresh`; returns the new cwnd, or `None` when the ACK delivered
    /// nothing. `safe` is RFC 9937's safe ACK (it advanced `snd_una` and revealed no new loss).
    pub fn on_ack(&mut self, delivered: u32, pipe: u32, ssthresh: u32, bound: PrrBound, safe: bool) -> Option<u32> {
        if delivered == 0 {
            return None;
        }
        self.prr_delivered += delivered;
        let (delivered, pipe, ssthresh) = (delivered as i64, pipe as i64, ssthresh as i64);
        let (prr_delivered, prr_out) = (self.prr_delivered as i64, self.prr_out as i64);
        let sndcnt = if pipe > ssthresh {
            // Proportional part: CEIL(prr_delivered · ssthresh / RecoverFS) − prr_out.
            let fs = self.recover_fs as i64;
            (prr_delivered * ssthresh + fs - 1) / fs - prr_out
        } else {
            let limit = match bound {
                PrrBound::Crb => prr_delivered - prr_out,
                PrrBound::Ssrb => (prr_delivered - prr_out).max(delivered) + 1,
                PrrBound::Rfc9937 => (prr_delivered - prr_out).max(delivered) + i64::from(safe),
            };
            (ssthresh - pipe).min(limit)
        };
        let sndcnt = sndcnt.max(if prr_out > 0 { 0 } else { 1 });
        Some((pipe + sndcnt).max(1) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_proportional_part_sends_ssthresh_over_recover_fs_of_what_is_delivered() {
        // RecoverFS 20, ssthresh 10, one segment lost; each duplicate ACK delivers one
        // segment; pipe 18 after the first SACK (19 unSACKed, the head lost).
        let mut prr = Prr::start(20);
        // Entry ACK: prr_delivered 1 -> CEIL(10/20) - 0 = 1: the fast retransmission.
        assert_eq!(prr.on_ack(1, 18, 10, PrrBound::Crb, false), Some(19));
        prr.prr_out += 1;
        // Second ACK: pipe 18 (one more SACKed, the retransmission in flight): CEIL(20/20) - 1 = 0.
        assert_eq!(prr.on_ack(1, 18, 10, PrrBound::Crb, false), Some(18));
        // Third: CEIL(30/20) - 1 = 1: one new segment per two delivered.
        assert_eq!(prr.on_ack(1, 17, 10, PrrBound::Crb, false), Some(18));
    }

    #[test]
    fn the_bounds_differ_once_pipe_is_below_ssthresh() {
        // pipe 4 < ssthresh 10; an ACK of 2 makes prr_delivered - prr_out = 2 - 1 = 1.
        let at = |bound, safe| {
            let mut prr = Prr { recover_fs: 20, prr_delivered: 0, prr_out: 1 };
            prr.on_ack(2, 4, 10, bound, safe).unwrap() - 4
        };
        assert_eq!(at(PrrBound::Crb, false), 1, "CRB: what was delivered beyond what was sent");
        assert_eq!(at(PrrBound::Ssrb, false), 3, "SSRB: max(1, 2) + 1");
        assert_eq!(at(PrrBound::Rfc9937, false), 2, "RFC 9937, unsafe ACK: max(1, 2)");
        assert_eq!(at(PrrBound::Rfc9937, true), 3, "RFC 9937, safe ACK: max(1, 2) + 1");
    }

    #[test]
    fn an_ack_that_delivers_nothing_changes_nothing_and_the_first_sends_at_least_one() {
        let mut prr = Prr::start(10);
        assert_eq!(prr.on_ack(0, 9, 5, PrrBound::Rfc9937, false), None);
        // pipe = ssthresh: MIN(ssthresh - pipe, limit) = 0, but nothing was sent yet: the
        // fast retransmission still goes out; once one segment is out, 0 stands.
        let mut prr = Prr::start(10);
        assert_eq!(prr.on_ack(1, 5, 5, PrrBound::Crb, false), Some(6));
        prr.prr_out = 1;
        assert_eq!(prr.on_ack(1, 5, 5, PrrBound::Crb, false), Some(5));
    }
}
