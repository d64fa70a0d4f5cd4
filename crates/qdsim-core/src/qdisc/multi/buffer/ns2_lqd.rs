//! `ns2_lqd`: ns-2's `Queue/DRR` longest-queue drop, the "DRR" of Kantawala & Turner (2005):
//! the arrival is queued, then while the buffer holds more than `B` the **head** of the
//! queue with the most **bytes** is dropped (reason `longest_queue`), the scan starting at
//! the DRR pointer, the first strict maximum winning (`push_out.rs`; ns-2 `queue/drr.cc`).
//!
//! How it differs from `shared` (McKenney's buffer stealing after Menth et al. §2.2):
//! - `shared` makes room *before* the arrival is queued, so the arrival's own queue is
//!   measured without it; here it is measured with it (ns-2 appends first). A queue as long
//!   as the longest other queue before the arrival is the victim here, not there.
//! - `shared` measures queues in packets when `limit` is in packets; ns-2 always measures
//!   bytes (its limit `blimit_` is in bytes). With a limit in packets this policy still picks
//!   the queue with the most bytes — the same queue when all packets have one size.
//! - Ties: `shared` robs the queue whose head arrived first; ns-2 the first longest queue in
//!   DRR order from the queue served next (other schedulers: lowest index first).
//! - An arrival larger than the whole byte buffer: `shared` drops it (`overflow`) and keeps
//!   the queues; ns-2 drops heads until only the arrival is left, then the arrival.
//!
//! Readings: our DRR moves its pointer as soon as a queue's deficit no longer covers its head
//! (`sched/drr.rs`), ns-2 at the next dequeue; between the two the scan starts one queue
//! later here. It decides only ties.

use super::push_out::{first_max, push_out, Arrival, Limit};
use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};

/// ns-2's DRR longest-queue drop (by bytes, enqueue first, scan from the DRR pointer).
#[derive(Debug, Clone, PartialEq)]
pub struct Ns2Lqd {
    /// `B`, if limited.
    pub limit: Option<Limit>,
}

impl Policy for Ns2Lqd {
    const PARAMS: &'static [ParamInfo] = &[super::shared::LIMIT];

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        Ok(Ns2Lqd { limit: Limit::from_params(p, false)? })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        sched: &mut S,
        ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        let a = Arrival::new(q, pkt);
        push_out(&a, self.limit, queues, sched, ctx, DropReason::LongestQueue, |queues, sched| {
            first_max(sched, queues, &a, |j| a.bytes_of(queues, j)).expect("the arrival's queue is non-empty")
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::qdisc::multi::buffer::testing::{drops, fq, seq_pkt};
    use crate::qdisc::multi::Multi;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::DropReason;
    use crate::time::Time;

    fn ns2_lqd(limit_pkts: u64) -> Harness<Multi<crate::qdisc::sched::Drr>> {
        Harness::new(Multi::drr(fq("ns2_lqd", |p| p.limit_pkts = Some(limit_pkts))))
    }

    #[test]
    fn the_arrival_counts_in_its_own_queue_where_shared_would_not_count_it() {
        // Queues 0 and 1 hold two packets each, buffer 4: an arrival for queue 1 makes it
        // the longest (3), so queue 1's head goes; `shared` compares 2 with 2 and robs
        // queue 0, whose head is older.
        let run = |buffer: &str| {
            let mut h = Harness::new(Multi::drr(fq(buffer, |p| p.limit_pkts = Some(4))));
            for (t, flow, seq) in [(0, 0, 0), (1, 0, 1), (2, 1, 10), (3, 1, 11), (4, 1, 12)] {
                h.now = Time(t);
                h.enqueue(seq_pkt(flow, 1000, seq));
            }
            drops(&h)
        };
        assert_eq!(run("ns2_lqd"), vec![(1, 10, DropReason::LongestQueue, false)]);
        assert_eq!(run("shared"), vec![(0, 0, DropReason::LongestQueue, false)]);
    }

    #[test]
    fn the_longest_queue_is_measured_in_bytes_even_for_a_limit_in_packets() {
        // Queue 0: three 500-byte packets (1500 B); queue 1: two 1200-byte ones (2400 B).
        let mut h = ns2_lqd(5);
        for (flow, size, seq) in [(0, 500, 0), (0, 500, 1), (0, 500, 2), (1, 1200, 10), (1, 1200, 11), (2, 100, 20)] {
            h.enqueue(seq_pkt(flow, size, seq));
        }
        assert_eq!(drops(&h), vec![(1, 10, DropReason::LongestQueue, false)]);
    }

    #[test]
    fn ties_go_to_the_first_queue_in_drr_order_from_the_pointer() {
        // Queues 0, 1, 2 with two packets each, all of equal age; DRR serves queue 0 first.
        let mut h = Harness::new(Multi::drr(fq("ns2_lqd", |p| {
            p.limit_pkts = Some(6);
            p.quantum_bytes = 1000;
        })));
        for (flow, seq) in [(0, 0), (0, 1), (1, 10), (1, 11), (2, 20), (2, 21)] {
            h.enqueue(seq_pkt(flow, 1000, seq));
        }
        // Queue 0 sends seq 0; its deficit (1000 − 1000) no longer covers its head: the
        // pointer moves to queue 1. Active order now 1, 2, 0.
        assert_eq!(h.dequeue().map(|p| p.seq()), Some(0));
        h.enqueue(seq_pkt(0, 1000, 2)); // 6 packets: fits
                                        // Queues 1, 2, 0 hold two each; an arrival for a new queue 3 overflows: the scan
                                        // from the pointer meets queue 1 first, and no later queue is strictly longer
                                        // (`shared` would rob queue 0, the lowest index among heads of equal age).
        h.enqueue(seq_pkt(3, 1000, 30));
        assert_eq!(drops(&h), vec![(1, 10, DropReason::LongestQueue, false)]);
    }

    #[test]
    fn an_arrival_alone_in_the_longest_queue_is_itself_dropped() {
        // Byte buffer of 3000: queue 0 holds 2000 B, a 2500-byte arrival for queue 1 is the
        // longest (2500 > 2000) and the head of its queue: it is the victim, queue 0 stays.
        let mut h = Harness::new(Multi::drr(fq("ns2_lqd", |p| p.limit_bytes = Some(3000))));
        h.enqueue(seq_pkt(0, 1000, 0));
        h.enqueue(seq_pkt(0, 1000, 1));
        h.enqueue(seq_pkt(1, 2500, 10));
        assert_eq!(drops(&h), vec![(1, 10, DropReason::LongestQueue, true)]);
        assert_eq!(h.q.queues.total_bytes(), 2000);
    }
}
