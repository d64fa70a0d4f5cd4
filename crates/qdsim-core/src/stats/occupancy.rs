//! Time-weighted distribution of a small count (e.g. transfers in progress): how long the
//! count spent at each value, exactly (ns), from a start instant.
//!
//! Processor sharing predicts the number of flows in progress to be geometric,
//! `P(n) = (1 − ρ)ρⁿ` (Augé & Roberts 2006, §III-B): checking that needs the whole
//! distribution, not only the mean that [`QueueArea`](super::QueueArea) keeps of a queue. Memory
//! is one `u64` per value reached.

use crate::time::Time;

/// How long a count spent at each value since a start instant.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Occupancy {
    n: usize,
    last: Time,
    /// `time_ns[k]`: ns spent at count `k` between the start and `last`.
    time_ns: Vec<u64>,
    max: usize,
}

impl Occupancy {
    /// Sets the count to `n` from `now` on.
    pub fn set(&mut self, now: Time, n: usize) {
        self.close(now);
        self.n = n;
        self.max = self.max.max(n);
    }

    /// Returns the current count.
    pub fn value(&self) -> usize {
        self.n
    }

    /// Restarts at `now`, keeping the current count (the start of the window).
    pub fn restart(&mut self, now: Time) {
        self.time_ns.clear();
        self.last = now;
        self.max = self.n;
    }

    /// Returns the largest count since the last restart.
    pub fn max(&self) -> usize {
        self.max
    }

    /// Returns the ns spent at each count from the start until `now`.
    pub fn time_at(&self, now: Time) -> Vec<u64> {
        let mut o = self.clone();
        o.close(now);
        o.time_ns
    }

    /// Charges the time since the last change to the current count.
    fn close(&mut self, now: Time) {
        if self.time_ns.len() <= self.n {
            self.time_ns.resize(self.n + 1, 0);
        }
        self.time_ns[self.n] += now.saturating_since(self.last).as_ns();
        self.last = self.last.max(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_each_span_to_the_count_it_had() {
        let mut o = Occupancy::default();
        o.set(Time(10), 2); // 0 during [0, 10)
        o.set(Time(25), 1); // 2 during [10, 25)
        assert_eq!(o.time_at(Time(30)), vec![10, 5, 15]);
        assert_eq!(o.max(), 2);
        assert_eq!(o.value(), 1);
    }

    #[test]
    fn restart_forgets_the_past_but_keeps_the_count() {
        let mut o = Occupancy::default();
        o.set(Time(0), 3);
        o.restart(Time(100));
        o.set(Time(150), 0);
        assert_eq!(o.time_at(Time(160)), vec![10, 0, 0, 50]);
        assert_eq!(o.max(), 3);
    }
}
