//! Schedulers of multi-queue qdiscs: which non-empty queue sends next.
//!
//! A scheduler never owns packets. The composite qdisc (`qdisc/multi/`) keeps them in
//! [`Queues`], tells the scheduler about every change (an arrival, a head sent, a head
//! dropped) and asks it which queue's head goes next. Buffer policies only ever drop a
//! queue's head or the arriving packet, so these three events cover every change.
//!
//! Schedulers: [`Drr`] (Menth et al. §2.2), [`DrrLds`] (§3), [`Wfq`] (SCFQ virtual time, or
//! WF2Q+), [`Arrival`] (arrival order: one FIFO over classes). Static dispatch: the
//! composite is generic over [`Scheduler`].

mod arrival;
mod drr;
mod drr_lds;
mod wfq;

pub use arrival::Arrival;
pub use drr::Drr;
pub use drr_lds::DrrLds;
pub use wfq::Wfq;

use std::collections::VecDeque;

use crate::packet::Packet;
use crate::qdisc::PacketFifo;
use crate::time::Time;

/// The packets of a multi-queue qdisc, one FIFO per queue index, with totals.
///
/// Queues are created on first use (every index up to the one used) and never removed, so
/// each queue's ring grows to its largest backlog once and is reused after that.
#[derive(Debug, Default)]
pub struct Queues {
    qs: Vec<PacketFifo>,
    total_pkts: u64,
    total_bytes: u64,
}

impl Queues {
    /// Returns the number of queues created so far.
    pub fn count(&self) -> usize {
        self.qs.len()
    }
    /// Creates queues up to index `q`; returns the first index created (`count()` before).
    pub fn ensure(&mut self, q: usize) -> usize {
        let before = self.qs.len();
        while self.qs.len() <= q {
            self.qs.push(PacketFifo::default());
        }
        before
    }
    /// Appends `pkt` to queue `q` (which must exist).
    pub fn push(&mut self, q: usize, pkt: Packet) {
        self.qs[q].push(pkt);
        self.total_pkts += 1;
        self.total_bytes += pkt.size_bytes as u64;
    }
    /// Removes and returns the head of queue `q`.
    pub fn pop_head(&mut self, q: usize) -> Option<Packet> {
        let p = self.qs.get_mut(q)?.pop()?;
        self.total_pkts -= 1;
        self.total_bytes -= p.size_bytes as u64;
        Some(p)
    }
    /// Returns the head packet of queue `q`.
    pub fn head(&self, q: usize) -> Option<&Packet> {
        self.qs.get(q).and_then(PacketFifo::front)
    }
    /// Returns the size in bytes of the head of queue `q`.
    pub fn head_size(&self, q: usize) -> Option<u64> {
        self.head(q).map(|p| p.size_bytes as u64)
    }
    /// Returns whether queue `q` holds no packet.
    pub fn is_empty(&self, q: usize) -> bool {
        self.len_pkts(q) == 0
    }
    /// Returns the packets in queue `q`.
    pub fn len_pkts(&self, q: usize) -> u64 {
        self.qs.get(q).map_or(0, PacketFifo::len_pkts)
    }
    /// Returns the bytes in queue `q`.
    pub fn len_bytes(&self, q: usize) -> u64 {
        self.qs.get(q).map_or(0, PacketFifo::len_bytes)
    }
    /// Returns the packets in all queues.
    pub fn total_pkts(&self) -> u64 {
        self.total_pkts
    }
    /// Returns the bytes in all queues.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }
    /// Returns the longest queue, in packets if `by_pkts` else in bytes; among equally long
    /// queues, the one whose head arrived first, so the victim is "the oldest packet of the
    /// longest queue" (Menth et al. §4.2) and never depends on how queues are numbered (with
    /// a 20-packet buffer over 40 user queues, ties are the rule: a lowest-index rule would
    /// always rob the users listed first). `None` when every queue is empty.
    pub fn longest(&self, by_pkts: bool) -> Option<usize> {
        let mut best: Option<(u64, Time, usize)> = None;
        for (i, s) in self.qs.iter().enumerate() {
            let len = if by_pkts { s.len_pkts() } else { s.len_bytes() };
            let Some(head) = s.front() else { continue };
            if best.is_none_or(|(b, t, _)| len > b || (len == b && head.enq_time < t)) {
                best = Some((len, head.enq_time, i));
            }
        }
        best.map(|(_, _, i)| i)
    }
}

/// A scheduler over [`Queues`]. The composite calls the hooks after changing the queues.
pub trait Scheduler {
    /// Registers queue `q` (called once per queue, in index order) with its weight.
    fn add_queue(&mut self, q: usize, weight: u64);
    /// Queue `q` received a packet (already appended).
    fn enqueued(&mut self, q: usize, queues: &Queues);
    /// Returns the queue whose head leaves next (sent, or dropped by the buffer policy).
    fn select(&mut self, queues: &Queues) -> Option<usize>;
    /// The head of `q`, `size` bytes, was removed and transmitted.
    fn sent(&mut self, q: usize, size: u64, queues: &Queues);
    /// The head of `q`, `size` bytes, was removed and dropped (not transmitted).
    fn head_dropped(&mut self, q: usize, size: u64, queues: &Queues);
    /// Calls `f` with every non-empty queue in the order the scheduler serves them, starting
    /// with the one it serves next: the scan "from the current pointer" of ns-2's DRR, which
    /// buffer policies that look for the longest queue follow (`buffer/push_out.rs`).
    /// Default: index order.
    fn scan(&self, queues: &Queues, mut f: impl FnMut(usize)) {
        (0..queues.count()).filter(|&q| !queues.is_empty(q)).for_each(&mut f);
    }
}

/// Removes the first occurrence of `q` from `list`; returns its position.
fn remove_from(list: &mut VecDeque<usize>, q: usize) -> Option<usize> {
    let pos = list.iter().position(|&x| x == q)?;
    list.remove(pos);
    Some(pos)
}
