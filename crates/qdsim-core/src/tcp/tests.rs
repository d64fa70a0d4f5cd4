//! Hand-fed traces of the TCP endpoints: every packet in and out is checked by hand.

use super::*;
use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{Packet, PacketKind, FLAG_RETX};
use crate::time::{Duration, Time};

fn cfg(cc: CcKind) -> TcpConfig {
    TcpConfig { cc, initial_cwnd_pkts: 10, ..TcpConfig::default() }
}

fn ack(n: u64, ts: Time) -> Packet {
    Packet {
        flow: 0,
        class: 0,
        kind: PacketKind::Ack,
        size_bytes: 40,
        src: 1,
        dst: 0,
        seq: 0,
        ack: n,
        ts,
        enq_time: ts,
        queue_delay_ns: 0,
        ecn: crate::packet::Ecn::NotEct,
        flags: 0,
        sack: crate::packet::SackBlocks::NONE,
    }
}

fn sent(out: &mut Outbox) -> Vec<(u64, bool)> {
    let v = out.pkts.iter().map(|p| (p.seq, p.has(FLAG_RETX))).collect();
    out.pkts.clear();
    v
}

const T: Time = Time(100_000_000);

/// A sender with segments 0..10 outstanding, the first ACKed (so cwnd = 11 in slow start).
fn sender_with_window(cc: CcKind) -> (TcpSender, Outbox) {
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg(cc), None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    assert_eq!(sent(&mut out), (0..10).map(|i| (i, false)).collect::<Vec<_>>());
    (s, out)
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
fn timeout_collapses_the_window_goes_back_n_and_doubles_the_timer() {
    let (mut s, mut out) = sender_with_window(CcKind::Newreno);
    let (at, gen) = match out.timers.last() {
        Some(&(at, FlowTimer::Rto(g))) => (at, g),
        other => panic!("RTO not armed: {other:?}"),
    };
    assert_eq!(at, Time::ZERO + Duration::from_secs(1), "initial RTO is 1 s");
    out.timers.clear();
    s.on_rto_timer(gen, at, &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(s.win.cwnd, 1);
    assert_eq!(s.win.ssthresh, 5);
    assert_eq!(sent(&mut out), vec![(0, true)]);
    let (at2, _) = out.timers.last().copied().expect("re-armed");
    assert_eq!(at2 - at, Duration::from_secs(2), "backed off to 2 s");
    // After the timeout, duplicate ACKs for data sent before it do not trigger a fast
    // retransmit (RFC 6582 recover check).
    for _ in 0..3 {
        s.on_ack(&ack(0, at), at, &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 0);
}

#[test]
fn an_ack_for_a_retransmission_gives_no_rtt_sample() {
    let (mut s, mut out) = sender_with_window(CcKind::Newreno);
    let mut a = ack(1, Time::ZERO);
    a.flags = FLAG_RETX;
    s.on_ack(&a, T, &mut out);
    assert_eq!(s.rtt.srtt, None, "Karn's rule");
    s.on_ack(&ack(2, Time::ZERO), T, &mut out);
    assert_eq!(s.rtt.srtt, Some(Duration::from_ms(100)));
}

#[test]
fn finite_transfer_sends_exactly_its_segments() {
    // 3000 bytes = 2 full segments of 1460 + one of 80.
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg(CcKind::Newreno), Some(3000));
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    let sizes: Vec<u32> = out.pkts.iter().map(|p| p.size_bytes).collect();
    assert_eq!(sizes, vec![1500, 1500, 120]);
    out.pkts.clear();
    s.on_ack(&ack(3, Time::ZERO), T, &mut out);
    assert!(s.is_done());
    assert!(out.pkts.is_empty());
}

fn data(seq: u64) -> Packet {
    Packet { kind: PacketKind::Data, seq, size_bytes: 1500, src: 0, dst: 1, ..ack(0, Time::ZERO) }
}

fn acks(out: &mut Outbox) -> Vec<u64> {
    let v = out.pkts.iter().map(|p| p.ack).collect();
    out.pkts.clear();
    v
}

#[test]
fn receiver_buffers_out_of_order_segments_and_jumps_when_the_hole_fills() {
    let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig::default(), None);
    let mut out = Outbox::default();
    let mut delivered = 0;
    for seq in [0, 2, 3, 5, 1, 4] {
        delivered += r.on_data(&data(seq), T, &mut out).bytes;
    }
    assert_eq!(acks(&mut out), vec![1, 1, 1, 1, 4, 6]);
    assert_eq!(delivered, 6 * 1460);
    assert!(r.out_of_order().is_empty());
}

#[test]
fn delayed_acks_ack_every_second_segment_or_on_the_timer() {
    let c = TcpConfig { delayed_ack: true, ..TcpConfig::default() };
    let mut r = TcpReceiver::new(0, 0, 1, 0, &c, None);
    let mut out = Outbox::default();
    r.on_data(&data(0), T, &mut out);
    assert_eq!(acks(&mut out), Vec::<u64>::new());
    let (at, gen) = match out.timers.pop() {
        Some((at, FlowTimer::DelayedAck(g))) => (at, g),
        other => panic!("delayed-ACK timer not armed: {other:?}"),
    };
    assert_eq!(at - T, Duration::from_ms(40));
    r.on_data(&data(1), T, &mut out);
    assert_eq!(acks(&mut out), vec![2]);
    // The stale timer does nothing; a lone segment is ACKed when its timer fires.
    r.on_delack_timer(gen, at, &mut out);
    assert_eq!(acks(&mut out), Vec::<u64>::new());
    r.on_data(&data(2), T, &mut out);
    let (at, gen) = match out.timers.pop() {
        Some((at, FlowTimer::DelayedAck(g))) => (at, g),
        other => panic!("{other:?}"),
    };
    r.on_delack_timer(gen, at, &mut out);
    assert_eq!(acks(&mut out), vec![3]);
    // Out of order: ACKed at once.
    r.on_data(&data(5), T, &mut out);
    assert_eq!(acks(&mut out), vec![3]);
}

#[test]
fn receiver_reports_completion_of_a_finite_transfer_once() {
    let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig::default(), Some(2000));
    let mut out = Outbox::default();
    let d1 = r.on_data(&data(1), T, &mut out);
    assert!(!d1.completed);
    let d0 = r.on_data(&data(0), T, &mut out);
    assert!(d0.completed);
    assert_eq!(d0.bytes, 2000);
    assert!(!r.on_data(&data(1), T, &mut out).completed);
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

fn ece(n: u64) -> Packet {
    Packet { flags: crate::packet::FLAG_ECE, ..ack(n, T) }
}

#[test]
fn ecn_echo_halves_once_per_window_and_sets_cwr() {
    let c = TcpConfig { ecn: true, ..cfg(CcKind::Newreno) };
    let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    assert!(out.pkts.iter().all(|p| p.ecn == crate::packet::Ecn::Ect), "data is ECT(0)");
    out.pkts.clear();
    // ECE on the ACK of segment 0: FlightSize 10 -> ssthresh = cwnd = 5, nothing resent,
    // and the window (5 from snd_una 1) has no room for new data yet.
    s.on_ack(&ece(1), T, &mut out);
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!((s.win.cwnd, s.win.ssthresh), (5, 5));
    assert_eq!(sent(&mut out), vec![]);
    // ECE on ACKs for the rest of the window outstanding at the reduction: no new reduction.
    for n in 2..=10 {
        s.on_ack(&ece(n), T, &mut out);
    }
    assert_eq!(s.stats.ecn_reductions, 1);
    assert_eq!(s.stats.retransmits, 0, "ECN retransmits nothing");
    // The first new segment after the reduction (10) carried CWR, and only it.
    let cwr: Vec<u64> = out.pkts.iter().filter(|p| p.has(crate::packet::FLAG_CWR)).map(|p| p.seq).collect();
    assert_eq!(cwr, vec![10]);
    // ECE on the ACK of segment 10, sent after the reduction: a new window, a new reduction.
    s.on_ack(&ece(11), T, &mut out);
    assert_eq!(s.stats.ecn_reductions, 2);
}

#[test]
fn receiver_echoes_ce_until_cwr() {
    let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig { ecn: true, ..TcpConfig::default() }, None);
    let mut out = Outbox::default();
    let ce = Packet { ecn: crate::packet::Ecn::Ce, ..data(0) };
    r.on_data(&ce, T, &mut out);
    r.on_data(&data(1), T, &mut out);
    let cwr = Packet { flags: crate::packet::FLAG_CWR, ..data(2) };
    r.on_data(&cwr, T, &mut out);
    let echoed: Vec<bool> = out.pkts.iter().map(|p| p.has(crate::packet::FLAG_ECE)).collect();
    assert_eq!(echoed, vec![true, true, false]);
}

fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> Packet {
    Packet { sack: crate::packet::SackBlocks::from_ranges(n, blocks.iter().copied()), ..ack(n, T) }
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
fn receiver_reports_the_latest_block_first() {
    let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig { sack: true, ..TcpConfig::default() }, None);
    let mut out = Outbox::default();
    for seq in [0, 2, 5, 6, 3] {
        r.on_data(&data(seq), T, &mut out);
    }
    let last = out.pkts.last().unwrap();
    let blocks: Vec<(u64, u64)> = last.sack.ranges(last.ack).collect();
    assert_eq!(last.ack, 1);
    assert_eq!(blocks, vec![(2, 4), (5, 7)]);
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

const MS_NS: u64 = 1_000_000;

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

/// A persistent connection (IW 2, 8-segment chunks) whose first chunk was ACKed segment by
/// segment at `T` with no loss: slow start took cwnd from 2 to 2 + 8 = 10.
fn persistent_after_one_chunk(idle_restart: bool) -> (TcpSender, Outbox) {
    let cfg = TcpConfig { initial_cwnd_pkts: 2, idle_restart, ..TcpConfig::default() };
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg, Some(8 * 1460));
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    for n in 1..=8 {
        s.on_ack(&ack(n, Time::ZERO), T, &mut out);
    }
    assert!(s.is_done());
    assert_eq!(s.win.cwnd, 10);
    out.pkts.clear();
    out.events.clear();
    (s, out)
}

#[test]
fn persistent_connection_keeps_its_window_across_idle_without_idle_restart() {
    let (mut s, mut out) = persistent_after_one_chunk(false);
    // One second idle (> RTO); the next chunk goes out in one window of 10 >= 8 segments.
    s.write_chunk(T + Duration::from_secs(1), &mut out);
    assert_eq!(sent(&mut out), (8..16).map(|i| (i, false)).collect::<Vec<_>>());
    assert!(!s.is_done());
    s.on_ack(&ack(16, T), T + Duration::from_secs(2), &mut out);
    assert!(s.is_done());
}

#[test]
fn idle_restart_resets_the_window_after_an_idle_rto() {
    let (mut s, mut out) = persistent_after_one_chunk(true);
    // RFC 5681 §4.1: idle for longer than the RTO (here <= 300 ms): restart window = IW = 2.
    let t = T + Duration::from_secs(1);
    s.write_chunk(t, &mut out);
    assert_eq!(sent(&mut out), vec![(8, false), (9, false)]);
    assert_eq!(s.win.cwnd, 2);
    assert_eq!(out.events, vec![("idle_restart", 8)]);
}

#[test]
fn idle_restart_keeps_the_window_after_an_idle_shorter_than_the_rto() {
    let (mut s, mut out) = persistent_after_one_chunk(true);
    assert!(s.rtt.rto() > Duration::from_ms(150));
    s.write_chunk(T + Duration::from_ms(100), &mut out);
    assert_eq!(s.win.cwnd, 10);
    assert_eq!(sent(&mut out).len(), 8);
}

#[test]
fn receiver_reports_each_chunk_of_a_persistent_connection_complete() {
    // 2500-byte chunks of 1460 + 1040 bytes.
    let mut r = TcpReceiver::new(0, 0, 1, 0, &cfg(CcKind::Newreno), Some(2500));
    let mut out = Outbox::default();
    let d0 = r.on_data(&data(0), T, &mut out);
    let d1 = r.on_data(&data(1), T, &mut out);
    assert_eq!((d0.bytes, d0.completed, d1.bytes, d1.completed), (1460, false, 1040, true));
    r.write_chunk();
    // The second chunk arrives out of order: completion only when its hole fills.
    let d3 = r.on_data(&data(3), T, &mut out);
    assert_eq!((d3.bytes, d3.completed), (0, false));
    let d2 = r.on_data(&data(2), T, &mut out);
    assert_eq!((d2.bytes, d2.completed), (2500, true));
}

#[test]
fn with_timestamps_the_ack_of_a_retransmission_samples_the_rtt_and_ends_the_backoff() {
    for timestamps in [false, true] {
        let cfg = TcpConfig { timestamps, ..cfg(CcKind::Newreno) };
        let mut s = TcpSender::new(0, 0, 0, 1, &cfg, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        let at = Time::ZERO + Duration::from_secs(1);
        let gen = match out.timers.last() {
            Some(&(_, FlowTimer::Rto(g))) => g,
            other => panic!("RTO not armed: {other:?}"),
        };
        s.on_rto_timer(gen, at, &mut out); // retransmits 0 at 1 s, backoff 1
        assert_eq!(s.rtt.backoff, 1);
        // The ACK of the retransmission, 30 ms later, echoes its transmit time.
        let mut a = ack(1, at);
        a.flags = FLAG_RETX;
        s.on_ack(&a, at + Duration::from_ms(30), &mut out);
        if timestamps {
            assert_eq!(s.rtt.srtt, Some(Duration::from_ms(30)), "RFC 7323: the echo identifies the transmission");
            assert_eq!(s.rtt.backoff, 0);
        } else {
            assert_eq!(s.rtt.srtt, None, "Karn's rule");
            assert_eq!(s.rtt.backoff, 1, "the doubled timer stays until a new segment is ACKed");
        }
    }
}

#[test]
fn without_byte_counting_an_ack_grows_the_window_by_one_segment_whatever_it_covers() {
    for (byte_counting, grown) in [(true, 12), (false, 11)] {
        let cfg = TcpConfig { byte_counting, ..cfg(CcKind::Newreno) };
        let mut s = TcpSender::new(0, 0, 0, 1, &cfg, None);
        let mut out = Outbox::default();
        s.start(Time::ZERO, &mut out);
        // A delayed ACK covering segments 0 and 1, in slow start: RFC 3465 (L = 2) counts
        // two segments, Linux 2.6 and ns-2 count the ACK once.
        s.on_ack(&ack(2, Time::ZERO), T, &mut out);
        assert_eq!(s.win.cwnd, grown, "byte_counting = {byte_counting}");
    }
}
