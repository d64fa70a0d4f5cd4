//! Test support of the buffer policies: parameters, packets, the drop log, and the
//! conservation property of the Kantawala–Turner family under every scheduler and classifier.

use proptest::prelude::*;

use crate::packet::Packet;
use crate::qdisc::multi::{FqParams, Multi};
use crate::qdisc::testing::{conserves, pkt, Harness};
use crate::qdisc::{DropReason, Qdisc, QdiscParams};

/// Returns the default parameters with buffer policy `buffer`, changed by `f`.
pub fn fq(buffer: &str, f: impl FnOnce(&mut FqParams)) -> FqParams {
    let mut p = FqParams { buffer: buffer.into(), ..FqParams::default() };
    f(&mut p);
    p
}

/// Returns a packet of `flow` with `size` bytes and sequence number `seq`.
pub fn seq_pkt(flow: u32, size: u32, seq: u64) -> Packet {
    let mut p = pkt(flow, size);
    p.number = seq;
    p
}

/// Returns the drops so far as (flow, seq, reason, was the arrival).
pub fn drops<Q: Qdisc>(h: &Harness<Q>) -> Vec<(u32, u64, DropReason, bool)> {
    h.drops.iter().map(|(p, r, a)| (p.flow, p.seq(), *r, *a)).collect()
}

proptest! {
    #[test]
    fn every_discard_policy_conserves_packets_and_bytes(
        ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..300),
        b in 0usize..5, s in 0u8..4, c in 0u8..3, in_bytes in any::<bool>(), size in 1u64..12,
    ) {
        let buffer = ["ns2_lqd", "qsdrr", "tdrr", "dtdrr", "dsdrr"][b];
        let p = fq(buffer, |p| {
            p.classifier = ["per_flow", "per_user", "hashed"][c as usize].into();
            p.buckets = 3;
            p.quantum_bytes = 700;
            if in_bytes {
                p.limit_bytes = Some(size * 1000);
            } else {
                p.limit_pkts = Some(size);
            }
            // Short periods, so that the 30 ms of operations cross many of them.
            p.tdrr_period_ns = 1_000_000;
            p.dsdrr_period_ns = 2_000_000;
            p.qsdrr_release = if size % 2 == 0 { "shortest" } else { "empty" }.into();
        });
        p.validate().unwrap();
        match s {
            0 => conserves(Multi::drr(p.clone()), &ops),
            1 => conserves(Multi::drr_lds(p.clone()), &ops),
            2 => conserves(Multi::wfq(p.clone()), &ops),
            _ => conserves(Multi::wf2q_plus(p.clone()), &ops),
        }
    }
}
