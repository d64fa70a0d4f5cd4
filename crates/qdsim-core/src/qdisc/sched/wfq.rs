//! Weighted Fair Queueing as packetized GPS with virtual start and finish tags, and WF2Q+.
//!
//! Sources: Demers, Keshav & Shenker (1989) and Parekh & Gallager (1993) for tagged WFQ;
//! Golestani (1994) for the self-clocked virtual time used by `wfq` (SCFQ); Bennett & Zhang,
//! "Hierarchical packet fair queueing algorithms" (1996/1997) for WF2Q+.
//!
//! Principles: each queue `i` with weight `w_i` keeps the start tag `S_i` and finish tag `F_i`
//! of its head packet (tags only for heads, as in WF2Q+, so the state is per queue):
//! - a packet reaching the head of a queue that was empty gets `S_i = max(V, F_i)`, one that
//!   follows a sent packet gets `S_i = F_i`; then `F_i = S_i + L / w_i`;
//! - `wfq` (SCFQ): sends the head with the smallest `F`; the system virtual time `V` is the
//!   finish tag of the packet last sent. This is the self-clocked approximation, not the
//!   exact GPS virtual time (which would need the fluid system's backlog).
//! - `wf2q_plus`: sends, among heads with `S_i ≤ V` (eligible), the one with the smallest
//!   `F`; after sending `L` bytes, `V ← max(V + L / Σ_{backlogged} w_j, min_{backlogged} S_j)`.
//!   Bennett & Zhang use guaranteed rates `r_i` with `Σ r_i ≤ r`; we use the weights of the
//!   queues backlogged in the packet system, so spare capacity is shared by weight.
//!
//! Ties go to the lowest queue index. Tags are integers: bytes × 2^16 / weight, so runs are
//! bit-for-bit reproducible (no floating point).
//!
//! Deviations: a head dropped by the buffer policy gives its virtual service back (the next
//! head keeps the dropped packet's `S`). When the system empties, `V` jumps to the largest
//! finish tag, as GPS would have finished every packet by then; a queue returning after an
//! idle period therefore starts at `V`. Selection scans the backlogged queues: O(queues).

use super::{Queues, Scheduler};

/// Fixed-point scale of virtual time: one byte at weight 1 is `SCALE` units.
const SCALE: u64 = 1 << 16;

/// WFQ (SCFQ virtual time) or WF2Q+ scheduler state.
#[derive(Debug)]
pub struct Wfq {
    /// WF2Q+ eligibility (`S ≤ V`) and virtual time, instead of SCFQ.
    wf2q_plus: bool,
    weight: Vec<u64>,
    /// Start tag `S_i` of queue i's head packet (of its last packet when empty).
    start: Vec<u64>,
    /// Finish tag `F_i` of queue i's head packet (of its last packet when empty).
    finish: Vec<u64>,
    /// Non-empty queues, unordered.
    backlogged: Vec<usize>,
    /// System virtual time `V`.
    v: u64,
}

impl Wfq {
    /// Returns a WFQ scheduler (SCFQ virtual time), or WF2Q+ if `wf2q_plus`.
    pub fn new(wf2q_plus: bool) -> Self {
        Wfq { wf2q_plus, weight: vec![], start: vec![], finish: vec![], backlogged: Vec::with_capacity(64), v: 0 }
    }

    fn tag(&self, q: usize, bytes: u64) -> u64 {
        bytes * SCALE / self.weight[q]
    }

    fn leave(&mut self, q: usize) {
        if let Some(p) = self.backlogged.iter().position(|&x| x == q) {
            self.backlogged.swap_remove(p);
        }
        if self.backlogged.is_empty() {
            // End of a busy period: GPS has finished every packet.
            let max_f = self.finish.iter().copied().max().unwrap_or(0);
            self.v = self.v.max(max_f);
        }
    }

    fn min_start(&self) -> Option<u64> {
        self.backlogged.iter().map(|&q| self.start[q]).min()
    }
}

impl Scheduler for Wfq {
    fn add_queue(&mut self, _q: usize, weight: u64) {
        self.weight.push(weight.max(1));
        self.start.push(0);
        self.finish.push(0);
    }

    fn enqueued(&mut self, q: usize, queues: &Queues) {
        if queues.len_pkts(q) == 1 {
            let b = queues.head_size(q).unwrap_or(0);
            self.start[q] = self.v.max(self.finish[q]);
            self.finish[q] = self.start[q] + self.tag(q, b);
            self.backlogged.push(q);
        }
    }

    fn select(&mut self, _queues: &Queues) -> Option<usize> {
        if self.wf2q_plus {
            // V is at least the smallest start tag, so some head is always eligible.
            self.v = self.v.max(self.min_start()?);
        }
        let v = self.v;
        let wf2q = self.wf2q_plus;
        self.backlogged.iter().copied().filter(|&q| !wf2q || self.start[q] <= v).min_by_key(|&q| (self.finish[q], q))
    }

    fn sent(&mut self, q: usize, size: u64, queues: &Queues) {
        if self.wf2q_plus {
            let w_b: u64 = self.backlogged.iter().map(|&j| self.weight[j]).sum();
            self.v += size * SCALE / w_b.max(1);
        } else {
            self.v = self.v.max(self.finish[q]);
        }
        match queues.head_size(q) {
            Some(b) => {
                self.start[q] = self.finish[q];
                self.finish[q] = self.start[q] + self.tag(q, b);
            }
            None => self.leave(q),
        }
        if self.wf2q_plus {
            if let Some(s) = self.min_start() {
                self.v = self.v.max(s);
            }
        }
    }

    fn head_dropped(&mut self, q: usize, _size: u64, queues: &Queues) {
        match queues.head_size(q) {
            Some(b) => self.finish[q] = self.start[q] + self.tag(q, b),
            None => {
                self.finish[q] = self.start[q];
                self.leave(q);
            }
        }
    }
}
