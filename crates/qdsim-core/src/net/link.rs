//! A unidirectional link: a port (qdisc + books), a transmitter, and a delay line.

use std::collections::VecDeque;

use rand::Rng;

use crate::packet::{NodeId, Packet};
use crate::rng::StreamRng;
use crate::stats::Counters;
use crate::time::{Duration, Rate, Time};

use super::port::Port;

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
    /// The packet being serialised, if any.
    pub transmitting: Option<Packet>,
    /// Packets propagating, with their arrival times (non-decreasing).
    pub delay_line: VecDeque<(Time, Packet)>,
    /// Counters since the start of the run.
    pub counters: LinkCounters,
    /// Counters at the start of the measurement window.
    pub at_warmup: LinkCounters,
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

    /// Finishes the current transmission at `now`. Returns the packet and whether it was lost
    /// on the wire, or `None` if nothing was being sent. A packet that survives enters the
    /// delay line; the return says whether it became the line's head (so its arrival must be
    /// scheduled).
    pub fn finish_tx(&mut self, now: Time) -> Option<(Packet, TxOutcome)> {
        let pkt = self.transmitting.take()?;
        self.counters.tx_pkts += 1;
        self.counters.tx_bytes += pkt.size_bytes as u64;
        // The coin is only tossed on lossy links, so adding loss to one link does not
        // shift any other random stream.
        if self.loss > 0.0 && self.loss_rng.random::<f64>() < self.loss {
            self.counters.wire_losses += 1;
            self.counters.wire_loss_bytes += pkt.size_bytes as u64;
            return Some((pkt, TxOutcome::Lost));
        }
        self.delay_line.push_back((now + self.delay, pkt));
        let head = self.delay_line.len() == 1;
        Some((pkt, if head { TxOutcome::NewHead(now + self.delay) } else { TxOutcome::Queued }))
    }

    /// Packets held by the link itself (on the transmitter or propagating).
    pub fn in_flight(&self) -> u64 {
        self.transmitting.is_some() as u64 + self.delay_line.len() as u64
    }
}

/// What happened to a packet whose transmission finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOutcome {
    /// Lost on the wire.
    Lost,
    /// Entered an empty delay line: its arrival at this time must be scheduled.
    NewHead(Time),
    /// Entered behind other propagating packets.
    Queued,
}
