//! Multi-queue qdiscs (DRR, DRR-LDS, WFQ, WF2Q+ with every buffer policy) inside the simulator:
//! conservation on a dumbbell, and per-user fairness between a heavy and a light TCP user.

use crate::common::*;
use qdsim_core::qdisc::{FqParams, QdiscConfig};
use qdsim_core::scenario::{plain_tcp, FlowGroup};
use qdsim_core::Sim;

fn kinds(p: FqParams) -> [QdiscConfig; 4] {
    [QdiscConfig::Drr(p.clone()), QdiscConfig::DrrLds(p.clone()), QdiscConfig::Wfq(p.clone()), QdiscConfig::Wf2qPlus(p)]
}

fn buffers() -> Vec<FqParams> {
    vec![
        FqParams { limit_pkts: Some(20), ..FqParams::default() },
        FqParams { buffer: "drop_on_dequeue".into(), t_d_ns: Some(24 * MS), ..FqParams::default() },
        FqParams { buffer: "per_queue".into(), queue_limits: vec![15_000, 5_000, 10_000], ..FqParams::default() },
    ]
}

/// Heavy user 0 with `heavy` flows, light user 1 with one flow; returns the light user's share
/// of the bytes delivered in the measurement window.
fn light_share(qdisc: QdiscConfig, heavy: usize) -> f64 {
    let mut d = dumbbell(10_000_000, 5, 3, heavy, 100);
    d.qdisc = qdisc;
    d.groups[0].start_jitter_ns = S / 2;
    d.groups.push(FlowGroup { start_jitter_ns: S / 2, ..FlowGroup::bulk("light", 1, 3 * MS, plain_tcp(false)) });
    let mut cfg = d.config(7, 12 * S, 4 * S);
    for (i, f) in cfg.flows.iter_mut().enumerate() {
        f.user = Some(u32::from(i >= heavy));
    }
    let mut sim = Sim::new(&cfg).unwrap();
    sim.run();
    assert_eq!(sim.check_conservation(), Ok(()));
    let r = sim.results();
    let light: u64 = r.flows.iter().filter(|f| f.group == "light").map(|f| f.delivered_bytes).sum();
    let all: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
    light as f64 / all as f64
}

#[test]
fn every_multi_queue_qdisc_conserves_packets_in_the_simulator() {
    for b in buffers() {
        for classifier in ["per_flow", "per_user", "hashed"] {
            let p = FqParams { classifier: classifier.into(), buckets: 3, weights: vec![1, 2], ..b.clone() };
            for q in kinds(p) {
                q.validate().unwrap();
                let mut d = dumbbell(5_000_000, 5, 3, 4, 20);
                d.qdisc = q;
                let cfg = d.config(3, 2 * S, S / 2);
                let mut sim = Sim::new(&cfg).unwrap();
                sim.run_until(qdsim_core::time::Time::from_ns(1_300 * MS));
                assert_eq!(sim.check_conservation(), Ok(()));
                sim.run();
                assert_eq!(sim.check_conservation(), Ok(()));
            }
        }
    }
}

#[test]
fn per_user_fair_queueing_with_a_large_buffer_gives_a_light_user_its_half() {
    let fifo_share = light_share(fifo(100), 5);
    assert!(fifo_share < 0.3, "FIFO light share {fifo_share}");
    for q in kinds(FqParams { classifier: "per_user".into(), limit_pkts: Some(100), ..FqParams::default() }) {
        let kind = q.kind();
        let share = light_share(q, 5);
        assert!((0.4..0.6).contains(&share), "{kind}: light share {share}");
    }
}
