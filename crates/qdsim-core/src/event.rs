//! The event queue: a calendar queue ordered by `(time, sequence number)`.
//!
//! Two events at the same time fire in the order they were scheduled, because each gets the
//! next value of a monotone sequence counter. That is what makes a run a pure function of its
//! configuration and seed. An event may also take a sequence number reserved earlier
//! ([`EventQueue::reserve_seq`]): it then fires among equal-time events as if it had been
//! scheduled when the number was reserved — how a packet's arrival, scheduled by qdsim only
//! once the packet heads its link's delay line, keeps the place ns-2 gives it (ns-2 schedules
//! every arrival when the packet's transmission starts, `LinkDelay::recv`). Events are small `Copy` values (a target and a kind), never boxed
//! closures, so scheduling allocates nothing once the calendar has grown.
//!
//! Timers are cancelled lazily: the owner keeps a generation number, puts it in the event,
//! and ignores an event whose generation is stale. That is O(1) and cannot dangle.

use crate::calendar::Calendar;
use crate::packet::{FlowId, NodeId};
use crate::time::Time;

/// Index of a link.
pub type LinkId = u32;

/// Something that happens at an instant.
///
/// Its tag is a `u32` in the order of the variants, the same numbers as the kinds a key holds
/// (`TX_DONE` …): decoding a key's event is then a copy of its kind, not a `match`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub enum Event {
    /// The link finished serialising its current packet.
    TxDone(LinkId),
    /// The head packet of the link's delay line reaches the far end.
    Arrival(LinkId),
    /// The head packet of a host's processing-delay line leaves for the host's link.
    HostDeparture(NodeId),
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
    /// The next packet of a Poisson packet source.
    PoissonSend,
    /// The next arrival of a short-flow generator.
    Arrival,
    /// The next round of a persistent connection's repeated transfer.
    NextRound,
    /// The next burst of an on-off source, after its idle time.
    NextBurst,
}

/// Bits of a key that hold its event (below the sequence number): the event itself, when it
/// is a link's, a host's or the run's, else the slot in [`EventQueue::slots`] where it waits.
const EVENT_BITS: u32 = 24;
const EVENT_MASK: u128 = (1 << EVENT_BITS) - 1;
/// Schedulings a run may make: the sequence number has the key's low 64 bits minus the event's.
const MAX_SEQ: u64 = 1 << (64 - EVENT_BITS);
/// Codes below this name a slot; from it on, an event held in the key: its kind (below) times
/// 2^[`INDEX_BITS`] plus its link or node. Slots get half the codes because a flow's stale
/// delayed-ACK timers (cancelled by generation, not removed) pile up: ten a flow at 10⁴ flows
/// of 5 Mb/s, thousands for a flow of gigabits a second.
const HELD: u32 = 1 << (EVENT_BITS - 1);
/// Bits of a held event's code that give its link or node.
const INDEX_BITS: u32 = 20;
const INDEX_MASK: u32 = (1 << INDEX_BITS) - 1;
/// The kinds of event a key holds itself (six, so that every code stays below 2^24): the
/// variants' tags ([`Event`]), a flow's timer's (3) never held.
const TX_DONE: u32 = 0;
const ARRIVAL: u32 = 1;
const HOST_DEPARTURE: u32 = 2;
const QDISC_TIMER: u32 = 4;
const SAMPLE: u32 = 5;
const WARMUP_END: u32 = 6;
const _: () = assert!(HELD + (WARMUP_END << INDEX_BITS | INDEX_MASK) < 1 << EVENT_BITS);

/// Returns the code a key holds `event` as, if it holds it itself: a link's, a host's or the
/// run's event whose index fits ([`INDEX_BITS`]: 2^20 links or nodes); a flow's timer (its
/// generation would not fit) waits in a slot, as do the events of a link beyond.
#[inline]
fn code_of(event: Event) -> Option<u32> {
    let (kind, index) = match event {
        Event::TxDone(l) => (TX_DONE, l),
        Event::Arrival(l) => (ARRIVAL, l),
        Event::HostDeparture(n) => (HOST_DEPARTURE, n),
        Event::QdiscTimer(l) => (QDISC_TIMER, l),
        Event::Sample => (SAMPLE, 0),
        Event::WarmupEnd => (WARMUP_END, 0),
        Event::Flow(..) => return None,
    };
    (index <= INDEX_MASK).then_some(HELD | kind << INDEX_BITS | index)
}

/// Returns the event a key's code holds itself, or `None` for one in a slot
/// (the inverse of [`code_of`]).
#[inline]
fn event_of(code: u32) -> Option<Event> {
    if code < HELD {
        return None;
    }
    let index = code & INDEX_MASK;
    Some(match (code - HELD) >> INDEX_BITS {
        TX_DONE => Event::TxDone(index),
        ARRIVAL => Event::Arrival(index),
        HOST_DEPARTURE => Event::HostDeparture(index),
        QDISC_TIMER => Event::QdiscTimer(index),
        SAMPLE => Event::Sample,
        kind => {
            debug_assert_eq!(kind, WARMUP_END, "no kind {kind} is ever encoded");
            Event::WarmupEnd
        }
    })
}

/// A deterministic priority queue of events.
///
/// The queue holds bare `u128` keys, `time << 64 | seq << 24 | event`, in a calendar
/// ([`Calendar`]): one integer comparison orders by time, then by scheduling order (`seq` is
/// unique, so the low bits never decide), and a 16-byte key moves half the bytes of a key
/// with its event beside it. The low 24 bits are the event itself where it fits — a link's,
/// a host's, the run's: nearly every event — so that scheduling and popping it touch no
/// other memory (a table of events written when scheduled and read when popped, a while
/// later, cost a cache miss on half the pops); a flow's timer, which carries a generation,
/// waits in `slots[slot]`, recycled when popped.
#[derive(Debug)]
pub struct EventQueue {
    calendar: Calendar,
    slots: Vec<Event>,
    free_slots: Vec<u32>,
    next_seq: u64,
    now: Time,
    /// The sequence number of the event most recently popped.
    current: u64,
    popped: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue::with_calendar(Calendar::default())
    }
}

impl EventQueue {
    /// Returns an empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }

    /// Returns an empty queue at time zero for a network that carries at most
    /// `packets_per_s` packets a second on all its links together: its calendar's buckets
    /// sized for it ([`crate::calendar::shift_for`]). The order of events is the same.
    pub fn for_capacity(packets_per_s: f64) -> Self {
        EventQueue::with_calendar(Calendar::with_shift(crate::calendar::shift_for(packets_per_s)))
    }

    /// Returns an empty queue at time zero over `calendar`, empty.
    fn with_calendar(calendar: Calendar) -> Self {
        EventQueue {
            calendar,
            slots: Vec::new(),
            free_slots: Vec::new(),
            next_seq: 0,
            now: Time::ZERO,
            current: 0,
            popped: 0,
        }
    }

    /// Returns the time of the event most recently popped.
    pub fn now(&self) -> Time {
        self.now
    }

    /// Returns the sequence number of the event most recently popped: with [`EventQueue::now`]
    /// it places the event being handled among all others, `(now, current_seq)`, so that
    /// work deferred to a later event can tell whether it would have come before this one.
    pub fn current_seq(&self) -> u64 {
        self.current
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
        let seq = self.reserve_seq();
        self.schedule_reserved(time, seq, event);
    }

    /// Returns the next sequence number, for an event scheduled later with
    /// [`EventQueue::schedule_reserved`].
    ///
    /// # Panics
    /// If more than 2^40 numbers were taken in one run.
    pub fn reserve_seq(&mut self) -> u64 {
        assert!(self.next_seq < MAX_SEQ, "more than 2^40 events scheduled in one run");
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedules `event` at `time` with the sequence number `seq` from
    /// [`EventQueue::reserve_seq`]: among events at `time` it fires as if scheduled when `seq`
    /// was reserved.
    ///
    /// # Panics
    /// If `time` is before the current time: scheduling into the past is a simulator bug; or
    /// if more than 2^23 flow timers would be pending at once.
    pub fn schedule_reserved(&mut self, time: Time, seq: u64, event: Event) {
        assert!(time >= self.now, "event {event:?} scheduled at {time} before now {}", self.now);
        debug_assert!(seq < self.next_seq, "sequence number {seq} was never reserved");
        let code = match code_of(event) {
            Some(code) => code,
            None => self.put_apart(event),
        };
        let key = (u128::from(time.as_ns()) << 64) | (u128::from(seq) << EVENT_BITS) | u128::from(code);
        self.calendar.push(key);
    }

    /// Puts `event` in a slot; returns the slot, which is its code.
    fn put_apart(&mut self, event: Event) -> u32 {
        match self.free_slots.pop() {
            Some(s) => {
                self.slots[s as usize] = event;
                s
            }
            None => {
                assert!(self.slots.len() < HELD as usize, "more than 2^23 flow timers pending at once");
                self.slots.push(event);
                (self.slots.len() - 1) as u32
            }
        }
    }

    /// Returns the event a key holds, itself or in a slot.
    #[inline]
    fn event(&self, key: u128) -> Event {
        let code = (key & EVENT_MASK) as u32;
        event_of(code).unwrap_or_else(|| self.slots[code as usize])
    }

    /// Returns the earliest event, without removing it.
    #[inline]
    pub fn peek_event(&self) -> Option<Event> {
        self.calendar.peek().map(|key| self.event(key))
    }

    /// Returns the link of the earliest event if it is a link's transmission end or arrival
    /// (read from its key, without decoding the event): for reading ahead.
    #[inline]
    pub fn peek_link(&self) -> Option<LinkId> {
        let code = (self.calendar.peek()? & EVENT_MASK) as u32;
        (code >= HELD && (code - HELD) >> INDEX_BITS <= ARRIVAL).then_some(code & INDEX_MASK)
    }

    /// Returns the event `n` places after the earliest, if the calendar's current bucket (or
    /// step) holds it ([`Calendar::peek_nth`]): for reading ahead, never for deciding anything.
    #[inline]
    pub fn peek_event_nth(&self, n: usize) -> Option<Event> {
        self.calendar.peek_nth(n).map(|key| self.event(key))
    }

    /// Removes and returns the earliest event and advances the clock to its time.
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let key = self.calendar.pop()?;
        let code = (key & EVENT_MASK) as u32;
        let event = match event_of(code) {
            Some(event) => event,
            None => {
                self.free_slots.push(code);
                self.slots[code as usize]
            }
        };
        self.now = Time((key >> 64) as u64);
        self.current = ((key >> EVENT_BITS) as u64) & (MAX_SEQ - 1);
        self.popped += 1;
        Some((self.now, event))
    }

    /// Returns the time of the earliest pending event.
    pub fn peek_time(&self) -> Option<Time> {
        self.calendar.peek().map(|key| Time((key >> 64) as u64))
    }

    /// Returns the number of pending events.
    pub fn len(&self) -> usize {
        self.calendar.len()
    }

    /// Returns whether no event is pending.
    pub fn is_empty(&self) -> bool {
        self.calendar.is_empty()
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

    proptest::proptest! {
        /// Interleaved schedules and pops of events held in the key and in slots (recycled)
        /// pop exactly in (time, scheduling order), each the event scheduled, as a sorted
        /// reference does.
        #[test]
        fn pops_as_a_sorted_reference(ops in proptest::collection::vec(proptest::option::of((0u64..50, 0u8..4)), 1..300)) {
            let mut q = EventQueue::new();
            let mut reference = std::collections::BTreeMap::new();
            let mut seq = 0u32;
            for op in ops {
                match op {
                    Some((delay, kind)) => {
                        let t = Time(q.now().0 + delay);
                        let event = match kind {
                            0 => Event::TxDone(seq),
                            1 => Event::Arrival(seq + INDEX_MASK), // past the key's room from the second on
                            2 => Event::Flow(seq, FlowTimer::Rto(seq)),
                            _ => Event::Sample,
                        };
                        q.schedule(t, event);
                        reference.insert((t.0, seq), event);
                        seq += 1;
                    }
                    None => {
                        let expected = reference.pop_first().map(|((t, _), e)| (Time(t), e));
                        proptest::prop_assert_eq!(q.peek_event(), expected.map(|(_, e)| e));
                        proptest::prop_assert_eq!(q.pop(), expected);
                    }
                }
                proptest::prop_assert_eq!(q.len(), reference.len());
            }
            while let Some(((t, _), e)) = reference.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((Time(t), e)));
            }
            proptest::prop_assert!(q.is_empty());
        }
    }

    /// Every kind of event a key holds itself comes back as it went in, up to the largest
    /// index that fits; a larger index and a flow's timer wait in a slot.
    #[test]
    fn events_held_in_the_key_come_back_whole() {
        let top = INDEX_MASK;
        for event in [
            Event::TxDone(0),
            Event::TxDone(top),
            Event::Arrival(7),
            Event::Arrival(top),
            Event::HostDeparture(top),
            Event::QdiscTimer(3),
            Event::Sample,
            Event::WarmupEnd,
        ] {
            let code = code_of(event).expect("held in the key");
            assert!((HELD..1 << EVENT_BITS).contains(&code), "{event:?}: code {code:#x}");
            assert_eq!(event_of(code), Some(event));
        }
        for event in [
            Event::TxDone(top + 1),
            Event::Arrival(u32::MAX),
            Event::Flow(0, FlowTimer::Start),
            Event::Flow(9, FlowTimer::Rto(5)),
        ] {
            assert_eq!(code_of(event), None, "{event:?}");
        }
        let mut q = EventQueue::new();
        q.schedule(Time(1), Event::Arrival(top + 1));
        q.schedule(Time(1), Event::Flow(4, FlowTimer::DelayedAck(2)));
        q.schedule(Time(1), Event::Arrival(top));
        assert_eq!(q.slots.len(), 2, "the two that do not fit the key wait in slots");
        assert_eq!(q.peek_event(), Some(Event::Arrival(top + 1)));
        let popped: Vec<_> = std::iter::from_fn(|| q.pop()).map(|(_, e)| e).collect();
        assert_eq!(popped, [Event::Arrival(top + 1), Event::Flow(4, FlowTimer::DelayedAck(2)), Event::Arrival(top)]);
        assert_eq!(q.free_slots.len(), 2, "both slots recycled");
    }

    #[test]
    fn a_reserved_number_keeps_its_place_among_equal_times() {
        let mut q = EventQueue::new();
        let early = q.reserve_seq();
        q.schedule(Time(7), Event::TxDone(1));
        q.schedule_reserved(Time(7), early, Event::Arrival(2));
        assert_eq!(q.pop(), Some((Time(7), Event::Arrival(2))));
        assert_eq!(q.pop(), Some((Time(7), Event::TxDone(1))));
    }

    #[test]
    fn the_current_sequence_number_is_the_popped_events() {
        let mut q = EventQueue::new();
        let early = q.reserve_seq();
        q.schedule(Time(u64::MAX >> 1), Event::TxDone(1));
        let late = q.reserve_seq();
        q.schedule_reserved(Time(u64::MAX >> 1), late, Event::Arrival(3));
        q.schedule_reserved(Time(5), early, Event::Arrival(2));
        q.pop();
        assert_eq!((q.now(), q.current_seq()), (Time(5), early));
        q.pop();
        assert_eq!(q.current_seq(), early + 1);
        q.pop();
        assert_eq!((q.now(), q.current_seq()), (Time(u64::MAX >> 1), late));
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
