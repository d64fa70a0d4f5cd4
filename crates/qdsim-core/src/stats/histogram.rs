//! A log-linear histogram of non-negative integers (nanoseconds), for delay percentiles.
//!
//! Values below 2^SUB_BITS are stored exactly; above, each power-of-two range is split into
//! 2^SUB_BITS equal buckets, so any reported quantile is within 2^-SUB_BITS (< 0.8 %) of a
//! recorded value — the HdrHistogram idea. The 7424 buckets (29 KiB of counts in all) are
//! kept in chunks of 32, allocated when first hit: every switch port and host NIC keeps a
//! histogram, and a run with 10⁴ hosts would otherwise spend gigabytes on buckets it never
//! touches, while a real one touches a handful. The chunks hit sit side by side in one
//! vector, in bucket order, found through a byte per chunk kept inline: a sample costs one
//! look into that vector, not a table of pointers then the chunk it points to — two cache
//! misses per packet at 10⁴ flows, where every port is cold. The mean is exact (kept as a sum).
//!
//! A count is 32 bits, a chunk of 32 counts two cache lines rather than four: a
//! port's waits land on dozens of buckets, and at 100 flows the histograms of 400 ports were
//! a second-level cache's worth of lines, 7 % of a run's time. A count that would pass 2^32
//! (billions of samples in one bucket, an hour and more of a 10-Gb/s link) carries into a
//! 64-bit count kept apart, so every count stays exact.

const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;
/// Groups of `SUB` buckets: one for the exact values below `SUB`, one per power of two above.
const GROUPS: usize = 64 - SUB_BITS as usize + 1;
const BUCKETS: usize = GROUPS * SUB as usize;
/// Buckets in a chunk, the unit of allocation.
const CHUNK: usize = 32;
/// Chunks over all buckets: 232, so a byte numbers each one's place.
const CHUNKS: usize = BUCKETS / CHUNK;
const _: () = assert!(BUCKETS % CHUNK == 0 && CHUNKS < 256);

/// One chunk's bucket counts, each below 2^32 (the multiples of 2^32 carried apart).
type Chunk = [u32; CHUNK];

/// Histogram of `u64` samples with exact count, sum, min and max.
///
/// Laid out in the order written (`repr(C)`): what every sample touches first, then the
/// chunks' places, which only a sample above 0 reads.
#[derive(Clone)]
#[repr(C)]
pub struct Histogram {
    n: u64,
    /// Samples of 0, counted apart: most packets cross an idle port without waiting, and
    /// counting them here touches no chunk.
    zeros: u64,
    max: u64,
    sum: u128,
    /// The chunks hit, in chunk order.
    chunks: Vec<Chunk>,
    /// Per chunk, 1 + its place in `chunks` once it has been hit, else 0.
    place: [u8; CHUNKS],
    /// The buckets whose count passed `u32::MAX`, each with the multiples of 2^32 carried out
    /// of its chunk (a bucket's count is these times 2^32 plus its chunk's count); empty in any
    /// run short of billions of samples in one bucket.
    carries: Vec<(u32, u64)>,
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
        Histogram { place: [0; CHUNKS], chunks: Vec::new(), zeros: 0, n: 0, sum: 0, max: 0, carries: Vec::new() }
    }

    /// Records one sample.
    pub fn record(&mut self, v: u64) {
        if v == 0 {
            self.n += 1;
            self.zeros += 1;
            return;
        }
        self.record_in(bucket_of(v), v);
    }

    /// Returns the bucket of a sample `v` above 0, for [`Histogram::record_in`] and the
    /// prefetches: found once for all three.
    #[inline]
    pub(crate) fn bucket(v: u64) -> u32 {
        debug_assert!(v > 0);
        bucket_of(v) as u32
    }

    /// Records `v`, above 0, whose bucket is `b` ([`Histogram::bucket`]).
    #[inline]
    pub(crate) fn record_in(&mut self, b: usize, v: u64) {
        debug_assert!(v > 0 && b == bucket_of(v));
        self.n += 1;
        let c = b / CHUNK;
        let at = match self.place[c] {
            0 => self.add_chunk(c),
            place => place as usize - 1,
        };
        let count = &mut self.chunks[at][b % CHUNK];
        match count.checked_add(1) {
            Some(c) => *count = c,
            None => {
                *count = 0;
                self.carry(b);
            }
        }
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// Asks for the cache lines that recording a sample of bucket `b` reads first: the
    /// histogram's header and the byte placing the bucket's chunk. Nothing changes
    /// ([`crate::hint`]).
    #[inline]
    pub(crate) fn prefetch_place(&self, b: usize) {
        crate::hint::prefetch(&self.n);
        crate::hint::prefetch(&self.place[b / CHUNK]);
    }

    /// Asks for the cache line of bucket `b`'s count, if its chunk was hit before; reads the
    /// chunk's place ([`Histogram::prefetch_place`] asks for it).
    #[inline]
    pub(crate) fn prefetch_count(&self, b: usize) {
        if let Some(at) = (self.place[b / CHUNK] as usize).checked_sub(1) {
            crate::hint::prefetch(&self.chunks[at][b % CHUNK]);
        }
    }

    /// Records `k` samples of 0.
    pub fn record_zeros(&mut self, k: u64) {
        self.n += k;
        self.zeros += k;
    }

    /// Makes room for chunk `c`, hit for the first time; returns its place.
    #[cold]
    fn add_chunk(&mut self, c: usize) -> usize {
        let at = self.place[..c].iter().filter(|&&p| p > 0).count();
        // Grow by a quarter: a vector's usual doubling would leave up to half of a port's
        // histogram empty, and growing by one would copy it all at each of its few dozen
        // first hits.
        if self.chunks.len() == self.chunks.capacity() {
            self.chunks.reserve_exact((self.chunks.len() / 4).max(2));
        }
        self.chunks.insert(at, [0; CHUNK]);
        for place in self.place[c + 1..].iter_mut().filter(|p| **p > 0) {
            *place += 1;
        }
        self.place[c] = at as u8 + 1;
        at
    }

    /// Carries 2^32 samples of bucket `b` out of its chunk's count, which wrapped to 0.
    #[cold]
    fn carry(&mut self, b: usize) {
        match self.carries.iter_mut().find(|(bucket, _)| *bucket as usize == b) {
            Some((_, carried)) => *carried += 1,
            None => self.carries.push((b as u32, 1)),
        }
    }

    /// Returns bucket `b`'s count, whose chunk holds `low` for it.
    fn count_of(&self, b: usize, low: u32) -> u64 {
        let carried = self.carries.iter().find(|(bucket, _)| *bucket as usize == b).map_or(0, |&(_, c)| c);
        (carried << 32) + u64::from(low)
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        if self.n > 0 {
            // Keep the chunks: the same ones are likely to be hit again.
            self.chunks.iter_mut().for_each(|chunk| chunk.fill(0));
        }
        self.carries.clear();
        self.zeros = 0;
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

    /// Returns the indexes of the chunks present, in order (the order of `chunks`).
    fn present_chunks(&self) -> impl Iterator<Item = usize> + '_ {
        (0..CHUNKS).filter(|&c| self.place[c] > 0)
    }

    /// Returns the `q`-quantile (0 ≤ q ≤ 1): the lower edge of the bucket holding the
    /// sample of rank ⌈q·n⌉ (clamped to the maximum), or `None` without samples.
    pub fn quantile(&self, q: f64) -> Option<u64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).max(1);
        let mut seen = self.zeros;
        if seen >= rank {
            return Some(0);
        }
        for (c, chunk) in self.present_chunks().zip(&self.chunks) {
            for (offset, &low) in chunk.iter().enumerate() {
                seen += self.count_of(c * CHUNK + offset, low);
                if seen >= rank {
                    return Some(bucket_low(c * CHUNK + offset).min(self.max));
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
        let mut values: Vec<u64> =
            (0..64).flat_map(|shift| [1u64 << shift, (1u64 << shift) + 1, u64::MAX >> (63 - shift)]).collect();
        values.sort_unstable();
        let mut last = 0;
        for v in values {
            let b = bucket_of(v);
            assert!(bucket_low(b) <= v && b >= last, "{v}: bucket {b} after {last}");
            last = b;
        }
        assert!(bucket_of(u64::MAX) < BUCKETS);
    }

    #[test]
    fn only_the_chunks_hit_are_allocated_and_clear_keeps_them() {
        let mut h = Histogram::new();
        // Hit out of order, so that chunks are inserted before others.
        for v in [2_000_000, 1_000_000, 5, 1_000_001, 600_000] {
            h.record(v);
        }
        assert_eq!(h.chunks.len(), 4, "0..32, two quarters of [2^19, 2^20) and one of [2^20, 2^21)");
        assert_eq!(
            h.present_chunks().map(|c| h.chunks[h.place[c] as usize - 1].iter().sum::<u32>()).collect::<Vec<_>>(),
            [1, 1, 2, 1]
        );
        assert_eq!(h.quantile(0.2), Some(5));
        assert_eq!(h.quantile(0.4), Some(bucket_low(bucket_of(600_000))));
        assert_eq!(h.quantile(0.8), Some(bucket_low(bucket_of(1_000_001))));
        assert_eq!(h.quantile(1.0), Some(bucket_low(bucket_of(2_000_000))));
        h.clear();
        assert_eq!(h.chunks.len(), 4);
        assert_eq!(h.quantile(0.5), None);
        h.record(7);
        assert_eq!((h.quantile(1.0), h.count()), (Some(7), 1));
    }

    proptest::proptest! {
        /// Quantiles as every bucket counted in one dense array would give them.
        #[test]
        fn quantiles_match_dense_buckets(values in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0u64), 0u64..1 << 40], 1..300), q in 0.0f64..=1.0) {
            let mut h = Histogram::new();
            let mut dense = vec![0u64; BUCKETS];
            for &v in &values {
                h.record(v);
                dense[bucket_of(v)] += 1;
            }
            let rank = ((q * values.len() as f64).ceil() as u64).max(1);
            let mut seen = 0;
            let b = dense.iter().position(|&c| { seen += c; seen >= rank }).unwrap();
            let max = *values.iter().max().unwrap();
            proptest::prop_assert_eq!(h.quantile(q), Some(bucket_low(b).min(max)));
            proptest::prop_assert_eq!(h.count(), values.len() as u64);
        }
    }

    #[test]
    fn zeros_count_in_bucket_zero_without_a_chunk() {
        let mut h = Histogram::new();
        for v in [0, 0, 0, 9] {
            h.record(v);
        }
        assert_eq!(h.chunks.len(), 1, "only the 9 has a chunk");
        assert_eq!((h.quantile(0.75), h.quantile(0.76), h.count(), h.mean()), (Some(0), Some(9), 4, Some(2.25)));
        h.clear();
        h.record(5);
        assert_eq!(h.quantile(0.0), Some(5), "clear forgets the zeros");
    }

    #[test]
    fn a_count_past_32_bits_carries_and_stays_exact() {
        let mut h = Histogram::new();
        h.record(1_000); // bucket A
        h.record(9_000); // bucket B, above A
        let (a, b) = (bucket_of(1_000), bucket_of(9_000));
        // As if bucket A had taken u32::MAX samples already (the counts are what a quantile
        // reads; `n` and the sum follow them).
        let at = h.place[a / CHUNK] as usize - 1;
        h.chunks[at][a % CHUNK] = u32::MAX;
        h.n += u64::from(u32::MAX) - 1;
        for _ in 0..3 {
            h.record(1_000);
        }
        assert_eq!(h.count_of(a, h.chunks[at][a % CHUNK]), (1 << 32) + 2, "u32::MAX + 3 samples");
        assert_eq!(h.carries, vec![(a as u32, 1)]);
        let n = h.count();
        assert_eq!(n, (1 << 32) + 3);
        // Every sample but the last (bucket B) lies in bucket A: rank n - 1 is still A's.
        assert_eq!(h.quantile((n - 1) as f64 / n as f64), Some(bucket_low(a)));
        assert_eq!(h.quantile(1.0), Some(bucket_low(b)));
        h.clear();
        assert!(h.carries.is_empty());
        h.record(1_000);
        assert_eq!(h.quantile(1.0), Some(bucket_low(a)));
    }

    #[test]
    fn empty_histogram_has_no_quantiles() {
        assert_eq!(Histogram::new().quantile(0.5), None);
        assert_eq!(Histogram::new().mean(), None);
    }
}
