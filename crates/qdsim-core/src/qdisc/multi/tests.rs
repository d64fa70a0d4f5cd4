//! Hand-built packet sequences through every classifier × scheduler × buffer policy.

use super::*;
use crate::qdisc::testing::{conserves, pkt, Harness};
use crate::qdisc::{DropReason, QdiscParams};
use proptest::prelude::*;

fn params(f: impl FnOnce(&mut FqParams)) -> FqParams {
    let mut p = FqParams::default();
    f(&mut p);
    p
}

/// Returns a packet of `flow` with `size` bytes and sequence number `seq`.
fn spkt(flow: u32, size: u32, seq: u64) -> Packet {
    let mut p = pkt(flow, size);
    p.number = seq;
    p
}

fn drain<Q: Qdisc>(h: &mut Harness<Q>) -> Vec<u32> {
    std::iter::from_fn(|| h.dequeue()).map(|p| p.flow).collect()
}

#[test]
fn drr_sends_quantum_sized_rounds() {
    let mut h = Harness::new(Multi::drr(params(|p| p.quantum_bytes = 1500)));
    for _ in 0..6 {
        h.enqueue(pkt(0, 500));
        h.enqueue(pkt(1, 500));
    }
    assert_eq!(drain(&mut h), vec![0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1]);
}

#[test]
fn drr_carries_the_unused_deficit_to_the_next_round() {
    // Quantum 1000, 600-byte packets: round 1 sends 1 (400 left), round 2 sends 2 (200 left).
    let mut h = Harness::new(Multi::drr(params(|p| p.quantum_bytes = 1000)));
    for _ in 0..4 {
        h.enqueue(pkt(0, 600));
        h.enqueue(pkt(1, 600));
    }
    assert_eq!(drain(&mut h), vec![0, 1, 0, 0, 1, 1, 0, 1]);
}

#[test]
fn drr_resets_the_deficit_when_a_queue_empties() {
    let mut h = Harness::new(Multi::drr(params(|p| p.quantum_bytes = 1500)));
    h.enqueue(pkt(0, 100)); // leaves 1400 of deficit, then empties: reset to 0
    h.enqueue(pkt(1, 1500));
    assert_eq!(drain(&mut h), vec![0, 1]);
    for _ in 0..3 {
        h.enqueue(pkt(0, 1000));
    }
    h.enqueue(pkt(1, 1000));
    // Without the reset flow 0 would send two packets (1400 + 1500 ≥ 2000) in its turn.
    assert_eq!(drain(&mut h), vec![0, 1, 0, 0]);
}

#[test]
fn drr_lds_serves_a_fresh_queues_first_packet_ahead_of_collecting_queues() {
    let mut h = Harness::new(Multi::drr_lds(params(|p| p.d_max = 10)));
    for _ in 0..30 {
        h.enqueue(pkt(0, 1500));
        h.enqueue(pkt(1, 1500));
    }
    // Both start fresh with 10 quanta saved: 20 packets spend the savings, then plain rounds.
    for _ in 0..25 {
        h.dequeue();
    }
    h.enqueue(pkt(2, 1500));
    assert_eq!(h.dequeue().map(|p| p.flow), Some(2));

    // Plain DRR puts the newcomer behind the active queues.
    let mut d = Harness::new(Multi::drr(FqParams::default()));
    for _ in 0..30 {
        d.enqueue(pkt(0, 1500));
        d.enqueue(pkt(1, 1500));
    }
    for _ in 0..25 {
        d.dequeue();
    }
    d.enqueue(pkt(2, 1500));
    assert_ne!(d.dequeue().map(|p| p.flow), Some(2));
}

#[test]
fn drr_lds_empty_queues_collect_deficit_only_up_to_d_max() {
    // d_max = 2 quanta = 3000 bytes: a returning queue may send two 1500-byte packets at once.
    let mut h = Harness::new(Multi::drr_lds(params(|p| p.d_max = 2)));
    for _ in 0..6 {
        h.enqueue(pkt(0, 1500));
    }
    while h.dequeue().is_some() {} // buffer empty: every queue fresh again (§3.5)
    for _ in 0..4 {
        h.enqueue(pkt(1, 1500));
        h.enqueue(pkt(0, 1500));
    }
    // Both fresh with 3000 bytes; E = [1, 0] interleaves packet by packet, then DRR rounds.
    assert_eq!(drain(&mut h), vec![1, 0, 1, 0, 1, 0, 1, 0]);
}

#[test]
fn longest_queue_drop_removes_the_head_of_the_longest_queue() {
    let mut h = Harness::new(Multi::drr(params(|p| p.limit_pkts = Some(5))));
    for s in 0..3 {
        h.enqueue(spkt(0, 1000, s));
    }
    h.enqueue(spkt(1, 1000, 10));
    h.enqueue(spkt(1, 1000, 11));
    h.enqueue(spkt(2, 1000, 20));
    let d: Vec<(u32, u64, DropReason, bool)> = h.drops.iter().map(|(p, r, a)| (p.flow, p.seq(), *r, *a)).collect();
    assert_eq!(d, vec![(0, 0, DropReason::LongestQueue, false)]);
    assert_eq!(h.q.len_pkts(), 5);
}

#[test]
fn longest_queue_ties_go_to_the_queue_whose_head_is_oldest() {
    let mut h = Harness::new(Multi::drr(params(|p| p.limit_pkts = Some(4))));
    for (t, flow, seq) in [(10, 1, 10), (20, 0, 0), (30, 0, 1), (40, 1, 11)] {
        h.now = Time(t);
        h.enqueue(spkt(flow, 1000, seq));
    }
    // Queues 0 and 1 hold two packets each; queue 1's head (seq 10) is the older one.
    h.now = Time(50);
    h.enqueue(spkt(2, 1000, 20));
    let d: Vec<(u32, u64)> = h.drops.iter().map(|(p, _, _)| (p.flow, p.seq())).collect();
    assert_eq!(d, vec![(1, 10)]);
}

#[test]
fn longest_queue_is_measured_in_bytes_for_a_byte_buffer() {
    let mut h = Harness::new(Multi::drr(params(|p| p.limit_bytes = Some(4000))));
    h.enqueue(spkt(0, 500, 0));
    h.enqueue(spkt(0, 500, 1));
    h.enqueue(spkt(0, 500, 2)); // flow 0: 3 packets, 1500 bytes
    h.enqueue(spkt(1, 1200, 10));
    h.enqueue(spkt(1, 1200, 11)); // flow 1: 2 packets, 2400 bytes
    h.enqueue(spkt(2, 500, 20)); // 4400 > 4000: drop flow 1's head
    let d: Vec<(u32, u64)> = h.drops.iter().map(|(p, _, _)| (p.flow, p.seq())).collect();
    assert_eq!(d, vec![(1, 10)]);
}

#[test]
fn drop_on_dequeue_drops_packets_older_than_t_d() {
    let t_d = 10_000_000;
    let mut h = Harness::new(Multi::drr(params(|p| {
        p.buffer = "drop_on_dequeue".into();
        p.t_d_ns = Some(t_d);
    })));
    h.enqueue(spkt(0, 1000, 0));
    h.enqueue(spkt(0, 1000, 1));
    h.now = Time(10_000_000);
    h.enqueue(spkt(1, 1000, 10));
    h.now = Time(20_000_000);
    h.enqueue(spkt(0, 1000, 2));
    // Flow 0's first two waited 20 ms > 10 ms; flow 1's waited exactly 10 ms: kept.
    let out: Vec<(u32, u64)> = std::iter::from_fn(|| h.dequeue()).map(|p| (p.flow, p.seq())).collect();
    assert_eq!(out, vec![(0, 2), (1, 10)]);
    let d: Vec<(u64, DropReason, bool)> = h.drops.iter().map(|(p, r, a)| (p.seq(), *r, *a)).collect();
    assert_eq!(d, vec![(0, DropReason::DelayThreshold, false), (1, DropReason::DelayThreshold, false)]);
}

#[test]
fn per_queue_limits_tail_drop_each_queue_separately() {
    let mut h = Harness::new(Multi::wfq(params(|p| {
        p.buffer = "per_queue".into();
        p.queue_limits = vec![3000, 1000];
    })));
    for s in 0..4 {
        h.enqueue(spkt(0, 1000, s)); // fourth exceeds 3000
        h.enqueue(spkt(1, 1000, 10 + s)); // second onwards exceed 1000
        h.enqueue(spkt(2, 1000, 20 + s)); // queue 2 uses the last limit, 1000
    }
    let d: Vec<u64> = h
        .drops
        .iter()
        .map(|(p, r, a)| {
            assert_eq!((*r, *a), (DropReason::Overflow, true));
            p.seq()
        })
        .collect();
    assert_eq!(d, vec![11, 21, 12, 22, 3, 13, 23]);
}

#[test]
fn wfq_departure_order_matches_hand_computed_finish_tags() {
    // Weights 1, 1, 2. Finish tags (bytes / weight): flow 0: 1000, 2000; flow 1: 500;
    // flow 2: 450, 900. Smallest first: 2 (450), 1 (500), 2 (900), 0 (1000), 0 (2000).
    let mut h = Harness::new(Multi::wfq(params(|p| p.weights = vec![1, 1, 2])));
    h.enqueue(pkt(0, 1000));
    h.enqueue(pkt(0, 1000));
    h.enqueue(pkt(1, 500));
    h.enqueue(pkt(2, 900));
    h.enqueue(pkt(2, 900));
    assert_eq!(drain(&mut h), vec![2, 1, 2, 0, 0]);
}

#[test]
fn wf2q_plus_interleaves_a_heavy_queue_that_wfq_sends_in_a_burst() {
    // Bennett & Zhang's example: queue 0 weighs 10 with 10 packets, queues 1..=10 weigh 1
    // with one packet each. All finish tags are ≤ 1000, so WFQ sends queue 0's ten first;
    // WF2Q+ holds queue 0 back until its start tag is eligible.
    let mk = |wf2q: bool| {
        let p = params(|p| p.weights = std::iter::once(10).chain(std::iter::repeat_n(1, 10)).collect());
        let q = if wf2q { Multi::wf2q_plus(p.clone()) } else { Multi::wfq(p.clone()) };
        let mut h = Harness::new(q);
        for _ in 0..10 {
            h.enqueue(pkt(0, 1000));
        }
        for f in 1..=10 {
            h.enqueue(pkt(f, 1000));
        }
        drain(&mut h)
    };
    assert_eq!(&mk(false)[..10], &[0; 10]);
    let w = mk(true);
    assert_eq!(&w[..4], &[0, 1, 0, 2]);
}

fn byte_split<Q: Qdisc>(q: Q) -> (u64, u64) {
    let mut h = Harness::new(q);
    for _ in 0..300 {
        h.enqueue(pkt(0, 1000));
        h.enqueue(pkt(1, 1000));
    }
    let mut b = [0u64; 2];
    for _ in 0..150 {
        let p = h.dequeue().unwrap();
        b[p.flow as usize] += p.size_bytes as u64;
    }
    (b[0], b[1])
}

#[test]
fn weights_two_to_one_give_a_two_to_one_byte_split() {
    let p = params(|p| p.weights = vec![2, 1]);
    for (name, (a, b)) in [
        ("drr", byte_split(Multi::drr(p.clone()))),
        (
            "drr_lds",
            byte_split(Multi::drr_lds(params(|q| {
                q.weights = vec![2, 1];
                q.d_max = 0;
            }))),
        ),
        ("wfq", byte_split(Multi::wfq(p.clone()))),
        ("wf2q_plus", byte_split(Multi::wf2q_plus(p.clone()))),
    ] {
        assert!((a as i64 - 2 * b as i64).abs() <= 3000, "{name}: {a} vs {b}");
    }
}

#[test]
fn hashed_classifier_spreads_flows_over_buckets() {
    let mut h = Harness::new(Multi::drr(params(|p| {
        p.classifier = "hashed".into();
        p.buckets = 4;
    })));
    for f in 0..40 {
        h.enqueue(pkt(f, 100));
    }
    assert!(h.q.queues.count() <= 4);
    assert_eq!(drain(&mut h).len(), 40);
}

#[test]
fn bad_values_are_refused_by_key() {
    let key = |f: fn(&mut FqParams)| params(f).validate().unwrap_err().key;
    assert_eq!(key(|p| p.weights = vec![1, 0]), "weights[1]");
    assert_eq!(key(|p| p.quantum_bytes = 0), "quantum");
    assert_eq!(key(|p| p.quantum_bytes = -1500), "quantum");
    assert_eq!(key(|p| p.d_max = -1), "d_max");
    assert_eq!(key(|p| p.classifier = "per_packet".into()), "classifier");
    assert_eq!(key(|p| p.buffer = "infinite".into()), "buffer");
    assert_eq!(key(|p| p.buffer = "drop_on_dequeue".into()), "t_d");
    assert_eq!(key(|p| p.buffer = "per_queue".into()), "queue_limits");
    // A bad per-queue limit is refused even with a buffer that would ignore it.
    assert_eq!(key(|p| p.queue_limits = vec![1500, -1]), "queue_limits[1]");
    assert_eq!(key(|p| p.buckets = 0), "buckets");
    assert_eq!(key(|p| p.limit_pkts = Some(0)), "limit");
    assert!(FqParams::default().validate().is_ok());
}

#[test]
fn configs_parse_by_the_papers_names() {
    for kind in ["drr", "drr_lds", "wfq", "wf2q_plus"] {
        let j = format!(
            r#"{{"kind":"{kind}","classifier":"per_user","weights":[1,2],"quantum_bytes":1500,"limit_pkts":20}}"#
        );
        let c: crate::qdisc::QdiscConfig = serde_json::from_str(&j).unwrap();
        assert_eq!(c.kind(), kind);
        c.validate().unwrap();
        let _ = c.build();
    }
}

/// One op: (enqueue?, flow, size).
fn ops() -> impl Strategy<Value = Vec<(bool, u32, u32)>> {
    proptest::collection::vec((prop::bool::weighted(0.6), 0u32..6, 40u32..1500), 0..300)
}

/// Departures as (flow, seq) and drops as (flow, seq, reason), in order.
type Trace = (Vec<(u32, u64)>, Vec<(u32, u64, DropReason)>);

/// Runs `ops` and returns the departures and drops in order.
fn trace<Q: Qdisc>(q: Q, ops: &[(bool, u32, u32)]) -> Trace {
    let mut h = Harness::new(q);
    let mut out = vec![];
    for (i, &(enq, flow, size)) in ops.iter().enumerate() {
        h.now = Time(i as u64 * 300_000);
        if enq {
            h.enqueue(spkt(flow, size, i as u64));
        } else if let Some(p) = h.dequeue() {
            out.push((p.flow, p.seq()));
        }
    }
    while let Some(p) = h.dequeue() {
        out.push((p.flow, p.seq()));
    }
    (out, h.drops.iter().map(|(p, r, _)| (p.flow, p.seq(), *r)).collect())
}

fn buffer_variant(b: u8, p: &mut FqParams) {
    match b {
        0 => p.limit_pkts = Some(8),
        1 => p.limit_bytes = Some(6000),
        2 => {
            p.buffer = "drop_on_dequeue".into();
            p.t_d_ns = Some(2_000_000);
        }
        3 => {
            p.buffer = "per_queue".into();
            p.queue_limits = vec![3000, 1500, 4500];
        }
        _ => {}
    }
}

proptest! {
    #[test]
    fn drr_lds_with_d_max_zero_is_drr_packet_for_packet(ops in ops(), b in 0u8..5, quantum in 100i64..3000,
                                                        w in proptest::collection::vec(1i64..4, 0..6)) {
        let mut p = params(|p| {
            p.quantum_bytes = quantum;
            p.weights = w;
            p.d_max = 0;
        });
        buffer_variant(b, &mut p);
        prop_assert_eq!(trace(Multi::drr(p.clone()), &ops), trace(Multi::drr_lds(p.clone()), &ops));
    }

    #[test]
    fn every_combination_conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..300),
                                                     s in 0u8..4, b in 0u8..5, c in 0u8..3, d_max in 0i64..4) {
        let mut p = params(|p| {
            p.classifier = ["per_flow", "per_user", "hashed"][c as usize].into();
            p.buckets = 3;
            p.weights = vec![1, 3, 2];
            p.quantum_bytes = 700;
            p.d_max = d_max;
        });
        buffer_variant(b, &mut p);
        p.validate().unwrap();
        match s {
            0 => conserves(Multi::drr(p.clone()), &ops),
            1 => conserves(Multi::drr_lds(p.clone()), &ops),
            2 => conserves(Multi::wfq(p.clone()), &ops),
            _ => conserves(Multi::wf2q_plus(p.clone()), &ops),
        }
    }
}
