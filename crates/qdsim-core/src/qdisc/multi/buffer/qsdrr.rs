//! `qsdrr`: Queue State DRR (Kantawala & Turner, SPECTS 2002, as summarised in their 2005
//! paper §1–2): ns-2's push-out loop (`push_out.rs`) with hysteresis in the choice of the
//! victim. "When buffers are full, QSDRR drops a packet from the current *drop* queue"; a new
//! drop queue — the queue with the most bytes, as ns-2's DRR picks it — is chosen only when
//! there is none, it has emptied, or the release rule fires. Heads dropped: reason
//! `drop_queue`.
//!
//! ```text
//! arrival p → queue i: append p (push_out.rs)
//!   while total > B:
//!     if dq = none or dq empty or RELEASE(dq): dq ← the queue with the most bytes
//!     drop the head of dq
//! ```
//!
//! The release rule is not published (ALGORITHM-NOTES §1: only abstracts of the SPECTS and
//! Globecom papers are public), so it is the parameter `qsdrr_release`:
//! - `shortest` (default, reading A): release once the drop queue is no longer longer than
//!   every other non-empty queue, `bytes(dq) ≤ min_j bytes(j)`;
//! - `empty` (reading B): keep the drop queue until it empties.
//!
//! Why `shortest` is the default, from what the 2005 paper says of QSDRR: it "preferentially
//! discards from long queues" (under `empty` a queue keeps losing packets after it has become
//! the shortest, its flow having backed off); DSDRR "takes a cue from QSDRR" and the idea is
//! "similar" — DSDRR's own rule, keep discarding until the queue empties, is spelled out as
//! DSDRR's, which reads as a difference from QSDRR rather than a copy; and reading A is the
//! one recollection of QSDRR's original wording (ALGORITHM-NOTES §1). Chosen before any
//! reproduction.
//!
//! Readings: queues are measured in bytes, the arrival counted (ns-2); the release rule is
//! checked before every drop; a drop queue that empties — by service or by these drops — is
//! forgotten at once, so a queue that empties and fills again is not still the drop queue.

use super::push_out::{first_max, push_out, Arrival, Limit};
use super::Policy;
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::time::Time;

/// When QSDRR gives up its drop queue (besides the queue emptying).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// Once the drop queue is the shortest non-empty queue (reading A, the default).
    Shortest,
    /// Only when the drop queue empties (reading B).
    Empty,
}

/// QSDRR: drop from the current drop queue, with hysteresis.
#[derive(Debug, Clone, PartialEq)]
pub struct Qsdrr {
    /// `B`, if limited.
    pub limit: Option<Limit>,
    /// The release rule (`qsdrr_release`).
    pub release: Release,
    /// The current drop queue; `None`, or a non-empty queue.
    dq: Option<usize>,
}

/// Returns the release rule `qsdrr_release` names.
fn release(p: &FqParams) -> Result<Release, ConfigError> {
    match p.qsdrr_release.as_str() {
        "shortest" => Ok(Release::Shortest),
        "empty" => Ok(Release::Empty),
        other => Err(ConfigError::new("qsdrr_release", other, "shortest or empty")),
    }
}

impl Policy for Qsdrr {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "qsdrr_release",
            unit: "name",
            default: "shortest",
            help:
                "qsdrr: the drop queue is given up once it is the shortest (shortest) or only when it empties (empty)",
        },
    ];

    fn check_keys(p: &FqParams) -> Result<(), ConfigError> {
        release(p).map(|_| ())
    }

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        Ok(Qsdrr { limit: Limit::from_params(p, false)?, release: release(p)?, dq: None })
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
        let (release, dq) = (self.release, &mut self.dq);
        push_out(&a, self.limit, queues, sched, ctx, DropReason::DropQueue, |queues, sched| {
            if dq.is_some_and(|d| queues.is_empty(d)) {
                *dq = None; // emptied by the previous drop
            }
            let keep = dq.is_some_and(|d| match release {
                Release::Empty => true,
                Release::Shortest => {
                    let shortest = first_max(sched, queues, &a, |j| std::cmp::Reverse(a.bytes_of(queues, j)));
                    shortest.is_some_and(|s| a.bytes_of(queues, d) > a.bytes_of(queues, s))
                }
            });
            if !keep {
                *dq = first_max(sched, queues, &a, |j| a.bytes_of(queues, j));
            }
            dq.expect("the arrival's queue is non-empty")
        })
    }

    fn sent(&mut self, q: usize, _p: &Packet, queues: &Queues, _now: Time) {
        if self.dq == Some(q) && queues.is_empty(q) {
            self.dq = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::multi::buffer::testing::{drops, fq, seq_pkt};
    use crate::qdisc::multi::Multi;
    use crate::qdisc::sched::Drr;
    use crate::qdisc::testing::Harness;
    use crate::qdisc::QdiscParams;

    fn qsdrr(release: &str, limit_pkts: u64) -> Harness<Multi<Drr>> {
        Harness::new(Multi::drr(fq("qsdrr", |p| {
            p.limit_pkts = Some(limit_pkts);
            p.qsdrr_release = release.into();
        })))
    }

    /// Queues 0, 1, 2 hold 6, 4 and 2 packets of a 12-packet buffer; then `n` arrivals for
    /// queue 1 overflow it one by one. Returns the flows that lost a packet, in order.
    fn victims(buffer: &str, release: &str, n: u64) -> Vec<u32> {
        let mut h = Harness::new(Multi::drr(fq(buffer, |p| {
            p.limit_pkts = Some(12);
            p.qsdrr_release = release.into();
        })));
        for (flow, count) in [(0, 6), (1, 4), (2, 2)] {
            for s in 0..count {
                h.enqueue(seq_pkt(flow, 1000, 10 * flow as u64 + s));
            }
        }
        for s in 0..n {
            h.enqueue(seq_pkt(1, 1000, 100 + s));
        }
        let reason = if buffer == "qsdrr" { DropReason::DropQueue } else { DropReason::LongestQueue };
        assert!(drops(&h).iter().all(|d| !d.3 && d.2 == reason), "queued heads, reason {reason:?}");
        drops(&h).iter().map(|d| d.0).collect()
    }

    #[test]
    fn keeps_dropping_from_its_drop_queue_until_it_is_the_shortest() {
        // Queue 0 (6) becomes the drop queue. From the second arrival on queue 1 is the longest
        // (6, 7, 8 with the arrival), but queue 0 keeps losing while it is longer than queue 2
        // (2): 5, 4, 3 → 2. At 2 it is as short as queue 2: released, and the longest, queue 1
        // (9), becomes the drop queue.
        assert_eq!(victims("qsdrr", "shortest", 5), vec![0, 0, 0, 0, 1]);
        // Without hysteresis (ns-2's DRR) the victim follows the longest queue at once.
        assert_eq!(victims("ns2_lqd", "shortest", 5), vec![0, 1, 1, 1, 1]);
    }

    #[test]
    fn with_release_empty_the_drop_queue_is_kept_until_it_empties() {
        // Queue 0 loses all six packets, then the longest queue (1) becomes the drop queue.
        assert_eq!(victims("qsdrr", "empty", 7), vec![0, 0, 0, 0, 0, 0, 1]);
    }

    #[test]
    fn a_drop_queue_emptied_by_service_is_given_up() {
        let mut h = qsdrr("empty", 3);
        h.enqueue(seq_pkt(0, 1000, 0));
        h.enqueue(seq_pkt(0, 1000, 1));
        h.enqueue(seq_pkt(1, 1000, 10));
        h.enqueue(seq_pkt(1, 1000, 11)); // overflow: queue 0 (2) vs 1 (2 with the arrival) → 0
        assert_eq!(drops(&h).iter().map(|d| d.0).collect::<Vec<_>>(), vec![0]);
        assert_eq!(h.dequeue().map(|p| (p.flow, p.seq())), Some((0, 1))); // queue 0 empties
        h.enqueue(seq_pkt(0, 1000, 2));
        h.enqueue(seq_pkt(0, 1000, 3)); // overflow: the drop queue is gone; 1 (2) vs 0 (2) → 1
        assert_eq!(drops(&h).iter().map(|d| d.0).collect::<Vec<_>>(), vec![0, 1]);
    }

    #[test]
    fn an_unknown_release_rule_is_refused_by_key() {
        let e = fq("qsdrr", |p| p.qsdrr_release = "longest".into()).validate().unwrap_err();
        assert_eq!((e.key.as_str(), e.allowed.as_str()), ("qsdrr_release", "shortest or empty"));
    }
}
