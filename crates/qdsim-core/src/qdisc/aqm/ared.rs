//! Adaptive RED (Floyd, Gummadi, Shenker, "Adaptive RED: An Algorithm for Increasing the
//! Robustness of RED's Active Queue Management", 2001), as ns-2's `queue/red.cc` with
//! `adaptive_ 1` (the implementation the CoDel data-center study used; see
//! `docs/reproductions/codel-dc.md`).
//!
//! Principles (paper §4–§5, Fig. 3):
//! - RED in gentle mode (`red.rs`'s estimator and decision, reused), whose `max_p` is
//!   adapted every `interval` (0.5 s) so that the average queue stays in the target band
//!   `[min_th + 0.4·(max_th − min_th), min_th + 0.6·(max_th − min_th)]`:
//!   above the band and `max_p < top`, `max_p += α` with `α = min(0.01, max_p/4)`;
//!   below the band and `max_p > bottom`, `max_p ×= β` with `β = 0.9` (AIMD).
//! - Automatic parameters from the link capacity `C` in packets/s
//!   (`link_rate / (8·mean_pktsize)`): `w_q = 1 − exp(−1/C)` (the paper's rule),
//!   `min_th = max(5, target_delay·C/2)`, `max_th = 3·min_th` (ns-2 `initialize_params`),
//!   `bottom = min(0.01, 80000/link_rate)` (ns-2 `bottom_ 0`), `top = 0.5`.
//!
//! Deviation: the adaptation runs on a timer every `interval` (`ctx.request_timer`), where
//! ns-2 checks on arrivals once `interval` has passed since the last change; both step at
//! most once per interval. The link rate is a parameter because a qdisc does not see its link.

use serde::{Deserialize, Serialize};

use super::red::{RedCore, RedQueue, Shared};
use super::Periodic;
use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::{Probe, Qdisc, QdiscCtx, QdiscParams};
use crate::time::{Duration, Time};

/// ARED parameters. Defaults: the paper and ns-2 `ns-default.tcl` / `red.cc`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct AredParams {
    /// The link's rate (required: sets C, and with it w_q, thresholds and `bottom`).
    pub link_rate_bps: Option<u64>,
    /// Typical packet size, bytes. Default 500 (ns-2 `mean_pktsize_`); set the real size.
    pub mean_pktsize_bytes: u64,
    /// Minimum threshold, packets; `None` = `max(5, target_delay·C/2)` (ns-2 `thresh_ 0`).
    pub min_th_pkts: Option<u64>,
    /// Maximum threshold, packets; `None` = `3·min_th` (ns-2 `maxthresh_ 0`).
    pub max_th_pkts: Option<u64>,
    /// EWMA weight; `None` = `1 − exp(−1/C)` (the paper's rule, ns-2 `q_weight_ 0`).
    pub w_q: Option<f64>,
    /// Initial `max_p`. Default 0.1 (ns-2 `1/linterm_`).
    pub max_p: f64,
    /// Target queueing delay for automatic thresholds, ns. Default 5 ms (ns-2 `targetdelay_`).
    pub target_delay_ns: u64,
    /// Adaptation period, ns. Default 0.5 s (paper, ns-2 `interval_`).
    pub interval_ns: u64,
    /// Gentle variant. Default true (the paper's ARED is gentle).
    pub gentle: bool,
    /// Early drops spaced 1/p_b..2/p_b packets apart. Default true (ns-2 `wait_`).
    pub wait: bool,
    /// Mark ECN-capable packets instead of early drops. Default false.
    pub ecn: bool,
    /// Hard limit in packets; `None` = none.
    pub limit_pkts: Option<u64>,
    /// Hard limit in bytes; `None` = none.
    pub limit_bytes: Option<u64>,
}

impl Default for AredParams {
    fn default() -> Self {
        AredParams {
            link_rate_bps: None,
            mean_pktsize_bytes: 500,
            min_th_pkts: None,
            max_th_pkts: None,
            w_q: None,
            max_p: 0.1,
            target_delay_ns: 5_000_000,
            interval_ns: 500_000_000,
            gentle: true,
            wait: true,
            ecn: false,
            limit_pkts: None,
            limit_bytes: None,
        }
    }
}

/// `top_` of ns-2: `max_p` is not increased beyond this (the paper's 0.5).
const TOP: f64 = 0.5;
/// The paper's multiplicative decrease.
const BETA: f64 = 0.9;

impl QdiscParams for AredParams {
    /// Checks the link rate is given and every parameter is in range.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.link_rate_bps.is_none() {
            return Err(ConfigError::new(
                "link_rate",
                "none",
                "the link's rate (ARED derives w_q and thresholds from it)",
            ));
        }
        self.shared().validate()?;
        if self.interval_ns == 0 {
            return Err(ConfigError::new("interval", 0, "a duration > 0"));
        }
        if self.min_th_pkts == Some(0) {
            return Err(ConfigError::new("min_th", 0, "at least 1 packet, or absent for automatic"));
        }
        let (lo, hi) = self.thresholds();
        if hi <= lo {
            return Err(ConfigError::new("max_th", hi, format!("more than min_th ({lo})")));
        }
        self.shared().check_limit_reaches(lo)
    }

    /// Takes the link's rate, from which ARED derives C, `w_q`, thresholds and `bottom`.
    fn on_link(&mut self, rate_bps: u64) {
        self.link_rate_bps.get_or_insert(rate_bps);
    }
}

impl AredParams {
    /// Returns the parameters ARED shares with RED.
    fn shared(&self) -> Shared {
        Shared {
            w_q: self.w_q,
            max_p: self.max_p,
            mean_pktsize_bytes: self.mean_pktsize_bytes,
            link_rate_bps: self.link_rate_bps,
            ecn: self.ecn,
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
        }
    }

    /// Returns C, the link capacity in typical packets per second.
    fn capacity(&self) -> f64 {
        self.link_rate_bps.unwrap_or(0) as f64 / (8.0 * self.mean_pktsize_bytes as f64)
    }

    /// Returns (min_th, max_th) in packets, automatic where not given.
    fn thresholds(&self) -> (f64, f64) {
        let target = Duration::from_ns(self.target_delay_ns).as_secs_f64();
        let lo = self.min_th_pkts.map_or_else(|| (target * self.capacity() / 2.0).max(5.0), |v| v as f64);
        let hi = self.max_th_pkts.map_or(3.0 * lo, |v| v as f64);
        (lo, hi)
    }

    fn core(&self) -> RedCore {
        let c = self.capacity();
        let (min_th, max_th) = self.thresholds();
        RedCore {
            w_q: self.w_q.unwrap_or_else(|| 1.0 - (-1.0 / c).exp()),
            min_th,
            max_th,
            max_p: self.max_p,
            gentle: self.gentle,
            wait: self.wait,
            byte_mode: false,
            mean_pktsize: self.mean_pktsize_bytes as f64,
            ptc: Some(c),
            avg: 0.0,
            count: -1,
            count_bytes: 0.0,
            idle_since: Some(Time::ZERO),
        }
    }
}

pub(crate) fn info() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "ared",
        summary: "Adaptive RED: max_p adapted every 0.5 s, automatic w_q and thresholds (Floyd et al. 2001, as ns-2)",
        params: vec![
            ParamInfo {
                name: "link_rate",
                unit: "bit/s",
                default: "none (required)",
                help: "the link's rate; sets C = link_rate/(8*mean_pktsize)",
            },
            ParamInfo { name: "mean_pktsize", unit: "bytes", default: "500B", help: "typical packet size" },
            ParamInfo { name: "min_th", unit: "pkts", default: "auto", help: "none = max(5, target_delay*C/2)" },
            ParamInfo { name: "max_th", unit: "pkts", default: "auto", help: "none = 3*min_th" },
            ParamInfo { name: "w_q", unit: "float", default: "auto", help: "none = 1 - exp(-1/C)" },
            ParamInfo { name: "max_p", unit: "float", default: "0.1", help: "initial max_p, (0, 1]" },
            ParamInfo {
                name: "target_delay",
                unit: "time",
                default: "5ms",
                help: "target queueing delay for automatic thresholds",
            },
            ParamInfo { name: "interval", unit: "time", default: "500ms", help: "max_p adaptation period" },
            ParamInfo { name: "gentle", unit: "bool", default: "true", help: "probability rises to 1 at 2*max_th" },
        ]
        .into_iter()
        .chain(super::red::shared_params())
        .collect(),
    }
}

/// The Adaptive RED qdisc.
#[derive(Debug)]
pub struct Ared {
    inner: RedQueue,
    /// The adaptation timer, every `interval`, started by the first arrival.
    timer: Periodic,
    bottom: f64,
}

impl Ared {
    /// Returns an empty ARED queue.
    pub fn new(params: AredParams) -> Self {
        let bottom = params.link_rate_bps.map_or(0.01, |r| (80_000.0 / r as f64).min(0.01));
        Ared {
            inner: RedQueue::new(params.core(), &params.shared()),
            timer: Periodic::new(Duration::from_ns(params.interval_ns)),
            bottom,
        }
    }

    /// Returns the current `max_p`.
    pub fn max_p(&self) -> f64 {
        self.inner.core.max_p
    }

    /// Returns the average queue in packets.
    pub fn avg(&self) -> f64 {
        self.inner.core.avg
    }

    /// Returns (w_q, min_th, max_th) as configured or derived.
    pub fn derived(&self) -> (f64, f64, f64) {
        let c = &self.inner.core;
        (c.w_q, c.min_th, c.max_th)
    }

    /// One adaptation step (paper Fig. 3; ns-2 `updateMaxP` guards).
    fn adapt(&mut self) {
        let c = &mut self.inner.core;
        let band = c.max_th - c.min_th;
        if c.avg > c.min_th + 0.6 * band && c.max_p < TOP {
            c.max_p += (c.max_p / 4.0).min(0.01);
        } else if c.avg < c.min_th + 0.4 * band && c.max_p > self.bottom {
            c.max_p *= BETA;
        }
    }
}

impl Qdisc for Ared {
    fn enqueue(&mut self, pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
        self.timer.start(now, ctx);
        self.inner.enqueue(pkt, now, ctx);
    }
    fn dequeue(&mut self, now: Time, _ctx: &mut QdiscCtx) -> Option<Packet> {
        self.inner.dequeue(now)
    }
    fn len_pkts(&self) -> u64 {
        self.inner.queue.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.inner.queue.len_bytes()
    }
    fn on_timer(&mut self, now: Time, ctx: &mut QdiscCtx) {
        if self.timer.fire(now, ctx) {
            self.adapt();
        }
    }
    /// RED's variables, `max_p` as adapted.
    fn internals(&self, probe: &mut dyn Probe) {
        self.inner.internals(probe);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::qdisc::testing::{conserves, pkt};
    use crate::rng;
    use proptest::prelude::*;

    const SEC: u64 = 1_000_000_000;

    fn params() -> AredParams {
        // The CoDel data-center study's setting (docs/reproductions/codel-dc.md): 1 Gb/s,
        // 1 kB packets, min_th 25, max_th 51.
        AredParams {
            link_rate_bps: Some(1_000_000_000),
            mean_pktsize_bytes: 1000,
            min_th_pkts: Some(25),
            max_th_pkts: Some(51),
            ..AredParams::default()
        }
    }

    /// Holds the queue at `q` packets (one arrival per µs, a departure whenever the queue
    /// exceeds `q`) for `secs`, firing the adaptation timer when due; returns max_p after
    /// each adaptation. Drives the qdisc directly: millions of drops are too many for the
    /// harness's per-call books.
    fn run_at_queue(mut a: Ared, q: u32, secs: u64) -> Vec<f64> {
        let mut ctx = QdiscCtx::new(rng::stream(1, "qdisc", 0));
        for i in 0..q {
            a.enqueue(pkt(i, 1000), Time::ZERO, &mut ctx);
        }
        let mut out = vec![];
        let mut t = 0;
        while t < secs * SEC {
            t += 1_000;
            let now = Time(t);
            if let Some(at) = ctx.timer.take() {
                if at <= now {
                    a.on_timer(at, &mut ctx);
                    out.push(a.max_p());
                } else {
                    ctx.timer = Some(at);
                }
            }
            a.enqueue(pkt(0, 1000), now, &mut ctx);
            if a.len_pkts() > q as u64 {
                a.dequeue(now, &mut ctx);
            }
            ctx.drops.clear();
        }
        out
    }

    #[test]
    fn max_p_rises_additively_while_the_average_is_above_the_band() {
        // Queue held at 45 > 25 + 0.6·26 = 40.6: max_p += min(0.01, max_p/4) every 0.5 s.
        let steps = run_at_queue(Ared::new(params()), 45, 3);
        assert!(steps.len() >= 5, "{steps:?}");
        let mut expected = 0.1;
        for got in &steps {
            expected += f64::min(0.01, expected / 4.0);
            assert!((got - expected).abs() < 1e-12, "{steps:?}");
        }
    }

    #[test]
    fn max_p_falls_multiplicatively_while_the_average_is_below_the_band() {
        // Queue held at 20 < 25 + 0.4·26 = 35.4: max_p ×= 0.9 every 0.5 s.
        let steps = run_at_queue(Ared::new(params()), 20, 3);
        assert!(steps.len() >= 5);
        for (k, got) in steps.iter().enumerate() {
            assert!((got - 0.1 * 0.9f64.powi(k as i32 + 1)).abs() < 1e-12, "{steps:?}");
        }
    }

    #[test]
    fn max_p_stays_put_inside_the_band() {
        let steps = run_at_queue(Ared::new(params()), 38, 2);
        assert!(steps.iter().all(|&p| p == 0.1), "{steps:?}");
    }

    #[test]
    fn automatic_parameters_follow_the_link_capacity() {
        // 1 Gb/s with 1000-byte packets: C = 125 000 packets/s.
        let a = Ared::new(AredParams {
            link_rate_bps: Some(1_000_000_000),
            mean_pktsize_bytes: 1000,
            ..AredParams::default()
        });
        let (w_q, lo, hi) = a.derived();
        assert!((w_q - (1.0 - (-1.0f64 / 125_000.0).exp())).abs() < 1e-15);
        assert!((lo - 312.5).abs() < 1e-9); // 5 ms · 125 000 / 2
        assert!((hi - 937.5).abs() < 1e-9);
        // A slow link: the 5-packet floor.
        let (_, lo, hi) = Ared::new(AredParams { link_rate_bps: Some(1_000_000), ..AredParams::default() }).derived();
        assert_eq!((lo, hi), (5.0, 15.0));
    }

    #[test]
    fn a_missing_link_rate_is_refused_by_name() {
        assert_eq!(AredParams::default().validate().unwrap_err().key, "link_rate");
        assert!(params().validate().is_ok());
    }

    #[test]
    fn a_limit_below_min_th_is_refused_also_when_min_th_is_derived() {
        let set = AredParams { min_th_pkts: Some(25), max_th_pkts: Some(51), limit_pkts: Some(20), ..params() };
        assert_eq!(set.validate().unwrap_err().key, "limit");
        // 1 Gb/s of 500-byte packets derives min_th = 5 ms · 250 000 / 2 = 625 packets.
        let derived = AredParams { link_rate_bps: Some(1_000_000_000), limit_pkts: Some(600), ..AredParams::default() };
        assert!(derived.validate().unwrap_err().allowed.contains("625 packets"));
        assert!(AredParams { limit_pkts: Some(625), ..derived }.validate().is_ok());
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50) {
            let p = AredParams { link_rate_bps: Some(10_000_000), min_th_pkts: Some(2), max_th_pkts: Some(6), w_q: Some(0.2),
                                 limit_pkts: Some(limit), ..AredParams::default() };
            conserves(Ared::new(p), &ops);
        }
    }
}
