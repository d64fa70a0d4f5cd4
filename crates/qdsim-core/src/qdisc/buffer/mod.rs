//! Buffer policies of multi-queue qdiscs: which packets are dropped, and when.
//!
//! Combinable with any scheduler of [`super::sched`]:
//! - [`BufferPolicy::Shared`]: one shared buffer of `S_B` packets or bytes with McKenney's
//!   buffer stealing (Menth et al. §2.2, "drop-on-enqueue"): while the arrival does not fit,
//!   the head (oldest) packet of the longest queue is dropped (reason `longest_queue`), then
//!   the arrival is queued. The longest queue is measured in packets when the limit is in
//!   packets, else in bytes; ties go to the lowest queue index. Without a limit nothing is
//!   dropped. An arrival larger than the whole byte buffer is dropped (reason `overflow`).
//! - [`BufferPolicy::DropOnDequeue`]: at dequeue, a head packet that has waited more than
//!   `T_D` (`now − enq_time > t_d`) is dropped (reason `delay_threshold`) and the scheduler's
//!   next choice is tried (Menth et al. §4.1, "drop-on-dequeue"). The buffer is unlimited
//!   unless a size is given; then arrivals that do not fit are tail-dropped (`overflow`).
//! - [`BufferPolicy::PerQueue`]: a static byte limit per queue (classic WFQ with a configured
//!   buffer split, e.g. (15 000, 5 000, 10 000) bytes); an arrival that would exceed its
//!   queue's limit is tail-dropped (`overflow`). Queues beyond the list use its last entry.

use crate::packet::Packet;

use super::sched::Queues;

/// A buffer policy and its sizes.
#[derive(Debug, Clone, PartialEq)]
pub enum BufferPolicy {
    /// Shared buffer with longest-queue (buffer stealing) drop on enqueue.
    Shared {
        /// `S_B` in packets, if limited in packets.
        limit_pkts: Option<u64>,
        /// `S_B` in bytes, if limited in bytes.
        limit_bytes: Option<u64>,
    },
    /// Drop at dequeue of packets older than `T_D`.
    DropOnDequeue {
        /// Delay threshold `T_D` in ns.
        t_d_ns: u64,
        /// Optional total size in packets.
        limit_pkts: Option<u64>,
        /// Optional total size in bytes.
        limit_bytes: Option<u64>,
    },
    /// Static per-queue byte limits with tail drop.
    PerQueue {
        /// Limit of queue i in bytes (the last entry repeats); non-empty.
        limits_bytes: Vec<u64>,
    },
}

/// Returns whether `pkt` fits within the total limits, given what is queued.
pub(crate) fn fits_total(queues: &Queues, pkt: &Packet, limit_pkts: Option<u64>, limit_bytes: Option<u64>) -> bool {
    limit_pkts.is_none_or(|l| queues.total_pkts() < l)
        && limit_bytes.is_none_or(|l| queues.total_bytes() + pkt.size_bytes as u64 <= l)
}

impl BufferPolicy {
    /// Returns the delay threshold in ns, for drop-on-dequeue.
    pub fn t_d_ns(&self) -> Option<u64> {
        match self {
            BufferPolicy::DropOnDequeue { t_d_ns, .. } => Some(*t_d_ns),
            _ => None,
        }
    }

    /// Returns the byte limit of queue `q` under per-queue limits.
    pub fn queue_limit_bytes(&self, q: usize) -> Option<u64> {
        match self {
            BufferPolicy::PerQueue { limits_bytes } => limits_bytes.get(q).or(limits_bytes.last()).copied(),
            _ => None,
        }
    }
}
