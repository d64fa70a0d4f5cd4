//! The [`Outbox`] through which every endpoint (a TCP sender or receiver, a traffic source)
//! talks to the simulator: the packets it sends and the timers it sets during one call.
//!
//! Endpoints never see the event queue or the network; the simulator drains the outbox after
//! each call, which is what lets the TCP and source tests feed packets by hand.

use crate::event::FlowTimer;
use crate::packet::{Packet, SackStore};
use crate::time::Time;

/// Packets an endpoint wants sent and timers it wants set, collected during one call.
///
/// The simulator drains it after every call; its vectors are reused, so sending does not
/// allocate once they have grown.
#[derive(Debug, Default)]
pub struct Outbox {
    /// Packets to inject at the endpoint's node, in order.
    pub pkts: Vec<Packet>,
    /// Timers to schedule for the endpoint's flow.
    pub timers: Vec<(Time, FlowTimer)>,
    /// Loss-recovery events to log: kind and segment.
    pub events: Vec<(&'static str, u64)>,
    /// The SACK blocks of the ACKs in flight: a receiver puts an ACK's blocks here as it sends
    /// it, its sender reads them as it arrives. Not drained: it lives as long as the run.
    pub sacks: SackStore,
}

impl Outbox {
    /// Queues `pkt` for sending.
    pub fn send(&mut self, pkt: Packet) {
        self.pkts.push(pkt);
    }
    /// Logs a loss-recovery event of `kind` about segment `seq`.
    pub fn event(&mut self, kind: &'static str, seq: u64) {
        self.events.push((kind, seq));
    }
    /// Asks for `timer` to fire at `at`.
    pub fn timer(&mut self, at: Time, timer: FlowTimer) {
        self.timers.push((at, timer));
    }
}
