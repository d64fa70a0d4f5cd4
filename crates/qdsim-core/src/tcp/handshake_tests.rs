//! Hand-fed traces of the SYN / SYN-ACK exchange (`handshake = true`).

use super::*;
use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{Packet, PacketKind, FLAG_RETX, FLAG_SYN, HEADER_BYTES};
use crate::time::{Duration, Time};

fn cfg() -> TcpConfig {
    TcpConfig { handshake: true, initial_cwnd_pkts: 4, ..TcpConfig::default() }
}

/// The receiver's answer to `syn`, as the sender gets it.
fn syn_ack_for(syn: &Packet) -> Packet {
    let mut r = TcpReceiver::new(0, 0, 1, 0, &cfg(), None);
    let mut out = Outbox::default();
    let d = r.on_data(syn, Time::ZERO, &mut out);
    assert_eq!((d.bytes, d.completed), (0, false), "a SYN delivers nothing");
    assert_eq!(out.pkts.len(), 1, "a SYN is answered at once");
    let a = out.pkts[0];
    assert!(a.kind == PacketKind::Ack && a.has(FLAG_SYN));
    assert_eq!(a.ts, syn.ts, "the SYN-ACK echoes the SYN's timestamp");
    a
}

#[test]
fn the_first_packet_is_a_syn_and_data_waits_for_the_syn_ack() {
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg(), None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    assert_eq!(out.pkts.len(), 1);
    let syn = out.pkts[0];
    assert!(syn.has(FLAG_SYN) && !syn.has(FLAG_RETX));
    assert_eq!(syn.size_bytes, HEADER_BYTES, "no data on the SYN");
    assert!(s.in_handshake());
    out.pkts.clear();
    // 20 ms later the SYN-ACK: the first RTT sample, then the initial window of 4.
    let t = Time::ZERO + Duration::from_ms(20);
    s.on_ack(&syn_ack_for(&syn), t, &mut out);
    assert!(!s.in_handshake());
    assert_eq!(s.rtt.srtt, Some(Duration::from_ms(20)));
    let seqs: Vec<u64> = out.pkts.iter().map(|p| p.seq).collect();
    assert_eq!(seqs, vec![0, 1, 2, 3]);
    assert!(out.pkts.iter().all(|p| !p.has(FLAG_SYN)));
}

#[test]
fn a_lost_syn_is_resent_after_the_initial_rto_and_the_window_starts_at_one() {
    let c = TcpConfig { initial_rto_ns: 3_000_000_000, ..cfg() };
    let mut s = TcpSender::new(0, 0, 0, 1, &c, None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    let (at, gen) = match out.timers.last() {
        Some(&(at, FlowTimer::Rto(g))) => (at, g),
        other => panic!("no SYN timer: {other:?}"),
    };
    assert_eq!(at, Time::ZERO + Duration::from_secs(3), "Linux 2.6 / RFC 1122 initial RTO");
    out.pkts.clear();
    out.timers.clear();
    s.on_rto_timer(gen, at, &mut out);
    assert_eq!(out.pkts.len(), 1);
    let syn2 = out.pkts[0];
    assert!(syn2.has(FLAG_SYN) && syn2.has(FLAG_RETX));
    assert_eq!(out.timers.last().map(|&(t, _)| t - at), Some(Duration::from_secs(6)), "backed off");
    assert_eq!(s.stats.timeouts, 1);
    out.pkts.clear();
    // The SYN-ACK of the retransmitted SYN: no RTT sample (Karn), one segment
    // (RFC 5681 §3.1), the RTO back at 3 s (RFC 6298 §5.7).
    let t = at + Duration::from_ms(20);
    s.on_ack(&syn_ack_for(&syn2), t, &mut out);
    assert_eq!(s.rtt.srtt, None);
    assert_eq!(s.rtt.backoff, 0);
    assert_eq!(out.pkts.iter().map(|p| p.seq).collect::<Vec<_>>(), vec![0]);
    assert_eq!(out.timers.last().map(|&(d, _)| d - t), Some(Duration::from_secs(3)));
}

#[test]
fn acks_before_the_syn_ack_are_ignored_and_a_late_syn_ack_is_harmless() {
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg(), None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    let syn = out.pkts[0];
    out.pkts.clear();
    let plain = Packet { flags: 0, ..syn_ack_for(&syn) };
    s.on_ack(&plain, Time(1_000), &mut out);
    assert!(s.in_handshake() && out.pkts.is_empty());
    let syn_ack = syn_ack_for(&syn);
    s.on_ack(&syn_ack, Time(2_000), &mut out);
    let sent = out.pkts.len();
    s.on_ack(&syn_ack, Time(3_000), &mut out); // a duplicate, answering a resent SYN
    assert_eq!(out.pkts.len(), sent, "a duplicate SYN-ACK sends nothing");
    assert_eq!(s.snd_una, 0);
}
