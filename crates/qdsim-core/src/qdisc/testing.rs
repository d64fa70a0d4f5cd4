//! Test support shared by every qdisc's tests: hand-built packets, a harness that keeps the
//! port's books, and the conservation property.

use super::{DropReason, Qdisc, QdiscCtx};
use crate::packet::{Ecn, Packet, PacketKind};
use crate::rng;
use crate::time::Time;

/// Returns a data packet of `flow` with `size` wire bytes.
pub fn pkt(flow: u32, size: u32) -> Packet {
    Packet {
        flow,
        class: flow,
        kind: PacketKind::Data,
        size_bytes: size,
        src: 0,
        dst: 1,
        number: 0,
        ts: Time::ZERO,
        enq_time: Time::ZERO,
        queue_delay_ns: 0,
        ecn: Ecn::NotEct,
        flags: 0,
        sack: crate::packet::SackRef::NONE,
        wire_seq: [0; 5],
    }
}

/// Drives a qdisc like a port does, keeping the books of the conservation identity.
pub struct Harness<Q: Qdisc> {
    /// The qdisc under test.
    pub q: Q,
    /// The context handed to the qdisc.
    pub ctx: QdiscCtx,
    /// The clock; tests move it by hand.
    pub now: Time,
    /// Every drop so far.
    pub drops: Vec<(Packet, DropReason, bool)>,
    /// Packets and bytes offered.
    pub in_pkts: u64,
    /// Bytes offered.
    pub in_bytes: u64,
    /// Packets dequeued.
    pub out_pkts: u64,
    /// Bytes dequeued.
    pub out_bytes: u64,
}

impl<Q: Qdisc> Harness<Q> {
    /// Wraps `q` with an empty book and a fixed random stream.
    pub fn new(q: Q) -> Self {
        Harness {
            q,
            ctx: QdiscCtx::new(rng::stream(1, "qdisc", 0)),
            now: Time::ZERO,
            drops: vec![],
            in_pkts: 0,
            in_bytes: 0,
            out_pkts: 0,
            out_bytes: 0,
        }
    }

    /// Offers `p` at the current time, stamping its enqueue time.
    pub fn enqueue(&mut self, mut p: Packet) {
        p.enq_time = self.now;
        self.in_pkts += 1;
        self.in_bytes += p.size_bytes as u64;
        self.q.enqueue(p, self.now, &mut self.ctx);
        self.drops.append(&mut self.ctx.drops);
        self.check();
    }

    /// Dequeues at the current time.
    pub fn dequeue(&mut self) -> Option<Packet> {
        let p = self.q.dequeue(self.now, &mut self.ctx);
        self.drops.append(&mut self.ctx.drops);
        if let Some(p) = &p {
            self.out_pkts += 1;
            self.out_bytes += p.size_bytes as u64;
        }
        self.check();
        p
    }

    /// Asserts in = out + dropped + queued, in packets and bytes.
    pub fn check(&self) {
        let dp = self.drops.len() as u64;
        let db: u64 = self.drops.iter().map(|d| d.0.size_bytes as u64).sum();
        assert_eq!(self.in_pkts, self.out_pkts + dp + self.q.len_pkts(), "packet conservation");
        assert_eq!(self.in_bytes, self.out_bytes + db + self.q.len_bytes(), "byte conservation");
    }
}

/// Runs `ops` (true = enqueue a packet of the given size, false = dequeue) and checks
/// conservation after every step and after draining.
pub fn conserves<Q: Qdisc>(q: Q, ops: &[(bool, u32)]) {
    let mut h = Harness::new(q);
    for (i, &(enq, size)) in ops.iter().enumerate() {
        h.now = Time(i as u64 * 100_000);
        if enq {
            h.enqueue(pkt(i as u32 % 7, size));
        } else {
            h.dequeue();
        }
    }
    while h.dequeue().is_some() {}
    assert_eq!(h.q.len_pkts(), 0);
    assert_eq!(h.q.len_bytes(), 0);
}
