//! Recordable time series: the TCP event log, on-change sampling, timeout state and
//! cumulative drop counts — each checked against the run's own counters.

mod common;

use common::*;
use qdsim_core::config::SamplingConfig;

fn lossy_run(sampling: SamplingConfig) -> qdsim_core::RunResults {
    // One flow into a 20-packet FIFO: slow-start overshoot gives fast retransmits and timeouts.
    let mut cfg = dumbbell(10_000_000, 5, 5, 1, 20).config(1, 8 * S, S);
    cfg.sampling = sampling;
    qdsim_core::run(&cfg).unwrap()
}

#[test]
fn event_log_matches_the_sender_counters() {
    let r = lossy_run(SamplingConfig { tcp_events: true, ..SamplingConfig::default() });
    let log = &r.series.tcp_events;
    let count = |k: &str| log.kind.iter().filter(|&&x| x == k).count() as u64;
    let in_window = |k: &str| (0..log.t.len()).filter(|&i| log.kind[i] == k && log.t[i] >= r.warmup_s).count() as u64;
    let f = &r.flows[0];
    assert!(f.timeouts_total > 0 && f.fast_retransmits_total > 0, "the scenario must exercise both");
    // The log covers the whole run, the counters the window, their totals the whole run.
    assert_eq!(count("timeout"), f.timeouts_total);
    assert_eq!(count("fast_retransmit"), f.fast_retransmits_total);
    assert_eq!(count("retransmit"), f.retransmits_total);
    assert_eq!(in_window("timeout"), f.timeouts);
    assert_eq!(in_window("fast_retransmit"), f.fast_retransmits);
    assert_eq!(in_window("retransmit"), f.retransmits);
    assert!(f.retransmits < f.retransmits_total, "the slow-start losses are before the window");
    assert!(log.t.windows(2).all(|w| w[0] <= w[1]), "events in time order");
}

#[test]
fn on_change_sampling_records_every_window_change_and_nothing_else() {
    let r = lossy_run(SamplingConfig { tcp_on_change: true, ..SamplingConfig::default() });
    let s = &r.series.tcp;
    assert!(s.t.len() > 100, "{} rows", s.t.len());
    for i in 1..s.t.len() {
        assert!((s.cwnd[i], s.ssthresh[i]) != (s.cwnd[i - 1], s.ssthresh[i - 1]), "row {i} repeats the previous state");
    }
    // The window halves at every fast retransmit: there are at least that many decreases.
    let decreases = s.cwnd.windows(2).filter(|w| w[1] < w[0]).count() as u64;
    assert!(decreases >= r.flows[0].fast_retransmits_total);
}

#[test]
fn queue_series_carries_cumulative_drops_and_timeout_state() {
    let r = lossy_run(SamplingConfig { interval_ns: MS, queues: true, tcp: true, ..SamplingConfig::default() });
    let q = &r.series.queue;
    let bottleneck: Vec<usize> = (0..q.t.len()).filter(|&i| q.link[i] == 0).collect();
    let drops: Vec<u64> = bottleneck.iter().map(|&i| q.drops[i]).collect();
    assert!(drops.windows(2).all(|w| w[0] <= w[1]), "cumulative");
    assert!(*drops.last().unwrap() > 0);
    assert!(bottleneck.iter().all(|&i| q.overflow_drops[i] == q.drops[i]), "a FIFO only overflows");
    assert!(r.series.tcp.in_timeout.iter().any(|&x| x), "some sample falls in a timeout recovery");
    assert!(r.series.tcp.in_timeout.iter().filter(|&&x| !x).count() > r.series.tcp.t.len() / 2);
}
