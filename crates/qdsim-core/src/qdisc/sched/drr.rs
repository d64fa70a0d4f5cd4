//! Deficit Round Robin, as described by Menth, Mehl & Veith (2017) §2.2 after Shreedhar &
//! Varghese (1995).
//!
//! Principles: non-empty queues sit in an active list; a queue that receives a packet while
//! inactive is appended to its end. When a queue reaches the front of the list its deficit
//! counter grows by `quantum × weight`; it sends head packets while the deficit is at least
//! the head's size, decreasing the deficit by each size; then it leaves the front, returning
//! to the back if it still holds packets, else becoming inactive with its deficit reset to 0.
//!
//! Invariants: a queue is in the active list iff it is non-empty; an inactive queue's
//! deficit is 0. A head dropped by the buffer policy costs no deficit; a queue emptied by a
//! drop becomes inactive with deficit 0, as if it had emptied by sending.

use std::collections::VecDeque;

use super::{remove_from, Queues, Scheduler};

/// DRR scheduler state.
#[derive(Debug)]
pub struct Drr {
    /// Bytes added per turn for weight 1 (`quantum`, §2.2).
    quantum: u64,
    weight: Vec<u64>,
    /// Deficit counter per queue, bytes (§2.2).
    deficit: Vec<u64>,
    /// The active list (§2.2); its front is the queue being served.
    active: VecDeque<usize>,
    in_active: Vec<bool>,
    /// Whether the front queue has received its quantum for the current turn.
    turn: bool,
}

impl Drr {
    /// Returns a DRR scheduler with `quantum` bytes per turn (times each queue's weight).
    pub fn new(quantum: u64) -> Self {
        Drr {
            quantum,
            weight: vec![],
            deficit: vec![],
            active: VecDeque::with_capacity(64),
            in_active: vec![],
            turn: false,
        }
    }
}

impl Scheduler for Drr {
    fn add_queue(&mut self, _q: usize, weight: u64) {
        self.weight.push(weight);
        self.deficit.push(0);
        self.in_active.push(false);
    }

    fn enqueued(&mut self, q: usize, _queues: &Queues) {
        if !self.in_active[q] {
            self.in_active[q] = true;
            self.active.push_back(q);
        }
    }

    fn select(&mut self, queues: &Queues) -> Option<usize> {
        loop {
            let q = *self.active.front()?;
            if !self.turn {
                self.deficit[q] += self.quantum * self.weight[q];
                self.turn = true;
            }
            let b = queues.head_size(q)?;
            if self.deficit[q] >= b {
                return Some(q);
            }
            // Turn over: the deficit does not cover the head; back of the list.
            self.active.rotate_left(1);
            self.turn = false;
        }
    }

    fn sent(&mut self, q: usize, size: u64, queues: &Queues) {
        self.deficit[q] = self.deficit[q].saturating_sub(size);
        self.after_head_left(q, queues);
    }

    fn head_dropped(&mut self, q: usize, _size: u64, queues: &Queues) {
        self.after_head_left(q, queues);
    }

    /// The active list from its front: ns-2's `getMaxflow` scans its circular list from `curr`.
    fn scan(&self, _queues: &Queues, mut f: impl FnMut(usize)) {
        self.active.iter().for_each(|&q| f(q));
    }
}

impl Drr {
    /// Ends the turn of the front queue as soon as its deficit no longer covers its head
    /// (§2.2), so that a queue activated meanwhile lines up behind it, not ahead.
    fn after_head_left(&mut self, q: usize, queues: &Queues) {
        match queues.head_size(q) {
            None => self.deactivate(q),
            Some(b) => {
                if self.turn && self.active.front() == Some(&q) && self.deficit[q] < b {
                    self.active.rotate_left(1);
                    self.turn = false;
                }
            }
        }
    }

    fn deactivate(&mut self, q: usize) {
        if remove_from(&mut self.active, q) == Some(0) {
            self.turn = false;
        }
        self.in_active[q] = false;
        self.deficit[q] = 0;
    }
}
