//! `per_queue`: a static byte limit per queue (classic WFQ with a configured buffer split,
//! e.g. (15 000, 5 000, 10 000) bytes); an arrival that would exceed its queue's limit is
//! tail-dropped (`overflow`). Queues beyond the list use its last entry.

use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};

/// Static per-queue byte limits with tail drop.
#[derive(Debug, Clone, PartialEq)]
pub struct PerQueue {
    /// Limit of queue i in bytes (the last entry repeats); non-empty.
    pub limits_bytes: Vec<u64>,
}

impl PerQueue {
    /// Returns the byte limit of queue `q`.
    pub fn limit_bytes(&self, q: usize) -> Option<u64> {
        self.limits_bytes.get(q).or(self.limits_bytes.last()).copied()
    }
}

impl Policy for PerQueue {
    const PARAMS: &'static [ParamInfo] = &[ParamInfo {
        name: "queue_limits",
        unit: "list",
        default: "[]",
        help: "per_queue: byte limit of queue i, e.g. [15000, 5000, 10000]; the last repeats",
    }];

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        if p.queue_limits.is_empty() {
            return Err(ConfigError::new(
                "queue_limits",
                "[]",
                "a non-empty list of byte limits, required by buffer = per_queue",
            ));
        }
        Ok(PerQueue { limits_bytes: p.queue_limits.iter().map(|&l| l.max(1) as u64).collect() })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        _sched: &mut S,
        _ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        if self.limit_bytes(q).is_none_or(|l| queues.len_bytes(q) + pkt.size_bytes as u64 <= l) {
            Ok(())
        } else {
            Err(DropReason::Overflow)
        }
    }
}
