//! Bottleneck utilization and fairness of NewReno over FIFO (issue 2's acceptance checks).

use crate::common::*;

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
    // Exactly timed, in ns-2's event order, every burst of two meets a full buffer: 12 % here
    // (ns-2.35 itself gives 0.5 % in Augé & Roberts' one-packet set-up, and qdsim the same);
    // the flow still makes progress.
    assert!(u > 0.05, "utilization {u}: the flow should still make progress");
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

#[test]
fn sack_recovers_the_slow_start_overshoot_without_the_timeouts_newreno_takes() {
    use qdsim_core::config::SourceConfig;
    use qdsim_core::scenario::plain_tcp;
    let run = |sack: bool| {
        let mut d = dumbbell(10_000_000, 5, 5, 1, 20);
        d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp: plain_tcp(sack), repeat: None };
        let r = qdsim_core::run(&d.config(1, 10 * S, 2 * S)).unwrap();
        // The overshoot is before the window: the whole run's counts.
        (r.flows[0].timeouts_total, r.flows[0].retransmits_total, r.links[0].utilization)
    };
    let (newreno_timeouts, newreno_retx, _) = run(false);
    let (sack_timeouts, sack_retx, sack_util) = run(true);
    eprintln!("NewReno: {newreno_timeouts} timeouts, {newreno_retx} retransmits; SACK: {sack_timeouts} timeouts, {sack_retx} retransmits");
    assert!(newreno_timeouts >= 2, "the overshoot costs NewReno timeouts ({newreno_timeouts})");
    assert_eq!(sack_timeouts, 0);
    assert!(sack_retx < newreno_retx, "go-back-N after timeouts resends more");
    assert!(sack_util >= 0.98, "utilization {sack_util}");
}

#[test]
fn hystart_ends_slow_start_before_the_overshoot_losses() {
    use qdsim_core::config::SourceConfig;
    use qdsim_core::scenario::plain_tcp;
    use qdsim_core::tcp::{CcKind, HyStartKind, TcpConfig};
    let run = |hystart: HyStartKind| {
        // 100 Mb/s, RTT 40 ms (BDP 333 packets), a BDP of buffer: the queue's delay rises
        // well before it overflows, which HyStart++ reads as the end of slow start; Linux's
        // ACK train ends it earlier still, once a round's ACKs span half the RTT.
        let mut d = dumbbell(100_000_000, 10, 10, 1, 333);
        let tcp = TcpConfig { cc: CcKind::Cubic, hystart, ..plain_tcp(true) };
        d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp, repeat: None };
        let r = qdsim_core::run(&d.config(1, 5 * S, S)).unwrap();
        // Slow start ends before the window: the whole run's counts.
        (r.flows[0].drops_total, r.flows[0].retransmits_total)
    };
    let (plain_drops, _) = run(HyStartKind::Off);
    assert!(plain_drops > 50, "the plain overshoot loses a burst ({plain_drops})");
    for kind in [HyStartKind::Rfc9406, HyStartKind::Linux] {
        let (drops, _) = run(kind);
        eprintln!("slow-start drops: plain {plain_drops}, {kind:?} {drops}");
        assert!(drops * 5 < plain_drops, "{kind:?} {drops} vs plain {plain_drops}");
    }
}

#[test]
fn red_without_an_explicit_link_rate_does_not_starve_flows() {
    // RED's idle-time correction needs the link rate; the link supplies it. Without it the
    // average stayed above max_th after the start-up losses and every retransmission was
    // dropped: four flows delivered nothing for 25 s.
    use qdsim_core::qdisc::{QdiscConfig, RedParams};
    let mut d = dumbbell(10_000_000, 5, 5, 4, 1000);
    d.qdisc = QdiscConfig::Red(RedParams {
        min_th_pkts: 5,
        max_th_pkts: 15,
        max_p: 0.1,
        limit_pkts: Some(1000),
        ..RedParams::default()
    });
    d.groups[0].start_jitter_ns = S;
    let r = qdsim_core::run(&d.config(7, 30 * S, 5 * S)).unwrap();
    assert!(r.links[0].utilization > 0.9, "utilization {}", r.links[0].utilization);
    assert!(
        r.flows.iter().all(|f| f.goodput_bps > 1e6),
        "{:?}",
        r.flows.iter().map(|f| f.goodput_bps).collect::<Vec<_>>()
    );
}

#[test]
fn a_flow_held_by_its_receive_window_reports_it() {
    use qdsim_core::config::SourceConfig;
    use qdsim_core::scenario::plain_tcp;
    use qdsim_core::tcp::TcpConfig;
    // 100 Mb/s, RTT 40 ms: a BDP of 333 packets. A 20-segment receive window carries 20
    // segments per RTT (about 5.8 Mb/s) and never fills the 50-packet buffer: every ACK finds
    // the window at rwnd. An unlimited window fills the buffer and halves on its losses.
    let run = |rwnd_bytes: u64| {
        let mut d = dumbbell(100_000_000, 10, 10, 1, 50);
        let tcp = TcpConfig { rwnd_bytes, ..plain_tcp(true) };
        d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp, repeat: None };
        let r = qdsim_core::run(&d.config(1, 10 * S, 2 * S)).unwrap();
        (r.flows[0].rwnd_limited.unwrap(), r.flows[0].goodput_bps, r.flows[0].drops_total)
    };
    let mss = plain_tcp(true).mss() as u64;
    let (held, goodput, drops) = run(20 * mss);
    assert_eq!((held, drops), (1.0, 0), "goodput {goodput}");
    assert!(
        (goodput - 20.0 * mss as f64 * 8.0 / 0.04).abs() < 0.05 * goodput,
        "goodput {goodput}: 20 segments per 40 ms"
    );
    let (free, _, drops) = run(1 << 30);
    assert!(free < 0.01 && drops > 0, "an unlimited window: {free} of ACKs at rwnd, {drops} drops");
}

#[test]
fn goodput_less_what_was_held_before_the_window_never_exceeds_the_bottleneck() {
    // Short windows cut through recoveries: data that crossed the bottleneck before the window
    // and waited out of order is delivered in it. Counted apart, the rest is bounded by what
    // the bottleneck carried in the window (application bytes < wire bytes, plus one packet
    // in transmission at each edge).
    let (rate, mut exceeded, mut held_total) = (10_000_000u64, 0, 0);
    for seed in 0..20 {
        let mut d = dumbbell(rate, 5, 5, 8, 12);
        d.groups[0].source = qdsim_core::config::SourceConfig::Tcp {
            size_bytes: None,
            tcp: qdsim_core::scenario::plain_tcp(true),
            repeat: None,
        };
        let warmup = 2 * S + seed * 37 * MS;
        let cfg = d.config(seed, warmup + 200 * MS, warmup);
        let r = qdsim_core::run(&cfg).unwrap();
        let window_s = 0.2;
        let delivered: u64 = r.flows.iter().map(|f| f.delivered_bytes).sum();
        let held: u64 = r.flows.iter().map(|f| f.held_before_window_bytes).sum();
        let group_held: u64 = r.groups.iter().map(|g| g.held_before_window_bytes).sum();
        assert_eq!(held, group_held);
        let capacity = rate as f64 * window_s / 8.0 + 2.0 * 1500.0;
        assert!(((delivered - held) as f64) <= capacity, "seed {seed}: {delivered} - {held} > {capacity}");
        held_total += held;
        exceeded += u32::from(delivered as f64 > capacity);
    }
    // The effect is real in this set-up: the bound holds only with the held bytes apart.
    assert!(held_total > 0 && exceeded > 0, "held {held_total}, windows over capacity {exceeded}");
}
