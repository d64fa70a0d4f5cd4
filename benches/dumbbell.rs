//! Whole-run benchmark: 100 NewReno flows (half 43 ms, half 203 ms RTT) with 10 Mb/s access
//! links through a 500 Mb/s bottleneck with a 1000-packet FIFO, 20 s simulated — the
//! speed target of `docs/performance.md` — with the TCP of the `ns3` profile and the hosts'
//! default processing delay (10 us), as an experiment file gets them. Prints wall time,
//! events/s and simulated packets/s: every count covers the whole run (no warm-up cut), the
//! span the wall time measures.
//!
//! Prints the process's peak resident memory too (Linux), the target's other half.
//!
//! Run: `cargo run --release -p qdsim-benches --bin dumbbell [-- --repeat N --seconds S
//! --flows F --scaled 1]` (`--flows`: the number of flows, half per RTT, default 100; e.g.
//! 10 000 for a many-flow run; `--scaled 1`: the bottleneck's rate and buffer grow with the
//! flows, 5 Mb/s and 10 packets a flow, so that every flow count runs the 100-flow regime and
//! the cost per packet compares the simulator, not TCP at another operating point;
//! `--bottleneck-delays 1`: the delay distribution kept at the bottleneck alone, as
//! `[sampling] link_delays = ["bottleneck"]` keeps it).

use std::time::Instant;

use qdsim_benches::peak_rss_mib;
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::{Dumbbell, FlowGroup};
use qdsim_core::tcp::TcpConfig;

const MS: u64 = 1_000_000;

/// The hosts' processing delay of experiment files (`[topology] host_jitter`'s default).
const HOST_JITTER_NS: u64 = 10_000;

fn arg(name: &str, default: u64) -> u64 {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().unwrap_or_else(|_| panic!("{name} takes an integer, got {v}")))
        .unwrap_or(default)
}

fn main() {
    let repeat = arg("--repeat", 3);
    let seconds = arg("--seconds", 20);
    let flows = arg("--flows", 100);
    // The 100-flow bottleneck, or one that grows with the flows (`--scaled 1`).
    let scale = if arg("--scaled", 0) == 1 { flows as f64 / 100.0 } else { 1.0 };
    let rate_bps = (500_000_000.0 * scale) as u64;
    let buffer_pkts = (1000.0 * scale).round() as u64;
    assert!(flows >= 2 && flows.is_multiple_of(2), "--flows must be an even number >= 2, got {flows}");
    let group = |name: &str, access_ms: u64| FlowGroup {
        access_rate_bps: 10_000_000,
        start_jitter_ns: 1_000 * MS,
        // The core's default TCP is the ns3 profile (ns-3.44 TcpSocketBase + TcpNewReno: IW 10,
        // RTO 1 s minimum, delayed ACKs, SACK with PRR, timestamps, a handshake; tcp/profiles.rs).
        ..FlowGroup::bulk(name, (flows / 2) as usize, access_ms * MS, TcpConfig::default())
    };
    let d = Dumbbell {
        rate_bps,
        delay_ns: 1_500_000,
        loss: 0.0,
        qdisc: QdiscConfig::Fifo(FifoParams { limit_pkts: Some(buffer_pkts), limit_bytes: None }),
        // RTT = 2 * (access + 1.5 ms): 20 ms -> 43 ms, 100 ms -> 203 ms.
        groups: vec![group("rtt43", 20), group("rtt203", 100)],
    };
    assert!(seconds >= 2, "--seconds must be at least 2, got {seconds}");
    // No warm-up cut: the link counts then cover the whole run, which the wall time measures.
    let mut cfg = d.config(1, seconds * 1_000 * MS, 0).with_host_jitter(HOST_JITTER_NS);
    if arg("--bottleneck-delays", 0) == 1 {
        cfg.sampling.link_delays = Some(vec!["bottleneck".to_string()]);
    }
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..repeat {
        let t0 = Instant::now();
        let r = qdsim_core::run(&cfg).expect("valid benchmark configuration");
        best = best.min(t0.elapsed().as_secs_f64());
        last = Some(r);
    }
    let r = last.expect("at least one repetition");
    let bottleneck = r.links.iter().find(|l| l.name == "bottleneck").expect("bottleneck link");
    println!(
        "scenario: {flows} NewReno flows (ns3 profile, host jitter 10 us), 43/203 ms RTT, 10 Mb/s access, \
         {} Mb/s bottleneck, FIFO {buffer_pkts} pkts, {seconds} s simulated",
        rate_bps / 1_000_000
    );
    println!("wall time (best of {repeat}): {best:.3} s");
    println!("events: {} ({:.2} M events/s)", r.events, r.events as f64 / best / 1e6);
    println!(
        "data packets transmitted on links over the run: {} ({:.2} M simulated packets/s)",
        r.packets_forwarded,
        r.packets_forwarded as f64 / best / 1e6
    );
    println!(
        "bottleneck over the run: utilization {:.3}, {} packets, {:.2} M bottleneck packets/s",
        bottleneck.utilization,
        bottleneck.tx_pkts,
        bottleneck.tx_pkts as f64 / best / 1e6
    );
    if let Some(mib) = peak_rss_mib() {
        println!("peak resident memory: {mib:.1} MiB");
    }
}
