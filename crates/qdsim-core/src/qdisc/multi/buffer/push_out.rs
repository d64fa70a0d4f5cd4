//! What the Kantawala–Turner discard policies share: the buffer size `B` in the unit it is
//! written in ([`Limit`]), ns-2's enqueue-then-push-out loop ([`push_out`]) with its scan for
//! the "longest" queue ([`first_max`]), and a lazily counted period ([`Periods`]).
//!
//! Source: ns-2's `Queue/DRR` (`queue/drr.cc`, `DRR::enque` and `getMaxflow`; ALGORITHM-NOTES
//! §1), the baseline "DRR" of Kantawala & Turner (2005). `enque` appends the arrival to its
//! queue first, then, while the buffer holds more than `blimit_` bytes, drops the head of the
//! queue `getMaxflow` returns: it walks the circular list of active queues from `curr` (the
//! queue DRR serves next) and replaces its candidate only by a strictly longer queue, so the
//! first longest queue from the DRR pointer loses. A queue activated by the arrival joins
//! the list's tail, i.e. it is scanned last.
//!
//! Here the composite (`qdisc/multi/`) queues the arrival after the policy admits it, so the
//! loop counts the arrival as already queued ([`Arrival`]): its queue's bytes include it, and
//! a victim that is the arrival's queue with nothing else in it drops the arrival itself
//! (then its head). The outcome is ns-2's, drop for drop.

use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, QdiscCtx};
use crate::time::{Duration, Time};

/// The buffer size `B`, in the unit `limit` is written in: packets (the paper sizes its
/// buffers in packets) or bytes (ns-2's `blimit_`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `B` in packets.
    Pkts(u64),
    /// `B` in bytes.
    Bytes(u64),
}

impl Limit {
    /// Returns the `limit` of `p`, if one is set.
    ///
    /// # Errors
    /// `limit` set both in packets and in bytes (these policies measure queues and free space
    /// in one unit); `limit` absent when the policy `buffer` needs it (`required`).
    pub fn from_params(p: &FqParams, required: bool) -> Result<Option<Limit>, ConfigError> {
        match (p.limit_pkts, p.limit_bytes) {
            (Some(_), Some(_)) => Err(ConfigError::new(
                "limit",
                "packets and bytes",
                format!("one buffer size, in packets or in bytes, for buffer = {}", p.buffer),
            )),
            (Some(n), None) => Ok(Some(Limit::Pkts(n))),
            (None, Some(b)) => Ok(Some(Limit::Bytes(b))),
            (None, None) if required => Err(ConfigError::new(
                "limit",
                "none",
                format!("a buffer size (packets or bytes), required by buffer = {}", p.buffer),
            )),
            (None, None) => Ok(None),
        }
    }

    /// Returns the length of queue `q` in the limit's unit.
    pub fn len(self, queues: &Queues, q: usize) -> u64 {
        match self {
            Limit::Pkts(_) => queues.len_pkts(q),
            Limit::Bytes(_) => queues.len_bytes(q),
        }
    }

    /// Returns the free buffer `F = B − Σ_j Q_j` in the limit's unit.
    pub fn free(self, queues: &Queues) -> u64 {
        match self {
            Limit::Pkts(b) => b.saturating_sub(queues.total_pkts()),
            Limit::Bytes(b) => b.saturating_sub(queues.total_bytes()),
        }
    }

    /// Returns whether `pkt` fits in the free buffer (`F ≥ 1` packet, or `F ≥` its size).
    pub fn fits(self, queues: &Queues, pkt: &Packet) -> bool {
        match self {
            Limit::Pkts(_) => self.free(queues) >= 1,
            Limit::Bytes(_) => self.free(queues) >= pkt.size_bytes as u64,
        }
    }
}

/// The arriving packet, counted as queued (ns-2 appends it before it drops).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Arrival {
    /// The arrival's queue.
    pub q: usize,
    /// Its size in bytes.
    pub bytes: u64,
}

impl Arrival {
    /// Returns the arrival of `pkt` for queue `q`.
    pub fn new(q: usize, pkt: &Packet) -> Self {
        Arrival { q, bytes: pkt.size_bytes as u64 }
    }

    /// Returns the bytes of queue `j`, the arrival counted.
    pub fn bytes_of(&self, queues: &Queues, j: usize) -> u64 {
        queues.len_bytes(j) + if j == self.q { self.bytes } else { 0 }
    }

    /// Returns whether the buffer, the arrival counted, holds more than `B`.
    fn over(&self, queues: &Queues, limit: Limit) -> bool {
        match limit {
            Limit::Pkts(b) => queues.total_pkts() + 1 > b,
            Limit::Bytes(b) => queues.total_bytes() + self.bytes > b,
        }
    }
}

/// Returns the queue (the arrival counted) with the greatest `key`, scanning the scheduler's
/// order from the queue it serves next and the arrival's queue last if the arrival makes it
/// non-empty; the first strict maximum wins (ns-2's `getMaxflow`).
pub fn first_max<S: Scheduler, K: PartialOrd>(
    sched: &S,
    queues: &Queues,
    a: &Arrival,
    mut key: impl FnMut(usize) -> K,
) -> Option<usize> {
    let mut best: Option<(K, usize)> = None;
    let mut consider = |j: usize| {
        let k = key(j);
        if best.as_ref().is_none_or(|(b, _)| k > *b) {
            best = Some((k, j));
        }
    };
    sched.scan(queues, &mut consider);
    if queues.is_empty(a.q) {
        consider(a.q);
    }
    best.map(|(_, j)| j)
}

/// ns-2's push-out loop: while the buffer, arrival `a` counted, is over `limit`, drops the
/// head of the queue `victim` picks (reason `reason`). Returns `Err(reason)` when the victim's
/// head is the arrival itself (its queue held nothing else), `Ok` once the rest fits.
/// Without a limit nothing is dropped.
pub fn push_out<S: Scheduler>(
    a: &Arrival,
    limit: Option<Limit>,
    queues: &mut Queues,
    sched: &mut S,
    ctx: &mut QdiscCtx,
    reason: DropReason,
    mut victim: impl FnMut(&Queues, &S) -> usize,
) -> Result<(), DropReason> {
    let Some(limit) = limit else { return Ok(()) };
    while a.over(queues, limit) {
        let v = victim(queues, sched);
        if v == a.q && queues.is_empty(v) {
            return Err(reason);
        }
        let Some(old) = queues.pop_head(v) else {
            unreachable!("victim {v} is an empty queue other than the arrival's")
        };
        sched.head_dropped(v, old.size_bytes as u64, queues);
        ctx.drop_queued(old, reason);
    }
    Ok(())
}

/// Periods of fixed length counted lazily: the first starts at the first event; a boundary
/// at the very time of an event has passed before it. No timer runs, so an idle link costs
/// nothing, and the state at each event is the one a timer would have produced (nothing
/// changes between events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Periods {
    period: Duration,
    /// The end of the current period; `None` before the first event.
    next: Option<Time>,
}

impl Periods {
    /// Returns periods of `period` (at least 1 ns), not yet started.
    pub fn new(period: Duration) -> Self {
        Periods { period: Duration::from_ns(period.as_ns().max(1)), next: None }
    }

    /// Returns how many period boundaries have passed up to and including `now` since the
    /// last call, starting the first period at the first call.
    pub fn elapsed(&mut self, now: Time) -> u64 {
        let next = *self.next.get_or_insert(now + self.period);
        if now < next {
            return 0;
        }
        let k = (now - next).as_ns() / self.period.as_ns() + 1;
        self.next = Some(next + self.period.saturating_mul(k));
        k
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_count_every_boundary_passed_including_one_at_the_event_time() {
        let mut p = Periods::new(Duration::from_ms(10));
        assert_eq!(p.elapsed(Time::from_ns(3_000_000)), 0, "starts the first period");
        assert_eq!(p.elapsed(Time::from_ns(12_999_999)), 0);
        assert_eq!(p.elapsed(Time::from_ns(13_000_000)), 1, "a boundary at the event has passed");
        assert_eq!(p.elapsed(Time::from_ns(13_000_000)), 0);
        assert_eq!(p.elapsed(Time::from_ns(53_000_001)), 4, "23, 33, 43, 53 ms");
        assert_eq!(p.elapsed(Time::from_ns(62_000_000)), 0);
    }

    #[test]
    fn a_limit_in_both_units_or_a_missing_required_one_is_refused_by_key() {
        let p = FqParams { buffer: "dtdrr".into(), limit_pkts: Some(5), limit_bytes: Some(5), ..FqParams::default() };
        assert_eq!(Limit::from_params(&p, false).unwrap_err().key, "limit");
        let p = FqParams { buffer: "dtdrr".into(), ..FqParams::default() };
        let e = Limit::from_params(&p, true).unwrap_err();
        assert_eq!((e.key.as_str(), e.allowed.contains("dtdrr")), ("limit", true));
        assert_eq!(Limit::from_params(&p, false).unwrap(), None);
    }
}
