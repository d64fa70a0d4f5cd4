//! Time-weighted mean of a piecewise-constant quantity (e.g. queue length).

use crate::time::Time;

/// Integrates a value over time from a start instant, exactly (in u128).
#[derive(Debug, Clone, Default)]
pub struct TimeWeighted {
    value: u64,
    last: Time,
    start: Time,
    area: u128,
    max: u64,
}

impl TimeWeighted {
    /// Sets the value to `value` from `now` on.
    pub fn set(&mut self, now: Time, value: u64) {
        self.blip(now, value);
        self.value = value;
    }

    /// Notes that the value rose to `peak` and fell back at `now`, the same instant: as
    /// `set(now, peak)` then `set(now, value)`, which add nothing to the area.
    pub fn blip(&mut self, now: Time, peak: u64) {
        self.area += self.value as u128 * (now - self.last).as_ns() as u128;
        self.last = now;
        self.max = self.max.max(peak);
    }

    /// Restarts the integration at `now`, keeping the current value (start of the window).
    pub fn restart(&mut self, now: Time) {
        self.area = 0;
        self.last = now;
        self.start = now;
        self.max = self.value;
    }

    /// Returns the current value.
    pub fn value(&self) -> u64 {
        self.value
    }

    /// Returns the largest value since the last restart.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Returns the mean from the start up to `now` (0 for an empty span).
    pub fn mean(&self, now: Time) -> f64 {
        let span = (now - self.start).as_ns();
        if span == 0 {
            return self.value as f64;
        }
        let area = self.area + self.value as u128 * (now - self.last).as_ns() as u128;
        area as f64 / span as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_weights_values_by_duration() {
        let mut tw = TimeWeighted::default();
        tw.set(Time(0), 10); // 10 for 1 s
        tw.set(Time(1_000), 0); // 0 for 3 s
        assert_eq!(tw.mean(Time(4_000)), 2.5);
        assert_eq!(tw.max(), 10);
    }

    #[test]
    fn a_blip_is_two_sets_at_one_instant() {
        let (mut a, mut b) = (TimeWeighted::default(), TimeWeighted::default());
        for tw in [&mut a, &mut b] {
            tw.set(Time(0), 3);
        }
        a.set(Time(40), 9);
        a.set(Time(40), 3);
        b.blip(Time(40), 9);
        assert_eq!((a.mean(Time(100)), a.max(), a.value()), (b.mean(Time(100)), b.max(), b.value()));
        assert_eq!((b.mean(Time(100)), b.max()), (3.0, 9));
    }

    #[test]
    fn restart_forgets_the_past_but_keeps_the_value() {
        let mut tw = TimeWeighted::default();
        tw.set(Time(0), 100);
        tw.restart(Time(50));
        tw.set(Time(100), 0);
        assert_eq!(tw.mean(Time(150)), 50.0);
    }
}
