//! Applications that open connections during the run: incast rounds (a client waits for all
//! servers before the next request) and Poisson short flows.

use crate::common::*;
use qdsim_core::config::{FlowConfig, LinkConfig, RepeatConfig, RunConfig, SamplingConfig, SourceConfig};
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::plain_tcp;
use qdsim_core::tcp::{InitialWindow, TcpConfig};
use qdsim_core::time::Time;
use qdsim_core::Sim;

/// A star: `hosts` hosts on one switch over 1 Gb/s links with 75 us one-way delay (RTT
/// 300 us between two hosts), every switch output port a FIFO of `buffer` packets.
fn star(hosts: usize, buffer: u64, flows: Vec<FlowConfig>, seconds_ms: u64) -> RunConfig {
    let mut nodes = vec!["sw".to_string()];
    let mut links = vec![];
    for h in 0..hosts {
        let name = format!("h{h}");
        nodes.push(name.clone());
        for (from, to, limit) in [(name.as_str(), "sw", None), ("sw", name.as_str(), Some(buffer))] {
            links.push(LinkConfig {
                name: format!("{from}->{to}"),
                from: from.into(),
                to: to.into(),
                rate_bps: 1_000_000_000,
                delay_ns: 75_000,
                loss: 0.0,
                metric: 1,
                qdisc: QdiscConfig::Fifo(FifoParams { limit_pkts: limit, limit_bytes: None }),
            });
        }
    }
    RunConfig {
        seed: 3,
        duration_ns: seconds_ms * MS,
        warmup_ns: 0,
        nodes,
        links,
        sources: vec![],
        flows,
        hosts: vec![],
        sampling: SamplingConfig::default(),
        pcap: None,
    }
}

fn tcp_min_rto_10ms() -> TcpConfig {
    TcpConfig { min_rto_ns: 10 * MS, packet_bytes: 1000, ..plain_tcp(false) }
}

fn incast(servers: usize, bytes: u64, rounds: u32) -> RunConfig {
    incast_with(servers, bytes, rounds, false, tcp_min_rto_10ms())
}

fn incast_with(servers: usize, bytes: u64, rounds: u32, persistent: bool, tcp: TcpConfig) -> RunConfig {
    let flows = (1..=servers)
        .map(|s| FlowConfig {
            group: "incast".into(),
            src: format!("h{s}"),
            dst: "h0".into(),
            user: None,
            start_ns: 0,
            start_jitter_ns: 0,
            source: SourceConfig::Tcp {
                size_bytes: Some(bytes),
                tcp: tcp.clone(),
                repeat: Some(RepeatConfig { barrier: "query".into(), rounds: Some(rounds), think_ns: 0, persistent }),
            },
        })
        .collect();
    star(servers + 1, 200, flows, 2_000)
}

/// Checks that each of `rounds` rounds has `servers` requests, all leaving together the
/// moment the last response of the previous round has arrived.
fn assert_rounds_start_at_the_barrier(t: &qdsim_core::results::Transfers, servers: usize, rounds: u32) {
    for round in 1..rounds {
        let prev_done = (0..t.flow.len())
            .filter(|&i| t.round[i] == round - 1)
            .map(|i| t.start_s[i] + t.fct_s[i])
            .fold(0.0f64, f64::max);
        let starts: Vec<f64> = (0..t.flow.len()).filter(|&i| t.round[i] == round).map(|i| t.start_s[i]).collect();
        assert_eq!(starts.len(), servers);
        assert!(
            starts.iter().all(|&s| (s - prev_done).abs() < 1e-12),
            "round {round}'s requests leave together when the last response of the previous one arrives"
        );
    }
}

#[test]
fn incast_rounds_start_only_when_every_response_has_arrived() {
    let r = qdsim_core::run(&incast(8, 20_000, 5)).unwrap();
    let t = &r.transfers;
    assert_eq!(t.flow.len(), 8 * 5);
    assert!(t.finished.iter().all(|&f| f), "every response completes");
    assert_rounds_start_at_the_barrier(t, 8, 5);
    let g = &r.groups[0];
    assert_eq!(g.transfers_completed, 40);
    assert!(g.mean_fct_s.unwrap() > 0.0);
}

#[test]
fn transfers_unfinished_at_the_end_count_until_the_end_in_every_completion_time() {
    // Rounds until the run ends (2 s): the round running then is cut off.
    let r = qdsim_core::run(&incast(8, 200_000, 100_000)).unwrap();
    let t = &r.transfers;
    let unfinished: Vec<usize> = (0..t.flow.len()).filter(|&i| !t.finished[i]).collect();
    assert!(!unfinished.is_empty() && unfinished.len() <= 8, "only the last round is cut off: {unfinished:?}");
    for &i in &unfinished {
        assert!((t.start_s[i] + t.fct_s[i] - 2.0).abs() < 1e-9, "censored at the end of the run");
    }
    let g = &r.groups[0];
    assert_eq!(g.unfinished_transfers, unfinished.len() as u64);
    assert_eq!(g.transfers_completed + g.unfinished_transfers, t.flow.len() as u64);
    let mean = t.fct_s.iter().sum::<f64>() / t.fct_s.len() as f64;
    assert!((g.mean_fct_s.unwrap() - mean).abs() < 1e-12, "the mean counts every transfer");
    // A flow's own (first) transfer: finished, with its completion time.
    let f = &r.flows[0];
    assert_eq!((f.fct_s, f.finished), (Some(t.fct_s[0]), Some(true)));
}

#[test]
fn incast_overflows_a_small_buffer_and_costs_timeouts() {
    // 40 servers x 100 kB into a 200-packet port: the synchronised burst overflows it.
    let r = qdsim_core::run(&incast(40, 100_000, 3)).unwrap();
    let port = r.links.iter().find(|l| l.name == "sw->h0").unwrap();
    assert!(port.drops > 0);
    assert!(r.flows.iter().map(|f| f.timeouts).sum::<u64>() > 0, "incast's signature: timeouts");
}

#[test]
fn persistent_incast_serves_every_round_on_one_connection_per_server() {
    let rounds = 6;
    let cfg = incast_with(8, 20_000, rounds, true, tcp_min_rto_10ms());
    let mut sim = Sim::new(&cfg).unwrap();
    sim.run_until(Time::from_ns(MS / 2)); // inside the first round
    assert_eq!(sim.check_conservation(), Ok(()));
    sim.run();
    let r = sim.results();
    // No connection beyond the configured ones: each round is the next 20 kB on the same one.
    assert_eq!(r.flows.len(), 8);
    let t = &r.transfers;
    assert_eq!(t.flow.len(), 8 * rounds as usize);
    assert!(t.finished.iter().all(|&f| f), "every response completes");
    for f in &r.flows {
        assert_eq!(f.delivered_bytes_total, 20_000 * rounds as u64, "flow {}", f.id);
    }
    assert_rounds_start_at_the_barrier(t, 8, rounds);
}

#[test]
fn persistent_incast_without_idle_restart_bursts_its_grown_window() {
    // Kept windows make later rounds' bursts larger than fresh connections' initial windows:
    // with one 20-packet buffer more is lost than with fresh connections, and much more than
    // with an idle restart to the initial window.
    let drops = |persistent: bool, idle_restart: bool| {
        let tcp = TcpConfig { idle_restart, initial_cwnd_pkts: InitialWindow::Pkts(2), ..tcp_min_rto_10ms() };
        let mut cfg = incast_with(16, 64_000, 8, persistent, tcp);
        for l in &mut cfg.links {
            if l.name == "sw->h0" {
                l.qdisc = QdiscConfig::Fifo(FifoParams { limit_pkts: Some(20), limit_bytes: None });
            }
        }
        let r = qdsim_core::run(&cfg).unwrap();
        assert!(r.transfers.finished.iter().all(|&f| f));
        r.links.iter().find(|l| l.name == "sw->h0").unwrap().drops
    };
    let (fresh, kept, restarted) = (drops(false, true), drops(true, false), drops(true, true));
    assert!(kept > fresh && kept > restarted, "drops: fresh {fresh}, kept window {kept}, idle restart {restarted}");
}

#[test]
fn fresh_connections_with_a_handshake_complete_every_round_and_conserve_packets() {
    // Each round's 16 responses start with a SYN; into a 20-packet port some SYNs and data
    // are lost, and every round still completes.
    let tcp = TcpConfig { handshake: true, initial_rto_ns: 10 * MS, ..tcp_min_rto_10ms() };
    let mut cfg = incast_with(16, 30_000, 5, false, tcp);
    for l in &mut cfg.links {
        if l.name == "sw->h0" {
            l.qdisc = QdiscConfig::Fifo(FifoParams { limit_pkts: Some(20), limit_bytes: None });
        }
    }
    let mut sim = Sim::new(&cfg).unwrap();
    sim.run_until(Time::from_ns(MS));
    assert_eq!(sim.check_conservation(), Ok(()));
    sim.run();
    assert_eq!(sim.check_conservation(), Ok(()));
    let r = sim.results();
    assert_eq!(r.transfers.flow.len(), 16 * 5);
    assert!(r.transfers.finished.iter().all(|&f| f));
}

#[test]
fn a_handshake_adds_one_round_trip_to_a_lone_transfer() {
    // One server, one 30 kB response, an empty network: RTT = 4 x 75 us plus transmissions.
    let fct = |handshake: bool| {
        let tcp = TcpConfig { handshake, ..tcp_min_rto_10ms() };
        let r = qdsim_core::run(&incast_with(1, 30_000, 1, false, tcp)).unwrap();
        r.transfers.fct_s[0]
    };
    let extra = fct(true) - fct(false);
    // SYN and SYN-ACK are 48-byte packets (headers, MSS and window-scale options): 300 us of
    // propagation and 4 x 0.384 us on the wire.
    assert!((extra - 301.536e-6).abs() < 1e-9, "the handshake added {extra} s");
}

#[test]
fn short_flows_arrive_as_a_poisson_process_with_uniform_sizes() {
    let rate = 200.0;
    let flows = vec![FlowConfig {
        group: "short".into(),
        src: "h1".into(),
        dst: "h0".into(),
        user: None,
        start_ns: 0,
        start_jitter_ns: 0,
        source: SourceConfig::ShortFlows {
            arrival_rate_per_s: rate,
            size_min_bytes: 2_000,
            size_max_bytes: 98_000,
            sizes: None,
            tcp: tcp_min_rto_10ms(),
            stop_ns: None,
            hosts: vec![],
        },
    }];
    let cfg = star(2, 200, flows, 10_000);
    let mut sim = Sim::new(&cfg).unwrap();
    sim.run_until(Time::from_ns(5_000 * MS));
    assert_eq!(sim.check_conservation(), Ok(()));
    sim.run();
    let r = sim.results();
    let t = &r.transfers;
    let n = t.flow.len() as f64;
    // Poisson count over 10 s: mean 2000, sd ~45.
    assert!((n - rate * 10.0).abs() < 4.0 * (rate * 10.0f64).sqrt(), "{n} arrivals");
    assert!(t.size_bytes.iter().all(|&s| (2_000..=98_000).contains(&s)));
    let mean = t.size_bytes.iter().sum::<u64>() as f64 / n;
    assert!((mean - 50_000.0).abs() < 2_000.0, "mean size {mean}");
    let gaps: Vec<f64> = t.start_s.windows(2).map(|w| w[1] - w[0]).collect();
    let mean_gap = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let cv = (gaps.iter().map(|g| (g - mean_gap).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt() / mean_gap;
    assert!((cv - 1.0).abs() < 0.1, "exponential gaps have CV 1, got {cv}");
    let finished = t.finished.iter().filter(|&&f| f).count() as f64;
    assert!(finished >= n - 5.0, "nearly all transfers finish ({finished} of {n})");
    // The generator's row carries what its connections delivered.
    let delivered: u64 = (0..t.flow.len()).filter(|&i| t.finished[i]).map(|i| t.size_bytes[i]).sum();
    assert!(r.flows[0].delivered_bytes_total >= delivered);
}
