//! Test support of the TCP endpoints: hand-built packets, a configured sender, and readers
//! of what an endpoint put in its outbox.

use crate::outbox::Outbox;
use crate::packet::{Packet, PacketKind, FLAG_RETX};
use crate::time::Time;

use super::{CcKind, TcpConfig, TcpSender};

/// An instant (100 ms) at which the tests' ACKs arrive.
pub const T: Time = Time(100_000_000);

/// One millisecond in ns.
pub const MS_NS: u64 = 1_000_000;

/// Returns the plain configuration (`scenario::plain_tcp`, no SACK) with congestion control
/// `cc` and an initial window of 10.
pub fn cfg(cc: CcKind) -> TcpConfig {
    TcpConfig { cc, ..plain() }
}

/// Returns the plain configuration without SACK (`scenario::plain_tcp`).
pub fn plain() -> TcpConfig {
    crate::scenario::plain_tcp(false)
}

/// Returns the plain configuration with SACK.
pub fn plain_sack() -> TcpConfig {
    crate::scenario::plain_tcp(true)
}

/// Returns an ACK of flow 0 for segment `n`, echoing transmit time `ts`.
pub fn ack(n: u64, ts: Time) -> Packet {
    Packet {
        flow: 0,
        class: 0,
        kind: PacketKind::Ack,
        size_bytes: 40,
        src: 1,
        dst: 0,
        number: n,
        ts,
        enq_time: ts,
        queue_delay_ns: 0,
        ecn: crate::packet::Ecn::NotEct,
        flags: 0,
        sack: crate::packet::SackRef::NONE,
        wire_seq: [0; 5],
    }
}

/// Returns the ACK for `n` with SACK `blocks`, stored in `out`'s SACK store (where the
/// sender that `out` is then handed to reads them).
pub fn sack_ack(n: u64, blocks: &[(u64, u64)], out: &mut Outbox) -> Packet {
    let blocks = crate::packet::SackBlocks::from_ranges(n, blocks.iter().copied(), crate::packet::SackBlocks::MAX);
    Packet { sack: out.sacks.put(blocks), ..ack(n, T) }
}

/// Returns the ACK for `n` with ECE set.
pub fn ece(n: u64) -> Packet {
    Packet { flags: crate::packet::FLAG_ECE, ..ack(n, T) }
}

/// Returns full-sized data segment `seq` of flow 0.
pub fn data(seq: u64) -> Packet {
    Packet { kind: PacketKind::Data, number: seq, size_bytes: 1500, src: 0, dst: 1, ..ack(0, Time::ZERO) }
}

/// Takes the data segments in `out` as (segment, retransmission?).
pub fn sent(out: &mut Outbox) -> Vec<(u64, bool)> {
    let v = out.pkts.iter().map(|p| (p.seq(), p.has(FLAG_RETX))).collect();
    out.pkts.clear();
    v
}

/// Takes the cumulative ACK numbers of the ACKs in `out`.
pub fn acks(out: &mut Outbox) -> Vec<u64> {
    let v = out.pkts.iter().map(|p| p.ack()).collect();
    out.pkts.clear();
    v
}

/// Returns a sender (congestion control `cc`) that has sent its initial window, segments
/// 0..10, none acknowledged yet.
pub fn sender_with_window(cc: CcKind) -> (TcpSender, Outbox) {
    let mut s = TcpSender::new(0, 0, 0, 1, &cfg(cc), None);
    let mut out = Outbox::default();
    s.start(Time::ZERO, &mut out);
    assert_eq!(sent(&mut out), (0..10).map(|i| (i, false)).collect::<Vec<_>>());
    (s, out)
}
