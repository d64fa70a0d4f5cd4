//! On-off TCP sources (Kantawala & Turner 2005, §4): bursts on one connection separated by
//! exponential idle times, each burst a row of the transfer table.

use crate::common::*;
use qdsim_core::config::{FirstBurst, RunConfig, SourceConfig};
use qdsim_core::results::{RunResults, Transfers};
use qdsim_core::scenario::{Dumbbell, FlowGroup};
use qdsim_core::tcp::{CcKind, TcpConfig};

/// One group of `count` on-off sources behind 100 Mb/s access links (20 ms one way) on a
/// 10 Mb/s, 5 ms bottleneck with a FIFO of `buffer` packets.
fn on_off(count: usize, source: SourceConfig, buffer: u64, seed: u64, duration_ns: u64) -> RunConfig {
    let group = FlowGroup {
        name: "on_off".into(),
        count,
        access_delay_ns: 20 * MS,
        access_rate_bps: 100_000_000,
        source,
        start_ns: 0,
        start_jitter_ns: 0,
    };
    Dumbbell { rate_bps: 10_000_000, delay_ns: 5 * MS, loss: 0.0, qdisc: fifo(buffer), groups: vec![group] }.config(
        seed,
        duration_ns,
        0,
    )
}

fn source(burst_pkts: u64, idle_ns: u64, first_burst: FirstBurst, tcp: TcpConfig) -> SourceConfig {
    SourceConfig::OnOff { burst_pkts: Some(burst_pkts), burst_bytes: None, idle_ns, first_burst, tcp }
}

/// The rows of flow `f`, as (round, start, completion time if the burst finished).
fn bursts(t: &Transfers, f: u32) -> Vec<(u32, f64, Option<f64>)> {
    (0..t.flow.len())
        .filter(|&i| t.flow[i] == f)
        .map(|i| (t.round[i], t.start_s[i], t.finished[i].then_some(t.fct_s[i])))
        .collect()
}

fn run(cfg: &RunConfig) -> RunResults {
    qdsim_core::run(cfg).unwrap()
}

#[test]
fn bursts_follow_one_another_after_exponential_idle_times_on_one_connection() {
    let tcp = TcpConfig::default();
    let mss = tcp.mss() as u64;
    let r = run(&on_off(1, source(20, 100 * MS, FirstBurst::Start, tcp), 1000, 1, 20 * S));
    assert_eq!(r.flows.len(), 1, "one connection: no flow beyond the configured one");
    let b = bursts(&r.transfers, 0);
    assert!(b.len() > 50, "{} bursts", b.len());
    assert_eq!(b[0].1, 0.0, "first_burst = start: the first burst at the flow's start");
    let mut gaps = vec![];
    for (k, w) in b.windows(2).enumerate() {
        assert_eq!((w[0].0, w[1].0), (k as u32, k as u32 + 1), "rounds count the bursts");
        let done = w[0].1 + w[0].2.expect("every burst but the last completes");
        assert!(w[1].1 > done, "the next burst starts after the previous one completed");
        gaps.push(w[1].1 - done);
    }
    assert!(r.transfers.size_bytes.iter().all(|&s| s == 20 * mss), "a burst of 20 full segments");
    let completed = b.iter().filter(|x| x.2.is_some()).count() as u64;
    let delivered = r.flows[0].delivered_bytes_total;
    assert!(delivered >= completed * 20 * mss && delivered <= (completed + 1) * 20 * mss);
    // Exponential idle times of mean 100 ms: the sample mean of ~100 draws is within 25 %,
    // and their spread is that of an exponential (standard deviation ≈ mean).
    let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
    assert!((0.075..0.125).contains(&mean), "mean idle {mean} s");
    assert!((0.6..1.4).contains(&(sd / mean)), "coefficient of variation {}", sd / mean);
    assert_eq!(r.flows[0].fct_s, None, "the flow's completion times are its bursts'");
}

#[test]
fn the_first_burst_completes_like_a_finite_transfer_of_its_size() {
    // Handed to TCP at the flow's start, the first burst is a fresh connection's transfer.
    let tcp = TcpConfig::default();
    let on = run(&on_off(1, source(64, 10 * S, FirstBurst::Start, tcp.clone()), 1000, 1, 3 * S));
    let size = 64 * tcp.mss() as u64;
    let finite = SourceConfig::Tcp { size_bytes: Some(size), tcp, repeat: None };
    let fin = run(&on_off(1, finite, 1000, 1, 3 * S));
    assert_eq!(on.transfers.fct_s[0], fin.transfers.fct_s[0]);
    assert!(on.transfers.finished[0]);
}

#[test]
fn first_burst_idle_begins_with_an_idle_time_drawn_per_flow() {
    let r = run(&on_off(4, source(10, S, FirstBurst::Idle, TcpConfig::default()), 1000, 5, 10 * S));
    let firsts: Vec<f64> = (0..4).map(|f| bursts(&r.transfers, f)[0].1).collect();
    for (f, &t) in firsts.iter().enumerate() {
        assert!(t > 0.0, "flow {f} starts in its off phase");
        assert_eq!(r.flows[f].start_s, t, "the connection opens with its first burst");
    }
    let distinct: std::collections::BTreeSet<u64> = firsts.iter().map(|t| t.to_bits()).collect();
    assert_eq!(distinct.len(), 4, "each flow draws its own idle time: {firsts:?}");
}

#[test]
fn a_burst_unfinished_at_the_end_is_a_censored_row() {
    // 1000 packets at 10 Mb/s take over a second; the run lasts half of one.
    let r = run(&on_off(1, source(1000, S, FirstBurst::Start, TcpConfig::default()), 1000, 1, S / 2));
    assert_eq!(bursts(&r.transfers, 0), vec![(0, 0.0, None)]);
    assert_eq!(r.transfers.fct_s, vec![0.5], "censored at the end of the run");
    assert_eq!(r.groups[0].transfers_completed, 0);
}

#[test]
fn the_same_seed_gives_the_same_bursts_and_another_seed_others() {
    let cfg = |seed| on_off(3, source(30, 200 * MS, FirstBurst::Idle, TcpConfig::default()), 50, seed, 5 * S);
    let a = run(&cfg(7));
    assert_eq!(a.transfers, run(&cfg(7)).transfers);
    assert_ne!(a.transfers.start_s, run(&cfg(8)).transfers.start_s);
}

#[test]
fn reno_and_tahoe_sources_finish_their_bursts_through_losses() {
    for cc in [CcKind::Reno, CcKind::Tahoe] {
        let tcp = TcpConfig { cc, ..TcpConfig::default() };
        // Ten sources, 100-packet bursts, into a 20-packet buffer: losses in most bursts.
        let r = run(&on_off(10, source(100, 500 * MS, FirstBurst::Idle, tcp), 20, 3, 20 * S));
        let retransmits: u64 = r.flows.iter().map(|f| f.retransmits).sum();
        assert!(retransmits > 0, "{cc:?}: the buffer overflows");
        assert!(r.flows.iter().all(|f| f.cc == cc.name()));
        for f in 0..10 {
            let b = bursts(&r.transfers, f);
            assert!(b.len() >= 5, "{cc:?} flow {f}: {} bursts", b.len());
            assert!(
                b[..b.len() - 1].iter().all(|x| x.2.is_some()),
                "{cc:?} flow {f}: every burst but the last completes"
            );
        }
    }
}

#[test]
fn a_kept_window_sends_later_bursts_faster_than_the_first() {
    // Without the restart after idle (ns-2's agents) the connection's grown window survives
    // the idle time: a later burst leaves in fewer round trips than the first, which started
    // from the initial window. With the restart (RFC 5681 §4.1) it starts from it again.
    let second = |idle_restart: bool| {
        let tcp = TcpConfig { idle_restart, ..qdsim_core::scenario::plain_tcp(false) };
        let r = run(&on_off(1, source(64, 2 * S, FirstBurst::Start, tcp), 1000, 2, 10 * S));
        let b = bursts(&r.transfers, 0);
        (b[0].2.unwrap(), b[1].2.unwrap())
    };
    let (first, kept) = second(false);
    // One window: 64 x 1500 bytes at 10 Mb/s (76.8 ms) plus 25 ms one way plus the first
    // packet's 0.12 ms on the 100 Mb/s access link.
    assert!((kept - 0.10192).abs() < 0.001, "kept window: first {first} s, second {kept} s");
    assert!(first > kept + 0.05, "the first burst needed slow start: {first} s");
    let (first, restarted) = second(true);
    assert!(restarted > 0.8 * first, "restart after idle: first {first} s, second {restarted} s");
}
