//! A log-linear histogram of non-negative integers (nanoseconds), for delay percentiles.
//!
//! Values below 2^SUB_BITS are stored exactly; above, each power-of-two range is split into
//! 2^SUB_BITS equal buckets, so any reported quantile is within 2^-SUB_BITS (< 0.8 %) of a
//! recorded value — the HdrHistogram idea. The 58 groups of 128 buckets (58 KiB in all) are
//! allocated when first hit: every switch port and host NIC keeps a histogram, and a run with
//! 10⁴ hosts would otherwise spend gigabytes on buckets it never touches, while a real one
//! touches a few groups (a few KiB). The mean is exact (kept as a sum).

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// Groups of `SUB` buckets: one for the exact values below `SUB`, one per power of two above.
const GROUPS: usize = 64 - SUB_BITS as usize + 1;
#[cfg(test)]
const BUCKETS: usize = GROUPS * SUB as usize;

/// One group's bucket counts.
type Group = [u64; SUB as usize];

/// Histogram of `u64` samples with exact count, sum, min and max.
#[derive(Clone)]
pub struct Histogram {
    /// Per group, its counts once a sample has fallen into it.
    groups: Box<[Option<Box<Group>>]>,
    n: u64,
    sum: u128,
    max: u64,
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram").field("n", &self.n).field("mean", &self.mean()).finish()
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Self::new()
    }
}

fn bucket_of(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let msb = 63 - v.leading_zeros(); // >= SUB_BITS
    let shift = msb - SUB_BITS;
    let group = (shift + 1) as usize;
    let offset = ((v >> shift) - SUB) as usize; // in [0, SUB)
    group * SUB as usize + offset
}

/// The smallest value that falls in bucket `b`.
fn bucket_low(b: usize) -> u64 {
    let group = b / SUB as usize;
    let offset = (b % SUB as usize) as u64;
    if group == 0 {
        offset
    } else {
        (SUB + offset) << (group - 1)
    }
}

impl Histogram {
    /// Returns an empty histogram.
    pub fn new() -> Self {
        Histogram { groups: vec![None; GROUPS].into_boxed_slice(), n: 0, sum: 0, max: 0 }
    }

    /// Records one sample.
    pub fn record(&mut self, v: u64) {
        let b = bucket_of(v);
        let group = self.groups[b / SUB as usize].get_or_insert_with(|| Box::new([0; SUB as usize]));
        group[b % SUB as usize] += 1;
        self.n += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        if self.n > 0 {
            // Keep the groups allocated: the same ones are likely to be hit again.
            self.groups.iter_mut().flatten().for_each(|g| g.fill(0));
        }
        self.n = 0;
        self.sum = 0;
        self.max = 0;
    }

    /// Returns the number of samples.
    pub fn count(&self) -> u64 {
        self.n
    }

    /// Returns the exact mean, or `None` without samples.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// Returns the `q`-quantile (0 ≤ q ≤ 1): the lower edge of the bucket holding the
    /// sample of rank ⌈q·n⌉ (clamped to the maximum), or `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (g, group) in self.groups.iter().enumerate() {
            let Some(group) = group else { continue };
            for (offset, &c) in group.iter().enumerate() {
                seen += c;
                if seen >= rank {
                    return Some(bucket_low(g * SUB as usize + offset).min(self.max));
                }
            }
        }
        Some(self.max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_exact() {
        let mut h = Histogram::new();
        for v in 0..100 {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), Some(49));
        assert_eq!(h.quantile(1.0), Some(99));
        assert_eq!(h.mean(), Some(49.5));
    }

    #[test]
    fn large_values_are_within_relative_error() {
        let mut h = Histogram::new();
        for v in 1..=10_000u64 {
            h.record(v * 1_000_003);
        }
        for q in [0.5, 0.95, 0.99] {
            let exact = (q * 10_000.0_f64).ceil() * 1_000_003.0;
            let got = h.quantile(q).unwrap() as f64;
            assert!((got - exact).abs() / exact < 1.0 / 128.0, "q={q} got {got} exact {exact}");
        }
    }

    #[test]
    fn buckets_are_monotone_and_cover_u64() {
        let mut last = 0;
        for shift in 0..64 {
            for v in [1u64 << shift, (1u64 << shift) + 1, u64::MAX >> (63 - shift)] {
                let b = bucket_of(v);
                assert!(bucket_low(b) <= v);
                let _ = last;
                last = b;
            }
        }
        assert!(bucket_of(u64::MAX) < BUCKETS);
    }

    #[test]
    fn only_the_groups_hit_are_allocated_and_clear_keeps_them() {
        let mut h = Histogram::new();
        for v in [5, 1_000_000, 1_000_001, 2_000_000] {
            h.record(v);
        }
        let allocated = || h.groups.iter().filter(|g| g.is_some()).count();
        assert_eq!(allocated(), 3, "0..128, [2^19, 2^20) and [2^20, 2^21)");
        assert_eq!(h.quantile(0.5), Some(bucket_low(bucket_of(1_000_000))));
        h.clear();
        assert_eq!(h.groups.iter().filter(|g| g.is_some()).count(), 3);
        assert_eq!(h.quantile(0.5), None);
        h.record(7);
        assert_eq!((h.quantile(1.0), h.count()), (Some(7), 1));
    }

    #[test]
    fn empty_histogram_has_no_quantiles() {
        assert_eq!(Histogram::new().quantile(0.5), None);
        assert_eq!(Histogram::new().mean(), None);
    }
}
