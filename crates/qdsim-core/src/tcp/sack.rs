//! The SACK scoreboard (RFC 6675 §2–4): which segments above `snd_una` the receiver has
//! reported, and the counts loss recovery derives from it — `IsLost`, `pipe`, `NextSeg`.
//!
//! Segments are counted, not octets. Lost segments always form a prefix of the unSACKed ones:
//! RFC 6675's `IsLost(s)` (at least `DupThresh` SACKed segments above `s`) holds below the
//! `DupThresh`-th highest SACKed segment ([`Scoreboard::is_lost_end`]), and the marks of
//! other schemes (the head at a fast retransmit, FACK's `fackets_out − reordering`) are
//! prefixes too, so "lost" is "unSACKed and below `lost_end`" throughout.

/// SACKed ranges above the cumulative ACK, sorted and disjoint, half-open `[start, end)`.
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// Adds the reported `blocks`, then forgets everything below `snd_una`; returns whether
    /// the blocks SACKed a segment not SACKed before (RFC 6675's duplicate ACK).
    pub fn update(&mut self, snd_una: u64, blocks: impl Iterator<Item = (u64, u64)>) -> bool {
        let before = self.sacked_total();
        for (s, e) in blocks {
            self.insert(s.max(snd_una), e);
        }
        let grew = self.sacked_total() > before;
        self.ranges.retain(|&(_, e)| e > snd_una);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(snd_una);
        }
        grew
    }

    fn insert(&mut self, s: u64, e: u64) {
        if e <= s {
            return;
        }
        // Merge with every overlapping or adjacent range.
        let i = self.ranges.partition_point(|&(_, re)| re < s);
        let mut j = i;
        let (mut ns, mut ne) = (s, e);
        while j < self.ranges.len() && self.ranges[j].0 <= ne {
            ns = ns.min(self.ranges[j].0);
            ne = ne.max(self.ranges[j].1);
            j += 1;
        }
        self.ranges.splice(i..j, [(ns, ne)]);
    }

    /// Forgets every report (after a timeout the receiver may have reneged, RFC 2018 §8).
    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    /// Returns whether segment `s` was SACKed.
    pub fn is_sacked(&self, s: u64) -> bool {
        let i = self.ranges.partition_point(|&(_, e)| e <= s);
        i < self.ranges.len() && self.ranges[i].0 <= s
    }

    /// Returns one past the highest SACKed segment, or `None`.
    pub fn highest(&self) -> Option<u64> {
        self.ranges.last().map(|r| r.1)
    }

    /// Returns the number of SACKed segments.
    pub fn sacked_total(&self) -> u64 {
        self.ranges.iter().map(|&(s, e)| e - s).sum()
    }

    /// Returns the number of SACKed segments above `s`.
    pub fn sacked_above(&self, s: u64) -> u64 {
        self.ranges.iter().rev().take_while(|r| r.1 > s + 1).map(|&(rs, re)| re - rs.max(s + 1)).sum()
    }

    /// Returns the number of segments in `[a, b)` that are not SACKed.
    pub fn unsacked(&self, a: u64, b: u64) -> u64 {
        if b <= a {
            return 0;
        }
        let sacked: u64 = self.ranges.iter().map(|&(s, e)| e.min(b).saturating_sub(s.max(a))).sum();
        b - a - sacked
    }

    /// Returns the end of RFC 6675's lost prefix: `IsLost(s)` holds for every unSACKed `s`
    /// below it — the `dupthresh`-th highest SACKed segment; 0 if fewer are SACKed.
    pub fn is_lost_end(&self, dupthresh: u64) -> u64 {
        let mut need = dupthresh.max(1);
        for &(s, e) in self.ranges.iter().rev() {
            if e - s >= need {
                return e - need;
            }
            need -= e - s;
        }
        0
    }

    /// Returns the ranges SACKed.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// RFC 6675 `SetPipe` with the unSACKed segments below `lost_end` lost: each unSACKed
    /// segment in `[snd_una, snd_max)` counts once if not lost, and once more if it was
    /// retransmitted (below `high_rxt`).
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, lost_end: u64) -> u64 {
        let not_lost = self.unsacked(lost_end.clamp(snd_una, snd_max), snd_max);
        let retransmitted = self.unsacked(snd_una, high_rxt.min(snd_max));
        not_lost + retransmitted
    }

    /// Returns the first unSACKed segment at or above `from` and below `below` (RFC 6675
    /// `NextSeg` rule 1 with `below` = the lost prefix's end, rule 3 with the highest SACK).
    pub fn next_hole(&self, from: u64, below: u64) -> Option<u64> {
        let mut s = from;
        while s < below {
            let i = self.ranges.partition_point(|&(_, e)| e <= s);
            match self.ranges.get(i) {
                Some(&(rs, re)) if rs <= s => s = re,
                _ => return Some(s),
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_blocks_and_prunes_below_the_ack() {
        let mut sb = Scoreboard::default();
        assert!(sb.update(0, [(2, 4), (6, 7)].into_iter()));
        assert!(sb.update(0, [(4, 5), (7, 9)].into_iter()));
        assert!(!sb.update(0, [(2, 5)].into_iter()), "nothing new");
        assert_eq!(sb.ranges(), &[(2, 5), (6, 9)]);
        sb.update(3, std::iter::empty());
        assert_eq!(sb.ranges(), &[(3, 5), (6, 9)]);
        assert!(sb.is_sacked(8) && !sb.is_sacked(5));
        assert_eq!(sb.sacked_above(2), 5);
        assert_eq!(sb.sacked_above(5), 3);
        assert_eq!(sb.sacked_total(), 5);
        assert_eq!(sb.unsacked(0, 10), 5);
    }

    #[test]
    fn pipe_counts_unsacked_unlost_and_retransmitted_segments() {
        // Outstanding 0..10; SACKed 3..6 and 8..10; DupThresh 3.
        let mut sb = Scoreboard::default();
        sb.update(0, [(3, 6), (8, 10)].into_iter());
        // The third SACKed segment from the top is 5: lost (>= 3 SACKed above) = 0, 1, 2.
        // Not lost: 6, 7 (2 SACKed above). Pipe = 2.
        let lost = sb.is_lost_end(3);
        assert_eq!(lost, 5);
        assert_eq!(sb.pipe(0, 10, 0, lost), 2);
        // Segment 0 retransmitted: +1.
        assert_eq!(sb.pipe(0, 10, 1, lost), 3);
        assert_eq!(sb.next_hole(0, lost), Some(0));
        assert_eq!(sb.next_hole(3, lost), None, "6 has only 2 SACKed above: not lost");
        assert_eq!(sb.next_hole(3, sb.highest().unwrap()), Some(6));
        // FACK's mark (fackets_out 10 - reordering 3 = 7 from the head) makes 6 lost too.
        assert_eq!(sb.pipe(0, 10, 0, 7), 1);
        assert_eq!(sb.is_lost_end(5), 3);
        assert_eq!(sb.is_lost_end(6), 0, "only 5 SACKed: nothing is lost");
    }
}
