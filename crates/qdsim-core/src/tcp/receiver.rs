//! The TCP receiver: in-order delivery, out-of-order buffering, cumulative ACKs and
//! optional delayed ACKs (RFC 5681 §4.2, RFC 1122 §4.2.3.2).
//!
//! Out-of-order segments are kept as a sorted list of disjoint half-open ranges
//! `[start, end)` above `rcv_nxt`, which is also what SACK blocks will report. An ACK is sent
//! at once for an out-of-order segment, a duplicate, or a segment that fills a hole
//! (RFC 5681 §4.2), and for the first `quick_acks` data segments of the connection (Linux's
//! quick-ACK mode, ns-3's first segment after the handshake); otherwise every
//! `delayed_ack_count`-th in-order segment, or when the delayed-ACK timer expires. With delayed
//! ACKs off, every segment is ACKed.

use crate::event::FlowTimer;
use crate::outbox::Outbox;
use crate::packet::{
    Ecn, FlowId, NodeId, Packet, PacketKind, SackBlocks, SackRef, FLAG_CWR, FLAG_ECE, FLAG_RETX, FLAG_SYN,
};
use crate::time::{Duration, Time};

use super::config::TcpConfig;
use super::stream::Stream;
use super::wire::WireSizes;

/// A TCP receiver.
#[derive(Debug)]
pub struct TcpReceiver {
    flow: FlowId,
    class: u32,
    /// This receiver's node (the ACKs' source).
    node: NodeId,
    /// The sender's node (the ACKs' destination).
    peer: NodeId,
    /// The application data expected so far, in segments.
    data: Stream,
    /// Next segment expected in order.
    pub rcv_nxt: u64,
    ooo: Vec<(u64, u64)>,
    delayed_ack: bool,
    delayed_ack_count: u32,
    delayed_ack_timeout: Duration,
    /// Data segments still to be ACKed at once (Linux's quick-ACK mode at the start of a
    /// connection, ns-3's first segment after the handshake).
    quick_acks: u32,
    unacked_segs: u32,
    delack_gen: u32,
    delack_armed: bool,
    last_ts: Time,
    last_retx: bool,
    /// RFC 3168 §6.1.3: set by a CE-marked segment, echoed as ECE on every ACK until a
    /// segment with CWR arrives.
    ece_pending: bool,
    sack: bool,
    /// Sizes of the ACKs on the wire, and how many SACK blocks fit.
    wire: WireSizes,
    /// The out-of-order segment received last: its range leads the SACK blocks.
    last_ooo: Option<u64>,
    /// The out-of-order ranges held when the measurement window opened, less what has been
    /// delivered since: data that crossed the network before the window, counted apart when
    /// delivered in it ([`Delivery::held_before_window`]).
    held_at_window_start: Vec<(u64, u64)>,
}

/// What a received segment changed, for the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    /// Application bytes newly delivered in order.
    pub bytes: u64,
    /// Whether the finite transfer is now complete.
    pub completed: bool,
    /// Of `bytes`, those that had arrived before the measurement window opened and waited
    /// out of order for a hole below them to fill (see [`TcpReceiver::start_window`]).
    pub held_before_window: u64,
}

impl TcpReceiver {
    /// Returns a receiver of flow `flow` at `node`, ACKing to `peer`.
    pub fn new(flow: FlowId, class: u32, node: NodeId, peer: NodeId, cfg: &TcpConfig, size_bytes: Option<u64>) -> Self {
        TcpReceiver {
            flow,
            class,
            node,
            peer,
            data: Stream::new(cfg.mss(), size_bytes),
            rcv_nxt: 0,
            ooo: Vec::new(),
            delayed_ack: cfg.delayed_ack,
            delayed_ack_count: cfg.delayed_ack_count,
            delayed_ack_timeout: Duration::from_ns(cfg.delayed_ack_timeout_ns),
            quick_acks: cfg.quick_acks,
            unacked_segs: 0,
            delack_gen: 0,
            delack_armed: false,
            last_ts: Time::ZERO,
            last_retx: false,
            ece_pending: false,
            sack: cfg.sack,
            wire: cfg.wire_sizes(),
            last_ooo: None,
            held_at_window_start: Vec::new(),
        }
    }

    /// The measurement window opens: remembers the out-of-order data held now. Bytes
    /// delivered in the window include it once its hole fills, though it crossed the
    /// bottleneck before the window; counting it apart bounds the rest by what the path
    /// carried in the window.
    pub fn start_window(&mut self) {
        self.held_at_window_start.clone_from(&self.ooo);
    }

    /// Returns the bytes of segments `[from, to)` just delivered that were held out of order
    /// when the window opened, and forgets the ranges now below `to`.
    fn take_held_before_window(&mut self, from: u64, to: u64) -> u64 {
        let mut bytes = 0;
        for &(s, e) in &self.held_at_window_start {
            let (a, b) = (s.max(from), e.min(to));
            if a < b {
                bytes += self.data.bytes(a, b);
            }
        }
        self.held_at_window_start.retain(|&(_, e)| e > to);
        bytes
    }

    /// Returns the out-of-order ranges held above `rcv_nxt`.
    pub fn out_of_order(&self) -> &[(u64, u64)] {
        &self.ooo
    }

    /// The peer's application writes one more chunk (the next response of a persistent
    /// connection): its completion is reported like the first one's.
    pub fn write_chunk(&mut self) {
        self.data.write_chunk();
    }

    /// Handles a data segment (or a SYN: answered at once with a SYN-ACK echoing its
    /// timestamp); returns what it delivered.
    pub fn on_data(&mut self, pkt: &Packet, now: Time, out: &mut Outbox) -> Delivery {
        if pkt.has(FLAG_SYN) {
            let syn_ack = self.ack_packet(0, pkt.ts, FLAG_SYN | (pkt.flags & FLAG_RETX), 0, SackRef::NONE, now);
            out.send(Packet { size_bytes: self.wire.syn_bytes, ..syn_ack });
            return Delivery { bytes: 0, completed: false, held_before_window: 0 };
        }
        let seq = pkt.seq();
        self.last_ts = pkt.ts;
        self.last_retx = pkt.has(FLAG_RETX);
        let before = self.rcv_nxt;
        let mut immediate = false;
        if pkt.has(FLAG_CWR) {
            self.ece_pending = false;
        }
        if pkt.ecn == Ecn::Ce {
            // ACK at once so the sender learns of congestion without the delayed-ACK wait.
            immediate |= !self.ece_pending;
            self.ece_pending = true;
        }
        if seq == self.rcv_nxt {
            self.rcv_nxt += 1;
            if let Some(&(s, e)) = self.ooo.first() {
                if s == self.rcv_nxt {
                    // Filled a hole: everything up to the end of that range is now in order.
                    self.rcv_nxt = e;
                    self.ooo.remove(0);
                    immediate = true;
                }
            }
            if !self.ooo.is_empty() {
                immediate = true;
            }
        } else if seq > self.rcv_nxt {
            self.insert_ooo(seq);
            self.last_ooo = Some(seq);
            immediate = true;
        } else {
            immediate = true; // duplicate
        }
        if self.quick_acks > 0 {
            self.quick_acks -= 1;
            immediate = true;
        }
        let delivered = self.data.bytes(before, self.rcv_nxt);
        let held_before_window = if delivered > 0 && !self.held_at_window_start.is_empty() {
            self.take_held_before_window(before, self.rcv_nxt)
        } else {
            0
        };
        let completed = delivered > 0 && self.data.total_segs().is_some_and(|n| before < n && self.rcv_nxt >= n);

        self.unacked_segs += 1;
        if !self.delayed_ack || immediate || completed || self.unacked_segs >= self.delayed_ack_count {
            self.send_ack(now, out);
        } else if !self.delack_armed {
            self.delack_armed = true;
            self.delack_gen = self.delack_gen.wrapping_add(1);
            out.timer(now + self.delayed_ack_timeout, FlowTimer::DelayedAck(self.delack_gen));
        }
        Delivery { bytes: delivered, completed, held_before_window }
    }

    fn insert_ooo(&mut self, seq: u64) {
        // Ranges are few (one per hole); a linear scan is cheaper than a tree.
        let i = self.ooo.partition_point(|&(_, e)| e < seq);
        if i < self.ooo.len() && self.ooo[i].0 <= seq && seq < self.ooo[i].1 {
            return; // already held
        }
        if i < self.ooo.len() && self.ooo[i].1 == seq {
            self.ooo[i].1 = seq + 1;
            if i + 1 < self.ooo.len() && self.ooo[i + 1].0 == seq + 1 {
                self.ooo[i].1 = self.ooo[i + 1].1;
                self.ooo.remove(i + 1);
            }
        } else if i < self.ooo.len() && self.ooo[i].0 == seq + 1 {
            self.ooo[i].0 = seq;
        } else {
            self.ooo.insert(i, (seq, seq + 1));
        }
    }

    /// RFC 2018 §4: the first block holds the most recently received segment, the others
    /// follow from the highest down (the most recently filled, for a sender sending in order);
    /// as many as the option space holds (`WireSizes::max_sack_blocks`).
    fn sack_blocks(&self) -> SackBlocks {
        if !self.sack || self.ooo.is_empty() {
            return SackBlocks::NONE;
        }
        let first = self.last_ooo.and_then(|s| self.ooo.iter().copied().find(|&(a, b)| a <= s && s < b));
        let rest = self.ooo.iter().rev().copied().filter(move |r| Some(*r) != first);
        SackBlocks::from_ranges(self.rcv_nxt, first.into_iter().chain(rest), self.wire.max_sack_blocks)
    }

    fn send_ack(&mut self, now: Time, out: &mut Outbox) {
        self.unacked_segs = 0;
        let sack = self.sack_blocks();
        self.delack_armed = false;
        let flags = if self.last_retx { FLAG_RETX } else { 0 } | if self.ece_pending { FLAG_ECE } else { 0 };
        let blocks = sack.len();
        let sack = out.sacks.put(sack);
        out.send(self.ack_packet(self.rcv_nxt, self.last_ts, flags, blocks, sack, now));
    }

    /// An acknowledgement of everything below `ack`, echoing timestamp `ts`, with `blocks`
    /// SACK blocks stored at `sack`.
    fn ack_packet(&self, ack: u64, ts: Time, flags: u8, blocks: usize, sack: SackRef, now: Time) -> Packet {
        Packet {
            flow: self.flow,
            class: self.class,
            kind: PacketKind::Ack,
            size_bytes: self.wire.ack(blocks),
            src: self.node,
            dst: self.peer,
            number: ack,
            ts,
            enq_time: now,
            queue_delay_ns: 0,
            ecn: Ecn::NotEct,
            flags,
            sack,
            wire_seq: [0; 5],
        }
    }

    /// Handles the delayed-ACK timer of generation `gen`.
    pub fn on_delack_timer(&mut self, gen: u32, now: Time, out: &mut Outbox) {
        if gen == self.delack_gen && self.delack_armed && self.unacked_segs > 0 {
            self.send_ack(now, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tcp::testing::*;
    use crate::tcp::CcKind;

    #[test]
    fn receiver_buffers_out_of_order_segments_and_jumps_when_the_hole_fills() {
        let mut r = TcpReceiver::new(0, 0, 1, 0, &plain(), None);
        let mut out = Outbox::default();
        let mut delivered = 0;
        for seq in [0, 2, 3, 5, 1, 4] {
            delivered += r.on_data(&data(seq), T, &mut out).bytes;
        }
        assert_eq!(acks(&mut out), vec![1, 1, 1, 1, 4, 6]);
        assert_eq!(delivered, 6 * 1460);
        assert!(r.out_of_order().is_empty());
    }

    #[test]
    fn data_held_out_of_order_when_the_window_opens_is_counted_apart_once() {
        // Held at the window's start: 2..4 and 5..6. Then 6, 1, 0 arrive: 1 fills nothing,
        // 0 delivers 0..4 (2 and 3 held before), 4 delivers 4..7 (5 held before, 6 not).
        let mut r = TcpReceiver::new(0, 0, 1, 0, &plain(), None);
        let mut out = Outbox::default();
        for seq in [2, 3, 5] {
            r.on_data(&data(seq), T, &mut out);
        }
        r.start_window();
        let mut got = vec![];
        for seq in [6, 1, 0, 4, 7] {
            let d = r.on_data(&data(seq), T, &mut out);
            got.push((d.bytes / 1460, d.held_before_window / 1460));
        }
        assert_eq!(got, vec![(0, 0), (0, 0), (4, 2), (3, 1), (1, 0)]);
        // Every held range is forgotten once delivered: a new hole counts nothing.
        r.on_data(&data(9), T, &mut out);
        assert_eq!(r.on_data(&data(8), T, &mut out).held_before_window, 0);
    }

    #[test]
    fn delayed_acks_ack_every_second_segment_or_on_the_timer() {
        let c = TcpConfig { delayed_ack: true, ..plain() };
        let mut r = TcpReceiver::new(0, 0, 1, 0, &c, None);
        let mut out = Outbox::default();
        r.on_data(&data(0), T, &mut out);
        assert_eq!(acks(&mut out), Vec::<u64>::new());
        let (at, gen) = match out.timers.pop() {
            Some((at, FlowTimer::DelayedAck(g))) => (at, g),
            other => panic!("delayed-ACK timer not armed: {other:?}"),
        };
        assert_eq!(at - T, Duration::from_ms(40));
        r.on_data(&data(1), T, &mut out);
        assert_eq!(acks(&mut out), vec![2]);
        // The stale timer does nothing; a lone segment is ACKed when its timer fires.
        r.on_delack_timer(gen, at, &mut out);
        assert_eq!(acks(&mut out), Vec::<u64>::new());
        r.on_data(&data(2), T, &mut out);
        let (at, gen) = match out.timers.pop() {
            Some((at, FlowTimer::DelayedAck(g))) => (at, g),
            other => panic!("{other:?}"),
        };
        r.on_delack_timer(gen, at, &mut out);
        assert_eq!(acks(&mut out), vec![3]);
        // Out of order: ACKed at once.
        r.on_data(&data(5), T, &mut out);
        assert_eq!(acks(&mut out), vec![3]);
    }

    #[test]
    fn the_first_quick_acks_segments_are_acked_at_once() {
        // Linux's quick-ACK start (2 segments at an initial window of 4 MSS), then every second.
        let c = TcpConfig { delayed_ack: true, quick_acks: 2, ..plain() };
        let mut r = TcpReceiver::new(0, 0, 1, 0, &c, None);
        let mut out = Outbox::default();
        let mut got = vec![];
        for seq in 0..6 {
            r.on_data(&data(seq), T, &mut out);
            got.push(acks(&mut out));
        }
        assert_eq!(got, vec![vec![1], vec![2], vec![], vec![4], vec![], vec![6]]);
    }

    #[test]
    fn receiver_reports_completion_of_a_finite_transfer_once() {
        let mut r = TcpReceiver::new(0, 0, 1, 0, &plain(), Some(2000));
        let mut out = Outbox::default();
        let d1 = r.on_data(&data(1), T, &mut out);
        assert!(!d1.completed);
        let d0 = r.on_data(&data(0), T, &mut out);
        assert!(d0.completed);
        assert_eq!(d0.bytes, 2000);
        assert!(!r.on_data(&data(1), T, &mut out).completed);
    }

    #[test]
    fn receiver_echoes_ce_until_cwr() {
        let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig { ecn: true, ..plain() }, None);
        let mut out = Outbox::default();
        let ce = Packet { ecn: crate::packet::Ecn::Ce, ..data(0) };
        r.on_data(&ce, T, &mut out);
        r.on_data(&data(1), T, &mut out);
        let cwr = Packet { flags: crate::packet::FLAG_CWR, ..data(2) };
        r.on_data(&cwr, T, &mut out);
        let echoed: Vec<bool> = out.pkts.iter().map(|p| p.has(crate::packet::FLAG_ECE)).collect();
        assert_eq!(echoed, vec![true, true, false]);
    }

    #[test]
    fn receiver_reports_the_latest_block_first() {
        let mut r = TcpReceiver::new(0, 0, 1, 0, &TcpConfig { sack: true, ..plain() }, None);
        let mut out = Outbox::default();
        for seq in [0, 2, 5, 6, 3] {
            r.on_data(&data(seq), T, &mut out);
        }
        let last = out.pkts.last().unwrap();
        let blocks: Vec<(u64, u64)> = out.sacks.get(last.sack).ranges(last.ack()).collect();
        assert_eq!(last.ack(), 1);
        assert_eq!(blocks, vec![(2, 4), (5, 7)]);
    }

    #[test]
    fn ack_sizes_and_the_sack_block_count_follow_the_option_space() {
        use crate::tcp::WireFormat::{Ietf, Ns2};
        // (timestamps, wire, pure ACK, blocks sent with five holes, that ACK's size)
        let cases = [
            (false, Ietf, 40, 4, 40 + 4 + 4 * 8),
            (true, Ietf, 52, 3, 52 + 4 + 3 * 8),
            (false, Ns2, 40, 3, 40 + 3 * 8),
            (true, Ns2, 40, 3, 40 + 3 * 8),
        ];
        for (timestamps, wire, pure, blocks, size) in cases {
            let c = TcpConfig { sack: true, timestamps, wire, ..TcpConfig::default() };
            let mut r = TcpReceiver::new(0, 0, 1, 0, &c, None);
            let mut out = Outbox::default();
            // Segment 0 in order, then five islands 2, 4, 6, 8, 10 above holes.
            for seq in [0, 2, 4, 6, 8, 10] {
                r.on_data(&data(seq), T, &mut out);
            }
            let what = format!("timestamps {timestamps}, {wire:?}");
            assert_eq!((out.sacks.get(out.pkts[0].sack).len(), out.pkts[0].size_bytes), (0, pure), "{what}");
            let last = out.pkts.last().unwrap();
            let sack = out.sacks.get(last.sack);
            assert_eq!(sack.len(), blocks, "{what}");
            assert_eq!(last.size_bytes, size, "{what}");
            let reported: Vec<(u64, u64)> = sack.ranges(last.ack()).collect();
            assert_eq!(reported[..2], [(10, 11), (8, 9)], "the latest first, then from the highest down");
        }
    }

    #[test]
    fn receiver_reports_each_chunk_of_a_persistent_connection_complete() {
        // 2500-byte chunks of 1460 + 1040 bytes.
        let mut r = TcpReceiver::new(0, 0, 1, 0, &cfg(CcKind::Newreno), Some(2500));
        let mut out = Outbox::default();
        let d0 = r.on_data(&data(0), T, &mut out);
        let d1 = r.on_data(&data(1), T, &mut out);
        assert_eq!((d0.bytes, d0.completed, d1.bytes, d1.completed), (1460, false, 1040, true));
        r.write_chunk();
        // The second chunk arrives out of order: completion only when its hole fills.
        let d3 = r.on_data(&data(3), T, &mut out);
        assert_eq!((d3.bytes, d3.completed), (0, false));
        let d2 = r.on_data(&data(2), T, &mut out);
        assert_eq!((d2.bytes, d2.completed), (2500, true));
    }
}
