//! Determinism: the same configuration and seed give identical results, whatever ran
//! before in the process; another seed changes the random start times and the hosts'
//! processing delays (and so the run).

mod common;

use common::*;
use qdsim_core::config::SourceConfig;
use qdsim_core::scenario::FlowGroup;
use qdsim_core::tcp::{LimitedTransmit, RecoveryKind, RtoFormula, TcpConfig};

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
            tcp: TcpConfig {
                sack: true,
                handshake: true,
                timestamps: true,
                limited_transmit: LimitedTransmit::Pipe,
                byte_counting: false,
                rto_formula: RtoFormula::Linux,
                recovery: RecoveryKind::RateHalving,
                quick_acks: 2,
                delayed_ack: true,
                ..TcpConfig::default()
            },
            stop_ns: None,
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
