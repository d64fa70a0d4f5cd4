//! Arrival order (FCFS) over the queues of a multi-queue qdisc: the `fifo_classes` kind.
//!
//! Principles: packets leave in the order they arrived, whatever queue (class) they joined,
//! so the qdisc is one FIFO; the classifier's queues only tell a buffer policy which class
//! each packet belongs to. This is the arrangement of AFD (Pan et al. 2003): a FIFO whose
//! drops are decided per class. Weights do not change the order (a buffer policy may use
//! them, as EWFQ does).
//!
//! Invariant: `order` lists one entry per queued packet, oldest first, plus entries of heads
//! the buffer policy dropped that have not reached the front yet (`stale[q]` of them, always
//! the oldest entries of `q`: a policy only ever drops a queue's head). `select` skips them.
//! O(1) per packet.

use std::collections::VecDeque;

use super::{Queues, Scheduler};

/// First-come first-served across queues.
#[derive(Debug, Default)]
pub struct Arrival {
    /// The queue of every queued (or dropped but not yet skipped) packet, in arrival order.
    order: VecDeque<usize>,
    /// Per queue: how many of its oldest entries in `order` belong to dropped heads.
    stale: Vec<u32>,
}

impl Arrival {
    /// Returns an empty scheduler.
    pub fn new() -> Self {
        Arrival::default()
    }

    /// Removes the entries of dropped heads from the front of `order`.
    fn skip_stale(&mut self) {
        while let Some(&q) = self.order.front() {
            if self.stale[q] == 0 {
                break;
            }
            self.stale[q] -= 1;
            self.order.pop_front();
        }
    }
}

impl Scheduler for Arrival {
    fn add_queue(&mut self, q: usize, _weight: u64) {
        if self.stale.len() <= q {
            self.stale.resize(q + 1, 0);
        }
    }

    fn enqueued(&mut self, q: usize, _queues: &Queues) {
        self.order.push_back(q);
    }

    fn select(&mut self, queues: &Queues) -> Option<usize> {
        self.skip_stale();
        let q = *self.order.front()?;
        debug_assert!(!queues.is_empty(q), "arrival order lists an empty queue {q}");
        Some(q)
    }

    fn sent(&mut self, q: usize, _size: u64, _queues: &Queues) {
        // `select` chose q: its head's entry is the front.
        let front = self.order.pop_front();
        debug_assert_eq!(front, Some(q));
    }

    fn head_dropped(&mut self, q: usize, _size: u64, _queues: &Queues) {
        // The head is q's oldest packet, so its entry is q's oldest live one.
        self.stale[q] += 1;
        self.skip_stale();
    }
}

#[cfg(test)]
mod tests {
    use crate::qdisc::multi::{FqParams, Multi};
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use crate::qdisc::{DropReason, Fifo, FifoParams, Qdisc};
    use crate::time::Time;
    use proptest::prelude::*;

    fn params(limit_pkts: Option<u64>) -> FqParams {
        FqParams { limit_pkts, weights: vec![3, 1, 2], ..FqParams::default() }
    }

    #[test]
    fn packets_leave_in_arrival_order_across_queues() {
        let mut h = Harness::new(Multi::fifo_classes(params(None)));
        let flows = [2, 0, 0, 1, 2, 1, 0];
        for (i, &f) in flows.iter().enumerate() {
            let mut p = pkt(f, 100);
            p.number = i as u64;
            h.enqueue(p);
        }
        let out: Vec<u64> = std::iter::from_fn(|| h.dequeue()).map(|p| p.seq()).collect();
        assert_eq!(out, (0..7).collect::<Vec<_>>());
    }

    #[test]
    fn buffer_stealing_removes_the_longest_queues_oldest_and_keeps_the_order() {
        // Limit 4: the fifth arrival (flow 1) makes room by dropping flow 0's oldest (seq 0).
        let mut h = Harness::new(Multi::fifo_classes(params(Some(4))));
        for (seq, f) in [(0, 0), (1, 1), (2, 0), (3, 0), (4, 1)] {
            let mut p = pkt(f, 100);
            p.number = seq;
            h.now = Time(seq);
            h.enqueue(p);
        }
        let dropped: Vec<(u64, DropReason)> = h.drops.iter().map(|(p, r, _)| (p.seq(), *r)).collect();
        assert_eq!(dropped, vec![(0, DropReason::LongestQueue)]);
        let out: Vec<u64> = std::iter::from_fn(|| h.dequeue()).map(|p| p.seq()).collect();
        assert_eq!(out, vec![1, 2, 3, 4]);
    }

    proptest! {
        #[test]
        fn without_drops_it_is_a_fifo_packet_for_packet(ops in proptest::collection::vec((any::<bool>(), 0u32..5, 40u32..1500), 0..300)) {
            let mut a = Harness::new(Multi::fifo_classes(params(None)));
            let mut b = Harness::new(Fifo::new(FifoParams::default()));
            for (i, &(enq, flow, size)) in ops.iter().enumerate() {
                if enq {
                    let mut p = pkt(flow, size);
                    p.number = i as u64;
                    a.enqueue(p);
                    b.enqueue(p);
                } else {
                    prop_assert_eq!(a.dequeue().map(|p| p.seq()), b.dequeue().map(|p| p.seq()));
                }
            }
        }

        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..300), limit in 1u64..10) {
            conserves(Multi::fifo_classes(params(Some(limit))), &ops);
        }
    }

    #[test]
    fn an_empty_scheduler_selects_nothing() {
        let mut h = Harness::new(Multi::fifo_classes(params(None)));
        assert!(h.dequeue().is_none());
        assert_eq!(h.q.len_pkts(), 0);
    }
}
