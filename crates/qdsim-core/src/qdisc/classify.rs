//! Classifiers: which queue of a multi-queue qdisc a packet joins.
//!
//! Principles (the classifier of a multi-queue qdisc's classifier × scheduler × buffer policy):
//! - `per_flow`: queue = the packet's flow id (fair queueing per connection).
//! - `per_user`: queue = the packet's user id, `Packet::class` (Menth et al. §2.5: one queue
//!   per user, each user holding several flows).
//! - `hashed`: queue = hash(flow, salt) mod `buckets` (stochastic fair queueing, McKenney; the
//!   "buckets" of Kantawala & Turner). The salt is drawn from the qdisc's random stream on the
//!   first packet, so it is deterministic for a given run seed and link.
//!
//! Invariant: the returned index is below [`MAX_QUEUES`]; ids at or above it fold modulo
//! `MAX_QUEUES` (flow and user ids are small indices in practice, so this never happens in
//! the experiments; it only bounds memory).

use rand::RngCore;

use crate::packet::Packet;
use crate::rng::{splitmix64, StreamRng};

/// Upper bound on the number of queues a classifier can address.
pub const MAX_QUEUES: usize = 1 << 16;

/// How packets map to queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classifier {
    /// One queue per flow (`Packet::flow`).
    PerFlow,
    /// One queue per user (`Packet::class`).
    PerUser,
    /// `buckets` queues, flows hashed with a salt.
    Hashed {
        /// Number of buckets (queues), at least 1.
        buckets: u32,
        /// Salt of the hash; `None` until drawn from the random stream on first use.
        salt: Option<u64>,
    },
}

impl Classifier {
    /// Returns the queue index of `pkt`, drawing the salt from `rng` on first use.
    pub fn classify(&mut self, pkt: &Packet, rng: &mut StreamRng) -> usize {
        match self {
            Classifier::PerFlow => pkt.flow as usize % MAX_QUEUES,
            Classifier::PerUser => pkt.class as usize % MAX_QUEUES,
            Classifier::Hashed { buckets, salt } => {
                let s = *salt.get_or_insert_with(|| rng.next_u64());
                (splitmix64(pkt.flow as u64 ^ s) % (*buckets).max(1) as u64) as usize % MAX_QUEUES
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::pkt;
    use crate::rng;

    #[test]
    fn per_flow_and_per_user_use_the_packet_ids() {
        let mut r = rng::stream(1, "qdisc", 0);
        let mut p = pkt(7, 100);
        p.class = 3;
        assert_eq!(Classifier::PerFlow.classify(&p, &mut r), 7);
        assert_eq!(Classifier::PerUser.classify(&p, &mut r), 3);
    }

    #[test]
    fn hashed_stays_in_range_and_is_stable_per_flow() {
        let mut r = rng::stream(1, "qdisc", 0);
        let mut c = Classifier::Hashed { buckets: 5, salt: None };
        let a: Vec<usize> = (0..50).map(|f| c.classify(&pkt(f, 100), &mut r)).collect();
        let b: Vec<usize> = (0..50).map(|f| c.classify(&pkt(f, 100), &mut r)).collect();
        assert!(a.iter().all(|&q| q < 5));
        assert_eq!(a, b);
        assert!(a.iter().collect::<std::collections::BTreeSet<_>>().len() > 1);
    }

    #[test]
    fn hashed_salt_is_deterministic_for_a_seed() {
        let run = |seed| {
            let mut r = rng::stream(seed, "qdisc", 0);
            let mut c = Classifier::Hashed { buckets: 1000, salt: None };
            (0..20).map(|f| c.classify(&pkt(f, 100), &mut r)).collect::<Vec<_>>()
        };
        assert_eq!(run(4), run(4));
        assert_ne!(run(4), run(5));
    }
}
