//! The application byte stream of a connection, cut into segments.
//!
//! A connection carries either unlimited data (a saturated source) or a sequence of equal
//! application writes ("chunks") of `size` bytes each: one for a finite transfer, one more
//! per round for a persistent connection that serves repeated requests (incast over
//! persistent connections, as in the ns-2 incast setups). Each chunk is cut into full
//! segments and one last, possibly shorter, segment, as a sender with Nagle off would, so a
//! segment never carries bytes of two chunks. Sender and receiver share this arithmetic so
//! that both agree on where each chunk ends. ns-2's agents send whole packets only
//! (`packetSize_`, the last of a transfer too: `wire = "ns2"`): the stream can pad each
//! chunk's last segment on the wire while counting only its application bytes.

/// The segments of a connection's application data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stream {
    mss: u32,
    /// Segments per chunk; 0 for unlimited data.
    chunk_segs: u64,
    /// Payload of each chunk's last segment, bytes (1..=mss).
    last_seg_bytes: u32,
    /// Chunks written so far.
    chunks: u64,
    /// Whether each chunk's last segment is sent full (`mss` bytes of payload on the wire).
    pad_last: bool,
}

impl Stream {
    /// Returns the stream of one chunk of `size_bytes` (`None` = unlimited data, `Some(0)`
    /// is taken as one byte so that a transfer always has a segment).
    pub fn new(mss: u32, size_bytes: Option<u64>) -> Self {
        match size_bytes {
            None => Stream { mss, chunk_segs: 0, last_seg_bytes: mss, chunks: 0, pad_last: false },
            Some(b) => {
                let b = b.max(1);
                let n = b.div_ceil(mss as u64);
                let last_seg_bytes = (b - (n - 1) * mss as u64) as u32;
                Stream { mss, chunk_segs: n, last_seg_bytes, chunks: 1, pad_last: false }
            }
        }
    }

    /// Sends each chunk's last segment full on the wire ([`Stream::payload`]), as ns-2's
    /// agents do (every packet `packetSize_`); [`Stream::bytes`] still counts the
    /// application's bytes.
    #[must_use]
    pub fn padded(mut self, pad_last: bool) -> Self {
        self.pad_last = pad_last;
        self
    }

    /// Returns the number of segments written so far; `None` for unlimited data.
    pub fn total_segs(&self) -> Option<u64> {
        (self.chunk_segs > 0).then_some(self.chunk_segs * self.chunks)
    }

    /// Returns whether segment `seq` has been written (always, for unlimited data).
    pub fn has(&self, seq: u64) -> bool {
        self.total_segs().is_none_or(|n| seq < n)
    }

    /// Appends one more chunk of the same size (a persistent connection's next response).
    /// No-op for unlimited data.
    pub fn write_chunk(&mut self) {
        if self.chunk_segs > 0 {
            self.chunks += 1;
        }
    }

    /// Returns the payload bytes of segment `seq` on the wire.
    pub fn payload(&self, seq: u64) -> u32 {
        if self.chunk_segs > 0 && !self.pad_last && (seq + 1) % self.chunk_segs == 0 {
            self.last_seg_bytes
        } else {
            self.mss
        }
    }

    /// Returns where segment `seq` starts in the byte stream as it is on the wire: the
    /// payload bytes of every segment before it (`k × mss` when each chunk's last segment is
    /// padded), what a packet capture writes as the TCP sequence number.
    pub fn wire_offset(&self, seq: u64) -> u64 {
        if self.pad_last {
            seq * self.mss as u64
        } else {
            self.bytes(0, seq)
        }
    }

    /// Returns the application bytes of segments `from..to`.
    pub fn bytes(&self, from: u64, to: u64) -> u64 {
        let full = (to - from) * self.mss as u64;
        if self.chunk_segs == 0 {
            return full;
        }
        // Chunk ends (segments k with (k + 1) % chunk_segs == 0) inside from..to.
        let ends = to / self.chunk_segs - from / self.chunk_segs;
        full - ends * (self.mss - self.last_seg_bytes) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finite_transfer_ends_with_a_short_segment() {
        let s = Stream::new(960, Some(100_000)); // 104 full segments + 160 bytes
        assert_eq!(s.total_segs(), Some(105));
        assert_eq!(s.payload(103), 960);
        assert_eq!(s.payload(104), 160);
        assert_eq!(s.bytes(0, 105), 100_000);
        assert!(s.has(104) && !s.has(105));
    }

    #[test]
    fn wire_offsets_sum_the_payloads_on_the_wire() {
        let mut s = Stream::new(1000, Some(2500));
        s.write_chunk();
        assert_eq!((0..=6).map(|k| s.wire_offset(k)).collect::<Vec<_>>(), [0, 1000, 2000, 2500, 3500, 4500, 5000]);
        let padded = s.clone().padded(true);
        assert_eq!(padded.wire_offset(4), 4000, "every segment full on the wire");
        assert_eq!(Stream::new(1000, None).wire_offset(7), 7000);
    }

    #[test]
    fn chunks_repeat_the_segmentation_and_bytes_add_up() {
        let mut s = Stream::new(1000, Some(2500)); // 1000 + 1000 + 500 per chunk
        s.write_chunk();
        s.write_chunk();
        assert_eq!(s.total_segs(), Some(9));
        let sizes: Vec<u32> = (0..9).map(|k| s.payload(k)).collect();
        assert_eq!(sizes, [1000, 1000, 500, 1000, 1000, 500, 1000, 1000, 500]);
        for from in 0..9 {
            for to in from..=9 {
                let expected: u64 = (from..to).map(|k| s.payload(k) as u64).sum();
                assert_eq!(s.bytes(from, to), expected, "{from}..{to}");
            }
        }
    }

    #[test]
    fn a_padded_stream_sends_each_chunk_s_last_segment_full_but_counts_the_application_s_bytes() {
        // ns-2's agents: 2500 bytes go as three 1000-byte packets, of which 2500 delivered.
        let mut s = Stream::new(1000, Some(2500)).padded(true);
        s.write_chunk();
        let sizes: Vec<u32> = (0..6).map(|k| s.payload(k)).collect();
        assert_eq!(sizes, [1000; 6]);
        assert_eq!((s.bytes(0, 3), s.bytes(0, 6), s.bytes(2, 4)), (2500, 5000, 1500));
    }

    #[test]
    fn unlimited_data_has_every_segment_full_sized() {
        let mut s = Stream::new(1460, None);
        s.write_chunk();
        assert_eq!(s.total_segs(), None);
        assert!(s.has(u64::MAX - 1));
        assert_eq!(s.payload(7), 1460);
        assert_eq!(s.bytes(3, 5), 2920);
    }
}
