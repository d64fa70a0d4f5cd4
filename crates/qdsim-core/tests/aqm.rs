//! The AQMs end to end: on a bloated buffer (1000 packets at 10 Mb/s, 1.2 s of queue) with
//! four long-lived NewReno flows, each AQM keeps the standing queue far below a tail-drop
//! FIFO's (mean sojourn under 40 ms, within a few targets, against about 1 s) while the link
//! stays busy, drops for its own reasons, and conserves packets.

use crate::common::*;
use qdsim_core::qdisc::{AredParams, BlueParams, CodelParams, FqCodelParams, PieParams, QdiscConfig, RedParams};
use qdsim_core::Sim;

const RATE: u64 = 10_000_000;

fn run(qdisc: QdiscConfig) -> qdsim_core::RunResults {
    let mut d = dumbbell(RATE, 5, 5, 4, 1000);
    d.qdisc = qdisc;
    d.groups[0].start_jitter_ns = S;
    let cfg = d.config(3, 40 * S, 10 * S);
    let mut sim = Sim::new(&cfg).unwrap();
    sim.run();
    assert_eq!(sim.check_conservation(), Ok(()));
    sim.results()
}

fn aqms() -> Vec<(QdiscConfig, &'static str)> {
    vec![
        (QdiscConfig::Codel(CodelParams::default()), "target_exceeded"),
        (
            QdiscConfig::Red(RedParams {
                min_th_pkts: 20,
                max_th_pkts: 60,
                link_rate_bps: Some(RATE),
                mean_pktsize_bytes: 1500,
                limit_pkts: Some(1000),
                ..RedParams::default()
            }),
            "early",
        ),
        (
            QdiscConfig::Ared(AredParams {
                link_rate_bps: Some(RATE),
                mean_pktsize_bytes: 1500,
                limit_pkts: Some(1000),
                ..AredParams::default()
            }),
            "early",
        ),
        (QdiscConfig::Pie(PieParams::default()), "early"),
        (QdiscConfig::Blue(BlueParams::default()), "early"),
        (QdiscConfig::FqCodel(FqCodelParams { ecn: false, ..FqCodelParams::default() }), "target_exceeded"),
    ]
}

#[test]
fn every_aqm_keeps_the_queue_short_and_the_link_busy() {
    let fifo = run(fifo(1000));
    let fifo_delay = fifo.links[0].mean_delay_s.unwrap();
    assert!(fifo_delay > 0.3, "the FIFO is bloated: {fifo_delay}");
    for (q, reason) in aqms() {
        let kind = q.kind();
        let r = run(q);
        let l = &r.links[0];
        let delay = l.mean_delay_s.unwrap();
        eprintln!("{kind}: delay {delay:.4} s, utilization {:.3}, drops {:?}", l.utilization, l.drops_by_reason);
        assert!(delay < fifo_delay / 5.0 && delay < 0.04, "{kind}: mean delay {delay} vs FIFO {fifo_delay}");
        assert!(l.utilization > 0.9, "{kind}: utilization {}", l.utilization);
        assert!(l.drops_by_reason.get(reason).copied().unwrap_or(0) > 0, "{kind}: {:?}", l.drops_by_reason);
    }
}
