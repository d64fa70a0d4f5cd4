//! The event queue: a binary heap ordered by `(time, sequence number)`.
//!
//! Two events at the same time fire in the order they were scheduled, because each gets the
//! next value of a monotone sequence counter. That is what makes a run a pure function of its
//! configuration and seed. Events are small `Copy` values (a target and a kind), never boxed
//! closures, so scheduling allocates nothing once the heap has grown.
//!
//! Timers are cancelled lazily: the owner keeps a generation number, puts it in the event,
//! and ignores an event whose generation is stale. That is O(1) and cannot dangle.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::packet::FlowId;
use crate::time::Time;

/// Index of a link.
pub type LinkId = u32;

/// Something that happens at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// The link finished serialising its current packet.
    TxDone(LinkId),
    /// The head packet of the link's delay line reaches the far end.
    Arrival(LinkId),
    /// A timer of a traffic source or TCP endpoint.
    Flow(FlowId, FlowTimer),
    /// A timer the link's qdisc asked for.
    QdiscTimer(LinkId),
    /// Take a sample of the recorded time series.
    Sample,
    /// The measurement window starts: snapshot counters.
    WarmupEnd,
}

/// Timers of a flow; those that can be cancelled carry a generation number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowTimer {
    /// The source starts.
    Start,
    /// TCP retransmission timeout.
    Rto(u32),
    /// TCP delayed-ACK timer at the receiver.
    DelayedAck(u32),
    /// The next packet of a constant-bit-rate source.
    CbrSend,
    /// The next arrival of a short-flow generator.
    Arrival,
    /// The next round of a persistent connection's repeated transfer.
    NextRound,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// `time << 64 | seq`: one integer comparison orders by time, then by scheduling order
    /// (cheaper than comparing the pair; the heap compares on every level of every push/pop).
    key: u128,
    event: Event,
}

impl Entry {
    fn time(&self) -> Time {
        Time((self.key >> 64) as u64)
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        // Reversed: BinaryHeap is a max-heap and we want the earliest (time, seq) first.
        other.key.cmp(&self.key)
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A deterministic priority queue of events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    next_seq: u64,
    now: Time,
    popped: u64,
}

impl EventQueue {
    /// Returns an empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns the time of the event most recently popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Returns how many events have been popped so far.
    pub fn events_processed(&self) -> u64 {
        self.popped
    }

    /// Schedules `event` at `time`.
    ///
    /// # Panics
    /// If `time` is before the current time: scheduling into the past is a simulator bug.
    pub fn schedule(&mut self, time: Time, event: Event) {
        assert!(time >= self.now, "event {event:?} scheduled at {time} before now {}", self.now);
        self.heap.push(Entry { key: (u128::from(time.as_ns()) << 64) | u128::from(self.next_seq), event });
        self.next_seq += 1;
    }

    /// Removes and returns the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.now = e.time();
        self.popped += 1;
        Some((self.now, e.event))
    }

    /// Returns the time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(Entry::time)
    }

    /// Returns the number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Returns whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(30), Event::Sample);
        q.schedule(Time(10), Event::TxDone(1));
        q.schedule(Time(20), Event::Arrival(2));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(t, _)| t.0).collect();
        assert_eq!(order, vec![10, 20, 30]);
    }

    #[test]
    fn equal_times_fire_in_scheduling_order() {
        let mut q = EventQueue::new();
        for l in [5, 3, 9, 1] {
            q.schedule(Time(7), Event::TxDone(l));
        }
        let order: Vec<_> = std::iter::from_fn(|| q.pop())
            .map(|(_, e)| match e {
                Event::TxDone(l) => l,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(order, vec![5, 3, 9, 1]);
    }

    #[test]
    #[should_panic(expected = "before now")]
    fn scheduling_into_the_past_panics() {
        let mut q = EventQueue::new();
        q.schedule(Time(10), Event::Sample);
        q.pop();
        q.schedule(Time(9), Event::Sample);
    }
}
