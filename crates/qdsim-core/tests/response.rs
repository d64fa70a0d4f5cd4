//! Response functions on a link with random loss p and no queueing (issue 5): HighSpeed TCP
//! follows RFC 3649's `w = 0.12 / p^0.835` in its high-window region, CUBIC follows RFC 9438's
//! average window `(C(3+β)/(4(1−β)))^¼ · RTT^¾ / p^¾` in its cubic region — each within 25 %
//! at two loss rates. The mean window is measured as goodput × RTT / MSS.

use crate::common::*;
use qdsim_core::qdisc::{FifoParams, QdiscConfig};
use qdsim_core::scenario::plain_tcp;
use qdsim_core::tcp::{CcKind, TcpConfig};

/// Returns the mean window in segments of one `cc` flow over a 1 Gb/s path with RTT
/// `rtt_ms` and random loss `p`.
fn mean_window(cc: CcKind, p: f64, rtt_ms: u64, seconds: u64) -> f64 {
    let mut d = dumbbell(1_000_000_000, rtt_ms / 4, rtt_ms / 4, 1, 1);
    d.qdisc = QdiscConfig::Fifo(FifoParams::default());
    d.loss = p;
    d.groups[0].source = qdsim_core::config::SourceConfig::Tcp {
        size_bytes: None,
        tcp: TcpConfig { cc, rwnd_bytes: 1 << 30, ..plain_tcp(false) },
        repeat: None,
    };
    let r = qdsim_core::run(&d.config(5, seconds * S, 20 * S)).unwrap();
    r.flows[0].goodput_bps * (rtt_ms as f64 / 1000.0) / (1460.0 * 8.0)
}

#[test]
fn highspeed_follows_its_response_function() {
    for (p, seconds) in [(1e-4f64, 300), (3e-4, 200)] {
        let w = mean_window(CcKind::Highspeed, p, 100, seconds);
        let predicted = 0.12 / p.powf(0.835);
        let ratio = w / predicted;
        eprintln!("HSTCP p = {p}: mean window {w:.1}, RFC 3649 {predicted:.1}, ratio {ratio:.3}");
        assert!((0.75..=1.25).contains(&ratio), "p = {p}: ratio {ratio:.3}");
    }
}

#[test]
fn cubic_follows_its_response_function() {
    let (c, beta): (f64, f64) = (0.4, 0.7);
    for (p, seconds) in [(1e-4f64, 400), (1e-3, 200)] {
        let rtt: f64 = 0.2;
        let w = mean_window(CcKind::Cubic, p, 200, seconds);
        let predicted = (c * (3.0 + beta) / (4.0 * (1.0 - beta))).powf(0.25) * rtt.powf(0.75) / p.powf(0.75);
        let ratio = w / predicted;
        eprintln!("CUBIC p = {p}: mean window {w:.1}, RFC 9438 {predicted:.1}, ratio {ratio:.3}");
        assert!((0.75..=1.25).contains(&ratio), "p = {p}: ratio {ratio:.3}");
    }
}

#[test]
fn reno_and_newreno_follow_the_mathis_law() {
    for cc in [CcKind::Reno, CcKind::Newreno] {
        for p in [1e-3f64, 1e-2] {
            let w = mean_window(cc, p, 100, 300);
            let predicted = (3.0 / (2.0 * p)).sqrt();
            let ratio = w / predicted;
            eprintln!("{cc:?} p = {p}: mean window {w:.1}, Mathis {predicted:.1}, ratio {ratio:.3}");
            assert!((0.75..=1.25).contains(&ratio), "{cc:?} p = {p}: ratio {ratio:.3}");
        }
    }
}

#[test]
fn highspeed_takes_the_larger_share_beside_newreno_in_a_large_fifo() {
    // Augé & Roberts Fig. 6 (middle): HSTCP and NewReno through one bottleneck with a large
    // buffer; HSTCP's a(w) > 1 and b(w) < 0.5 at large windows win it most of the capacity.
    use qdsim_core::scenario::FlowGroup;
    let mut d = dumbbell(100_000_000, 10, 15, 0, 2000);
    for (name, cc) in [("hstcp", CcKind::Highspeed), ("newreno", CcKind::Newreno)] {
        d.groups.push(FlowGroup::bulk(name, 1, 15 * MS, TcpConfig { cc, rwnd_bytes: 1 << 30, ..plain_tcp(false) }));
    }
    let r = qdsim_core::run(&d.config(2, 120 * S, 20 * S)).unwrap();
    let (h, n) = (r.flows[0].goodput_bps, r.flows[1].goodput_bps);
    eprintln!("HSTCP {:.1} Mb/s, NewReno {:.1} Mb/s", h / 1e6, n / 1e6);
    assert!(h > 1.5 * n, "HSTCP {h:.0} vs NewReno {n:.0}");
    assert!(r.links[0].utilization > 0.95);
}
