//! Applications that open TCP connections while the run goes on: repeated synchronised
//! transfers (incast / partition-aggregate), Poisson short-flow generators, and on-off
//! sources that give their one connection a burst after each idle time.
//!
//! A short flow, and a round of a repeated transfer by default, is a fresh connection
//! (initial window, no RTT history); it gets its own flow id (after the configured flows) so
//! its packets find it, and it reports to its *root* — the configured flow it belongs to —
//! which aggregates goodput, drops and delay. A *persistent* repeated transfer instead sends
//! every round over the configured flow's own connection (the next chunk of its byte
//! stream), which keeps its window and RTO between rounds. Every transfer, fresh or a round
//! of a persistent connection, gets a row in the transfer table with its completion time.
//!
//! Memory grows with the number of transfers (a finished connection's state is kept so that
//! late duplicates still find it); a run with 10^5 transfers needs some tens of MB.

use rand::Rng;
use rand_distr::{Distribution, Exp};

use super::{Endpoints, Flow, FlowAcc, Sim};
use crate::config::{FlowSizes, MAX_TRANSFER_BYTES};
use crate::event::{Event, FlowTimer};
use crate::packet::NodeId;
use crate::rng::StreamRng;
use crate::stats::Occupancy;
use crate::tcp::TcpConfig;
use crate::time::{Duration, Time};

/// How a generator draws transfer sizes.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SizeDraw {
    /// Uniform in `[min, max]` bytes.
    Uniform { min: u64, max: u64 },
    /// A size law (`FlowSizes`).
    Law(FlowSizes),
}

impl SizeDraw {
    /// Draws one size in bytes: an exponential or Pareto draw rounded to whole bytes, at
    /// least 1 and at most [`MAX_TRANSFER_BYTES`].
    fn draw(&self, rng: &mut StreamRng) -> u64 {
        let x = match *self {
            SizeDraw::Uniform { min, max } => return rng.random_range(min..=max),
            SizeDraw::Law(FlowSizes::Fixed { bytes }) => return bytes,
            SizeDraw::Law(FlowSizes::Exponential { mean_bytes }) => {
                Exp::new(1.0 / mean_bytes as f64).expect("validated mean > 0").sample(rng)
            }
            SizeDraw::Law(FlowSizes::Pareto { mean_bytes, shape }) => {
                // Inverse transform: x_m · U^(−1/α), U uniform in (0, 1].
                let x_m = mean_bytes as f64 * (shape - 1.0) / shape;
                let u: f64 = 1.0 - rng.random::<f64>();
                x_m * u.powf(-1.0 / shape)
            }
        };
        (x.round() as u64).clamp(1, MAX_TRANSFER_BYTES)
    }
}

/// A Poisson generator of finite TCP transfers.
///
/// With a host pool, a transfer runs between the first (sender, receiver) pair that has
/// none of the generator's transfers in progress, so each is capped by its own access links
/// (ns-2 set-ups give every flow its own access link; Augé & Roberts §IV-B: "finite size TCP
/// flows each with a maximum rate of 1Mbps"). When every pair is busy the transfer still
/// starts at its arrival time — the arrival process stays Poisson — on the pair with the
/// fewest transfers in progress (the first such), sharing its access links, and is counted
/// in `shared_arrivals`; a pool sized as `docs/traffic.md` says makes that rare.
#[derive(Debug)]
pub(crate) struct ShortFlowGen {
    rng: StreamRng,
    inter_arrival: Exp<f64>,
    sizes: SizeDraw,
    stop: Time,
    tcp: TcpConfig,
    /// The pool of (sender, receiver) nodes; empty = the generator's own.
    pool: Vec<(NodeId, NodeId)>,
    /// Transfers in progress on each pair of the pool.
    busy: Vec<u32>,
    /// Transfers in progress, over time.
    pub in_progress: Occupancy,
    /// Arrivals in the window.
    pub arrivals: u64,
    /// Arrivals in the window that found every pair of the pool busy.
    pub shared_arrivals: u64,
}

impl ShortFlowGen {
    /// Returns a generator of `rate` (> 0) arrivals per second with sizes from `sizes`, until
    /// `stop`, over the pool `pool` (empty: the flow's own endpoints).
    pub fn new(
        rng: StreamRng,
        rate: f64,
        sizes: SizeDraw,
        stop: Time,
        tcp: TcpConfig,
        pool: Vec<(NodeId, NodeId)>,
    ) -> Self {
        ShortFlowGen {
            rng,
            inter_arrival: Exp::new(rate).expect("validated rate > 0"),
            sizes,
            stop,
            tcp,
            busy: vec![0; pool.len()],
            pool,
            in_progress: Occupancy::default(),
            arrivals: 0,
            shared_arrivals: 0,
        }
    }

    /// Returns whether the generator runs its transfers over a host pool.
    pub fn has_pool(&self) -> bool {
        !self.pool.is_empty()
    }

    /// Takes a pair of the pool for a new transfer (`None` without a pool); counts a shared
    /// pair in `shared_arrivals` when `in_window`.
    fn take_pair(&mut self, in_window: bool) -> Option<(NodeId, NodeId)> {
        let i = match self.busy.iter().position(|&b| b == 0) {
            Some(i) => i,
            None => {
                self.shared_arrivals += u64::from(in_window);
                let fewest = self.busy.iter().min()?;
                self.busy.iter().position(|b| b == fewest)?
            }
        };
        self.busy[i] += 1;
        Some(self.pool[i])
    }

    /// Notes that a transfer between `ends` finished at `now`.
    fn release(&mut self, ends: (NodeId, NodeId), now: Time) {
        if let Some(i) = self.pool.iter().position(|&p| p == ends) {
            self.busy[i] -= 1;
        }
        let n = self.in_progress.value() - 1;
        self.in_progress.set(now, n);
    }
}

/// Flows that wait for one another between rounds.
#[derive(Debug)]
pub(crate) struct Barrier {
    pub members: Vec<u32>,
    pub outstanding: u32,
    pub round: u32,
    pub rounds: Option<u32>,
    pub think: Duration,
    /// Rounds reuse each member's connection instead of opening new ones.
    pub persistent: bool,
}

/// An on-off TCP source (Kantawala & Turner 2005, §4: bursts of 256 packets separated by
/// exponential idle times of mean 2 s, "the inter-arrival time between connections").
///
/// Like ns-2's on-off TCP sources, which keep one agent and hand it the next burst, the source
/// keeps one connection: each burst is the next chunk of its byte stream
/// ([`TcpSender::write_chunk`]), so the window, RTT estimate and RTO survive the idle time;
/// whether an idle period longer than the RTO restarts the window from the initial window is
/// the connection's `idle_restart` option (RFC 5681 §4.1; off in ns-2's agents). The idle time
/// starts when the receiver has the whole burst (the sender hears of it half an RTT later,
/// a shift that is small against a mean idle time of seconds) and is drawn from the stream
/// `on_off` of the flow. A burst's completion time runs from the moment it is handed to TCP
/// to the moment the receiver has all of it; a burst unfinished at the end of the run stays
/// in the transfer table without one.
#[derive(Debug)]
pub(crate) struct OnOff {
    rng: StreamRng,
    idle: Exp<f64>,
    /// Bytes per burst.
    pub burst: u64,
    /// Bursts handed to the connection so far.
    pub bursts: u32,
}

impl OnOff {
    /// Returns the application of flow `fid` in a run of `seed`: bursts of `burst` bytes,
    /// idle times of mean `mean_idle` (> 0).
    pub fn new(seed: u64, fid: u32, burst: u64, mean_idle: Duration) -> Self {
        OnOff {
            rng: crate::rng::stream(seed, "on_off", fid as u64),
            idle: Exp::new(1.0 / mean_idle.as_secs_f64()).expect("validated mean idle time > 0"),
            burst,
            bursts: 0,
        }
    }

    /// Draws the next idle time (at least 1 ns).
    pub fn idle_time(&mut self) -> Duration {
        Duration::from_secs_f64(self.idle.sample(&mut self.rng)).max(Duration::from_ns(1))
    }
}

/// One finite connection's record.
#[derive(Debug, Clone)]
pub(crate) struct TransferRec {
    pub root: u32,
    pub round: u32,
    pub start: Time,
    pub size: u64,
    pub done: Option<Time>,
}

impl Sim {
    /// Opens a new finite connection for `root` at `start`; returns its flow id.
    pub(super) fn spawn_connection(&mut self, root: u32, size: u64, tcp: &TcpConfig, start: Time, round: u32) -> u32 {
        let r = &self.flows[root as usize];
        self.spawn_connection_between(root, (r.src, r.dst), size, tcp, start, round)
    }

    /// Opens a new finite connection for `root` from `src` to `dst` at `start`; returns its
    /// flow id.
    fn spawn_connection_between(
        &mut self,
        root: u32,
        (src, dst): (NodeId, NodeId),
        size: u64,
        tcp: &TcpConfig,
        start: Time,
        round: u32,
    ) -> u32 {
        let id = self.flows.len() as u32;
        let r = &self.flows[root as usize];
        let (group, class, barrier) = (r.group, r.class, r.barrier);
        let transfer = self.transfers.len() as u32;
        self.transfers.push(TransferRec { root, round, start, size, done: None });
        self.flows.push(Flow {
            src,
            dst,
            group,
            class,
            start,
            ep: Endpoints::tcp(self.cfg.seed, id, class, src, dst, tcp, Some(size)),
            acc: FlowAcc::default(),
            root,
            transfer: Some(transfer),
            barrier,
            on_off: None,
        });
        self.q.schedule(start, Event::Flow(id, FlowTimer::Start));
        id
    }

    /// A generator's arrival: opens one transfer now and schedules the next arrival.
    pub(super) fn on_generator_arrival(&mut self, f: u32, now: Time) {
        let in_window = self.in_window;
        let flow = &mut self.flows[f as usize];
        let own = (flow.src, flow.dst);
        let Endpoints::Generator(g) = &mut flow.ep else {
            unreachable!("arrival for flow {f}, which is not a generator")
        };
        if now >= g.stop {
            return;
        }
        let size = g.sizes.draw(&mut g.rng);
        let gap = Duration::from_secs_f64(g.inter_arrival.sample(&mut g.rng)).max(Duration::from_ns(1));
        let (next, stop, tcp) = (now + gap, g.stop, g.tcp.clone());
        g.arrivals += u64::from(in_window);
        let ends = g.take_pair(in_window).unwrap_or(own);
        let n = g.in_progress.value() + 1;
        g.in_progress.set(now, n);
        self.spawn_connection_between(f, ends, size, &tcp, now, 0);
        if next < stop {
            self.q.schedule(next, Event::Flow(f, FlowTimer::Arrival));
        }
    }

    /// Notes that connection `f` delivered its last byte at `now`; starts the next round of
    /// its barrier when it was the last one outstanding.
    pub(super) fn on_transfer_done(&mut self, f: u32, now: Time) {
        let flow = &self.flows[f as usize];
        if let Some(t) = flow.transfer {
            self.transfers[t as usize].done = Some(now);
        }
        let (root, ends) = (flow.root, (flow.src, flow.dst));
        if let Endpoints::Generator(g) = &mut self.flows[root as usize].ep {
            g.release(ends, now);
            return;
        }
        let flow = &self.flows[f as usize];
        if let Some(o) = flow.on_off {
            let next = now + self.on_offs[o as usize].idle_time();
            if next < self.end {
                self.q.schedule(next, Event::Flow(f, FlowTimer::NextBurst));
            }
            return;
        }
        let Some(b) = flow.barrier else { return };
        let barrier = &mut self.barriers[b as usize];
        barrier.outstanding -= 1;
        if barrier.outstanding > 0 {
            return;
        }
        barrier.round += 1;
        if barrier.rounds.is_some_and(|n| barrier.round >= n) {
            return;
        }
        barrier.outstanding = barrier.members.len() as u32;
        let (members, round, start) = (barrier.members.clone(), barrier.round, now + barrier.think);
        if barrier.persistent {
            for m in members {
                self.q.schedule(start, Event::Flow(m, FlowTimer::NextRound));
            }
            return;
        }
        for m in members {
            let (size, tcp) = match &self.cfg.flows[m as usize].source {
                crate::config::SourceConfig::Tcp { size_bytes: Some(size), tcp, .. } => (*size, tcp.clone()),
                other => unreachable!("barrier member {m} is {other:?}"),
            };
            self.spawn_connection(m, size, &tcp, start, round);
        }
    }
}

impl Sim {
    /// The next round of persistent connection `f`: its sender gets the next chunk of data
    /// and the round gets a row in the transfer table.
    pub(super) fn next_round(&mut self, f: u32, now: Time) {
        let b = self.flows[f as usize].barrier.expect("a persistent round belongs to a barrier");
        let round = self.barriers[b as usize].round;
        let size = match &self.cfg.flows[f as usize].source {
            crate::config::SourceConfig::Tcp { size_bytes: Some(size), .. } => *size,
            other => unreachable!("persistent round for flow {f} of {other:?}"),
        };
        self.write_next_chunk(f, round, size, now);
    }

    /// The next burst of on-off source `f`, its idle time over.
    pub(super) fn next_burst(&mut self, f: u32, now: Time) {
        let o = self.flows[f as usize].on_off.expect("a burst belongs to an on-off source");
        let app = &mut self.on_offs[o as usize];
        let (round, size) = (app.bursts, app.burst);
        app.bursts += 1;
        self.write_next_chunk(f, round, size, now);
    }

    /// Hands connection `f` the next chunk of its stream (`size` bytes, the size every chunk
    /// of the connection has) at `now`, as transfer `round` with its own row.
    fn write_next_chunk(&mut self, f: u32, round: u32, size: u64, now: Time) {
        let transfer = self.transfers.len() as u32;
        self.transfers.push(TransferRec { root: f, round, start: now, size, done: None });
        let flow = &mut self.flows[f as usize];
        flow.transfer = Some(transfer);
        let Endpoints::Tcp { snd, rcv } = &mut flow.ep else {
            unreachable!("next chunk for flow {f}, which is not TCP")
        };
        rcv.write_chunk();
        snd.write_chunk(now, &mut self.out);
        let src = flow.src;
        self.flush(f, src, now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng;

    /// Draws `n` sizes of `law`.
    fn draws(law: FlowSizes, n: usize) -> Vec<u64> {
        let mut r = rng::stream(1, "short_flows", 0);
        (0..n).map(|_| SizeDraw::Law(law).draw(&mut r)).collect()
    }

    fn mean(xs: &[u64]) -> f64 {
        xs.iter().sum::<u64>() as f64 / xs.len() as f64
    }

    #[test]
    fn exponential_sizes_have_their_mean_and_memoryless_tail() {
        let xs = draws(FlowSizes::Exponential { mean_bytes: 10_000 }, 200_000);
        // σ of the mean: 10^4/√(2·10^5) = 22 bytes.
        assert!((mean(&xs) - 10_000.0).abs() < 100.0, "mean {}", mean(&xs));
        let above = |x: u64| xs.iter().filter(|&&s| s > x).count() as f64 / xs.len() as f64;
        assert!((above(20_000) - (-2.0f64).exp()).abs() < 0.005);
        assert!(xs.iter().all(|&s| s >= 1));
    }

    #[test]
    fn pareto_sizes_have_their_scale_mean_and_power_tail() {
        // Shape 2.5 (finite variance, so the sample mean converges): x_m = 6000 for a mean of 10^4.
        let xs = draws(FlowSizes::Pareto { mean_bytes: 10_000, shape: 2.5 }, 400_000);
        assert!(xs.iter().all(|&s| s >= 6_000));
        assert!((mean(&xs) / 10_000.0 - 1.0).abs() < 0.02, "mean {}", mean(&xs));
        let above = |x: u64| xs.iter().filter(|&&s| s > x).count() as f64 / xs.len() as f64;
        for x in [12_000u64, 60_000] {
            let p = (6_000.0 / x as f64).powf(2.5);
            assert!((above(x) / p - 1.0).abs() < 0.05, "P(X > {x}) = {} against {p}", above(x));
        }
    }

    #[test]
    fn fixed_and_uniform_sizes() {
        assert!(draws(FlowSizes::Fixed { bytes: 1234 }, 10).iter().all(|&s| s == 1234));
        let mut r = rng::stream(1, "short_flows", 0);
        let u: Vec<u64> = (0..1000).map(|_| SizeDraw::Uniform { min: 5, max: 7 }.draw(&mut r)).collect();
        assert!(u.iter().all(|s| (5..=7).contains(s)) && u.contains(&5) && u.contains(&7));
    }

    #[test]
    fn a_pool_hands_out_idle_pairs_first_then_the_least_busy() {
        let mut g = ShortFlowGen::new(
            rng::stream(1, "short_flows", 0),
            1.0,
            SizeDraw::Law(FlowSizes::Fixed { bytes: 1 }),
            Time::ZERO,
            TcpConfig::default(),
            vec![(10, 20), (11, 21)],
        );
        assert_eq!(g.take_pair(true), Some((10, 20)));
        assert_eq!(g.take_pair(true), Some((11, 21)));
        assert_eq!(g.shared_arrivals, 0);
        assert_eq!(g.take_pair(true), Some((10, 20)), "both busy: the first of the least busy");
        assert_eq!(g.take_pair(false), Some((11, 21)));
        assert_eq!(g.shared_arrivals, 1, "only arrivals in the window are counted");
        g.in_progress.set(Time(0), 4);
        g.release((11, 21), Time(5));
        g.release((11, 21), Time(6));
        assert_eq!(g.take_pair(true), Some((11, 21)), "idle again");
        assert_eq!(g.in_progress.value(), 2);
    }
}
