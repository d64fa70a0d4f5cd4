//! A host's processing delay: every packet an endpoint hands to the network waits a random
//! time in `[0, J]` before it reaches the host's output link, without overtaking the packets
//! the host sent before it.
//!
//! Why: with exact rates, fixed packet sizes and equal-time events firing in scheduling order,
//! a simulated network is a lattice. Flows can then keep landing on the same instant of every
//! transmission slot — a retransmission always arriving just after a competing flow has
//! refilled the last free buffer place — and lock out (Floyd & Jacobson, "On traffic phase
//! effects in packet-switched gateways", 1992). Real hosts break the lattice: a packet leaves
//! the stack after a variable processing and interrupt delay. ns-2 users add a random
//! per-packet overhead for the same reason. Routers add nothing here: only what an endpoint
//! sends is delayed.
//!
//! Order: departure = max(previous departure of this host, now + U[0, J]), so the host's
//! packets keep their order (a real NIC queue is FIFO). The line is a FIFO whose head alone
//! has an event in the global queue, like a link's delay line. Each host draws from its own
//! named stream (`host_jitter`, the node's index), so turning the delay on or off for one host
//! never shifts another random stream. `J = 0` bypasses the line entirely: the packet goes
//! to the link at once, as without this module.

use std::collections::VecDeque;

use rand::Rng;

use crate::packet::{Packet, PacketKind};
use crate::rng::StreamRng;
use crate::time::{Duration, Time};

/// The processing-delay line of one host.
#[derive(Debug)]
pub struct HostLine {
    /// Largest delay `J`; zero bypasses the line.
    jitter: Duration,
    rng: StreamRng,
    /// Packets waiting, with their departure times (non-decreasing).
    line: VecDeque<(Time, Packet)>,
    /// Departure time of the packet most recently put in the line.
    last_departure: Time,
}

impl HostLine {
    /// Returns an empty line delaying each packet by up to `jitter`, drawing from `rng`.
    pub fn new(jitter: Duration, rng: StreamRng) -> Self {
        HostLine { jitter, rng, line: VecDeque::new(), last_departure: Time::ZERO }
    }

    /// Returns the packet that leaves next, if any (for reading ahead: `Sim::read_events_ahead`).
    #[inline]
    pub(crate) fn head(&self) -> Option<&Packet> {
        self.line.front().map(|(_, pkt)| pkt)
    }

    /// Returns whether the host delays its packets at all.
    pub fn is_active(&self) -> bool {
        self.jitter > Duration::ZERO
    }

    /// Puts `pkt`, sent by the host at `now`, in the line. Returns its departure time when it
    /// became the head (that departure must be scheduled), else `None`.
    ///
    /// # Panics
    /// An inactive line (the caller must send the packet at once instead).
    pub fn push(&mut self, pkt: Packet, now: Time) -> Option<Time> {
        assert!(self.is_active(), "a host without processing delay has no line");
        let delay = Duration::from_ns(self.rng.random_range(0..=self.jitter.as_ns()));
        let at = (now + delay).max(self.last_departure);
        self.last_departure = at;
        self.line.push_back((at, pkt));
        (self.line.len() == 1).then_some(at)
    }

    /// Takes the head of the line, departing at `now`; returns it with the departure time of
    /// the next head, whose event must be scheduled.
    ///
    /// # Panics
    /// An empty line (a departure event without a packet: a simulator bug).
    pub fn pop(&mut self, now: Time) -> (Packet, Option<Time>) {
        let (t, pkt) = self.line.pop_front().expect("host departure event with an empty line");
        debug_assert_eq!(t, now);
        (pkt, self.line.front().map(|&(next, _)| next))
    }

    /// Returns the packets waiting in the line.
    pub fn pkts_waiting(&self) -> u64 {
        self.line.len() as u64
    }

    /// Returns the data (non-ACK) packets waiting in the line.
    pub fn data_pkts_waiting(&self) -> u64 {
        self.line.iter().filter(|(_, p)| p.kind != PacketKind::Ack).count() as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;
    use crate::rng;

    fn line(jitter_ns: u64, seed: u64) -> HostLine {
        HostLine::new(Duration::from_ns(jitter_ns), rng::stream(seed, "host_jitter", 0))
    }

    /// Packet number `i` (its `seq`).
    fn numbered(i: usize) -> Packet {
        Packet { number: i as u64, ..pkt(0, 1000) }
    }

    /// Sends packets 0, 1, ... at the times `sends` (non-decreasing) and departs each head at
    /// its time, in time order as the event loop would; returns (packet, departure) in
    /// departure order.
    fn drain(l: &mut HostLine, sends: &[u64]) -> Vec<(u64, u64)> {
        let mut out = vec![];
        let mut head: Option<Time> = None;
        let mut i = 0;
        loop {
            match (head, sends.get(i)) {
                (Some(at), next) if next.is_none_or(|&s| at.0 < s) => {
                    let (p, following) = l.pop(at);
                    out.push((p.seq(), at.0));
                    head = following;
                }
                (_, Some(&s)) => {
                    if let Some(at) = l.push(numbered(i), Time(s)) {
                        assert!(head.is_none(), "only an empty line gets a new head");
                        head = Some(at);
                    }
                    i += 1;
                }
                (None, None) => return out,
                (Some(_), None) => unreachable!("handled by the first arm"),
            }
        }
    }

    #[test]
    fn packets_wait_at_most_the_jitter_and_never_overtake() {
        let mut l = line(10_000, 7);
        // 200 packets in bursts of four at the same instant, bursts 3 us apart: most packets
        // find others still waiting.
        let sends: Vec<u64> = (0..200).map(|i| (i / 4) * 3_000).collect();
        let out = drain(&mut l, &sends);
        assert_eq!(out.len(), 200);
        let seqs: Vec<u64> = out.iter().map(|&(s, _)| s).collect();
        assert_eq!(seqs, (0..200).collect::<Vec<_>>(), "FIFO: no packet overtakes an earlier one");
        for &(seq, at) in &out {
            let sent = sends[seq as usize];
            assert!(at >= sent, "segment {seq} left at {at} before it was sent at {sent}");
        }
        // A packet leaves at max(previous departure, send + U[0, J]): never later than the
        // previous departure or its own send + J, whichever is later.
        for w in out.windows(2) {
            let (seq, at) = w[1];
            assert!(at <= w[0].1.max(sends[seq as usize] + 10_000), "{w:?}");
        }
        // The draws spread over [0, J]: lone packets' delays are not all equal.
        let mut l2 = line(10_000, 8);
        let mut delays = vec![];
        for i in 0..50 {
            let now = Time(i as u64 * 1_000_000);
            let at = l2.push(numbered(i), now).expect("an empty line: a new head");
            delays.push(at.0 - now.0);
            l2.pop(at);
        }
        assert!(delays.iter().all(|&d| d <= 10_000));
        assert!(delays.iter().min() < Some(&3_000) && delays.iter().max() > Some(&7_000), "{delays:?}");
    }

    #[test]
    fn the_same_seed_draws_the_same_delays() {
        let sends: Vec<u64> = (0..50).map(|i| i * 2_000).collect();
        let a = drain(&mut line(10_000, 3), &sends);
        let b = drain(&mut line(10_000, 3), &sends);
        let c = drain(&mut line(10_000, 4), &sends);
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    #[should_panic(expected = "no line")]
    fn a_host_without_jitter_has_no_line() {
        line(0, 1).push(numbered(0), Time::ZERO);
    }
}
