//! `drop_on_dequeue`: at dequeue, a head packet that has waited more than `T_D`
//! (`now − enq_time > t_d`) is dropped (reason `delay_threshold`) and the scheduler's next
//! choice is tried (Menth et al. §4.1, "drop-on-dequeue"). The buffer is unlimited unless a
//! size is given; then arrivals that do not fit are tail-dropped (`overflow`).

use super::{fits_total, Policy};
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::time::Time;

/// Drop at dequeue of packets older than `T_D`.
#[derive(Debug, Clone, PartialEq)]
pub struct DropOnDequeue {
    /// Delay threshold `T_D` in ns.
    pub t_d_ns: u64,
    /// Optional total size in packets.
    pub limit_pkts: Option<u64>,
    /// Optional total size in bytes.
    pub limit_bytes: Option<u64>,
}

impl Policy for DropOnDequeue {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "t_d",
            unit: "time",
            default: "none",
            help: "drop_on_dequeue: drop head packets older than T_D",
        },
    ];

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        let Some(t_d_ns) = p.t_d_ns else {
            return Err(ConfigError::new("t_d", "none", "a delay threshold, required by buffer = drop_on_dequeue"));
        };
        Ok(DropOnDequeue { t_d_ns, limit_pkts: p.limit_pkts, limit_bytes: p.limit_bytes })
    }

    fn admit<S: Scheduler>(
        &mut self,
        _q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        _sched: &mut S,
        _ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        if fits_total(queues, pkt, self.limit_pkts, self.limit_bytes) {
            Ok(())
        } else {
            Err(DropReason::Overflow)
        }
    }

    fn drop_at_dequeue(&self, p: &Packet, now: Time) -> Option<DropReason> {
        (now.0.saturating_sub(p.enq_time.0) > self.t_d_ns).then_some(DropReason::DelayThreshold)
    }
}
