//! Background traffic inside the simulator: Poisson packets and their losses, transfer
//! generators over a host pool (each transfer capped by its own access link), the count of
//! transfers in progress, and the series a buffer-sizing study draws (link bytes per sample,
//! cwnd of chosen groups, the packet-emission record).

use crate::common::*;
use qdsim_core::config::{FlowSizes, HostPair, LinkConfig, PacketRecordConfig, PacketSizeLaw, RunConfig, SourceConfig};
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::FlowGroup;
use qdsim_core::tcp::TcpConfig;
use qdsim_core::RunResults;

/// Adds `n` host pairs `p.s<i>` → r1 and r2 → `p.d<i>`, every link `rate_bps` (both ways) with
/// a one-way delay of `delay_ns` on the sender side; returns the pairs.
fn add_pool(cfg: &mut RunConfig, n: usize, rate_bps: u64, delay_ns: u64) -> Vec<HostPair> {
    let mut pairs = vec![];
    for i in 0..n {
        let (s, d) = (format!("p.s{i}"), format!("p.d{i}"));
        for (a, b, delay) in [(s.as_str(), "r1", delay_ns), ("r2", d.as_str(), 0)] {
            for (from, to) in [(a, b), (b, a)] {
                cfg.links.push(LinkConfig {
                    name: format!("{from}->{to}"),
                    from: from.into(),
                    to: to.into(),
                    rate_bps,
                    delay_ns: delay,
                    loss: 0.0,
                    metric: 1,
                    qdisc: QdiscConfig::Fifo(FifoParams::default()),
                });
            }
        }
        cfg.nodes.extend([s.clone(), d.clone()]);
        pairs.push(HostPair { src: s, dst: d });
    }
    pairs
}

/// A 50 Mb/s dumbbell (FIFO of 100 packets) whose only flow is a generator of `size`-byte
/// transfers at `lambda` per second over a pool of `pool` host pairs with 1 Mb/s access links.
fn pooled(pool: usize, lambda: f64, sizes: FlowSizes, seconds: u64) -> RunConfig {
    let mut d = dumbbell(50_000_000, 10, 10, 0, 100);
    d.groups.push(FlowGroup {
        source: SourceConfig::ShortFlows {
            arrival_rate_per_s: lambda,
            size_min_bytes: 0,
            size_max_bytes: 0,
            sizes: Some(sizes),
            tcp: TcpConfig::default(),
            stop_ns: None,
            hosts: vec![],
        },
        ..FlowGroup::bulk("background", 1, 10 * MS, TcpConfig::default())
    });
    let mut cfg = d.config(5, seconds * S, 5 * S);
    let pairs = add_pool(&mut cfg, pool, 1_000_000, 10 * MS);
    if let SourceConfig::ShortFlows { hosts, .. } = &mut cfg.flows[0].source {
        *hosts = pairs;
    }
    cfg
}

fn run(cfg: &RunConfig) -> RunResults {
    let mut sim = qdsim_core::Sim::new(cfg).unwrap();
    sim.run();
    assert_eq!(sim.check_conservation(), Ok(()));
    sim.results()
}

#[test]
fn each_pooled_transfer_is_capped_by_its_own_access_link() {
    // 10 transfers of 50 kB per second: 4 Mb/s offered, about 4 in progress at 1 Mb/s each.
    let r = run(&pooled(40, 10.0, FlowSizes::Fixed { bytes: 50_000 }, 30));
    let t = &r.transfers;
    let finished: Vec<f64> = (0..t.flow.len()).filter(|&i| t.finished[i]).map(|i| t.fct_s[i]).collect();
    assert!(finished.len() > 250, "{} transfers finished", finished.len());
    // 50 kB of data is 35 segments of 1500 B on the wire: 0.42 s at 1 Mb/s; the bottleneck
    // alone would carry it in 8 ms.
    let floor = 35.0 * 1500.0 * 8.0 / 1e6;
    assert!(finished.iter().all(|&f| f > floor), "fastest {}", finished.iter().cloned().fold(f64::MAX, f64::min));
    let g = &r.generators[0];
    assert_eq!(g.shared_arrivals, 0, "40 pairs for about 4 transfers in progress");
    assert!(g.arrivals > 200);
    // A pool of 2 pairs is too small: arrivals share, and are counted.
    let small = run(&pooled(2, 10.0, FlowSizes::Fixed { bytes: 50_000 }, 30));
    assert!(small.generators[0].shared_arrivals > 50, "{}", small.generators[0].shared_arrivals);
}

#[test]
fn transfers_in_progress_obey_little_s_law() {
    // L = λ·W over the window: the time-weighted count against the arrival rate times the
    // mean completion time of the transfers that arrived in it.
    let r = run(&pooled(60, 20.0, FlowSizes::Exponential { mean_bytes: 30_000 }, 60));
    let g = &r.generators[0];
    let fractions: f64 = g.in_progress_fraction.iter().sum();
    assert!((fractions - 1.0).abs() < 1e-9, "the fractions cover the window: {fractions}");
    let t = &r.transfers;
    let in_window: Vec<usize> = (0..t.flow.len()).filter(|&i| t.start_s[i] >= r.warmup_s).collect();
    assert_eq!(in_window.len() as u64, g.arrivals);
    let w = in_window.iter().map(|&i| t.fct_s[i]).sum::<f64>() / in_window.len() as f64;
    let lambda = g.arrivals as f64 / (r.duration_s - r.warmup_s);
    // Transfers alive at the window's start count in L but not in W (and the censored ones
    // at its end are cut alike), an edge of about W/window = 1 %.
    assert!(
        (g.mean_in_progress / (lambda * w) - 1.0).abs() < 0.05,
        "L {} against λW {}",
        g.mean_in_progress,
        lambda * w
    );
    assert!(g.max_in_progress as usize + 1 >= g.in_progress_fraction.len());
}

#[test]
fn poisson_packets_losses_are_sent_minus_received() {
    let mut d = dumbbell(10_000_000, 5, 5, 1, 20);
    d.groups.push(FlowGroup {
        source: SourceConfig::PoissonPackets {
            rate_bps: 6_000_000,
            packet_bytes: 1000,
            size_distribution: PacketSizeLaw::Fixed,
            min_packet_bytes: 41,
            max_packet_bytes: 65535,
            stop_ns: None,
        },
        ..FlowGroup::bulk("poisson", 1, 5 * MS, TcpConfig::default())
    });
    let r = run(&d.config(3, 20 * S, 0));
    let p = &r.flows[1];
    assert_eq!(p.kind, "poisson_packets");
    assert!(p.drops_total > 0, "a TCP flow and 6 Mb/s of Poisson packets overflow 20 packets");
    // Every datagram sent is received (960 bytes of payload each), dropped, or still inside
    // the network at the end (at most the 20 queued, 1 on the wire and the 10 ms of
    // propagation, 8 packets, in each direction of the path).
    assert_eq!(p.delivered_bytes_total % 960, 0);
    let received = p.delivered_bytes_total / 960;
    let inside = p.sent_pkts_total - received - p.drops_total;
    assert!(inside <= 40, "sent {}, received {received}, dropped {}", p.sent_pkts_total, p.drops_total);
    let offered = p.sent_pkts_total as f64 * 1000.0 * 8.0 / 20.0;
    assert!((offered / 6e6 - 1.0).abs() < 0.03, "offered {offered} bit/s");
    assert!(p.delivered_bytes_total > 0 && p.goodput_bps > 0.0);
}

#[test]
fn sampled_tx_bytes_add_up_to_the_link_s_and_tcp_groups_select_flows() {
    let mut d = dumbbell(10_000_000, 5, 5, 2, 50);
    d.groups.push(FlowGroup::bulk("other", 3, 5 * MS, TcpConfig::default()));
    let mut cfg = d.config(1, 5 * S, 0);
    cfg.sampling.interval_ns = 150 * MS;
    cfg.sampling.tx_bytes = true;
    cfg.sampling.tcp = true;
    cfg.sampling.tcp_groups = Some(vec!["bulk".into()]);
    let r = run(&cfg);
    let q = &r.series.queue;
    assert_eq!(q.tx_bytes.len(), q.t.len());
    let bottleneck: u64 = (0..q.t.len()).filter(|&i| q.link[i] == 0).map(|i| q.tx_bytes[i]).sum();
    // The samples cover [0, 4.95 s]; the link's count covers the whole 5 s.
    assert!(bottleneck <= r.links[0].tx_bytes && r.links[0].tx_bytes - bottleneck < 50 * MS * 10 / 8 / 1000 + 1500);
    // A full 10 Mb/s link moves 187500 bytes in 150 ms.
    let late: Vec<u64> = (0..q.t.len()).filter(|&i| q.link[i] == 0 && q.t[i] > 2.0).map(|i| q.tx_bytes[i]).collect();
    assert!(late.iter().all(|&b| b > 170_000 && b <= 187_500), "{late:?}");
    let flows: std::collections::BTreeSet<u32> = r.series.tcp.flow.iter().copied().collect();
    assert_eq!(flows, [0, 1].into(), "only the group `bulk`");
}

#[test]
fn the_packet_record_matches_the_link_s_counts() {
    let mut d = dumbbell(10_000_000, 5, 5, 2, 10);
    d.groups.push(FlowGroup {
        source: SourceConfig::PoissonPackets {
            rate_bps: 3_000_000,
            packet_bytes: 1500,
            size_distribution: PacketSizeLaw::Fixed,
            min_packet_bytes: 41,
            max_packet_bytes: 65535,
            stop_ns: None,
        },
        ..FlowGroup::bulk("poisson", 1, 5 * MS, TcpConfig::default())
    });
    // A window of the whole run: the record sees what the link's counters see.
    let mut cfg = d.config(2, 10 * S, 0);
    cfg.sampling.packets =
        Some(PacketRecordConfig { link: "bottleneck".into(), start_ns: 0, stop_ns: None, max_rows: 1_000_000 });
    let r = run(&cfg);
    let rec = &r.series.packets;
    let l = &r.links[0];
    assert_eq!(rec.t.len() as u64, l.arrivals);
    assert_eq!(rec.lost.iter().filter(|&&x| x).count() as u64, l.drops);
    assert!(l.drops > 0);
    assert_eq!(r.packets_not_recorded, Some(0));
    for f in 0..3u32 {
        let lost = (0..rec.t.len()).filter(|&i| rec.flow[i] == f && rec.lost[i]).count() as u64;
        assert_eq!(lost, r.flows[f as usize].drops, "flow {f}");
    }
    assert!(rec.t.windows(2).all(|w| w[0] <= w[1]));
    // A cap and a span: only offers in [2 s, 3 s), at most 100 rows, the rest counted.
    cfg.sampling.packets =
        Some(PacketRecordConfig { link: "bottleneck".into(), start_ns: 2 * S, stop_ns: Some(3 * S), max_rows: 100 });
    let capped = run(&cfg);
    assert_eq!(capped.series.packets.t.len(), 100);
    assert!(capped.series.packets.t.iter().all(|&t| (2.0..3.0).contains(&t)));
    assert!(capped.packets_not_recorded.unwrap() > 500);
    // Off: no rows, nothing in the JSON.
    cfg.sampling.packets = None;
    let off = run(&cfg);
    assert!(off.series.packets.is_empty() && off.packets_not_recorded.is_none());
    let json = serde_json::to_string(&off).unwrap();
    assert!(!json.contains("packets_not_recorded") && !json.contains("\"packets\"") && !json.contains("generators"));
}
