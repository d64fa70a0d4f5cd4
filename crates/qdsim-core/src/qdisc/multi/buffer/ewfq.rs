//! `ewfq`: the shared buffer of EWFQ, managed by weighted differential dropping (Lu, Voelker
//! & Snoeren, "Weighted Fair Queuing with Differential Dropping", §III–V), usable under any
//! scheduler (`wfq` as in the paper, `drr`, or `fifo_classes` for AFD's FIFO).
//!
//! Principles. A "flow" of the paper is a class of the classifier — the queue its packets
//! join, which is what `weights` attach to (the paper's "flow classes", §IV-A). On arrival:
//! - **identification** (§III-B): a class in the *holding* table has all its bytes counted
//!   into `m_i`. Any other class's packet of L bytes is sampled with probability p·L/w_i
//!   (byte sampling scaled by 1/w_i, §III-A, at most 1); a sampled packet must also
//!   *match* the class of a packet drawn at random from the packet cache. After `k` matches
//!   in an interval (the partial counts are the *sampling* table) the class enters the
//!   holding table, counting from that packet. Every arrival then enters the packet cache
//!   with probability `p_c`, replacing a random slot;
//! - **dropping**: a held responsive class is dropped with equation (2)'s `d_i`, a held
//!   non-responsive one with (1 − w_i·m_fair/m_i)⁺ (footnote 1, weighted as §III-A); a class
//!   not held is never dropped by the dropper. Drops have reason `differential`. An arrival
//!   the dropper keeps but that does not fit the shared buffer is tail-dropped (`overflow`).
//!
//! Every 1/f_s, `m_fair ← m_fair + (t_i/W)·[α(Q_old − q_target) − β(Q_now − q_target)]`
//! (AFD's PI form; Q in bytes, q_target = 0.5·limit), clamped to [1500 B, the ceiling],
//! starting at 1500 B (the first update is 1/f_s after the first arrival). W is the
//! **control window** (`ewfq_window`), the span over which AFD's m_fair is a count: by
//! default the time b arrivals take, b = `ewfq_cache_size` (see `Window` for why).
//! The ceiling is link rate × t_i, or with `ewfq_ceiling = "fair_share"` the link's bytes
//! per interval over the summed weights of the classes active in this interval or the last
//! (an option, off by default). At the end of each interval t_i:
//! γ_i ← max(0.5γ_i + 0.5γ_i·m_i/(w_i·m̄_fair), 1) for held classes (§IV-B); a class that
//! sent less than `hold_fraction`·w_i·m̄_fair leaves the holding table (γ_i back to 1)
//! unless it entered during that interval; every `m_i` becomes the interval's report and
//! restarts from 0; the sampling table is cleared.
//!
//! The byte-sampling probability p is chosen, as §V says, so that a class sending its fair
//! share is missed with probability `p_miss` within an interval: with threshold T = m_fair
//! (bytes per unit weight) and A the bytes that arrived in the last interval, a class of
//! weight 1 at T is sampled ≈ p·T times and each sample matches with probability ≈ its share
//! of the cache, T/A; so p = O_k·A/T², where O_k is the mean of a Poisson count that falls
//! short of k with probability `p_miss` (O_1 = ln 10 ≈ 2.30). See `docs/algorithms/ewfq.md`.
//!
//! Readings where the paper is silent are listed in `docs/algorithms/ewfq.md`. Tables are
//! arrays indexed by class (classes are small queue indices), which behave as the paper's
//! hash maps. The time of an arrival is its `enq_time` (the port stamps it before `admit`).

use rand::Rng;

use super::{fits_total, Policy};
use crate::catalog::ParamInfo;
use crate::error::ConfigError;
use crate::packet::Packet;
use crate::qdisc::aqm::Periodic;
use crate::qdisc::multi::FqParams;
use crate::qdisc::sched::{Queues, Scheduler};
use crate::qdisc::{DropReason, Probe, QdiscCtx};
use crate::rng::StreamRng;
use crate::time::{Duration, Time, NS_PER_SEC};

/// Floor of `m_fair`, bytes per interval per unit weight: one full-size packet. At the floor
/// every held class is dropped with probability ≈ 1 already; it keeps p and d_i finite.
const M_FAIR_MIN_BYTES: f64 = 1500.0;
/// Ceiling of γ_i: reachable only by a non-responsive class declared responsive, whose d_i
/// is 1 long before; it keeps γ_i finite.
const GAMMA_MAX: f64 = 1e6;

/// The per-class state: its holding-table entry (if held) and its sampling-table count.
#[derive(Debug, Clone, PartialEq)]
struct Class {
    /// In the holding table.
    held: bool,
    /// Entered the holding table during the current interval (counted only since then).
    new: bool,
    /// Bytes counted in the current interval, m_i.
    m_i: u64,
    /// Packets counted in the current interval.
    pkts: u64,
    /// m_i of the last complete interval the class was held through.
    m_last: Option<u64>,
    /// Mean packet size over that interval, bytes (size_p when measured).
    size_last: Option<f64>,
    /// γ_i = RTT_o / RTT_i, tracked (§IV-B); 1 when not held.
    gamma: f64,
    /// Matches so far in this interval (the sampling table).
    matches: u32,
}

impl Default for Class {
    fn default() -> Self {
        Class { held: false, new: false, m_i: 0, pkts: 0, m_last: None, size_last: None, gamma: 1.0, matches: 0 }
    }
}

/// EWFQ's configuration, fixed when built.
#[derive(Debug, Clone, PartialEq)]
struct Config {
    alpha: f64,
    beta: f64,
    /// q_target = 0.5·q_size, bytes.
    q_target: f64,
    limit_pkts: Option<u64>,
    limit_bytes: u64,
    /// t_i, seconds.
    t_i: f64,
    p_c: f64,
    k: u32,
    /// O_k: expected matches for which P(fewer than k) = p_miss.
    o_k: f64,
    /// RTT_o, seconds.
    rtt_o: f64,
    /// size_p when configured, bytes.
    size_p: Option<f64>,
    hold_fraction: f64,
    /// The link's bytes per interval: the ceiling of m_fair.
    m_fair_max: f64,
    /// Whether m_fair is also capped at the fair share per unit weight (`ewfq_ceiling`).
    fair_share_cap: bool,
    /// The control window W of the m_fair update.
    window: Window,
    weights: Vec<f64>,
    responsive: Vec<bool>,
    /// n_i per class.
    n: Vec<f64>,
}

/// The control window W: the span over which the m_fair the PI update steps is a count.
///
/// §V gives α = 0.85 and β = 0.9, half of AFD's 1.7 and 1.8 (ALGORITHM-NOTES §2), but not
/// the units the update works in; §III-A keeps the rest of AFD: "m_fair is estimated in the
/// same manner except it now has a different meaning". AFD (Pan, Breslau, Prabhakar &
/// Shenker, CCR 33(2) 2003) "bases its dropping decisions on the recent history of packet
/// arrivals" (its abstract): m_i is what flow i holds of a shadow buffer of the last b
/// sampled arrivals (slots, or bytes in AFD.p4: "flow_count (equivalent of m_i in the AFD
/// paper)"), and α, β step m_fair in those units per packet of queue (ALGORITHM-NOTES §2).
/// A flow holding m_i of b slots arrives at r_i ≈ R·m_i/b (R the aggregate arrival rate):
/// AFD's m_fair is a fair flow's count among the last b arrivals, a count over the time b
/// arrivals take — not over a 1-s interval. EWFQ's shadow buffer is its packet cache
/// (§III-B: "a randomly sampled packet cache of the arriving packets"), so b =
/// `ewfq_cache_size`, and an update steps m_fair by α·ΔQ bytes per b arrivals, which per
/// interval t_i is (A/b)·α·ΔQ, A the packets arriving per interval (the default window is
/// b·t_i/A). With packets of L bytes the step is α·ΔQ/L per b packets — AFD's update in
/// AFD's units at half its gains — and the loop's gain in rate, α·R/b per queued packet,
/// does not depend on the link's speed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Window {
    /// The time `b` arrivals take (the default): the step is scaled by A/b.
    Arrivals { b: f64 },
    /// A fixed time W, seconds: the step is scaled by t_i/W (W = t_i is the 1-s reading).
    Fixed(f64),
}

/// Weighted differential dropping over a shared buffer (EWFQ).
#[derive(Debug, Clone, PartialEq)]
pub struct Ewfq {
    /// Boxed: one per link, read once per arrival, and it keeps the policy enum small.
    cfg: Box<Config>,
    /// The m_fair update, every 1/f_s.
    update: Periodic,
    /// The end of each measurement interval.
    interval: Periodic,
    /// m_fair, bytes per interval per unit weight.
    m_fair: f64,
    /// Q_old, bytes.
    q_old: f64,
    /// Sum and count of m_fair over the current interval (for m̄_fair).
    m_fair_sum: f64,
    updates: u32,
    /// Bytes and packets arrived in the current interval, and in the last one (A).
    arrived: u64,
    a_last: f64,
    arrived_pkts: u64,
    /// `None` before the first interval ends.
    a_last_pkts: Option<f64>,
    /// The packet cache: the class of each slot's packet.
    cache: Vec<Option<u32>>,
    classes: Vec<Class>,
    /// Per class: bit 0 set if it had an arrival in the current interval, bit 1 in the last
    /// one (the classes `ewfq_ceiling = "fair_share"` divides the link among).
    active: Vec<u8>,
    /// Classes in the holding table.
    holding: usize,
}

/// Returns equation (2): d_i = γ_i²·n_i²/w_i² · 1/(0.66·(m_fair/size_p · RTT_o/t_i)²), at most 1.
/// `m_fair`, `size_p` in bytes, `rtt_o`, `t_i` in seconds.
pub fn equation_2(gamma: f64, n: f64, w: f64, m_fair: f64, size_p: f64, rtt_o: f64, t_i: f64) -> f64 {
    let window = m_fair / size_p * rtt_o / t_i; // packets per RTT_o of a class at m_fair
    ((gamma * n / w).powi(2) / (0.66 * window * window)).min(1.0)
}

/// Returns γ after an interval in which the class sent `ratio` times its fair share
/// (m_i / (w_i·m̄_fair)): max(0.5γ + 0.5γ·ratio, 1) (§IV-B), at most `GAMMA_MAX`.
pub fn gamma_update(gamma: f64, ratio: f64) -> f64 {
    (0.5 * gamma + 0.5 * gamma * ratio).clamp(1.0, GAMMA_MAX)
}

/// Returns O_k, the mean of a Poisson count with P(count < k) = `p_miss` (bisection).
pub fn expected_matches(k: u32, p_miss: f64) -> f64 {
    let below_k = |mu: f64| {
        let (mut term, mut sum) = ((-mu).exp(), 0.0);
        for j in 0..k {
            sum += term;
            term *= mu / (j + 1) as f64;
        }
        sum
    };
    let (mut lo, mut hi) = (0.0, 1000.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if below_k(mid) > p_miss {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl Ewfq {
    fn weight(&self, q: usize) -> f64 {
        self.cfg.weights.get(q).copied().unwrap_or(1.0)
    }

    fn responsive(&self, q: usize) -> bool {
        self.cfg.responsive.get(q).copied().unwrap_or(true)
    }

    fn n(&self, q: usize) -> f64 {
        self.cfg.n.get(q).copied().unwrap_or(1.0)
    }

    /// Returns the byte-sampling probability p for weight 1: O_k·A/m_fair², A the larger of
    /// the last interval's arrivals and this one's so far (a lower bound of the load).
    pub fn p(&self) -> f64 {
        let a = self.a_last.max(self.arrived as f64);
        (self.cfg.o_k * a / (self.m_fair * self.m_fair)).min(1.0)
    }

    /// Returns the drop probability d_i of class `q` now.
    pub fn d(&self, q: usize) -> f64 {
        let Some(c) = self.classes.get(q).filter(|c| c.held) else { return 0.0 };
        let w = self.weight(q);
        if self.responsive(q) {
            let size_p = self.cfg.size_p.or(c.size_last).unwrap_or(c.m_i as f64 / c.pkts.max(1) as f64).max(1.0);
            equation_2(c.gamma, self.n(q), w, self.m_fair, size_p, self.cfg.rtt_o, self.cfg.t_i)
        } else {
            c.m_last.map_or(0.0, |m| (1.0 - w * self.m_fair / m.max(1) as f64).max(0.0))
        }
    }

    /// Counts an arrival of `len` bytes of class `q`, or tries to identify the class.
    fn identify(&mut self, q: usize, len: u64, rng: &mut StreamRng) {
        if self.classes[q].held {
            let c = &mut self.classes[q];
            c.m_i += len;
            c.pkts += 1;
            return;
        }
        // p·L/w_i: the expected sampled bytes of the packet at p/w_i per byte. A sampled
        // packet gets one match attempt, so this (not 1 − (1 − p/w_i)^L, up to 11 % less at
        // pL = 0.23) keeps a class's expected attempts at p/w_i per byte, as p assumes.
        let s = (self.p() * len as f64 / self.weight(q)).min(1.0);
        let sampled = s > 0.0 && rng.random::<f64>() < s;
        if !sampled || self.cache[rng.random_range(0..self.cache.len())] != Some(q as u32) {
            return;
        }
        let k = self.cfg.k;
        let c = &mut self.classes[q];
        c.matches += 1;
        if c.matches >= k {
            *c = Class { held: true, new: true, m_i: len, pkts: 1, ..Class::default() };
            self.holding += 1;
        }
    }

    /// Returns the packets arriving per interval, A: the larger of the last interval's and
    /// this one's so far; before an interval has ended, the link's bytes per interval in
    /// packets of the mean size seen so far (as `p` assumes the link's worth of bytes).
    /// At least one packet, so that the window stays finite.
    fn arrivals_pkts(&self) -> f64 {
        let now = self.arrived_pkts as f64;
        let mean_size = if self.arrived_pkts > 0 { self.arrived as f64 / now } else { M_FAIR_MIN_BYTES };
        self.a_last_pkts.unwrap_or(self.a_last / mean_size).max(now).max(1.0)
    }

    /// Returns t_i/W, the factor from a count over the control window W to one over the
    /// interval t_i: A/b for the default window of b arrivals, t_i/W for a fixed one.
    pub fn step_scale(&self) -> f64 {
        match self.cfg.window {
            Window::Arrivals { b } => self.arrivals_pkts() / b,
            Window::Fixed(w) => self.cfg.t_i / w,
        }
    }

    /// Returns the ceiling of m_fair now: the link's bytes per interval, or with
    /// `ewfq_ceiling = "fair_share"` that over the summed weights of the active classes.
    pub fn ceiling(&self) -> f64 {
        if !self.cfg.fair_share_cap {
            return self.cfg.m_fair_max;
        }
        let weights: f64 = (0..self.active.len()).filter(|&q| self.active[q] != 0).map(|q| self.weight(q)).sum();
        (self.cfg.m_fair_max / weights.max(1.0)).max(M_FAIR_MIN_BYTES)
    }

    /// Runs one m_fair update with the queue at `q_now` bytes: AFD's step, counted over the
    /// control window, times [`Ewfq::step_scale`] to count it over t_i.
    fn update_m_fair(&mut self, q_now: u64) {
        let q_now = q_now as f64;
        let step = self.cfg.alpha * (self.q_old - self.cfg.q_target) - self.cfg.beta * (q_now - self.cfg.q_target);
        self.m_fair = (self.m_fair + self.step_scale() * step).clamp(M_FAIR_MIN_BYTES, self.ceiling());
        self.q_old = q_now;
        self.m_fair_sum += self.m_fair;
        self.updates += 1;
    }

    /// Ends a measurement interval: γ updates, holding-table removals, counters reset.
    fn end_interval(&mut self) {
        let m_bar = if self.updates > 0 { self.m_fair_sum / self.updates as f64 } else { self.m_fair };
        (self.m_fair_sum, self.updates) = (0.0, 0);
        self.a_last = self.arrived as f64;
        self.a_last_pkts = Some(self.arrived_pkts as f64);
        (self.arrived, self.arrived_pkts) = (0, 0);
        for a in &mut self.active {
            *a = (*a << 1) & 2;
        }
        for q in 0..self.classes.len() {
            let fair = self.weight(q) * m_bar;
            let c = &mut self.classes[q];
            if c.held {
                let m = c.m_i as f64;
                if !c.new && m < self.cfg.hold_fraction * fair {
                    *c = Class::default();
                    self.holding -= 1;
                } else {
                    c.gamma = gamma_update(c.gamma, m / fair);
                    c.m_last = Some(c.m_i);
                    c.size_last = (c.pkts > 0).then(|| m / c.pkts as f64);
                    c.new = false;
                }
            }
            (c.m_i, c.pkts, c.matches) = (0, 0, 0);
        }
    }
}

impl Policy for Ewfq {
    const PARAMS: &'static [ParamInfo] = &[
        super::shared::LIMIT,
        ParamInfo {
            name: "ewfq_alpha",
            unit: "float",
            default: "0.85",
            help: "ewfq: m_fair gain α on Q_old − q_target (§V)",
        },
        ParamInfo {
            name: "ewfq_beta",
            unit: "float",
            default: "0.9",
            help: "ewfq: m_fair gain β on Q_now − q_target, > α (§V)",
        },
        ParamInfo {
            name: "ewfq_f_s", unit: "float", default: "100", help: "ewfq: m_fair updates per second (Hz, §V)"
        },
        ParamInfo { name: "ewfq_t_i", unit: "time", default: "1s", help: "ewfq: measurement interval t_i (§V)" },
        ParamInfo {
            name: "ewfq_window",
            unit: "time",
            default: "auto",
            help: "ewfq: control window W, the span m_fair's PI step counts over (step × t_i/W); auto = the time of the last ewfq_cache_size arrivals, AFD's shadow buffer",
        },
        ParamInfo {
            name: "ewfq_ceiling",
            unit: "name",
            default: "link",
            help: "ewfq: ceiling of m_fair, link (link_rate × t_i) or fair_share (that over the summed weights of the classes active this interval or the last)",
        },
        ParamInfo {
            name: "ewfq_p_c",
            unit: "float",
            default: "0.1",
            help: "ewfq: packet cache insertion probability (§V)",
        },
        ParamInfo {
            name: "ewfq_k",
            unit: "int",
            default: "1",
            help: "ewfq: match-hit stages before a class is held (§V)",
        },
        ParamInfo { name: "ewfq_cache_size", unit: "int", default: "100", help: "ewfq: packet cache slots" },
        ParamInfo {
            name: "ewfq_p_miss",
            unit: "float",
            default: "0.1",
            help: "ewfq: chance to miss a class at its fair share in an interval; sets p (§V)",
        },
        ParamInfo {
            name: "ewfq_hold_fraction",
            unit: "float",
            default: "0.5",
            help: "ewfq: a class leaves the holding table below this share of its fair bytes",
        },
        ParamInfo {
            name: "ewfq_rtt_o",
            unit: "time",
            default: "none",
            help: "ewfq: RTT_o, an assumed maximum RTT (required by ewfq, §IV-B)",
        },
        ParamInfo {
            name: "ewfq_size_p",
            unit: "bytes",
            default: "auto",
            help: "ewfq: size_p of equation (2); auto = each class's mean packet size",
        },
        ParamInfo {
            name: "ewfq_responsive",
            unit: "bools",
            default: "[]",
            help: "ewfq: class i responsive (TCP, equation 2) or not; missing entries true",
        },
        ParamInfo {
            name: "ewfq_tcp_flows",
            unit: "list",
            default: "[]",
            help: "ewfq: n_i, the TCP flows of class i (§IV-A); missing entries 1",
        },
        ParamInfo {
            name: "link_rate",
            unit: "bit/s",
            default: "the link's rate",
            help: "ewfq: the ceiling of m_fair is link_rate × t_i (or its fair share, ewfq_ceiling)",
        },
    ];

    fn from_params(p: &FqParams) -> Result<Self, ConfigError> {
        check(p)?;
        let t_i = Duration::from_ns(p.ewfq_t_i_ns).as_secs_f64();
        let limit_bytes = p.limit_bytes.unwrap_or(0);
        let m_fair_max = (p.link_rate_bps.unwrap_or(0) as f64 / 8.0 * t_i).max(M_FAIR_MIN_BYTES);
        Ok(Ewfq {
            cfg: Box::new(Config {
                alpha: p.ewfq_alpha,
                beta: p.ewfq_beta,
                q_target: 0.5 * limit_bytes as f64,
                limit_pkts: p.limit_pkts,
                limit_bytes,
                t_i,
                p_c: p.ewfq_p_c,
                k: p.ewfq_k as u32,
                o_k: expected_matches(p.ewfq_k as u32, p.ewfq_p_miss),
                rtt_o: Duration::from_ns(p.ewfq_rtt_o_ns.unwrap_or(0)).as_secs_f64(),
                size_p: p.ewfq_size_p_bytes.map(|s| s as f64),
                hold_fraction: p.ewfq_hold_fraction,
                m_fair_max,
                fair_share_cap: p.ewfq_ceiling == "fair_share",
                window: p.ewfq_window_ns.map_or(Window::Arrivals { b: p.ewfq_cache_size as f64 }, |w| {
                    Window::Fixed(Duration::from_ns(w).as_secs_f64())
                }),
                weights: p.weights.iter().map(|&w| w.max(1) as f64).collect(),
                responsive: p.ewfq_responsive.clone(),
                n: p.ewfq_tcp_flows.iter().map(|&n| n.max(1) as f64).collect(),
            }),
            update: Periodic::new(Duration::from_ns((NS_PER_SEC as f64 / p.ewfq_f_s).round() as u64)),
            interval: Periodic::new(Duration::from_ns(p.ewfq_t_i_ns)),
            // From below, as AFD's implementations (which start it at 0): the dropper takes
            // over before tail drops do. From the ceiling, a drop-tail regime whose mean
            // queue sits near q_target gives the PI loop little to correct (docs).
            m_fair: M_FAIR_MIN_BYTES,
            q_old: 0.0,
            m_fair_sum: 0.0,
            updates: 0,
            arrived: 0,
            // Before a full interval, assume the link's worth of arrivals.
            a_last: m_fair_max,
            arrived_pkts: 0,
            a_last_pkts: None,
            cache: vec![None; p.ewfq_cache_size as usize],
            classes: Vec::new(),
            active: Vec::new(),
            holding: 0,
        })
    }

    fn admit<S: Scheduler>(
        &mut self,
        q: usize,
        pkt: &Packet,
        queues: &mut Queues,
        _sched: &mut S,
        ctx: &mut QdiscCtx,
    ) -> Result<(), DropReason> {
        self.update.start(pkt.enq_time, ctx);
        self.interval.start(pkt.enq_time, ctx);
        if self.classes.len() <= q {
            self.classes.resize(q + 1, Class::default());
            self.active.resize(q + 1, 0);
        }
        let len = pkt.size_bytes as u64;
        self.arrived += len;
        self.arrived_pkts += 1;
        self.active[q] |= 1;
        self.identify(q, len, &mut ctx.rng);
        if ctx.rng.random::<f64>() < self.cfg.p_c {
            let slot = ctx.rng.random_range(0..self.cache.len());
            self.cache[slot] = Some(q as u32);
        }
        let d = self.d(q);
        if d > 0.0 && ctx.rng.random::<f64>() < d {
            return Err(DropReason::Differential);
        }
        if fits_total(queues, pkt, self.cfg.limit_pkts, Some(self.cfg.limit_bytes)) {
            Ok(())
        } else {
            Err(DropReason::Overflow)
        }
    }

    fn on_timer(&mut self, now: Time, queues: &Queues, ctx: &mut QdiscCtx) {
        if self.update.fire(now, ctx) {
            self.update_m_fair(queues.total_bytes());
        }
        if self.interval.fire(now, ctx) {
            self.end_interval();
        }
    }

    /// Variables: `m_fair` (bytes per interval per unit weight), `p` (byte-sampling
    /// probability at weight 1), `holding` (classes held), `window` (the control window W
    /// now, seconds); per class `m_i` (bytes counted so far this interval), `m_i_last` (the
    /// last interval's count, 0 if none), `gamma_i`, `d_i`.
    fn internals(&self, probe: &mut dyn Probe) {
        probe.record("m_fair", None, self.m_fair);
        probe.record("p", None, self.p());
        probe.record("holding", None, self.holding as f64);
        probe.record("window", None, self.cfg.t_i / self.step_scale());
        for (q, c) in self.classes.iter().enumerate() {
            let class = Some(q as u32);
            probe.record("m_i", class, c.m_i as f64);
            probe.record("m_i_last", class, c.m_last.unwrap_or(0) as f64);
            probe.record("gamma_i", class, c.gamma);
            probe.record("d_i", class, self.d(q));
        }
    }
}

/// Checks the keys EWFQ reads; the first bad one is the error.
fn check(p: &FqParams) -> Result<(), ConfigError> {
    let need = |ok: bool, key: &str, value: &dyn ToString, allowed: &str| {
        if ok {
            Ok(())
        } else {
            Err(ConfigError::new(key, value.to_string(), allowed))
        }
    };
    // AFD's stability condition is β > α > 0 (ALGORITHM-NOTES §2): α the proportional gain
    // on Q_now − Q_old, β − α the integral gain; no bound below 1 (AFD's own are 1.7, 1.8).
    need(p.ewfq_alpha.is_finite() && p.ewfq_alpha > 0.0, "ewfq_alpha", &p.ewfq_alpha, "a finite gain > 0")?;
    need(
        p.ewfq_beta.is_finite() && p.ewfq_beta > p.ewfq_alpha,
        "ewfq_beta",
        &p.ewfq_beta,
        &format!("a finite gain greater than ewfq_alpha ({}), so a queue above q_target lowers m_fair", p.ewfq_alpha),
    )?;
    need(p.ewfq_f_s > 0.0 && p.ewfq_f_s <= 1e9, "ewfq_f_s", &p.ewfq_f_s, "a frequency > 0 Hz and at most 1e9 Hz")?;
    let update_ns = (NS_PER_SEC as f64 / p.ewfq_f_s).round() as u64;
    need(
        p.ewfq_t_i_ns >= update_ns,
        "ewfq_t_i",
        &p.ewfq_t_i_ns,
        &format!("at least 1/f_s ({update_ns} ns): one m_fair update per interval"),
    )?;
    let window = p.ewfq_window_ns.map_or("auto".to_string(), |w| w.to_string());
    need(
        p.ewfq_window_ns != Some(0),
        "ewfq_window",
        &window,
        "a window > 0 (e.g. \"100ms\"), or auto: the time of the last ewfq_cache_size arrivals",
    )?;
    need(
        matches!(p.ewfq_ceiling.as_str(), "link" | "fair_share"),
        "ewfq_ceiling",
        &p.ewfq_ceiling,
        "link or fair_share",
    )?;
    need(p.ewfq_p_c > 0.0 && p.ewfq_p_c <= 1.0, "ewfq_p_c", &p.ewfq_p_c, "a probability in (0, 1]")?;
    need((1..=100).contains(&p.ewfq_k), "ewfq_k", &p.ewfq_k, "1 to 100 match-hit stages")?;
    need((1..=1_000_000).contains(&p.ewfq_cache_size), "ewfq_cache_size", &p.ewfq_cache_size, "1 to 1000000 slots")?;
    need(p.ewfq_p_miss > 0.0 && p.ewfq_p_miss < 1.0, "ewfq_p_miss", &p.ewfq_p_miss, "a probability in (0, 1)")?;
    need(
        (0.0..=1.0).contains(&p.ewfq_hold_fraction),
        "ewfq_hold_fraction",
        &p.ewfq_hold_fraction,
        "a fraction in [0, 1]",
    )?;
    let rtt_o = p.ewfq_rtt_o_ns.map_or("none".to_string(), |v| v.to_string());
    need(p.ewfq_rtt_o_ns.is_some_and(|r| r > 0), "ewfq_rtt_o", &rtt_o, "a maximum RTT > 0, required by buffer = ewfq")?;
    need(p.ewfq_size_p_bytes != Some(0), "ewfq_size_p", &0, "at least 1 byte, or absent to measure it")?;
    for (i, &n) in p.ewfq_tcp_flows.iter().enumerate() {
        need(n >= 1, &format!("ewfq_tcp_flows[{i}]"), &n, "at least 1 TCP flow per class")?;
    }
    let limit = p.limit_pkts.map_or("none".to_string(), |l| format!("{l}pkt"));
    need(
        p.limit_bytes.is_some(),
        "limit",
        &limit,
        "a buffer size in bytes (e.g. \"30KB\"), required by buffer = ewfq: q_target = 0.5·limit",
    )?;
    let rate = p.link_rate_bps.map_or("none".to_string(), |r| r.to_string());
    need(p.link_rate_bps.is_some_and(|r| r > 0), "link_rate", &rate, "the link's rate > 0 (the ceiling of m_fair)")
}

#[cfg(test)]
#[path = "ewfq_tests.rs"]
mod tests;
