//! Classifiers: which queue of a multi-queue qdisc a packet joins.
//!
//! Principles (the classifier of a multi-queue qdisc's classifier × scheduler × buffer policy):
//! - `per_flow`: queue = the packet's flow id (fair queueing per connection).
//! - `per_user`: queue = the packet's user id, `Packet::class` (Menth et al. §2.5: one queue
//!   per user, each user holding several flows).
//! - `hashed`: queue = hash(flow, salt) mod `buckets` (stochastic fair queueing, McKenney; the
//!   "buckets" of Kantawala & Turner). The salt is drawn from the qdisc's random stream on the
//!   first packet, so it is deterministic for a given run seed and link.
//! - `ns2_hash`: queue = ns-2.35's `DRR::hash` of the packet's source address (the sending
//!   node's index, as ns-2 numbers nodes in creation order) mod `buckets`: the grouping of
//!   ns-2's `Queue/DRR` (`queue/drr.cc`), nearly one to one for consecutive addresses — not
//!   the random grouping of `hashed` (100 buckets: 93–94 used by 100 consecutive sources,
//!   about 63 by a random hash).
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
    /// `buckets` queues, packets by ns-2's hash of their source address.
    Ns2Hash {
        /// Number of buckets (queues), at least 1.
        buckets: u32,
    },
}

/// Returns ns-2.35's `DRR::hash` of source address `i` before its modulo of the buckets
/// (`queue/drr.cc`, `mask_` 0): `((i + (i >> 8) + ~(i >> 4)) % ((2 << 23) - 1)) + 1`, in C's
/// 32-bit signed arithmetic (`%` truncating toward zero; `~x` is `-x - 1`).
pub fn ns2_drr_hash(address: u32) -> i64 {
    let i = i64::from(address as i32);
    let value = i + (i >> 8) + !(i >> 4);
    value % ((2 << 23) - 1) + 1
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
            // ns-2 takes `hash % buckets_` of a non-negative hash (every node index gives one).
            Classifier::Ns2Hash { buckets } => {
                (ns2_drr_hash(pkt.src).rem_euclid(i64::from((*buckets).max(1))) as usize) % MAX_QUEUES
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
    fn ns2_hash_is_drr_cc_worked_by_hand() {
        // i = 16: 16 + 0 + ~1 = 14, + 1 = 15; i = 15: 15 + 0 + ~0 = 14, + 1 = 15 (a collision
        // ns-2 reports as "Collisions between 15 and 16"); i = 256: 256 + 1 + ~16 = 240, 241.
        assert_eq!([0, 1, 15, 16, 17, 256].map(ns2_drr_hash), [0, 1, 15, 15, 16, 241]);
        let mut r = rng::stream(1, "qdisc", 0);
        let mut c = Classifier::Ns2Hash { buckets: 100 };
        let mut p = pkt(0, 100);
        p.src = 256;
        assert_eq!(c.classify(&p, &mut r), 41);
    }

    #[test]
    fn ns2_hash_spreads_consecutive_sources_nearly_one_to_one() {
        // The count: 100 consecutive node addresses in 100 buckets use 93-94 queues.
        let mut r = rng::stream(1, "qdisc", 0);
        let mut c = Classifier::Ns2Hash { buckets: 100 };
        let used = (2..102u32)
            .map(|src| {
                let mut p = pkt(src, 100);
                p.src = src;
                c.classify(&p, &mut r)
            })
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        assert!((93..=95).contains(&used), "{used} queues");
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
