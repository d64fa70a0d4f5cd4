//! A calendar queue of `u128` keys whose high 64 bits are a time in ns: the event queue's
//! priority queue ([`EventQueue`](crate::event::EventQueue)).
//!
//! A binary heap of every pending event costs a pop about two comparisons per level of a
//! heap that holds the whole network's future — the flows' retransmission timers a second
//! ahead, every link's next arrival — and at 10⁴ flows more than fits a cache. Events are
//! mostly scheduled a little ahead of now and popped in time order, which a calendar (Brown,
//! "Calendar queues", CACM 1988) serves with a few keys at a time: time is cut into buckets
//! of `2^shift` ns; the *current* bucket's keys wait in a vector sorted from the last to the
//! first (a pop takes its end), the next `n - 1` buckets' in a wheel of unsorted vectors, and
//! keys beyond the wheel in a *far* heap. When the current bucket empties, the next occupied
//! one (a bitmap finds it) takes its place and is sorted — a handful of keys in a busy
//! 100-flow run, a few hundred at 10⁴ flows — and the far keys the wheel now reaches move onto
//! it. A run's buckets are as wide as its network's packet rate asks ([`shift_for`]), the
//! wheel always spanning the same 268 ms.
//!
//! A slot's vector starts with room for `KEPT` (16) keys (not growing 4, 8, 16 as a vector
//! does). When its bucket is served, the vector emptied then (the current bucket's before)
//! stays with the slot if it is no larger; a larger one waits among a few *spares* for the
//! next slot that fills past `KEPT`, which takes it instead of growing its own by doubling —
//! at 10³ flows busy slots had grown so six times a bucket, 2 % of a run's instructions. The
//! wheel's idle slots hold at most `buckets` × `KEPT` keys' room (4 MiB at the narrowest
//! width). The vectors of `KEPT` keys' room that spares displace wait too, for the slots
//! whose larger vector became a spare: at 100 flows a slot's vector was otherwise freed and
//! allocated again about once a bucket (1.5 % of a run in the allocator).
//!
//! A bucket of more than `SPLIT_ABOVE` (32) keys is not sorted whole when it becomes current:
//! its keys are first dealt onto a *rung* of up to 16 narrower steps by time (the second rung
//! of Tang et al.'s ladder queue, ACM TOMACS 2005), a step's keys sorted as it becomes
//! current. A bucket's sort grows with its keys' count, and so does the cost of a key
//! scheduled into the current bucket, which takes its place among the keys already sorted: at
//! 10⁴ flows a 16-µs bucket holds hundreds of keys and those places were 5 % of a run. Not
//! more steps: reading ahead sees only the current step's keys (`peek_nth`), and a step of a
//! few keys would leave the last events of each without theirs.
//!
//! Pops come out in exactly the order of the keys, as from one heap: every key of the current
//! vector is in a bucket (and step) at or before the current one, every key on the rung in a
//! later step of the current bucket, every key on the wheel in a later bucket, every far key
//! in a bucket beyond the wheel's end.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The span of the wheel: 2^28 ns ≈ 268 ms — most timers and arrivals of a run land on it;
/// retransmission timeouts of seconds wait in the far heap. A bucket width of `2^shift` ns
/// gets `2^(HORIZON_SHIFT - shift)` slots.
pub const HORIZON_SHIFT: u32 = 28;
/// The bucket widths a run's calendar may have, as shifts: 2^14 ns ≈ 16 µs to 2^18 ≈ 262 µs
/// ([`shift_for`]; the widths measured).
pub const SHIFTS: std::ops::RangeInclusive<u32> = 14..=18;

/// Returns the bucket width (a shift in [`SHIFTS`]) for a network that carries at most
/// `packets_per_s` packets a second on all its links together: the narrowest whose bucket
/// would hold `SPLIT_ABOVE` (32) keys (the most sorted whole) with every link busy, one event a
/// packet.
///
/// Why not one width for every run: the wheel's slots are memory every push and refill
/// touches — each idle slot keeps `KEPT` keys' room, 256 bytes — and its buckets are sorted
/// when served. A run of 100 flows on 10-Mb/s access links (5 Gb/s of links in all) keeps a
/// few hundred keys pending: over 2^14 slots of 16 µs, a few keys a bucket, and it ran 4–6 %
/// faster with buckets of 33–66 µs and a quarter of the slots (alternated CPU time, both
/// orders); with buckets of 131 µs (2^11 slots, their room half a megabyte instead of one, the
/// second-level cache's size) a further 4–6 % faster, and 262 µs the same, though each is
/// 0.5–0.8 % more instructions (more keys a bucket to sort). At 10⁴ flows (500 Gb/s of
/// links), whose 16-µs buckets hold hundreds of keys, 66-µs buckets ran 6 % slower
/// (docs/performance.md, "The calendar's width"). The order of events never depends on it.
pub fn shift_for(packets_per_s: f64) -> u32 {
    let width_ns = SPLIT_ABOVE as f64 * 1e9 / packets_per_s.max(1.0);
    let shift = width_ns.log2().ceil();
    (shift.max(*SHIFTS.start() as f64) as u32).min(*SHIFTS.end())
}

/// Keys' room a wheel slot keeps when it is emptied.
const KEPT: usize = 16;

/// Emptied vectors larger than [`KEPT`] kept for the wheel's busy slots (module doc).
const SPARES: usize = 16;

/// Keys a bucket may hold and still be sorted whole when it becomes current; a fuller one is
/// dealt onto the rung's steps first (module doc).
const SPLIT_ABOVE: usize = 32;

/// Keys a rung's step is cut to hold on average: a bucket of `n` keys gets the power of two
/// of steps nearest above `n / PER_STEP`, at most [`MAX_STEPS`].
const PER_STEP: usize = 8;

/// The most steps a rung has (one bit each in [`Rung::occupied`]; module doc: why not more).
const MAX_STEPS: u32 = 16;

/// The current bucket cut into steps of `2^shift` ns ([`Calendar`]'s module doc): the steps
/// after the current one hold their keys unsorted, found by a bitmap.
#[derive(Debug, Default)]
struct Rung {
    /// The width of a step, as a shift of ns.
    shift: u32,
    /// The time at which the current bucket, and its step 0, begins (ns).
    start: u64,
    /// The current step: its keys are in [`Calendar::now`].
    at: u32,
    /// One bit per step after the current one: whether it holds keys.
    occupied: u16,
    /// The keys of the steps after the current one, unsorted.
    steps: Vec<Vec<u128>>,
    /// Keys in `steps`.
    len: usize,
}

impl Rung {
    /// Returns whether the current bucket's later steps hold keys: the bucket was dealt onto
    /// the rung and not all of it is served. (Once they are all served, the current step's
    /// vector takes any key of the bucket, in its place.)
    #[inline]
    fn active(&self) -> bool {
        self.len > 0
    }

    /// Returns the step of `key` when the rung is active: its time's, 0 for a time before the
    /// bucket's start (a key scheduled into an earlier bucket, always first).
    #[inline]
    fn step_of(&self, key: u128) -> u32 {
        (((key >> 64) as u64).saturating_sub(self.start) >> self.shift) as u32
    }

    /// Adds `key`, of step `step` (after the current one).
    #[inline]
    fn put(&mut self, step: u32, key: u128) {
        self.steps[step as usize].push(key);
        self.occupied |= 1 << step;
        self.len += 1;
    }
}

/// A calendar queue of unique `u128` keys ordered as integers, whose bucket is `key >> 64 >>
/// shift` (module doc).
#[derive(Debug)]
pub struct Calendar {
    shift: u32,
    mask: u64,
    /// The current bucket's keys, or its current step's (and any scheduled into an earlier
    /// bucket or step since), sorted from the largest to the smallest.
    now: Vec<u128>,
    /// Buckets after the current one, by bucket number modulo their count.
    wheel: Vec<Vec<u128>>,
    /// One bit per wheel slot: whether it holds keys.
    occupied: Vec<u64>,
    /// Keys on the wheel.
    on_wheel: usize,
    /// Keys in buckets at or beyond `current + wheel.len()`.
    far: BinaryHeap<Reverse<u128>>,
    /// The current bucket's later steps, when it held more than [`SPLIT_ABOVE`] keys.
    rung: Rung,
    /// Emptied vectors of more than [`KEPT`] keys' room, at most [`SPARES`], for slots
    /// that outgrow [`KEPT`].
    spares: Vec<Vec<u128>>,
    /// Emptied vectors of [`KEPT`] keys' room or less, at most [`SPARES`], that spares
    /// displaced: for the slots whose larger vector became a spare.
    smalls: Vec<Vec<u128>>,
    /// The current bucket's number.
    current: u64,
}

impl Default for Calendar {
    fn default() -> Self {
        Calendar::with_shift(*SHIFTS.start())
    }
}

impl Calendar {
    /// Returns an empty calendar of buckets of `2^shift` ns spanning the horizon
    /// ([`HORIZON_SHIFT`]).
    pub fn with_shift(shift: u32) -> Self {
        Calendar::new(shift, 1 << (HORIZON_SHIFT - shift))
    }

    /// Returns an empty calendar of `buckets` (a power of two, at least 64) buckets of
    /// `2^shift` ns.
    pub fn new(shift: u32, buckets: usize) -> Self {
        assert!(buckets.is_power_of_two() && buckets >= 64, "buckets must be a power of two >= 64");
        Calendar {
            shift,
            mask: buckets as u64 - 1,
            now: Vec::new(),
            wheel: vec![Vec::new(); buckets],
            occupied: vec![0; buckets / 64],
            on_wheel: 0,
            far: BinaryHeap::new(),
            rung: Rung { steps: vec![Vec::new(); MAX_STEPS as usize], ..Rung::default() },
            spares: Vec::new(),
            smalls: Vec::new(),
            current: 0,
        }
    }

    #[inline]
    fn bucket(&self, key: u128) -> u64 {
        ((key >> 64) as u64) >> self.shift
    }

    /// Adds `key`.
    #[inline]
    pub fn push(&mut self, key: u128) {
        let b = self.bucket(key);
        if b <= self.current {
            self.put_current(key);
            return;
        }
        if b - self.current <= self.mask {
            self.put_on_wheel(b, key);
        } else {
            self.far.push(Reverse(key));
        }
        if self.now.is_empty() {
            self.refill();
        }
    }

    /// Puts `key`, of the current bucket or an earlier one, onto the rung's step if that is
    /// after the current one, else into the current vector.
    #[inline]
    fn put_current(&mut self, key: u128) {
        if self.rung.active() {
            let step = self.rung.step_of(key);
            if step > self.rung.at {
                self.rung.put(step, key);
                return;
            }
        }
        self.put_now(key);
    }

    /// Puts `key` into the current bucket's vector, in its place, found from the end: a key
    /// scheduled into the current bucket is mostly due soon (a host's answer, microseconds
    /// ahead), so few keys are smaller, and moving them one by one beat a binary search and
    /// `Vec::insert`'s `memmove` call (3 % of a 10⁴-flow run).
    #[inline]
    fn put_now(&mut self, key: u128) {
        let mut at = self.now.len();
        self.now.push(key);
        while at > 0 && self.now[at - 1] < key {
            self.now[at] = self.now[at - 1];
            at -= 1;
        }
        self.now[at] = key;
    }

    /// Puts `key`, of bucket `b` (on the wheel's span), into its slot.
    #[inline]
    fn put_on_wheel(&mut self, b: u64, key: u128) {
        let slot = (b & self.mask) as usize;
        let keys = &mut self.wheel[slot];
        if keys.len() == keys.capacity() {
            make_room(keys, &mut self.spares, &mut self.smalls);
        }
        keys.push(key);
        self.occupied[slot / 64] |= 1 << (slot % 64);
        self.on_wheel += 1;
    }

    /// Removes and returns the smallest key.
    #[inline]
    pub fn pop(&mut self) -> Option<u128> {
        let key = self.now.pop()?;
        if self.now.is_empty() {
            self.refill();
        }
        Some(key)
    }

    /// Returns the smallest key.
    #[inline]
    pub fn peek(&self) -> Option<u128> {
        self.now.last().copied()
    }

    /// Returns the key `n` places after the smallest (`peek` is `peek_nth(0)`), if it is in
    /// the current bucket, or its current step — the only keys kept in order; `None` past
    /// them.
    #[inline]
    pub fn peek_nth(&self, n: usize) -> Option<u128> {
        let len = self.now.len();
        (n < len).then(|| self.now[len - 1 - n])
    }

    /// Returns the number of keys.
    pub fn len(&self) -> usize {
        self.now.len() + self.rung.len + self.on_wheel + self.far.len()
    }

    /// Returns whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Makes the next occupied step or bucket current while the current one is empty: takes
    /// its vector, sorted (a full bucket's keys dealt onto the rung first), and moves onto the
    /// wheel the far keys a new bucket reaches.
    fn refill(&mut self) {
        while self.now.is_empty() {
            if self.rung.active() {
                self.next_step();
                return;
            }
            if self.on_wheel == 0 {
                let Some(&Reverse(k)) = self.far.peek() else { return };
                self.current = self.bucket(k);
            } else {
                self.current = self.next_occupied();
                let slot = (self.current & self.mask) as usize;
                self.occupied[slot / 64] &= !(1 << (slot % 64));
                self.on_wheel -= self.wheel[slot].len();
                // The slot's vector becomes the current one, and the current one (empty) the
                // slot's: no key is copied.
                std::mem::swap(&mut self.now, &mut self.wheel[slot]);
                if self.now.len() > SPLIT_ABOVE {
                    self.deal_onto_rung();
                } else {
                    sort_from_last(&mut self.now);
                }
                // A slot keeps a small vector for its next turn, not the largest it ever held
                // (each slot of a busy run's wheel would hold hundreds of keys' room): a
                // larger one is a spare for the next slot that fills.
                if self.wheel[slot].capacity() > KEPT {
                    let small = self.smalls.pop().unwrap_or_default();
                    let emptied = std::mem::replace(&mut self.wheel[slot], small);
                    if self.spares.len() < SPARES {
                        self.spares.push(emptied);
                    }
                }
            }
            while let Some(&Reverse(k)) = self.far.peek() {
                let b = self.bucket(k);
                if b - self.current > self.mask {
                    break;
                }
                self.far.pop();
                if b == self.current {
                    self.put_current(k);
                } else {
                    self.put_on_wheel(b, k);
                }
            }
        }
    }

    /// Deals the current bucket's keys, just taken into the current vector, onto the rung's
    /// steps, and makes the first occupied step current.
    #[inline(never)]
    fn deal_onto_rung(&mut self) {
        let steps = (self.now.len() / PER_STEP).next_power_of_two().min(MAX_STEPS as usize);
        let cut = steps.trailing_zeros().min(self.shift);
        let rung = &mut self.rung;
        rung.shift = self.shift - cut;
        rung.start = self.current << self.shift;
        for key in self.now.drain(..) {
            let step = rung.step_of(key);
            rung.put(step, key);
        }
        self.next_step();
    }

    /// Makes the rung's first occupied step current: its keys, sorted, become the current
    /// vector (empty now), which takes the step's place for its room.
    #[inline]
    fn next_step(&mut self) {
        let rung = &mut self.rung;
        let step = rung.occupied.trailing_zeros();
        rung.occupied &= !(1 << step);
        rung.at = step;
        std::mem::swap(&mut self.now, &mut rung.steps[step as usize]);
        rung.len -= self.now.len();
        sort_from_last(&mut self.now);
    }

    /// Returns the number of the first occupied bucket after the current one (the wheel
    /// holds a key).
    fn next_occupied(&self) -> u64 {
        let n = self.wheel.len();
        let start = ((self.current + 1) & self.mask) as usize;
        // Scan the bitmap word by word from `start`, wrapping once.
        let mut i = start;
        loop {
            let word = self.occupied[i / 64] >> (i % 64);
            if word != 0 {
                let slot = i + word.trailing_zeros() as usize;
                let ahead = (slot + n - start) % n;
                return self.current + 1 + ahead as u64;
            }
            i = (i / 64 + 1) * 64 % n;
        }
    }
}

/// Sorts `keys` from the largest to the smallest, the current vector's order (a pop takes
/// its end).
///
/// A bucket's keys come in the order they were scheduled, which is mostly their order in
/// time (a link's arrivals, a host's answers, each in time): a bucket of up to
/// [`SPLIT_ABOVE`] keys is sorted by insertion from the front, each key moved past the few
/// later ones before it, then turned around (0.9 % of the instructions of `vs_ns2.toml`'s
/// run less than the library's sort, which finds no run to keep in such an order). A larger
/// set — a rung's step of many keys at one time, an incast's — takes the library's sort, whose
/// cost does not grow with the square of the keys.
#[inline]
fn sort_from_last(keys: &mut [u128]) {
    if keys.len() > SPLIT_ABOVE {
        keys.sort_unstable_by(|a, b| b.cmp(a));
        return;
    }
    for i in 1..keys.len() {
        let key = keys[i];
        let mut at = i;
        while at > 0 && keys[at - 1] > key {
            keys[at] = keys[at - 1];
            at -= 1;
        }
        keys[at] = key;
    }
    keys.reverse();
}

/// Makes room in `keys`, a wheel slot's full vector: room for [`KEPT`] keys at once if it has
/// none (a small vector a spare displaced, else a new one: not growing by doubling from 4), a
/// spare with more room if it holds [`KEPT`] keys or more and there is one (its own vector
/// kept among the smalls); else nothing (the push doubles it).
#[cold]
#[inline(never)]
fn make_room(keys: &mut Vec<u128>, spares: &mut Vec<Vec<u128>>, smalls: &mut Vec<Vec<u128>>) {
    if keys.capacity() == 0 {
        match smalls.pop() {
            Some(small) => *keys = small,
            None => keys.reserve_exact(KEPT),
        }
    } else if keys.len() >= KEPT && spares.last().is_some_and(|s| s.capacity() > keys.len()) {
        let mut spare = spares.pop().expect("a spare, just looked at");
        spare.extend_from_slice(keys);
        let mut own = std::mem::replace(keys, spare);
        if own.capacity() <= KEPT && smalls.len() < SPARES {
            own.clear();
            smalls.push(own);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::test_runner::TestCaseError;

    fn key(t: u64, id: u64) -> u128 {
        (u128::from(t) << 64) | u128::from(id)
    }

    /// Runs `ops` (a push `delay * multiplier[scale] / 4` ns after the last key popped, or a
    /// pop) on calendar `c`, empty, and on a sorted reference, checking that both hold and
    /// pop the same keys.
    fn check_against_reference(
        mut c: Calendar,
        ops: Vec<Option<(u64, u64)>>,
        multiplier: [u64; 4],
    ) -> Result<(), TestCaseError> {
        let mut reference = std::collections::BTreeSet::new();
        let (mut now, mut id) = (0u64, 0u64);
        for op in ops {
            match op {
                Some((scale, delay)) => {
                    let k = key(now + delay * multiplier[scale as usize] / 4, id);
                    c.push(k);
                    reference.insert(k);
                    id += 1;
                }
                None => {
                    let expected = reference.pop_first();
                    proptest::prop_assert_eq!(c.pop(), expected);
                    if let Some(k) = expected {
                        now = (k >> 64) as u64;
                    }
                }
            }
            proptest::prop_assert_eq!(c.len(), reference.len());
            proptest::prop_assert_eq!(c.peek(), reference.first().copied());
            proptest::prop_assert_eq!(c.peek_nth(0), c.peek());
            for n in 1..4 {
                // What it shows is the n-th key; it may show nothing past the current bucket
                // (or step).
                if let Some(k) = c.peek_nth(n) {
                    proptest::prop_assert_eq!(Some(k), reference.iter().nth(n).copied());
                }
            }
        }
        while let Some(k) = reference.pop_first() {
            proptest::prop_assert_eq!(c.pop(), Some(k));
        }
        proptest::prop_assert!(c.is_empty());
        Ok(())
    }

    proptest::proptest! {
        /// Interleaved pushes and pops, with times on the current bucket, across the wheel
        /// (wrapping it) and beyond it, pop exactly in key order, as a sorted reference does.
        #[test]
        fn pops_as_a_sorted_reference(ops in proptest::collection::vec(proptest::option::of((0u64..4, 0u64..3000)), 1..400)) {
            // 64 buckets of 16 ns: the wheel spans 1024 ns, so far keys are common.
            check_against_reference(Calendar::new(4, 64), ops, [0, 1, 7, 40])?;
        }

        /// The same with keys crowded into a few buckets, dozens each, so that busy slots
        /// take the spares of those served before them.
        #[test]
        fn crowded_buckets_pop_as_a_sorted_reference(ops in proptest::collection::vec(proptest::option::of((0u64..4, 0u64..64)), 1..600)) {
            check_against_reference(Calendar::new(4, 64), ops, [0, 1, 2, 4])?;
        }

        /// A full bucket first, dealt onto the rung when it becomes current (more than
        /// `SPLIT_ABOVE` keys in two or three buckets), then interleaved pushes and pops: keys
        /// into steps before, at and after the current one, and into earlier buckets.
        #[test]
        fn buckets_dealt_onto_the_rung_pop_as_a_sorted_reference(
            first in proptest::collection::vec((0u64..4, 0u64..48), 33..300),
            ops in proptest::collection::vec(proptest::option::of((0u64..4, 0u64..48)), 1..400),
        ) {
            let ops = first.into_iter().map(Some).chain(ops).collect();
            check_against_reference(Calendar::new(4, 64), ops, [0, 1, 2, 3])?;
        }

        /// A bucket's sort, by insertion up to `SPLIT_ABOVE` keys and the library's above,
        /// orders any keys, in time order or not, from the largest to the smallest.
        #[test]
        fn sort_from_last_sorts_any_keys_from_largest(
            mut keys in proptest::collection::vec(0u128..1 << 100, 0..3 * SPLIT_ABOVE),
            ascending in proptest::bool::ANY,
        ) {
            if ascending {
                keys.sort_unstable();
            }
            let mut expected = keys.clone();
            expected.sort_unstable_by(|a, b| b.cmp(a));
            sort_from_last(&mut keys);
            proptest::prop_assert_eq!(keys, expected);
        }

        /// Each width a run may get ([`SHIFTS`]), its wheel spanning the horizon: keys from a
        /// few ns to past the horizon (up to 0.75 s ahead) pop in key order.
        #[test]
        fn every_run_width_pops_as_a_sorted_reference(
            shift in SHIFTS,
            ops in proptest::collection::vec(proptest::option::of((0u64..4, 0u64..3000)), 1..300),
        ) {
            check_against_reference(Calendar::with_shift(shift), ops, [4, 4_000, 400_000, 1_000_000])?;
        }
    }

    #[test]
    fn a_busy_slot_takes_the_vector_of_a_served_one() {
        let mut c = Calendar::new(4, 64);
        // Bucket 1 gets 100 keys and is served; its vector, the current one, becomes a spare
        // when bucket 3 takes the current one's place.
        for id in 0..100 {
            c.push(key(16 + id % 16, id));
        }
        for _ in 0..100 {
            c.pop();
        }
        assert!(c.spares.is_empty());
        c.push(key(3 * 16, 100));
        assert_eq!(c.pop(), Some(key(3 * 16, 100)));
        assert_eq!(c.spares.len(), 1);
        let room = c.spares[0].capacity();
        assert!(room >= 100);
        // With bucket 4 current, bucket 5 fills past KEPT on the wheel: it takes the spare,
        // whose room it then has, and grows no more.
        c.push(key(4 * 16, 200));
        for id in 101..(101 + KEPT as u64 + 1) {
            c.push(key(5 * 16, id));
        }
        assert!(c.spares.is_empty());
        assert_eq!(c.wheel[5].capacity(), room);
        // The slot's own vector, of KEPT keys' room, waits for the next slot with none.
        assert_eq!(c.smalls.len(), 1);
        let small = c.smalls[0].as_ptr();
        assert_eq!(c.wheel[7].capacity(), 0);
        c.push(key(7 * 16, 300));
        assert!(c.smalls.is_empty());
        assert_eq!((c.wheel[7].as_ptr(), c.wheel[7].capacity()), (small, KEPT));
        assert_eq!(c.len(), KEPT + 3);
        assert_eq!(c.pop(), Some(key(4 * 16, 200)));
        for id in 101..(101 + KEPT as u64 + 1) {
            assert_eq!(c.pop(), Some(key(5 * 16, id)));
        }
        assert_eq!(c.pop(), Some(key(7 * 16, 300)));
    }

    #[test]
    fn peeking_further_shows_the_current_buckets_keys_in_order_and_no_later_one() {
        let mut c = Calendar::new(4, 64);
        for (t, id) in [(5, 2), (3, 0), (3, 1), (40, 3)] {
            c.push(key(t, id));
        }
        // Buckets of 16 ns: the first three keys are in bucket 0, the last in bucket 2.
        let shown: Vec<_> = (0..5).map(|n| c.peek_nth(n)).collect();
        assert_eq!(shown, [Some(key(3, 0)), Some(key(3, 1)), Some(key(5, 2)), None, None]);
        c.pop();
        assert_eq!((c.peek_nth(1), c.peek_nth(2)), (Some(key(5, 2)), None));
    }

    #[test]
    fn a_full_bucket_is_served_step_by_step() {
        // Buckets of 64 ns; bucket 1 gets 64 keys on the wheel, one a ns, while bucket 0 is
        // current: 8 steps of 8 ns, 8 keys each, once it becomes current.
        let mut c = Calendar::new(6, 64);
        c.push(key(0, 0));
        for t in (64..128).rev() {
            c.push(key(t, t));
        }
        assert!(!c.rung.active());
        assert_eq!(c.pop(), Some(key(0, 0)));
        assert!(c.rung.active());
        assert_eq!((c.rung.shift, c.rung.at, c.now.len(), c.rung.len), (3, 0, 8, 56));
        assert_eq!(c.rung.occupied, 0b1111_1110);
        // What the current step holds is shown in order, nothing past it.
        assert_eq!((c.peek_nth(7), c.peek_nth(8)), (Some(key(71, 71)), None));
        // A key of the current step, one of a later step, one of an earlier bucket.
        c.push(key(70, 1000));
        c.push(key(100, 1001));
        c.push(key(10, 1002));
        assert_eq!((c.now.len(), c.rung.len, c.len()), (10, 57, 67));
        let mut expected: Vec<u128> = (64..128).map(|t| key(t, t)).collect();
        expected.extend([key(70, 1000), key(100, 1001), key(10, 1002)]);
        expected.sort_unstable();
        let popped: Vec<u128> = std::iter::from_fn(|| c.pop()).collect();
        assert_eq!(popped, expected);
        assert!(!c.rung.active() && c.is_empty());
    }

    #[test]
    fn an_empty_calendar_jumps_to_a_far_key_and_back_to_an_earlier_one() {
        let mut c = Calendar::new(4, 64);
        c.push(key(1_000_000, 1));
        assert_eq!(c.peek(), Some(key(1_000_000, 1)));
        // Earlier than the current bucket, which jumped to the far key's: still first.
        c.push(key(5, 2));
        assert_eq!(c.pop(), Some(key(5, 2)));
        assert_eq!(c.pop(), Some(key(1_000_000, 1)));
        assert_eq!(c.pop(), None);
    }

    #[test]
    fn buckets_are_sized_by_the_links_packet_rate() {
        let packets_per_s = |gbps: f64| gbps * 1e9 / 12_000.0;
        // 5 Gb/s of links (the 100-flow benchmarks): 32 keys a bucket is 77 µs, so 131-µs buckets.
        assert_eq!(shift_for(packets_per_s(5.0)), 17);
        // 10 Gb/s: 32 keys in 38 µs, so 66-µs buckets; 15 Gb/s (300 flows scaled), 33 µs.
        assert_eq!(shift_for(packets_per_s(10.0)), 16);
        assert_eq!(shift_for(packets_per_s(15.0)), 15);
        // 50 and 500 Gb/s (10³ and 10⁴ flows scaled): the narrowest width.
        assert_eq!(shift_for(packets_per_s(50.0)), 14);
        assert_eq!(shift_for(packets_per_s(500.0)), 14);
        // No links, or slow ones: the widest.
        assert_eq!((shift_for(0.0), shift_for(1.0)), (18, 18));
        let c = Calendar::with_shift(16);
        assert_eq!((c.wheel.len() as u64) << 16, 1 << HORIZON_SHIFT);
    }
}
