//! FIFO with tail drop: the baseline every paper compares against ("DropTail").
//!
//! Principles: one queue, packets leave in arrival order, an arriving packet that would
//! exceed the limit is dropped (reason `overflow`). The limit is in packets, in bytes, or
//! both (a packet must fit both); with neither the queue never drops, which is the default
//! for links that are not under study.

use serde::{Deserialize, Serialize};

use super::{DropReason, PacketFifo, Qdisc, QdiscCtx, QdiscParams};
use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::time::Time;

/// FIFO parameters.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FifoParams {
    /// Capacity in packets (Linux `pfifo` `limit`); `None` = no packet limit.
    #[serde(default)]
    pub limit_pkts: Option<u64>,
    /// Capacity in bytes (Linux `bfifo` `limit`); `None` = no byte limit.
    #[serde(default)]
    pub limit_bytes: Option<u64>,
}

impl QdiscParams for FifoParams {
    /// Checks that limits, when given, are at least one packet / one byte.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.limit_pkts == Some(0) {
            return Err(ConfigError::new("limit_pkts", 0, "at least 1 packet, or absent for no limit"));
        }
        if self.limit_bytes == Some(0) {
            return Err(ConfigError::new("limit_bytes", 0, "at least 1 byte, or absent for no limit"));
        }
        Ok(())
    }
}

pub(super) fn info() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "fifo",
        summary: "First-in first-out with tail drop (DropTail)",
        params: vec![ParamInfo {
            name: "limit",
            unit: "pkts|bytes",
            default: "none",
            help: "capacity, e.g. \"100pkt\" or \"30KB\"; none = never drops",
        }],
    }
}

/// A tail-drop FIFO.
#[derive(Debug)]
pub struct Fifo {
    params: FifoParams,
    queue: PacketFifo,
}

impl Fifo {
    /// Returns the packet the next dequeue takes.
    pub(crate) fn front(&self) -> Option<&Packet> {
        self.queue.front()
    }

    /// Returns an empty FIFO.
    pub fn new(params: FifoParams) -> Self {
        // Nothing allocated until a packet waits, then growing to the longest queue seen (a
        // few doublings, once): a ring sized to the limit is touched end to end as packets
        // pass, and most host NICs of a many-flow run never hold a packet (one that finds
        // the link idle passes straight to the transmitter, `Port::pass_through`).
        Fifo { params, queue: PacketFifo::with_capacity(0) }
    }
}

impl Qdisc for Fifo {
    fn enqueue(&mut self, pkt: Packet, _now: Time, ctx: &mut QdiscCtx) {
        if self.queue.fits(pkt.size_bytes, self.params.limit_pkts, self.params.limit_bytes) {
            self.queue.push(pkt);
        } else {
            ctx.drop_arrival(pkt, DropReason::Overflow);
        }
    }

    fn dequeue(&mut self, _now: Time, _ctx: &mut QdiscCtx) -> Option<Packet> {
        self.queue.pop()
    }

    fn len_pkts(&self) -> u64 {
        self.queue.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queue.len_bytes()
    }

    fn idle_dequeue_is_noop(&self) -> bool {
        true
    }

    fn passes_through(&self, pkt: &Packet) -> bool {
        self.queue.is_empty() && self.queue.fits(pkt.size_bytes, self.params.limit_pkts, self.params.limit_bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use proptest::prelude::*;

    #[test]
    fn leaves_in_arrival_order() {
        let mut h = Harness::new(Fifo::new(FifoParams { limit_pkts: Some(10), limit_bytes: None }));
        for i in 0..5 {
            h.enqueue(pkt(i, 1500));
        }
        let order: Vec<u32> = std::iter::from_fn(|| h.dequeue()).map(|p| p.flow).collect();
        assert_eq!(order, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn drops_the_arrival_when_the_packet_limit_is_reached() {
        let mut h = Harness::new(Fifo::new(FifoParams { limit_pkts: Some(3), limit_bytes: None }));
        for i in 0..5 {
            h.enqueue(pkt(i, 100));
        }
        assert_eq!(h.q.len_pkts(), 3);
        let dropped: Vec<(u32, DropReason, bool)> = h.drops.iter().map(|(p, r, a)| (p.flow, *r, *a)).collect();
        assert_eq!(dropped, vec![(3, DropReason::Overflow, true), (4, DropReason::Overflow, true)]);
    }

    #[test]
    fn byte_limit_admits_small_packets_after_refusing_a_large_one() {
        let mut h = Harness::new(Fifo::new(FifoParams { limit_pkts: None, limit_bytes: Some(3000) }));
        h.enqueue(pkt(0, 1500));
        h.enqueue(pkt(1, 1000));
        h.enqueue(pkt(2, 1500)); // 4000 > 3000: dropped
        h.enqueue(pkt(3, 500)); // 3000: fits exactly
        assert_eq!(h.q.len_bytes(), 3000);
        assert_eq!(h.drops.len(), 1);
        assert_eq!(h.drops[0].0.flow, 2);
    }

    #[test]
    fn zero_limits_are_refused_by_name() {
        let e = FifoParams { limit_pkts: Some(0), limit_bytes: None }.validate().unwrap_err();
        assert_eq!(e.key, "limit_pkts");
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50) {
            let q = Fifo::new(FifoParams { limit_pkts: Some(limit), limit_bytes: Some(limit * 1000) });
            conserves(q, &ops);
        }
    }
}
