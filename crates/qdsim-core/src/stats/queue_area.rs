//! A queue's time-weighted length, in packets and bytes, from the instants its packets enter
//! and leave it.
//!
//! The area under a queue's length is the sum of the times its packets spend in it (the
//! identity behind Little's law), exactly: each packet adds 1 to the length from the instant
//! it is offered until the instant it leaves, sent or dropped. So the area over a window from
//! `start` to `now` is the sum of the leaving instants, plus `now` for each packet still
//! queued, less the sum of the entering instants (`start` for the packets queued as the window
//! opens); the bytes' area likewise, each instant weighted by the packet's size. Two additions
//! a packet in and two out, in integers: the same area, to the bit, as integrating the length
//! from change to change, which needed the qdisc's length after every call (a dispatch) and
//! a multiplication per change for each of the two.

use crate::time::Time;

/// The sums of entering and leaving instants of a queue's packets in the window, and the
/// longest the queue was in it (packets).
#[derive(Debug, Clone, Default)]
pub struct QueueArea {
    /// Σ entering instants (ns), and Σ size × entering instant (byte·ns).
    entered: [u128; 2],
    /// Σ leaving instants (ns), and Σ size × leaving instant (byte·ns).
    left: [u128; 2],
    /// The window's start.
    start: Time,
    /// The queue's longest length (packets) in the window.
    max_pkts: u64,
}

impl QueueArea {
    /// A packet of `bytes` enters the queue at `now`.
    #[inline]
    pub fn enter(&mut self, now: Time, bytes: u32) {
        let t = u128::from(now.as_ns());
        self.entered[0] += t;
        self.entered[1] += t * u128::from(bytes);
    }

    /// A packet of `bytes` leaves the queue at `now`: sent, or dropped.
    #[inline]
    pub fn leave(&mut self, now: Time, bytes: u32) {
        let t = u128::from(now.as_ns());
        self.left[0] += t;
        self.left[1] += t * u128::from(bytes);
    }

    /// Notes that the queue holds `pkts` packets (after a packet entered).
    #[inline]
    pub fn note_len(&mut self, pkts: u64) {
        self.max_pkts = self.max_pkts.max(pkts);
    }

    /// Starts the window at `now`, with `queued` = `[packets, bytes]` in the queue: they count
    /// as entering now.
    pub fn restart(&mut self, now: Time, queued: [u64; 2]) {
        let t = u128::from(now.as_ns());
        self.entered = [t * u128::from(queued[0]), t * u128::from(queued[1])];
        self.left = [0; 2];
        self.start = now;
        self.max_pkts = queued[0];
    }

    /// Returns the mean length `[packets, bytes]` over the window up to `now`, with `queued`
    /// in the queue then (the current length for an empty window).
    pub fn mean(&self, now: Time, queued: [u64; 2]) -> [f64; 2] {
        let span = (now - self.start).as_ns();
        if span == 0 {
            return queued.map(|v| v as f64);
        }
        let t = u128::from(now.as_ns());
        std::array::from_fn(|i| (self.left[i] + t * u128::from(queued[i]) - self.entered[i]) as f64 / span as f64)
    }

    /// Returns the longest the queue was in the window (packets).
    pub fn max_pkts(&self) -> u64 {
        self.max_pkts
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_area_is_the_packets_times_in_the_queue() {
        let mut q = QueueArea::default();
        q.enter(Time(0), 100); // in 0..40
        q.enter(Time(10), 300); // in 10..20
        q.leave(Time(20), 300);
        q.note_len(2);
        q.leave(Time(40), 100);
        // Packets: 1 for 10, 2 for 10, 1 for 20, then 0 for 40: area 50 over 80 ns.
        // Bytes: 100 × 40 + 300 × 10 = 7000.
        assert_eq!(q.mean(Time(80), [0, 0]), [50.0 / 80.0, 7000.0 / 80.0]);
        assert_eq!(q.max_pkts(), 2);
    }

    #[test]
    fn a_packet_still_queued_counts_up_to_now() {
        let mut q = QueueArea::default();
        q.enter(Time(30), 500);
        assert_eq!(q.mean(Time(50), [1, 500]), [20.0 / 50.0, 10_000.0 / 50.0]);
    }

    #[test]
    fn a_restart_counts_the_queued_packets_from_then() {
        let mut q = QueueArea::default();
        q.enter(Time(0), 100);
        q.enter(Time(0), 100);
        q.note_len(2);
        q.leave(Time(5), 100);
        q.restart(Time(10), [1, 100]);
        assert_eq!(q.mean(Time(10), [1, 100]), [1.0, 100.0], "an empty window's mean is the length");
        q.leave(Time(30), 100);
        assert_eq!(q.mean(Time(40), [0, 0]), [20.0 / 30.0, 2000.0 / 30.0]);
        assert_eq!(q.max_pkts(), 1, "the window's longest, not the run's");
    }

    proptest! {
        /// Against the length integrated from change to change: any order of entries and
        /// exits (a queue of packets of several sizes, some leaving at once), the same means
        /// to the bit.
        #[test]
        fn the_area_is_the_integral_of_the_length(
            ops in proptest::collection::vec((0u64..50, any::<bool>(), 40u32..1500), 1..200),
            restart_at in 0usize..200,
        ) {
            let mut q = QueueArea::default();
            let (mut now, mut queue, mut last, mut area, mut start) = (0u64, Vec::<u32>::new(), 0u64, [0u128; 2], 0u64);
            let length = |queue: &[u32]| [queue.len() as u64, queue.iter().map(|&b| u64::from(b)).sum()];
            for (i, &(dt, enter, bytes)) in ops.iter().enumerate() {
                now += dt;
                let len = length(&queue);
                for k in 0..2 {
                    area[k] += u128::from(len[k]) * u128::from(now - last);
                }
                last = now;
                if i == restart_at {
                    q.restart(Time(now), len);
                    (area, start) = ([0; 2], now);
                }
                if enter || queue.is_empty() {
                    q.enter(Time(now), bytes);
                    queue.push(bytes);
                    q.note_len(queue.len() as u64);
                } else {
                    let b = queue.remove(bytes as usize % queue.len());
                    q.leave(Time(now), b);
                }
            }
            let end = now + 7;
            let len = length(&queue);
            let expected: [f64; 2] = std::array::from_fn(|k| (area[k] + u128::from(len[k]) * u128::from(end - last)) as f64 / (end - start) as f64);
            prop_assert_eq!(q.mean(Time(end), len), expected);
        }
    }
}
