//! Determinism: the same configuration and seed give identical results, whatever ran
//! before in the process; another seed changes the random start times and the hosts'
//! processing delays (and so the run).

use crate::common::*;
use qdsim_core::config::SourceConfig;
use qdsim_core::scenario::FlowGroup;
use qdsim_core::tcp::{ByteCounting, LimitedTransmit, RecoveryKind, RtoFormula, TcpConfig};

/// A dumbbell of 3 bulk flows (profile `profile`) and Poisson short flows whose TCP takes
/// every option that changes the sender's state machine, so they are covered too.
fn config_with(seed: u64, profile: &str) -> qdsim_core::RunConfig {
    let mut d = dumbbell(10_000_000, 5, 5, 3, 20);
    d.groups[0].source =
        SourceConfig::Tcp { size_bytes: None, tcp: TcpConfig::profile(profile).unwrap(), repeat: None };
    d.groups[0].start_jitter_ns = S;
    d.loss = 0.001;
    d.groups.push(FlowGroup {
        source: SourceConfig::ShortFlows {
            arrival_rate_per_s: 5.0,
            size_min_bytes: 2_000,
            size_max_bytes: 98_000,
            sizes: None,
            tcp: TcpConfig {
                sack: true,
                handshake: true,
                timestamps: true,
                limited_transmit: LimitedTransmit::Pipe,
                byte_counting: ByteCounting::Off,
                rto_formula: RtoFormula::Linux,
                recovery: RecoveryKind::RateHalving,
                quick_acks: 2,
                delayed_ack: true,
                ..TcpConfig::default()
            },
            stop_ns: None,
            hosts: vec![],
        },
        ..FlowGroup::bulk("short", 1, 2 * MS, TcpConfig::default())
    });
    // Every host delays its packets by up to 10 us (the experiment files' default).
    let mut cfg = d.config(seed, 10 * S, 2 * S).with_host_jitter(10_000);
    cfg.sampling.interval_ns = 10 * MS;
    cfg.sampling.queues = true;
    cfg.sampling.tcp = true;
    cfg
}

fn config(seed: u64) -> qdsim_core::RunConfig {
    config_with(seed, "ns3")
}

#[test]
fn same_seed_gives_identical_results() {
    let a = qdsim_core::run(&config(42)).unwrap();
    let _other = qdsim_core::run(&config(7)).unwrap();
    let b = qdsim_core::run(&config(42)).unwrap();
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
}

#[test]
fn every_profile_is_deterministic() {
    // ns-2's clock phase is drawn per connection from the seed: the same seed, the same run.
    for profile in qdsim_core::tcp::profiles::PROFILES {
        let a = qdsim_core::run(&config_with(3, profile.name)).unwrap();
        let b = qdsim_core::run(&config_with(3, profile.name)).unwrap();
        assert_eq!(a, b, "profile {}", profile.name);
    }
}

#[test]
fn another_seed_moves_start_times_and_changes_the_run() {
    let a = qdsim_core::run(&config(1)).unwrap();
    let b = qdsim_core::run(&config(2)).unwrap();
    let starts = |r: &qdsim_core::RunResults| r.flows.iter().map(|f| f.start_s).collect::<Vec<_>>();
    assert_ne!(starts(&a)[..3], starts(&b)[..3]);
    assert_ne!(a.transfers.start_s, b.transfers.start_s);
}

#[test]
fn host_processing_delay_changes_the_run_and_zero_is_exact_timing() {
    let exact = config(5).with_host_jitter(0);
    let none = qdsim_core::RunConfig { hosts: vec![], ..exact.clone() };
    // J = 0 is today's exact timing, bit for bit.
    assert_eq!(qdsim_core::run(&exact).unwrap(), qdsim_core::run(&none).unwrap());
    // Any J > 0 moves packets off the lattice: the run differs.
    let jittered = qdsim_core::run(&config(5)).unwrap();
    assert_ne!(jittered.events, qdsim_core::run(&exact).unwrap().events);
}

/// A bulk flow against Poisson packets of exponential sizes and a generator of Pareto-sized
/// transfers over its own host pairs, with every series of a buffer-sizing study recorded.
fn background(seed: u64) -> qdsim_core::RunConfig {
    use qdsim_core::config::{FlowSizes, HostPair, PacketRecordConfig, PacketSizeLaw};
    let mut d = dumbbell(10_000_000, 5, 5, 1, 20);
    d.groups.push(FlowGroup {
        source: SourceConfig::PoissonPackets {
            rate_bps: 3_000_000,
            packet_bytes: 800,
            size_distribution: PacketSizeLaw::Exponential,
            min_packet_bytes: 41,
            max_packet_bytes: 65535,
            stop_ns: None,
        },
        ..FlowGroup::bulk("poisson", 1, 2 * MS, TcpConfig::default())
    });
    d.groups.push(FlowGroup {
        access_rate_bps: 1_000_000,
        source: SourceConfig::ShortFlows {
            arrival_rate_per_s: 10.0,
            size_min_bytes: 0,
            size_max_bytes: 0,
            sizes: Some(FlowSizes::Pareto { mean_bytes: 20_000, shape: 1.2 }),
            tcp: TcpConfig::default(),
            stop_ns: None,
            hosts: vec![],
        },
        ..FlowGroup::bulk("flows", 2, 2 * MS, TcpConfig::default())
    });
    let mut cfg = d.config(seed, 10 * S, 2 * S).with_host_jitter(10_000);
    // The first generator runs over both of the group's host pairs, the second on its own.
    let pool: Vec<HostPair> =
        cfg.flows[2..].iter().map(|f| HostPair { src: f.src.clone(), dst: f.dst.clone() }).collect();
    if let SourceConfig::ShortFlows { hosts, .. } = &mut cfg.flows[2].source {
        *hosts = pool;
    }
    cfg.sampling.interval_ns = 10 * MS;
    cfg.sampling.tx_bytes = true;
    cfg.sampling.tcp = true;
    cfg.sampling.tcp_groups = Some(vec!["bulk".into()]);
    cfg.sampling.flows_in_progress = true;
    cfg.sampling.packets =
        Some(PacketRecordConfig { link: "bottleneck".into(), start_ns: 0, stop_ns: None, max_rows: 1_000_000 });
    cfg
}

#[test]
fn background_traffic_and_its_records_are_deterministic() {
    let a = qdsim_core::run(&background(42)).unwrap();
    let _other = qdsim_core::run(&background(7)).unwrap();
    let b = qdsim_core::run(&background(42)).unwrap();
    assert_eq!(a, b);
    assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
    assert!(!a.series.packets.is_empty() && !a.generators.is_empty() && !a.transfers.flow.is_empty());
    let c = qdsim_core::run(&background(43)).unwrap();
    assert_ne!(a.series.packets, c.series.packets, "another seed draws other packets");
}

/// Runs `cfg` with and without transmissions that end without an event (`net::link`).
fn both_ways(cfg: &qdsim_core::RunConfig) -> (qdsim_core::RunResults, qdsim_core::RunResults) {
    let run = |early: bool| {
        let mut sim = qdsim_core::Sim::new(cfg).unwrap();
        if !early {
            sim.end_every_transmission_with_an_event();
        }
        sim.run();
        sim.check_conservation().unwrap();
        sim.results()
    };
    (run(true), run(false))
}

#[test]
fn transmissions_ending_without_an_event_change_nothing_but_the_event_count() {
    let mut jittered = config(11);
    jittered.sampling.tx_bytes = true;
    jittered.sampling.tcp_events = true;
    // Exactly timed, every link without delay (a packet arrives as its transmission ends),
    // with a warm-up and samples that read the links' books mid-transmission.
    let mut exact = dumbbell(10_000_000, 0, 0, 4, 30).config(3, 5 * S, S);
    exact.sampling.interval_ns = 7 * MS;
    exact.sampling.tx_bytes = true;
    exact.sampling.queues = true;
    // The packet record of a host's link: that link keeps an event at every end.
    let mut recorded = background(4);
    let host_link =
        recorded.links.iter().find(|l| l.name != "bottleneck" && l.name.ends_with("->r1")).unwrap().name.clone();
    recorded.sampling.packets.as_mut().unwrap().link = host_link;
    // Without delay an early end saves nothing: the arrival takes the end's place.
    let cases = [
        ("jittered", &jittered, true),
        ("exact, no delays", &exact, false),
        ("background", &background(4), true),
        ("recorded", &recorded, true),
    ];
    for (name, cfg, fewer) in cases {
        let (early, evented) = both_ways(cfg);
        let counts = format!("{name}: {} events, {} with an event at every end", early.events, evented.events);
        assert!(if fewer { early.events < evented.events } else { early.events == evented.events }, "{counts}");
        assert_eq!(
            qdsim_core::RunResults { events: 0, ..early },
            qdsim_core::RunResults { events: 0, ..evented },
            "{name}"
        );
    }
}

#[test]
fn reading_events_ahead_changes_nothing() {
    // Off below READ_AHEAD_LINKS links, on above: each forced both ways on a small network,
    // exactly timed and jittered, with samples and a warm-up reading the links' books.
    let mut exact = dumbbell(10_000_000, 0, 0, 4, 30).config(3, 5 * S, S);
    exact.sampling.interval_ns = 7 * MS;
    exact.sampling.queues = true;
    let mut jittered = config(11);
    jittered.sampling.tcp_events = true;
    for (name, cfg) in [("exact", &exact), ("jittered", &jittered), ("background", &background(4))] {
        let run = |on: bool| {
            let mut sim = qdsim_core::Sim::new(cfg).unwrap();
            sim.set_read_ahead(on);
            sim.run();
            sim.check_conservation().unwrap();
            sim.results()
        };
        assert_eq!(run(true), run(false), "{name}");
    }
    assert!(dumbbell(10_000_000, 0, 0, 4, 30).config(3, S, 0).links.len() < qdsim_core::sim::READ_AHEAD_LINKS);
}

#[test]
fn recording_the_waits_in_batches_changes_nothing() {
    // The ports' sojourn histograms filled in batches (`sim/waits.rs`, the default) or each
    // wait as it ends: the same results, with a warm-up that clears the histograms and
    // samples of the queues. A batch's last waits are recorded only as the run ends, which
    // this fails without.
    let mut exact = dumbbell(10_000_000, 0, 0, 4, 30).config(3, 5 * S, S);
    exact.sampling.interval_ns = 7 * MS;
    exact.sampling.queues = true;
    for (name, cfg) in [("exact", &exact), ("jittered", &config(11)), ("background", &background(4))] {
        let run = |batches: bool| {
            let mut sim = qdsim_core::Sim::new(cfg).unwrap();
            sim.record_waits_in_batches(batches);
            sim.run();
            sim.results()
        };
        let batched = run(true);
        assert!(batched.links.iter().any(|l| l.p99_delay_s.is_some_and(|d| d > 0.0)), "{name}: no waits");
        assert_eq!(batched, run(false), "{name}");
    }
}
