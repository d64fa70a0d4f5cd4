//! NewReno's throughput under random loss follows the Mathis et al. law
//! `MSS / RTT * sqrt(3 / (2p))` (issue 2: within 25 % for p = 0.1 % and 1 %).

use crate::common::*;
use qdsim_core::qdisc::{FifoParams, QdiscConfig};

fn mathis_ratio(p: f64, seconds: u64) -> f64 {
    // 100 Mb/s and an unlimited FIFO: no queueing loss, so random loss is the only signal.
    let mut d = dumbbell(100_000_000, 20, 30, 1, 1);
    d.qdisc = QdiscConfig::Fifo(FifoParams::default());
    d.loss = p;
    let cfg = d.config(11, seconds * S, 10 * S);
    let r = qdsim_core::run(&cfg).unwrap();
    let f = &r.flows[0];
    let mss = 1460.0 * 8.0;
    // RTT: 2 * (30 + 20) ms propagation plus serialisation (small at these rates).
    let rtt = 0.100;
    let predicted = mss / rtt * (3.0 / (2.0 * p)).sqrt();
    let ratio = f.goodput_bps / predicted;
    eprintln!("p = {p}: goodput {:.0} bit/s, Mathis {predicted:.0} bit/s, ratio {ratio:.3}", f.goodput_bps);
    ratio
}

#[test]
fn newreno_follows_the_mathis_law_at_one_percent_loss() {
    let ratio = mathis_ratio(0.01, 400);
    assert!((0.75..=1.25).contains(&ratio), "measured / Mathis = {ratio:.3}");
}

#[test]
fn newreno_follows_the_mathis_law_at_a_tenth_of_a_percent_loss() {
    let ratio = mathis_ratio(0.001, 400);
    assert!((0.75..=1.25).contains(&ratio), "measured / Mathis = {ratio:.3}");
}
