//! Hand-fed traces of the recovery schemes: each ACK's transmissions and cwnd, computed by
//! hand in the comments (segment numbers; `r` = a retransmission).

use crate::outbox::Outbox;
use crate::packet::FLAG_RETX;
use crate::tcp::testing::*;
use crate::tcp::{
    CcKind, InitialWindow, LimitedTransmit, PrrBound, RecoveryKind, ReductionBase, RescueRetransmit, RtoRestart,
    TcpConfig, TcpSender,
};
use crate::time::{Duration, Time};

/// A sender with configuration `c` that has sent its initial window (0..IW).
fn started(c: &TcpConfig, size: Option<u64>) -> (TcpSender, Outbox) {
    let mut s = TcpSender::new(0, 0, 0, 1, c, size);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    out.pkts.clear();
    (s, out)
}

/// Feeds the ACKs `(cumulative ACK, SACK blocks)` in order; returns per ACK what was sent
/// and the cwnd after it.
fn trace(s: &mut TcpSender, out: &mut Outbox, acks: &[(u64, &[(u64, u64)])]) -> Vec<(Vec<(u64, bool)>, u32)> {
    acks.iter()
        .map(|&(a, blocks)| {
            s.on_ack(&sack_ack(a, blocks, out), T, out);
            (sent(out), s.win.cwnd)
        })
        .collect()
}

fn new(seqs: &[u64]) -> Vec<(u64, bool)> {
    seqs.iter().map(|&s| (s, false)).collect()
}

fn retx(seq: u64) -> Vec<(u64, bool)> {
    vec![(seq, true)]
}

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
fn rfc3042_sends_one_new_segment_on_each_of_the_first_two_duplicates() {
    // A window of 4: segment 0 lost. Without limited transmit only 3 segments follow it, so
    // 3 duplicate ACKs are the most the sender can get; with it, each of the first two
    // duplicates releases a new segment (4 and 5), which can produce more duplicates.
    for (lt, expected) in [(LimitedTransmit::Off, vec![]), (LimitedTransmit::Rfc3042, vec![4u64, 5])] {
        let c = TcpConfig { limited_transmit: lt, initial_cwnd_pkts: InitialWindow::Pkts(4), ..cfg(CcKind::Newreno) };
        let (mut s, mut out) = started(&c, None);
        s.on_ack(&ack(0, T), T, &mut out);
        s.on_ack(&ack(0, T), T, &mut out);
        assert_eq!(sent(&mut out).iter().map(|p| p.0).collect::<Vec<_>>(), expected, "limited transmit {lt:?}");
        assert_eq!(s.win.cwnd, 4, "cwnd is not changed by limited transmit");
        s.on_ack(&ack(0, T), T, &mut out);
        assert_eq!(s.stats.fast_retransmits, 1);
    }
}

#[test]
fn pipe_limited_transmit_sends_one_segment_per_sacked_segment_without_rfc3042s_bound_of_two() {
    // A window of 4, segment 0 lost, DupThresh 5 (so four duplicates stay before recovery):
    // RFC 3042 stops after two new segments; pipe accounting (Linux, ns-3) sends one per
    // SACKed segment: pipe = 4 - 1, 5 - 2, 6 - 3, 7 - 4 stays 3 < cwnd 4 -> 4, 5, 6, 7.
    // Without SACK, each duplicate ACK stands for one segment: the same four.
    for sack in [true, false] {
        for (lt, expected) in [(LimitedTransmit::Rfc3042, vec![4u64, 5]), (LimitedTransmit::Pipe, vec![4, 5, 6, 7])] {
            let base = if sack { plain_sack() } else { plain() };
            let c = TcpConfig {
                limited_transmit: lt,
                dupack_threshold: 5,
                initial_cwnd_pkts: InitialWindow::Pkts(4),
                ..base
            };
            let (mut s, mut out) = started(&c, None);
            let blocks: [&[(u64, u64)]; 4] = [&[(1, 2)], &[(1, 3)], &[(1, 4)], &[(4, 5), (1, 4)]];
            for b in blocks {
                s.on_ack(&sack_ack(0, if sack { b } else { &[] }, &mut out), T, &mut out);
            }
            assert_eq!(sent(&mut out).iter().map(|p| p.0).collect::<Vec<_>>(), expected, "{lt:?}, sack {sack}");
            assert_eq!((s.win.cwnd, s.stats.fast_retransmits), (4, 0));
        }
    }
}

#[test]
fn with_sack_a_duplicate_ack_counts_only_if_it_sacks_something_new() {
    // RFC 6675 §2: three ACKs repeating the same block are one duplicate ACK, not three.
    let (mut s, mut out) = started(&plain_sack(), None);
    for _ in 0..3 {
        s.on_ack(&sack_ack(0, &[(1, 2)], &mut out), T, &mut out);
    }
    assert_eq!((s.rec.dupacks, s.stats.fast_retransmits), (1, 0));
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
    for sack in [true, false] {
        let c = if sack { plain_sack() } else { plain() };
        let (mut s, mut out) = started(&c, None);
        for blocks in arrivals {
            s.on_ack(&sack_ack(0, if sack { blocks } else { &[] }, &mut out), T, &mut out);
        }
        let retx: Vec<u64> = out.pkts.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq()).collect();
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
    // is no new data, so rule 4 resends the highest unSACKed segment once. With
    // rescue_retransmit = "off" (Linux, ns-2) the tail waits for the timer.
    for (rescue, expected) in [(RescueRetransmit::Rfc6675, vec![0, 9]), (RescueRetransmit::Off, vec![0])] {
        let c = TcpConfig { rescue_retransmit: rescue, ..plain_sack() };
        let (mut s, mut out) = started(&c, Some(10 * 1460));
        for hi in 2..=9 {
            s.on_ack(&sack_ack(0, &[(1, hi)], &mut out), T, &mut out);
        }
        let retx: Vec<u64> = out.pkts.iter().filter(|p| p.has(FLAG_RETX)).map(|p| p.seq()).collect();
        assert_eq!(retx, expected, "{rescue:?}");
    }
}

#[test]
fn partial_ack_rescue_resends_the_new_first_segment_at_once() {
    // ns-3's partial-ACK retransmission instead of rule 4: a finite transfer of 10 segments,
    // 0 and the tail 9 lost. The duplicates SACK 1..9; with no rule 4 only 0 is resent. Its
    // ACK (9) is partial: 9 has not been retransmitted, so it goes at once.
    let c = TcpConfig { rescue_retransmit: RescueRetransmit::PartialAck, ..plain_sack() };
    let (mut s, mut out) = started(&c, Some(10 * 1460));
    for hi in 2..=9 {
        s.on_ack(&sack_ack(0, &[(1, hi)], &mut out), T, &mut out);
    }
    assert_eq!(sent(&mut out), retx(0));
    s.on_ack(&sack_ack(9, &[], &mut out), T, &mut out);
    assert_eq!(sent(&mut out), retx(9));
}

#[test]
fn prr_trace_with_ns3_settings() {
    // ns-3.44's choices: PRR with RFC 9937's bound, one extra segment delivered per duplicate
    // ACK, ssthresh and RecoverFS from pipe, limited transmit by pipe. Window 0..10, segment 0
    // lost; the ACKs of 1..11 arrive, then the retransmitted 0 (ACK 12).
    let c = TcpConfig {
        recovery: RecoveryKind::Prr,
        prr_bound: PrrBound::Rfc9937,
        prr_dupack_segment: true,
        reduction_base: ReductionBase::Pipe,
        limited_transmit: LimitedTransmit::Pipe,
        rescue_retransmit: RescueRetransmit::PartialAck,
        ..plain_sack()
    };
    let (mut s, mut out) = started(&c, None);
    let got = trace(
        &mut s,
        &mut out,
        &[
            // SACK 1: pipe 9 < cwnd 10: send 10. SACK 2: send 11.
            (0, &[(1, 2)]),
            (0, &[(1, 3)]),
            // Third duplicate: pipe with the head lost = {4..11} = 8 -> ssthresh 4, RecoverFS 8.
            // DeliveredData 1 + 1 (ns-3) = 2; pipe 8 > 4: CEIL(2·4/8) = 1 -> cwnd 9; resend 0.
            (0, &[(1, 4)]),
            // pd 4: pipe {5..11} + 0r = 8: CEIL(16/8) - 1 = 1 -> cwnd 9: send 12.
            (0, &[(1, 5)]),
            // pd 6: pipe 8: CEIL(24/8) - 2 = 1 -> 13. pd 8: CEIL(32/8) - 3 = 1 -> 14.
            (0, &[(1, 6)]),
            (0, &[(1, 7)]),
            // pd 8 = RecoverFS: no extra any more. pd 9: CEIL(36/8) - 4 = 1 -> 15.
            (0, &[(1, 8)]),
            // pd 10: CEIL(40/8) - 5 = 0 -> cwnd 8. pd 11 (pipe {10..15} + 0r = 7): 6 - 5 = 1 -> 16.
            (0, &[(1, 9)]),
            (0, &[(1, 10)]),
            // pd 12: pipe {11..16} + 0r = 7: CEIL(48/8) - 6 = 0 -> 7. pd 13: 7 - 6 = 1 -> 17.
            (0, &[(1, 11)]),
            (0, &[(1, 12)]),
            // The retransmitted 0 arrives: ACK 12 >= recover 12: cwnd = ssthresh = 4, and with
            // 12..17 (6) in flight nothing goes.
            (12, &[]),
        ],
    );
    let expected = vec![
        (new(&[10]), 10),
        (new(&[11]), 10),
        (retx(0), 9),
        (new(&[12]), 9),
        (new(&[13]), 9),
        (new(&[14]), 9),
        (new(&[15]), 9),
        (vec![], 8),
        (new(&[16]), 8),
        (vec![], 7),
        (new(&[17]), 7),
        (vec![], 4),
    ];
    assert_eq!(got, expected);
    assert_eq!((s.win.ssthresh, s.rec.in_recovery), (4, false));
}

#[test]
fn rate_halving_trace_with_linux_settings() {
    // Linux 2.6.26: ssthresh from cwnd, cwnd not cut at entry, one segment off per two ACKs
    // (down to Reno's floor ssthresh/2), never above in_flight + 1; FACK marks the first
    // fackets_out - 3 segments lost. Window 0..10, segment 0 lost; limited transmit by pipe.
    let c = TcpConfig {
        recovery: RecoveryKind::RateHalving,
        reduction_base: ReductionBase::Cwnd,
        limited_transmit: LimitedTransmit::Pipe,
        rescue_retransmit: RescueRetransmit::Off,
        ..plain_sack()
    };
    let (mut s, mut out) = started(&c, None);
    let got = trace(
        &mut s,
        &mut out,
        &[
            // fackets_out 2, 3 <= 3: Disorder; pipe by SACK: send 10, then 11.
            (0, &[(1, 2)]),
            (0, &[(1, 3)]),
            // fackets_out 4 > 3: Recovery, ssthresh = 10/2 = 5, cwnd kept. Mark 1 segment (0)
            // lost; counter 1 (no decrement); in_flight = {4..11} = 8: cwnd = min(10, 9) = 9;
            // resend 0 (in_flight 9).
            (0, &[(1, 4)]),
            // Mark 2; counter 2: cwnd 8; in_flight {5..11} + 0r = 8: cwnd 8, nothing.
            (0, &[(1, 5)]),
            // Counter 1; in_flight {6..11} + 0r = 7: cwnd min(8, 8) = 8: send 12.
            (0, &[(1, 6)]),
            // Counter 2: cwnd 7; in_flight {7..12} + 0r = 7: nothing.
            (0, &[(1, 7)]),
            // Counter 1; in_flight 6: send 13.  Counter 2: cwnd 6; in_flight 6: nothing.
            (0, &[(1, 8)]),
            (0, &[(1, 9)]),
            // Send 14.  Counter 2: cwnd 5.  Then send 15 (in_flight 4 + 1 = 5).
            (0, &[(1, 10)]),
            (0, &[(1, 11)]),
            (0, &[(1, 12)]),
            // The retransmitted 0 arrives: ACK 12 = high_seq: cwnd = min(5, ssthresh 5) = 5;
            // in flight 12..15 (4): send 16.
            (12, &[]),
        ],
    );
    let expected = vec![
        (new(&[10]), 10),
        (new(&[11]), 10),
        (retx(0), 9),
        (vec![], 8),
        (new(&[12]), 8),
        (vec![], 7),
        (new(&[13]), 7),
        (vec![], 6),
        (new(&[14]), 6),
        (vec![], 5),
        (new(&[15]), 5),
        (new(&[16]), 5),
    ];
    assert_eq!(got, expected);
    assert_eq!(s.win.ssthresh, 5);
}

#[test]
fn ns2_sack1_trace_with_two_losses() {
    // ns-2.35 Sack1: window 0..10, segments 0 and 5 lost; singledup_ limited transmit.
    let c = TcpConfig {
        recovery: RecoveryKind::Ns2Sack1,
        reduction_base: ReductionBase::Cwnd,
        limited_transmit: LimitedTransmit::Rfc3042,
        rescue_retransmit: RescueRetransmit::Off,
        rto_restart: RtoRestart::EveryAck,
        fast_retransmit_restarts_rto: true,
        ..plain_sack()
    };
    let (mut s, mut out) = started(&c, None);
    let got = trace(
        &mut s,
        &mut out,
        &[
            // send_one on the first two duplicates: 10, 11.
            (0, &[(1, 2)]),
            (0, &[(1, 3)]),
            // Third: ssthresh = cwnd = 10/2 = 5, pipe_ = 12 - 3 = 9; resend 0 (not in pipe_),
            // and nothing else on this ACK.
            (0, &[(1, 4)]),
            // Each ACK: pipe_ - 1 (8, 7, 6, 5): nothing while pipe_ >= cwnd 5.
            (0, &[(1, 5)]),
            (0, &[(6, 7), (1, 5)]),
            (0, &[(6, 8), (1, 5)]),
            (0, &[(6, 9), (1, 5)]),
            // pipe_ 4 < 5: the lowest hole above h_seqno_ (1) below the highest SACK: 5.
            (0, &[(6, 10), (1, 5)]),
            // pipe_ 4: no hole left: new 12.  Then new 13.
            (0, &[(6, 11), (1, 5)]),
            (0, &[(6, 12), (1, 5)]),
            // The retransmitted 0: partial ACK 5: pipe_ - 2 = 3: new 14, 15.
            (5, &[(6, 12)]),
            // The retransmitted 5: ACK 12 >= recover_ 12: recovery ends, cwnd stays 5; the
            // normal window from 12 allows 16.
            (12, &[]),
        ],
    );
    let expected = vec![
        (new(&[10]), 10),
        (new(&[11]), 10),
        (retx(0), 5),
        (vec![], 5),
        (vec![], 5),
        (vec![], 5),
        (vec![], 5),
        (retx(5), 5),
        (new(&[12]), 5),
        (new(&[13]), 5),
        (new(&[14, 15]), 5),
        (new(&[16]), 5),
    ];
    assert_eq!(got, expected);
    assert_eq!(s.win.ssthresh, 5);

    // ns-2 forgets recover_ as the recovery ends (tcp-sack1.cc:194): segment 12, the first
    // past the old recovery point, lost; its duplicate ACKs ACK exactly that point (12), and
    // the third still starts a recovery (with recover_ kept, `highest_ack_ > recover_` would
    // fail and only the timer would resend 12). The first two send 17 and 18 (send_one).
    let got: Vec<Vec<(u64, bool)>> =
        trace(&mut s, &mut out, &[(12, &[(13, 14)]), (12, &[(13, 15)]), (12, &[(13, 16)])])
            .into_iter()
            .map(|(sent, _)| sent)
            .collect();
    assert_eq!(got, vec![new(&[17]), new(&[18]), retx(12)]);
    assert!(s.rec.in_recovery);
}

#[test]
fn prr_without_sack_counts_a_duplicate_ack_as_one_segment_delivered() {
    // RFC 6937 PRR-CRB without SACK, RecoverFS = FlightSize 10, ssthresh 5; segment 0 lost,
    // nine duplicate ACKs, then the retransmission's ACK 10. pipe = FlightSize - duplicates
    // - the unretransmitted head.
    let c = TcpConfig { recovery: RecoveryKind::Prr, prr_bound: PrrBound::Crb, ..plain() };
    let (mut s, mut out) = started(&c, None);
    let mut got = vec![];
    for _ in 0..9 {
        s.on_ack(&ack(0, T), T, &mut out);
        got.push((sent(&mut out), s.win.cwnd));
    }
    s.on_ack(&ack(10, T), T, &mut out);
    got.push((sent(&mut out), s.win.cwnd));
    let expected = vec![
        (vec![], 10),
        (vec![], 10),
        // Third: pipe 10 - 3 - 1 = 6 > 5: CEIL(1·5/10) = 1 -> cwnd 7; resend 0 (pipe 7).
        (retx(0), 7),
        // pd 2, pipe 6: CEIL(10/10) - 1 = 0 -> 6.  pd 3, pipe 5 (CRB): min(0, 3 - 1) -> 5.
        (vec![], 6),
        (vec![], 5),
        // pd 4, pipe 4: min(1, 4 - 1) = 1 -> 5: send 10; then 11, 12, 13 the same way.
        (new(&[10]), 5),
        (new(&[11]), 5),
        (new(&[12]), 5),
        (new(&[13]), 5),
        // ACK 10 covers recover: cwnd = ssthresh = 5; 10..13 in flight: send 14.
        (new(&[14]), 5),
    ];
    assert_eq!(got, expected);
}

#[test]
fn the_reduction_base_is_flightsize_cwnd_or_pipe() {
    // cwnd 10 but only 8 segments to send (application-limited), segment 0 lost, 1..3
    // SACKed: FlightSize 8 -> ssthresh 4; cwnd 10 -> 5; pipe with the head lost
    // 8 - 3 - 1 = 4 -> 2.
    for (base, ssthresh) in [(ReductionBase::Flightsize, 4), (ReductionBase::Cwnd, 5), (ReductionBase::Pipe, 2)] {
        let c = TcpConfig { reduction_base: base, ..plain_sack() };
        let (mut s, mut out) = started(&c, Some(8 * 1460));
        for hi in 2..=4 {
            s.on_ack(&sack_ack(0, &[(1, hi)], &mut out), T, &mut out);
        }
        assert_eq!(s.win.ssthresh, ssthresh, "{base:?}");
    }
    // ns-3's rule per control: TcpNewReno halves the pipe (4 -> 2); TcpCubic cuts beta x its
    // window whatever is in flight (10 -> 7), where its pipe would give 2.
    for (cc, ssthresh) in [(CcKind::Newreno, 2), (CcKind::Cubic, 7)] {
        let c = TcpConfig { reduction_base: ReductionBase::Ns3, cc, ..plain_sack() };
        let (mut s, mut out) = started(&c, Some(8 * 1460));
        for hi in 2..=4 {
            s.on_ack(&sack_ack(0, &[(1, hi)], &mut out), T, &mut out);
        }
        assert_eq!(s.win.ssthresh, ssthresh, "{cc:?}");
    }
}

#[test]
fn rto_restart_decides_which_acks_restart_the_timer() {
    // NewReno, window 0..10, segments 0, 3 and 6 lost; duplicates at T, the fast retransmit on
    // the third, partial ACKs 3 and 6 at T + 10 ms and T + 20 ms. The timer (RTO 1 s, no
    // sample yet) was armed at 0 when the window went out.
    let ms = |n: u64| T + Duration::from_ms(n);
    for (restart, at_fast_retransmit, deadlines) in [
        // RFC 6298: each partial ACK restarts it, the retransmission does not.
        (RtoRestart::EveryAck, false, [1_000, 1_000, 1_110, 1_120]),
        // ns-3 / RFC 6582 Impatient: only the first partial ACK.
        (RtoRestart::FirstPartialAck, false, [1_000, 1_000, 1_110, 1_110]),
        // Linux, ns-2: the fast retransmission restarts it too.
        (RtoRestart::EveryAck, true, [1_000, 1_100, 1_110, 1_120]),
    ] {
        let c = TcpConfig {
            rto_restart: restart,
            fast_retransmit_restarts_rto: at_fast_retransmit,
            ..cfg(CcKind::Newreno)
        };
        let (mut s, mut out) = started(&c, None);
        let mut got = vec![s.rto_deadline.unwrap()];
        for _ in 0..3 {
            s.on_ack(&ack(0, T), T, &mut out);
        }
        got.push(s.rto_deadline.unwrap());
        // Partial ACKs echo the retransmissions' send times (no RTT sample: Karn).
        let mut a = ack(3, T);
        a.flags = FLAG_RETX;
        s.on_ack(&a, ms(10), &mut out);
        got.push(s.rto_deadline.unwrap());
        a.number = 6;
        s.on_ack(&a, ms(20), &mut out);
        got.push(s.rto_deadline.unwrap());
        let want: Vec<Time> = deadlines.iter().map(|&d| Time::ZERO + Duration::from_ms(d)).collect();
        assert_eq!(got, want, "{restart:?}, fast retransmit restarts: {at_fast_retransmit}");
    }
}

#[test]
fn ns2_send_one_resends_in_sequence_after_a_timeout_once_a_new_ack_came() {
    // ns-2.35 Sack1 with singledup_ (tcp.cc:1576-1588 send_one, tcp-sack1.cc:129-166):
    // window 0..10, segments 0 and 5 lost, the timer fires.
    let c = TcpConfig {
        recovery: RecoveryKind::Ns2Sack1,
        reduction_base: ReductionBase::Cwnd,
        limited_transmit: LimitedTransmit::Ns2,
        rescue_retransmit: RescueRetransmit::Off,
        rto_restart: RtoRestart::EveryAck,
        fast_retransmit_restarts_rto: true,
        ..plain_sack()
    };
    let (mut s, mut out) = started(&c, None);
    let (at, gen) = match out.timers.last() {
        Some(&(at, crate::event::FlowTimer::Rto(g))) => (at, g),
        other => panic!("RTO not armed: {other:?}"),
    };
    s.on_rto_timer(gen, at, &mut out);
    assert_eq!((sent(&mut out), s.win.cwnd), (retx(0), 1));
    // Before a new ACK (`timeout_`), a duplicate ACK sends nothing.
    s.on_ack(&sack_ack(0, &[(1, 5)], &mut out), at, &mut out);
    assert_eq!(sent(&mut out), vec![]);
    let got = trace(
        &mut s,
        &mut out,
        &[
            // The resent 0 arrives: ACK 5, new: slow start (this configuration counts up to
            // two segments per ACK), cwnd 3; go-back-N resends 5, 6 and 7.
            (5, &[(6, 10)]),
            // 6's echo: a duplicate ACK (the scoreboard was cleared by the new ACK, so its
            // SACK is new): send_one, t_seqno_ 8 <= highest_ack_ 4 + cwnd_ 3 + dupacks_ 1,
            // although 8 was sent before the timeout (recover_ = 10).
            (5, &[(6, 10)]),
        ],
    );
    assert_eq!(got, vec![(vec![(5, true), (6, true), (7, true)], 3), (retx(8), 3)]);
    // RFC 3042's rule sends nothing there: only new data, and not below recover.
    let c = TcpConfig { limited_transmit: LimitedTransmit::Rfc3042, ..c };
    let (mut s, mut out) = started(&c, None);
    s.on_rto_timer(gen, at, &mut out);
    out.pkts.clear();
    let got = trace(&mut s, &mut out, &[(5, &[(6, 10)]), (5, &[(6, 10)])]);
    assert_eq!(got[1], (vec![], 3));
}
