//! RED, Random Early Detection (Floyd & Jacobson, "Random Early Detection Gateways for
//! Congestion Avoidance", IEEE/ACM ToN 1(4), 1993), with the "gentle" variant (Floyd 2000)
//! and byte mode; details as ns-2 `queue/red.cc` where the paper leaves a choice.
//!
//! Principles (paper §4, Fig. 2):
//! - On every arrival the average queue `avg` follows an EWMA of the instantaneous queue
//!   with weight `w_q`. After an idle period of length `t` it decays as if `m = ⌊C·t⌋`
//!   small packets had arrived to an empty queue, `C` being the link's rate in typical packets
//!   per second (`link_rate / (8·mean_pktsize)`).
//! - Below `min_th` nothing is dropped. Between `min_th` and `max_th` the base probability
//!   `p_b` rises linearly from 0 to `max_p`; the actual probability `p_a = p_b/(1 − count·p_b)`
//!   spaces drops out evenly (`count` = packets since the last drop, §7).
//! - At or above `max_th` every arrival is dropped (reason `forced`). With `gentle`, `p_b`
//!   instead rises linearly from `max_p` to 1 between `max_th` and `2·max_th`, and forced
//!   drops start at `2·max_th`.
//! - Byte mode: the queue is measured in bytes (thresholds `× mean_pktsize`) and `p_b` is
//!   scaled by `size/mean_pktsize`, so large packets are dropped more often (§11).
//! - With `ecn`, early drops of ECN-capable packets become CE marks; forced drops stay drops.
//!
//! The estimator and decision live in [`RedCore`], which Adaptive RED (`ared.rs`) reuses.

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::catalog::{AlgorithmInfo, ParamInfo};
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::{DropReason, MarkReason, PacketFifo, Probe, Qdisc, QdiscCtx, QdiscParams};
use crate::rng::StreamRng;
use crate::time::Time;

/// What RED decides for one arrival.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Queue it.
    Admit,
    /// Drop (or mark) it: a random early decision.
    Early,
    /// Drop it: the average is beyond the last threshold.
    Forced,
}

/// RED's average-queue estimator and drop decision, in queue units (packets, or bytes in
/// byte mode).
#[derive(Debug, Clone)]
pub(crate) struct RedCore {
    /// EWMA weight.
    pub w_q: f64,
    /// Minimum threshold, queue units.
    pub min_th: f64,
    /// Maximum threshold, queue units.
    pub max_th: f64,
    /// `p_b` at `max_th`.
    pub max_p: f64,
    /// Gentle variant.
    pub gentle: bool,
    /// ns-2's `wait_`: gaps between early drops uniform in [1/p_b, 2/p_b] packets instead of
    /// [1, 1/p_b] (Floyd & Jacobson 1993 §7).
    pub wait: bool,
    /// Byte mode.
    pub byte_mode: bool,
    /// Typical packet size, bytes.
    pub mean_pktsize: f64,
    /// Link capacity in typical packets per second, for the idle-time correction.
    pub ptc: Option<f64>,
    /// The average queue, queue units.
    pub avg: f64,
    /// Packets since the last drop (−1: below `min_th`), as in the paper.
    pub count: i64,
    /// Bytes since the last early drop (ns-2 `count_bytes`), the count in byte mode.
    pub count_bytes: f64,
    /// When the queue went idle (found empty at dequeue); `None` while busy.
    pub idle_since: Option<Time>,
}

impl RedCore {
    /// Updates `avg` on an arrival that finds `q` queue units queued (paper Fig. 2; after
    /// idle, ns-2's `(1−w_q)^(m+1)·avg + w_q·q`).
    pub fn update_avg(&mut self, q: f64, now: Time) {
        let keep = 1.0 - self.w_q;
        self.avg = match self.idle_since.take() {
            Some(t0) => {
                let m = self.ptc.map_or(0.0, |c| (c * now.saturating_since(t0).as_secs_f64()).floor());
                keep.powf(m + 1.0) * self.avg + self.w_q * q
            }
            None => keep * self.avg + self.w_q * q,
        };
    }

    /// Returns the base probability `p_b` at the current average, before byte scaling and
    /// count spacing (0 below `min_th`; 1 in the forced region).
    pub fn p_b(&self) -> f64 {
        let (lo, hi) = (self.min_th, self.max_th);
        if self.avg < lo {
            0.0
        } else if self.avg < hi {
            self.max_p * (self.avg - lo) / (hi - lo)
        } else if self.gentle && self.avg < 2.0 * hi {
            self.max_p + (1.0 - self.max_p) * (self.avg - hi) / hi
        } else {
            1.0
        }
    }

    /// Decides the fate of an arriving packet of `size` bytes at the current average.
    pub fn decide(&mut self, size: u32, rng: &mut StreamRng) -> Verdict {
        let forced_at = if self.gentle { 2.0 * self.max_th } else { self.max_th };
        if self.avg < self.min_th {
            self.count = -1;
            self.count_bytes = 0.0;
            return Verdict::Admit;
        }
        if self.avg >= forced_at {
            self.count = 0;
            self.count_bytes = 0.0;
            return Verdict::Forced;
        }
        self.count += 1;
        self.count_bytes += size as f64;
        let p_b = self.p_b();
        // ns-2 `modify_p`: count-based spacing (in mean-sized packets in byte mode), then
        // byte-mode scaling.
        let count = if self.byte_mode { self.count_bytes / self.mean_pktsize } else { self.count as f64 };
        let spread = count * p_b;
        let mut p_a = if self.wait {
            if spread < 1.0 {
                0.0
            } else if spread < 2.0 {
                p_b / (2.0 - spread)
            } else {
                1.0
            }
        } else if spread < 1.0 {
            p_b / (1.0 - spread)
        } else {
            1.0
        };
        if self.byte_mode && p_a < 1.0 {
            p_a = (p_a * size as f64 / self.mean_pktsize).min(1.0);
        }
        if rng.random::<f64>() < p_a {
            self.count = 0;
            self.count_bytes = 0.0;
            Verdict::Early
        } else {
            Verdict::Admit
        }
    }
}

/// A FIFO with RED's admission: shared by RED and ARED.
#[derive(Debug)]
pub(crate) struct RedQueue {
    pub core: RedCore,
    pub ecn: bool,
    pub limit_pkts: Option<u64>,
    pub limit_bytes: Option<u64>,
    pub queue: PacketFifo,
}

impl RedQueue {
    /// Reports RED's variables (`[sampling] qdisc`): the average `avg`, `count` since the
    /// last drop, the base probability `p_b` at the average and `max_p`.
    pub fn internals(&self, probe: &mut dyn Probe) {
        let c = &self.core;
        probe.record("avg", None, c.avg);
        probe.record("count", None, c.count as f64);
        probe.record("p_b", None, c.p_b());
        probe.record("max_p", None, c.max_p);
    }

    /// Returns an empty queue deciding by `core`, with the shared parameters' ECN and limits.
    pub fn new(core: RedCore, shared: &Shared) -> Self {
        RedQueue {
            core,
            ecn: shared.ecn,
            limit_pkts: shared.limit_pkts,
            limit_bytes: shared.limit_bytes,
            queue: PacketFifo::default(),
        }
    }

    pub fn enqueue(&mut self, mut pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
        let q = if self.core.byte_mode { self.queue.len_bytes() as f64 } else { self.queue.len_pkts() as f64 };
        self.core.update_avg(q, now);
        // As ns-2's red.cc (`qavg >= th_min && qlen > 1`): no early or forced drop while at
        // most one packet (byte, in byte mode) is queued. With a slowly decaying average — ARED's
        // automatic w_q has a time constant of about a second — RED would otherwise keep dropping
        // packets that find the queue empty, long after a burst has drained, and starve a flow
        // that has nothing queued.
        let verdict = if q > 1.0 {
            self.core.decide(pkt.size_bytes, &mut ctx.rng)
        } else {
            self.core.count = -1;
            self.core.count_bytes = 0.0;
            Verdict::Admit
        };
        match verdict {
            Verdict::Admit => {}
            Verdict::Early => {
                if !(self.ecn && ctx.mark(&mut pkt, MarkReason::Early)) {
                    ctx.drop_arrival(pkt, DropReason::Early);
                    return;
                }
            }
            Verdict::Forced => {
                ctx.drop_arrival(pkt, DropReason::Forced);
                return;
            }
        }
        if self.queue.fits(pkt.size_bytes, self.limit_pkts, self.limit_bytes) {
            self.queue.push(pkt);
        } else {
            ctx.drop_arrival(pkt, DropReason::Overflow);
        }
    }

    pub fn dequeue(&mut self, now: Time) -> Option<Packet> {
        let p = self.queue.pop();
        if p.is_none() && self.core.idle_since.is_none() {
            // The link found nothing to send: the idle period starts (ns-2 `deque`).
            self.core.idle_since = Some(now);
        }
        p
    }
}

/// RED parameters. Defaults: ns-2 `tcl/lib/ns-default.tcl` (Queue/RED), which follow
/// Floyd & Jacobson's simulations and Floyd's later recommendations.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct RedParams {
    /// Minimum threshold, packets (`× mean_pktsize` bytes in byte mode). Default 5 (ns-2 `thresh_`).
    pub min_th_pkts: u64,
    /// Maximum threshold, packets. Default 15 (ns-2 `maxthresh_`).
    pub max_th_pkts: u64,
    /// EWMA weight. Default 0.002 (paper §11, ns-2 `q_weight_`).
    pub w_q: f64,
    /// Drop probability at `max_th`. Default 0.1 (ns-2 `1/linterm_`).
    pub max_p: f64,
    /// Gentle variant. Default true (ns-2 `gentle_`, Floyd's recommendation of 2000).
    pub gentle: bool,
    /// Uniform spacing of early drops in [1/p_b, 2/p_b] packets. Default true (ns-2 `wait_`);
    /// false gives Floyd & Jacobson's [1, 1/p_b], about three times as many early drops.
    pub wait: bool,
    /// Byte mode. Default false (ns-2 `bytes_`/`queue_in_bytes_`).
    pub byte_mode: bool,
    /// Typical packet size, bytes: converts thresholds in byte mode and the link rate into
    /// packets per second. Default 500 (ns-2 `mean_pktsize_`); set the real size.
    pub mean_pktsize_bytes: u64,
    /// The link's rate, for the idle-time correction; `None` = no correction (the qdisc
    /// does not see its link).
    pub link_rate_bps: Option<u64>,
    /// Mark ECN-capable packets instead of early drops. Default false (ns-2 `setbit_`).
    pub ecn: bool,
    /// Hard limit in packets; `None` = none.
    pub limit_pkts: Option<u64>,
    /// Hard limit in bytes; `None` = none.
    pub limit_bytes: Option<u64>,
}

impl Default for RedParams {
    fn default() -> Self {
        RedParams {
            min_th_pkts: 5,
            max_th_pkts: 15,
            w_q: 0.002,
            max_p: 0.1,
            gentle: true,
            wait: true,
            byte_mode: false,
            mean_pktsize_bytes: 500,
            link_rate_bps: None,
            ecn: false,
            limit_pkts: None,
            limit_bytes: None,
        }
    }
}

/// The parameters RED and ARED share, with one meaning and one check (ARED reads them from
/// its own keys of the same names; its `w_q` may be left to the automatic rule).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Shared {
    /// EWMA weight; `None` = ARED's automatic weight.
    pub w_q: Option<f64>,
    /// `p_b` at `max_th` (ARED: the initial value).
    pub max_p: f64,
    /// Typical packet size, bytes.
    pub mean_pktsize_bytes: u64,
    /// The link's rate, for the idle-time correction (and ARED's automatic parameters).
    pub link_rate_bps: Option<u64>,
    /// Mark ECN-capable packets instead of early drops.
    pub ecn: bool,
    /// Hard limit in packets.
    pub limit_pkts: Option<u64>,
    /// Hard limit in bytes.
    pub limit_bytes: Option<u64>,
}

impl Shared {
    /// Refuses a limit below `min_th_pkts` (a byte limit: below `min_th` × `mean_pktsize`).
    /// The average never exceeds the queue, nor the queue the limit: below min_th RED would
    /// never act and the qdisc would silently be a tail-drop FIFO.
    ///
    /// # Errors
    /// `limit`, naming `min_th` in what is allowed.
    pub fn check_limit_reaches(&self, min_th_pkts: f64) -> Result<(), ConfigError> {
        let why = "so the average queue can reach min_th (below it RED never drops early and is a tail-drop FIFO)";
        if let Some(limit) = self.limit_pkts.filter(|&l| l != 0 && (l as f64) < min_th_pkts) {
            return Err(ConfigError::new("limit", limit, format!("at least min_th ({min_th_pkts} packets), {why}")));
        }
        let min_th_bytes = min_th_pkts * self.mean_pktsize_bytes as f64;
        if let Some(limit) = self.limit_bytes.filter(|&l| l != 0 && (l as f64) < min_th_bytes) {
            return Err(ConfigError::new(
                "limit",
                format!("{limit}B"),
                format!(
                    "at least min_th × mean_pktsize ({min_th_pkts} packets × {} B = {min_th_bytes} B), {why}",
                    self.mean_pktsize_bytes
                ),
            ));
        }
        Ok(())
    }

    /// Checks the shared parameters.
    ///
    /// # Errors
    /// The first parameter out of range, by its experiment-file key.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(w) = self.w_q {
            if !(w > 0.0 && w <= 1.0) {
                return Err(ConfigError::new("w_q", w, "a weight in (0, 1]"));
            }
        }
        if !(self.max_p > 0.0 && self.max_p <= 1.0) {
            return Err(ConfigError::new("max_p", self.max_p, "a probability in (0, 1]"));
        }
        if self.mean_pktsize_bytes == 0 {
            return Err(ConfigError::new("mean_pktsize", 0, "at least 1 byte"));
        }
        if self.link_rate_bps == Some(0) {
            return Err(ConfigError::new("link_rate", 0, "a rate > 0"));
        }
        if self.limit_pkts == Some(0) {
            return Err(ConfigError::new("limit", 0, "at least 1 packet, or absent for no limit"));
        }
        if self.limit_bytes == Some(0) {
            return Err(ConfigError::new("limit", "0B", "at least 1 byte, or absent for no limit"));
        }
        Ok(())
    }
}

impl QdiscParams for RedParams {
    /// Checks thresholds (0 < min_th < max_th, and a limit that lets the queue reach
    /// min_th), probabilities and weights.
    fn validate(&self) -> Result<(), ConfigError> {
        if self.max_th_pkts <= self.min_th_pkts {
            return Err(ConfigError::new(
                "max_th",
                self.max_th_pkts,
                format!("more than min_th ({})", self.min_th_pkts),
            ));
        }
        self.shared().check_limit_reaches(self.min_th_pkts as f64)?;
        self.shared().validate()
    }

    /// Takes the link's rate for the idle-time correction: without it RED's average would
    /// not decay while the queue is idle, and a flow that lost its window could be starved.
    fn on_link(&mut self, rate_bps: u64) {
        self.link_rate_bps.get_or_insert(rate_bps);
    }
}

impl RedParams {
    /// Returns the parameters RED shares with ARED.
    pub(crate) fn shared(&self) -> Shared {
        Shared {
            w_q: Some(self.w_q),
            max_p: self.max_p,
            mean_pktsize_bytes: self.mean_pktsize_bytes,
            link_rate_bps: self.link_rate_bps,
            ecn: self.ecn,
            limit_pkts: self.limit_pkts,
            limit_bytes: self.limit_bytes,
        }
    }

    pub(crate) fn core(&self) -> RedCore {
        let unit = if self.byte_mode { self.mean_pktsize_bytes as f64 } else { 1.0 };
        RedCore {
            w_q: self.w_q,
            min_th: self.min_th_pkts as f64 * unit,
            max_th: self.max_th_pkts as f64 * unit,
            max_p: self.max_p,
            gentle: self.gentle,
            wait: self.wait,
            byte_mode: self.byte_mode,
            mean_pktsize: self.mean_pktsize_bytes as f64,
            ptc: self.link_rate_bps.map(|r| r as f64 / (8.0 * self.mean_pktsize_bytes as f64)),
            avg: 0.0,
            count: -1,
            count_bytes: 0.0,
            idle_since: Some(Time::ZERO),
        }
    }
}

/// Returns the parameters RED and ARED share with the same meaning: drop spacing, ECN and
/// the hard limit (appended to both catalogs).
pub(crate) fn shared_params() -> [ParamInfo; 3] {
    [
        ParamInfo {
            name: "wait",
            unit: "bool",
            default: "true",
            help: "space early drops 1/p_b..2/p_b packets apart (ns-2 wait_); false: 1..1/p_b",
        },
        ParamInfo {
            name: "ecn",
            unit: "bool",
            default: "false",
            help: "mark ECN-capable packets instead of early drops",
        },
        ParamInfo {
            name: "limit",
            unit: "pkts|bytes",
            default: "none",
            help: "hard capacity; tail drop (overflow) beyond",
        },
    ]
}

pub(crate) fn info() -> AlgorithmInfo {
    AlgorithmInfo {
        name: "red",
        summary: "Random Early Detection with gentle and byte modes (Floyd & Jacobson 1993)",
        params: vec![
            ParamInfo { name: "min_th", unit: "pkts", default: "5", help: "no early drop below this average" },
            ParamInfo { name: "max_th", unit: "pkts", default: "15", help: "drop probability max_p here; > min_th" },
            ParamInfo {
                name: "w_q",
                unit: "float",
                default: "0.002",
                help: "EWMA weight of the average queue, (0, 1]",
            },
            ParamInfo { name: "max_p", unit: "float", default: "0.1", help: "drop probability at max_th, (0, 1]" },
            ParamInfo {
                name: "gentle",
                unit: "bool",
                default: "true",
                help: "probability rises to 1 at 2*max_th instead of jumping",
            },
            ParamInfo {
                name: "byte_mode",
                unit: "bool",
                default: "false",
                help: "queue in bytes, probability scaled by size",
            },
            ParamInfo {
                name: "mean_pktsize",
                unit: "bytes",
                default: "500B",
                help: "typical packet size (byte mode, idle correction)",
            },
            ParamInfo {
                name: "link_rate",
                unit: "bit/s",
                default: "the link's rate",
                help: "override the link's rate for the idle-time correction",
            },
        ]
        .into_iter()
        .chain(shared_params())
        .collect(),
    }
}

/// The RED qdisc.
#[derive(Debug)]
pub struct Red {
    inner: RedQueue,
}

impl Red {
    /// Returns an empty RED queue.
    pub fn new(params: RedParams) -> Self {
        Red { inner: RedQueue::new(params.core(), &params.shared()) }
    }

    /// Returns the average queue (packets, or bytes in byte mode).
    pub fn avg(&self) -> f64 {
        self.inner.core.avg
    }
}

impl Qdisc for Red {
    fn enqueue(&mut self, pkt: Packet, now: Time, ctx: &mut QdiscCtx) {
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
    fn internals(&self, probe: &mut dyn Probe) {
        self.inner.internals(probe);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Ecn;
    use crate::qdisc::testing::{conserves, pkt, Harness};
    use crate::rng;
    use proptest::prelude::*;

    #[test]
    fn average_follows_its_ewma_on_arrivals() {
        let p = RedParams { min_th_pkts: 1000, max_th_pkts: 2000, w_q: 0.1, ..RedParams::default() };
        let mut h = Harness::new(Red::new(p));
        let mut expected = 0.0f64;
        for i in 0..30u32 {
            h.now = Time(1_000 + i as u64); // no idle: the first arrival ends the initial idle
            let q = h.q.len_pkts() as f64;
            h.enqueue(pkt(i, 1000));
            expected = 0.9 * expected + 0.1 * q;
            assert!((h.q.avg() - expected).abs() < 1e-12, "{} vs {expected}", h.q.avg());
        }
        assert!(expected > 20.0);
    }

    #[test]
    fn idle_time_decays_the_average_as_m_small_packets() {
        // 8 Mb/s, 1000-byte packets: C = 1000 packets/s; 10 ms idle = 10 packets.
        let p = RedParams {
            min_th_pkts: 1000,
            max_th_pkts: 2000,
            w_q: 0.1,
            mean_pktsize_bytes: 1000,
            link_rate_bps: Some(8_000_000),
            ..RedParams::default()
        };
        let mut h = Harness::new(Red::new(p));
        for i in 0..20 {
            h.enqueue(pkt(i, 1000));
        }
        while h.dequeue().is_some() {}
        h.dequeue(); // finds the queue empty at t = 0: idle from 0
        let before = h.q.avg();
        h.now = Time(10_000_000);
        h.enqueue(pkt(99, 1000));
        assert!((h.q.avg() - 0.9f64.powi(11) * before).abs() < 1e-12);
    }

    fn core_at(avg: f64, gentle: bool) -> RedCore {
        let mut c = RedParams { gentle, wait: false, ..RedParams::default() }.core();
        c.avg = avg;
        c
    }

    #[test]
    fn base_probability_is_linear_between_the_thresholds() {
        // min_th 5, max_th 15, max_p 0.1.
        for (avg, p) in [(4.9, 0.0), (5.0, 0.0), (7.5, 0.025), (10.0, 0.05), (14.0, 0.09)] {
            assert!((core_at(avg, false).p_b() - p).abs() < 1e-12, "avg {avg}");
        }
        // Gentle: from max_p at max_th to 1 at 2·max_th.
        assert!((core_at(22.5, true).p_b() - (0.1 + 0.9 * 0.5)).abs() < 1e-12);
        assert_eq!(core_at(15.0, false).p_b(), 1.0);
    }

    #[test]
    fn measured_drop_rate_rises_linearly_between_the_thresholds() {
        // With count-based spacing, the packets between drops are uniform on
        // {1, …, 1/p_b − 1} (paper §7), so the drop fraction is 2·p_b.
        let mut rng = rng::stream(42, "red-test", 0);
        for (avg, p_b) in [(6.0, 0.01), (7.5, 0.025), (10.0, 0.05)] {
            let mut c = core_at(avg, false);
            let n = 400_000;
            let drops = (0..n).filter(|_| c.decide(1000, &mut rng) == Verdict::Early).count();
            let frac = drops as f64 / n as f64;
            assert!((frac / (2.0 * p_b) - 1.0).abs() < 0.03, "avg {avg}: {frac} vs {}", 2.0 * p_b);
        }
    }

    #[test]
    fn with_wait_drops_are_spaced_one_to_two_over_p_b_apart() {
        // ns-2 `wait_`: no drop before 1/p_b packets, then uniform up to 2/p_b, so the mean
        // gap is 1.5/p_b and the drop fraction 2·p_b/3.
        let mut rng = rng::stream(43, "red-test", 0);
        for (avg, p_b) in [(6.0, 0.01), (10.0, 0.05)] {
            let mut c = core_at(avg, false);
            c.wait = true;
            let n = 400_000;
            let mut gaps = vec![];
            let mut since = 0u64;
            for _ in 0..n {
                since += 1;
                if c.decide(1000, &mut rng) == Verdict::Early {
                    gaps.push(since);
                    since = 0;
                }
            }
            let frac = gaps.len() as f64 / n as f64;
            assert!((frac / (2.0 * p_b / 3.0) - 1.0).abs() < 0.04, "avg {avg}: {frac} vs {}", 2.0 * p_b / 3.0);
            let min_gap = *gaps.iter().min().unwrap() as f64;
            assert!(min_gap >= (1.0 / p_b).floor(), "a drop came after {min_gap} packets, before 1/p_b");
        }
    }

    #[test]
    fn forced_drops_start_at_max_th_or_twice_it_when_gentle() {
        let mut rng = rng::stream(1, "red-test", 0);
        assert_eq!(core_at(15.0, false).decide(1000, &mut rng), Verdict::Forced);
        assert!(core_at(29.9, true).p_b() < 1.0);
        assert_eq!(core_at(30.0, true).decide(1000, &mut rng), Verdict::Forced);
    }

    #[test]
    fn byte_mode_drops_large_packets_more_often() {
        let mut rng = rng::stream(7, "red-test", 0);
        let mut c = RedParams { byte_mode: true, mean_pktsize_bytes: 1000, ..RedParams::default() }.core();
        c.avg = 7_500.0; // bytes: p_b = 0.025 for a 1000-byte packet
        let n = 200_000;
        let big = (0..n).filter(|_| c.decide(1000, &mut rng) == Verdict::Early).count();
        c.count = -1;
        c.count_bytes = 0.0;
        let small = (0..n).filter(|_| c.decide(100, &mut rng) == Verdict::Early).count();
        assert!(big as f64 > 5.0 * small as f64, "{big} vs {small}");
    }

    #[test]
    fn never_drops_while_at_most_one_packet_is_queued() {
        // An average far above max_th (a burst that has since drained) must not drop packets
        // that find the queue empty or holding one packet (ns-2 red.cc).
        let p = RedParams {
            min_th_pkts: 2,
            max_th_pkts: 4,
            w_q: 0.001,
            gentle: false,
            link_rate_bps: Some(8_000_000),
            ..RedParams::default()
        };
        let mut h = Harness::new(Red::new(p));
        for i in 0..200 {
            h.enqueue(pkt(i, 1000));
        }
        let early_or_forced = h.drops.len();
        assert!(early_or_forced > 0, "the burst itself is policed");
        while h.dequeue().is_some() {}
        let before = h.drops.len();
        for i in 0..50 {
            h.enqueue(pkt(i, 1000));
            h.dequeue();
        }
        assert_eq!(h.drops.len(), before, "arrivals to an empty queue are never dropped");
    }

    #[test]
    fn ecn_capable_arrivals_are_marked_instead_of_early_dropped() {
        let p = RedParams {
            min_th_pkts: 1,
            max_th_pkts: 1000,
            max_p: 1.0,
            w_q: 1.0,
            ecn: true,
            gentle: false,
            wait: false,
            ..RedParams::default()
        };
        let mut h = Harness::new(Red::new(p));
        for i in 0..200 {
            let mut q = pkt(i, 1000);
            q.ecn = Ecn::Ect;
            h.enqueue(q);
        }
        assert!(h.drops.is_empty());
        assert!(h.ctx.marks.len() > 20);
        assert!(h.ctx.marks.iter().all(|m| *m == MarkReason::Early));
    }

    #[test]
    fn bad_thresholds_are_refused_by_name() {
        assert_eq!(RedParams { min_th_pkts: 15, ..RedParams::default() }.validate().unwrap_err().key, "max_th");
        assert_eq!(RedParams { max_p: 0.0, ..RedParams::default() }.validate().unwrap_err().key, "max_p");
        assert_eq!(RedParams { w_q: 1.5, ..RedParams::default() }.validate().unwrap_err().key, "w_q");
    }

    #[test]
    fn a_limit_below_min_th_is_refused_naming_both() {
        let short = RedParams { min_th_pkts: 20, max_th_pkts: 60, limit_pkts: Some(10), ..RedParams::default() };
        let err = short.validate().unwrap_err();
        assert_eq!((err.key.as_str(), err.value.as_str()), ("limit", "10"));
        assert!(err.allowed.contains("min_th (20 packets)"), "{}", err.allowed);
        // 20 packets × 500 B (mean_pktsize) = 10 000 B.
        let bytes = RedParams { min_th_pkts: 20, max_th_pkts: 60, limit_bytes: Some(9_999), ..RedParams::default() };
        assert!(bytes.validate().unwrap_err().allowed.contains("10000 B"));
        for fine in [
            RedParams { min_th_pkts: 20, max_th_pkts: 60, limit_pkts: Some(20), ..RedParams::default() },
            RedParams { min_th_pkts: 20, max_th_pkts: 60, limit_bytes: Some(10_000), ..RedParams::default() },
        ] {
            assert!(fine.validate().is_ok());
        }
    }

    proptest! {
        #[test]
        fn conserves_packets_and_bytes(ops in proptest::collection::vec((any::<bool>(), 40u32..1500), 0..400),
                                       limit in 1u64..50, byte_mode in any::<bool>(), gentle in any::<bool>()) {
            let p = RedParams { min_th_pkts: 2, max_th_pkts: 6, w_q: 0.2, byte_mode, gentle, link_rate_bps: Some(10_000_000),
                                limit_pkts: Some(limit), ..RedParams::default() };
            conserves(Red::new(p), &ops);
        }
    }
}
