//! A unidirectional link: a port (qdisc + books), a transmitter, a lossy wire and a delay line.
//!
//! The link owns its state and its counters: it starts transmissions from its port, tosses
//! the wire's loss coin when one ends (counting the loss as its own, not a qdisc's drop), and
//! hands the head of its delay line over when it arrives. The simulator only schedules the
//! events these steps ask for.
//!
//! # Transmissions no event ends
//!
//! Most links of a network never queue: a host's link, a router's fast link to a receiver.
//! A packet crossing one costs two events, the end of its transmission (`TxDone`) and its
//! arrival at the far end, and the first exists only to start the next transmission — of
//! which there is none when the queue stays empty. So a transmission that leaves the port
//! empty on a link that may ([`Link::allow_early_ends`]: no wire loss, a qdisc whose dequeue
//! of nothing changes nothing, no capture or record reading the end) puts its packet on the
//! delay line as it begins, with the arrival time it will have, and takes the end's event
//! number without an event: [`TxStart::Early`]. The transmission ends *early* — in the
//! books, when the simulator next touches the link ([`Link::end_early_if_due`]: an offer, an
//! arrival, a sample, the warm-up, the end of the run) and finds the end before the event it
//! is handling, ordered as events are, by time and then number. A packet offered while it
//! lasts needs the end after all, to start the next transmission: [`Link::need_end_event`]
//! hands back the event, at the end's time and number, so it fires exactly where it would
//! have. Everything a run reports is as if every end had its event: the order of all other
//! events, and so every number, is unchanged; only the count of events falls.

use std::collections::VecDeque;

use rand::Rng;

use crate::packet::{NodeId, Packet, PacketKind};
use crate::rng::StreamRng;
use crate::stats::counters_since;
use crate::time::{Duration, Rate, Time};

use super::port::Port;

/// The name results give the link's wire losses among the drop reasons of its qdisc.
pub const WIRE_LOSS: &str = "random_loss";

/// Monotone counters of the transmitter and the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LinkCounters {
    /// Packets whose transmission finished.
    pub tx_pkts: u64,
    /// Bytes whose transmission finished.
    pub tx_bytes: u64,
    /// Packets lost on the wire (random loss).
    pub wire_losses: u64,
    /// Bytes lost on the wire.
    pub wire_loss_bytes: u64,
    /// Packets that reached the far end.
    pub delivered: u64,
}

counters_since!(LinkCounters { tx_pkts, tx_bytes, wire_losses, wire_loss_bytes, delivered });

/// A link and its output port.
///
/// The fields are laid out in the order written (`repr(C)`), those every packet touches first,
/// and each link starts a cache line (`align(64)`), so that at 10⁴ flows, where every link is
/// cold, a packet crossing one misses on as few cache lines as it can.
#[derive(Debug)]
#[repr(C, align(64))]
pub struct Link {
    /// The transmission under way that ends without an event, if any (its packet is on the
    /// delay line).
    early: Option<EarlyTx>,
    /// Packets propagating, each with its arrival time (non-decreasing) and the sequence
    /// number of its arrival event.
    delay_line: VecDeque<OnWire>,
    /// Receiving node.
    pub to: NodeId,
    /// Rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Duration,
    /// Whether a transmission that leaves the port empty may end without an event.
    early_ok: bool,
    /// Counters since the start of the run.
    pub counters: LinkCounters,
    /// The packet being serialised, if any, with the event sequence number its arrival takes.
    transmitting: Option<(Packet, u64)>,
    loss: f64,
    /// Transmitting node (here, with `loss`, so that the port's books start a cache line).
    pub from: NodeId,
    /// The size of the last packet sent (bytes) and its transmission time (ns), in the room
    /// before the port's line: a link carries one size nearly always (full segments one way,
    /// ACKs the other), and the exact time is a 64-bit division, tens of cycles, each.
    last_size: u32,
    last_tx_ns: u64,
    /// The qdisc and its books.
    pub port: Port,
    loss_rng: StreamRng,
    /// Counters at the start of the measurement window.
    pub at_warmup: LinkCounters,
}

/// A packet on a delay line, in one cache line: the packet itself, its arrival time in
/// `enq_time` (the time it entered the queue it left, read no more: the next port stamps the
/// field anew as the packet is offered to it) and its arrival event's number in `wire_seq`.
/// Beside the packet the two made an entry of 80 bytes, and the head an arrival reads — the
/// miss each arrival costs once the network outgrows the caches — spanned two lines.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OnWire(Packet);

impl OnWire {
    /// Puts `pkt` on the wire, to arrive at `at` with the event number `seq` (below 2^40,
    /// the event queue's bound).
    #[inline]
    fn new(mut pkt: Packet, at: Time, seq: u64) -> OnWire {
        debug_assert!(seq < 1 << 40, "event number {seq} needs more than 40 bits");
        pkt.enq_time = at;
        pkt.wire_seq.copy_from_slice(&seq.to_le_bytes()[..5]);
        OnWire(pkt)
    }

    /// Returns when the packet reaches the far end.
    #[inline]
    fn arrival(&self) -> Time {
        self.0.enq_time
    }

    /// Returns the number of its arrival event.
    #[inline]
    fn seq(&self) -> u64 {
        let mut bytes = [0; 8];
        bytes[..5].copy_from_slice(&self.0.wire_seq);
        u64::from_le_bytes(bytes)
    }

    /// Returns the packet as it arrives: `enq_time` its arrival time, `wire_seq` cleared.
    #[inline]
    fn packet(self) -> Packet {
        Packet { wire_seq: [0; 5], ..self.0 }
    }
}

/// How [`Link::start_tx`] went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxStart {
    /// Nothing started: the port had nothing to send.
    Nothing,
    /// A transmission whose end must be scheduled (a `TxDone` event at this time).
    Timed(Time),
    /// A transmission no event ends (module doc): its packet is on the delay line already;
    /// as the line's new head, its arrival must be scheduled at this time with this number.
    Early(Option<(Time, u64)>),
}

/// A transmission under way whose packet went onto the delay line as it began.
#[derive(Debug, Clone, Copy)]
struct EarlyTx {
    /// When the transmission ends.
    done: Time,
    /// The event number its end took.
    seq: u64,
    bytes: u32,
    data: bool,
    /// Whether an event now marks its end ([`Link::need_end_event`]).
    evented: bool,
}

/// An early transmission that [`Link::end_early_if_due`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EarlyEnd {
    /// Whether its packet was data (not an ACK).
    pub data: bool,
    /// Whether an event marked its end: a packet waits, whose transmission must start now.
    pub evented: bool,
}

/// What happened to a packet whose transmission finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// Lost on the wire.
    Lost,
    /// Entered an empty delay line: its arrival at this time must be scheduled, with this
    /// sequence number.
    NewHead(Time, u64),
    /// Entered behind other propagating packets.
    Queued,
    /// Arrived as its transmission ended: a link without delay whose delay line was empty.
    /// It never entered the line (entering and leaving it at once changes nothing the run
    /// reports) and is counted delivered; the simulator hands it on at once, as it would
    /// the line's new head.
    Arrived,
}

impl Link {
    /// Returns an idle link.
    pub fn new(
        from: NodeId,
        to: NodeId,
        rate: Rate,
        delay: Duration,
        loss: f64,
        loss_rng: StreamRng,
        port: Port,
    ) -> Self {
        Link {
            from,
            to,
            rate,
            delay,
            loss,
            loss_rng,
            port,
            transmitting: None,
            last_size: 0,
            last_tx_ns: 0,
            early_ok: false,
            early: None,
            delay_line: VecDeque::new(),
            counters: LinkCounters::default(),
            at_warmup: LinkCounters::default(),
        }
    }

    /// Returns how long the link takes to transmit `bytes`.
    pub fn tx_time(&self, bytes: u32) -> Duration {
        self.rate.tx_time(bytes)
    }

    /// Returns whether the transmitter is free.
    pub fn is_idle(&self) -> bool {
        self.transmitting.is_none() && self.early.is_none()
    }

    /// Lets transmissions that leave the port empty end without an event (module doc) when
    /// `allowed` — nothing reads this link's transmission ends — and the link can: no wire
    /// loss (whose coin is tossed at the end, in event order) and a qdisc whose dequeue of
    /// nothing changes nothing (the dequeue an end would make).
    pub fn allow_early_ends(&mut self, allowed: bool) {
        self.early_ok = allowed && self.loss == 0.0 && self.port.idle_dequeue_is_noop();
    }

    /// Returns the arrival time of the delay line's head, if any.
    #[inline]
    pub fn head_arrival(&self) -> Option<Time> {
        self.delay_line.front().map(OnWire::arrival)
    }

    /// Returns the delay line's head, if any, as it is on the wire (its `enq_time` and
    /// `wire_seq` hold its arrival's time and number): the simulator reads it ahead of the
    /// event that needs it (`Sim::read_events_ahead`).
    #[inline]
    pub(crate) fn delay_head(&self) -> Option<&Packet> {
        self.delay_line.front().map(|on_wire| &on_wire.0)
    }

    /// Returns whether a transmission that ends without an event is under way.
    #[inline]
    pub fn has_early(&self) -> bool {
        self.early.is_some()
    }

    /// Ends the early transmission under way if its end comes before the event `(now, seq)`
    /// being handled, or is that event (on a link without delay its arrival takes the end's
    /// place); returns what ended.
    pub fn end_early_if_due(&mut self, now: Time, seq: u64) -> Option<EarlyEnd> {
        let e = self.early?;
        ((e.done, e.seq) <= (now, seq)).then(|| self.end_early(e))
    }

    /// Ends the early transmission under way if it ends before `t` (the end of a run, or of a
    /// [`run_until`](crate::sim::Sim::run_until)); returns what ended.
    pub fn end_early_before(&mut self, t: Time) -> Option<EarlyEnd> {
        let e = self.early?;
        (e.done < t).then(|| self.end_early(e))
    }

    fn end_early(&mut self, e: EarlyTx) -> EarlyEnd {
        self.early = None;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += e.bytes as u64;
        EarlyEnd { data: e.data, evented: e.evented }
    }

    /// Makes the end of the early transmission under way an event's, because a packet was
    /// offered while it lasts: returns the `TxDone` to schedule, at the end's time with its
    /// reserved number — `None` if there is none under way, if it has its event already, or
    /// on a link without delay, where the packet's arrival event, in the end's place, ends it.
    pub fn need_end_event(&mut self) -> Option<(Time, u64)> {
        let e = self.early.as_mut()?;
        if e.evented {
            return None;
        }
        e.evented = true;
        (self.delay != Duration::ZERO).then_some((e.done, e.seq))
    }

    /// Starts sending the port's next packet at `now`, if the transmitter is free; returns
    /// how (the end to schedule, or an early transmission's arrival), or `None` when the
    /// transmitter is busy and the qdisc was not asked (after a dequeue, the packets it dropped
    /// on the way are the port's [`Port::last_drops`]). `seq` gives event sequence numbers,
    /// taken only when a transmission starts: first the packet's arrival's, reserved now,
    /// before the end of the transmission is scheduled, so that it orders the arrival among
    /// equal-time events as ns-2 does, which schedules both when a transmission starts, the
    /// arrival first; then, for an early transmission, the end's, where its event would have
    /// taken it.
    pub fn start_tx(&mut self, now: Time, seq: impl FnMut() -> u64) -> Option<TxStart> {
        if !self.is_idle() {
            return None;
        }
        Some(match self.port.dequeue(now) {
            Some(pkt) => self.begin_tx(pkt, now, seq),
            None => TxStart::Nothing,
        })
    }

    /// Offers `pkt` at `now` to an idle link whose qdisc lets it straight through
    /// ([`Port::passes_through`]): books it as queued and dequeued at once and starts its
    /// transmission, as an offer then [`Link::start_tx`] would (numbers from `seq` alike).
    /// Returns `None` when it cannot pass. (Borrowed, the packet is copied only when it passes:
    /// handed back, 96 bytes through a `Result`, it cost 2.7 % of a run's instructions.)
    pub fn pass_through(&mut self, pkt: &Packet, now: Time, seq: impl FnMut() -> u64) -> Option<TxStart> {
        if !self.is_idle() || !self.port.passes_through(pkt) {
            return None;
        }
        let mut pkt = *pkt;
        self.port.pass_through(&mut pkt, now);
        Some(self.begin_tx(pkt, now, seq))
    }

    /// Starts transmitting `pkt`, just dequeued, at `now` ([`Link::start_tx`]).
    fn begin_tx(&mut self, pkt: Packet, now: Time, mut seq: impl FnMut() -> u64) -> TxStart {
        let arrival_seq = seq();
        if pkt.size_bytes != self.last_size {
            self.last_size = pkt.size_bytes;
            self.last_tx_ns = self.rate.tx_time(pkt.size_bytes).as_ns();
        }
        let done = now + Duration::from_ns(self.last_tx_ns);
        if !self.early_ok || self.port.len_pkts() > 0 {
            self.transmitting = Some((pkt, arrival_seq));
            return TxStart::Timed(done);
        }
        let end_seq = seq();
        // Without delay the packet arrives as its transmission ends, in the end's place (the
        // arrival an end hands over at once, `Sim::on_tx_done`).
        let (at, arrival_seq) =
            if self.delay == Duration::ZERO { (done, end_seq) } else { (done + self.delay, arrival_seq) };
        self.delay_line.push_back(OnWire::new(pkt, at, arrival_seq));
        self.early = Some(EarlyTx {
            done,
            seq: end_seq,
            bytes: pkt.size_bytes,
            data: pkt.kind != PacketKind::Ack,
            evented: false,
        });
        let head = self.delay_line.len() == 1;
        TxStart::Early(head.then_some((at, arrival_seq)))
    }

    /// Finishes the current transmission at `now`. Returns the packet and whether it was lost
    /// on the wire, or `None` if nothing was being sent. A packet that survives enters the
    /// delay line; the return says whether it became the line's head (so its arrival must be
    /// scheduled).
    pub fn finish_tx(&mut self, now: Time) -> Option<(Packet, TxOutcome)> {
        let (pkt, seq) = self.transmitting.take()?;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += pkt.size_bytes as u64;
        // The coin is only tossed on lossy links, so adding loss to one link does not
        // shift any other random stream.
        if self.loss > 0.0 && self.loss_rng.random::<f64>() < self.loss {
            self.counters.wire_losses += 1;
            self.counters.wire_loss_bytes += pkt.size_bytes as u64;
            return Some((pkt, TxOutcome::Lost));
        }
        if self.delay == Duration::ZERO && self.delay_line.is_empty() {
            self.counters.delivered += 1;
            return Some((pkt, TxOutcome::Arrived));
        }
        self.delay_line.push_back(OnWire::new(pkt, now + self.delay, seq));
        let head = self.delay_line.len() == 1;
        Some((pkt, if head { TxOutcome::NewHead(now + self.delay, seq) } else { TxOutcome::Queued }))
    }

    /// Hands over the head of the delay line, arriving at `now`; returns it with the arrival
    /// time and sequence number of the next head, whose event must be scheduled.
    ///
    /// # Panics
    /// An empty delay line (an arrival event without a packet: a simulator bug).
    pub fn deliver_head(&mut self, now: Time) -> (Packet, Option<(Time, u64)>) {
        let head = self.delay_line.pop_front().expect("arrival event with an empty delay line");
        debug_assert_eq!(head.arrival(), now);
        self.counters.delivered += 1;
        // The next arrival's time is read now, from the new head; the one after it will be
        // read as that one arrives, from a line written a propagation delay before — by then
        // evicted, where the packets in flight outgrow the caches. Asked for now, a packet
        // time ahead, it is there.
        if let Some(after_next) = self.delay_line.get(1) {
            crate::hint::prefetch(after_next);
        }
        (head.packet(), self.delay_line.front().map(|next| (next.arrival(), next.seq())))
    }

    /// Starts the measurement window at `now`: snapshots the counters, the port's included.
    pub fn start_window(&mut self, now: Time) {
        self.at_warmup = self.counters.clone();
        self.port.start_window(now);
    }

    /// Packets held by the link itself (on the transmitter or propagating; an early
    /// transmission's packet is on the delay line).
    pub fn in_flight(&self) -> u64 {
        self.transmitting.is_some() as u64 + self.delay_line.len() as u64
    }

    /// Returns the packets inside the link: queued, on the transmitter or propagating.
    pub fn pkts_inside(&self) -> u64 {
        self.port.len_pkts() + self.in_flight()
    }

    /// Returns the data (non-ACK) packets inside the link: queued, on the transmitter or
    /// propagating.
    pub fn data_pkts_inside(&self) -> u64 {
        let on_link = self.transmitting.iter().map(|(p, _)| p).chain(self.delay_line.iter().map(|w| &w.0));
        self.port.data_pkts_queued() + on_link.filter(|p| p.kind != PacketKind::Ack).count() as u64
    }

    /// Checks the port's identities and the link's: dequeued = transmitted + on the
    /// transmitter, transmitted = lost + delivered + propagating; returns the first violation.
    pub fn check_conservation(&self) -> Result<(), String> {
        self.port.check_conservation()?;
        let c = &self.counters;
        let departures = self.port.counters.departures;
        let early = self.early.is_some() as u64;
        if departures != c.tx_pkts + self.transmitting.is_some() as u64 + early {
            return Err(format!("dequeued {departures} != transmitted {} + on the wire", c.tx_pkts));
        }
        if c.tx_pkts + early != c.wire_losses + c.delivered + self.delay_line.len() as u64 {
            return Err(format!(
                "transmitted {} != lost {} + delivered {} + propagating {}",
                c.tx_pkts,
                c.wire_losses,
                c.delivered,
                self.delay_line.len()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;
    use crate::qdisc::{AnyQdisc, Fifo, FifoParams};

    /// A link of 8 Gb/s (a 1000-byte packet in 1 µs) and `delay` over a FIFO.
    fn link(delay: Duration) -> Link {
        let fifo = Fifo::new(FifoParams { limit_pkts: Some(10), limit_bytes: None });
        let port = Port::new(AnyQdisc::Fifo(fifo), crate::rng::stream(1, "qdisc", 0));
        Link::new(0, 1, Rate::from_bps(8_000_000_000), delay, 0.0, crate::rng::stream(1, "loss", 0), port)
    }

    #[test]
    fn each_transmission_takes_its_own_size_s_time() {
        // Sizes repeated and alternating (the last size's time is kept): each transmission
        // takes ceil(bytes * 8 / 8 Gb/s) ns of its own, 0-byte included.
        let mut l = link(Duration::ZERO);
        let mut now = Time(0);
        for bytes in [1000, 1000, 40, 1000, 40, 40, 1, 0, 1000] {
            let start = l.pass_through(&pkt(0, bytes), now, || 0);
            let done = now + Rate::from_bps(8_000_000_000).tx_time(bytes);
            assert!(
                matches!(start, Some(TxStart::Timed(t) | TxStart::Early(Some((t, _)))) if t == done),
                "{bytes} B: {start:?}"
            );
            now = done + Duration(1);
            if l.finish_tx(done).is_none() {
                l.end_early_before(now);
            }
        }
    }

    #[test]
    fn a_propagating_packet_keeps_its_arrival_time_and_event_number() {
        // Event numbers from 0 to the queue's bound, 2^40 - 1, each byte of the five in use.
        let seqs = [0, 1, 0xAB_CDEF_0123, (1 << 40) - 1];
        let delay = Duration::from_ms(10);
        let mut l = link(delay);
        let mut sent = Vec::new();
        for (i, &seq) in seqs.iter().enumerate() {
            let now = Time(1_000 * i as u64);
            let mut p = pkt(i as u32, 1000);
            (p.number, p.ts, p.queue_delay_ns) = (i as u64 + 7, Time(3), 5);
            assert_eq!(l.pass_through(&p, now, || seq), Some(TxStart::Timed(now + Duration(1_000))));
            let (left, outcome) = l.finish_tx(now + Duration(1_000)).unwrap();
            let arrival = now + Duration(1_000) + delay;
            assert_eq!(outcome, if i == 0 { TxOutcome::NewHead(arrival, seq) } else { TxOutcome::Queued });
            sent.push((left, arrival, seq));
        }
        for (i, &(p, arrival, _)) in sent.iter().enumerate() {
            assert_eq!(l.head_arrival(), Some(arrival));
            let (got, next) = l.deliver_head(arrival);
            // As it left, but for the time it entered the queue, which its arrival replaces.
            assert_eq!(got, Packet { enq_time: arrival, ..p });
            assert_eq!(next, sent.get(i + 1).map(|&(_, at, seq)| (at, seq)));
        }
        l.check_conservation().unwrap();
    }

    #[test]
    fn without_delay_a_packet_arrives_as_its_transmission_ends_unless_others_propagate() {
        let mut l = link(Duration::ZERO);
        // Early ends off: every transmission is timed, as on a busy link.
        assert_eq!(l.pass_through(&pkt(0, 1000), Time(0), || 3), Some(TxStart::Timed(Time(1_000))));
        let (p, outcome) = l.finish_tx(Time(1_000)).unwrap();
        assert_eq!((p, outcome), (pkt(0, 1000), TxOutcome::Arrived));
        assert_eq!((l.head_arrival(), l.counters.delivered, l.in_flight()), (None, 1, 0));
        l.check_conservation().unwrap();
        // A packet of an early transmission still propagating: the next joins it on the line.
        l.allow_early_ends(true);
        assert_eq!(l.pass_through(&pkt(1, 1000), Time(2_000), || 4), Some(TxStart::Early(Some((Time(3_000), 4)))));
        l.end_early_before(Time(3_001));
        l.allow_early_ends(false);
        assert_eq!(l.pass_through(&pkt(2, 1000), Time(3_000), || 6), Some(TxStart::Timed(Time(4_000))));
        assert_eq!(l.finish_tx(Time(4_000)).map(|(_, o)| o), Some(TxOutcome::Queued));
        assert_eq!(l.deliver_head(Time(3_000)).0.flow, 1);
        assert_eq!(l.deliver_head(Time(4_000)).0.flow, 2);
        assert_eq!(l.counters.delivered, 3);
        l.check_conservation().unwrap();
    }
}
