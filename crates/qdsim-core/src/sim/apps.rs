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
use crate::event::{Event, FlowTimer};
use crate::rng::StreamRng;
use crate::tcp::TcpConfig;
use crate::time::{Duration, Time};

/// A Poisson generator of finite TCP transfers.
#[derive(Debug)]
pub(crate) struct ShortFlowGen {
    pub rng: StreamRng,
    pub inter_arrival: Exp<f64>,
    pub size_min: u64,
    pub size_max: u64,
    pub stop: Time,
    pub tcp: TcpConfig,
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
        let id = self.flows.len() as u32;
        let r = &self.flows[root as usize];
        let (src, dst, group, class, barrier) = (r.src, r.dst, r.group, r.class, r.barrier);
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
        let Endpoints::Generator(g) = &mut self.flows[f as usize].ep else {
            unreachable!("arrival for flow {f}, which is not a generator")
        };
        if now >= g.stop {
            return;
        }
        let size = g.rng.random_range(g.size_min..=g.size_max);
        let gap = Duration::from_secs_f64(g.inter_arrival.sample(&mut g.rng)).max(Duration::from_ns(1));
        let (next, stop, tcp) = (now + gap, g.stop, g.tcp.clone());
        self.spawn_connection(f, size, &tcp, now, 0);
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
        let mut out = std::mem::take(&mut self.out);
        let flow = &mut self.flows[f as usize];
        flow.transfer = Some(transfer);
        let Endpoints::Tcp { snd, rcv } = &mut flow.ep else {
            unreachable!("next chunk for flow {f}, which is not TCP")
        };
        rcv.write_chunk();
        snd.write_chunk(now, &mut out);
        let src = flow.src;
        self.flush(f, src, out, now);
    }
}
