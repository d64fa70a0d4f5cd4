//! Analytic checks of the traffic sources (Augé & Roberts 2006, §III-B and §IV-A).

use crate::common::*;
use qdsim_core::config::{FlowConfig, FlowSizes, LinkConfig, PacketSizeLaw, RunConfig, SamplingConfig, SourceConfig};
use qdsim_core::qdisc::{FqParams, QdiscConfig};
use qdsim_core::scenario::FlowGroup;
use qdsim_core::tcp::TcpConfig;

/// M/M/1/K loss probability: K places (waiting + in service), load ρ.
fn mm1k_loss(rho: f64, k: i32) -> f64 {
    (1.0 - rho) * rho.powi(k) / (1.0 - rho.powi(k + 1))
}

/// A Poisson packet source at router `r` straight into a FIFO of `n` packets on a link of
/// `rate_bps`: arrivals reach the queue as the source emits them.
fn poisson_into_fifo(seed: u64, rho: f64, n: u64, rate_bps: u64, mean_bytes: u32, duration_ns: u64) -> RunConfig {
    let link = |name: &str, from: &str, to: &str, qdisc: QdiscConfig| LinkConfig {
        name: name.into(),
        from: from.into(),
        to: to.into(),
        rate_bps,
        delay_ns: MS,
        loss: 0.0,
        metric: 1,
        qdisc,
    };
    RunConfig {
        seed,
        duration_ns,
        warmup_ns: S,
        nodes: vec!["r".into(), "b".into()],
        links: vec![link("bottleneck", "r", "b", fifo(n)), link("b->r", "b", "r", fifo(1))],
        sources: vec![],
        flows: vec![FlowConfig {
            group: "poisson".into(),
            src: "r".into(),
            dst: "b".into(),
            user: None,
            start_ns: 0,
            start_jitter_ns: 0,
            source: SourceConfig::PoissonPackets {
                rate_bps: (rho * rate_bps as f64).round() as u64,
                packet_bytes: mean_bytes,
                size_distribution: PacketSizeLaw::Exponential,
                min_packet_bytes: 41,
                max_packet_bytes: 65535,
                stop_ns: None,
            },
        }],
        hosts: vec![],
        sampling: SamplingConfig::default(),
        pcap: None,
    }
}

/// Mean and standard error of the mean of `xs`.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// §IV-A, the transparent regime: Poisson arrivals of exponentially sized packets into a
/// FIFO of n packets lose (1 − ρ)ρ^K / (1 − ρ^(K+1)) of them, the M/M/1/K formula with
/// K = n + 1 places (n waiting, one on the wire; the paper's ≈ ρⁿ for large n).
///
/// Tolerance: losses cluster in busy periods, so the binomial σ = √(p(1 − p)/N) of N
/// arrivals understates the error by √D, D the index of dispersion of the loss count
/// (measured 3 at ρ = 0.5, n = 5 up to 48 at ρ = 0.95, n = 50). The test therefore runs 20
/// independent replications (seeds) and, by the central limit theorem on their mean, accepts
/// |p̂ − p| < 4 standard errors (t₁₉ two-sided 99.9 % quantile 3.88); each point's run is
/// long enough that this is below 12 % of p, so an error of the size of one place of buffer
/// (K = n instead of n + 1: +100 %, +27 %, +12 %) fails at the first three points.
#[test]
fn poisson_packets_into_a_fifo_lose_as_m_m_1_k() {
    for (rho, n, seconds) in [(0.5, 5u64, 20u64), (0.8, 10, 20), (0.9, 20, 40), (0.95, 50, 100)] {
        let losses: Vec<f64> = (1..=20u64)
            .map(|seed| {
                let r = qdsim_core::run(&poisson_into_fifo(seed, rho, n, 100_000_000, 1500, seconds * S)).unwrap();
                let l = &r.links[0];
                l.drops as f64 / l.arrivals as f64
            })
            .collect();
        let (p_hat, se) = mean_se(&losses);
        let p = mm1k_loss(rho, n as i32 + 1);
        println!("rho {rho}, n {n}: simulated {p_hat:.5} ± {se:.5}, M/M/1/K {p:.5}, rho^n {:.5}", rho.powi(n as i32));
        assert!(4.0 * se < 0.12 * p, "rho {rho}, n {n}: the test cannot discriminate (se {se})");
        assert!((p_hat - p).abs() < 4.0 * se, "rho {rho}, n {n}: simulated {p_hat} ± {se}, M/M/1/K {p}");
    }
}

/// A dumbbell whose only traffic is a generator of transfers with exponential sizes of mean
/// `mean_bytes` arriving at `lambda` per second, from one host pair behind 1 Gb/s access
/// links (no access cap) through a `rate_bps` bottleneck (RTT 20 ms) under DRR per flow with
/// a shared longest-queue-drop buffer of 1000 packets.
fn elastic_flows(seed: u64, lambda: f64, rate_bps: u64, mean_bytes: u64, seconds: u64) -> RunConfig {
    let mut d = dumbbell(rate_bps, 5, 5, 0, 1);
    d.qdisc = QdiscConfig::Drr(FqParams { limit_pkts: Some(1000), ..FqParams::default() });
    d.groups.push(FlowGroup {
        source: SourceConfig::ShortFlows {
            arrival_rate_per_s: lambda,
            size_min_bytes: 0,
            size_max_bytes: 0,
            sizes: Some(FlowSizes::Exponential { mean_bytes }),
            tcp: TcpConfig::default(),
            stop_ns: None,
            hosts: vec![],
        },
        ..FlowGroup::bulk("elastic", 1, 5 * MS, TcpConfig::default())
    });
    let mut cfg = d.config(seed, seconds * S, 10 * S);
    cfg.sampling.flows_in_progress = true;
    cfg
}

/// §III-B: elastic flows sharing a link fairly form a processor-sharing queue, whose number
/// of flows in progress is geometric, P(n) = (1 − ρ)ρⁿ, mean ρ/(1 − ρ).
///
/// ρ is the load on the wire: λ · E[bytes on the wire] / C, a transfer of S bytes carrying
/// 40 bytes of headers per segment, E[⌈S/MSS⌉] = 1/(1 − e^(−MSS/mean)) segments. Transfers of
/// 500 kB on average, 20 times the bandwidth-delay product, spend little of their time in
/// slow start, but TCP is not ideal sharing (slow start, losses, timeouts lengthen
/// transfers), so the check is loose, as its tolerances say before any run: the mean within
/// 25 %, P(0) within 5 points, and the geometric shape — P(n+1)/P(n) within 0.1 of ρ for
/// n = 0, 1 — over four seeds of 2000 s (about 2500 and 3500 transfers each).
#[test]
fn elastic_transfers_under_fair_queueing_are_in_progress_as_processor_sharing_predicts() {
    let (rate, mean) = (10_000_000u64, 500_000u64);
    let mss = TcpConfig::default().mss() as f64;
    let header = (TcpConfig::default().packet_bytes - TcpConfig::default().mss()) as f64;
    for rho_app in [0.5, 0.7] {
        let lambda = rho_app * rate as f64 / (8.0 * mean as f64);
        let wire = mean as f64 + header / (1.0 - (-mss / mean as f64).exp());
        let rho = lambda * 8.0 * wire / rate as f64;
        let runs: Vec<_> =
            (1..=4).map(|seed| qdsim_core::run(&elastic_flows(seed, lambda, rate, mean, 2000)).unwrap()).collect();
        let avg = |f: &dyn Fn(&qdsim_core::results::GeneratorResult) -> f64| {
            runs.iter().map(|r| f(&r.generators[0])).sum::<f64>() / runs.len() as f64
        };
        let mean_n = avg(&|g| g.mean_in_progress);
        let p: Vec<f64> = (0..3).map(|n| avg(&|g| g.in_progress_fraction.get(n).copied().unwrap_or(0.0))).collect();
        let ps_mean = rho / (1.0 - rho);
        println!(
            "rho {rho:.3}: mean in progress {mean_n:.3} (PS {ps_mean:.3}), P(0) {:.3} (PS {:.3}), P(1)/P(0) {:.3}, P(2)/P(1) {:.3}",
            p[0],
            1.0 - rho,
            p[1] / p[0],
            p[2] / p[1]
        );
        assert!((mean_n / ps_mean - 1.0).abs() < 0.25, "rho {rho}: mean {mean_n}, PS {ps_mean}");
        assert!((p[0] - (1.0 - rho)).abs() < 0.05, "rho {rho}: P(0) = {}", p[0]);
        for n in 0..2 {
            assert!((p[n + 1] / p[n] - rho).abs() < 0.1, "rho {rho}: P({})/P({n}) = {}", n + 1, p[n + 1] / p[n]);
        }
    }
}
