//! A unidirectional link: a port (qdisc + books), a transmitter, a lossy wire and a delay line.
//!
//! The link owns its state and its counters: it starts transmissions from its port, tosses
//! the wire's loss coin when one ends (counting the loss as its own, not a qdisc's drop), and
//! hands the head of its delay line over when it arrives. The simulator only schedules the
//! events these steps ask for.

use std::collections::VecDeque;

use rand::Rng;

use crate::packet::{NodeId, Packet, PacketKind};
use crate::rng::StreamRng;
use crate::stats::Counters;
use crate::time::{Duration, Rate, Time};

use super::port::{Drops, Port};

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

impl Counters for LinkCounters {
    fn since(&self, e: &Self) -> Self {
        LinkCounters {
            tx_pkts: self.tx_pkts - e.tx_pkts,
            tx_bytes: self.tx_bytes - e.tx_bytes,
            wire_losses: self.wire_losses - e.wire_losses,
            wire_loss_bytes: self.wire_loss_bytes - e.wire_loss_bytes,
            delivered: self.delivered - e.delivered,
        }
    }
}

/// A link and its output port.
#[derive(Debug)]
pub struct Link {
    /// Transmitting node.
    pub from: NodeId,
    /// Receiving node.
    pub to: NodeId,
    /// Rate.
    pub rate: Rate,
    /// Propagation delay.
    pub delay: Duration,
    loss: f64,
    loss_rng: StreamRng,
    /// The qdisc and its books.
    pub port: Port,
    /// The packet being serialised, if any, with the event sequence number its arrival takes.
    transmitting: Option<(Packet, u64)>,
    /// Packets propagating, with their arrival times (non-decreasing) and the sequence
    /// numbers of their arrival events.
    delay_line: VecDeque<(Time, Packet, u64)>,
    /// Counters since the start of the run.
    pub counters: LinkCounters,
    /// Counters at the start of the measurement window.
    pub at_warmup: LinkCounters,
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
        self.transmitting.is_none()
    }

    /// Starts sending the port's next packet at `now`, if the transmitter is free; returns
    /// when the transmission ends (`None`: busy, or nothing to send) and the packets the
    /// qdisc dropped on the way. `arrival_seq` gives the event sequence number the packet's
    /// arrival will take (taken only when a transmission starts): reserved now, before the
    /// end of the transmission is scheduled, it orders the arrival among equal-time events as
    /// ns-2 does, which schedules both when a transmission starts, the arrival first.
    pub fn start_tx(&mut self, now: Time, arrival_seq: impl FnOnce() -> u64) -> (Option<Time>, Drops<'_>) {
        if self.transmitting.is_some() {
            return (None, &[]);
        }
        let (pkt, drops) = self.port.dequeue(now);
        let done = pkt.map(|p| {
            self.transmitting = Some((p, arrival_seq()));
            now + self.rate.tx_time(p.size_bytes)
        });
        (done, drops)
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
        self.delay_line.push_back((now + self.delay, pkt, seq));
        let head = self.delay_line.len() == 1;
        Some((pkt, if head { TxOutcome::NewHead(now + self.delay, seq) } else { TxOutcome::Queued }))
    }

    /// Hands over the head of the delay line, arriving at `now`; returns it with the arrival
    /// time and sequence number of the next head, whose event must be scheduled.
    ///
    /// # Panics
    /// An empty delay line (an arrival event without a packet: a simulator bug).
    pub fn deliver_head(&mut self, now: Time) -> (Packet, Option<(Time, u64)>) {
        let (t, pkt, _) = self.delay_line.pop_front().expect("arrival event with an empty delay line");
        debug_assert_eq!(t, now);
        self.counters.delivered += 1;
        (pkt, self.delay_line.front().map(|&(next, _, seq)| (next, seq)))
    }

    /// Starts the measurement window at `now`: snapshots the counters, the port's included.
    pub fn start_window(&mut self, now: Time) {
        self.at_warmup = self.counters.clone();
        self.port.start_window(now);
    }

    /// Packets held by the link itself (on the transmitter or propagating).
    pub fn in_flight(&self) -> u64 {
        self.transmitting.is_some() as u64 + self.delay_line.len() as u64
    }

    /// Returns the data (non-ACK) packets inside the link: queued, on the transmitter or
    /// propagating.
    pub fn data_pkts_inside(&self) -> u64 {
        let on_link = self.transmitting.iter().map(|(p, _)| p).chain(self.delay_line.iter().map(|(_, p, _)| p));
        self.port.data_pkts_queued() + on_link.filter(|p| p.kind != PacketKind::Ack).count() as u64
    }

    /// Checks the port's identities and the link's: dequeued = transmitted + on the
    /// transmitter, transmitted = lost + delivered + propagating; returns the first violation.
    pub fn check_conservation(&self) -> Result<(), String> {
        self.port.check_conservation()?;
        let c = &self.counters;
        let departures = self.port.counters.departures;
        if departures != c.tx_pkts + self.transmitting.is_some() as u64 {
            return Err(format!("dequeued {departures} != transmitted {} + on the wire", c.tx_pkts));
        }
        if c.tx_pkts != c.wire_losses + c.delivered + self.delay_line.len() as u64 {
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
