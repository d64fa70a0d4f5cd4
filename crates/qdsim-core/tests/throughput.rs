//! Bottleneck utilization and fairness of NewReno over FIFO (issue 2's acceptance checks).

mod common;

use common::*;

#[test]
fn one_flow_with_a_bdp_buffer_fills_the_bottleneck() {
    // 10 Mb/s, RTT 20 ms: BDP = 10e6 * 0.02 / 8 / 1500 = 16.7 packets; buffer 20 >= BDP.
    let cfg = dumbbell(10_000_000, 5, 5, 1, 20).config(1, 30 * S, 5 * S);
    let r = qdsim_core::run(&cfg).unwrap();
    let u = r.links.iter().find(|l| l.name == "bottleneck").unwrap().utilization;
    assert!(u >= 0.98, "utilization {u}");
}

#[test]
fn one_flow_with_a_one_packet_buffer_underuses_the_bottleneck() {
    let cfg = dumbbell(10_000_000, 5, 5, 1, 1).config(1, 30 * S, 5 * S);
    let r = qdsim_core::run(&cfg).unwrap();
    let u = r.links.iter().find(|l| l.name == "bottleneck").unwrap().utilization;
    assert!(u < 0.9, "utilization {u} with a one-packet buffer");
    assert!(u > 0.2, "utilization {u}: the flow should still make progress");
}

#[test]
fn two_equal_rtt_flows_share_a_fifo_fairly() {
    let mut d = dumbbell(10_000_000, 5, 5, 2, 50);
    d.groups[0].start_jitter_ns = S;
    let cfg = d.config(3, 60 * S, 5 * S);
    let r = qdsim_core::run(&cfg).unwrap();
    let x: Vec<f64> = r.flows.iter().map(|f| f.goodput_bps).collect();
    let jain = x.iter().sum::<f64>().powi(2) / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>());
    assert!(jain >= 0.95, "Jain index {jain}, goodputs {x:?}");
}
