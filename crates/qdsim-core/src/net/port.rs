//! The port: the framework around a link's qdisc that keeps the books.
//!
//! Every packet offered to a link passes through [`Port::enqueue`], and every packet that
//! leaves through [`Port::dequeue`]. The port stamps the enqueue time, counts arrivals,
//! departures and drops by reason (separating drops of the arriving packet from drops of
//! queued packets, as ns-3's `QueueDisc` separates "before enqueue" and "after dequeue"),
//! integrates the queue length over time, and measures each packet's sojourn time — so no
//! algorithm can forget to. Each call hands back the packets the qdisc dropped during it
//! ([`Drops`]), for the simulator's per-flow books. Identities (checked by
//! [`Port::check_conservation`]):
//!
//! - arrivals = departures + drops + queued, in packets and in bytes;
//! - drops = drops of arrivals + drops of queued packets.

use crate::packet::{Packet, PacketKind};
use crate::qdisc::{AnyQdisc, DropReason, MarkReason, Probe, Qdisc, QdiscCtx};
use crate::rng::StreamRng;
use crate::stats::{counters_since, Counters, Histogram, QueueArea};
use crate::time::Time;

/// Monotone counters of a port that every packet updates (its drops and marks by reason are
/// [`ReasonCounters`], kept apart so that these share the port's first cache lines).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[repr(C)]
pub struct PortCounters {
    /// Packets offered.
    pub arrivals: u64,
    /// Bytes offered.
    pub arrival_bytes: u64,
    /// Packets dequeued for transmission.
    pub departures: u64,
    /// Bytes dequeued.
    pub departure_bytes: u64,
    /// Time the dequeued packets spent in the queue, summed, ns (their mean sojourn is this
    /// over `departures`).
    pub sojourn_ns: u64,
    /// Drops of the arriving packet (before enqueue).
    pub drops_of_arrivals: u64,
    /// Drops of packets already queued (head drops, longest-queue drops, AQM at dequeue).
    pub drops_of_queued: u64,
}

counters_since!(PortCounters {
    arrivals,
    arrival_bytes,
    departures,
    departure_bytes,
    sojourn_ns,
    drops_of_arrivals,
    drops_of_queued
});

/// Monotone counts of a port's drops and ECN marks, by reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReasonCounters {
    /// Packets dropped, by reason.
    pub drops: [u64; DropReason::COUNT],
    /// Bytes dropped, by reason.
    pub drop_bytes: [u64; DropReason::COUNT],
    /// ECN marks (CE set instead of a drop), by reason.
    pub marks: [u64; MarkReason::COUNT],
}

impl ReasonCounters {
    /// Returns all drops.
    pub fn total_drops(&self) -> u64 {
        self.drops.iter().sum()
    }
    /// Returns all dropped bytes.
    pub fn total_drop_bytes(&self) -> u64 {
        self.drop_bytes.iter().sum()
    }
}

impl Counters for ReasonCounters {
    fn since(&self, e: &Self) -> Self {
        fn minus<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
            std::array::from_fn(|i| a[i] - b[i])
        }
        ReasonCounters {
            drops: minus(self.drops, e.drops),
            drop_bytes: minus(self.drop_bytes, e.drop_bytes),
            marks: minus(self.marks, e.marks),
        }
    }
}

/// The packets a qdisc dropped during one call: each with its reason and whether it was the
/// arriving packet (`true`) or one already queued (`false`). Valid until the port's next call.
pub type Drops<'a> = &'a [(Packet, DropReason, bool)];

/// A qdisc with its books.
///
/// The fields are laid out in the order written (`repr(C)`): the books every packet updates
/// first, then the qdisc, whose variant and a FIFO's few fields then share their cache lines,
/// then what only some calls touch (the context, read after a call that may drop), the
/// sojourn histogram, the counts by reason and the counters at the warm-up — at 10⁴ flows,
/// where every port is cold, a packet misses on fewer cache lines.
#[derive(Debug)]
#[repr(C)]
pub struct Port {
    in_window: bool,
    /// Whether the context holds drops or marks of the last call (a pass-through, which
    /// calls no qdisc, then reads the context's cache line only to empty it).
    ctx_used: bool,
    /// Whether a departure's wait is left for the simulator to record ([`Port::take_wait`])
    /// instead of recorded at once: the simulator records waits in batches, fetching each
    /// one's counts ahead (`sim/waits.rs`); a port alone (its tests) records them itself.
    defer_waits: bool,
    /// Whether the waits' distribution is kept (`sampling.link_delays`; on by default): off,
    /// the port records no wait and allocates no histogram, and [`Port::sojourn`] is `None`.
    keeps_waits: bool,
    /// In the window and keeping the waits: whether a departure's wait is recorded (one test
    /// a departure, as before there was a choice).
    records_waits: bool,
    acks_queued: u64,
    /// The last departure's wait (ns, above 0, in the window) when deferred, until taken;
    /// else 0.
    deferred_wait: u64,
    timer_at: Option<Time>,
    /// Queue length over time (window), from the instants packets enter and leave.
    queue_area: QueueArea,
    /// Counters since the start of the run.
    pub counters: PortCounters,
    qdisc: AnyQdisc,
    ctx: QdiscCtx,
    /// Sojourn times (ns) above 0 of packets dequeued in the window. The zeros are not
    /// recorded: they are the window's departures less these ([`Port::sojourn`]), and most
    /// packets cross an idle port, whose histogram would then be a cache line more each —
    /// at 10⁴ flows, where every port is cold, a miss.
    waits: Histogram,
    /// Drops and marks by reason since the start of the run.
    pub reasons: ReasonCounters,
    /// Counters at the start of the measurement window.
    pub at_warmup: PortCounters,
    /// Drops and marks by reason at the start of the measurement window.
    pub reasons_at_warmup: ReasonCounters,
}

impl Port {
    /// Returns where the qdisc is, to prefetch it (`Sim::read_events_ahead`); nothing is read.
    #[inline]
    pub(crate) fn qdisc_place(&self) -> &AnyQdisc {
        &self.qdisc
    }

    /// Returns the packet a FIFO will send next (to prefetch it: `Sim::read_events_ahead`); none
    /// for other disciplines, whose choice is theirs to make when they dequeue.
    #[inline]
    pub(crate) fn fifo_front(&self) -> Option<&Packet> {
        match &self.qdisc {
            AnyQdisc::Fifo(fifo) => fifo.front(),
            _ => None,
        }
    }

    /// Wraps `qdisc`, giving it the random stream `rng`.
    pub fn new(qdisc: AnyQdisc, rng: StreamRng) -> Self {
        Port {
            qdisc,
            ctx: QdiscCtx::new(rng),
            counters: PortCounters::default(),
            at_warmup: PortCounters::default(),
            reasons: ReasonCounters::default(),
            reasons_at_warmup: ReasonCounters::default(),
            queue_area: QueueArea::default(),
            waits: Histogram::new(),
            in_window: false,
            ctx_used: false,
            defer_waits: false,
            keeps_waits: true,
            records_waits: false,
            deferred_wait: 0,
            timer_at: None,
            acks_queued: 0,
        }
    }

    /// Returns the packets queued.
    pub fn len_pkts(&self) -> u64 {
        self.qdisc.len_pkts()
    }

    /// Returns the bytes queued.
    pub fn len_bytes(&self) -> u64 {
        self.qdisc.len_bytes()
    }

    /// Returns whether the qdisc's dequeue on an empty queue changes nothing
    /// ([`Qdisc::idle_dequeue_is_noop`]).
    pub fn idle_dequeue_is_noop(&self) -> bool {
        self.qdisc.idle_dequeue_is_noop()
    }

    /// Returns the packets the qdisc dropped during the port's last call.
    pub fn last_drops(&self) -> Drops<'_> {
        &self.ctx.drops
    }

    /// Reports the qdisc's internal variables to `probe` ([`Qdisc::internals`]).
    pub fn internals(&self, probe: &mut dyn Probe) {
        self.qdisc.internals(probe);
    }

    /// Returns the data (non-ACK) packets queued.
    pub fn data_pkts_queued(&self) -> u64 {
        self.len_pkts() - self.acks_queued
    }

    /// Starts the measurement window at `now`.
    pub fn start_window(&mut self, now: Time) {
        self.at_warmup = self.counters.clone();
        self.reasons_at_warmup = self.reasons.clone();
        self.queue_area.restart(now, self.qdisc.queued());
        self.waits.clear();
        self.in_window = true;
        self.records_waits = self.keeps_waits;
    }

    /// Forgets the drops and marks of the previous call (handed out by then).
    fn begin_call(&mut self) {
        self.ctx.drops.clear();
        self.ctx.marks.clear();
        self.ctx_used = false;
    }

    /// Counts the drops and marks of this call, at `now` (each dropped packet leaves the
    /// queue then: an arrival dropped entered it at the same instant); returns the drops.
    fn account_drops(&mut self, now: Time) -> Drops<'_> {
        if self.ctx.drops.is_empty() && self.ctx.marks.is_empty() {
            return &self.ctx.drops;
        }
        self.ctx_used = true;
        for &reason in &self.ctx.marks {
            self.reasons.marks[reason as usize] += 1;
        }
        for (p, reason, arrival) in &self.ctx.drops {
            self.reasons.drops[*reason as usize] += 1;
            self.reasons.drop_bytes[*reason as usize] += p.size_bytes as u64;
            if *arrival {
                self.counters.drops_of_arrivals += 1;
            } else {
                self.counters.drops_of_queued += 1;
            }
            self.acks_queued -= (p.kind == PacketKind::Ack) as u64;
            self.queue_area.leave(now, p.size_bytes);
        }
        &self.ctx.drops
    }

    /// Returns the packets queued, from the counters (what conservation holds them to:
    /// offered, less sent, less dropped), without asking the qdisc.
    #[inline]
    fn queued_pkts(&self) -> u64 {
        let c = &self.counters;
        c.arrivals - c.departures - c.drops_of_arrivals - c.drops_of_queued
    }

    /// Offers `pkt` at `now`; returns the packets the qdisc dropped.
    pub fn enqueue(&mut self, mut pkt: Packet, now: Time) -> Drops<'_> {
        self.begin_call();
        self.book_arrival(&mut pkt, now);
        self.queue_area.enter(now, pkt.size_bytes);
        self.acks_queued += (pkt.kind == PacketKind::Ack) as u64;
        self.qdisc.enqueue(pkt, now, &mut self.ctx);
        self.account_drops(now);
        self.queue_area.note_len(self.queued_pkts());
        &self.ctx.drops
    }

    /// Returns whether `pkt`, offered now, would be queued and dequeued next with nothing
    /// else changed ([`Qdisc::passes_through`]).
    #[inline]
    pub fn passes_through(&self, pkt: &Packet) -> bool {
        self.qdisc.passes_through(pkt)
    }

    /// Books `pkt` as offered and dequeued at `now`, without queueing it: what
    /// [`Port::enqueue`] then [`Port::dequeue`] would book for a packet that
    /// [`Port::passes_through`] (a sojourn of 0, the queue one packet long for no time).
    pub fn pass_through(&mut self, pkt: &mut Packet, now: Time) {
        debug_assert!(self.passes_through(pkt), "pass_through of a packet the qdisc would queue");
        if self.ctx_used {
            self.begin_call();
        }
        self.book_arrival(pkt, now);
        self.book_departure(pkt, 0);
        // The queue is empty (`passes_through`): it held this one packet for no time, which
        // adds nothing to its area (it enters and leaves at `now`) but is its length then.
        self.queue_area.note_len(1);
    }

    /// Takes the next packet to transmit, adding its sojourn time to its path queueing
    /// delay; the packets dropped on the way are then [`Port::last_drops`]. (The packet is
    /// booked where it lies: returned beside the drops, it was copied twice more, 2.5 % of a
    /// run's instructions.)
    pub fn dequeue(&mut self, now: Time) -> Option<Packet> {
        self.begin_call();
        let mut out = self.qdisc.dequeue(now, &mut self.ctx);
        if let Some(pkt) = &mut out {
            self.acks_queued -= (pkt.kind == PacketKind::Ack) as u64;
            let sojourn = (now - pkt.enq_time).as_ns();
            self.book_departure(pkt, sojourn);
            self.queue_area.leave(now, pkt.size_bytes);
        }
        // Packets dropped on the way (a drop-on-dequeue AQM) leave the queue now too, also
        // when none is sent.
        self.account_drops(now);
        out
    }

    /// Books `pkt` as offered at `now`, stamping its enqueue time.
    #[inline]
    fn book_arrival(&mut self, pkt: &mut Packet, now: Time) {
        pkt.enq_time = now;
        self.counters.arrivals += 1;
        self.counters.arrival_bytes += pkt.size_bytes as u64;
    }

    /// Books `pkt` as leaving the queue after `sojourn` ns in it, adding the sojourn to its
    /// path's queueing delay, to the counters and, in the window, to the histogram (if above
    /// 0: `waits`).
    #[inline]
    fn book_departure(&mut self, pkt: &mut Packet, sojourn: u64) {
        self.counters.departures += 1;
        self.counters.departure_bytes += pkt.size_bytes as u64;
        pkt.queue_delay_ns += sojourn;
        self.counters.sojourn_ns += sojourn;
        if self.records_waits && sojourn > 0 {
            if self.defer_waits {
                debug_assert_eq!(self.deferred_wait, 0, "a deferred wait not taken");
                self.deferred_wait = sojourn;
            } else {
                self.waits.record(sojourn);
            }
        }
    }

    /// Leaves each departure's wait for the caller to take ([`Port::take_wait`]) and record
    /// ([`Port::record_wait`]) when it will, or records it at once again (the default). A
    /// wait not yet taken is recorded as this is switched.
    pub(crate) fn defer_waits(&mut self, on: bool) {
        let pending = self.take_wait();
        if pending > 0 {
            self.waits.record(pending);
        }
        self.defer_waits = on;
    }

    /// Returns the wait of the last departure, if deferred ([`Port::defer_waits`]) and not yet
    /// taken; else 0.
    #[inline]
    pub(crate) fn take_wait(&mut self) -> u64 {
        std::mem::take(&mut self.deferred_wait)
    }

    /// Records a wait taken from [`Port::take_wait`], of bucket `b` ([`Histogram::bucket`]).
    #[inline]
    pub(crate) fn record_wait(&mut self, b: usize, wait: u64) {
        self.waits.record_in(b, wait);
    }

    /// Returns the recorded waits (to prefetch what recording one reads).
    #[inline]
    pub(crate) fn waits(&self) -> &Histogram {
        &self.waits
    }

    /// Keeps the distribution of waits or not ([`Port::sojourn`]); call before the first
    /// packet.
    pub fn keep_waits(&mut self, on: bool) {
        self.keeps_waits = on;
        self.records_waits = on && self.in_window;
    }

    /// Returns the mean sojourn time (ns) of the packets dequeued in the window, from the
    /// counters (the same as the mean of [`Port::sojourn`], kept or not); `None` without one.
    pub fn mean_sojourn(&self) -> Option<f64> {
        let window = self.counters.since(&self.at_warmup);
        (window.departures > 0).then(|| window.sojourn_ns as f64 / window.departures as f64)
    }

    /// Returns the sojourn times (ns) of the packets dequeued in the window: the waits above
    /// 0 recorded, the last one if deferred and not yet taken, and as many zeros
    /// as the window's other departures; `None` where they are not kept
    /// ([`Port::keep_waits`]). Waits taken and not yet recorded are not in it.
    pub fn sojourn(&self) -> Option<Histogram> {
        if !self.keeps_waits {
            return None;
        }
        let mut h = self.waits.clone();
        if self.deferred_wait > 0 {
            h.record(self.deferred_wait);
        }
        if self.in_window {
            let departures = self.counters.departures - self.at_warmup.departures;
            h.record_zeros(departures - h.count());
        }
        Some(h)
    }

    /// Runs the qdisc's timer (unless a newer request superseded it); returns the drops.
    pub fn on_timer(&mut self, now: Time) -> Drops<'_> {
        self.begin_call();
        if self.timer_at == Some(now) {
            self.timer_at = None;
            self.qdisc.on_timer(now, &mut self.ctx);
        }
        self.account_drops(now)
    }

    /// Returns the mean queue length `[packets, bytes]` over the window up to `now`.
    pub fn mean_queue(&self, now: Time) -> [f64; 2] {
        self.queue_area.mean(now, self.qdisc.queued())
    }

    /// Returns the longest the queue was in the window (packets; 1 for a packet that passed
    /// straight through).
    pub fn max_queue_pkts(&self) -> u64 {
        self.queue_area.max_pkts()
    }

    /// Returns a timer the simulator must schedule, if the qdisc asked for one earlier than
    /// the one already pending.
    pub fn take_timer_request(&mut self) -> Option<Time> {
        let t = self.ctx.timer.take()?;
        if self.timer_at.is_none_or(|p| t < p) {
            self.timer_at = Some(t);
            Some(t)
        } else {
            None
        }
    }

    /// Checks arrivals = departures + drops + queued in packets and bytes; returns a
    /// description of the first violated identity.
    pub fn check_conservation(&self) -> Result<(), String> {
        let (c, r) = (&self.counters, &self.reasons);
        let (q, qb) = (self.len_pkts(), self.len_bytes());
        if c.arrivals != c.departures + r.total_drops() + q {
            return Err(format!(
                "packets: in {} != out {} + dropped {} + queued {q}",
                c.arrivals,
                c.departures,
                r.total_drops()
            ));
        }
        if c.arrival_bytes != c.departure_bytes + r.total_drop_bytes() + qb {
            return Err(format!(
                "bytes: in {} != out {} + dropped {} + queued {qb}",
                c.arrival_bytes,
                c.departure_bytes,
                r.total_drop_bytes()
            ));
        }
        if r.total_drops() != c.drops_of_arrivals + c.drops_of_queued {
            return Err("drops by reason != drops of arrivals + drops of queued".into());
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "port_tests.rs"]
mod tests;
