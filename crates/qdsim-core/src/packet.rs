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
    /// Data: segment number. UDP: datagram number.
    pub seq: u64,
    /// ACK: cumulative acknowledgement, the next segment expected.
    pub ack: u64,
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
    /// ACK: SACK blocks (RFC 2018), empty unless the flow uses SACK.
    pub sack: SackBlocks,
}

// Packets are copied through every queue: keep them small (64 bytes of header fields plus
// 32 bytes of SACK blocks).
const _: () = assert!(std::mem::size_of::<Packet>() <= 96);

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
            seq,
            ack: 0,
            ts: now,
            enq_time: now,
            queue_delay_ns: 0,
            ecn: Ecn::NotEct,
            flags: 0,
            sack: SackBlocks::NONE,
        }
    }

    /// Returns whether flag bit `f` is set.
    pub fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}
