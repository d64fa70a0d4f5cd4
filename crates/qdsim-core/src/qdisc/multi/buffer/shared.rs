//! `shared`: one buffer of `S_B` packets or bytes with McKenney's buffer stealing (Menth et
//! al. §2.2, "drop-on-enqueue"). While the arrival does not fit, the head (oldest packet) of
//! the longest queue is dropped (reason `longest_queue`), then the arrival is queued. The
//! longest queue is measured in packets when the limit is in packets, else in bytes; among
//! equally long queues the one whose head arrived first ([`Queues::longest`]). Without a
//! limit nothing is dropped; an arrival larger than the whole byte buffer is dropped (reason
//! `overflow`).

use super::{fits_total, Policy};
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};

/// The `limit` key, `S_B`, shared with drop-on-dequeue (which caps its buffer with it).
pub(super) const LIMIT: ParamInfo = ParamInfo {
    name: "limit",
    unit: "pkts|bytes",
    default: "none",
    help: "buffer size S_B of shared and of the discard policies (B; dtdrr and dsdrr need it), also caps drop_on_dequeue; none = unlimited",
};

/// A shared buffer with longest-queue drop.
#[derive(Debug, Clone, PartialEq)]
pub struct Shared {
    /// `S_B` in packets, if limited in packets.
    pub limit_pkts: Option<u64>,
    /// `S_B` in bytes, if limited in bytes.
    pub limit_bytes: Option<u64>,
}

impl Policy for Shared {
    const PARAMS: &'static [ParamInfo] = &[LIMIT];

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        Ok(Shared { limit_pkts: p.limit_pkts, limit_bytes: p.limit_bytes })
    }

    fn admit<S: Scheduler>(
        &mut self,
        _q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        sched: &mut S,
        ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        let (lp, lb) = (self.limit_pkts, self.limit_bytes);
        // McKenney's buffer stealing: make room from the longest queue's head.
        while !fits_total(queues, pkt, lp, lb) {
            let Some(v) = queues.longest(lp.is_some()) else { break };
            let Some(old) = queues.pop_head(v) else { break };
            sched.head_dropped(v, old.size_bytes as u64, queues);
            ctx.drop_queued(old, DropReason::LongestQueue);
        }
        if fits_total(queues, pkt, lp, lb) {
            Ok(())
        } else {
            Err(DropReason::Overflow)
        }
    }
}
