//! Time-weighted means of piecewise-constant quantities (e.g. a queue's length in packets
//! and in bytes).

use crate::time::Time;

/// Integrates `N` values that change at the same instants over time from a start instant,
/// exactly (in u128): a queue's length in packets and in bytes is one `TimeWeighted<2>`,
/// whose shared clock costs one subtraction a change instead of two.
#[derive(Debug, Clone)]
pub struct TimeWeighted<const N: usize> {
    value: [u64; N],
    last: Time,
    start: Time,
    area: [u128; N],
    max: [u64; N],
}

impl<const N: usize> Default for TimeWeighted<N> {
    fn default() -> Self {
        TimeWeighted { value: [0; N], last: Time::ZERO, start: Time::ZERO, area: [0; N], max: [0; N] }
    }
}

impl<const N: usize> TimeWeighted<N> {
    /// Sets the values to `value` from `now` on.
    #[inline]
    pub fn set(&mut self, now: Time, value: [u64; N]) {
        self.blip(now, value);
        self.value = value;
    }

    /// Notes that the values rose to `peak` and fell back at `now`, the same instant: as
    /// `set(now, peak)` then `set(now, value)`, which add nothing to the area.
    #[inline]
    pub fn blip(&mut self, now: Time, peak: [u64; N]) {
        let dt = (now - self.last).as_ns() as u128;
        for ((area, max), (&value, &peak)) in self.area.iter_mut().zip(&mut self.max).zip(self.value.iter().zip(&peak))
        {
            *area += value as u128 * dt;
            *max = (*max).max(peak);
        }
        self.last = now;
    }

    /// Restarts the integration at `now`, keeping the current values (start of the window).
    pub fn restart(&mut self, now: Time) {
        self.area = [0; N];
        self.last = now;
        self.start = now;
        self.max = self.value;
    }

    /// Returns the current values.
    pub fn value(&self) -> [u64; N] {
        self.value
    }

    /// Returns the largest values since the last restart.
    pub fn max(&self) -> [u64; N] {
        self.max
    }

    /// Returns the means from the start up to `now` (the current values for an empty span).
    pub fn mean(&self, now: Time) -> [f64; N] {
        let span = (now - self.start).as_ns();
        if span == 0 {
            return self.value.map(|v| v as f64);
        }
        let dt = (now - self.last).as_ns() as u128;
        std::array::from_fn(|i| (self.area[i] + self.value[i] as u128 * dt) as f64 / span as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_weights_values_by_duration() {
        let mut tw = TimeWeighted::default();
        tw.set(Time(0), [10]); // 10 for 1 s
        tw.set(Time(1_000), [0]); // 0 for 3 s
        assert_eq!(tw.mean(Time(4_000)), [2.5]);
        assert_eq!(tw.max(), [10]);
    }

    #[test]
    fn values_changing_together_are_each_integrated() {
        let mut tw = TimeWeighted::<2>::default();
        tw.set(Time(0), [2, 3000]); // for 10 ns
        tw.set(Time(10), [1, 1000]); // for 30 ns
        assert_eq!(tw.mean(Time(40)), [(2.0 * 10.0 + 30.0) / 40.0, (3000.0 * 10.0 + 1000.0 * 30.0) / 40.0]);
        assert_eq!((tw.max(), tw.value()), ([2, 3000], [1, 1000]));
    }

    #[test]
    fn a_blip_is_two_sets_at_one_instant() {
        let (mut a, mut b) = (TimeWeighted::default(), TimeWeighted::default());
        for tw in [&mut a, &mut b] {
            tw.set(Time(0), [3]);
        }
        a.set(Time(40), [9]);
        a.set(Time(40), [3]);
        b.blip(Time(40), [9]);
        assert_eq!((a.mean(Time(100)), a.max(), a.value()), (b.mean(Time(100)), b.max(), b.value()));
        assert_eq!((b.mean(Time(100)), b.max()), ([3.0], [9]));
    }

    #[test]
    fn restart_forgets_the_past_but_keeps_the_value() {
        let mut tw = TimeWeighted::default();
        tw.set(Time(0), [100]);
        tw.restart(Time(50));
        assert_eq!(tw.mean(Time(50)), [100.0], "an empty span's mean is the value");
        tw.set(Time(100), [0]);
        assert_eq!(tw.mean(Time(150)), [50.0]);
    }
}
