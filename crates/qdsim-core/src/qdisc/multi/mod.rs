//! Multi-queue qdiscs: a classifier × a scheduler × a buffer policy, exposed as `drr`,
//! `drr_lds`, `wfq`, `wf2q_plus` and `fifo_classes` (one FIFO whose packets are classified
//! for the buffer policy); their parameters are [`FqParams`] (`params.rs`), the
//! buffer policies live in `buffer/`, one per file.
//!
//! Principles: an arriving packet is classified ([`Classifier`]) into a queue, created on
//! first use; the buffer policy ([`BufferPolicy`]) admits it (possibly dropping the head of
//! the longest queue first) or drops it; the scheduler ([`Scheduler`]) picks which queue's
//! head leaves; drop-on-dequeue may discard that head and ask again.
//!
//! Sources: Menth, Mehl & Veith, "Deficit Round Robin with Limited Deficit Savings (DRR-LDS)
//! for Fairness Among TCP Users" (2017), §2.2 (DRR, buffer stealing), §3 (DRR-LDS), §4.1
//! (drop-on-enqueue, drop-on-dequeue); see each module for the rest.
//!
//! Invariants: every packet is in exactly one queue or reported dropped (the conservation
//! identity); queues only lose packets at their head. No allocation per packet once every
//! queue has grown to its largest backlog; no dynamic dispatch.

mod buffer;
mod params;

pub use buffer::{BufferPolicy, Policy};
pub use params::FqParams;
pub(crate) use params::{info_drr, info_drr_lds, info_fifo_classes, info_wf2q_plus, info_wfq, key_uses};

use super::classify::Classifier;
use super::sched::{Arrival, Drr, DrrLds, Queues, Scheduler, Wfq};
use super::{Probe, Qdisc, QdiscCtx};
use crate::packet::Packet;
use crate::time::Time;

/// A multi-queue qdisc: classifier, queues, scheduler `S`, buffer policy.
#[derive(Debug)]
pub struct Multi<S: Scheduler> {
    classifier: Classifier,
    weights: Vec<u64>,
    buffer: BufferPolicy,
    queues: Queues,
    sched: S,
}

impl<S: Scheduler> Multi<S> {
    /// # Panics
    /// `params` that [`FqParams`]' `validate` refuses (the buffer policy cannot be built).
    fn with(params: &FqParams, sched: S) -> Self {
        Multi {
            classifier: params.classifier(),
            weights: params.weights.iter().map(|&w| w.max(1) as u64).collect(),
            buffer: BufferPolicy::from_params(params).unwrap_or_else(|e| panic!("unvalidated parameters: {e}")),
            queues: Queues::default(),
            sched,
        }
    }

    fn queue_for(&mut self, pkt: &Packet, ctx: &mut QdiscCtx) -> usize {
        let q = self.classifier.classify(pkt, &mut ctx.rng);
        let first_new = self.queues.ensure(q);
        // Empty when q already existed (first_new > q).
        for i in first_new..=q {
            self.sched.add_queue(i, self.weights.get(i).copied().unwrap_or(1));
        }
        q
    }
}

// The constructors panic on parameters that fail validation (see `with`).
impl Multi<Drr> {
    /// Returns a DRR qdisc (`drr`).
    pub fn drr(params: FqParams) -> Self {
        Multi::with(&params, Drr::new(params.quantum()))
    }
}

impl Multi<DrrLds> {
    /// Returns a DRR-LDS qdisc (`drr_lds`).
    pub fn drr_lds(params: FqParams) -> Self {
        Multi::with(&params, DrrLds::new(params.quantum(), params.d_max()))
    }
}

impl Multi<Wfq> {
    /// Returns a WFQ qdisc (`wfq`, SCFQ virtual time).
    pub fn wfq(params: FqParams) -> Self {
        Multi::with(&params, Wfq::new(false))
    }
    /// Returns a WF2Q+ qdisc (`wf2q_plus`).
    pub fn wf2q_plus(params: FqParams) -> Self {
        Multi::with(&params, Wfq::new(true))
    }
}

impl Multi<Arrival> {
    /// Returns one FIFO over classified packets (`fifo_classes`).
    pub fn fifo_classes(params: FqParams) -> Self {
        Multi::with(&params, Arrival::new())
    }
}

impl<S: Scheduler> Qdisc for Multi<S> {
    fn enqueue(&mut self, pkt: Packet, _now: Time, ctx: &mut QdiscCtx) {
        let q = self.queue_for(&pkt, ctx);
        match self.buffer.admit(q, &pkt, &mut self.queues, &mut self.sched, ctx) {
            Ok(()) => {
                self.queues.push(q, pkt);
                self.sched.enqueued(q, &self.queues);
            }
            Err(reason) => ctx.drop_arrival(pkt, reason),
        }
    }

    fn dequeue(&mut self, now: Time, ctx: &mut QdiscCtx) -> Option<Packet> {
        loop {
            let q = self.sched.select(&self.queues)?;
            let p = self.queues.pop_head(q)?;
            let size = p.size_bytes as u64;
            if let Some(reason) = self.buffer.drop_at_dequeue(&p, now) {
                self.sched.head_dropped(q, size, &self.queues);
                ctx.drop_queued(p, reason);
                continue;
            }
            self.sched.sent(q, size, &self.queues);
            self.buffer.sent(q, &p, &self.queues, now);
            return Some(p);
        }
    }

    fn len_pkts(&self) -> u64 {
        self.queues.total_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.queues.total_bytes()
    }

    fn on_timer(&mut self, now: Time, ctx: &mut QdiscCtx) {
        self.buffer.on_timer(now, &self.queues, ctx);
    }

    fn internals(&self, probe: &mut dyn Probe) {
        self.buffer.internals(probe);
    }
}

#[cfg(test)]
mod tests;
