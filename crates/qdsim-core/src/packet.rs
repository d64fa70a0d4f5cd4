//! The packet: a small `Copy` value that moves through queues and links.
//!
//! A packet carries what the simulator needs and nothing per-byte: who sent it, where it
//! goes, its wire size, TCP sequence/ack numbers (in segments; byte numbers are
//! `segment × mss`), ECN bits, and timestamps for RTT and queueing-delay measurement.
//! Packets are never heap-allocated; queues store them by value.

use crate::time::Time;

/// Index of a node in the topology.
pub type NodeId = u32;
/// Index of a flow in the run configuration.
pub type FlowId = u32;
/// A user or traffic class identifier, used by class-based classifiers.
pub type ClassId = u32;

/// Bytes of header counted in a UDP datagram's wire size (IP + UDP, padded alike to TCP's
/// 40 bytes without options). A TCP segment's headers and options depend on its connection's
/// options and wire format (`tcp/wire.rs`).
pub const HEADER_BYTES: u32 = 40;

/// What a packet is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP data segment; `seq` is its segment number.
    Data,
    /// A pure TCP acknowledgement; `ack` is the next expected segment.
    Ack,
    /// A UDP datagram; `seq` counts datagrams of its flow.
    Udp,
}

/// The two ECN bits of the IP header (RFC 3168 §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ecn {
    /// Not ECN-capable transport.
    #[default]
    NotEct,
    /// ECN-capable transport, ECT(0).
    Ect,
    /// Congestion experienced, set by an AQM instead of dropping.
    Ce,
}

/// TCP header flag: this ACK echoes a congestion signal (ECE, RFC 3168 §6.1.3).
pub const FLAG_ECE: u8 = 1 << 0;
/// TCP header flag: the sender reduced its window (CWR, RFC 3168 §6.1.2).
pub const FLAG_CWR: u8 = 1 << 1;
/// Simulator flag: this data segment is a retransmission (for Karn's rule and statistics).
pub const FLAG_RETX: u8 = 1 << 2;
/// TCP header flag: SYN (on a `Data` packet: the sender's connection request, carrying no
/// data; on an `Ack`: the receiver's SYN-ACK).
pub const FLAG_SYN: u8 = 1 << 3;

/// One packet in flight.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Packet {
    /// The flow this packet belongs to (ACKs belong to the flow they acknowledge).
    pub flow: FlowId,
    /// User / class of the flow, for class-based classifiers.
    pub class: ClassId,
    /// Data, ACK or UDP.
    pub kind: PacketKind,
    /// Size on the wire in bytes, headers included.
    pub size_bytes: u32,
    /// Node that sent it.
    pub src: NodeId,
    /// Node it is addressed to.
    pub dst: NodeId,
    /// Data: the segment number. UDP: the datagram number. ACK: the cumulative
    /// acknowledgement, the next segment expected. One field, as no packet carries both (an
    /// ns-2 agent's data carries no acknowledgement); read it through [`Packet::seq`] and
    /// [`Packet::ack`], which give 0 for the number a packet does not carry.
    pub number: u64,
    /// Data: when the sender transmitted it. ACK: the echoed transmit time of the data
    /// segment that triggered it (used for RTT samples, like a TCP timestamp echo).
    pub ts: Time,
    /// When the packet entered the queue it is in now; stamped by the port, read by AQMs.
    pub enq_time: Time,
    /// Sum of the time this packet has spent waiting in queues along its path, in ns.
    pub queue_delay_ns: u64,
    /// ECN codepoint.
    pub ecn: Ecn,
    /// `FLAG_*` bits.
    pub flags: u8,
    /// ACK: its SACK blocks (RFC 2018) in the run's [`SackStore`], [`SackRef::NONE`] unless
    /// the flow uses SACK and the receiver holds data above the ACK.
    pub sack: SackRef,
    /// While the packet propagates on a link's delay line, the number its arrival event
    /// takes (40 bits, little-endian; `OnWire` in `net/link.rs`); all zeros elsewhere.
    /// It fills bytes the layout would leave as padding, so that a delay line's entry is the
    /// packet alone, one cache line.
    pub wire_seq: [u8; 5],
}

// Packets are copied through every queue and delay line: one cache line each. The SACK
// blocks, 32 bytes that only some ACKs carry, wait in the run's `SackStore`; with them
// inline a packet was 96 bytes, and the whole run measurably slower (docs/performance.md,
// "A packet in one cache line").
const _: () = assert!(std::mem::size_of::<Packet>() <= 64);

/// Where an ACK's SACK blocks wait while it is in flight: a slot of the run's
/// [`SackStore`], or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SackRef(u32);

impl SackRef {
    /// No blocks.
    pub const NONE: SackRef = SackRef(u32::MAX);
}

/// The SACK blocks of the ACKs in flight, each in a slot from the receiver that sends the ACK
/// until its sender reads them or the ACK is dropped (the simulator releases the slot then).
/// Freed slots are reused last-freed first, so the store stays as small as the most ACKs with
/// blocks in flight at once, and its busy part warm in the caches.
#[derive(Debug, Default)]
pub struct SackStore {
    slots: Vec<SackBlocks>,
    free: Vec<u32>,
}

impl SackStore {
    /// Stores `blocks`; returns their slot, or [`SackRef::NONE`] when there are none.
    pub fn put(&mut self, blocks: SackBlocks) -> SackRef {
        if blocks.is_empty() {
            return SackRef::NONE;
        }
        match self.free.pop() {
            Some(i) => {
                self.slots[i as usize] = blocks;
                SackRef(i)
            }
            None => {
                assert!(self.slots.len() < u32::MAX as usize, "more than 2^32 - 1 ACKs with SACK blocks in flight");
                self.slots.push(blocks);
                SackRef(self.slots.len() as u32 - 1)
            }
        }
    }

    /// Returns the blocks of `r` (none for [`SackRef::NONE`]).
    #[inline]
    pub fn get(&self, r: SackRef) -> SackBlocks {
        if r == SackRef::NONE {
            SackBlocks::NONE
        } else {
            self.slots[r.0 as usize]
        }
    }

    /// Frees the slot of `r`, whose packet has been read or dropped.
    #[inline]
    pub fn release(&mut self, r: SackRef) {
        if r != SackRef::NONE {
            debug_assert!(!self.free.contains(&r.0), "SACK slot {} released twice", r.0);
            self.free.push(r.0);
        }
    }

    /// Returns the number of slots in use: the ACKs with blocks still in flight.
    pub fn in_use(&self) -> usize {
        self.slots.len() - self.free.len()
    }
}

/// Up to four SACK blocks (RFC 2018 §3: four fit the 40-byte option space, three beside the
/// timestamp option; the receiver's format decides how many it sends), each a half-open
/// range of segments `[ack + start, ack + end)` stored as offsets from the ACK. The first
/// block holds the most recently received segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlocks([(u32, u32); SackBlocks::MAX]);

impl SackBlocks {
    /// No blocks.
    pub const NONE: SackBlocks = SackBlocks([(0, 0); SackBlocks::MAX]);

    /// The most blocks a packet holds.
    pub const MAX: usize = 4;

    /// Builds blocks for an ACK of `ack` from absolute segment ranges, keeping at most
    /// `max_blocks` (ranges not above `ack` or too far to encode are skipped).
    pub fn from_ranges(ack: u64, ranges: impl IntoIterator<Item = (u64, u64)>, max_blocks: usize) -> SackBlocks {
        let mut b = SackBlocks::NONE;
        let mut n = 0;
        for (s, e) in ranges {
            if n == max_blocks.min(Self::MAX) {
                break;
            }
            if s > ack && e > s && e - ack <= u32::MAX as u64 {
                b.0[n] = ((s - ack) as u32, (e - ack) as u32);
                n += 1;
            }
        }
        b
    }

    /// Returns the blocks as absolute segment ranges for an ACK of `ack`.
    pub fn ranges(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.0.iter().filter(|(s, e)| e > s).map(move |&(s, e)| (ack + s as u64, ack + e as u64))
    }

    /// Returns the number of blocks.
    pub fn len(&self) -> usize {
        self.0.iter().filter(|(s, e)| e > s).count()
    }

    /// Returns whether there is no block.
    pub fn is_empty(&self) -> bool {
        self.0[0].1 == 0
    }
}

impl Packet {
    /// Returns a UDP datagram of `size_bytes` sent at `now`: the packet every non-TCP source
    /// (CBR, Poisson) emits, numbered `seq` so the sink can count what arrived.
    pub fn datagram(
        flow: FlowId,
        class: ClassId,
        src: NodeId,
        dst: NodeId,
        seq: u64,
        size_bytes: u32,
        now: Time,
    ) -> Packet {
        Packet {
            flow,
            class,
            kind: PacketKind::Udp,
            size_bytes,
            src,
            dst,
            number: seq,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            ecn: Ecn::NotEct,
            flags: 0,
            sack: SackRef::NONE,
            wire_seq: [0; 5],
        }
    }

    /// Returns the segment number of a data packet, the datagram number of a UDP one; 0 for
    /// an ACK.
    #[inline]
    pub fn seq(&self) -> u64 {
        if self.kind == PacketKind::Ack {
            0
        } else {
            self.number
        }
    }

    /// Returns the cumulative acknowledgement of an ACK; 0 for data and UDP packets.
    #[inline]
    pub fn ack(&self) -> u64 {
        if self.kind == PacketKind::Ack {
            self.number
        } else {
            0
        }
    }

    /// Returns whether flag bit `f` is set.
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<Packet>(), 64);
    }

    #[test]
    fn the_sack_store_keeps_blocks_until_released_and_reuses_the_last_slot_freed() {
        let mut store = SackStore::default();
        assert_eq!(store.put(SackBlocks::NONE), SackRef::NONE, "no blocks take no slot");
        let a = store.put(SackBlocks::from_ranges(10, [(12, 14)], 4));
        let b = store.put(SackBlocks::from_ranges(20, [(25, 26), (22, 23)], 4));
        assert_eq!(store.in_use(), 2);
        assert_eq!(store.get(a).ranges(10).collect::<Vec<_>>(), [(12, 14)]);
        assert_eq!(store.get(b).ranges(20).collect::<Vec<_>>(), [(25, 26), (22, 23)]);
        assert!(store.get(SackRef::NONE).is_empty());
        store.release(a);
        store.release(SackRef::NONE);
        assert_eq!(store.in_use(), 1);
        let c = store.put(SackBlocks::from_ranges(30, [(31, 32)], 4));
        assert_eq!(c, a, "the freed slot is reused");
        assert_eq!(store.get(c).ranges(30).collect::<Vec<_>>(), [(31, 32)]);
        assert_eq!(store.get(b).ranges(20).collect::<Vec<_>>(), [(25, 26), (22, 23)], "untouched");
    }

    #[test]
    fn seq_and_ack_read_the_one_number_by_kind() {
        let mut p = Packet::datagram(0, 0, 1, 2, 7, 100, Time::ZERO);
        assert_eq!((p.seq(), p.ack()), (7, 0));
        p.kind = PacketKind::Data;
        assert_eq!((p.seq(), p.ack()), (7, 0));
        p.kind = PacketKind::Ack;
        assert_eq!((p.seq(), p.ack()), (0, 7));
    }
}
