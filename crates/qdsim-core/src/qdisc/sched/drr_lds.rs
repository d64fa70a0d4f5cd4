//! DRR with Limited Deficit Savings (DRR-LDS), Menth, Mehl & Veith (2017) §3.
//!
//! Principles: an empty queue may keep collecting deficit up to the saving limit `D_max`, so
//! that its next packet can be sent at once instead of waiting for a round. Every queue is in
//! exactly one of three lists (§3.1):
//! - fresh `F`: empty and `D == D_max`;
//! - eligible `E`: non-empty and `D ≥ B` (B = size of its head packet);
//! - collecting `C`: empty with `D < D_max`, or non-empty with `D < B`.
//!
//! Enqueue (§3.2): a fresh queue, or an empty collecting one, is reclassified on arrival (to
//! `E` if its deficit covers the packet, else `C`). Dequeue (§3.3): the first queue of `E`
//! sends its head, its deficit decreases by the size, and it is appended to `E` or `C` (or
//! `F`) by its new state. Deficit increase (§3.4): while `E` is empty and `C` is not, the
//! first queue of `C` gains `quantum × weight`, capped at `D_max` if it is empty, and is
//! appended to `F`, `E` or `C`.
//!
//! Unit: `D_max` is given in quanta (`d_max`); the byte limit is `d_max × quantum`, not scaled
//! by the weight. This is our reading of the paper's figures (D_max = 10 ⇒ 15 000 bytes).
//!
//! Readings where the paper is silent:
//! - New queues start fresh (`D = D_max`), as all queues are "fresh again" when the buffer
//!   runs empty (§3.5).
//! - A queue that empties with `D > D_max` (after sending) has its deficit capped at `D_max`
//!   ("the deficit counter cannot exceed D_max if the queue is empty", §3.4). With
//!   `d_max = 0` this is DRR's reset to 0, and DRR-LDS is DRR packet for packet.
//! - A head dropped by the buffer policy costs no deficit. If the queue empties it is
//!   reclassified (an empty collecting queue keeps its place in `C`); an eligible queue whose
//!   new head no longer fits moves to `C`; a collecting non-empty queue keeps its place.

use std::collections::VecDeque;

use super::{remove_from, Queues, Scheduler};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Fresh,
    Eligible,
    Collecting,
}

/// DRR-LDS scheduler state.
#[derive(Debug)]
pub struct DrrLds {
    /// Bytes added per deficit increase for weight 1 (§3.4).
    quantum: u64,
    /// Deficit saving limit `D_max` in bytes (`d_max × quantum`, §3).
    d_max: u64,
    weight: Vec<u64>,
    /// Deficit counter `D` per queue, bytes (§3.1).
    deficit: Vec<u64>,
    list: Vec<List>,
    /// Fresh list `F` (§3.1).
    fresh: VecDeque<usize>,
    /// Eligible list `E` (§3.1).
    eligible: VecDeque<usize>,
    /// Collecting list `C` (§3.1).
    collecting: VecDeque<usize>,
}

impl DrrLds {
    /// Returns a DRR-LDS scheduler with `quantum` bytes per increase and a saving limit of
    /// `d_max_quanta × quantum` bytes.
    pub fn new(quantum: u64, d_max_quanta: u64) -> Self {
        DrrLds {
            quantum,
            d_max: d_max_quanta * quantum,
            weight: vec![],
            deficit: vec![],
            list: vec![],
            fresh: VecDeque::with_capacity(64),
            eligible: VecDeque::with_capacity(64),
            collecting: VecDeque::with_capacity(64),
        }
    }

    fn state_of(&self, q: usize, queues: &Queues) -> List {
        match queues.head_size(q) {
            None if self.deficit[q] >= self.d_max => List::Fresh,
            None => List::Collecting,
            Some(b) if self.deficit[q] >= b => List::Eligible,
            Some(_) => List::Collecting,
        }
    }

    fn list_mut(&mut self, l: List) -> &mut VecDeque<usize> {
        match l {
            List::Fresh => &mut self.fresh,
            List::Eligible => &mut self.eligible,
            List::Collecting => &mut self.collecting,
        }
    }

    /// Appends `q` to the list matching its state (it must be in no list).
    fn place(&mut self, q: usize, queues: &Queues) {
        let l = self.state_of(q, queues);
        self.list[q] = l;
        self.list_mut(l).push_back(q);
    }

    fn unlist(&mut self, q: usize) {
        let l = self.list[q];
        remove_from(self.list_mut(l), q);
    }

    fn cap_if_empty(&mut self, q: usize, queues: &Queues) {
        if queues.is_empty(q) {
            self.deficit[q] = self.deficit[q].min(self.d_max);
        }
    }
}

impl Scheduler for DrrLds {
    fn add_queue(&mut self, q: usize, weight: u64) {
        self.weight.push(weight);
        self.deficit.push(self.d_max);
        self.list.push(List::Fresh);
        self.fresh.push_back(q);
    }

    fn enqueued(&mut self, q: usize, queues: &Queues) {
        // §3.2: only a queue that was empty can change state on arrival.
        if queues.len_pkts(q) == 1 {
            let new = self.state_of(q, queues);
            if new != self.list[q] {
                self.unlist(q);
                self.list[q] = new;
                self.list_mut(new).push_back(q);
            }
        }
    }

    fn select(&mut self, queues: &Queues) -> Option<usize> {
        loop {
            if let Some(&q) = self.eligible.front() {
                if self.state_of(q, queues) == List::Eligible {
                    return Some(q);
                }
                // Defensive: a queue in E whose head does not fit goes where it belongs.
                self.eligible.pop_front();
                self.place(q, queues);
                continue;
            }
            // §3.4 deficit increase, until E is non-empty or C is empty.
            let q = self.collecting.pop_front()?;
            self.deficit[q] += self.quantum * self.weight[q];
            self.cap_if_empty(q, queues);
            self.place(q, queues);
        }
    }

    fn sent(&mut self, q: usize, size: u64, queues: &Queues) {
        // §3.3: q is the first queue of E.
        self.unlist(q);
        self.deficit[q] = self.deficit[q].saturating_sub(size);
        self.cap_if_empty(q, queues);
        self.place(q, queues);
    }

    fn head_dropped(&mut self, q: usize, _size: u64, queues: &Queues) {
        self.cap_if_empty(q, queues);
        let new = self.state_of(q, queues);
        let old = self.list[q];
        let moves = if queues.is_empty(q) { new != old } else { old == List::Eligible && new != List::Eligible };
        if moves {
            self.unlist(q);
            self.list[q] = new;
            self.list_mut(new).push_back(q);
        }
    }
}
