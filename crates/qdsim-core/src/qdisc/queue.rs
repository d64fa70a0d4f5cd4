//! The packet queue every discipline stores its packets in: a FIFO that counts its bytes, and
//! the tail-drop fit test against packet and byte limits.
//!
//! FIFO, RED/ARED, Blue, PIE and CoDel keep their packets in one, a multi-queue discipline
//! one per queue (`sched::Queues`), so the byte accounting the conservation identity depends
//! on is written once.

use std::collections::VecDeque;

use crate::packet::Packet;

/// A packet on a cache line of its own: the ring is allocated 64-byte aligned, so that the
/// head a dequeue reads and the tail an enqueue writes are one line each, not two wherever
/// the allocator happened to place the ring (docs/performance.md, "A packet in one cache
/// line").
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
struct Line(Packet);

const _: () = assert!(std::mem::size_of::<Line>() == 64);

/// A FIFO of packets with a running byte count.
#[derive(Debug, Clone, Default)]
pub struct PacketFifo {
    pkts: VecDeque<Line>,
    bytes: u64,
}

impl PacketFifo {
    /// Returns an empty queue with room for `capacity` packets before it reallocates.
    pub fn with_capacity(capacity: usize) -> Self {
        PacketFifo { pkts: VecDeque::with_capacity(capacity), bytes: 0 }
    }

    /// Appends `pkt` at the tail.
    pub fn push(&mut self, pkt: Packet) {
        self.bytes += pkt.size_bytes as u64;
        self.pkts.push_back(Line(pkt));
    }

    /// Removes and returns the head packet.
    pub fn pop(&mut self) -> Option<Packet> {
        let pkt = self.pkts.pop_front()?.0;
        self.bytes -= pkt.size_bytes as u64;
        Some(pkt)
    }

    /// Returns the head packet.
    pub fn front(&self) -> Option<&Packet> {
        self.pkts.front().map(|l| &l.0)
    }

    /// Returns the number of packets queued.
    pub fn len_pkts(&self) -> u64 {
        self.pkts.len() as u64
    }

    /// Returns the number of bytes queued.
    pub fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Returns whether no packet is queued.
    pub fn is_empty(&self) -> bool {
        self.pkts.is_empty()
    }

    /// Returns whether a packet of `size` bytes fits under the limits (none = no limit).
    pub fn fits(&self, size: u32, limit_pkts: Option<u64>, limit_bytes: Option<u64>) -> bool {
        limit_pkts.is_none_or(|l| self.len_pkts() < l) && limit_bytes.is_none_or(|l| self.bytes + size as u64 <= l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;

    #[test]
    fn counts_bytes_in_and_out_and_tests_both_limits() {
        let mut q = PacketFifo::default();
        q.push(pkt(0, 1500));
        q.push(pkt(1, 500));
        assert_eq!((q.len_pkts(), q.len_bytes()), (2, 2000));
        assert!(q.fits(1000, Some(3), Some(3000)));
        assert!(!q.fits(1001, Some(3), Some(3000)), "byte limit");
        assert!(!q.fits(10, Some(2), None), "packet limit");
        assert_eq!(q.pop().map(|p| p.flow), Some(0));
        assert_eq!((q.len_pkts(), q.len_bytes()), (1, 500));
    }
}
