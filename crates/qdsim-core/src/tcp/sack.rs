//! The SACK scoreboard (RFC 6675 §2–4): which segments above `snd_una` the receiver has
//! reported, and the derived `IsLost`, `pipe` and `NextSeg` of RFC 6675's loss recovery.
//!
//! Segments are counted, not octets: `IsLost(s)` holds when at least `DupThresh` SACKed
//! segments lie above `s` (RFC 6675 §4 with one segment per SMSS).

/// SACKed ranges above the cumulative ACK, sorted and disjoint, half-open `[start, end)`.
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    ranges: Vec<(u64, u64)>,
}

impl Scoreboard {
    /// Forgets everything below `snd_una` and adds the reported `blocks`.
    pub fn update(&mut self, snd_una: u64, blocks: impl Iterator<Item = (u64, u64)>) {
        for (s, e) in blocks {
            self.insert(s.max(snd_una), e);
        }
        self.ranges.retain(|&(_, e)| e > snd_una);
        if let Some(first) = self.ranges.first_mut() {
            first.0 = first.0.max(snd_una);
        }
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

    /// Returns the number of SACKed segments above `s`.
    pub fn sacked_above(&self, s: u64) -> u64 {
        self.ranges.iter().rev().take_while(|r| r.1 > s + 1).map(|&(rs, re)| re - rs.max(s + 1)).sum()
    }

    /// Returns the SACKed ranges.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// RFC 6675 `SetPipe`: segments in `[snd_una, snd_max)` not SACKed count once if not
    /// lost, and once more if retransmitted (below `high_rxt`). One backward pass.
    pub fn pipe(&self, snd_una: u64, snd_max: u64, high_rxt: u64, dupthresh: u64) -> u64 {
        let mut pipe = 0;
        let mut sacked_above = 0;
        let mut r = self.ranges.len();
        let mut s = snd_max;
        while s > snd_una {
            s -= 1;
            while r > 0 && self.ranges[r - 1].0 > s {
                r -= 1;
            }
            if r > 0 && self.ranges[r - 1].1 > s {
                // SACKed: skip the whole range at once.
                let rs = self.ranges[r - 1].0.max(snd_una);
                sacked_above += s + 1 - rs;
                s = rs;
                r -= 1;
                continue;
            }
            if sacked_above < dupthresh {
                pipe += 1; // not lost: still in the network
            }
            if s < high_rxt {
                pipe += 1; // its retransmission is in the network
            }
        }
        pipe
    }

    /// RFC 6675 `NextSeg` rules 1 and 3: the first segment at or above `from` and below
    /// the highest SACKed one that is not SACKed; with `lost_only`, also `IsLost`.
    pub fn next_hole(&self, from: u64, dupthresh: u64, lost_only: bool) -> Option<u64> {
        let top = self.highest()?;
        let mut s = from;
        while s < top {
            if self.is_sacked(s) {
                let i = self.ranges.partition_point(|&(_, e)| e <= s);
                s = self.ranges[i].1;
                continue;
            }
            if !lost_only || self.sacked_above(s) >= dupthresh {
                return Some(s);
            }
            return None; // holes above s have even fewer SACKed segments above them
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
        sb.update(0, [(2, 4), (6, 7)].into_iter());
        sb.update(0, [(4, 5), (7, 9)].into_iter());
        assert_eq!(sb.ranges(), &[(2, 5), (6, 9)]);
        sb.update(3, std::iter::empty());
        assert_eq!(sb.ranges(), &[(3, 5), (6, 9)]);
        assert!(sb.is_sacked(8) && !sb.is_sacked(5));
        assert_eq!(sb.sacked_above(2), 5);
        assert_eq!(sb.sacked_above(5), 3);
    }

    #[test]
    fn pipe_counts_unsacked_unlost_and_retransmitted_segments() {
        // Outstanding 0..10; SACKed 3..6 and 8..10; DupThresh 3.
        let mut sb = Scoreboard::default();
        sb.update(0, [(3, 6), (8, 10)].into_iter());
        // Lost (>= 3 SACKed above): 0, 1, 2. Not lost: 6, 7 (2 SACKed above). Pipe = 2.
        assert_eq!(sb.pipe(0, 10, 0, 3), 2);
        // Segment 0 retransmitted: +1.
        assert_eq!(sb.pipe(0, 10, 1, 3), 3);
        assert_eq!(sb.next_hole(0, 3, true), Some(0));
        assert_eq!(sb.next_hole(3, 3, true), None, "6 has only 2 SACKed above: not lost");
        assert_eq!(sb.next_hole(3, 3, false), Some(6));
    }
}
