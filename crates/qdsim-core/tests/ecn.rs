//! ECN end to end (RFC 3168): an AQM that marks instead of dropping, ECN-capable senders.
//! With CoDel marking (RFC 8289 §5: every drop decision becomes a mark for ECT packets) no data
//! packet is dropped; with RED, early drops become marks while forced drops stay drops. Each
//! sender reduces at most once per round trip of marks.

use crate::common::*;
use qdsim_core::config::{SamplingConfig, SourceConfig};
use qdsim_core::qdisc::{CodelParams, QdiscConfig, RedParams};
use qdsim_core::scenario::plain_tcp;
use qdsim_core::tcp::TcpConfig;

fn ecn_run(qdisc: QdiscConfig) -> qdsim_core::RunResults {
    let mut d = dumbbell(10_000_000, 5, 5, 4, 1000);
    d.qdisc = qdisc;
    let tcp = TcpConfig { ecn: true, ..plain_tcp(false) };
    d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp, repeat: None };
    d.groups[0].start_jitter_ns = S;
    let mut cfg = d.config(7, 30 * S, 5 * S);
    cfg.sampling = SamplingConfig { tcp_events: true, ..SamplingConfig::default() };
    qdsim_core::run(&cfg).unwrap()
}

/// Asserts that each flow's ECN reductions are logged and at least one RTT (20 ms) apart.
fn reductions_are_an_rtt_apart(r: &qdsim_core::RunResults) {
    let log = &r.series.tcp_events;
    for (flow, f) in r.flows.iter().enumerate() {
        let times: Vec<f64> = (0..log.t.len())
            .filter(|&i| log.flow[i] == flow as u32 && log.kind[i] == "ecn_reduction")
            .map(|i| log.t[i])
            .collect();
        assert_eq!(times.len() as u64, f.ecn_reductions_total, "the log covers the whole run");
        let min_gap = times.windows(2).map(|w| w[1] - w[0]).fold(f64::INFINITY, f64::min);
        assert!(min_gap >= 0.020, "flow {flow}: two reductions {min_gap:.4} s apart");
    }
}

#[test]
fn codel_marking_replaces_every_drop_and_senders_halve_once_per_rtt() {
    let r = ecn_run(QdiscConfig::Codel(CodelParams { ecn: true, limit_pkts: 1000, ..CodelParams::default() }));
    let bottleneck = &r.links[0];
    assert!(bottleneck.marks > 20, "CoDel marked {} packets", bottleneck.marks);
    assert!(
        r.flows.iter().all(|f| f.drops == 0 && f.retransmits == 0 && f.timeouts == 0),
        "no data packet was dropped"
    );
    assert!(r.flows.iter().all(|f| f.ecn_reductions > 5));
    assert!(bottleneck.utilization > 0.95, "utilization {}", bottleneck.utilization);
    reductions_are_an_rtt_apart(&r);
}

#[test]
fn red_marks_early_drops_and_senders_halve_once_per_rtt() {
    let r = ecn_run(QdiscConfig::Red(RedParams {
        min_th_pkts: 5,
        max_th_pkts: 15,
        max_p: 0.1,
        ecn: true,
        limit_pkts: Some(1000),
        ..RedParams::default()
    }));
    let bottleneck = &r.links[0];
    assert!(bottleneck.marks > 100, "RED marked {} packets", bottleneck.marks);
    assert_eq!(bottleneck.drops, 0, "after start-up, marks replace drops: {:?}", bottleneck.drops_by_reason);
    assert!(r.flows.iter().all(|f| f.ecn_reductions > 10));
    reductions_are_an_rtt_apart(&r);
}
