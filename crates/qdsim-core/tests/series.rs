//! Recordable time series: the TCP event log, on-change sampling, timeout state and
//! cumulative drop counts — each checked against the run's own counters.

use crate::common::*;
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

#[test]
fn reason_series_ends_at_every_links_drops_by_reason() {
    // No warm-up: the links' counts then cover the whole run, as the series' cumulative ones.
    let mut cfg = dumbbell(10_000_000, 5, 5, 2, 20).config(1, 4 * S, 0);
    cfg.sampling = SamplingConfig { interval_ns: MS, queues: true, ..SamplingConfig::default() };
    let r = qdsim_core::run(&cfg).unwrap();
    let s = &r.series.reasons;
    assert!(!s.t.is_empty(), "the FIFO overflows");
    let mut last = std::collections::BTreeMap::new();
    for i in 0..s.t.len() {
        let key = (s.link[i], s.kind[i], s.reason[i]);
        let before = last.insert(key, s.count[i]).unwrap_or(0);
        assert!(s.count[i] > before, "a row only when the count grew: {key:?}");
    }
    for (l, link) in r.links.iter().enumerate() {
        for (reason, &n) in &link.drops_by_reason {
            // The last sample is at most one interval before the end: nothing may be missing
            // beyond what that interval dropped, and nothing may be counted twice.
            let seen = last.get(&(l as u32, "drop", reason.as_str())).copied().unwrap_or(0);
            assert!(seen <= n, "{}: {reason} {seen} > {n}", link.name);
        }
    }
    let bottleneck = r.links.iter().position(|l| l.name == "bottleneck").unwrap() as u32;
    assert!(last.get(&(bottleneck, "drop", "overflow")).is_some_and(|&n| n > 0));
    // At the last sample the reasons add up to the queue series' cumulative drops there.
    let q = &r.series.queue;
    let at = (0..q.t.len()).rfind(|&i| q.link[i] == bottleneck).unwrap();
    let summed: u64 = last.iter().filter(|((l, kind, _), _)| *l == bottleneck && *kind == "drop").map(|(_, n)| n).sum();
    assert_eq!(summed, q.drops[at]);
}

#[test]
fn sampled_sojourn_averages_to_the_links_mean_delay() {
    // No warm-up: the link's mean delay then covers every packet the samples saw leave.
    let mut cfg = dumbbell(10_000_000, 5, 5, 2, 50).config(1, 4 * S, 0);
    cfg.sampling = SamplingConfig { interval_ns: MS, queues: true, ..SamplingConfig::default() };
    let r = qdsim_core::run(&cfg).unwrap();
    let q = &r.series.queue;
    let bottleneck = r.links.iter().position(|l| l.name == "bottleneck").unwrap() as u32;
    let rows: Vec<usize> = (0..q.t.len()).filter(|&i| q.link[i] == bottleneck).collect();
    assert!(rows.iter().any(|&i| q.sojourn_s[i].is_none()), "an interval in which nothing left the idle queue");
    let measured: Vec<f64> = rows.iter().filter_map(|&i| q.sojourn_s[i]).collect();
    assert!(measured.iter().all(|&v| (0.0..0.1).contains(&v)), "within what 50 packets at 10 Mb/s can hold");
    // Unweighted, the samples' means straddle the per-packet mean: compare loosely.
    let mean = measured.iter().sum::<f64>() / measured.len() as f64;
    let link_mean = r.links[bottleneck as usize].mean_delay_s.expect("packets left the bottleneck");
    assert!((mean / link_mean - 1.0).abs() < 0.5, "samples {mean} vs link {link_mean}");
}
