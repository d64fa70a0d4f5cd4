//! Simulated time and link rates as exact integers.
//!
//! [`Time`] is an instant and [`Duration`] a span, both in integer nanoseconds in a `u64`,
//! which covers about 584 years of simulated time: no run comes near it, so arithmetic
//! overflow is a bug and panics in debug builds. Rates are integer bit/s. There is no
//! floating-point clock anywhere in the core, so two runs of the same spec cannot drift
//! apart by rounding.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds per second.
pub const NS_PER_SEC: u64 = 1_000_000_000;

/// A point in simulated time, in nanoseconds since the start of the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Time(pub u64);

/// A span of simulated time in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Duration(pub u64);

impl Time {
    /// The start of every run.
    pub const ZERO: Time = Time(0);
    /// A time later than any event (used as "never").
    pub const NEVER: Time = Time(u64::MAX);

    /// Returns the instant `ns` nanoseconds after the start.
    pub const fn from_ns(ns: u64) -> Time {
        Time(ns)
    }
    /// Returns the nanoseconds since the start.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Returns the seconds since the start as `f64` (for reporting only).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// Returns `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Duration {
        Duration(self.0.saturating_sub(earlier.0))
    }
}

impl Duration {
    /// The empty span.
    pub const ZERO: Duration = Duration(0);
    /// Returns a span of `ns` nanoseconds.
    pub const fn from_ns(ns: u64) -> Duration {
        Duration(ns)
    }
    /// Returns a span of `us` microseconds.
    pub const fn from_us(us: u64) -> Duration {
        Duration(us * 1_000)
    }
    /// Returns a span of `ms` milliseconds.
    pub const fn from_ms(ms: u64) -> Duration {
        Duration(ms * 1_000_000)
    }
    /// Returns a span of `s` seconds.
    pub const fn from_secs(s: u64) -> Duration {
        Duration(s * NS_PER_SEC)
    }
    /// Returns the span in nanoseconds.
    pub const fn as_ns(self) -> u64 {
        self.0
    }
    /// Returns the span in seconds as `f64` (for reporting and for control laws that are
    /// defined on real numbers, e.g. Cubic's `K`).
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_SEC as f64
    }
    /// Returns the span rounded to the nearest nanosecond from seconds (for control laws
    /// defined on real numbers). Negative or NaN inputs give zero.
    pub fn from_secs_f64(s: f64) -> Duration {
        if s.is_nan() || s <= 0.0 {
            Duration(0)
        } else {
            Duration((s * NS_PER_SEC as f64).round() as u64)
        }
    }
    /// Returns the span multiplied by `k`, saturating at the largest span.
    pub fn saturating_mul(self, k: u64) -> Duration {
        Duration(self.0.saturating_mul(k))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        Time(self.0 + d.0)
    }
}
impl AddAssign<Duration> for Time {
    fn add_assign(&mut self, d: Duration) {
        self.0 += d.0;
    }
}
impl Sub<Time> for Time {
    type Output = Duration;
    /// # Panics
    /// If `rhs` is later than `self` ("time went backwards").
    fn sub(self, rhs: Time) -> Duration {
        match self.0.checked_sub(rhs.0) {
            Some(d) => Duration(d),
            None => panic!("time went backwards: {} ns - {} ns", self.0, rhs.0),
        }
    }
}
impl Add for Duration {
    type Output = Duration;
    fn add(self, d: Duration) -> Duration {
        Duration(self.0 + d.0)
    }
}
impl Sub for Duration {
    type Output = Duration;
    fn sub(self, d: Duration) -> Duration {
        Duration(self.0 - d.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}

/// A transmission rate in bits per second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// Returns a rate of `bps` bits per second.
    pub const fn from_bps(bps: u64) -> Rate {
        Rate(bps)
    }
    /// Returns the rate in bit/s.
    pub const fn as_bps(self) -> u64 {
        self.0
    }
    /// Returns the time to serialise `bytes` bytes at this rate, rounded up to whole
    /// nanoseconds so that a link never sends faster than its rate.
    ///
    /// Computed exactly, `ceil(bytes * 8 * 1e9 / bps)`: in 64-bit integers when the product
    /// fits (any packet under 2.3 GB: one division instruction, where 128 bits take a library
    /// call on every transmission), else in 128.
    #[inline]
    pub fn tx_time(self, bytes: u32) -> Duration {
        match (bytes as u64).checked_mul(8 * NS_PER_SEC) {
            Some(num) => Duration(num.div_ceil(self.0)),
            None => Duration((bytes as u128 * 8 * NS_PER_SEC as u128).div_ceil(self.0 as u128) as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tx_time_is_exact_for_round_rates() {
        // 1500 B at 10 Mb/s = 12000 bit / 1e7 bit/s = 1.2 ms.
        assert_eq!(Rate::from_bps(10_000_000).tx_time(1500), Duration::from_us(1200));
        // 1000 B at 1 Gb/s = 8 us.
        assert_eq!(Rate::from_bps(1_000_000_000).tx_time(1000), Duration::from_us(8));
    }

    #[test]
    fn tx_time_is_exact_past_64_bits() {
        // 4 GiB: 3.4e19 bit-ns overflows 64 bits (ceil(34 359 738 360 000 000 000 / 10^12)).
        assert_eq!(Rate::from_bps(1_000_000_000_000).tx_time(u32::MAX), Duration(34_359_739));
        assert_eq!(Rate::from_bps(7).tx_time(u32::MAX), Duration(4_908_534_051_428_571_429));
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1 B at 3 bit/s = 8/3 s = 2.666..s -> rounded up to the next ns.
        assert_eq!(Rate::from_bps(3).tx_time(1), Duration(2_666_666_667));
    }

    #[test]
    #[should_panic(expected = "time went backwards")]
    fn subtracting_a_later_time_panics_with_both_times() {
        let _ = Time(5) - Time(6);
    }

    #[test]
    fn secs_f64_roundtrip() {
        assert_eq!(Duration::from_secs_f64(0.0125), Duration::from_us(12_500));
        assert_eq!(Duration::from_secs_f64(-1.0), Duration::ZERO);
        assert_eq!(Duration::from_secs_f64(f64::NAN), Duration::ZERO);
    }
}
