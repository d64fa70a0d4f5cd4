//! Every path through the core conserves packets and bytes: at any instant, for every link,
//! offered = dequeued + dropped + queued and transmitted = lost + delivered + propagating;
//! end to end, every data packet sent was received, dropped, or is inside the network (a
//! host's processing delay included). Checked on random dumbbells (property test) at random
//! instants.

use crate::common::*;
use proptest::prelude::*;
use qdsim_core::config::SourceConfig;
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::{plain_tcp, FlowGroup};
use qdsim_core::tcp::TcpConfig;
use qdsim_core::time::Time;
use qdsim_core::Sim;

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]
    #[test]
    fn links_and_ports_conserve_packets(
        flows in 1usize..6,
        buffer in 1u64..40,
        byte_limit in proptest::option::of(1500u64..60_000),
        loss in 0.0f64..0.05,
        rate_mbps in 1u64..50,
        finite in proptest::option::of(1u64..200_000),
        cbr in any::<bool>(),
        sack in any::<bool>(),
        jitter_ns in proptest::option::of(1u64..50_000),
        seed in any::<u64>(),
        cut_ms in 1u64..3000,
    ) {
        let mut d = dumbbell(rate_mbps * 1_000_000, 5, 3, flows, buffer);
        d.qdisc = QdiscConfig::Fifo(FifoParams { limit_pkts: Some(buffer), limit_bytes: byte_limit });
        d.loss = loss;
        d.groups[0].start_jitter_ns = S / 2;
        d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp: plain_tcp(sack), repeat: None };
        if let Some(size) = finite {
            d.groups.push(FlowGroup {
                source: SourceConfig::Tcp { size_bytes: Some(size), tcp: TcpConfig { delayed_ack: true, ..plain_tcp(false) }, repeat: None },
                ..FlowGroup::bulk("finite", 2, 7 * MS, plain_tcp(false))
            });
        }
        if cbr {
            d.groups.push(FlowGroup {
                source: SourceConfig::UdpCbr { rate_bps: rate_mbps * 300_000, packet_bytes: 700, stop_ns: None },
                ..FlowGroup::bulk("cbr", 1, MS, plain_tcp(false))
            });
        }
        let cfg = d.config(seed, 3 * S, S).with_host_jitter(jitter_ns.unwrap_or(0));
        let mut sim = Sim::new(&cfg).unwrap();
        sim.run_until(Time::from_ns(cut_ms * MS));
        prop_assert_eq!(sim.check_conservation(), Ok(()));
        sim.run();
        prop_assert_eq!(sim.check_conservation(), Ok(()));
        let r = sim.results();
        // End to end: every data packet a source sent was delivered, dropped, or is still inside.
        let sent: u64 = r.flows.iter().map(|f| f.sent_pkts_total).sum();
        let drops: u64 = r.flows.iter().map(|f| f.drops_total).sum();
        let data_in_network = sim.data_packets_in_network();
        let received = sim.data_packets_received();
        prop_assert_eq!(sent, received + drops + data_in_network);
    }
}

#[test]
fn wire_losses_are_the_link_s_own_drops_listed_beside_the_qdisc_s() {
    // A lossy bottleneck with a small FIFO: the qdisc overflows and the wire loses packets.
    let mut d = dumbbell(10_000_000, 5, 3, 4, 10);
    d.loss = 0.01;
    let r = qdsim_core::run(&d.config(3, 10 * S, 2 * S)).unwrap();
    let bottleneck = r.links.iter().find(|l| l.name == "bottleneck").unwrap();
    let by_reason = &bottleneck.drops_by_reason;
    assert!(by_reason["random_loss"] > 0 && by_reason["overflow"] > 0, "{by_reason:?}");
    assert_eq!(bottleneck.drops, by_reason.values().sum::<u64>());
    // About 1 % of the packets sent are lost on the wire (binomial: well within 3 sigma).
    let expected = bottleneck.tx_pkts as f64 * 0.01;
    assert!((by_reason["random_loss"] as f64 - expected).abs() < 3.0 * expected.sqrt() + 1.0, "{by_reason:?}");
    // Every data packet lost, on the wire or in a queue, is charged to its flow (ACKs cross
    // only lossless, unlimited links here), and both count the same window.
    let flow_drops: u64 = r.flows.iter().map(|f| f.drops).sum();
    assert_eq!(flow_drops, r.links.iter().map(|l| l.drops).sum::<u64>());
    // The whole run's totals are separate: the slow-start losses of the first 2 s are in
    // them only.
    assert!(r.flows.iter().all(|f| f.drops_total >= f.drops && f.retransmits_total >= f.retransmits));
    assert!(r.flows.iter().map(|f| f.drops_total).sum::<u64>() > flow_drops);
}

#[test]
fn every_sack_slot_is_freed_when_its_ack_is_read_or_dropped() {
    // SACK flows losing data on the bottleneck (so their ACKs carry blocks) and ACKs on the
    // way back, both on the wire and by overflowing a small FIFO: every ACK with blocks leaves
    // the network read by its sender or dropped, and its slot in the SACK store with it.
    let mut d = dumbbell(20_000_000, 5, 3, 6, 20);
    d.loss = 0.02;
    d.groups[0].source = SourceConfig::Tcp { size_bytes: None, tcp: plain_tcp(true), repeat: None };
    let mut cfg = d.config(11, 20 * S, S).with_host_jitter(20_000);
    let back = cfg.links.iter_mut().find(|l| l.name == "r2->r1").unwrap();
    back.loss = 0.05;
    back.rate_bps = 400_000;
    back.qdisc = QdiscConfig::Fifo(FifoParams { limit_pkts: Some(4), limit_bytes: None });
    let mut sim = Sim::new(&cfg).unwrap();
    let mut most_in_use = 0;
    for ms in (250..=20_000).step_by(250) {
        sim.run_until(Time::from_ns(ms * MS));
        let (in_use, acks) = (sim.sack_slots_in_use(), sim.acks_in_network());
        assert!(in_use as u64 <= acks, "{in_use} SACK slots in use, {acks} ACKs in the network at {ms} ms");
        most_in_use = most_in_use.max(in_use);
    }
    sim.run();
    let r = sim.results();
    let back = r.links.iter().find(|l| l.name == "r2->r1").unwrap();
    let by_reason = &back.drops_by_reason;
    assert!(by_reason["random_loss"] > 0 && by_reason["overflow"] > 0, "ACKs dropped both ways: {by_reason:?}");
    assert!(most_in_use > 0, "some ACKs carried SACK blocks");
}
